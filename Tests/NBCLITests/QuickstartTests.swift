import Foundation
import NBTestSupport
import XCTest

/// `nb quickstart`: builds a demo repository through the same operations as the commands; git checks the result.
final class QuickstartTests: NBCLITestCase {
  func testQuickstartBuildsASoundDemoRepository() throws {
    let demo = temp.file("demo")
    let result = try runner.run(["quickstart", demo.path])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertTrue(result.stdout.contains("$ nb init \(demo.path)"), result.stdout)
    let demoGit = try GitCLI(workTree: demo, home: home)
    XCTAssertEqual(
      try demoGit.logSubjects(),
      [
        "nb: ink import sketch.inkml into work/archive/roadmap.md",
        "nb: move work/projects/roadmap.md -> work/archive/", "nb: rename tag q3 -> q4 (1 note)",
        "nb: edit work/projects/roadmap.md", "nb: add work/standup.md", "nb: add work/projects/roadmap.md",
        "nb: init",
      ])
    XCTAssertEqual(try demoGit.statusPorcelain(), "")
    XCTAssertNoThrow(try demoGit.fsck())
    let notes = try runner.run(["list", "--json", "--dir", demo.path])
    XCTAssertEqual(notes.status, 0, notes.stderr)
    let listed = try XCTUnwrap(try JSONSerialization.jsonObject(with: notes.stdoutData) as? [[String: Any]])
    XCTAssertEqual(listed.compactMap { $0["path"] as? String }, ["work/archive/roadmap.md", "work/standup.md"])
    let roadmap = try XCTUnwrap(listed.first)
    XCTAssertEqual(roadmap["tags"] as? [String], ["planning", "q4"])
    // Every commit that touched the roadmap names it by id.
    let id = try XCTUnwrap(roadmap["id"] as? String)
    XCTAssertEqual(try demoGit.run("log", "--format=%s", "--grep", "Nb-Note-Id: \(id)").split(separator: "\n").count, 5)
    // The sketch: two strokes beside the note, and its rendering beside the repository.
    let ink = try runner.run(["ink", "info", "roadmap", "--json", "--dir", demo.path])
    XCTAssertEqual(ink.status, 0, ink.stderr)
    let info = try XCTUnwrap(try JSONSerialization.jsonObject(with: ink.stdoutData) as? [String: Any])
    XCTAssertEqual(info["strokes"] as? Int, 2)
    XCTAssertEqual(info["points"] as? Int, 10)
    let svg = try String(contentsOf: temp.file("demo-roadmap.svg"), encoding: .utf8)
    XCTAssertEqual(svg.components(separatedBy: "<path ").count - 1, 2)
  }
}

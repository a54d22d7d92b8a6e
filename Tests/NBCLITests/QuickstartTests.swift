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
    XCTAssertEqual(try demoGit.run("log", "--format=%s", "--grep", "Nb-Note-Id: \(id)").split(separator: "\n").count, 4)
  }
}

import Foundation
import NBTestSupport
import XCTest

/// Files nb did not write, meeting `nb sync`: a note copied with plain git on another device, and a note nb cannot
/// stamp on this one.
final class SyncForeignFilesTests: TwoDeviceTestCase {
  func testSyncNeverMergesTwoNotesBecauseTheyShareAnID() throws {
    let shared = try share([Seed(title: "Plan", content: "line one\nline two\n")])[0]
    // Device B has only git: it copies the note (to a path that sorts first) and rewrites the copy's body.
    let original = try String(contentsOf: b.root.appendingPathComponent(shared.path), encoding: .utf8)
    let copyPath = "inbox/0-copy.md"
    let copy = original.replacingOccurrences(of: "line one\nline two\n", with: "a different note now\n")
    try copy.write(to: b.root.appendingPathComponent(copyPath), atomically: true, encoding: .utf8)
    try b.git.run("add", copyPath)
    try b.git.run("commit", "-q", "-m", "copy of the plan")
    try b.git.run("push", "-q", "origin", "HEAD:main")
    // Device A edits the original with nb.
    try a.ok("edit", shared.path, "--append", "ours")

    let summary = try a.sync()
    XCTAssertEqual(summary.outcome, "merged")
    XCTAssertEqual(summary.conflicts.count, 0)
    XCTAssert(summary.warnings.contains { $0.contains(copyPath) }, "\(summary.warnings)")
    let mine = try String(contentsOf: a.root.appendingPathComponent(shared.path), encoding: .utf8)
    XCTAssert(mine.hasSuffix("line one\nline two\nours\n"), mine)
    XCTAssertFalse(mine.contains("a different note"), mine)
    let arrived = try String(contentsOf: a.root.appendingPathComponent(copyPath), encoding: .utf8)
    XCTAssert(arrived.hasSuffix("---\na different note now\n"), arrived)
    XCTAssertFalse(arrived.contains(shared.id), "the copy has an id of its own:\n\(arrived)")
    // The id names one note again, on both devices once B has synced.
    let shown = try a.ok("show", shared.id, "--json")
    XCTAssert(shown.stdout.contains("\"path\" : \"\(shared.path)\""), shown.stdout)
    try b.sync()
    try assertConverged()
  }

  func testSyncCommitsANoteItCannotStampAndSaysSo() throws {
    let shared = try share([Seed(title: "Plan", content: "line one\n")])[0]
    let broken = "---\ntitle: Plan\nkey: : x\n---\nedited by hand\n"
    try broken.write(to: a.root.appendingPathComponent(shared.path), atomically: true, encoding: .utf8)
    let summary = try a.sync()
    XCTAssertEqual(summary.outcome, "pushed")
    XCTAssert(
      summary.warnings.contains { $0.contains("\(shared.path):3") && $0.contains("unchanged") }, "\(summary.warnings)")
    XCTAssertEqual(try a.git.show("origin/main", path: shared.path), broken)
  }
}

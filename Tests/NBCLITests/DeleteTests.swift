import Foundation
import NBTestSupport
import XCTest

/// `nb delete`: the note and its sidecar leave in one commit; git history keeps them.
final class DeleteTests: NBCLITestCase {
  func testDeleteRemovesTheNoteAndItsSidecarInOneCommit() throws {
    try makeRepository()
    try nbSucceeds("add", "Sketch", "--content", "see ink")
    try nbSucceeds("add", "Keep", "--content", "stays")
    let id = try string(try noteJSON("sketch"), "id")
    let bytes = try text("inbox/sketch.md")
    try write("inbox/sketch.ink.jsonl", #"{"nbink":1,"unit":"pt"}"# + "\n")
    try gitCommitAll("ink by git")
    let before = try commitCount()
    let output = try nbSucceeds("delete", "sketch").stdout
    XCTAssertEqual(output, "Deleted inbox/sketch.md\n")
    try assertOneCommit(
      since: before, subject: "nb: delete inbox/sketch.md", noteIDs: [id],
      files: ["D\tinbox/sketch.md", "D\tinbox/sketch.ink.jsonl"])
    XCTAssertFalse(FileManager.default.fileExists(atPath: url("inbox/sketch.md").path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: url("inbox/sketch.ink.jsonl").path))
    XCTAssertTrue(FileManager.default.fileExists(atPath: url("inbox/keep.md").path))
    XCTAssertEqual(try git.show("HEAD~1", path: "inbox/sketch.md"), bytes, "history keeps every version")
    XCTAssertEqual(try jsonArray("list", "--json").compactMap { $0["path"] as? String }, ["inbox/keep.md"])
  }

  func testUncommittedEditsNeedForce() throws {
    try makeRepository()
    try nbSucceeds("add", "Draft", "--content", "committed")
    let id = try string(try noteJSON("draft"), "id")
    try write("inbox/draft.md", try text("inbox/draft.md") + "not committed yet\n")
    let refused = try nb("delete", "draft")
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertTrue(refused.stderr.contains("--force"), refused.stderr)
    XCTAssertTrue(try text("inbox/draft.md").hasSuffix("not committed yet\n"), "the edit is still there")
    let before = try commitCount()
    try nbSucceeds("delete", "draft", "--force")
    try assertOneCommit(
      since: before, subject: "nb: delete inbox/draft.md", noteIDs: [id], files: ["D\tinbox/draft.md"])
  }

  func testRmAliasDeletesByPath() throws {
    try makeRepository()
    try nbSucceeds("add", "Old", "--notebook", "work", "--content", "x")
    let id = try string(try noteJSON("work/old.md"), "id")
    let before = try commitCount()
    try nbSucceeds("rm", "work/old.md")
    try assertOneCommit(since: before, subject: "nb: delete work/old.md", noteIDs: [id], files: ["D\twork/old.md"])
    XCTAssertTrue(FileManager.default.fileExists(atPath: url("work/.notebook.yaml").path), "the notebook stays")
  }
}

import Foundation
import NBTestSupport
import XCTest

/// `nb move`: the note (and its ink sidecar) go to another notebook or path in one commit, bytes and id unchanged.
final class MoveTests: NBCLITestCase {
  func testMoveToANewNotebookIsOneCommitAndKeepsTheBytes() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "First draft")
    let id = try string(try noteJSON("roadmap"), "id")
    let bytes = try read("inbox/roadmap.md")
    let before = try commitCount()
    let output = try nbSucceeds("move", "roadmap", "work/archive").stdout
    XCTAssertEqual(output, "work/archive/roadmap.md\n")
    try assertOneCommit(
      since: before, subject: "nb: move inbox/roadmap.md -> work/archive/", noteIDs: [id],
      files: [
        "D\tinbox/roadmap.md", "A\twork/archive/roadmap.md", "A\twork/.notebook.yaml", "A\twork/archive/.notebook.yaml",
      ])
    XCTAssertEqual(try read("work/archive/roadmap.md"), bytes, "a move is not an edit")
    XCTAssertFalse(FileManager.default.fileExists(atPath: url("inbox/roadmap.md").path))
    XCTAssertEqual(try noteJSON(id)["path"] as? String, "work/archive/roadmap.md", "the id still finds it")
    // git itself sees a pure rename.
    XCTAssertEqual(
      try git.run(
        "show", "-M", "--name-status", "--format=", "HEAD", "--", "inbox/roadmap.md",
        "work/archive/roadmap.md"),
      "R100\tinbox/roadmap.md\twork/archive/roadmap.md\n")
  }

  func testMoveCarriesTheInkSidecarInTheSameCommit() throws {
    try makeRepository()
    try nbSucceeds("add", "Sketch", "--content", "see ink")
    let id = try string(try noteJSON("sketch"), "id")
    let ink = #"{"nbink":1,"unit":"pt","q":{"xy":100,"t":1000,"wh":100,"o":1000,"f":1000,"ang":1000}}"# + "\n"
    try write("inbox/sketch.ink.jsonl", ink)
    try gitCommitAll("ink by git")
    let before = try commitCount()
    try nbSucceeds("move", "inbox/sketch.md", "drawings")
    try assertOneCommit(
      since: before, subject: "nb: move inbox/sketch.md -> drawings/", noteIDs: [id],
      files: [
        "D\tinbox/sketch.md", "D\tinbox/sketch.ink.jsonl", "A\tdrawings/sketch.md", "A\tdrawings/sketch.ink.jsonl",
        "A\tdrawings/.notebook.yaml",
      ])
    XCTAssertEqual(try text("drawings/sketch.ink.jsonl"), ink)
    XCTAssertFalse(FileManager.default.fileExists(atPath: url("inbox/sketch.ink.jsonl").path))
  }

  func testRenameToANewPathInAnExistingNotebook() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "x")
    let id = try string(try noteJSON("roadmap"), "id")
    let before = try commitCount()
    try nbSucceeds("move", "roadmap", "inbox/plan-2027.md")
    try assertOneCommit(
      since: before, subject: "nb: move inbox/roadmap.md -> inbox/plan-2027.md", noteIDs: [id],
      files: ["D\tinbox/roadmap.md", "A\tinbox/plan-2027.md"])
    XCTAssertEqual(try noteJSON("inbox/plan-2027.md")["id"] as? String, id)
  }

  func testMoveToWhereItAlreadyIsMakesNoCommit() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "x")
    try assertNoCommit { try nbSucceeds("move", "roadmap", "inbox") }
    XCTAssertTrue(FileManager.default.fileExists(atPath: url("inbox/roadmap.md").path))
  }
}

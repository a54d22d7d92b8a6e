import Foundation
import NBTestSupport
import XCTest

/// `nb tag`: add/remove on one note, rename/delete across notes in one commit; only `tags` and `updated` change.
final class TagTests: NBCLITestCase {
  private func updated(_ path: String) throws -> String { try string(try noteJSON(path), "updated") }

  func testAddAndRemoveEditOnlyTheTagsAndUpdatedLines() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--tags", "planning", "--content", "x")
    let id = try string(try noteJSON("roadmap"), "id")
    let original = try text("inbox/roadmap.md")
    let oldUpdated = try updated("inbox/roadmap.md")
    var before = try commitCount()
    XCTAssertEqual(try nbSucceeds("tag", "add", "roadmap", "#urgent").stdout, "inbox/roadmap.md: #planning #urgent\n")
    try assertOneCommit(
      since: before, subject: "nb: edit inbox/roadmap.md", noteIDs: [id], files: ["M\tinbox/roadmap.md"])
    let added = try text("inbox/roadmap.md")
    let newUpdated = try updated("inbox/roadmap.md")
    let lines = changedLines(original, added)
    XCTAssertEqual(lines.map(\.1), ["updated: \(newUpdated)", "tags: [planning, urgent]"])
    XCTAssertGreaterThan(try assertRFC3339(newUpdated), try assertRFC3339(oldUpdated))

    try assertNoCommit { try nbSucceeds("tag", "add", "roadmap", "URGENT") }
    try assertNoCommit { try nbSucceeds("tag", "remove", "roadmap", "absent") }

    before = try commitCount()
    XCTAssertEqual(try nbSucceeds("tag", "remove", "roadmap", "planning").stdout, "inbox/roadmap.md: #urgent\n")
    try assertOneCommit(
      since: before, subject: "nb: edit inbox/roadmap.md", noteIDs: [id], files: ["M\tinbox/roadmap.md"])
    XCTAssertEqual(
      changedLines(added, try text("inbox/roadmap.md")).map(\.1),
      ["updated: \(try updated("inbox/roadmap.md"))", "tags: [urgent]"])
  }

  func testListCountsTags() throws {
    try makeRepository()
    try nbSucceeds("add", "A", "--tags", "x,y", "--content", "a")
    try nbSucceeds("add", "B", "--tags", "y,z", "--content", "b")
    try nbSucceeds("add", "C", "--tags", "y", "--content", "c")
    let lines = try assertNoCommit { try nbSucceeds("tag", "list").stdout }.split(separator: "\n")
    XCTAssertEqual(lines, ["#y  3", "#x  1", "#z  1"])
  }

  func testRenameAcrossNotesIsOneCommit() throws {
    try makeRepository()
    try nbSucceeds("add", "A", "--tags", "q3,planning", "--content", "a")
    try nbSucceeds("add", "B", "--notebook", "work", "--tags", "Q3", "--content", "b")
    try nbSucceeds("add", "C", "--tags", "other", "--content", "c")
    let paths = ["inbox/a.md", "work/b.md"]
    let ids = try paths.map { try string(try noteJSON($0), "id") }
    let originals = try paths.map { try text($0) }
    let untouched = try read("inbox/c.md")
    let before = try commitCount()
    XCTAssertEqual(try nbSucceeds("tag", "rename", "q3", "q4").stdout, "Renamed #q3 -> #q4 in 2 notes\n")
    try assertOneCommit(
      since: before, subject: "nb: rename tag q3 -> q4 (2 notes)", noteIDs: ids,
      files: ["M\tinbox/a.md", "M\twork/b.md"])
    XCTAssertEqual(
      changedLines(originals[0], try text(paths[0])).map(\.1),
      ["updated: \(try updated(paths[0]))", "tags: [q4, planning]"], "the tag keeps its place in the list")
    XCTAssertEqual(
      changedLines(originals[1], try text(paths[1])).map(\.1), ["updated: \(try updated(paths[1]))", "tags: [q4]"],
      "tags compare case-insensitively")
    XCTAssertEqual(try read("inbox/c.md"), untouched)
  }

  func testDeleteAcrossNotesIsOneCommit() throws {
    try makeRepository()
    try nbSucceeds("add", "A", "--tags", "old,keep", "--content", "a")
    try nbSucceeds("add", "B", "--tags", "old", "--content", "b")
    let ids = try ["inbox/a.md", "inbox/b.md"].map { try string(try noteJSON($0), "id") }
    let before = try commitCount()
    XCTAssertEqual(try nbSucceeds("tag", "delete", "old").stdout, "Deleted #old from 2 notes\n")
    try assertOneCommit(
      since: before, subject: "nb: delete tag old (2 notes)", noteIDs: ids, files: ["M\tinbox/a.md", "M\tinbox/b.md"])
    XCTAssertEqual(try noteJSON("inbox/a.md")["tags"] as? [String], ["keep"])
    XCTAssertEqual(try noteJSON("inbox/b.md")["tags"] as? [String], [])
    let tagLines = try text("inbox/b.md").split(separator: "\n").filter { $0.hasPrefix("tags:") }
    XCTAssert(tagLines.isEmpty || tagLines == ["tags: []"], "\(tagLines)")
    XCTAssertEqual(try jsonArray("tag", "list", "--json").compactMap { $0["tag"] as? String }, ["keep"])
  }
}

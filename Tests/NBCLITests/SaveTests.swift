import Foundation
import NBTestSupport
import XCTest

/// `nb save`: commits edits made outside nb in one commit, changing only `updated` (and adding a missing `id`).
final class SaveTests: NBCLITestCase {
  /// The `updated` value of a note as nb reads it.
  private func updated(_ path: String) throws -> String { try string(try noteJSON(path), "updated") }

  func testAnExternalEditGetsOnlyItsUpdatedLineChanged() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--tags", "planning", "--content", "First draft")
    let id = try string(try noteJSON("roadmap"), "id")
    let previous = try updated("inbox/roadmap.md")
    let edited = try text("inbox/roadmap.md").replacingOccurrences(of: "First draft", with: "Second draft")
    try write("inbox/roadmap.md", edited)
    let before = try commitCount()
    let output = try nbSucceeds("save").stdout
    XCTAssertTrue(output.contains("inbox/roadmap.md"), output)
    try assertOneCommit(
      since: before, subject: "nb: save inbox/roadmap.md", noteIDs: [id], files: ["M\tinbox/roadmap.md"])
    let now = try updated("inbox/roadmap.md")
    XCTAssertGreaterThanOrEqual(try assertRFC3339(now).timeIntervalSince(try assertRFC3339(previous)), 1)
    // What nb committed differs from what the person wrote in exactly one line: `updated`.
    let committed = try git.show("HEAD", path: "inbox/roadmap.md")
    XCTAssertEqual(changedLines(edited, committed).map(\.1), ["updated: \(now)"])
    XCTAssertEqual(try text("inbox/roadmap.md"), committed)
    // And git's own diff of the commit: the person's line and the `updated` line, nothing else.
    let diff = try git.run("diff", "--unified=0", "HEAD~1", "HEAD", "--", "inbox/roadmap.md")
      .split(separator: "\n").filter {
        ($0.hasPrefix("+") || $0.hasPrefix("-")) && !$0.hasPrefix("+++") && !$0.hasPrefix("---")
      }
    XCTAssertEqual(
      diff.sorted(), ["+Second draft", "+updated: \(now)", "-First draft", "-updated: \(previous)"].sorted())
  }

  func testANoteWithoutIdKeepsCRLFCommentsAndOrder() throws {
    try makeRepository()
    let original =
      "---\r\n# written by hand\r\ntitle:   \"Hand made\"   # trailing comment\r\ntags:\r\n  - one\r\n  - two\r\n"
      + "created: 2020-05-01T08:00:00+02:00\r\nz_custom: {a: 1}\r\n---\r\nBody line\r\n"
    try write("inbox/hand.md", original)
    let before = try commitCount()
    try nbSucceeds("save")
    let note = try noteJSON("inbox/hand.md")
    let id = try string(note, "id")
    try assertLowercaseUUID(id)
    let stamp = try string(note, "updated")
    try assertRFC3339(stamp)
    try assertOneCommit(since: before, subject: "nb: save inbox/hand.md", noteIDs: [id], files: ["A\tinbox/hand.md"])
    // `id` goes first in the block and `updated` last; both in the file's CRLF; every other byte as written.
    let expected =
      "---\r\nid: \(id)\r\n# written by hand\r\ntitle:   \"Hand made\"   # trailing comment\r\ntags:\r\n  - one\r\n"
      + "  - two\r\ncreated: 2020-05-01T08:00:00+02:00\r\nz_custom: {a: 1}\r\nupdated: \(stamp)\r\n---\r\nBody line\r\n"
    XCTAssertEqual(try text("inbox/hand.md"), expected)
    XCTAssertEqual(note["title"] as? String, "Hand made")
    XCTAssertEqual(note["tags"] as? [String], ["one", "two"])
  }

  func testANoteWithoutFrontMatterGetsAMinimalBlock() throws {
    try makeRepository()
    try write("inbox/bare.md", "# Bare\n\ntext\n")
    let before = try commitCount()
    try nbSucceeds("save")
    let note = try noteJSON("inbox/bare.md")
    let id = try string(note, "id")
    let stamp = try string(note, "updated")
    try assertOneCommit(since: before, subject: "nb: save inbox/bare.md", noteIDs: [id], files: ["A\tinbox/bare.md"])
    XCTAssertEqual(try text("inbox/bare.md"), "---\nid: \(id)\nupdated: \(stamp)\n---\n# Bare\n\ntext\n")
  }

  func testSeveralChangesIncludingDeletionsAndAttachmentsAreOneCommit() throws {
    try makeRepository()
    try nbSucceeds("add", "Edited", "--content", "a")
    try nbSucceeds("add", "Removed", "--content", "b")
    let editedID = try string(try noteJSON("edited"), "id")
    try write("inbox/edited.md", try text("inbox/edited.md") + "more\n")
    try FileManager.default.removeItem(at: url("inbox/removed.md"))
    let picture = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
    try write("inbox/picture.png", picture)
    let before = try commitCount()
    let result = try jsonObject("save", "--json")
    XCTAssertEqual(result["committed"] as? Bool, true)
    XCTAssertEqual(result["removed"] as? [String], ["inbox/removed.md"])
    XCTAssertEqual(result["notes"] as? [String], ["inbox/edited.md"])
    try assertOneCommit(
      since: before, subject: "nb: save 1 note and 2 other changes", noteIDs: [editedID],
      files: ["M\tinbox/edited.md", "D\tinbox/removed.md", "A\tinbox/picture.png"])
    XCTAssertEqual(try read("inbox/picture.png"), picture, "an attachment is committed as it is")
  }

  func testNothingToSaveMakesNoCommit() throws {
    try makeRepository()
    try nbSucceeds("add", "A", "--content", "a")
    let output = try assertNoCommit { try nbSucceeds("save").stdout }
    XCTAssertEqual(output, "Nothing to save.\n")
    let json = try assertNoCommit { try jsonObject("save", "--json") }
    XCTAssertEqual(json["committed"] as? Bool, false)
  }
}

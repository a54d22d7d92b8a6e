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

  func testAdoptingAFolderSavesEveryFileAndReportsEveryProblemAtOnce() throws {
    try makeRepository()
    for index in 0..<154 { try write("vault/note-\(index).md", "# Note \(index)\n\nwritten elsewhere\n") }
    let malformed = "---\ntitle: Bad\nkey: : x\n---\nbody\n"
    try write("vault/bad.md", malformed)
    var utf16 = Data([0xFF, 0xFE])
    utf16.append("# Wide\n".data(using: .utf16LittleEndian)!)
    try write("vault/wide.md", utf16)
    let before = try commitCount()

    let result = try nb("save", "--json")
    XCTAssertEqual(result.status, 1, "scripts notice: \(result.stderr)")
    // Both problems in one run, each with its file (and line where there is one).
    XCTAssert(result.stderr.contains("vault/bad.md:3"), result.stderr)
    XCTAssert(result.stderr.contains("vault/wide.md"), result.stderr)
    XCTAssert(result.stderr.contains("2 files"), result.stderr)
    let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    let unstamped = try XCTUnwrap(json["unstamped"] as? [[String: Any]])
    XCTAssertEqual(unstamped.map { $0["path"] as? String }, ["vault/bad.md", "vault/wide.md"])
    XCTAssertEqual(unstamped[0]["line"] as? Int, 3)
    XCTAssert(unstamped[1]["line"] is NSNull, "line is null when there is none, never missing")
    XCTAssertEqual((json["notes"] as? [String])?.count, 154)

    // One commit holds all 156 files: the good ones stamped, the two nb could not read byte for byte as they were.
    XCTAssertEqual(try commitCount(), before + 1)
    XCTAssertEqual(try git.statusPorcelain(), "")
    let tracked = try git.run("ls-files", "vault").split(separator: "\n")
    XCTAssertEqual(tracked.count, 156)
    XCTAssert(try git.show("HEAD", path: "vault/note-7.md").contains("\nupdated: "))
    XCTAssertEqual(try git.show("HEAD", path: "vault/bad.md"), malformed)
    XCTAssertEqual(try git.run("cat-file", "-s", "HEAD:vault/wide.md"), "\(utf16.count)\n")
    XCTAssertEqual(try read("vault/wide.md"), utf16)

    // Fixed, the note is stamped by the next save, which then succeeds.
    try write("vault/bad.md", "---\ntitle: fixed\n---\nbody\n")
    try nbSucceeds("save")
    XCTAssert(try git.show("HEAD", path: "vault/bad.md").contains("\nupdated: "))
  }

  func testACopiedNoteGetsItsOwnIDAndTheOriginalKeepsIt() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "the plan")
    let id = try string(try noteJSON("inbox/roadmap.md"), "id")
    let original = try read("inbox/roadmap.md")
    try write("inbox/roadmap copy.md", original)  // what `cp` does

    let saved = try nb("save", "--json")
    XCTAssertEqual(saved.status, 0, saved.stderr)
    let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: saved.stdoutData) as? [String: Any])
    let copies = try XCTUnwrap(json["new_ids"] as? [[String: String]])
    XCTAssertEqual(copies, [["path": "inbox/roadmap copy.md", "original": "inbox/roadmap.md"]])
    XCTAssertEqual(try read("inbox/roadmap.md"), original, "the original keeps its id and its bytes")
    let copyID = try string(try noteJSON("inbox/roadmap copy.md"), "id")
    XCTAssertNotEqual(copyID, id)
    // The id names one note again: selectors and history work.
    XCTAssertEqual(try string(try noteJSON(id), "path"), "inbox/roadmap.md")
    try nbSucceeds("history", id)
    XCTAssertEqual(try git.statusPorcelain(), "")

    // Two committed notes sharing an id (made with git alone) cannot be decided: status says so.
    try write("inbox/twin.md", original)
    try gitCommitAll("a copy committed with git")
    let status = try nbSucceeds("status").stdout + (try nb("status")).stderr
    XCTAssert(status.contains("inbox/roadmap.md and inbox/twin.md share the id \(id)"), status)
  }

  func testEditorStateIsIgnoredAndAnOlderRepositoryGetsTheIgnores() throws {
    try makeRepository()
    // A repository from an older nb: its .gitignore lacks nb's block of per-device ignores.
    try write(".gitignore", "# mine\nsecret.txt\n")
    try gitCommitAll("an older .gitignore")
    try write(".obsidian/workspace.json", "{\"active\": \"x\"}\n")
    try write(".obsidian/app.json", "{}\n")
    try write(".trash/old.md", "gone\n")
    try write(".history/roadmap_20261124.md", "old\n")
    try write("inbox/.#roadmap.md", "emacs lock\n")
    try write("inbox/picture.png", Data([0x89, 0x50, 0x4E, 0x47]))
    try nbSucceeds("save")
    let ignore = try text(".gitignore")
    XCTAssertTrue(ignore.hasPrefix("# mine\nsecret.txt\n\n# nb: per-device state"), ignore)
    // The real git decides what is ignored: per-device state is, settings shared by devices and attachments are not.
    XCTAssertEqual(
      try git.run("ls-files").split(separator: "\n").filter {
        !$0.hasPrefix("inbox/.notebook") && $0 != ".nb/config.yaml" && $0 != ".gitattributes"
      },
      [".gitignore", ".obsidian/app.json", "inbox/picture.png"])
    XCTAssertEqual(try git.statusPorcelain(), "")
    // Once there, the block is never added again.
    try write("inbox/more.png", Data([0x89]))
    try nbSucceeds("save")
    XCTAssertEqual(try text(".gitignore"), ignore)
  }
}

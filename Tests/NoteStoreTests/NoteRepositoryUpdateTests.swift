import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

final class NoteRepositoryUpdateTests: NoteRepositoryTestCase {
  /// A note another tool wrote: BOM, CRLF, a comment, quoting, an unknown key, a block tag list.
  private let handWritten =
    "\u{FEFF}---\r\n# my comment\r\ntitle: 'Quoted Title'   # keep\r\nid: 11111111-2222-4333-8444-555555555555\r\n"
    + "custom:   {a: 1}\r\nupdated: \"2026-11-22T10:00:00+01:00\"\r\ntags:\r\n  - one\r\n  - two\r\n---\r\n"
    + "Body line\r\n"

  private func commitByHand(_ path: String, _ text: String) throws {
    try write(path, text)
    try git.run("add", path)
    try git.run("commit", "-q", "-m", "by hand")
  }

  func testUpdateEditsOnlyTheLinesOfKeysItSets() throws {
    try commitByHand("inbox/quoted.md", handWritten)
    let note = try repository.resolve("inbox/quoted")
    XCTAssertEqual(note.title, "Quoted Title")

    let retagged = try repository.update(note, NoteChange(tags: ["one", "#three"]))
    XCTAssertEqual(
      try read("inbox/quoted.md"),
      "\u{FEFF}---\r\n# my comment\r\ntitle: 'Quoted Title'   # keep\r\nid: 11111111-2222-4333-8444-555555555555\r\n"
        + "custom:   {a: 1}\r\nupdated: \"2026-11-22T10:07:01+01:00\"\r\ntags:\r\n  - one\r\n  - three\r\n---\r\n"
        + "Body line\r\n")
    XCTAssertEqual(retagged.tags, ["one", "three"])
    XCTAssertEqual(try lastSubject(), "nb: edit inbox/quoted.md")
    XCTAssertEqual(try trailerIDs(), ["11111111-2222-4333-8444-555555555555"])

    clock.advance(60)
    try repository.update(retagged, NoteChange(title: "New: Title"))
    XCTAssertEqual(
      try read("inbox/quoted.md"),
      "\u{FEFF}---\r\n# my comment\r\ntitle: \"New: Title\"   # keep\r\nid: 11111111-2222-4333-8444-555555555555\r\n"
        + "custom:   {a: 1}\r\nupdated: \"2026-11-22T10:08:01+01:00\"\r\ntags:\r\n  - one\r\n  - three\r\n---\r\n"
        + "Body line\r\n")
    try assertCleanAndSound()
  }

  func testUpdatedIsMonotonicWhenTheClockGoesBack() throws {
    var note = try repository.createNote(NoteDraft(title: "Clock", content: "a\n"))
    clock.advance(-3600)
    note = try repository.update(note, NoteChange(append: "b\n"))
    // previous + 1 s, not the earlier wall time.
    XCTAssertEqual(note.updated?.rfc3339, "2026-11-22T10:07:02+01:00")
    note = try repository.update(note, NoteChange(append: "c\n"))
    XCTAssertEqual(note.updated?.rfc3339, "2026-11-22T10:07:03+01:00")
    clock.now = Self.start.addingTimeInterval(100)
    note = try repository.update(note, NoteChange(append: "d\n"))
    XCTAssertEqual(note.updated?.rfc3339, "2026-11-22T10:08:41+01:00")
    let text = try read(note.path)
    XCTAssertTrue(text.contains("\ncreated: 2026-11-22T10:07:01+01:00\n"), text)
    XCTAssertTrue(text.contains("\nupdated: 2026-11-22T10:08:41+01:00\n"), text)
    XCTAssertTrue(text.hasSuffix("---\na\nb\nc\nd\n"), text)
    XCTAssertEqual(
      try git.logSubjects().prefix(4),
      Array(repeating: "nb: edit inbox/clock.md", count: 3) + ["nb: add inbox/clock.md"])
  }

  func testBodyReplaceAndAppendKeepLineEndings() throws {
    try commitByHand("inbox/quoted.md", handWritten)
    var note = try repository.resolve("inbox/quoted.md")
    note = try repository.update(note, NoteChange(append: "more"))
    XCTAssertTrue(try read(note.path).hasSuffix("---\r\nBody line\r\nmore\r\n"))
    note = try repository.update(note, NoteChange(append: "again"))
    XCTAssertTrue(try read(note.path).hasSuffix("---\r\nBody line\r\nmore\r\nagain\r\n"))
    note = try repository.update(note, NoteChange(body: "Replaced\r\n"))
    XCTAssertTrue(try read(note.path).hasSuffix("tags:\r\n  - one\r\n  - two\r\n---\r\nReplaced\r\n"))
    XCTAssertTrue(try read(note.path).hasPrefix("\u{FEFF}---\r\n# my comment\r\n"))
  }

  func testNoOpChangesMakeNoCommit() throws {
    let note = try repository.createNote(NoteDraft(title: "Same", tags: ["x"], content: "text\n"))
    let before = try head()
    let bytes = try readData(note.path)
    XCTAssertEqual(try repository.update(note, NoteChange(tags: ["#x"])), note)
    XCTAssertEqual(try repository.update(note, NoteChange(title: "Same")), note)
    XCTAssertEqual(try repository.update(note, NoteChange()), note)
    XCTAssertEqual(try repository.addTag("X", to: note), note)
    XCTAssertEqual(try repository.removeTag("absent", from: note), note)
    XCTAssertEqual(try head(), before)
    XCTAssertEqual(try readData(note.path), bytes)
  }

  func testUpdateOfMalformedNoteNamesFileAndLineAndChangesNothing() throws {
    try commitByHand("inbox/broken.md", "---\ntitle: ok\ntags: [unclosed\n---\nbody\n")
    let note = try repository.resolve("inbox/broken.md")
    XCTAssertNotNil(note.warning)
    let error = try assertRefusedWithNothingChanged {
      _ = try repository.update(note, NoteChange(append: "x"))
    }
    guard case .malformedFrontMatter(let path, let line, _)? = error else { return XCTFail(String(describing: error)) }
    XCTAssertEqual(path, "inbox/broken.md")
    XCTAssertGreaterThanOrEqual(line, 3)
    XCTAssertLessThanOrEqual(line, 4)
  }

  func testUpdateOfNonUTF8NoteChangesNothing() throws {
    try write("inbox/latin1.md", Data([0x2D, 0x2D, 0x2D, 0x0A, 0x2D, 0x2D, 0x2D, 0x0A, 0x63, 0x61, 0x66, 0xE9, 0x0A]))
    try git.run("add", "inbox/latin1.md")
    try git.run("commit", "-q", "-m", "latin1")
    let note = try repository.resolve("inbox/latin1.md")
    let error = try assertRefusedWithNothingChanged {
      _ = try repository.update(note, NoteChange(append: "x"))
    }
    guard case .notUTF8(let path)? = error else { return XCTFail(String(describing: error)) }
    XCTAssertEqual(path, "inbox/latin1.md")
  }

  func testInvalidNewTitleChangesNothing() throws {
    let note = try repository.createNote(NoteDraft(title: "Good"))
    for title in ["", " ", "a/b", "x\ny"] {
      try assertRefusedWithNothingChanged { _ = try repository.update(note, NoteChange(title: title)) }
    }
  }

  func testDeleteRemovesNoteAndSidecarInOneCommit() throws {
    let note = try repository.createNote(NoteDraft(title: "Sketch"))
    try write("inbox/sketch.ink.jsonl", "{\"nbink\":1}\n")
    try git.run("add", "inbox/sketch.ink.jsonl")
    try git.run("commit", "-q", "-m", "ink")
    try repository.delete(note)
    XCTAssertFalse(exists("inbox/sketch.md"))
    XCTAssertFalse(exists("inbox/sketch.ink.jsonl"))
    XCTAssertEqual(try changedFiles(), ["D\tinbox/sketch.ink.jsonl", "D\tinbox/sketch.md"])
    XCTAssertEqual(try lastSubject(), "nb: delete inbox/sketch.md")
    XCTAssertEqual(try trailerIDs(), [note.id!])
    try assertCleanAndSound()
  }

  func testDeleteOfNoteWithUncommittedEditsNeedsForce() throws {
    let note = try repository.createNote(NoteDraft(title: "Draft", content: "v1\n"))
    try write(note.path, try read(note.path) + "unsaved\n")
    try assertRefusedWithNothingChanged { try repository.delete(note) }
    try repository.delete(note, force: true)
    XCTAssertFalse(exists(note.path))
    try assertCleanAndSound()
  }

  func testMoveKeepsIdAndBytesAndTakesSidecar() throws {
    let note = try repository.createNote(NoteDraft(title: "Traveller", content: "x\n"))
    try write("inbox/traveller.ink.jsonl", "{\"nbink\":1}\n")
    try git.run("add", "inbox/traveller.ink.jsonl")
    try git.run("commit", "-q", "-m", "ink")
    let bytes = try readData(note.path)
    let moved = try repository.move(note, to: "Archive 2026")
    XCTAssertEqual(moved.path, "archive-2026/traveller.md")
    XCTAssertEqual(moved.id, note.id)
    XCTAssertEqual(try readData(moved.path), bytes)
    XCTAssertTrue(exists("archive-2026/traveller.ink.jsonl"))
    XCTAssertEqual(try read("archive-2026/.notebook.yaml"), "created: 2026-11-22T10:07:01+01:00\ntitle: Archive 2026\n")
    XCTAssertEqual(try lastSubject(), "nb: move inbox/traveller.md -> archive-2026/")
    XCTAssertEqual(
      try changedFiles(renames: true),
      [
        "A\tarchive-2026/.notebook.yaml", "R100\tinbox/traveller.ink.jsonl\tarchive-2026/traveller.ink.jsonl",
        "R100\tinbox/traveller.md\tarchive-2026/traveller.md",
      ])
    let renamed = try repository.move(moved, to: "archive-2026/renamed.md")
    XCTAssertEqual(renamed.path, "archive-2026/renamed.md")
    XCTAssertTrue(exists("archive-2026/renamed.ink.jsonl"))
    try assertCleanAndSound()
  }

  func testMoveOntoExistingFileChangesNothing() throws {
    let a = try repository.createNote(NoteDraft(title: "Same Name", notebook: "one"))
    _ = try repository.createNote(NoteDraft(title: "Same Name", notebook: "two"))
    let error = try assertRefusedWithNothingChanged { _ = try repository.move(a, to: "two") }
    guard case .alreadyExists? = error else { return XCTFail(String(describing: error)) }
    try assertRefusedWithNothingChanged { _ = try repository.move(a, to: "../elsewhere") }
  }

  func testDetachedHeadAndMergeStateRefuseToCommit() throws {
    let note = try repository.createNote(NoteDraft(title: "Guarded"))
    try git.run("checkout", "-q", "--detach")
    let detached = try assertRefusedWithNothingChanged { _ = try repository.update(note, NoteChange(append: "x")) }
    XCTAssertTrue(detached?.description.contains("detached") ?? false, String(describing: detached))
    try git.run("checkout", "-q", "main")
    // A merge in progress: MERGE_HEAD present.
    try Data((try head() + "\n").utf8).write(to: url(".git/MERGE_HEAD"))
    let merging = try assertRefusedWithNothingChanged { _ = try repository.createNote(NoteDraft(title: "Other")) }
    XCTAssertTrue(merging?.description.contains("merge") ?? false, String(describing: merging))
  }
}

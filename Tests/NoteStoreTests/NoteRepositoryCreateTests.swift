import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

final class NoteRepositoryCreateTests: NoteRepositoryTestCase {
  func testCreateWritesExactBytesAndOneCommit() throws {
    let commitsBefore = try commitCount()
    let note = try repository.createNote(
      NoteDraft(
        title: "Roadmap Review", notebook: "work/projects", tags: ["#plan", " q4 ", "plan"],
        content: "Ship the thing.\n"))
    let path = "work/projects/roadmap-review.md"
    XCTAssertEqual(note.path, path)
    let id = try XCTUnwrap(note.id)
    XCTAssertTrue(isLowercaseUUID(id), id)
    // Written by hand from FORMAT.md: id first, then title, created, updated (10:07:01 in Berlin), flow-list tags.
    let expected = """
      ---
      id: \(id)
      title: Roadmap Review
      created: 2026-11-22T10:07:01+01:00
      updated: 2026-11-22T10:07:01+01:00
      tags: [plan, q4]
      ---
      Ship the thing.

      """
    XCTAssertEqual(try read(path), expected)
    XCTAssertEqual(note.title, "Roadmap Review")
    XCTAssertEqual(note.tags, ["plan", "q4"])
    XCTAssertEqual(note.created?.rfc3339, "2026-11-22T10:07:01+01:00")
    XCTAssertEqual(note.updated?.rfc3339, "2026-11-22T10:07:01+01:00")

    XCTAssertEqual(try commitCount(), commitsBefore + 1)
    XCTAssertEqual(try lastSubject(), "nb: add work/projects/roadmap-review.md")
    XCTAssertEqual(try trailerIDs(), [id])
    // The new notebooks' settings files go in the same commit.
    XCTAssertEqual(
      try changedFiles(), ["A\twork/.notebook.yaml", "A\twork/projects/.notebook.yaml", "A\t\(path)"])
    XCTAssertEqual(try read("work/projects/.notebook.yaml"), "created: 2026-11-22T10:07:01+01:00\n")
    XCTAssertEqual(try git.show("HEAD", path: path), expected)
    try assertCleanAndSound()
  }

  func testZoneAndClockDecideTheWrittenTimestamps() throws {
    repository.timeZone = TimeZone(identifier: "America/New_York")!
    clock.now = Date(timeIntervalSince1970: 1_782_914_400)  // 2026-07-01T14:00:00Z, EDT (-04:00)
    let note = try repository.createNote(NoteDraft(title: "Summer"))
    let text = try read(note.path)
    XCTAssertTrue(text.contains("\ncreated: 2026-07-01T10:00:00-04:00\n"), text)
    XCTAssertTrue(text.contains("\nupdated: 2026-07-01T10:00:00-04:00\n"), text)
  }

  func testDefaultNotebookAndRoot() throws {
    let inInbox = try repository.createNote(NoteDraft(title: "First"))
    XCTAssertEqual(inInbox.path, "inbox/first.md")
    let atRoot = try repository.createNote(NoteDraft(title: "Top", notebook: ""))
    XCTAssertEqual(atRoot.path, "top.md")
    XCTAssertEqual(try repository.allNotes().map(\.path), ["inbox/first.md", "top.md"])
  }

  func testTitleFromFirstHeading() throws {
    let note = try repository.createNote(NoteDraft(title: nil, content: "# Meeting Notes\n\nbody\n"))
    XCTAssertEqual(note.path, "inbox/meeting-notes.md")
    XCTAssertEqual(note.title, "Meeting Notes")
    XCTAssertTrue(try read(note.path).contains("\ntitle: Meeting Notes\n"))
  }

  func testSlugClashGetsNumberedAndNothingIsOverwritten() throws {
    let first = try repository.createNote(NoteDraft(title: "Plan", content: "one\n"))
    let second = try repository.createNote(NoteDraft(title: "plan!", content: "two\n"))
    // A directory with the slug's name also takes the name.
    try write("inbox/plan-3/.keep", "")
    let third = try repository.createNote(NoteDraft(title: "PLAN", content: "three\n"))
    XCTAssertEqual([first.path, second.path, third.path], ["inbox/plan.md", "inbox/plan-2.md", "inbox/plan-4.md"])
    XCTAssertTrue(try read("inbox/plan.md").hasSuffix("---\none\n"))
    XCTAssertTrue(try read("inbox/plan-2.md").hasSuffix("---\ntwo\n"))
    XCTAssertTrue(try read("inbox/plan-4.md").hasSuffix("---\nthree\n"))
    XCTAssertEqual(Set([first.id, second.id, third.id]).count, 3)
  }

  func testTagNormalisation() throws {
    let note = try repository.createNote(NoteDraft(title: "Tagged", tags: ["#a", "  b ", "", "#", "a", "##c"]))
    XCTAssertEqual(note.tags, ["a", "b", "c"])
    XCTAssertTrue(try read(note.path).contains("\ntags: [a, b, c]\n"))
    let untagged = try repository.createNote(NoteDraft(title: "Untagged", tags: ["", "  "]))
    XCTAssertFalse(try read(untagged.path).contains("tags"))
  }

  func testBadTagsAreRefused() throws {
    for tag in ["two words", "a,b", "[x]"] {
      try assertRefusedWithNothingChanged {
        _ = try repository.createNote(NoteDraft(title: "T", tags: [tag]))
      }
    }
  }

  func testBadTitlesAreRefusedWithNothingChanged() throws {
    for title in ["", "   ", "a/b", "a\\b", "..", "...", "line\nbreak", "tab\there", "bell\u{7}"] {
      let error = try assertRefusedWithNothingChanged {
        _ = try repository.createNote(NoteDraft(title: title))
      }
      guard case .invalidArgument? = error else {
        return XCTFail("\(title.debugDescription): \(String(describing: error))")
      }
    }
    // No title and no heading: nothing to name the file after.
    try assertRefusedWithNothingChanged { _ = try repository.createNote(NoteDraft(title: nil, content: "plain\n")) }
  }

  func testBadNotebookNamesAreRefusedWithNothingChanged() throws {
    for notebook in ["../outside", "a/../../b", "/abs", ".git", ".nb/x", "...", "a//b", "ctl\u{1}", ".hidden"] {
      let error = try assertRefusedWithNothingChanged {
        _ = try repository.createNote(NoteDraft(title: "Fine", notebook: notebook))
      }
      XCTAssertNotNil(error, notebook.debugDescription)
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: temp.file("outside").path))
  }

  func testNotebookNamedLikeAnExistingNoteIsRefused() throws {
    _ = try repository.createNote(NoteDraft(title: "Plan", notebook: ""))
    let error = try assertRefusedWithNothingChanged {
      _ = try repository.createNote(NoteDraft(title: "Child", notebook: "plan"))
    }
    XCTAssertTrue(error?.description.contains("plan.md") ?? false, String(describing: error))
  }

  func testNotebookThroughSymlinkLeadingOutsideIsRefused() throws {
    let outside = try temp.directory("outside")
    try FileManager.default.createSymbolicLink(at: url("escape"), withDestinationURL: outside)
    try git.run("add", "escape")
    try git.run("commit", "-q", "-m", "symlink")
    let error = try assertRefusedWithNothingChanged {
      _ = try repository.createNote(NoteDraft(title: "Leak", notebook: "escape"))
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [])
    XCTAssertNotNil(error)
  }

  func testUnknownTemplateIsRefused() throws {
    try assertRefusedWithNothingChanged {
      _ = try repository.createNote(NoteDraft(title: "T", template: "no-such-template"))
    }
  }
}

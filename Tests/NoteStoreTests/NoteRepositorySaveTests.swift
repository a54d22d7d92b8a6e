import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@testable import NoteStore

final class NoteRepositorySaveTests: NoteRepositoryTestCase {
  func testExternalEditGetsOnlyUpdatedStamped() throws {
    let note = try repository.createNote(NoteDraft(title: "Edited", content: "v1\n"))
    let id = try XCTUnwrap(note.id)
    try write(note.path, try read(note.path).replacingOccurrences(of: "v1\n", with: "v2 by hand\n"))
    clock.advance(30)
    let result = try repository.save()
    XCTAssertEqual(result, SaveResult(paths: [note.path], notes: [note.path], removed: []))
    XCTAssertTrue(result.committed)
    XCTAssertEqual(
      try read(note.path),
      "---\nid: \(id)\ntitle: Edited\ncreated: 2026-11-22T10:07:01+01:00\nupdated: 2026-11-22T10:07:31+01:00\n---\n"
        + "v2 by hand\n")
    XCTAssertEqual(try lastSubject(), "nb: save inbox/edited.md")
    XCTAssertEqual(try trailerIDs(), [id])
    try assertCleanAndSound()
  }

  /// An editor still writing a note after save read it: the stamp would overwrite the newer bytes, so the note is
  /// left as the editor wrote it, out of this commit, for the next save.
  func testANoteThatChangesWhileBeingSavedIsLeftForTheNextSave() throws {
    try write("inbox/a.md", "---\ntitle: A\n---\nfirst\n")
    try write("inbox/b.md", "---\ntitle: B\n---\nb\n")
    // Progress is reported before each file is read and once after the last: by then both have been read.
    repository.progress = { [unowned self] _, done, total in
      if done == total { try? self.write("inbox/a.md", "---\ntitle: A\n---\nsecond, still typing\n") }
    }
    let result = try repository.save()
    repository.progress = nil
    XCTAssertEqual(result.changedAgain, ["inbox/a.md"])
    XCTAssertEqual(result.paths, ["inbox/b.md"])
    XCTAssertEqual(result.added, ["inbox/b.md"])
    XCTAssertEqual(try read("inbox/a.md"), "---\ntitle: A\n---\nsecond, still typing\n")
    XCTAssertEqual(try git.run("ls-files", "--", "inbox/*.md"), "inbox/b.md\n")
    let again = try repository.save()
    XCTAssertEqual(again.paths, ["inbox/a.md"])
    XCTAssertEqual(again.changedAgain, [])
    XCTAssertTrue(try read("inbox/a.md").contains("\nid: "))
  }

  /// A watcher leaves a note it cannot read out of the commit (the person is mid-edit); `nb save` commits it as is.
  func testLeavingUnstampableNotesOut() throws {
    try write("inbox/bad.md", "---\ntitle: [broken\n---\n")
    try write("inbox/good.md", "---\ntitle: Good\n---\n")
    try write("inbox/4913", "")
    let result = try repository.save(SaveOptions(leaveUnstampable: true, leaveOut: { $0.hasSuffix("4913") }))
    XCTAssertEqual(result.paths, ["inbox/good.md"])
    XCTAssertEqual(result.unstamped.map { $0.location?.path }, ["inbox/bad.md"])
    XCTAssertEqual(try git.run("ls-files", "--", "inbox/*.md", "inbox/4913"), "inbox/good.md\n")
    let plain = try repository.save()
    XCTAssertEqual(plain.paths, ["inbox/4913", "inbox/bad.md"])
  }

  /// A watcher names the files that changed: only they are looked at, taken literally (`[draft].md` is no pattern).
  func testSavingOnlyNamedFiles() throws {
    try write("inbox/[draft].md", "---\ntitle: Draft\n---\n")
    try write("inbox/d.md", "---\ntitle: D\n---\n")
    try write("inbox/other.md", "---\ntitle: Other\n---\n")
    let result = try repository.save(SaveOptions(only: ["inbox/[draft].md", "inbox/gone.md"]))
    XCTAssertEqual(result.paths, ["inbox/[draft].md"])
    XCTAssertEqual(try git.run("status", "--porcelain"), "?? inbox/d.md\n?? inbox/other.md\n")
    XCTAssertFalse(try repository.save(SaveOptions(only: [])).committed)
    XCTAssertEqual(try repository.save().paths, ["inbox/d.md", "inbox/other.md"])
  }

  func testAFileMovedByHandIsReportedAsAMove() throws {
    let note = try repository.createNote(NoteDraft(title: "Moved", content: "text\n"))
    try FileManager.default.createDirectory(at: url("archive"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(at: url(note.path), to: url("archive/moved.md"))
    let result = try repository.save()
    XCTAssertEqual(result.moved, [SaveResult.Move(from: note.path, to: "archive/moved.md")])
    XCTAssertEqual(result.added, ["archive/moved.md"])
    XCTAssertEqual(result.removed, [note.path])
  }

  func testNoteWithoutFrontMatterGetsMinimalBlock() throws {
    try write("inbox/plain.md", "# Hello\n\nBody\n")
    try write("crlf.md", "Line one\r\nLine two\r\n")
    try write("bom.md", "\u{FEFF}Text\n")
    let result = try repository.save()
    XCTAssertEqual(result.notes, ["bom.md", "crlf.md", "inbox/plain.md"])
    XCTAssertEqual(try lastSubject(), "nb: save 3 notes")
    let plainID = try XCTUnwrap(try idLine(of: "inbox/plain.md"))
    XCTAssertTrue(isLowercaseUUID(plainID))
    XCTAssertEqual(
      try read("inbox/plain.md"), "---\nid: \(plainID)\nupdated: 2026-11-22T10:07:01+01:00\n---\n# Hello\n\nBody\n")
    let crlfID = try XCTUnwrap(try idLine(of: "crlf.md")?.trimmingCharacters(in: .newlines))
    XCTAssertEqual(
      try read("crlf.md"),
      "---\r\nid: \(crlfID)\r\nupdated: 2026-11-22T10:07:01+01:00\r\n---\r\nLine one\r\nLine two\r\n")
    let bomText = try read("bom.md")
    let bomID = try XCTUnwrap(bomText.split(separator: "\n").first { $0.hasPrefix("id: ") }?.dropFirst(4))
    XCTAssertEqual(bomText, "\u{FEFF}---\nid: \(bomID)\nupdated: 2026-11-22T10:07:01+01:00\n---\nText\n")
    XCTAssertEqual(Set(try trailerIDs()), Set([plainID, crlfID, String(bomID)]))
    XCTAssertEqual(try repository.resolve("Hello").id, plainID)
    try assertCleanAndSound()
  }

  func testFileMovedByHandWithSameBytesIsNotStamped() throws {
    let note = try repository.createNote(NoteDraft(title: "Wanderer", content: "x\n"))
    let bytes = try readData(note.path)
    try FileManager.default.createDirectory(at: url("elsewhere"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(at: url(note.path), to: url("elsewhere/wanderer.md"))
    clock.advance(60)
    let result = try repository.save()
    XCTAssertEqual(result.notes, [])
    XCTAssertEqual(result.removed, ["inbox/wanderer.md"])
    XCTAssertEqual(try readData("elsewhere/wanderer.md"), bytes)
    XCTAssertEqual(try changedFiles(renames: true), ["R100\tinbox/wanderer.md\telsewhere/wanderer.md"])
    try assertCleanAndSound()
  }

  func testMalformedNoteIsCommittedUnchangedAndReported() throws {
    let good = try repository.createNote(NoteDraft(title: "Good", content: "v1\n"))
    try write(good.path, try read(good.path) + "edited\n")
    let bad = Data("---\ntitle: fine\nkey: [unclosed\n---\nbody\n".utf8)
    try write("inbox/bad.md", bad)
    let result = try repository.save()
    // The good note is stamped; the bad one is in history byte for byte, and reported with its file and line.
    XCTAssertEqual(result.notes, [good.path])
    XCTAssertEqual(result.paths, ["inbox/bad.md", good.path].sorted())
    XCTAssertEqual(try git.show("HEAD", path: "inbox/bad.md"), String(decoding: bad, as: UTF8.self))
    XCTAssertEqual(try readData("inbox/bad.md"), bad)
    XCTAssertNotEqual(try git.show("HEAD", path: good.path), try git.show("HEAD~1", path: good.path))
    XCTAssertEqual(result.unstamped.count, 1)
    guard case .malformedFrontMatter(let path, let line, _)? = result.unstamped.first else {
      return XCTFail(String(describing: result.unstamped))
    }
    XCTAssertEqual(path, "inbox/bad.md")
    XCTAssertTrue((3...4).contains(line), "line \(line)")
    XCTAssertTrue(result.unstamped[0].description.hasPrefix("inbox/bad.md:\(line): "), result.unstamped[0].description)
    try assertCleanAndSound()
    // Read-only listing still shows the broken note, with a warning.
    let listed = try repository.allNotes().first { $0.path == "inbox/bad.md" }
    XCTAssertNotNil(listed?.warning)
  }

  func testNonUTF8NoteIsCommittedUnchangedAndReported() throws {
    let bytes = Data([0x63, 0x61, 0x66, 0xE9, 0x0A])
    try write("inbox/latin1.md", bytes)
    let result = try repository.save()
    XCTAssertEqual(result.paths, ["inbox/latin1.md"])
    XCTAssertEqual(result.notes, [])
    XCTAssertEqual(result.unstamped, [.notUTF8(path: "inbox/latin1.md")])
    XCTAssertEqual(try readData("inbox/latin1.md"), bytes)
    XCTAssertEqual(try git.run("cat-file", "-s", "HEAD:inbox/latin1.md"), "5\n")
    try assertCleanAndSound()
  }

  func testNothingToSaveMakesNoCommit() throws {
    _ = try repository.createNote(NoteDraft(title: "Quiet"))
    let before = try head()
    let result = try repository.save()
    XCTAssertFalse(result.committed)
    XCTAssertEqual(try head(), before)
  }

  /// Gives `paths` new stat data and not new bytes, as a touch (or `cp -a`) does: mtime a few seconds back, ctime now.
  private func touch(_ paths: [String]) {
    for path in paths {
      var times = [timespec(tv_sec: time(nil) - 5, tv_nsec: 0), timespec(tv_sec: time(nil) - 5, tv_nsec: 0)]
      XCTAssertEqual(utimensat(AT_FDCWD, url(path).path, &times, 0), 0)
    }
  }

  /// `status`, and a `save` with nothing to save, record in the index the stat data of files they read only because
  /// those had changed, as `git status` does, so the next walk trusts them. While another holds the repository lock
  /// they leave the index alone: the holder's own write of it would fail on git's `index.lock`.
  func testStatusAndAnEmptySaveRecordStaleStatDataWhenTheLockIsFree() throws {
    let notes = [
      try repository.createNote(NoteDraft(title: "One", content: "1\n")).path,
      try repository.createNote(NoteDraft(title: "Two", content: "2\n")).path,
    ]
    let before = try notes.map { try git.indexStat($0) }
    touch(notes)
    XCTAssertNotEqual(try notes.map { try git.indexStat($0) }, notes.map { git.workTreeStat($0) })

    let lock = open(url(".git/nb/lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    XCTAssertGreaterThanOrEqual(lock, 0)
    XCTAssertEqual(flock(lock, LOCK_EX), 0)
    XCTAssertEqual(try repository.status().changes, [])
    XCTAssertTrue(repository.hasNothingToSave(SaveOptions()))
    XCTAssertEqual(try notes.map { try git.indexStat($0) }, before, "left alone under another's lock")
    close(lock)

    XCTAssertEqual(try repository.status().changes, [])
    XCTAssertEqual(try notes.map { try git.indexStat($0) }, notes.map { git.workTreeStat($0) })
    touch(notes)
    XCTAssertTrue(repository.hasNothingToSave(SaveOptions()))
    XCTAssertEqual(try notes.map { try git.indexStat($0) }, notes.map { git.workTreeStat($0) })
    // Inside an operation that holds the lock, the walk records them too.
    touch(notes)
    try repository.withLock { XCTAssertEqual(try repository.status().changes, []) }
    XCTAssertEqual(try notes.map { try git.indexStat($0) }, notes.map { git.workTreeStat($0) })
    XCTAssertEqual(try git.run("--no-optional-locks", "status", "--porcelain"), "")
  }

  func testDeletionsAndAttachmentsAreCommittedAsTheyAre() throws {
    let note = try repository.createNote(NoteDraft(title: "Gone"))
    try FileManager.default.removeItem(at: url(note.path))
    let image = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
    try write("inbox/picture.png", image)
    let result = try repository.save()
    XCTAssertEqual(result.paths, ["inbox/gone.md", "inbox/picture.png"])
    XCTAssertEqual(result.removed, ["inbox/gone.md"])
    XCTAssertEqual(try lastSubject(), "nb: save 0 notes and 2 other changes")
    XCTAssertEqual(try changedFiles(), ["A\tinbox/picture.png", "D\tinbox/gone.md"])
    XCTAssertEqual(try readData("inbox/picture.png"), image)
    try assertCleanAndSound()
  }

  func testCommitEditStampsOnlyWhenBytesChanged() throws {
    let note = try repository.createNote(NoteDraft(title: "Editor", content: "a\n"))
    let before = try repository.data(of: note)
    XCTAssertNil(try repository.commitEdit(of: note, before: before))
    try write(note.path, try read(note.path) + "b\n")
    clock.advance(-10)  // the clock went back: still previous + 1 s
    let edited = try XCTUnwrap(try repository.commitEdit(of: note, before: before))
    XCTAssertEqual(edited.updated?.rfc3339, "2026-11-22T10:07:02+01:00")
    XCTAssertTrue(try read(note.path).hasSuffix("updated: 2026-11-22T10:07:02+01:00\n---\na\nb\n"))
    XCTAssertEqual(try lastSubject(), "nb: edit inbox/editor.md")
    try assertCleanAndSound()
  }
}

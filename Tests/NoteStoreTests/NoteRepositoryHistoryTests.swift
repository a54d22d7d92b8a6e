import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

final class NoteRepositoryHistoryTests: NoteRepositoryTestCase {
  func testHistoryFollowsAMove() throws {
    var note = try repository.createNote(NoteDraft(title: "Journey", content: "start\n"))
    clock.advance(10)
    note = try repository.update(note, NoteChange(append: "more\n"))
    clock.advance(10)
    note = try repository.move(note, to: "archive")
    clock.advance(10)
    note = try repository.update(note, NoteChange(append: "after the move\n"))
    // An unrelated commit must not show up.
    clock.advance(10)
    _ = try repository.createNote(NoteDraft(title: "Other"))

    let history = try repository.history(of: note)
    XCTAssertEqual(history.map(\.change), [.modified, .renamed, .modified, .added])
    XCTAssertEqual(
      history.map(\.path), ["archive/journey.md", "archive/journey.md", "inbox/journey.md", "inbox/journey.md"])
    XCTAssertEqual(history[1].previousPath, "inbox/journey.md")
    // The real git, following renames, names the same commits.
    let oracle = try git.run("log", "--follow", "--format=%H", "--", "archive/journey.md").split(separator: "\n")
      .map(String.init)
    XCTAssertEqual(history.map(\.commit.id), oracle)
    XCTAssertEqual(history.map(\.commit.subject).last, "nb: add inbox/journey.md")
    XCTAssertEqual(history.first?.commit.author, GitCLI.userName)
    XCTAssertEqual(history.first?.commit.date.date, Self.start.addingTimeInterval(30))
    XCTAssertEqual(try repository.history(of: note, limit: 2).count, 2)
  }

  func testEntriesNameTheDeviceAndOldVersionsCanBeReadAndRestored() throws {
    repository.device = "tablet"
    var note = try repository.createNote(NoteDraft(title: "Journey", content: "start\n"))
    clock.advance(10)
    note = try repository.update(note, NoteChange(append: "more\n"))
    clock.advance(10)
    note = try repository.move(note, to: "archive")
    // A commit made with git alone has no device.
    try write("archive/journey.md", try read(note.path) + "by git\n")
    _ = try git.run("commit", "-q", "-am", "by hand")
    note = try repository.resolve(note.path)
    let history = try repository.history(of: note)
    XCTAssertEqual(history.map(\.device), [nil, "tablet", "tablet", "tablet"])
    let first = try XCTUnwrap(history.last)
    // What the commit holds, by the real git.
    XCTAssertEqual(
      try repository.text(at: first.path, in: first.commit.id), try git.show(first.commit.id, path: first.path))
    XCTAssertNil(try repository.text(at: "archive/journey.md", in: first.commit.id))

    // Restoring the first version: one commit, its body back, the id kept, `updated` stamped now.
    clock.advance(10)
    let commits = try git.logSubjects().count
    let stale = try repository.restore(note, from: first.commit.id, path: first.path, over: "0")
    guard case .changed = stale else { return XCTFail("\(stale)") }
    XCTAssertEqual(try git.logSubjects().count, commits, "a stale version restores nothing")
    let result = try repository.restore(
      note, from: first.commit.id, path: first.path, over: try repository.version(of: note))
    guard case .saved(let restored) = result else { return XCTFail("\(result)") }
    XCTAssertEqual(try git.logSubjects().first, "nb: restore archive/journey.md from \(first.commit.id.prefix(8))")
    XCTAssertEqual(try git.logSubjects().count, commits + 1)
    XCTAssertEqual(restored.id, note.id)
    XCTAssertEqual(try repository.body(of: restored), "start\n")
    XCTAssertEqual(restored.updated?.date, Self.start.addingTimeInterval(30))
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertThrowsError(
      try repository.restore(
        note, from: first.commit.id, path: "nowhere.md", over: try repository.version(of: restored)))
  }

  func testHistoryFollowsAMoveAndRewriteInOneCommitByID() throws {
    let note = try repository.createNote(NoteDraft(title: "Shapeshifter", content: "tiny\n"))
    let original = try read(note.path)
    // By hand: move the file and replace its body with much more text, then let save commit both at once.
    let newBody = (1...60).map { "Line \($0) of a completely different text.\n" }.joined()
    try FileManager.default.removeItem(at: url(note.path))
    try write("work/renamed.md", original.replacingOccurrences(of: "tiny\n", with: newBody))
    clock.advance(60)
    try repository.save()
    // Precondition, from the real git: its rename detection does not see this as a move.
    XCTAssertEqual(try changedFiles(renames: true), ["A\twork/renamed.md", "D\tinbox/shapeshifter.md"])

    let moved = try repository.resolve("work/renamed.md")
    XCTAssertEqual(moved.id, note.id)
    let history = try repository.history(of: moved)
    XCTAssertEqual(history.map(\.change), [.renamed, .added])
    XCTAssertEqual(history[0].path, "work/renamed.md")
    XCTAssertEqual(history[0].previousPath, "inbox/shapeshifter.md")
    XCTAssertEqual(history[1].path, "inbox/shapeshifter.md")
    XCTAssertEqual(history.map(\.commit.id), [try git.revParse("HEAD"), try git.revParse("HEAD~1")])
  }

  func testANoteWithTheSamePathButAnotherIdStartsItsOwnHistory() throws {
    let first = try repository.createNote(NoteDraft(title: "Reused"))
    try repository.delete(first)
    clock.advance(10)
    let second = try repository.createNote(NoteDraft(title: "Reused"))
    XCTAssertEqual(second.path, first.path)
    let history = try repository.history(of: second)
    XCTAssertEqual(history.map(\.change), [.added])
    XCTAssertEqual(history.first?.commit.id, try head())
  }

  func testADeletedAndRestoredNoteKeepsItsOlderHistory() throws {
    var note = try repository.createNote(NoteDraft(title: "Phoenix", content: "v1\n"))
    clock.advance(10)
    note = try repository.update(note, NoteChange(append: "v2\n"))
    try repository.delete(note)
    try git.run("revert", "--no-edit", "HEAD")
    let restored = try repository.resolve("inbox/phoenix.md")
    XCTAssertEqual(restored.id, note.id)
    let history = try repository.history(of: restored)
    XCTAssertEqual(history.map(\.change), [.added, .modified, .added])
    XCTAssertEqual(history.map(\.commit.id), [try head(), try git.revParse("HEAD~2"), try git.revParse("HEAD~3")])
  }
}

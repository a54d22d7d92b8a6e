import Foundation
import GRDB
import NBTestSupport
import XCTest

@testable import NoteStore

/// The index stays right whoever changes the notes: nb, an editor, the git CLI; and it repairs itself when its file
/// is deleted, cut short or overwritten.
final class IndexTests: NoteRepositoryTestCase {
  var notices: [String] = []

  override func setUpWithError() throws {
    try super.setUpWithError()
    notices = []
    repository.notice = { [unowned self] in self.notices.append($0) }
  }

  var indexPath: String { repository.index.path }

  /// Paths of the notes a query tree matches, in path order.
  func found(_ expression: QueryExpression, in repository: NoteRepository? = nil) throws -> [String] {
    try (repository ?? self.repository).notes(matching: expression, sort: .path).map(\.note.path)
  }

  func word(_ text: String) -> QueryExpression { .text(TextMatch(kind: .word, text: text)) }

  func commitAll(_ message: String = "change") throws {
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", message)
  }

  func testSearchSeesNotesMadeByNb() throws {
    let note = try repository.createNote(NoteDraft(title: "Roadmap", notebook: "work", content: "quarterly planning"))
    XCTAssertEqual(try found(word("planning")), ["work/roadmap.md"])
    try repository.update(note, NoteChange(body: "now about budgets\n"))
    XCTAssertEqual(try found(word("planning")), [])
    XCTAssertEqual(try found(word("budgets")), ["work/roadmap.md"])
    try repository.delete(try repository.resolve("work/roadmap"))
    XCTAssertEqual(try found(word("budgets")), [])
    XCTAssertEqual(notices, [])
  }

  func testUncommittedExternalEditIsFound() throws {
    try repository.createNote(NoteDraft(title: "Plain", notebook: "inbox", content: "first words"))
    XCTAssertEqual(try found(word("first")), ["inbox/plain.md"])
    try write("inbox/plain.md", "---\ntitle: Plain\n---\nsecond words entirely\n")
    try write("elsewhere/new.md", "# Brand New\n\nsecond coming\n")
    XCTAssertEqual(try found(word("first")), [])
    XCTAssertEqual(try found(word("second")), ["elsewhere/new.md", "inbox/plain.md"])
    XCTAssertEqual(try repository.allNotes().map(\.title), ["Brand New", "Plain"])
    try FileManager.default.removeItem(at: url("elsewhere"))
    XCTAssertEqual(try found(word("second")), ["inbox/plain.md"])
  }

  /// A query of one notebook walks only that notebook for uncommitted edits (listing one notebook of 10 000 notes
  /// must not stat all of them); commits anywhere, and the next query of everything, still bring in the rest.
  func testAQueryOfOneNotebookWalksOnlyThatNotebook() throws {
    try write("work/a.md", "---\ntitle: A\n---\nalpha\n")
    try write("inbox/b.md", "---\ntitle: B\n---\nbravo\n")
    XCTAssertEqual(try found(word("alpha")), ["work/a.md"])
    func indexedTitle(_ path: String) throws -> String? {
      try repository.index.read(scope: "work") { db in
        try String.fetchOne(db, sql: "SELECT title FROM note WHERE path = ?", arguments: [path])
      }
    }
    try write("work/a.md", "---\ntitle: A2\n---\nalpha\n")
    try write("inbox/b.md", "---\ntitle: B2\n---\nbravo\n")
    let workOnly = QueryExpression.and([word("alpha"), .filter(.notebook("work"))])
    XCTAssertEqual(try found(workOnly), ["work/a.md"])
    XCTAssertEqual(try indexedTitle("work/a.md"), "A2")
    XCTAssertEqual(try indexedTitle("inbox/b.md"), "B", "inbox is outside the query's notebook: not walked")
    // A commit made outside nb is brought in wherever it is, scoped or not.
    try write("inbox/c.md", "---\ntitle: C\n---\ncharlie\n")
    try commitAll()
    XCTAssertEqual(
      try repository.index.read(scope: "work") { db in
        try String.fetchOne(db, sql: "SELECT title FROM note WHERE path = 'inbox/c.md'")
      }, "C")
    XCTAssertEqual(try found(word("bravo")), ["inbox/b.md"])
    XCTAssertEqual(try indexedTitle("inbox/b.md"), "B2")
  }

  /// Regression: a file whose mtime lies in the future (clock skew, an unpacked archive) counted as "racy" for as
  /// long as the clock stayed behind it, so every command read it again (a benchmark vault with future dates spent
  /// 350 ms a command re-indexing 541 such notes). Only a time close to now is racy.
  func testAFileFromTheFutureIsNotReadAgainByEveryCommand() throws {
    try write("notes/future.md", "---\ntitle: Future\n---\nfrom tomorrow\n")
    try write("notes/now.md", "---\ntitle: Now\n---\nfrom today\n")
    let future = Date().addingTimeInterval(365 * 86_400)
    try FileManager.default.setAttributes([.modificationDate: future], ofItemAtPath: url("notes/future.md").path)
    func racy() throws -> [String: Bool] {
      try DatabaseQueue(path: indexPath).read { db in
        try Dictionary(
          uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT path, racy FROM note").map {
            ($0["path"] as String, ($0["racy"] as Int) != 0)
          })
      }
    }
    XCTAssertEqual(try found(word("from")), ["notes/future.md", "notes/now.md"])
    XCTAssertEqual(try racy(), ["notes/future.md": true, "notes/now.md": true], "both changed (ctime) just now")
    // Once the clock has moved on, a command confirms them by their bytes and the next write of the index trusts
    // them from then on.
    Thread.sleep(forTimeInterval: 2.2)
    XCTAssertEqual(try found(word("from")), ["notes/future.md", "notes/now.md"])
    try write("notes/later.md", "---\ntitle: Later\n---\nfrom later\n")
    XCTAssertEqual(try found(word("from")), ["notes/future.md", "notes/later.md", "notes/now.md"])
    XCTAssertEqual(try racy()["notes/future.md"], false, "a year ahead is not 'just written'")
    XCTAssertEqual(try racy()["notes/now.md"], false)
  }

  func testCommitsResetsAndBranchSwitchesByTheGitCLI() throws {
    try write("a.md", "apple text\n")
    try commitAll()
    XCTAssertEqual(try found(word("apple")), ["a.md"])
    let first = try head()
    try write("a.md", "banana text\n")
    try write("b.md", "banana bread\n")
    try commitAll()
    XCTAssertEqual(try found(word("banana")), ["a.md", "b.md"])
    try git.run("reset", "-q", "--hard", first)
    XCTAssertEqual(try found(word("banana")), [])
    XCTAssertEqual(try found(word("apple")), ["a.md"])
    try git.run("checkout", "-q", "-b", "other")
    try write("c.md", "cherry\n")
    try commitAll()
    XCTAssertEqual(try found(word("cherry")), ["c.md"])
    try git.run("checkout", "-q", "main")
    XCTAssertEqual(try found(word("cherry")), [])
    try git.run("checkout", "-q", "other")
    XCTAssertEqual(try found(word("cherry")), ["c.md"])
  }

  /// When the commit the index reflects is gone (a reset, then a gc), the index is rebuilt.
  func testVanishedRecordedCommitRebuilds() throws {
    try write("a.md", "alpha\n")
    try commitAll()
    let first = try head()
    try write("a.md", "gamma\n")
    try commitAll()
    XCTAssertEqual(try found(word("gamma")), ["a.md"])
    try git.run("reset", "-q", "--hard", first)
    try git.run("reflog", "expire", "--expire=now", "--all")
    try git.run("gc", "-q", "--prune=now")
    let other = try openAnother()
    var seen: [String] = []
    other.notice = { seen.append($0) }
    XCTAssertEqual(try found(word("alpha"), in: other), ["a.md"])
    XCTAssertEqual(try found(word("gamma"), in: other), [])
    XCTAssertEqual(seen.count, 1, "\(seen)")
  }

  func testDamagedIndexIsRebuiltWithANotice() throws {
    try write("a.md", "apple\n")
    try commitAll()
    XCTAssertEqual(try found(word("apple")), ["a.md"])
    XCTAssertEqual(notices, [], "the first build ever is quiet")

    func reopened() throws -> NoteRepository {
      let other = try openAnother()
      other.notice = { [unowned self] in self.notices.append($0) }
      return other
    }
    for damage in ["delete", "truncate", "cut", "garbage"] {
      notices = []
      let size = FileSystem.lstatInfo(indexPath)!.size
      switch damage {
      case "delete": try FileManager.default.removeItem(atPath: indexPath)
      case "truncate": XCTAssertEqual(truncate(indexPath, 0), 0)
      case "cut": XCTAssertEqual(truncate(indexPath, off_t(size / 2)), 0)
      default:
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }).write(to: URL(fileURLWithPath: indexPath))
      }
      for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexPath + suffix) }
      let other = try reopened()
      XCTAssertEqual(try found(word("apple"), in: other), ["a.md"], damage)
      XCTAssertEqual(notices.count, 1, "\(damage): \(notices)")
      notices = []
      XCTAssertEqual(try found(word("apple"), in: try reopened()), ["a.md"], damage)
      XCTAssertEqual(notices, [], damage)
    }
  }

  /// `nb add` opens the index on another thread while it writes and flushes the note (`openInBackground`): the
  /// connection opened there answers every query after it, one never queried is waited for and kept, and a file
  /// that does not look whole is left to the usual rebuild, notice and all.
  func testIndexOpenedInBackgroundAnswersAndADamagedOneIsStillRebuilt() throws {
    try write("a.md", "apple\n")
    try commitAll()
    XCTAssertEqual(try found(word("apple")), ["a.md"])

    var quiet: [String] = []
    let adding = try openAnother()
    adding.notice = { quiet.append($0) }
    let note = try adding.createNote(NoteDraft(title: "Banana", content: "banana"))
    XCTAssertEqual(try found(word("banana"), in: adding), [note.path])
    XCTAssertEqual(try found(word("apple"), in: adding), ["a.md"])

    let idle = try openAnother()
    idle.notice = { quiet.append($0) }
    idle.index.openInBackground()
    idle.index.finishOpeningInBackground()
    XCTAssertEqual(try found(word("banana"), in: idle), [note.path])
    XCTAssertEqual(quiet, [], "the index file was opened as it is: nothing to rebuild, nothing to say")

    let size = FileSystem.lstatInfo(indexPath)!.size
    try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }).write(to: URL(fileURLWithPath: indexPath))
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexPath + suffix) }
    let damaged = try openAnother()
    var seen: [String] = []
    damaged.notice = { seen.append($0) }
    let cherry = try damaged.createNote(NoteDraft(title: "Cherry", content: "cherry"))
    XCTAssertEqual(try found(word("cherry"), in: damaged), [cherry.path])
    XCTAssertEqual(try found(word("apple"), in: damaged), ["a.md"])
    XCTAssertEqual(seen.count, 1, "\(seen)")
    XCTAssertTrue(seen.first?.contains("damaged") == true, "\(seen)")
  }

  func testOtherSchemaVersionIsRebuilt() throws {
    try write("a.md", "apple\n")
    XCTAssertEqual(try found(word("apple")), ["a.md"])
    try DatabaseQueue(path: indexPath).write { try $0.execute(sql: "PRAGMA user_version = 999") }
    let other = try openAnother()
    var seen: [String] = []
    other.notice = { seen.append($0) }
    XCTAssertEqual(try found(word("apple"), in: other), ["a.md"])
    XCTAssertEqual(seen.count, 1, "\(seen)")
  }

  func testHugeNoteIsIndexedByItsStart() throws {
    var text = "---\ntitle: Huge\ntags: [big]\n---\nneedle at the start\n"
    let line = String(repeating: "filler ", count: 1000) + "\n"
    while text.utf8.count < 50 << 20 { text += line }
    text += "needleatend\n"
    try write("huge.md", text)
    text = ""
    XCTAssertEqual(try found(word("needle")), ["huge.md"])
    XCTAssertEqual(try found(word("needleatend")), [], "past the 1 MiB cap")
    XCTAssertEqual(try found(.filter(.tag("big"))), ["huge.md"])
  }

  func testBrokenNotesAreListedWithWarnings() throws {
    try write("bad-yaml.md", "---\ntitle: [unclosed\n---\nbroken findme\n")
    try write("latin1.md", Data([0x63, 0x61, 0x66, 0xE9, 0x20, 0x66, 0x69, 0x6E, 0x64, 0x6D, 0x65, 0x0A]))
    let notes = try repository.allNotes()
    XCTAssertEqual(notes.map(\.path), ["bad-yaml.md", "latin1.md"])
    XCTAssertNotNil(notes[0].warning)
    XCTAssertNotNil(notes[1].warning)
    XCTAssertEqual(try found(word("findme")), ["bad-yaml.md"])
    XCTAssertEqual(try found(.filter(.path("latin"))), ["latin1.md"])
  }
}

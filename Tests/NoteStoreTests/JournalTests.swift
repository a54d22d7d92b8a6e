import Foundation
import XCTest

@testable import NoteStore

/// The write-ahead journal without processes: a transaction abandoned mid-way (as a SIGKILL leaves it, its
/// in-memory undo gone) is settled by the next command that takes the lock.
final class JournalTests: NoteRepositoryTestCase {
  private var journalLog: String { root.appendingPathComponent(".git/nb/journal/log").path }

  /// Two committed notes and a notebook to change.
  private func seed() throws {
    try write("work/a.md", "---\nid: a\n---\nA\n")
    try write("work/b.md", "---\nid: b\n---\nB\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "seed")
  }

  /// Changes files the way a command does, then drops the transaction without committing or undoing it.
  private func abandon(_ body: (inout Transaction) throws -> Void) throws {
    var tx = Transaction(repository: repository)
    try body(&tx)
  }

  func testAnAbandonedTransactionIsRolledBackByTheNextLockingCommand() throws {
    try seed()
    let before = try snapshot()
    let commits = try commitCount()
    try abandon { tx in
      try tx.write("work/a.md", "---\nid: a\n---\nA changed\n")
      try tx.remove("work/b.md")
      try tx.write("new/deep/c.md", "C\n")
      try tx.move("work", "moved/work")
    }
    XCTAssertNotEqual(try snapshot(), before)
    XCTAssert(try repository.status().warnings.contains { $0.contains("interrupted") })
    // A record cut short by the crash while it was appended is ignored, not misread.
    let handle = try XCTUnwrap(FileHandle(forWritingAtPath: journalLog))
    handle.seekToEndOfFile()
    handle.write(Data("{\"kind\":\"wri".utf8))
    try handle.close()

    var notices: [String] = []
    repository.notice = { notices.append($0) }
    let saved = try repository.save()
    XCTAssertFalse(saved.committed, "the half-done change was committed: \(saved.paths)")
    XCTAssertEqual(try snapshot(), before)
    XCTAssertFalse(exists("new"), "a directory the transaction made is still there")
    XCTAssertFalse(exists("moved"))
    XCTAssertEqual(try commitCount(), commits)
    XCTAssertEqual(notices.count, 1)
    XCTAssert(notices.first?.contains("rolled back") == true, "\(notices)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: journalLog))
    XCTAssertFalse(try repository.status().warnings.contains { $0.contains("interrupted") })
    try assertCleanAndSound()
  }

  func testAFileEditedAfterTheCrashIsKeptAndItsEarlierContentSaved() throws {
    try seed()
    try abandon { tx in
      try tx.write("work/a.md", "---\nid: a\n---\nA by nb\n")
      try tx.write("work/b.md", "---\nid: b\n---\nB by nb\n")
    }
    try write("work/a.md", "---\nid: a\n---\nA by a person after the crash\n")
    var notices: [String] = []
    repository.notice = { notices.append($0) }
    _ = try repository.tags()  // reads take no lock: nothing is settled yet
    XCTAssert(FileManager.default.fileExists(atPath: journalLog))
    try repository.createNotebook("other")
    XCTAssertEqual(try read("work/a.md"), "---\nid: a\n---\nA by a person after the crash\n")
    XCTAssertEqual(try read("work/b.md"), "---\nid: b\n---\nB\n")
    let kept = try XCTUnwrap(
      FileManager.default.enumerator(atPath: root.appendingPathComponent(".git/nb/recovered").path)?
        .compactMap { $0 as? String }.first { $0.hasSuffix("work/a.md") })
    XCTAssertEqual(
      try String(contentsOf: root.appendingPathComponent(".git/nb/recovered/\(kept)"), encoding: .utf8),
      "---\nid: a\n---\nA\n")
    XCTAssert(notices.first?.contains("work/a.md") == true, "\(notices)")
  }

  func testATransactionKilledAfterItsCommitLandedOnlyLosesItsJournal() throws {
    try seed()
    try abandon { tx in
      try tx.write("work/a.md", "---\nid: a\n---\nA changed\n")
      try tx.write("work/b.md", "---\nid: b\n---\nB changed\n")
      try tx.journal?.append([(JournalRecord(kind: .commit, subject: "x", paths: tx.paths), nil)])
      try repository.git.commit(paths: tx.paths, message: "nb: x", date: Date())
    }
    let after = try snapshot()
    var notices: [String] = []
    repository.notice = { notices.append($0) }
    try repository.save()
    XCTAssertEqual(try snapshot(), after)
    XCTAssert(notices.first?.contains("had committed") == true, "\(notices)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: journalLog))
    try assertCleanAndSound()
  }

  func testACommitStoppedAfterTheIndexWriteIsUnstaged() throws {
    try seed()
    try abandon { tx in
      try tx.write("work/a.md", "---\nid: a\n---\nA changed\n")
      try tx.write("work/b.md", "---\nid: b\n---\nB changed\n")
      try tx.journal?.append([(JournalRecord(kind: .commit, subject: "x", paths: tx.paths), nil)])
    }
    // What the commit does before it moves the branch: the new entries staged.
    try git.run("add", "work/a.md", "work/b.md")
    try repository.save()
    XCTAssertEqual(try read("work/a.md"), "---\nid: a\n---\nA\n")
    try assertCleanAndSound()
  }
}

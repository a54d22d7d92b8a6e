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

  /// The journal's directory is made once and kept (removing it each time would free its block, and making it each
  /// time would need its parent flushed for the log in it to be durable); only the log comes and goes. A log a
  /// killed process never moved into place (`log.new`) changed nothing, and the next locking command clears it.
  func testTheJournalDirectoryStaysAndAnUnplacedLogIsCleared() throws {
    try seed()
    let directory = root.appendingPathComponent(".git/nb/journal").path
    let unplaced = directory + "/log.new"
    _ = try repository.createNote(NoteDraft(title: "First", notebook: "work", content: "one\n"))
    var isDirectory: ObjCBool = false
    XCTAssertTrue(FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory))
    XCTAssertTrue(isDirectory.boolValue)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [])
    let inode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: directory)[.systemFileNumber] as? UInt64)

    try Data("{\"kind\":\"begin\"}\n".utf8).write(to: URL(fileURLWithPath: unplaced))
    let commits = try commitCount()
    var notices: [String] = []
    repository.notice = { notices.append($0) }
    let second = try repository.createNote(NoteDraft(title: "Second", notebook: "work", content: "two\n"))
    XCTAssertEqual(notices, [], "a log never put in place is not an interrupted command")
    XCTAssertEqual(try commitCount(), commits + 1)
    XCTAssertTrue(exists(second.path))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [])
    XCTAssertEqual(
      try FileManager.default.attributesOfItem(atPath: directory)[.systemFileNumber] as? UInt64, inode,
      "the directory was made again")
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

  // MARK: - Sync's checkout

  /// A commit `to` after the seed (`from`) that changes, removes and adds notes, made with git and then undone
  /// (HEAD back at `from`, the work tree too), as sync's merge commit is before its checkout.
  private func seedCheckout() throws -> (from: String, to: String) {
    try seed()
    try write("work/e.md", "---\nid: e\n---\nE\n")
    try write("odd[1]*.md", "---\nid: odd\n---\nOdd\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "seed more")
    let from = try head()
    try write("work/a.md", "---\nid: a\n---\nA from the remote\n")
    try write("work/e.md", "---\nid: e\n---\nE from the remote\n")
    try write("odd[1]*.md", "---\nid: odd\n---\nOdd from the remote\n")
    try FileManager.default.removeItem(at: url("work/b.md"))
    try write("new/deep/c.md", "---\nid: c\n---\nC from the remote, a longer note\n")
    try write("new/d.md", "---\nid: d\n---\nD\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "nb: sync origin/main")
    let to = try head()
    try git.run("reset", "-q", "--hard", from)
    return (from, to)
  }

  /// What a SIGKILL between git's file writes and its branch move leaves: some of `to`'s files (one torn) in the
  /// work tree, the index partly at `to`, HEAD at `from`, and the journal's checkout record.
  private func halfCheckout(from: String, to: String) throws {
    _ = try Journal(
      directory: root.appendingPathComponent(".git/nb/journal").path, head: from,
      first: [(JournalRecord(kind: .checkout, to: to, from: from), nil)])
    try write("work/a.md", "---\nid: a\n---\nA from the remote\n")
    try write("odd[1]*.md", "---\nid: odd\n---\nOdd from the remote\n")
    try FileManager.default.removeItem(at: url("work/b.md"))
    try write("new/deep/c.md", "---\nid: c\n---\nC from the")  // torn
    try git.run("update-index", "--add", "work/a.md", "new/deep/c.md")
    try git.run("update-index", "--remove", "work/b.md")
  }

  func testAnInterruptedSyncCheckoutIsRolledBackToTheOldCommit() throws {
    let (from, to) = try seedCheckout()
    let before = try snapshot()
    try halfCheckout(from: from, to: to)
    XCTAssertNotEqual(try snapshot(), before)
    XCTAssert(try repository.status().warnings.contains { $0.contains("interrupted") })

    var notices: [String] = []
    repository.notice = { notices.append($0) }
    let saved = try repository.save()
    XCTAssertFalse(saved.committed, "part of the checkout was committed as a save: \(saved.paths)")
    XCTAssertEqual(try head(), from)
    XCTAssertEqual(try snapshot(), before)
    XCTAssertFalse(exists("new"), "a directory the checkout made is still there")
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertEqual(notices.count, 1)
    XCTAssert(notices.first?.contains("rolled back an interrupted sync checkout") == true, "\(notices)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: journalLog))
    XCTAssertFalse(try repository.status().warnings.contains { $0.contains("interrupted") })
    try assertCleanAndSound()
  }

  /// GitKit's checkout writes a file that does not shrink over the old one without emptying it first: stopped
  /// part-way, the file holds the new version's beginning and the old version's end, which is the checkout's doing
  /// too and is rolled back like a file cut short.
  func testATornInPlaceWriteIsRolledBack() throws {
    try seed()
    let old = "---\nid: e\n---\nThe old body of a note, long enough to be written over.\n"
    let new = "---\nid: e\n---\nThe NEW body of a note, long enough to be written over, and longer.\n"
    try write("work/e.md", old)
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "e")
    let from = try head()
    try write("work/e.md", new)
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "nb: sync origin/main")
    let to = try head()
    try git.run("reset", "-q", "--hard", from)
    _ = try Journal(
      directory: root.appendingPathComponent(".git/nb/journal").path, head: from,
      first: [(JournalRecord(kind: .checkout, to: to, from: from), nil)])
    try write("work/e.md", String(new.prefix(24)) + String(old.dropFirst(24)))

    let saved = try repository.save()
    XCTAssertFalse(saved.committed, "part of the checkout was committed as a save: \(saved.paths)")
    XCTAssertEqual(try head(), from)
    XCTAssertEqual(try read("work/e.md"), old)
    XCTAssertFalse(exists(".git/nb/recovered"), "the torn file was taken for an edit")
    XCTAssertEqual(try git.statusPorcelain(), "")
    try assertCleanAndSound()
  }

  func testAFileEditedAfterAnInterruptedCheckoutIsKeptWithTheOldVersionSaved() throws {
    let (from, to) = try seedCheckout()
    try halfCheckout(from: from, to: to)
    try write("work/e.md", "---\nid: e\n---\nE by a person after the crash\n")
    try write("new/d.md", "---\nid: d\n---\nD by a person after the crash\n")
    var notices: [String] = []
    repository.notice = { notices.append($0) }
    try repository.createNotebook("other")
    XCTAssertEqual(try git.revParse("HEAD~1"), from)
    XCTAssertEqual(try read("work/a.md"), "---\nid: a\n---\nA\n")
    XCTAssertEqual(try read("work/b.md"), "---\nid: b\n---\nB\n")
    XCTAssertFalse(exists("new/deep"))
    XCTAssertEqual(try read("work/e.md"), "---\nid: e\n---\nE by a person after the crash\n")
    XCTAssertEqual(try read("new/d.md"), "---\nid: d\n---\nD by a person after the crash\n")
    let kept = try XCTUnwrap(
      FileManager.default.enumerator(atPath: root.appendingPathComponent(".git/nb/recovered").path)?
        .compactMap { $0 as? String }.first { $0.hasSuffix("work/e.md") })
    XCTAssertEqual(
      try String(contentsOf: root.appendingPathComponent(".git/nb/recovered/\(kept)"), encoding: .utf8),
      "---\nid: e\n---\nE\n")
    XCTAssert(notices.first?.contains("work/e.md") == true, "\(notices)")
    // The edits are the only changes left: the next save commits them, nothing of the checkout.
    XCTAssertEqual(
      try git.statusPorcelain().split(separator: "\n").map { String($0) }.sorted(),
      [" M work/e.md", "?? new/d.md"])
  }

  /// Regression: the index reset of a recovery worked on a cached index older than the file on disk and wrote it
  /// back whole, so the next commit left every other path staged as deleted.
  func testAnIndexResetKeepsTheOtherEntries() throws {
    try seed()
    try repository.createNotebook("other")
    let tracked = try git.run("ls-files")
    try repository.git.resetIndex(paths: ["work/a.md"])
    XCTAssertEqual(try git.run("ls-files"), tracked)
    try repository.createNotebook("other2")
    try assertCleanAndSound()
  }

  func testACheckoutKilledAfterTheBranchMovedOnlyLosesItsJournal() throws {
    let (from, to) = try seedCheckout()
    try git.run("reset", "-q", "--hard", to)
    _ = try Journal(
      directory: root.appendingPathComponent(".git/nb/journal").path, head: from,
      first: [(JournalRecord(kind: .checkout, to: to, from: from), nil)])
    let after = try snapshot()
    var notices: [String] = []
    repository.notice = { notices.append($0) }
    try repository.save()
    XCTAssertEqual(try snapshot(), after)
    XCTAssertEqual(try head(), to)
    XCTAssert(notices.first?.contains("had finished") == true, "\(notices)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: journalLog))
    try assertCleanAndSound()
  }

  /// A kill while libgit2 wrote the index (or moved the branch) leaves git's lock files; git never removes a lock it
  /// did not take, so without the recovery removing them every later commit would be refused.
  func testLocksTheKilledCheckoutLeftAreRemovedAndTheRollBackFinishes() throws {
    let (from, to) = try seedCheckout()
    let before = try snapshot()
    try halfCheckout(from: from, to: to)
    try write(".git/index.lock", "DIRC partial")
    try write(".git/refs/heads/main.lock", to)
    var notices: [String] = []
    repository.notice = { notices.append($0) }
    let saved = try repository.save()
    XCTAssertFalse(saved.committed, "part of the checkout was committed as a save: \(saved.paths)")
    XCTAssertEqual(try snapshot(), before)
    XCTAssertEqual(try head(), from)
    XCTAssertFalse(exists(".git/index.lock"))
    XCTAssertFalse(exists(".git/refs/heads/main.lock"))
    XCTAssert(
      notices.first?.contains("removed the lock it left (.git/index.lock, .git/refs/heads/main.lock)") == true,
      "\(notices)")
    try write("work/z.md", "---\nid: z\n---\nZ\n")
    XCTAssert(try repository.save().committed)
    try assertCleanAndSound()
  }

  /// A lock older than the interrupted command is not its: the recovery leaves it and the save refuses as usual.
  func testALockOlderThanTheInterruptedCommandIsLeftInPlace() throws {
    let (from, to) = try seedCheckout()
    try halfCheckout(from: from, to: to)
    try write(".git/index.lock", "someone else's")
    let old = Date().addingTimeInterval(-60)
    try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: url(".git/index.lock").path)
    XCTAssertThrowsError(try repository.save()) { error in
      XCTAssert("\(error)".contains("index.lock"), "\(error)")
    }
    XCTAssert(exists(".git/index.lock"))
  }

  /// A lock a running process holds open belongs to a git command still at work: it stays.
  func testALockARunningProcessHoldsOpenIsLeftInPlace() throws {
    let (from, to) = try seedCheckout()
    try halfCheckout(from: from, to: to)
    try write(".git/index.lock", "held")
    let holder = try XCTUnwrap(FileHandle(forReadingAtPath: url(".git/index.lock").path))
    defer { try? holder.close() }
    XCTAssertEqual(FileSystem.isHeldOpen(url(".git/index.lock").path), true)
    XCTAssertThrowsError(try repository.save())
    XCTAssert(exists(".git/index.lock"))
    try holder.close()
    XCTAssertEqual(FileSystem.isHeldOpen(url(".git/index.lock").path), false)
  }
}

/// Journal lines are written without JSONEncoder: JSONEncoder (sorted keys, unescaped slashes) is the oracle, byte
/// for byte, and JSONDecoder must read each line back as the record.
final class JournalLineTests: XCTestCase {
  func testLinesAreJSONEncodersBytes() throws {
    let texts = [
      "", "a", "work/notes/plan.md", "\"quoted\"", "back\\slash", "line\nbreak", "cr\r", "tab\t", "\u{08}\u{0C}",
      "\u{00}\u{01}\u{1F}\u{7F}", "é", "日本", "🙂", "\u{2028}\u{2029}", "/slashes/", "</script>", "a,b:c{d}[e]",
    ]
    var generator = SystemRandomNumberGenerator()
    func text() -> String? {
      Int.random(in: 0..<4, using: &generator) == 0
        ? nil : (0..<Int.random(in: 1...3, using: &generator)).map { _ in texts.randomElement(using: &generator)! }.joined()
    }
    func maybe<T>(_ value: @autoclosure () -> T) -> T? { Bool.random(using: &generator) ? value() : nil }
    let kinds: [JournalRecord.Kind] = [.begin, .write, .remove, .move, .directory, .commit, .checkout]
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var records: [JournalRecord] = []
    for _ in 0..<3_000 {
      var record = JournalRecord(kind: kinds.randomElement(using: &generator)!)
      record.path = text()
      record.to = text()
      record.from = text()
      record.prior = maybe(Int.random(in: 0...Int(Int32.max), using: &generator))
      record.newSize = maybe(Int.random(in: 0...1 << 40, using: &generator))
      record.newHash = text()
      record.pid = maybe(Int32.random(in: 1...Int32.max, using: &generator))
      record.time = maybe(
        [1_795_338_421, 1_795_338_421.5, Double.random(in: 0...4e9, using: &generator), 0.1, 1e-7, 123_456_789_012_345_680]
          .randomElement(using: &generator)!)
      record.head = text()
      record.command = text()
      record.subject = text()
      record.paths = maybe((0..<Int.random(in: 0...4, using: &generator)).map { _ in text() ?? "" })
      records.append(record)
    }
    for record in records {
      let line = record.jsonLine()
      XCTAssertEqual(String(decoding: line, as: UTF8.self), String(decoding: try encoder.encode(record), as: UTF8.self))
      XCTAssertEqual(try JSONDecoder().decode(JournalRecord.self, from: Data(line)), record)
    }
  }
}

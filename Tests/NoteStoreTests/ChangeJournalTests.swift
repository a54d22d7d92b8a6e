import Foundation
import GRDB
import NBTestSupport
import XCTest

@testable import NoteStore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// While a watcher owns the change journal, a query checks only the paths it recorded (no walk of the tree), and
/// any doubt — no live owner, a new session, a rescan, a deleted or unreadable journal, an unanswered request —
/// means the walk again. An edit the watcher did not record is the probe: seen only when the query walked.
final class ChangeJournalTests: NoteRepositoryTestCase {
  var journal: ChangeJournal?
  /// Answers the journal's requests, as `nb watch` does.
  var answering: NewFileWatcher?

  override func tearDownWithError() throws {
    answering?.stop()
    answering = nil
    journal?.close()
    journal = nil
    try super.tearDownWithError()
  }

  /// Takes the journal in this process and answers its requests.
  @discardableResult
  func startWatching() throws -> ChangeJournal {
    let journal = try XCTUnwrap(try ChangeJournal.open(repository: repository))
    self.journal = journal
    try answer(journal)
    return journal
  }

  func answer(_ journal: ChangeJournal) throws {
    answering?.stop()
    answering = try NewFileWatcher(directory: journal.requestDirectory) { [journal] in
      journal.acknowledge(request: $0)
    }
  }

  func found(_ text: String) throws -> [String] {
    try repository.notes(matching: .text(TextMatch(kind: .word, text: text)), sort: .path).map(\.note.path)
  }

  func withInk() throws -> [String] {
    try repository.notes(matching: .filter(.hasInk), sort: .path).map(\.note.path)
  }

  func record(_ paths: String..., directory: Bool = false) {
    journal!.record(paths.map { (path: $0, isDirectory: directory) })
  }

  var watchDirectory: String { ChangeJournal.directory(gitDirectory: repository.gitDirectory) }

  func watchMeta() throws -> NoteIndex.WatchState {
    try DatabaseQueue(path: repository.index.path).read(NoteIndex.watch)
  }

  /// A note whose only word is `word`.
  func note(_ path: String, _ word: String) throws { try write(path, "---\ntitle: T\n---\n\(word)\n") }

  // MARK: - Recorded changes

  func testARecordedEditIsFoundByTheNextQuery() throws {
    try note("inbox/a.md", "apple")
    try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"], "the first query of a session walks")
    let cursor = try XCTUnwrap(try watchMeta().cursor)
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    XCTAssertEqual(try watchMeta().cursor, cursor, "nothing but answers in the journal: nothing written")
    try note("inbox/a.md", "banana")
    try note("inbox/b.md", "banana")
    record("inbox/a.md", "inbox/b.md")
    XCTAssertEqual(try found("banana"), ["inbox/a.md", "inbox/b.md"])
    XCTAssertEqual(try found("apple"), [])
    // A removal, an ink sidecar (it stands for its note), a path that needs escaping.
    try FileManager.default.removeItem(at: url("inbox/b.md"))
    try write("inbox/a.ink.jsonl", "{}\n")
    try note("inbox/100%\nsure.md", "cherry")
    record("inbox/b.md", "inbox/a.ink.jsonl", "inbox/100%\nsure.md")
    XCTAssertEqual(try found("banana"), ["inbox/a.md"])
    XCTAssertEqual(try withInk(), ["inbox/a.md"])
    XCTAssertEqual(try found("cherry"), ["inbox/100%\nsure.md"])
  }

  /// The proof that the walk is skipped: an edit nobody recorded stays unseen while the watcher runs, and the first
  /// query after it stops finds it.
  func testAnUnrecordedEditIsUnseenWhileTheWatcherRunsAndFoundOnceItStops() throws {
    try note("inbox/a.md", "apple")
    let journal = try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    try note("inbox/a.md", "banana")
    try note("inbox/new.md", "banana")
    XCTAssertEqual(try found("banana"), [])
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    journal.close()
    XCTAssertFalse(FileSystem.exists(watchDirectory + "/changes"), "closing removes the journal")
    XCTAssertEqual(try found("banana"), ["inbox/a.md", "inbox/new.md"])
    XCTAssertEqual(try found("apple"), [])
  }

  /// The watcher reads its events some time after they happen: a query asks it to catch up and waits for the
  /// answer, so an edit saved just before the query is found even when it was not recorded yet.
  func testAQueryWaitsForTheWatcherToCatchUp() throws {
    try note("inbox/a.md", "apple")
    let journal = try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    answering?.stop()
    // A watcher that is behind: it records the edit only when it gets to the request.
    answering = try NewFileWatcher(directory: journal.requestDirectory) { [journal] request in
      usleep(20_000)
      journal.record([(path: "inbox/a.md", isDirectory: false)])
      journal.acknowledge(request: request)
    }
    try note("inbox/a.md", "banana")
    XCTAssertEqual(try found("banana"), ["inbox/a.md"])
    XCTAssertNil(try watchMeta().unanswered)
  }

  /// What the links of `inbox/a.md` reach, from the index.
  func reached() throws -> [String?] {
    try repository.links(from: try repository.resolve("inbox/a")).map(\.resolution.path)
  }

  /// Attachments (files that are not notes) are kept for links the same way: recorded files and directories are
  /// checked, nothing else.
  func testRecordedAttachmentsAreSeenByLinks() throws {
    try note("inbox/a.md", "[[photo.png]] ![[scan.pdf]] ![](a.files/x.png)")
    try startWatching()
    XCTAssertEqual(try reached(), [nil, nil, nil], "the first query walks")
    try write("assets/photo.png", "png")
    XCTAssertEqual(try reached(), [nil, nil, nil], "unrecorded: unseen while the watcher runs")
    record("assets/photo.png")
    XCTAssertEqual(try reached(), ["assets/photo.png", nil, nil])
    // A folder of attachments arriving at once, recorded as a directory; a file in the note's attachment folder.
    try write("docs/deep/scan.pdf", "pdf")
    try write("inbox/a.files/x.png", "png")
    record("docs", directory: true)
    record("inbox/a.files/x.png")
    XCTAssertEqual(try reached(), ["assets/photo.png", "docs/deep/scan.pdf", "inbox/a.files/x.png"])
    // Removed, and a removed folder recorded as a file (a watcher that could not tell).
    try FileManager.default.removeItem(at: url("assets/photo.png"))
    try FileManager.default.removeItem(at: url("docs"))
    record("assets/photo.png", "docs")
    XCTAssertEqual(try reached(), [nil, nil, "inbox/a.files/x.png"])
    journal?.close()
    journal = nil
    XCTAssertEqual(try reached(), [nil, nil, "inbox/a.files/x.png"], "the walk agrees")
  }

  func testRecordedDirectoriesAreWalked() throws {
    try note("inbox/a.md", "apple")
    try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    // A notebook made with notes in it, nested.
    try note("projects/x.md", "kiwi")
    try note("projects/deep/er/y.md", "kiwi")
    record("projects", directory: true)
    XCTAssertEqual(try found("kiwi"), ["projects/deep/er/y.md", "projects/x.md"])
    // Renamed: both ends recorded.
    try FileManager.default.moveItem(at: url("projects"), to: url("archive"))
    record("projects", "archive", directory: true)
    XCTAssertEqual(try found("kiwi"), ["archive/deep/er/y.md", "archive/x.md"])
    // Removed, recorded as a file (a watcher that could not tell): its rows go all the same.
    try FileManager.default.removeItem(at: url("archive/deep"))
    record("archive/deep")
    XCTAssertEqual(try found("kiwi"), ["archive/x.md"])
    // A directory inside a recorded one, recorded too; hidden directories are no notebooks.
    try note("archive/more/z.md", "kiwi")
    try note("archive/.hidden/h.md", "kiwi")
    record("archive", "archive/more", "archive/.hidden", directory: true)
    XCTAssertEqual(try found("kiwi"), ["archive/more/z.md", "archive/x.md"])
    // The root as a directory means everything.
    try note("inbox/a.md", "mango")
    record("", directory: true)
    XCTAssertEqual(try found("mango"), ["inbox/a.md"])
  }

  func testARescanWalksOnce() throws {
    try note("inbox/a.md", "apple")
    let journal = try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    try note("inbox/a.md", "banana")
    journal.recordRescan()
    XCTAssertEqual(try found("banana"), ["inbox/a.md"])
    try note("inbox/a.md", "cherry")
    XCTAssertEqual(try found("cherry"), [], "only once")
  }

  func testASecondOwnerIsRefusedWhileTheFirstLives() throws {
    let first = try startWatching()
    XCTAssertNil(try ChangeJournal.open(repository: repository))
    XCTAssertNil(try ChangeJournal.open(repository: try openAnother()))
    let owner = try String(contentsOfFile: watchDirectory + "/owner", encoding: .utf8)
    XCTAssertEqual(owner.trimmingCharacters(in: .whitespacesAndNewlines), "\(getpid())", "the owner's pid")
    first.close()
    let second = try XCTUnwrap(try ChangeJournal.open(repository: repository))
    second.close()
  }

  func testANewSessionWalksOnce() throws {
    try note("inbox/a.md", "apple")
    let first = try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    try note("inbox/a.md", "banana")
    first.close()
    let second = try startWatching()
    XCTAssertNotEqual(second.session, first.session)
    XCTAssertEqual(try found("banana"), ["inbox/a.md"], "another session: a walk")
    try note("inbox/a.md", "cherry")
    XCTAssertEqual(try found("cherry"), [], "then the journal again")
    // Past 4 MiB the owner starts a new session by itself.
    let session = second.session
    let padding = String(repeating: "-", count: 100)
    second.record((0..<50_000).map { (path: "nowhere/\($0)\(padding).md", isDirectory: false) })
    XCTAssertNotEqual(second.session, session)
    XCTAssertLessThan(FileSystem.lstatInfo(watchDirectory + "/changes")!.size, 1024)
    XCTAssertEqual(try found("cherry"), ["inbox/a.md"])
    try note("inbox/a.md", "durian")
    XCTAssertEqual(try found("durian"), [])
  }

  /// Random edits, moves and removals of notes, sidecars and directories, each recorded as a watcher would: the
  /// index answers as the disk says, without walking.
  func testRandomRecordedChangesMatchTheDisk() throws {
    let words = ["apple", "banana", "cherry", "durian"]
    let directories = ["", "a", "a/b", "c", "c/d/e"]
    var random = SplitMix64(seed: 7)
    func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    func disk() -> [String: String] {
      var notes: [String: String] = [:]
      let enumerator = FileManager.default.enumerator(atPath: root.path)!
      while let path = enumerator.nextObject() as? String {
        if path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
          enumerator.skipDescendants()
          continue
        }
        guard path.hasSuffix(".md"), let text = try? read(path) else { continue }
        notes[path] = text.split(separator: "\n").last.map(String.init)
      }
      return notes
    }
    func notes() -> [String] { disk().keys.sorted() }
    func folders() -> [String] {
      Set(notes().map { RepoPaths.directory(of: $0) }.filter { !$0.isEmpty }).sorted()
    }
    try note("a/first.md", "apple")
    let journal = try startWatching()
    XCTAssertEqual(try found("apple"), ["a/first.md"])
    for step in 0..<80 {
      switch random.next() % 7 {
      case 0, 1:
        let path = RepoPaths.join(pick(directories), "n\(random.next() % 6).md")
        try note(path, pick(words))
        record(path)
      case 2:
        guard let path = notes().randomElement(using: &random) else { continue }
        try FileManager.default.removeItem(at: url(path))
        record(path)
      case 3:
        guard let path = notes().randomElement(using: &random) else { continue }
        let target = RepoPaths.join(pick(directories), "m\(random.next() % 4).md")
        try FileManager.default.createDirectory(
          at: url(target).deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = Foundation.rename(url(path).path, url(target).path)
        record(path, target)
      case 4:
        guard let path = notes().randomElement(using: &random) else { continue }
        let ink = String(path.dropLast(3)) + RepoPaths.inkSuffix
        if exists(ink) { try FileManager.default.removeItem(at: url(ink)) } else { try write(ink, "{}\n") }
        record(ink)
      case 5:
        let folder = "new\(random.next() % 3)/sub"
        try note(folder + "/x.md", pick(words))
        try note(folder + "/deeper/y.md", pick(words))
        record(String(folder.prefix(4)), directory: true)
      default:
        guard let folder = folders().randomElement(using: &random) else { continue }
        if random.next() % 2 == 0 {
          try FileManager.default.removeItem(at: url(folder))
          record(folder, directory: true)
        } else {
          let target = "moved\(random.next() % 3)"
          guard !exists(target) else { continue }
          try FileManager.default.moveItem(at: url(folder), to: url(target))
          record(folder, target, directory: true)
        }
      }
      let expected = disk()
      for word in words {
        XCTAssertEqual(
          try found(word), expected.filter { $0.value == word }.keys.sorted(), "step \(step): \(word)")
      }
      let inked = expected.keys.filter { exists(String($0.dropLast(3)) + RepoPaths.inkSuffix) }.sorted()
      XCTAssertEqual(try withInk(), inked, "step \(step): ink")
    }
    XCTAssertEqual(journal.session, try watchMeta().cursor?.session, "no other session began")
    try note("unrecorded.md", "elder")
    XCTAssertEqual(try found("elder"), [], "no query walked")
  }

  // MARK: - Doubt

  func testAJournalWithoutALiveOwnerIsIgnored() throws {
    try note("inbox/a.md", "apple")
    let journal = try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    try note("inbox/a.md", "banana")
    XCTAssertEqual(try found("banana"), [])
    // What the kernel does when the owner dies: the lock goes, the files stay.
    answering?.stop()
    journal.abandon()
    XCTAssertTrue(FileSystem.exists(watchDirectory + "/changes"))
    XCTAssertFalse(ChangeJournal.ownerIsLive(watchDirectory + "/owner"))
    XCTAssertEqual(try found("banana"), ["inbox/a.md"])
  }

  /// A real process holding the owner lock (and answering nothing), then killed: the kernel releases the lock.
  func testAnOwnerThatDiesOrDoesNotAnswer() throws {
    let flock = "/usr/bin/flock"
    try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: flock), "needs util-linux flock")
    try note("inbox/a.md", "apple")
    let journal = try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    answering?.stop()
    journal.abandon()
    let holder = Process()
    // One process holding the lock (`flock FILE sleep` would leave a forked sleep holding it after the kill).
    holder.executableURL = URL(fileURLWithPath: "/bin/sh")
    holder.arguments = ["-c", "exec 9>>\"$0\" && \(flock) 9 && exec sleep 60", watchDirectory + "/owner"]
    try holder.run()
    defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
    let deadline = Date().addingTimeInterval(10)
    while !ChangeJournal.ownerIsLive(watchDirectory + "/owner"), Date() < deadline { usleep(10_000) }
    XCTAssertTrue(ChangeJournal.ownerIsLive(watchDirectory + "/owner"))
    // A live owner that does not answer: the query waits for it, then walks.
    try note("inbox/a.md", "banana")
    XCTAssertEqual(try found("banana"), ["inbox/a.md"])
    let unanswered = try XCTUnwrap(try watchMeta().unanswered)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: watchDirectory + "/requests"), [unanswered])
    // The next queries walk without asking again.
    try note("inbox/a.md", "cherry")
    XCTAssertEqual(try found("cherry"), ["inbox/a.md"])
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: watchDirectory + "/requests"), [unanswered])
    kill(holder.processIdentifier, SIGKILL)
    holder.waitUntilExit()
    XCTAssertFalse(ChangeJournal.ownerIsLive(watchDirectory + "/owner"))
    try note("inbox/a.md", "durian")
    XCTAssertEqual(try found("durian"), ["inbox/a.md"])
  }

  /// A watcher slow to answer one request is asked again once its answer shows up.
  func testALateAnswerBringsTheJournalBack() throws {
    try note("inbox/a.md", "apple")
    let journal = try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    answering?.stop()
    try note("inbox/a.md", "banana")
    XCTAssertEqual(try found("banana"), ["inbox/a.md"], "unanswered: a walk")
    let unanswered = try XCTUnwrap(try watchMeta().unanswered)
    try answer(journal)
    let deadline = Date().addingTimeInterval(10)
    while FileSystem.exists(journal.requestDirectory + "/" + unanswered), Date() < deadline { usleep(1_000) }
    try note("inbox/a.md", "cherry")
    XCTAssertEqual(try found("cherry"), [], "the journal again")
    XCTAssertNil(try watchMeta().unanswered)
  }

  func testADeletedJournalMeansAWalk() throws {
    try note("inbox/a.md", "apple")
    let journal = try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    let session = journal.session
    // Only the journal file deleted: a walk, then a new session on the next record.
    try FileManager.default.removeItem(atPath: watchDirectory + "/changes")
    try note("inbox/a.md", "elder")
    XCTAssertEqual(try found("elder"), ["inbox/a.md"])
    record("inbox/other.md")
    XCTAssertNotEqual(journal.session, session)
    try note("inbox/a.md", "fig")
    XCTAssertEqual(try found("fig"), ["inbox/a.md"], "a new session: a walk")
    try note("inbox/a.md", "grape")
    XCTAssertEqual(try found("grape"), [], "the journal is in use again: an unrecorded edit is not seen")
    // The whole directory deleted: the watcher stops recording rather than make it again (someone may be deleting
    // the repository), and every query walks.
    try FileManager.default.removeItem(atPath: watchDirectory)
    journal.record([(path: "inbox/a.md", isDirectory: false)])
    XCTAssertFalse(FileManager.default.fileExists(atPath: watchDirectory))
    XCTAssertFalse(ChangeJournal.ownerIsLive(watchDirectory + "/owner"))
    try note("inbox/a.md", "banana")
    XCTAssertEqual(try found("banana"), ["inbox/a.md"])
    try note("inbox/a.md", "cherry")
    XCTAssertEqual(try found("cherry"), ["inbox/a.md"])
  }

  func testACorruptJournalMeansAWalk() throws {
    try note("inbox/a.md", "apple")
    try startWatching()
    XCTAssertEqual(try found("apple"), ["inbox/a.md"])
    let handle = try XCTUnwrap(FileHandle(forWritingAtPath: watchDirectory + "/changes"))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("x what is this\n".utf8))
    try handle.close()
    try note("inbox/a.md", "banana")
    XCTAssertEqual(try found("banana"), ["inbox/a.md"])
    try note("inbox/a.md", "cherry")
    XCTAssertEqual(try found("cherry"), [], "past the bad line, the journal again")
    // A header of another version.
    try Data("nb-watch 99 0123456789abcdef0123456789abcdef\n".utf8).write(
      to: URL(fileURLWithPath: watchDirectory + "/changes"))
    XCTAssertEqual(try found("cherry"), ["inbox/a.md"])
  }

  // MARK: - The file

  func testRecordsAreReadUpToTheLastCompleteLine() throws {
    let path = temp.file("changes").path
    let header = "nb-watch 1 0123456789abcdef0123456789abcdef\n"
    try Data((header + "f a.md\nd x/100%25%0Ay\nrescan\nack 1-2\nf b.m").utf8).write(to: URL(fileURLWithPath: path))
    let file = try XCTUnwrap(ChangeJournal.JournalFile(path: path))
    defer { close(file.fd) }
    XCTAssertEqual(file.session, "0123456789abcdef0123456789abcdef")
    XCTAssertEqual(file.headerLength, header.utf8.count)
    let read = try XCTUnwrap(file.records(from: header.utf8.count))
    XCTAssertEqual(read.records, [.file("a.md"), .directory("x/100%\ny"), .rescan, .ack("1-2")])
    let complete = header.utf8.count + "f a.md\nd x/100%25%0Ay\nrescan\nack 1-2\n".utf8.count
    XCTAssertEqual(read.end, complete, "the half-written line is not taken")
    XCTAssertEqual(file.completeEnd(), complete)
    XCTAssertEqual(file.records(from: complete)?.records, [])
    XCTAssertNil(file.records(from: header.utf8.count + 2), "not the start of a line")
    XCTAssertNil(file.records(from: complete + 100), "past the end")
    for bad in ["f /abs", "f a//b", "f ../up", "d ", "f a%41", "f a%2", "ack ", "g a.md"] {
      XCTAssertNil(ChangeJournal.parse(ArraySlice(bad.utf8)), bad)
    }
    XCTAssertEqual(ChangeJournal.escape("a%b\r\nc"), "a%25b%0D%0Ac")
  }
}

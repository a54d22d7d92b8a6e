import Foundation
import NBTestSupport
import NoteStore
import NoteWatch
import XCTest

/// The listen-only change feed: real files changed by the library and by hand, on both backends.
final class RepositoryFeedTests: XCTestCase {
  private var temp: TemporaryDirectory!
  private var root: URL!
  private var feed: RepositoryFeed?

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "nb-feed-test")
    root = temp.file("notes")
    _ = try NoteRepository.initialize(at: root)
  }

  override func tearDown() {
    feed?.stop()
    feed = nil
    temp = nil
  }

  private final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var changes: [RepositoryFeed.Change] = []
    func add(_ change: RepositoryFeed.Change) { lock.withLock { changes.append(change) } }
    var all: [RepositoryFeed.Change] { lock.withLock { changes } }

    /// Polls until a change satisfies `condition` or `seconds` pass.
    func wait(_ seconds: TimeInterval, until condition: ([RepositoryFeed.Change]) -> Bool) -> Bool {
      let deadline = Date().addingTimeInterval(seconds)
      while Date() < deadline {
        if condition(all) { return true }
        usleep(10_000)
      }
      return condition(all)
    }
  }

  private func start(_ backend: RepositoryWatcher.Backend) throws -> Recorder {
    let feed = try RepositoryFeed(root: root, latency: 0.05, backend: backend, pollInterval: 0.1)
    let recorder = Recorder()
    feed.start { recorder.add($0) }
    self.feed = feed
    return recorder
  }

  func testANoteSavedByTheLibraryIsReportedWithoutAnyCommitOfItsOwn() throws {
    for backend in [RepositoryWatcher.Backend.inotify, .polling] {
      let recorder = try start(backend)
      let notes = try NoteRepository.open(at: root)
      let commits = try notes.history(of: try notes.createNote(NoteDraft(title: "Seed \(backend)", content: "x")))
      XCTAssertEqual(commits.count, 1)
      let note = try notes.createNote(NoteDraft(title: "Roadmap \(backend)", notebook: "work", content: "plan"))
      XCTAssertTrue(
        recorder.wait(5) { $0.contains { $0.paths.contains(note.path) } }, "\(backend): \(recorder.all)")
      XCTAssertFalse(recorder.all.contains { $0.everything }, "\(backend)")
      // Listening commits nothing: HEAD is the library's commit.
      XCTAssertEqual(try notes.history(of: note).count, 1)
      feed?.stop()
    }
  }

  /// With `journalFor`, the feed keeps the change journal as `nb watch` does: a query (here in another repository
  /// handle, as another process's would be) finds an edit made just before it without a walk, the journal holds
  /// the edit and the answer to the query's request, and stopping gives the journal up for the next owner.
  func testAFeedKeepingTheJournalLetsQueriesSkipTheWalk() throws {
    let notes = try NoteRepository.open(at: root)
    let feed = try RepositoryFeed(root: root, latency: 0.05, backend: .inotify, journalFor: notes)
    let recorder = Recorder()
    feed.start { recorder.add($0) }
    self.feed = feed
    XCTAssertTrue(feed.keepsJournal)
    let reader = try NoteRepository.open(at: root)
    XCTAssertEqual(try reader.count(matching: NoteQuery("zebracorn")), 0)  // the session's one walk
    for i in 0..<3 {
      let path = root.appendingPathComponent("inbox/new-\(i).md")
      try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data("---\ntitle: New \(i)\n---\nzebracorn \(i)\n".utf8).write(to: path)
      XCTAssertEqual(try reader.count(matching: NoteQuery("zebracorn")), i + 1)
    }
    let changesPath = root.appendingPathComponent(".git/nb/watch/changes")
    let journal = try String(contentsOf: changesPath, encoding: .utf8)
    XCTAssertTrue(journal.contains("f inbox/new-2.md\n"), journal)
    XCTAssertTrue(journal.contains("\nack "), "the query asked the feed to catch up: \(journal)")
    // The requests are bookkeeping: never reported as a change.
    XCTAssertTrue(recorder.wait(5) { $0.contains { $0.paths.contains("inbox/new-2.md") } }, "\(recorder.all)")
    XCTAssertFalse(recorder.all.contains { $0.paths.contains { $0.hasPrefix(".git") } }, "\(recorder.all)")
    // A second keeper is refused while this one runs, and takes over once it stops.
    let second = try RepositoryFeed(root: root, latency: 0.05, backend: .inotify, journalFor: notes)
    XCTAssertFalse(second.keepsJournal)
    second.stop()
    feed.stop()
    XCTAssertFalse(FileManager.default.fileExists(atPath: changesPath.path), "stopping ends the session")
    let third = try RepositoryFeed(root: root, latency: 0.05, backend: .inotify, journalFor: notes)
    XCTAssertTrue(third.keepsJournal)
    third.stop()
    // Without journalFor, nothing is kept.
    let plain = try RepositoryFeed(root: root, latency: 0.05, backend: .inotify)
    XCTAssertFalse(plain.keepsJournal)
    plain.stop()
  }

  func testScratchFilesAndGitAreNotReported() throws {
    let recorder = try start(.inotify)
    // Written first, so that any report of them would come before the note's.
    try Data("x".utf8).write(to: root.appendingPathComponent(".roadmap.md.swp"))
    try Data("x".utf8).write(to: root.appendingPathComponent("4913"))
    try Data("x".utf8).write(to: root.appendingPathComponent(".git/nb-test-file"))
    try Data("x".utf8).write(to: root.appendingPathComponent("note.md"))
    XCTAssertTrue(recorder.wait(5) { $0.contains { $0.paths.contains("note.md") } }, "\(recorder.all)")
    XCTAssertEqual(recorder.all.flatMap(\.paths), ["note.md"])
  }

  func testABurstIsOneChangeAndNothingComesAfterStop() throws {
    let feed = try RepositoryFeed(root: root, latency: 0.3, backend: .inotify)
    let recorder = Recorder()
    feed.start { recorder.add($0) }
    self.feed = feed
    for name in ["a.md", "b.md", "c.md"] {
      try Data("x".utf8).write(to: root.appendingPathComponent(name))
    }
    XCTAssertTrue(recorder.wait(5) { !$0.isEmpty })
    XCTAssertEqual(recorder.all.first?.paths, ["a.md", "b.md", "c.md"], "\(recorder.all)")
    feed.stop()
    let count = recorder.all.count
    try Data("y".utf8).write(to: root.appendingPathComponent("d.md"))
    // A second feed sees the next write; by then the stopped one would have reported it too.
    let second = try start(.inotify)
    try Data("z".utf8).write(to: root.appendingPathComponent("e.md"))
    XCTAssertTrue(second.wait(5) { $0.contains { $0.paths.contains("e.md") } })
    XCTAssertEqual(recorder.all.count, count)
  }

  func testTheHandlerMayStopTheFeedAndDropTheLastReferenceToIt() throws {
    final class Owner: @unchecked Sendable {
      var feed: RepositoryFeed?
      let stopped = DispatchSemaphore(value: 0)
    }
    let owner = Owner()
    let feed = try RepositoryFeed(root: root, latency: 0.01, backend: .inotify)
    owner.feed = feed
    feed.start { [owner] _ in
      // As an app's view going away on the first change would: stop, and let go of the feed, here.
      owner.feed?.stop()
      owner.feed = nil
      owner.stopped.signal()
    }
    try Data("x".utf8).write(to: root.appendingPathComponent("a.md"))
    XCTAssertEqual(owner.stopped.wait(timeout: .now() + 5), .success, "the handler ran and returned")
    XCTAssertNil(owner.feed)
  }

  func testAMissingRootIsAnError() {
    XCTAssertThrowsError(try RepositoryFeed(root: root.appendingPathComponent("nowhere"))) { error in
      XCTAssertTrue("\(error)".contains("nowhere"), "\(error)")
    }
  }
}

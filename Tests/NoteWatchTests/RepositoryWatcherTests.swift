import Foundation
import GitKit
import NBTestSupport
import NoteStore
import NoteWatch
import XCTest

/// The library's change stream: an app's view of a watcher, in process, on real repositories, with the git CLI as
/// the oracle of what was committed.
final class RepositoryWatcherTests: XCTestCase {
  var temp: TemporaryDirectory!
  var root: URL!
  var git: GitCLI!
  var watcher: RepositoryWatcher?

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "nb-watch-test")
    let home = try temp.directory("home")
    root = temp.file("notes")
    git = try GitCLI(workTree: root, home: home)
    let empty = try temp.directory("empty-config")
    try LibGit2.setConfigSearchPath(home.path, for: .global)
    try LibGit2.setConfigSearchPath(empty.path, for: .xdg)
    try LibGit2.setConfigSearchPath(empty.path, for: .system)
    _ = try NoteRepository.initialize(at: root)
  }

  override func tearDownWithError() throws {
    if let watcher {
      watcher.stop()
      watcher.waitUntilStopped()
    }
    for level in [LibGit2.ConfigLevel.global, .xdg, .system] {
      try LibGit2.setConfigSearchPath(nil, for: level)
    }
    temp = nil
  }

  // MARK: - Helpers

  final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var changes: [RepositoryChange] = []
    func add(_ change: RepositoryChange) { lock.withLock { changes.append(change) } }
    var all: [RepositoryChange] { lock.withLock { changes } }
    var saved: [SavedChanges] { all.compactMap { if case .saved(let s) = $0 { s } else { nil } } }
    var notices: [WatchNotice] { all.compactMap { if case .notice(let n) = $0 { n } else { nil } } }
    var synced: [SyncedChanges] { all.compactMap { if case .synced(let s) = $0 { s } else { nil } } }
  }

  /// Starts a watcher whose changes go to a recorder (through the public stream, as an app would read them).
  func startWatcher(debounce: TimeInterval = 0.2, sync: Bool = false, root: URL? = nil) throws -> Recorder {
    var settings = WatchSettings()
    settings.debounce = debounce
    settings.sync = sync
    settings.interval = 0.5
    let watcher = RepositoryWatcher(root: root ?? self.root, settings: settings)
    let recorder = Recorder()
    let stream = watcher.changes
    let consumed = expectation(description: "stream consumed")
    Task.detached {
      for await change in stream { recorder.add(change) }
      consumed.fulfill()
    }
    addTeardownBlock { [weak self] in
      watcher.stop()
      await self?.fulfillment(of: [consumed], timeout: 20)
    }
    watcher.start()
    self.watcher = watcher
    try wait("started") { recorder.all.contains { if case .started = $0 { true } else { false } } }
    return recorder
  }

  func wait(_ what: String, timeout: TimeInterval = 15, until condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if try condition() { return }
      Thread.sleep(forTimeInterval: 0.02)
    }
    throw TimedOut(what: what)
  }

  struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
  }

  func write(_ relative: String, _ text: String) throws {
    let url = root.appendingPathComponent(relative)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  func commitCount() throws -> Int { Int(try git.run("rev-list", "--count", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines))! }

  // MARK: - Tests

  func testANewNoteIsCommittedAndReportedAsAdded() throws {
    let recorder = try startWatcher()
    try write("inbox/idea.md", "---\ntitle: Idea\n---\nan idea\n")
    try wait("a save") { !recorder.saved.isEmpty }
    let saved = recorder.saved[0]
    XCTAssertEqual(saved.added, ["inbox/idea.md"])
    XCTAssertEqual(saved.changed, [])
    XCTAssertEqual(saved.commit, try git.run("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines))
    let committed = try git.run("show", "HEAD:inbox/idea.md")
    XCTAssertTrue(committed.contains("an idea"))
    XCTAssertTrue(committed.contains("\nid: "), committed)
    XCTAssertEqual(try git.run("status", "--porcelain"), "")
  }

  func testTheStampDoesNotTriggerAnotherCommit() throws {
    let recorder = try startWatcher()
    let before = try commitCount()
    try write("inbox/a.md", "---\ntitle: A\n---\nbody\n")
    try wait("a save") { recorder.saved.count == 1 }
    // Several debounce periods: the stamp's own write must not come back as an edit.
    Thread.sleep(forTimeInterval: 1.2)
    XCTAssertEqual(recorder.saved.count, 1)
    XCTAssertEqual(try commitCount(), before + 1)
  }

  func testChangesAndRemovalsAndMovesAreReportedAsSuch() throws {
    let recorder = try startWatcher()
    try write("inbox/a.md", "---\ntitle: A\n---\nbody\n")
    try write("inbox/b.md", "---\ntitle: B\n---\nbody\n")
    try wait("first save") { recorder.saved.count == 1 }
    Thread.sleep(forTimeInterval: 0.3)
    try write("inbox/a.md", try String(contentsOf: root.appendingPathComponent("inbox/a.md"), encoding: .utf8) + "more\n")
    try FileManager.default.removeItem(at: root.appendingPathComponent("inbox/b.md"))
    try wait("second save") { recorder.saved.count == 2 }
    XCTAssertEqual(recorder.saved[1].changed, ["inbox/a.md"])
    XCTAssertEqual(recorder.saved[1].removed, ["inbox/b.md"])
    try FileManager.default.createDirectory(at: root.appendingPathComponent("archive"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(
      at: root.appendingPathComponent("inbox/a.md"), to: root.appendingPathComponent("archive/a.md"))
    try wait("third save") { recorder.saved.count == 3 }
    XCTAssertEqual(recorder.saved[2].moved.map { [$0.from, $0.to] }, [["inbox/a.md", "archive/a.md"]])
  }

  func testAnUnreadableNoteIsReportedOncePerVersionAndNotCommitted() throws {
    let recorder = try startWatcher()
    try write("inbox/bad.md", "---\ntitle: [broken\n---\n")
    try write("inbox/good.md", "---\ntitle: Good\n---\n")
    try wait("the good note saved") { recorder.saved.count == 1 }
    XCTAssertEqual(recorder.saved[0].added, ["inbox/good.md"])
    let unreadable = recorder.notices.filter { $0.kind == .unreadable }
    XCTAssertEqual(unreadable.count, 1)
    XCTAssertEqual(unreadable.first?.path, "inbox/bad.md")
    XCTAssertTrue(unreadable.first?.message.contains("inbox/bad.md:") == true, unreadable.first?.message ?? "")
    // Another edit elsewhere saves again, but the same broken file is not reported again.
    try write("inbox/other.md", "---\ntitle: Other\n---\n")
    try wait("the other note saved") { recorder.saved.count == 2 }
    XCTAssertEqual(recorder.notices.filter { $0.kind == .unreadable }.count, 1)
    // A new broken version is.
    try write("inbox/bad.md", "---\ntitle: [still broken\n---\n")
    try wait("a second notice") { recorder.notices.filter { $0.kind == .unreadable }.count == 2 }
    XCTAssertEqual(try git.run("status", "--porcelain"), "?? inbox/bad.md\n")
    // Fixed: committed.
    try write("inbox/bad.md", "---\ntitle: fixed\n---\n")
    try wait("the fixed note saved") { recorder.saved.contains { $0.added == ["inbox/bad.md"] } }
  }

  func testStopCommitsWhatIsPendingAndEndsTheStream() throws {
    let recorder = try startWatcher(debounce: 30)
    try write("inbox/pending.md", "---\ntitle: Pending\n---\n")
    Thread.sleep(forTimeInterval: 0.3)
    XCTAssertTrue(recorder.saved.isEmpty)
    watcher?.stop()
    watcher?.waitUntilStopped()
    watcher = nil
    try wait("stopped") { recorder.all.last == .stopped }
    XCTAssertEqual(recorder.saved.map(\.added), [["inbox/pending.md"]])
    XCTAssertTrue(try git.run("show", "HEAD:inbox/pending.md").contains("Pending"))
  }

  func testEditsMadeBeforeStartingArePickedUp() throws {
    try write("inbox/before.md", "---\ntitle: Before\n---\n")
    let recorder = try startWatcher()
    try wait("a save") { !recorder.saved.isEmpty }
    XCTAssertEqual(recorder.saved[0].added, ["inbox/before.md"])
  }

  func testAMergeInProgressPausesSavingUntilItIsDone() throws {
    let recorder = try startWatcher()
    let head = try git.run("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
    let mergeHead = root.appendingPathComponent(".git/MERGE_HEAD")
    try Data("\(head)\n".utf8).write(to: mergeHead)
    try write("inbox/during.md", "---\ntitle: During\n---\n")
    try wait("paused") { recorder.notices.contains { $0.kind == .paused } }
    XCTAssertTrue(recorder.saved.isEmpty)
    try FileManager.default.removeItem(at: mergeHead)
    try wait("resumed and saved") { !recorder.saved.isEmpty }
    XCTAssertTrue(recorder.notices.contains { $0.kind == .resumed })
    XCTAssertEqual(recorder.notices.filter { $0.kind == .paused }.count, 1)
  }

  func testScratchAndIgnoredFilesAreNeverCommitted() throws {
    let recorder = try startWatcher()
    try write(".gitignore", try String(contentsOf: root.appendingPathComponent(".gitignore"), encoding: .utf8) + "private/\n")
    try write("inbox/4913", "")
    try write("inbox/note.md___jb_tmp___", "x")
    try write("private/secret.md", "---\ntitle: secret\n---\n")
    try write("inbox/real.md", "---\ntitle: Real\n---\n")
    try wait("a save") { recorder.saved.contains { $0.added.contains("inbox/real.md") } }
    let tracked = try git.run("ls-files")
    XCTAssertFalse(tracked.contains("4913"), tracked)
    XCTAssertFalse(tracked.contains("jb_tmp"), tracked)
    XCTAssertFalse(tracked.contains("secret"), tracked)
  }

  func testSyncPushesEachCommitAndReportsIt() throws {
    let bare = temp.file("remote.git")
    _ = try GitCLI(workTree: try temp.directory("unused"), home: git.home).run("init", "--bare", "-q", bare.path)
    try git.run("remote", "add", "origin", bare.path)
    let recorder = try startWatcher(sync: true)
    try write("inbox/synced.md", "---\ntitle: Synced\n---\n")
    try wait("pushed") {
      recorder.synced.contains { $0.summary.sent > 0 || $0.summary.outcome == .published }
        && (try? GitCLI(workTree: bare, home: git.home).run("--git-dir", bare.path, "show", "main:inbox/synced.md"))?
          .contains("Synced") == true
    }
  }

  /// While the watcher runs, a query checks only the paths it recorded, after asking it to catch up: an edit made
  /// just before the query (not committed yet) is found, and the journal holds it.
  func testQueriesSeeEditsTheWatcherRecorded() throws {
    let recorder = try startWatcher(debounce: 30)
    let repository = try NoteRepository.open(at: root)
    XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), 0)  // the session's one walk
    for i in 0..<5 {
      try write("inbox/new-\(i).md", "---\ntitle: New \(i)\n---\nzebracorn \(i)\n")
      XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), i + 1)
    }
    try write("fresh/deep/n.md", "---\ntitle: Deep\n---\nzebracorn deep\n")
    XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), 6)
    XCTAssertTrue(recorder.saved.isEmpty, "nothing committed yet: the index saw the files through the journal")
    let journal = try String(contentsOf: root.appendingPathComponent(".git/nb/watch/changes"), encoding: .utf8)
    XCTAssertTrue(journal.contains("f inbox/new-4.md\n"), journal)
    XCTAssertTrue(journal.contains("\nack "), journal)
  }

  func testTheRepositoryGoingAwayStopsTheWatcher() throws {
    let recorder = try startWatcher()
    try FileManager.default.moveItem(at: root, to: temp.file("moved-away"))
    try wait("stopped") { recorder.all.last == .stopped }
    XCTAssertTrue(
      recorder.notices.contains { $0.kind == .failed && $0.message.contains("deleted or moved away") },
      "\(recorder.notices)")
  }
}

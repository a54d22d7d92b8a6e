import FileWatch
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The scenarios both backends must get right, with real files. Each waits for what it expects with a deadline;
/// absence is checked by writing a sentinel afterwards and waiting for it (both backends report in order).
final class DirectoryWatcherTests: FileWatchTestCase {
  // MARK: Writing

  private func writeInPlace(_ backend: DirectoryWatchOptions.Backend) throws {
    try directory.write("notes/n.md", "one\n")
    let (watcher, recorder) = try watch(backend)
    XCTAssertEqual(watcher.backend, backend)
    XCTAssertNil(watcher.notice)
    try writeInPlace("notes/n.md", "two, longer\n")
    XCTAssertTrue(recorder.waitForEvent("notes/n.md", .modified), "\(recorder.batches)")
    try write("notes/new.md", "new\n")
    XCTAssertTrue(recorder.waitForEvent("notes/new.md", .created), "\(recorder.batches)")
    XCTAssertFalse(recorder.events.contains { $0.path.isEmpty || $0.path.hasPrefix("/") || $0.path.hasPrefix("./") })
  }

  func testWriteInPlaceInotify() throws { try writeInPlace(.inotify) }
  func testWriteInPlacePolling() throws { try writeInPlace(.polling) }

  func testAtomicSaveArrivesAsARenameOntoTheNoteInotify() throws {
    try directory.write("notes/n.md", "one\n")
    let (_, recorder) = try watch(.inotify)
    try atomicWrite("notes/n.md", "two\n")
    XCTAssertTrue(recorder.waitForEvent("notes/n.md", .renamedTo), "\(recorder.batches)")
    XCTAssertTrue(recorder.events.contains(FileEvent(path: "notes/n.md.tmp~", kind: .created, isDirectory: false)))
  }

  /// Polling cannot see the rename, only that the note's inode changed.
  func testAtomicSavePolling() throws {
    try directory.write("notes/n.md", "one\n")
    let (_, recorder) = try watch(.polling)
    try atomicWrite("notes/n.md", "two\n")
    XCTAssertTrue(recorder.waitForEvent("notes/n.md", .modified), "\(recorder.batches)")
  }

  private func delete(_ backend: DirectoryWatchOptions.Backend) throws {
    try directory.write("notes/n.md", "one\n")
    let (_, recorder) = try watch(backend)
    try FileManager.default.removeItem(atPath: path("notes/n.md"))
    XCTAssertTrue(recorder.waitForEvent("notes/n.md", .removed), "\(recorder.batches)")
  }

  func testDeleteInotify() throws { try delete(.inotify) }
  func testDeletePolling() throws { try delete(.polling) }

  // MARK: Directories appearing and moving

  /// `mkdir -p a/b && write a/b/n.md` at once: the file lands before the watcher could watch `a/b`, and must still
  /// be reported. Several times over, since it is a race.
  private func newDirectoryWithFiles(_ backend: DirectoryWatchOptions.Backend) throws {
    let (watcher, recorder) = try watch(backend)
    for i in 0..<5 {
      try mkdir("a\(i)/b")
      try write("a\(i)/b/n.md", "note\n")
      try write("a\(i)/top.md", "top\n")
    }
    for i in 0..<5 {
      XCTAssertTrue(recorder.waitForEvent("a\(i)/b/n.md", .created, .modified), "a\(i): \(recorder.batches)")
      XCTAssertTrue(recorder.waitForEvent("a\(i)/top.md", .created, .modified), "a\(i): \(recorder.batches)")
    }
    XCTAssertTrue(recorder.events.contains(FileEvent(path: "a0", kind: .created, isDirectory: true)))
    // The new directories are watched: a later write in one is reported too.
    XCTAssertTrue(recorder.wait { _ in watcher.watchedDirectories == 11 }, "\(watcher.watchedDirectories)")
    try writeInPlace("a3/b/n.md", "edited\n")
    XCTAssertTrue(recorder.waitForEvent { $0.path == "a3/b/n.md" && $0.kind == .modified }, "\(recorder.batches)")
  }

  func testNewDirectoryWithFilesInotify() throws { try newDirectoryWithFiles(.inotify) }
  func testNewDirectoryWithFilesPolling() throws { try newDirectoryWithFiles(.polling) }

  /// A notebook renamed, then a note written in it under its new name: reported with the new path, and the
  /// directories under it too.
  private func directoryRenamed(_ backend: DirectoryWatchOptions.Backend) throws {
    try directory.write("nb1/sub/old.md", "old\n")
    let (watcher, recorder) = try watch(backend)
    XCTAssertEqual(watcher.watchedDirectories, 3)
    try rename(relative: "nb1", to: "nb2")
    try write("nb2/sub/x.md", "x\n")
    XCTAssertTrue(recorder.waitForEvent("nb2/sub/x.md", .created, .modified), "\(recorder.batches)")
    try writeInPlace("nb2/sub/old.md", "edited\n")
    XCTAssertTrue(recorder.waitForEvent("nb2/sub/old.md", .modified), "\(recorder.batches)")
    XCTAssertFalse(recorder.events.contains { $0.path == "nb1/sub/x.md" }, "\(recorder.batches)")
    XCTAssertEqual(watcher.watchedDirectories, 3)
    if backend == .inotify {
      XCTAssertTrue(recorder.events.contains(FileEvent(path: "nb1", kind: .renamedFrom, isDirectory: true)))
      XCTAssertTrue(recorder.events.contains(FileEvent(path: "nb2", kind: .renamedTo, isDirectory: true)))
    }
    // Renamed again, deeper, right after being created.
    try mkdir("c")
    try rename(relative: "c", to: "nb2/sub/d")
    try write("nb2/sub/d/n.md", "n\n")
    XCTAssertTrue(recorder.waitForEvent("nb2/sub/d/n.md", .created, .modified), "\(recorder.batches)")
    try writeInPlace("nb2/sub/d/n.md", "edited\n")
    XCTAssertTrue(
      recorder.wait { _ in recorder.events.filter { $0.path == "nb2/sub/d/n.md" }.count >= 2 }, "\(recorder.batches)")
  }

  func testDirectoryRenamedInotify() throws { try directoryRenamed(.inotify) }
  func testDirectoryRenamedPolling() throws { try directoryRenamed(.polling) }

  // MARK: Ignoring

  private func ignored(_ backend: DirectoryWatchOptions.Backend) throws {
    try mkdir(".git/objects")
    try directory.write("notes/n.md", "n\n")
    let (watcher, recorder) = try watch(backend) { path, isDirectory in
      path == ".git" || path.hasPrefix(".git/") || (!isDirectory && path.hasSuffix(".swp"))
    }
    XCTAssertEqual(watcher.watchedDirectories, 2)  // the root and notes, not .git
    try write(".git/index", "index\n")
    try mkdir(".git/objects/ab")
    try write(".git/objects/ab/cdef", "object\n")
    try rename(relative: ".git/index", to: ".git/index2")
    try write("notes/.n.md.swp", "swap\n")
    try write("sentinel.md", "s\n")
    XCTAssertTrue(recorder.waitForEvent("sentinel.md", .created, .modified), "\(recorder.batches)")
    XCTAssertEqual(
      recorder.events.filter { $0.path.hasPrefix(".git") || $0.path.hasSuffix(".swp") }, [], "\(recorder.batches)")
  }

  /// nb's change journal: one directory inside an ignored one, watched alone; a file made there is reported after
  /// the edits made before it.
  private func alsoWatched(_ backend: DirectoryWatchOptions.Backend) throws {
    try mkdir(".git/nb/requests")
    try mkdir(".git/nb/other")
    try mkdir("notes")
    try write(".git/nb/other/x", "x\n")
    let (_, recorder) = try watch(backend, alsoWatch: [".git/nb/requests"]) { path, _ in
      path == ".git" || path.hasPrefix(".git/")
    }
    try write("notes/edit.md", "e\n")
    try write(".git/nb/requests/q1", "")
    try write(".git/nb/other/y", "y\n")
    XCTAssertTrue(recorder.waitForEvent(".git/nb/requests/q1", .created), "\(recorder.batches)")
    let paths = recorder.events.map(\.path)
    let edit = try XCTUnwrap(paths.firstIndex(of: "notes/edit.md"), "\(paths)")
    XCTAssertLessThan(edit, try XCTUnwrap(paths.firstIndex(of: ".git/nb/requests/q1")))
    XCTAssertFalse(paths.contains { $0.hasPrefix(".git/nb/other") }, "\(paths)")
  }

  func testAlsoWatchedDirectoryInotify() throws { try alsoWatched(.inotify) }
  func testAlsoWatchedDirectoryPolling() throws { try alsoWatched(.polling) }

  /// Removed, it is reported; made again, it is watched again.
  func testAlsoWatchedDirectoryRemovedAndMadeAgainInotify() throws {
    try mkdir(".git/nb/requests")
    try mkdir("notes")
    let (_, recorder) = try watch(.inotify, alsoWatch: [".git/nb/requests"]) { path, _ in path.hasPrefix(".git") }
    try FileManager.default.removeItem(atPath: path(".git/nb/requests"))
    XCTAssertTrue(recorder.waitForEvent(".git/nb/requests", .removed), "\(recorder.batches)")
    try mkdir(".git/nb/requests")
    // Checked before each wait: any event brings the watcher round.
    try write("notes/nudge.md", "n\n")
    XCTAssertTrue(recorder.waitForEvent("notes/nudge.md", .created, .modified))
    try write(".git/nb/requests/q2", "")
    XCTAssertTrue(recorder.waitForEvent(".git/nb/requests/q2", .created), "\(recorder.batches)")
  }

  func testIgnoredDirectoryProducesNothingInotify() throws { try ignored(.inotify) }
  func testIgnoredDirectoryProducesNothingPolling() throws { try ignored(.polling) }

  // MARK: The root going away, stopping

  private func rootRemoved(_ backend: DirectoryWatchOptions.Backend) throws {
    try directory.write("notes/n.md", "n\n")
    let (watcher, recorder) = try watch(backend)
    try FileManager.default.removeItem(at: root)
    XCTAssertTrue(recorder.wait { $0.last == .rootGone }, "\(recorder.batches)")
    XCTAssertEqual(recorder.batches.filter { $0 == .rootGone }.count, 1)
    watcher.stop()  // the thread is already gone: returns at once
  }

  func testRootRemovedInotify() throws { try rootRemoved(.inotify) }
  func testRootRemovedPolling() throws { try rootRemoved(.polling) }

  private func rootMovedAway(_ backend: DirectoryWatchOptions.Backend) throws {
    let (_, recorder) = try watch(backend)
    let away = root.deletingLastPathComponent().appendingPathComponent(root.lastPathComponent + "-away")
    try FileManager.default.moveItem(at: root, to: away)
    defer { try? FileManager.default.removeItem(at: away) }
    XCTAssertTrue(recorder.wait { $0.last == .rootGone }, "\(recorder.batches)")
  }

  func testRootMovedAwayInotify() throws { try rootMovedAway(.inotify) }
  func testRootMovedAwayPolling() throws { try rootMovedAway(.polling) }

  private func stopIsClean(_ backend: DirectoryWatchOptions.Backend) throws {
    let before = openDescriptorCount()
    let (watcher, recorder) = try watch(backend)
    try write("first.md", "1\n")
    XCTAssertTrue(recorder.waitForEvent("first.md", .created), "\(recorder.batches)")
    let started = Date()
    watcher.stop()
    watcher.stop()  // idempotent
    XCTAssertLessThan(Date().timeIntervalSince(started), 1, "stop waits for the thread, which must wake at once")
    XCTAssertEqual(openDescriptorCount(), before, "the watcher's descriptors are closed")
    let delivered = recorder.batches.count
    try write("after.md", "2\n")
    usleep(200_000)  // nothing to wait for: proving an absence takes a little time
    XCTAssertEqual(recorder.batches.count, delivered)
    watcher.start { recorder.append($0) }  // a stopped watcher stays stopped
    usleep(100_000)
    XCTAssertEqual(recorder.batches.count, delivered)
  }

  func testStopIsCleanInotify() throws { try stopIsClean(.inotify) }
  func testStopIsCleanPolling() throws { try stopIsClean(.polling) }

  /// stop() wakes the thread out of its wait: it does not sit out the polling period.
  func testStopDoesNotWaitForThePollingPeriod() throws {
    let watcher = try DirectoryWatcher(root: root, options: .init(backend: .polling, pollInterval: 60))
    watcher.start { _ in }
    usleep(20_000)
    let started = Date()
    watcher.stop()
    XCTAssertLessThan(Date().timeIntervalSince(started), 1)
  }
}

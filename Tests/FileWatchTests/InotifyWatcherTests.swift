import FileWatch
import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What only the inotify backend has: its limits, its queue, directories crossing the tree's edge, and the
/// watcher's own life cycle.
#if os(Linux)
  final class InotifyWatcherTests: FileWatchTestCase {
    // MARK: Limits

    /// A tree of 10 directories under a limit of 3 watches: the watcher polls the whole tree instead, says why and
    /// what to do, and still reports edits.
    func testWatchLimitFallsBackToPolling() throws {
      for i in 0..<9 { try directory.write("nb\(i)/n.md", "n\n") }
      let (watcher, recorder) = try watch(.inotify, watchLimit: 3)
      XCTAssertEqual(watcher.backend, .polling)
      let notice = try XCTUnwrap(watcher.notice)
      XCTAssertTrue(notice.contains("max_user_watches"), notice)
      XCTAssertTrue(notice.contains("sysctl"), notice)
      XCTAssertFalse(notice.contains("\n"))
      XCTAssertEqual(watcher.watchedDirectories, 10)
      try writeInPlace("nb7/n.md", "edited, longer\n")
      XCTAssertTrue(recorder.waitForEvent("nb7/n.md", .modified), "\(recorder.batches)")
    }

    /// The limit reached while running (new notebooks): a rescan with the notice, then polling.
    func testWatchLimitReachedWhileRunning() throws {
      try directory.write("a/n.md", "n\n")
      let (watcher, recorder) = try watch(.inotify, watchLimit: 3)
      XCTAssertEqual(watcher.backend, .inotify)
      XCTAssertEqual(watcher.watchedDirectories, 2)
      try mkdir("b")
      try mkdir("c")
      XCTAssertTrue(
        recorder.wait { $0.contains { if case .rescan = $0 { return true } else { return false } } },
        "\(recorder.batches)")
      XCTAssertEqual(watcher.backend, .polling)
      XCTAssertTrue(watcher.notice?.contains("max_user_watches") == true, watcher.notice ?? "nil")
      if case .rescan(let reason) = recorder.batches.first(where: { if case .rescan = $0 { true } else { false } }) {
        XCTAssertEqual(reason, watcher.notice)
      }
      try write("c/new.md", "new\n")
      XCTAssertTrue(recorder.waitForEvent("c/new.md", .created), "\(recorder.batches)")
      XCTAssertEqual(watcher.watchedDirectories, 4)
    }

    /// IN_Q_OVERFLOW, for real: the watcher is made but not started, so nothing reads its queue, as with a reader
    /// too slow to keep up; then more events are made than fs.inotify.max_queued_events holds (nothing global is
    /// lowered). Each 1-byte pwrite is one IN_MODIFY; alternating two files keeps the kernel from merging them.
    func testQueueOverflowAsksForARescan() throws {
      let setting = try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)
      guard let limit = setting.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
        throw XCTSkip("no /proc/sys/fs/inotify/max_queued_events")
      }
      guard limit <= 1_000_000 else { throw XCTSkip("max_queued_events is \(limit): too many events to make") }
      try directory.write("a.md", "a")
      try directory.write("b.md", "b")
      let (watcher, recorder) = try watch(.inotify, start: false)
      let fds = [open(path("a.md"), O_WRONLY), open(path("b.md"), O_WRONLY)]
      defer { fds.forEach { _ = close($0) } }
      XCTAssert(fds.allSatisfy { $0 >= 0 })
      var byte: UInt8 = 0x78
      for i in 0..<(limit + 1000) { _ = pwrite(fds[i % 2], &byte, 1, 0) }
      watcher.start { recorder.append($0) }
      XCTAssertTrue(
        recorder.wait { $0.contains { if case .rescan = $0 { return true } else { return false } } },
        "\(recorder.batches.prefix(3))")
      guard case .rescan(let reason) = recorder.batches.first else {
        return XCTFail("the first batch is not a rescan: \(recorder.batches.first.map { "\($0)" } ?? "")")
      }
      XCTAssertTrue(reason.contains("max_queued_events = \(limit)"), reason)
      // Still watching afterwards.
      try mkdir("later")
      try write("later/n.md", "n\n")
      XCTAssertTrue(recorder.waitForEvent("later/n.md", .created, .modified), "\(recorder.batches.suffix(3))")
    }

    // MARK: The tree's edge

    /// A notebook moved out of the tree loses its watches: what is written in it afterwards is not ours.
    func testDirectoryMovedOutIsNoLongerWatched() throws {
      let outside = try TemporaryDirectory(prefix: "nb-filewatch-outside")
      try directory.write("nb/sub/n.md", "n\n")
      let (watcher, recorder) = try watch(.inotify)
      XCTAssertEqual(watcher.watchedDirectories, 3)
      XCTAssertEqual(Foundation.rename(path("nb"), outside.file("nb").path), 0)
      XCTAssertTrue(recorder.waitForEvent { $0 == FileEvent(path: "nb", kind: .renamedFrom, isDirectory: true) })
      try outside.write("nb/sub/later.md", "later\n")
      try write("sentinel.md", "s\n")
      XCTAssertTrue(recorder.waitForEvent("sentinel.md", .created))
      XCTAssertFalse(recorder.events.contains { $0.path.hasPrefix("nb/") }, "\(recorder.batches)")
      XCTAssertEqual(watcher.watchedDirectories, 1)
    }

    /// A notebook moved in from elsewhere arrives whole: a rename onto its name, and what was inside as created.
    func testDirectoryMovedInIsWatchedAndItsContentsReported() throws {
      let outside = try TemporaryDirectory(prefix: "nb-filewatch-outside")
      try outside.write("nb/a.md", "a\n")
      try outside.write("nb/sub/b.md", "b\n")
      let (watcher, recorder) = try watch(.inotify)
      XCTAssertEqual(Foundation.rename(outside.file("nb").path, path("moved")), 0)
      XCTAssertTrue(recorder.waitForEvent("moved/sub/b.md", .created), "\(recorder.batches)")
      XCTAssertTrue(recorder.events.contains(FileEvent(path: "moved", kind: .renamedTo, isDirectory: true)))
      XCTAssertTrue(recorder.events.contains(FileEvent(path: "moved/a.md", kind: .created, isDirectory: false)))
      XCTAssertTrue(recorder.events.contains(FileEvent(path: "moved/sub", kind: .created, isDirectory: true)))
      XCTAssertEqual(watcher.watchedDirectories, 3)
      try writeInPlace("moved/sub/b.md", "edited\n")
      XCTAssertTrue(recorder.waitForEvent("moved/sub/b.md", .modified), "\(recorder.batches)")
    }

    /// A directory deleted with everything in it gives its watches back.
    func testDirectoryDeletedDropsItsWatches() throws {
      try directory.write("nb/sub/n.md", "n\n")
      let (watcher, recorder) = try watch(.inotify)
      XCTAssertEqual(watcher.watchedDirectories, 3)
      try FileManager.default.removeItem(atPath: path("nb"))
      XCTAssertTrue(recorder.waitForEvent { $0 == FileEvent(path: "nb", kind: .removed, isDirectory: true) })
      XCTAssertTrue(recorder.events.contains(FileEvent(path: "nb/sub/n.md", kind: .removed, isDirectory: false)))
      XCTAssertTrue(recorder.wait { _ in watcher.watchedDirectories == 1 }, "\(watcher.watchedDirectories)")
    }

    /// A symlink to a directory is reported as an entry of its own and never followed.
    func testSymlinksAreNotFollowed() throws {
      let outside = try TemporaryDirectory(prefix: "nb-filewatch-outside")
      try outside.write("target/t.md", "t\n")
      try FileManager.default.createSymbolicLink(
        atPath: path("old-link"), withDestinationPath: outside.file("target").path)
      let (watcher, recorder) = try watch(.inotify)
      XCTAssertEqual(watcher.watchedDirectories, 1)
      try FileManager.default.createSymbolicLink(atPath: path("link"), withDestinationPath: outside.file("target").path)
      XCTAssertTrue(recorder.waitForEvent { $0 == FileEvent(path: "link", kind: .created, isDirectory: false) })
      try outside.write("target/t.md", "changed\n")
      try write("sentinel.md", "s\n")
      XCTAssertTrue(recorder.waitForEvent("sentinel.md", .created))
      XCTAssertFalse(recorder.events.contains { $0.path.contains("/t.md") }, "\(recorder.batches)")
      XCTAssertEqual(watcher.watchedDirectories, 1)
    }

    // MARK: Life cycle

    /// Idle means blocked in poll(2): the process burns (next to) no CPU while nothing changes.
    func testIdleCostsNoCPU() throws {
      for i in 0..<20 { try directory.write("nb\(i)/n.md", "n\n") }
      let (_, recorder) = try watch(.inotify)
      func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
          + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
      }
      let before = cpuSeconds()
      usleep(500_000)
      XCTAssertLessThan(cpuSeconds() - before, 0.05)
      XCTAssertEqual(recorder.batches, [])
    }

    /// The handler may stop the watcher it is called by.
    func testStopFromInsideTheHandler() throws {
      let watcher = try DirectoryWatcher(root: root, options: .init(backend: .inotify))
      let recorder = Recorder()
      watcher.start { batch in
        recorder.append(batch)
        watcher.stop()
      }
      try write("a.md", "a\n")
      XCTAssertTrue(recorder.wait { !$0.isEmpty })
      try write("b.md", "b\n")
      usleep(100_000)
      XCTAssertEqual(recorder.batches.count, 1)
      watcher.stop()
    }

    /// A watcher nobody stopped stops when it goes away, thread and descriptors included; one never started too.
    func testDeinitStops() throws {
      let before = openDescriptorCount()
      let recorder = Recorder()
      do {
        let watcher = try DirectoryWatcher(root: root, options: .init(backend: .inotify))
        watcher.start { recorder.append($0) }
        _ = try DirectoryWatcher(root: root, options: .init(backend: .inotify))
      }
      XCTAssertEqual(openDescriptorCount(), before)
      try write("a.md", "a\n")
      usleep(100_000)
      XCTAssertEqual(recorder.batches, [])
    }

    func testErrors() throws {
      let missing = root.appendingPathComponent("missing")
      for backend in [DirectoryWatchOptions.Backend.inotify, .polling] {
        XCTAssertThrowsError(try DirectoryWatcher(root: missing, options: .init(backend: backend))) { error in
          XCTAssertEqual(error as? FileWatchError, .rootMissing(path: missing.path))
          XCTAssertEqual("\(error)", "cannot watch '\(missing.path)': no such directory")
        }
        let file = try directory.write("file.md", "f\n")
        XCTAssertThrowsError(try DirectoryWatcher(root: file, options: .init(backend: backend))) { error in
          XCTAssertEqual(error as? FileWatchError, .notADirectory(path: file.path))
          XCTAssertEqual(error.localizedDescription, "cannot watch '\(file.path)': not a directory")
        }
      }
    }
  }
#endif

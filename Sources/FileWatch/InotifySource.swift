#if os(Linux)
  import Foundation
  import Glibc

  /// inotify hit one of its per-user limits while the watcher was being set up: the watcher polls instead.
  enum InotifyLimit: Error {
    /// inotify_init1 failed with EMFILE (fs.inotify.max_user_instances).
    case instances
    /// inotify_add_watch failed with ENOSPC (fs.inotify.max_user_watches), or the `watchLimit` hook was reached,
    /// with this many directories watched.
    case watches(limit: Int?, watched: Int)

    func notice(pollInterval: TimeInterval) -> String {
      switch self {
      case .instances:
        return Notice.instanceLimit(
          limit: FileSystem.integer(at: "/proc/sys/fs/inotify/max_user_instances"), pollInterval: pollInterval)
      case .watches(let limit, let watched):
        return Notice.watchLimit(limit: limit, watched: watched, pollInterval: pollInterval)
      }
    }
  }

  /// The Linux backend: one watch per non-ignored directory (never on files: an editor's safe-write replaces the
  /// file, and a watch on it would die with it), read in poll(2) on the watcher thread.
  ///
  /// The wd -> path map follows the tree as it changes: a directory created or moved in is walked (watch first,
  /// then list, so nothing written in between is lost, and what was already there is reported as created); a
  /// directory moved within the tree keeps its watches (the kernel's watch follows the inode) and has its subtree's
  /// paths rewritten, then is walked again to pick up what the new place no longer ignores; a directory deleted or
  /// moved out loses its watches.
  final class InotifySource: WatchSource {
    private let fd: Int32
    private let root: String
    private let options: DirectoryWatchOptions
    private var pathByWatch: [Int32: String] = [:]
    private var watchByPath: [String: Int32] = [:]
    private var rootWatch: Int32 = -1
    private var buffer: [UInt8]
    /// The `alsoWatch` directories watched now, by watch.
    private var extraByWatch: [Int32: String] = [:]

    var watchedDirectories: Int { pathByWatch.count }

    /// Up to this many bytes are read (in as many reads as it takes) into one batch; a save seldom makes more than
    /// a few hundred. The kernel's largest record is 16 + NAME_MAX + 1 bytes.
    private static let readSize = 64 * 1024
    private static let batchBytes = 1024 * 1024

    /// Watches the whole tree before returning. Throws `InotifyLimit` when a per-user limit stops it (the caller
    /// polls instead), `FileWatchError` for anything else.
    init(root: String, options: DirectoryWatchOptions) throws {
      self.root = root
      self.options = options
      buffer = [UInt8](repeating: 0, count: Self.readSize)
      switch FileSystem.status(of: root) {
      case .failure(let error):
        throw error.code == ENOENT
          ? FileWatchError.rootMissing(path: root)
          : FileWatchError.system(call: "stat", path: root, errno: error.code)
      case .success(let info):
        guard info.isDirectory else { throw FileWatchError.notADirectory(path: root) }
      }
      fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      if fd < 0 {
        let code = errno
        if code == EMFILE { throw InotifyLimit.instances }
        throw FileWatchError.system(call: "inotify_init1", path: nil, errno: code)
      }
      do {
        var seen = Set<Int32>()
        var events: [FileEvent] = []
        // A subdirectory that cannot be watched (no permission) is left out, as the polling scan leaves it out.
        var unwatchable: [(path: String, errno: Int32)] = []
        switch try watchTree("", announce: false, report: false, seen: &seen, events: &events, failures: &unwatchable) {
        case .watched: rootWatch = watchByPath[""] ?? -1
        case .failed(let code): throw FileWatchError.system(call: "inotify_add_watch", path: root, errno: code)
        }
        watchMissingExtras()
      } catch {
        _ = Glibc.close(fd)
        throw error
      }
    }

    func close() {
      _ = Glibc.close(fd)
    }

    /// Watches each `alsoWatch` directory that exists and is not watched (only file creations and its own end).
    private func watchMissingExtras() {
      let watched = Set(extraByWatch.values)
      for extra in options.alsoWatch where !watched.contains(extra) {
        let mask = InotifyMask([.create, .movedTo, .onlyDirectory, .dontFollow])
        let wd = inotify_add_watch(fd, root + "/" + extra, mask.rawValue)
        if wd >= 0 { extraByWatch[wd] = extra }
      }
    }

    func next(wakeFD: Int32) -> WatchStep {
      // The handler of the last batch may have made a removed extra directory again.
      watchMissingExtras()
      let ready = waitForInput([wakeFD, fd], timeout: -1)
      if ready[0] { return .woken }
      guard ready[1] else { return .deliver([]) }
      var bytes: [UInt8] = []
      if let failure = drain(into: &bytes) { return failure }
      var records = InotifyRecord.decode(bytes)
      // A directory's rename is two records (from, to) the kernel queues one after the other; a read can fall
      // between them. Give the second a moment to arrive rather than take the move for one out of the tree.
      if hasUnpairedDirectoryMove(records) && waitForInput([fd], timeout: 10)[0] {
        var more: [UInt8] = []
        if let failure = drain(into: &more) { return failure }
        records += InotifyRecord.decode(more)
      }
      do {
        return .deliver(try process(records))
      } catch let limit as InotifyLimit {
        return .fallBackToPolling(notice: limit.notice(pollInterval: options.pollInterval))
      } catch {
        return .fallBackToPolling(
          notice: "inotify failed (\(error)); polling every "
            + "\(Notice.seconds(options.pollInterval)) s instead")
      }
    }

    /// Reads what is queued, up to `batchBytes`, into `bytes`; a step to return when reading fails.
    private func drain(into bytes: inout [UInt8]) -> WatchStep? {
      while bytes.count < Self.batchBytes {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
          bytes += buffer[0..<n]
          continue
        }
        if n < 0 && errno == EINTR { continue }
        if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK {
          let reason = String(cString: strerror(errno))
          return .fallBackToPolling(
            notice: "reading inotify failed (\(reason)); polling every "
              + "\(Notice.seconds(options.pollInterval)) s instead")
        }
        break
      }
      return nil
    }

    private func hasUnpairedDirectoryMove(_ records: [InotifyRecord]) -> Bool {
      let arrived = Set(records.lazy.filter { $0.mask.contains(.movedTo) }.map(\.cookie))
      return records.contains {
        $0.mask.contains(.movedFrom) && $0.mask.contains(.isDirectory) && !arrived.contains($0.cookie)
      }
    }

    /// Turns records into batches and keeps the watches in step with the tree.
    private func process(_ records: [InotifyRecord]) throws -> [FileWatchBatch] {
      if records.contains(where: { $0.mask.contains(.queueOverflow) }) {
        // What was lost may include directories created or moved in: walk the whole tree again. add_watch on a
        // directory already watched returns its wd, so this also corrects every path; what it no longer finds
        // loses its watch.
        var seen = Set<Int32>()
        var ignoredEvents: [FileEvent] = []
        var unwatchable: [(path: String, errno: Int32)] = []
        let outcome = try watchTree(
          "", announce: false, report: false, seen: &seen, events: &ignoredEvents, failures: &unwatchable)
        guard case .watched = outcome else { return [.rootGone] }
        for (wd, _) in pathByWatch where !seen.contains(wd) { unwatch(wd) }
        let limit = FileSystem.integer(at: "/proc/sys/fs/inotify/max_queued_events").map(String.init) ?? "unknown"
        return [
          .rescan(
            reason: "the kernel's inotify queue overflowed (fs.inotify.max_queued_events = \(limit)) and "
              + "events were lost; rescan everything")
        ]
      }
      let arrivals = Set(records.lazy.filter { $0.mask.contains(.movedTo) }.map(\.cookie))
      var departures: [UInt32: String] = [:]
      var events: [FileEvent] = []
      var rescan: String?
      var rootGone = false
      for record in records {
        if let extra = extraByWatch[record.wd] {
          if record.mask.contains(.ignored) {
            extraByWatch[record.wd] = nil
            events.append(FileEvent(path: extra, kind: .removed, isDirectory: true))
          } else if !record.name.isEmpty, !record.mask.contains(.isDirectory) {
            events.append(FileEvent(path: FileSystem.join(extra, record.name), kind: .created, isDirectory: false))
          }
          continue
        }
        guard let directory = pathByWatch[record.wd] else { continue }  // a watch already dropped
        let mask = record.mask
        if mask.contains(.ignored) {
          forget(record.wd)
          if record.wd == rootWatch { rootGone = true; break }
          continue
        }
        if record.wd == rootWatch && !mask.isDisjoint(with: [.deleteSelf, .moveSelf, .unmount]) {
          rootGone = true
          break
        }
        // A subdirectory's own deletion or move arrives on its parent too, with its name: handled there.
        if record.name.isEmpty { continue }
        let path = FileSystem.join(directory, record.name)
        let isDirectory = mask.contains(.isDirectory)
        if mask.contains(.create) {
          events.append(FileEvent(path: path, kind: .created, isDirectory: isDirectory))
          if isDirectory, !options.isIgnored(path, true) {
            rescan = try addTree(path, events: &events) ?? rescan
          }
        } else if mask.contains(.movedFrom) {
          events.append(FileEvent(path: path, kind: .renamedFrom, isDirectory: isDirectory))
          if isDirectory {
            if arrivals.contains(record.cookie) {
              departures[record.cookie] = path
            } else {
              unwatchTree(path)  // moved out of the tree: its later events are not ours
            }
          }
        } else if mask.contains(.movedTo) {
          events.append(FileEvent(path: path, kind: .renamedTo, isDirectory: isDirectory))
          if isDirectory {
            // A directory the rename overwrote (an empty one) keeps a stale watch under `path`: the walk in
            // `addTree` does not meet it and drops it.
            if let origin = departures.removeValue(forKey: record.cookie) { remap(origin, to: path) }
            if options.isIgnored(path, true) {
              unwatchTree(path)
            } else {
              rescan = try addTree(path, events: &events) ?? rescan
            }
          }
        } else if mask.contains(.delete) {
          events.append(FileEvent(path: path, kind: .removed, isDirectory: isDirectory))
          if isDirectory { unwatchTree(path) }
        } else if !isDirectory && !mask.isDisjoint(with: [.modify, .closeWrite, .attrib]) {
          events.append(FileEvent(path: path, kind: .modified, isDirectory: false))
        }
      }
      // A source whose destination never came (not even after the wait in `next`) left the tree.
      for origin in departures.values { unwatchTree(origin) }
      var kept: [FileEvent] = []
      for event in events where isExtra(event.path) || !options.isIgnored(event.path, event.isDirectory) {
        // A write is IN_MODIFY then IN_CLOSE_WRITE: one `modified` is enough.
        if kept.last != event { kept.append(event) }
      }
      var batches: [FileWatchBatch] = []
      if !kept.isEmpty { batches.append(.events(kept)) }
      if let rescan { batches.append(.rescan(reason: rescan)) }
      if rootGone { batches.append(.rootGone) }
      return batches
    }

    private func isExtra(_ path: String) -> Bool {
      options.alsoWatch.contains { path == $0 || FileSystem.isWithin(path, $0) }
    }

    /// Watches `path` (a directory that just appeared) and everything under it, reporting as created what was
    /// already inside directories not watched before; returns a rescan reason when a directory in it exists but
    /// could not be watched, so whatever happens there will be missed.
    private func addTree(_ path: String, events: inout [FileEvent]) throws -> String? {
      var seen = Set<Int32>()
      var unwatchable: [(path: String, errno: Int32)] = []
      _ = try watchTree(path, announce: false, report: true, seen: &seen, events: &events, failures: &unwatchable)
      // Watches still filed under `path` that the walk did not meet: directories now ignored, or gone.
      for (wd, watched) in pathByWatch where !seen.contains(wd) && FileSystem.isWithin(watched, path) {
        unwatch(wd)
      }
      guard let first = unwatchable.first else { return nil }
      let others = unwatchable.count > 1 ? " and \(unwatchable.count - 1) more" : ""
      return "could not watch the new directory '\(first.path)'\(others) (\(String(cString: strerror(first.errno)))); "
        + "changes in it are not seen; rescan everything"
    }

    private enum WalkOutcome {
      case watched
      case failed(errno: Int32)
    }

    /// Adds a watch on `path` (the watch before the listing, so an entry made in between is seen by one or the
    /// other), then recurses into its non-ignored subdirectories. A directory whose watch is new gets its files
    /// (and itself, when `announce`) reported as created when `report` is set. A directory that exists but cannot
    /// be watched goes to `failures` (one already gone, or replaced by a file, is no failure: its removal follows).
    private func watchTree(
      _ path: String, announce: Bool, report: Bool, seen: inout Set<Int32>, events: inout [FileEvent],
      failures: inout [(path: String, errno: Int32)]
    ) throws -> WalkOutcome {
      let absolute = path.isEmpty ? root : root + "/" + path
      // The root may be a symlink the user named; below it, links are never followed.
      let mask = InotifyMask.watched.union(path.isEmpty ? [] : .dontFollow)
      let wd = inotify_add_watch(fd, absolute, mask.rawValue)
      if wd < 0 {
        let code = errno
        if code == ENOSPC {
          throw InotifyLimit.watches(
            limit: FileSystem.integer(at: "/proc/sys/fs/inotify/max_user_watches"), watched: pathByWatch.count)
        }
        if code != ENOENT && code != ENOTDIR { failures.append((path, code)) }
        return .failed(errno: code)
      }
      let isNew = pathByWatch[wd] == nil
      if isNew, let limit = options.watchLimit, pathByWatch.count >= limit {
        inotify_rm_watch(fd, wd)
        throw InotifyLimit.watches(limit: limit, watched: pathByWatch.count)
      }
      file(wd, at: path)
      seen.insert(wd)
      if report && isNew && announce { events.append(FileEvent(path: path, kind: .created, isDirectory: true)) }
      guard let entries = FileSystem.entries(of: absolute, withStat: false) else { return .watched }
      for entry in entries {
        let child = FileSystem.join(path, entry.name)
        if entry.isDirectory {
          if options.isIgnored(child, true) { continue }
          _ = try watchTree(
            child, announce: true, report: report, seen: &seen, events: &events, failures: &failures)
        } else if report && isNew {
          events.append(FileEvent(path: child, kind: .created, isDirectory: false))
        }
      }
      return .watched
    }

    /// Records that `wd` watches `path`, replacing whatever either was filed under before.
    private func file(_ wd: Int32, at path: String) {
      if let old = pathByWatch[wd], watchByPath[old] == wd { watchByPath[old] = nil }
      if let other = watchByPath[path], other != wd {
        // A different directory was filed here: it was replaced or moved without us hearing (a lost event).
        unwatch(other)
      }
      pathByWatch[wd] = path
      watchByPath[path] = wd
    }

    /// Rewrites the paths of `origin` and everything under it to lie under `destination`: the kernel's watches
    /// follow the directories, only our names for them change.
    private func remap(_ origin: String, to destination: String) {
      let moved = pathByWatch.filter { FileSystem.isWithin($0.value, origin) }
      for (wd, path) in moved where watchByPath[path] == wd { watchByPath[path] = nil }
      for (wd, path) in moved {
        let renamed = destination + path.dropFirst(origin.count)
        pathByWatch[wd] = renamed
        watchByPath[renamed] = wd
      }
    }

    private func unwatchTree(_ path: String) {
      for (wd, watched) in pathByWatch where FileSystem.isWithin(watched, path) { unwatch(wd) }
    }

    /// Drops `wd` (the kernel's IN_IGNORED for it, if it still existed, finds nothing filed and is skipped).
    private func unwatch(_ wd: Int32) {
      inotify_rm_watch(fd, wd)
      forget(wd)
    }

    private func forget(_ wd: Int32) {
      if let path = pathByWatch.removeValue(forKey: wd), watchByPath[path] == wd { watchByPath[path] = nil }
    }
  }
#endif

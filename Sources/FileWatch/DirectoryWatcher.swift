import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Watches a directory tree and reports what changes in it: inotify on Linux (one watch per directory, recursive,
/// following directories created, moved and deleted while it runs), polling elsewhere or when inotify's per-user
/// limits are reached.
///
/// Batches go to the handler given to `start`, one at a time and in order, on a thread of the watcher's own that
/// sleeps in poll(2) between them (no CPU while nothing changes).
public final class DirectoryWatcher: @unchecked Sendable {
  private let core: WatchCore

  /// Sets up every watch synchronously before returning (so an edit made after init returns is never missed);
  /// throws a `FileWatchError` when the root is missing or not a directory, or inotify fails for a reason other
  /// than a per-user limit (a limit makes the watcher poll instead, see `notice`).
  public init(root: URL, options: DirectoryWatchOptions = .init()) throws {
    core = try WatchCore(root: root.standardizedFileURL.path, options: options)
  }

  deinit {
    core.stop()
  }

  /// .inotify or .polling: what is actually in use (it becomes .polling if the watch limit is reached while
  /// running).
  public var backend: DirectoryWatchOptions.Backend { core.status.backend }

  /// Why the watcher fell back to polling, one line saying what to do (nil when it did not).
  public var notice: String? { core.status.notice }

  /// Directories currently watched (inotify) or scanned (polling).
  public var watchedDirectories: Int { core.status.watchedDirectories }

  /// Starts delivering batches to handler, on a thread of the watcher's own, one batch at a time, in order. Call
  /// once (later calls, and calls after `stop`, do nothing).
  public func start(_ handler: @escaping @Sendable (FileWatchBatch) -> Void) {
    core.start(handler)
  }

  /// Stops: no handler call starts after stop() returns (one under way is waited for); closes the inotify fd;
  /// idempotent; deinit stops too. Called from inside the handler, it returns at once and the watcher's thread
  /// closes the fd as soon as the handler returns.
  public func stop() {
    core.stop()
  }
}

/// Everything the watcher's thread needs, apart from the public object so that the thread does not keep that
/// alive (its deinit is what stops a watcher nobody stopped).
final class WatchCore: @unchecked Sendable {
  struct Status {
    var backend: DirectoryWatchOptions.Backend
    var notice: String?
    var watchedDirectories: Int
  }

  private let root: String
  private let options: DirectoryWatchOptions
  private let wake: WakePipe
  /// Owned by the thread that made the watcher until `start`, then by the watcher's thread alone.
  private var source: WatchSource

  /// Guards the fields below; never held while the handler runs.
  private let lock = NSCondition()
  private var _status: Status
  private var started = false
  private var stopped = false
  /// The thread has left its loop and closed the descriptors (or there never was a thread and `stop` closed them).
  private var closed = false
  private var thread: pthread_t?

  /// Held while the handler runs, so `stop` can wait out a call under way; recursive, so the handler may call
  /// `stop` itself.
  private let delivery = NSRecursiveLock()

  init(root: String, options: DirectoryWatchOptions) throws {
    self.root = root
    self.options = options
    var backend = options.backend
    if backend == .automatic {
      #if os(Linux)
        backend = .inotify
      #else
        backend = .polling
      #endif
    }
    var notice: String?
    switch backend {
    case .inotify:
      #if os(Linux)
        do {
          source = try InotifySource(root: root, options: options)
        } catch let limit as InotifyLimit {
          notice = limit.notice(pollInterval: options.pollInterval)
          backend = .polling
          source = try PollingSource(root: root, options: options)
        }
      #else
        throw FileWatchError.unsupportedBackend("inotify")
      #endif
    default:
      source = try PollingSource(root: root, options: options)
    }
    wake = try WakePipe()
    _status = Status(backend: backend, notice: notice, watchedDirectories: source.watchedDirectories)
  }

  var status: Status {
    lock.lock()
    defer { lock.unlock() }
    return _status
  }

  func start(_ handler: @escaping @Sendable (FileWatchBatch) -> Void) {
    lock.lock()
    defer { lock.unlock() }
    guard !started, !stopped else { return }
    started = true
    let thread = Thread { [self] in run(handler) }
    thread.name = "FileWatch"
    thread.start()
  }

  func stop() {
    delivery.lock()
    lock.lock()
    let first = !stopped
    stopped = true
    let running = started
    let onOwnThread = thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    if running && !closed { wake.signal() }
    lock.unlock()
    delivery.unlock()
    if !running {
      if first { closeDescriptors() }
      return
    }
    if onOwnThread { return }
    lock.lock()
    while !closed { lock.wait() }
    lock.unlock()
  }

  private var isStopped: Bool {
    lock.lock()
    defer { lock.unlock() }
    return stopped
  }

  private func run(_ handler: @Sendable (FileWatchBatch) -> Void) {
    lock.lock()
    thread = pthread_self()
    lock.unlock()
    loop: while !isStopped {
      switch source.next(wakeFD: wake.readFD) {
      case .woken:
        continue
      case .deliver(let batches):
        for batch in batches {
          guard deliver(batch, to: handler) else { break loop }
          if batch == .rootGone { break loop }
        }
      case .fallBackToPolling(let notice):
        source.close()
        do {
          source = try PollingSource(root: root, options: options)
        } catch {
          // The root went away while we switched.
          _ = deliver(.rootGone, to: handler)
          break loop
        }
        lock.lock()
        _status.backend = .polling
        _status.notice = notice
        lock.unlock()
        guard deliver(.rescan(reason: notice), to: handler) else { break loop }
      }
      let watched = source.watchedDirectories
      lock.lock()
      _status.watchedDirectories = watched
      lock.unlock()
    }
    lock.lock()
    stopped = true
    lock.unlock()
    closeDescriptors()
  }

  /// Calls the handler unless the watcher was stopped; false when it was.
  private func deliver(_ batch: FileWatchBatch, to handler: @Sendable (FileWatchBatch) -> Void) -> Bool {
    delivery.lock()
    defer { delivery.unlock() }
    guard !isStopped else { return false }
    handler(batch)
    return true
  }

  private func closeDescriptors() {
    source.close()
    lock.lock()
    wake.close()
    closed = true
    lock.broadcast()
    lock.unlock()
  }
}

import FileWatch
import Foundation
import NoteStore

/// Watches a note repository and commits the edits made in it by any editor, `debounce` after they stop (as
/// `nb save` does: an `id` and `updated` stamped, nothing else touched), and — when syncing — pushes each commit
/// and brings in what other devices push. `nb watch` is this type with a printer; an app embedding NoteStore runs
/// one to auto-save and to hear about changes underneath it:
///
/// ```swift
/// var settings = WatchSettings()
/// settings.debounce = 2
/// settings.sync = true
/// let watcher = try RepositoryWatcher(root: notesURL, settings: settings)
/// watcher.start()
/// Task {
///   for await change in watcher.changes {
///     if case .saved(let saved) = change { reload(saved.added + saved.changed) }
///     if case .synced(let synced) = change { reload(synced.paths) }
///   }
/// }
/// // later: watcher.stop() commits what is pending, then `changes` ends.
/// ```
///
/// One thread of its own does all repository work, so saves, syncs and the lock are never concurrent within the
/// watcher; other nb processes and other watchers are kept apart by the repository lock. While nothing changes
/// the thread sleeps (until the next remote check when syncing).
public final class RepositoryWatcher: @unchecked Sendable {
  /// Which kernel interface finds changes.
  public enum Backend: String, Sendable {
    /// inotify on Linux, polling elsewhere.
    case automatic
    /// Linux's inotify.
    case inotify
    /// A stat walk every `pollInterval` (any platform; also the fallback when inotify's watch limit is reached).
    case polling
  }

  /// The repository's root.
  public let root: URL
  /// What it was started with.
  public let settings: WatchSettings
  /// Every change, in order; ends when the watcher stops. One consumer.
  public let changes: AsyncStream<RepositoryChange>
  /// Called on the watcher's thread with every change, before it is put on ``changes``; set before starting.
  public var onChange: (@Sendable (RepositoryChange) -> Void)?

  private let continuation: AsyncStream<RepositoryChange>.Continuation
  private let syncOptions: SyncOptions
  private let backend: Backend
  private let pollInterval: TimeInterval
  private let mailbox = Mailbox<Input>()
  private let finished = DispatchSemaphore(value: 0)
  private let lock = NSLock()
  private var running = false

  private enum Input {
    case files(FileWatchBatch)
    case stop
  }

  /// Prepares a watcher of the repository at `root` (nothing is watched until ``run()`` or ``start()``).
  /// `syncOptions` carry the remote, device and credentials when `settings.sync` is on.
  public init(
    root: URL, settings: WatchSettings, syncOptions: SyncOptions? = nil, backend: Backend = .automatic,
    pollInterval: TimeInterval = 1
  ) {
    self.root = root.standardizedFileURL
    self.settings = settings
    var syncOptions = syncOptions ?? SyncOptions(remote: settings.remote)
    // The save a sync starts with must leave out what the watcher's saves leave out.
    syncOptions.save = Self.saveOptions
    self.syncOptions = syncOptions
    self.backend = backend
    self.pollInterval = pollInterval
    (changes, continuation) = AsyncStream.makeStream(of: RepositoryChange.self, bufferingPolicy: .unbounded)
  }

  /// Runs on a thread of its own; a failure to start or run ends with a `.notice(.failed)` and `.stopped` (as it
  /// does for ``run()``).
  public func start() {
    // run() has reported its error on the stream already.
    let thread = Thread { [self] in try? run() }
    thread.name = "nb watch"
    thread.start()
  }

  /// Asks the watcher to stop: what is pending is committed first, then ``changes`` ends and ``run()`` returns.
  /// Safe from any thread and from a signal handler's queue; returns at once.
  public func stop() {
    mailbox.post(.stop)
  }

  /// Waits until a started watcher has stopped.
  public func waitUntilStopped() {
    finished.wait()
    finished.signal()
  }

  /// Watches until ``stop()`` (committing what is pending) or until the repository goes away (throwing
  /// ``WatchError/repositoryGone(path:)``). Throws at once when the repository cannot be opened or watched.
  public func run() throws {
    lock.lock()
    guard !running else {
      lock.unlock()
      throw WatchError.cannotWatch("this watcher is already running")
    }
    running = true
    lock.unlock()
    defer {
      emit(.stopped)
      continuation.finish()
      finished.signal()
    }
    do {
      var engine = try Engine(watcher: self)
      try engine.run()
    } catch {
      emit(.notice(WatchNotice(kind: .failed, message: "\(error)", path: nil)))
      throw error
    }
  }

  /// How the watcher saves (and how a sync it runs saves first): unreadable notes and editor scratch files are
  /// left out.
  static let saveOptions = SaveOptions(leaveUnstampable: true, leaveOut: { EditorFiles.isScratch($0) })

  fileprivate func emit(_ change: RepositoryChange) {
    onChange?(change)
    continuation.yield(change)
  }

  /// The loop's state, on the watcher's thread only.
  private struct Engine {
    unowned let watcher: RepositoryWatcher
    let repository: NoteRepository
    let files: DirectoryWatcher
    var journal: ChangeJournal?
    var schedule: SaveSchedule
    /// Notes nb itself just wrote (stamps, sync's checkout), with their stamp then: their events are not edits.
    var ownWrites: [String: FileStamp] = [:]
    /// The files events named since the last save: a save looks at these alone, unless `fullSave` (a directory
    /// changed, events were lost, or the watcher starts or stops).
    var changedFiles = Set<String>()
    var fullSave = true
    /// Unreadable notes already reported, with the stamp they had: said again only when the file changes.
    var reported: [String: FileStamp?] = [:]
    var saveRetry = RetryDelay(initial: 1, maximum: 60)
    var saveNotBefore: Date?
    var paused: String?
    var syncRetry: RetryDelay
    var nextRemoteCheck = Date.distantPast
    var needsSync: Bool
    var offline = false
    var lastError: String?
    /// How watching was set up, announced once the catch-up save is done.
    let start: WatchStart

    init(watcher: RepositoryWatcher) throws {
      self.watcher = watcher
      let started = Date()
      guard FileManager.default.fileExists(atPath: watcher.root.path) else {
        throw WatchError.repositoryGone(path: watcher.root.path)
      }
      repository = try NoteRepository.open(at: watcher.root)
      repository.device = watcher.syncOptions.device
      schedule = SaveSchedule(debounce: watcher.settings.debounce, maxDelay: watcher.settings.maxDelay)
      syncRetry = RetryDelay(initial: max(1, min(watcher.settings.interval, 10)), maximum: 180)
      needsSync = watcher.settings.sync
      var options = DirectoryWatchOptions(pollInterval: watcher.pollInterval) { path, _ in
        // Everything under .git is git's (and nb's) own bookkeeping; a change there is never an edit.
        path == ".git" || path.hasPrefix(".git/")
      }
      // Queries ask the change journal's owner to catch up by creating a file there; watched with the tree, so
      // the request arrives after every edit made before it.
      let requestDirectory = JournalRecorder.requestDirectory(of: repository, root: watcher.root.path)
      options.alsoWatch = requestDirectory.map { [$0] } ?? []
      options.backend =
        switch watcher.backend {
        case .automatic: .automatic
        case .inotify: .inotify
        case .polling: .polling
        }
      do {
        files = try DirectoryWatcher(root: watcher.root, options: options)
      } catch {
        throw WatchError.cannotWatch("cannot watch \(watcher.root.path): \(error)")
      }
      // After the watches are up: every edit from here on is either recorded or older than the journal's session.
      journal = try? ChangeJournal.open(repository: repository)
      let mailbox = watcher.mailbox
      let journal = self.journal
      files.start { batch in
        // Recorded here, on the notification thread, not by the engine: a query waits for the answer to its
        // request, and the engine may be busy for seconds with a save or a sync.
        if let journal { JournalRecorder.record(batch, in: journal, requestDirectory: requestDirectory) }
        mailbox.post(.files(batch))
      }
      start = WatchStart(
        backend: files.backend.rawValue, directories: files.watchedDirectories,
        setupSeconds: Date().timeIntervalSince(started))
    }

    mutating func run() throws {
      defer {
        files.stop()
        journal?.close()
      }
      // Whatever was edited before the watcher started (or left by one that was killed) is saved first; `started`
      // comes after it, so an edit made once it is out always waits for its quiet time (a catch-up save running
      // meanwhile could take an editor's save half done, e.g. between vim's rename and its write).
      save()
      watcher.emit(.started(start))
      if let notice = files.notice { watcher.emit(.notice(WatchNotice(kind: .rescan, message: notice, path: nil))) }
      while true {
        var wake = [schedule.deadline.map { max($0, saveNotBefore ?? $0) }]
        if watcher.settings.sync { wake.append(nextRemoteCheck) }
        let deadline = wake.compactMap { $0 }.min()
        let messages = watcher.mailbox.take(until: deadline)
        if let deadline, Date().timeIntervalSince(deadline) > 15 {
          // Woken far past the time asked for: the machine slept (a laptop's lid). Whatever backoff an offline
          // spell built up is stale; ask the remote now.
          syncRetry.succeeded()
          nextRemoteCheck = Date()
        }
        var stopping = false
        for message in messages {
          switch message {
          case .stop: stopping = true
          case .files(.events(let events)): take(events)
          case .files(.rescan(let reason)):
            fullSave = true
            schedule.change(at: Date())
            watcher.emit(.notice(WatchNotice(kind: .rescan, message: reason, path: nil)))
          case .files(.rootGone):
            throw WatchError.repositoryGone(path: watcher.root.path)
          }
        }
        if stopping {
          // Always, not only when an event was seen, and of the whole tree: an edit made just before the signal
          // may not have reached the mailbox yet (the file watcher's thread races the signal's), and with nothing
          // to commit a save is only a status walk.
          fullSave = true
          save()
          return
        }
        let now = Date()
        if schedule.isDue(at: now), saveNotBefore.map({ now >= $0 }) ?? true { save() }
        if watcher.settings.sync, now >= nextRemoteCheck { exchange() }
      }
    }

    /// Files changed: a save scheduled unless they are scratch files, ignored, or nb's own writes.
    private mutating func take(_ events: [FileEvent]) {
      var edited = false
      for event in events where !EditorFiles.isScratch(event.path) {
        if !event.isDirectory, let own = ownWrites[event.path] {
          if FileStamp(watcher.root.path + "/" + event.path) == own { continue }
          ownWrites[event.path] = nil
        }
        if (try? repository.isIgnored(event.path)) == true { continue }
        if event.isDirectory { fullSave = true } else { changedFiles.insert(event.path) }
        edited = true
      }
      if edited { schedule.change(at: Date()) }
    }

    /// Commits what changed, as `nb save` does, leaving out unreadable notes (reported once per version).
    private mutating func save() {
      ownWrites.removeAll()
      let result: SaveResult
      var options = RepositoryWatcher.saveOptions
      if !fullSave { options.only = changedFiles }
      do {
        result = try repository.save(options)
      } catch {
        failed(error, retry: true)
        return
      }
      changedFiles = Set(result.changedAgain)
      fullSave = false
      schedule.saved()
      saveRetry.succeeded()
      saveNotBefore = nil
      resume()
      if !result.changedAgain.isEmpty { schedule.change(at: Date()) }
      report(unreadable: result.unstamped)
      for path in result.notes { ownWrites[path] = FileStamp(watcher.root.path + "/" + path) }
      guard result.committed else { return }
      let added = Set(result.added)
      let removed = Set(result.removed)
      watcher.emit(
        .saved(
          SavedChanges(
            commit: (try? repository.headCommit()) ?? "",
            added: result.added, changed: result.paths.filter { !added.contains($0) && !removed.contains($0) },
            removed: result.removed, moved: result.moved)))
      if watcher.settings.sync {
        needsSync = true
        nextRemoteCheck = min(nextRemoteCheck, Date())
      }
    }

    /// Syncs when there is something to send or the remote moved (asked cheaply first).
    private mutating func exchange() {
      let options = watcher.syncOptions
      do {
        if !needsSync {
          guard try repository.remoteHasNews(options) else {
            backOnline()
            nextRemoteCheck = Date().addingTimeInterval(watcher.settings.interval)
            return
          }
        }
        // Edits waiting for their quiet time are committed (and reported) before anything is merged over them;
        // left to the sync's own save, they would be committed unannounced.
        if schedule.isPending { save() }
        let summary = try repository.sync(options)
        backOnline()
        needsSync = false
        syncRetry.succeeded()
        nextRemoteCheck = Date().addingTimeInterval(watcher.settings.interval)
        for path in summary.changedPaths + summary.saved {
          ownWrites[path] = FileStamp(watcher.root.path + "/" + path)
        }
        if summary.outcome != .upToDate || !summary.saved.isEmpty || !summary.conflicts.isEmpty {
          watcher.emit(.synced(SyncedChanges(summary: summary)))
        }
        for warning in summary.warnings {
          watcher.emit(.notice(WatchNotice(kind: .error, message: warning, path: nil)))
        }
      } catch NoteStoreError.offline(let remote, let detail) {
        needsSync = true
        let wait = syncRetry.failed()
        nextRemoteCheck = Date().addingTimeInterval(wait)
        if !offline {
          offline = true
          watcher.emit(
            .notice(
              WatchNotice(
                kind: .offline,
                message: "\(remote) cannot be reached (\(detail)); commits stay on this device and sync is retried "
                  + "with backoff (up to every \(Int(syncRetry.maximum)) s)", path: nil)))
        }
      } catch {
        needsSync = true
        nextRemoteCheck = Date().addingTimeInterval(syncRetry.failed())
        failed(error, retry: false)
      }
    }

    private mutating func backOnline() {
      guard offline else { return }
      offline = false
      watcher.emit(
        .notice(WatchNotice(kind: .online, message: "\(watcher.syncOptions.remote) can be reached again", path: nil)))
    }

    /// A save or sync that failed: a repository mid-merge or locked pauses saving (checked again every 2 s); other
    /// errors are said once and retried with backoff.
    private mutating func failed(_ error: Error, retry: Bool) {
      let message = "\(error)"
      switch error as? NoteStoreError {
      case .unsafeGitState, .indexLocked, .busy:
        if retry { saveNotBefore = Date().addingTimeInterval(2) }
        if paused == nil {
          watcher.emit(
            .notice(WatchNotice(kind: .paused, message: "saving paused: \(message); it resumes by itself", path: nil)))
        }
        paused = message
      default:
        if retry { saveNotBefore = Date().addingTimeInterval(saveRetry.failed()) }
        if lastError != message {
          lastError = message
          watcher.emit(.notice(WatchNotice(kind: .error, message: message, path: nil)))
        }
      }
    }

    private mutating func resume() {
      lastError = nil
      guard paused != nil else { return }
      paused = nil
      watcher.emit(.notice(WatchNotice(kind: .resumed, message: "saving resumed", path: nil)))
    }

    /// Says which notes could not be read, once per version of each file.
    private mutating func report(unreadable errors: [NoteStoreError]) {
      var still = Set<String>()
      for error in errors {
        guard let path = error.location?.path else { continue }
        still.insert(path)
        let stamp = FileStamp(watcher.root.path + "/" + path)
        if let previous = reported[path], previous == stamp { continue }
        reported[path] = stamp
        watcher.emit(
          .notice(
            WatchNotice(
              kind: .unreadable, message: "\(error); not committed until it can be read, the rest is saved",
              path: path)))
      }
      reported = reported.filter { still.contains($0.key) }
    }
  }
}

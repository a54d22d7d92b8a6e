import FileWatch
import Foundation
import NoteStore

/// Which files of a repository change, whoever changes them — an editor, another nb process, `nb watch`, a sync,
/// git — without saving anything: for views that show the notes while something else writes them (`nb serve`'s
/// live pages). ``RepositoryWatcher`` commits edits and reports its own commits; this only listens.
///
/// ```swift
/// let feed = try RepositoryFeed(root: notesURL)
/// feed.start { change in refresh(change.paths) }
/// // later: feed.stop()
/// ```
///
/// Events are gathered for ``latency`` after the first one of a burst (a save is a temporary file, a rename and
/// maybe a second file), then handed over as one ``Change``: a change is reported at most `latency` after it
/// happened, plus the kernel's own delay. `.git` (git's and nb's bookkeeping) and editors' scratch files
/// (``EditorFiles``) are never reported.
public final class RepositoryFeed: @unchecked Sendable {
  /// Files that changed together.
  public struct Change: Equatable, Sendable {
    /// The paths that changed (relative to the root, "/"-separated, sorted, each once): files and directories
    /// created, changed, removed or moved either way.
    public var paths: [String]
    /// Events were lost (the kernel's queue overflowed) or the root went away: anything may have changed.
    public var everything: Bool

    /// A change of `paths`.
    public init(paths: [String], everything: Bool = false) {
      self.paths = paths
      self.everything = everything
    }
  }

  /// The repository's root.
  public let root: URL
  /// How long events are gathered after the first of a burst.
  public let latency: TimeInterval

  private let files: DirectoryWatcher
  /// The change journal this feed records into (see ``init(root:latency:backend:pollInterval:journalFor:)``), and
  /// its request directory relative to the root.
  private let journal: ChangeJournal?
  private let requestDirectory: String?
  private let queue = DispatchQueue(label: "nb.feed")
  /// Set on `queue`, so that ``stop()`` knows it is called from the handler (or a deinit the handler caused).
  private let onQueue = DispatchSpecificKey<Bool>()
  /// On `queue` only.
  private var pending = Set<String>()
  private var lost = false
  private var scheduled = false
  private var stopped = false

  /// Sets up the watches before returning, so a change made once it returns is reported.
  ///
  /// With `journalFor`, the feed also keeps that repository's change journal while it runs, as `nb watch` does
  /// (unless a watcher already keeps it): queries in this process and every other then check only the paths that
  /// changed instead of walking the whole tree (a quarter of a second at 100 000 notes), which is what lets a view
  /// answer each request in milliseconds. The journal is given up when the feed stops.
  /// - Throws: ``WatchError/cannotWatch(_:)`` when the root is not a directory or cannot be watched.
  public init(
    root: URL, latency: TimeInterval = 0.1, backend: RepositoryWatcher.Backend = .automatic,
    pollInterval: TimeInterval = 1, journalFor repository: NoteRepository? = nil
  ) throws {
    let root = root.standardizedFileURL
    self.root = root
    self.latency = latency
    var options = DirectoryWatchOptions(pollInterval: pollInterval) { path, _ in
      path == ".git" || path.hasPrefix(".git/")
    }
    let requestDirectory = repository.flatMap { JournalRecorder.requestDirectory(of: $0, root: root.path) }
    self.requestDirectory = requestDirectory
    options.alsoWatch = requestDirectory.map { [$0] } ?? []
    options.backend =
      switch backend {
      case .automatic: .automatic
      case .inotify: .inotify
      case .polling: .polling
      }
    do {
      files = try DirectoryWatcher(root: self.root, options: options)
    } catch {
      throw WatchError.cannotWatch("cannot watch \(self.root.path): \(error)")
    }
    // After the watches are up: every edit from here on is either recorded or older than the journal's session.
    journal = repository.flatMap { try? ChangeJournal.open(repository: $0) }
    queue.setSpecific(key: onQueue, value: true)
  }

  deinit {
    files.stop()
    journal?.close()
  }

  /// Whether this feed keeps the change journal (false without `journalFor`, or while another process keeps it).
  public var keepsJournal: Bool { journal != nil }

  /// Starts reporting to `handler`, one change at a time, in order, on a queue of the feed's own. Call once.
  ///
  /// `immediately`, when given, is called on the watcher's own thread as soon as any file of the repository
  /// (outside `.git`) is seen to change, before the change is gathered for `handler`: for a cache of what the files
  /// show, which must be dropped before anyone told of the change asks again.
  public func start(
    immediately: (@Sendable () -> Void)? = nil, _ handler: @escaping @Sendable (Change) -> Void
  ) {
    let journal = self.journal
    let requestDirectory = self.requestDirectory
    files.start { [weak self] batch in
      // Recorded here, on the notification thread, not on the feed's queue: a query waits for the answer to its
      // request, and the handler may be busy.
      if let journal { JournalRecorder.record(batch, in: journal, requestDirectory: requestDirectory) }
      if let immediately {
        switch batch {
        // The journal's requests are every query's bookkeeping under .git: no file changed.
        case .events(let events): if events.contains(where: { !$0.path.hasPrefix(".git/") }) { immediately() }
        case .rescan, .rootGone: immediately()
        }
      }
      guard let self else { return }
      self.queue.async {
        guard !self.stopped else { return }
        switch batch {
        case .events(let events):
          // The journal's requests are nb's bookkeeping under .git, never a change to show.
          for event in events where !EditorFiles.isScratch(event.path) && !event.path.hasPrefix(".git/") {
            self.pending.insert(event.path)
          }
        case .rescan, .rootGone:
          self.lost = true
        }
        guard !self.scheduled, !self.pending.isEmpty || self.lost else { return }
        self.scheduled = true
        self.queue.asyncAfter(deadline: .now() + self.latency) {
          self.scheduled = false
          guard !self.stopped, !self.pending.isEmpty || self.lost else { return }
          let change = Change(paths: self.pending.sorted(), everything: self.lost)
          self.pending.removeAll()
          self.lost = false
          handler(change)
        }
      }
    }
  }

  /// Stops: no change is reported once it returns (from inside the handler: none after the one being handled).
  /// Idempotent.
  public func stop() {
    files.stop()
    journal?.close()
    if DispatchQueue.getSpecific(key: onQueue) == true {
      stopped = true
    } else {
      queue.sync { stopped = true }
    }
  }
}

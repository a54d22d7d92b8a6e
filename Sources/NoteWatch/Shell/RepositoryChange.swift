import Foundation
import NoteStore

/// What a ``RepositoryWatcher`` reports: a commit of edits made in the work tree, a sync, or something to tell the
/// person. An app refreshes its views from these; `nb watch` prints them.
public enum RepositoryChange: Equatable, Sendable {
  /// Watching has begun, and what was edited before it began is saved.
  case started(WatchStart)
  /// Edits made in the work tree were committed.
  case saved(SavedChanges)
  /// A sync exchanged commits with the remote (and maybe changed files here).
  case synced(SyncedChanges)
  /// Something worth telling: a note that could not be read, the remote unreachable or back, a pause.
  case notice(WatchNotice)
  /// Watching has ended (``RepositoryWatcher/stop()``, or the repository went away).
  case stopped
}

/// How the watcher watches.
public struct WatchStart: Equatable, Sendable {
  /// `inotify` or `polling`.
  public var backend: String
  /// Directories watched.
  public var directories: Int
  /// How long setting up the watches took.
  public var setupSeconds: TimeInterval
}

/// One commit of edits.
public struct SavedChanges: Equatable, Sendable {
  /// The commit made.
  public var commit: String
  /// New files.
  public var added: [String]
  /// Files changed.
  public var changed: [String]
  /// Files deleted.
  public var removed: [String]
  /// Files moved with their bytes unchanged.
  public var moved: [SaveResult.Move]
  /// How many paths the commit holds.
  public var count: Int { added.count + changed.count + removed.count }
}

/// One sync that did something.
public struct SyncedChanges: Equatable, Sendable {
  /// What the sync said.
  public var summary: SyncSummary
  /// The paths it changed in this work tree.
  public var paths: [String] { summary.changedPaths }
}

/// Something the watcher tells the person, once (not on every retry).
public struct WatchNotice: Equatable, Sendable {
  /// What kind of thing happened.
  public enum Kind: String, Sendable {
    /// A note nb could not read (malformed front matter, not UTF-8): not committed until it is fixed.
    case unreadable
    /// The remote cannot be reached; commits stay local and sync is retried with backoff.
    case offline
    /// The remote can be reached again.
    case online
    /// Saving waits: the repository is mid-merge/rebase, or another tool holds a lock.
    case paused
    /// Saving goes on again.
    case resumed
    /// The kernel dropped events, or watching fell back to polling: the tree is rescanned.
    case rescan
    /// A save or sync failed for another reason; it is retried.
    case error
    /// Watching ended because of this error (the repository went away, the watches could not be set up);
    /// ``RepositoryChange/stopped`` follows.
    case failed
  }
  /// What kind of thing happened.
  public var kind: Kind
  /// One line for a person.
  public var message: String
  /// The file it is about, when it is about one.
  public var path: String?
}

import CLibGit2

/// An operation git has left in progress in the repository (`git_repository_state`).
public enum RepositoryState: Sendable, Equatable {
  /// Nothing in progress.
  case none
  /// A merge stopped (usually on conflicts); `MERGE_HEAD` exists.
  case merge
  /// A revert (single or sequence) is in progress.
  case revert
  /// A cherry-pick (single or sequence) is in progress.
  case cherryPick
  /// `git bisect` is running.
  case bisect
  /// A rebase of any kind (plain, interactive, merge-based) is in progress.
  case rebase
  /// `git am` is applying a mailbox.
  case applyMailbox
  /// A state this wrapper does not name, with libgit2's raw value.
  case other(Int32)

  init(raw: Int32) {
    switch git_repository_state_t(UInt32(bitPattern: raw)) {
    case GIT_REPOSITORY_STATE_NONE: self = .none
    case GIT_REPOSITORY_STATE_MERGE: self = .merge
    case GIT_REPOSITORY_STATE_REVERT, GIT_REPOSITORY_STATE_REVERT_SEQUENCE: self = .revert
    case GIT_REPOSITORY_STATE_CHERRYPICK, GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE: self = .cherryPick
    case GIT_REPOSITORY_STATE_BISECT: self = .bisect
    case GIT_REPOSITORY_STATE_REBASE, GIT_REPOSITORY_STATE_REBASE_INTERACTIVE, GIT_REPOSITORY_STATE_REBASE_MERGE:
      self = .rebase
    // "am or rebase" is git's ambiguous rebase-apply directory; treating it as am keeps callers away from both.
    case GIT_REPOSITORY_STATE_APPLY_MAILBOX, GIT_REPOSITORY_STATE_APPLY_MAILBOX_OR_REBASE: self = .applyMailbox
    default: self = .other(raw)
    }
  }
}

/// One path's status in the two comparisons git status makes.
public struct StatusEntry: Equatable, Sendable {
  /// What happened to the path in one comparison.
  public enum Change: Sendable, Equatable {
    /// New in the newer side (for `unstaged`: an untracked file).
    case added
    /// Content or mode changed.
    case modified
    /// Gone from the newer side.
    case deleted
    /// Moved (only reported when rename detection is on, which `status` does not request).
    case renamed
    /// Changed kind, e.g. file to symlink.
    case typeChange
    /// The index holds unresolved conflict stages for the path.
    case conflicted
  }

  /// Work-tree relative path, `/` separated.
  public var path: String
  /// HEAD vs index; nil when unchanged.
  public var staged: Change?
  /// Index vs work tree; nil when unchanged. Untracked files report `.added`.
  public var unstaged: Change?

  /// Creates an entry (GitKit makes these; public for tests and fakes).
  public init(path: String, staged: Change?, unstaged: Change?) {
    self.path = path
    self.staged = staged
    self.unstaged = unstaged
  }
}

/// A commit as read from the object database.
public struct Commit: Sendable, Equatable {
  /// The commit's id.
  public var id: ObjectID
  /// Parent ids in order; the first is the branch the commit was made on.
  public var parents: [ObjectID]
  /// Who wrote the change.
  public var author: Signature
  /// Who recorded the commit.
  public var committer: Signature
  /// The full message as stored.
  public var message: String
  /// The subject line as `git log --format=%s` shows it (the first paragraph, unwrapped to one line; for the
  /// usual message this is simply the first line).
  public var summary: String
  /// The id of the commit's root tree.
  public var tree: ObjectID

  /// Creates a commit value (GitKit makes these; public for tests and fakes).
  public init(
    id: ObjectID, parents: [ObjectID], author: Signature, committer: Signature, message: String, summary: String,
    tree: ObjectID
  ) {
    self.id = id
    self.parents = parents
    self.author = author
    self.committer = committer
    self.message = message
    self.summary = summary
    self.tree = tree
  }
}

/// One file-level change between two trees.
public struct TreeChange: Sendable, Equatable {
  /// The kind of change.
  public enum Kind: Sendable, Equatable {
    /// The path is new.
    case added
    /// The path is gone.
    case deleted
    /// Same path, different content or mode.
    case modified
    /// Moved from `oldPath` to `newPath` (content may have changed too).
    case renamed
    /// Same path, different kind of entry (e.g. file to symlink).
    case typeChange
  }

  /// The kind of change.
  public var kind: Kind
  /// Path before the change; nil for `.added`.
  public var oldPath: String?
  /// Path after the change; nil for `.deleted`.
  public var newPath: String?
  /// Blob before the change; nil for `.added`.
  public var oldBlob: ObjectID?
  /// Blob after the change; nil for `.deleted`.
  public var newBlob: ObjectID?

  /// Creates a change value (GitKit makes these; public for tests and fakes).
  public init(kind: Kind, oldPath: String?, newPath: String?, oldBlob: ObjectID?, newBlob: ObjectID?) {
    self.kind = kind
    self.oldPath = oldPath
    self.newPath = newPath
    self.oldBlob = oldBlob
    self.newBlob = newBlob
  }
}

import Foundation

/// One file as one side of a sync has it.
public struct FileVersion: Equatable, Sendable {
  /// The file's bytes.
  public var bytes: Data
  /// Author time of the last commit that changed the file on that side; a note's edit time when it has no
  /// `updated`, and the edit time of every other file.
  public var commitTime: Date

  /// A version with the given bytes and last-change time.
  public init(bytes: Data, commitTime: Date) {
    self.bytes = bytes
    self.commitTime = commitTime
  }
}

/// Which side of a sync a version came from. `theirs` is the remote's (incoming) side.
public enum SyncSide: String, Equatable, Sendable {
  /// The local device's version.
  case ours
  /// The remote's version.
  case theirs
}

/// How one conflict was resolved: which version kept the path and where the other one is kept.
public struct SyncConflict: Equatable, Sendable {
  /// The path the winning version is at after the merge.
  public var path: String
  /// The side whose version kept `path`.
  public var winner: SyncSide
  /// The side whose version was written as a conflict copy.
  public var loser: SyncSide
  /// Where the losing version is kept (a conflict copy path).
  public var loserPath: String
  /// Why the versions could not be merged (a key, the body, an ink sidecar, the bytes of a file).
  public var reason: String

  /// A conflict record.
  public init(path: String, winner: SyncSide, loser: SyncSide, loserPath: String, reason: String) {
    self.path = path
    self.winner = winner
    self.loser = loser
    self.loserPath = loserPath
    self.reason = reason
  }
}

/// What a sync merge did, for the summary (`nb sync`, `nb sync --json`).
public struct SyncReport: Equatable, Sendable {
  /// Paths (after the merge) of notes whose two versions were combined by a three-way merge.
  public var merged: [String] = []
  /// Every conflict, with its winner and where the loser is kept.
  public var conflicts: [SyncConflict] = []
  /// Paths of notes deleted on one side and edited on the other, kept because the edit wins.
  public var resurrected: [String] = []
  /// Things the user should know that changed nothing they wrote (an id that could not be set, a renamed file).
  public var warnings: [String] = []

  /// An empty report.
  public init() {}
}

/// The outcome of ``SyncPolicy/resolve(base:ours:theirs:device:now:force:)``.
public enum SyncResolution: Equatable, Sendable {
  /// The merged tree (path → bytes) and what happened.
  case resolved(tree: [String: Data], report: SyncReport)
  /// The merge would delete more than ``SyncPolicy/maxDeletedNotes`` notes or a whole notebook; nothing was
  /// decided. `reason` says what would be deleted.
  case needsForce(reason: String)
}

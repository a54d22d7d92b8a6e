import Foundation

/// A file's content as the sync policy sees it: bytes in hand, or a stored file known by its content id whose bytes
/// are read only if the policy needs them. Two stored contents are equal when their ids are (ids are content
/// hashes), so a file identical on every side is never read.
struct FileContent: Equatable, @unchecked Sendable {
  private let bytesInHand: Data?
  /// The content id of a stored file; nil for bytes in hand.
  let storedID: String?
  private let stored: StoredBytes?

  /// Bytes in hand.
  static func bytes(_ data: Data) -> FileContent { FileContent(bytesInHand: data, storedID: nil, stored: nil) }

  /// A stored file with content id `id`, read by `load` when first needed (nil: it could not be read).
  static func stored(id: String, load: @escaping () -> Data?) -> FileContent {
    FileContent(bytesInHand: nil, storedID: id, stored: StoredBytes(load))
  }

  /// The bytes, read on first use for a stored file; nil when a stored file could not be read.
  var data: Data? { bytesInHand ?? stored?.data }

  static func == (a: FileContent, b: FileContent) -> Bool {
    if let one = a.storedID, let two = b.storedID { return one == two }
    return a.data == b.data
  }

  /// Reads once, keeps the result.
  private final class StoredBytes {
    private var load: (() -> Data?)?
    private var loaded: Data?

    init(_ load: @escaping () -> Data?) { self.load = load }

    var data: Data? {
      if let load {
        loaded = load()
        self.load = nil
      }
      return loaded
    }
  }
}

/// One file as one side of a sync has it.
struct FileVersion: Equatable, Sendable {
  /// The file's content.
  var content: FileContent
  /// Author time of the last commit that changed the file on that side; a note's edit time when it has no
  /// `updated`, and the edit time of every other file.
  var commitTime: Date
  /// Who made that commit: the device its `Nb-Device:` trailer names, else (a plain git commit) its author's name;
  /// a losing version's conflict copy is named after it. Nil when unknown (a base version): the copy is then named
  /// after the device running the merge.
  var author: String?

  /// A version with the given bytes, last-change time and (when known) the device or author of that change.
  init(bytes: Data, commitTime: Date, author: String? = nil) {
    self.init(content: .bytes(bytes), commitTime: commitTime, author: author)
  }

  /// A version with the given content, last-change time and (when known) the device or author of that change.
  init(content: FileContent, commitTime: Date, author: String? = nil) {
    self.content = content
    self.commitTime = commitTime
    self.author = author
  }

  /// The bytes (empty for a stored file that could not be read).
  var bytes: Data { content.data ?? Data() }
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
struct SyncReport: Equatable, Sendable {
  /// Paths (after the merge) of notes whose two versions were combined by a three-way merge.
  public var merged: [String] = []
  /// Every conflict, with its winner and where the loser is kept.
  public var conflicts: [SyncConflict] = []
  /// Paths of notes deleted on one side and edited on the other, kept because the edit wins.
  public var resurrected: [String] = []
  /// Things the user should know that changed nothing they wrote (an id that could not be set, a renamed file).
  public var warnings: [String] = []
  /// Links the merge rewrote to follow a note another side renamed or moved (``LinkFollow``).
  public var followedLinks: [FollowedLink] = []

  /// An empty report.
  init() {}
}

/// The outcome of ``SyncPolicy/merge(base:ours:theirs:device:now:force:)``: the merged tree's contents, some of
/// them files already stored and never read.
enum SyncMerge: Equatable, Sendable {
  /// The merged tree (path → content) and what happened.
  case merged(tree: [String: FileContent], report: SyncReport)
  /// See ``SyncResolution/needsForce(reason:)``.
  case needsForce(reason: String)
}

/// The outcome of ``SyncPolicy/resolve(base:ours:theirs:device:now:force:)``.
enum SyncResolution: Equatable, Sendable {
  /// The merged tree (path → bytes) and what happened.
  case resolved(tree: [String: Data], report: SyncReport)
  /// The merge would delete more than ``SyncPolicy/maxDeletedNotes`` notes or a whole notebook; nothing was
  /// decided. `reason` says what would be deleted.
  case needsForce(reason: String)
}

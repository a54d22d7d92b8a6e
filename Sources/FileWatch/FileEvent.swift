import Foundation

/// One change seen under the watched root.
public struct FileEvent: Hashable, Sendable, CustomStringConvertible {
  public enum Kind: String, Sendable { case created, modified, removed, renamedFrom, renamedTo }

  /// Relative to the root, "/"-separated, never empty, no leading "./" or "/".
  public var path: String
  public var kind: Kind
  public var isDirectory: Bool

  public init(path: String, kind: Kind, isDirectory: Bool) {
    self.path = path
    self.kind = kind
    self.isDirectory = isDirectory
  }

  /// `created notes/a.md`, a directory with a trailing `/`: for logs and test failures.
  public var description: String { "\(kind.rawValue) \(path)\(isDirectory ? "/" : "")" }
}

/// What a watcher hands its handler: one group of changes, or news that changes were lost or can no longer be seen.
public enum FileWatchBatch: Equatable, Sendable {
  /// Events in the order the kernel reported them (after filtering ignored paths).
  case events([FileEvent])
  /// Events were lost (inotify IN_Q_OVERFLOW, or a watch could not be added to a new directory): the consumer must
  /// rescan everything. The reason is one human line.
  case rescan(reason: String)
  /// The root itself was deleted or moved away; no more batches follow.
  case rootGone
}

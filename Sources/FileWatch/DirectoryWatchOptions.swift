import Foundation

/// How a `DirectoryWatcher` watches: the backend, the polling period and which paths it leaves alone.
public struct DirectoryWatchOptions: Sendable {
  public enum Backend: String, Sendable { case automatic, inotify, polling }

  /// `.automatic` (the default): inotify on Linux, polling elsewhere.
  public var backend: Backend
  /// The polling backend's period in seconds, default 1.
  public var pollInterval: TimeInterval
  /// Asked for every directory before it is watched (skip returns true: not watched, nothing under it reported) and
  /// for every file before an event is reported. Paths relative as in `FileEvent`. nb passes one that skips ".git"
  /// and gitignored paths.
  public var isIgnored: @Sendable (_ path: String, _ isDirectory: Bool) -> Bool
  /// Directories (relative to the root, inside an ignored directory) watched on their own, not recursively: each
  /// file created in one is reported as `created`, in order with the tree's events (inotify keeps one queue), and
  /// the directory's own removal as `removed`. One that does not exist yet, or was removed, is watched as soon as
  /// it exists again (checked before each wait). nb watches its change journal's request directory this way.
  public var alsoWatch: [String] = []
  /// Test hook: behave as if the kernel's per-user watch limit were this many watches (nil: the real limit).
  public var watchLimit: Int?

  public init(
    backend: Backend = .automatic, pollInterval: TimeInterval = 1, watchLimit: Int? = nil,
    isIgnored: @escaping @Sendable (String, Bool) -> Bool = { _, _ in false }
  ) {
    self.backend = backend
    self.pollInterval = pollInterval
    self.watchLimit = watchLimit
    self.isIgnored = isIgnored
  }
}

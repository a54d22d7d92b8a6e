import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The portable backend: a snapshot of the non-ignored tree (path -> inode, size, mtime, mode, type) every
/// `pollInterval`, diffed against the previous one. It cannot see renames: a rename is a removal and a creation, an
/// atomic save onto an existing note a modification (its inode changed).
final class PollingSource: WatchSource {
  private let root: String
  private let options: DirectoryWatchOptions
  /// The root's identity when the watcher started: a different inode at the path means it was moved away.
  private let rootIdentity: (device: UInt64, inode: UInt64)
  private var snapshot: [String: EntryStat]
  private(set) var watchedDirectories: Int

  init(root: String, options: DirectoryWatchOptions) throws {
    self.root = root
    self.options = options
    switch FileSystem.status(of: root) {
    case .failure(let error):
      throw error.code == ENOENT
        ? FileWatchError.rootMissing(path: root)
        : FileWatchError.system(call: "stat", path: root, errno: error.code)
    case .success(let info):
      guard info.isDirectory else { throw FileWatchError.notADirectory(path: root) }
      rootIdentity = (info.device, info.inode)
    }
    (snapshot, watchedDirectories) = Self.scan(root: root, options: options)
  }

  func next(wakeFD: Int32) -> WatchStep {
    let milliseconds = Int32(clamping: Int((max(options.pollInterval, 0.001) * 1000).rounded()))
    if waitForInput([wakeFD], timeout: milliseconds)[0] { return .woken }
    guard case .success(let info) = FileSystem.status(of: root), info.isDirectory,
      info.device == rootIdentity.device, info.inode == rootIdentity.inode
    else { return .deliver([.rootGone]) }
    let (current, directories) = Self.scan(root: root, options: options)
    // A poll cannot order what it finds; the `alsoWatch` directories' files (a query's request) go last, after
    // the edits made before them.
    let found = Self.diff(from: snapshot, to: current)
    let extra = found.filter { event in options.alsoWatch.contains { FileSystem.isWithin(event.path, $0) } }
    let events = found.filter { !options.isIgnored($0.path, $0.isDirectory) && !extra.contains($0) } + extra
    snapshot = current
    watchedDirectories = directories
    return .deliver(events.isEmpty ? [] : [.events(events)])
  }

  func close() {}

  /// Every non-ignored path under `root` (ignored directories are neither listed nor entered; files are filtered
  /// when reported, so `isIgnored` is asked only about changes) and the number of directories scanned.
  static func scan(root: String, options: DirectoryWatchOptions) -> ([String: EntryStat], Int) {
    var entries: [String: EntryStat] = [:]
    var directories = 0
    var pending = [""]
    while let relative = pending.popLast() {
      directories += 1
      let absolute = relative.isEmpty ? root : root + "/" + relative
      guard let list = FileSystem.entries(of: absolute, withStat: true) else { continue }
      for entry in list {
        guard let info = entry.stat else { continue }
        let path = FileSystem.join(relative, entry.name)
        if info.isDirectory {
          if options.isIgnored(path, true) { continue }
          pending.append(path)
        }
        entries[path] = info
      }
    }
    // The `alsoWatch` directories: their files only, listed after the tree, so a request made after an edit is
    // reported after it.
    for extra in options.alsoWatch {
      for entry in FileSystem.entries(of: root + "/" + extra, withStat: true) ?? [] {
        guard let info = entry.stat, !info.isDirectory else { continue }
        entries[FileSystem.join(extra, entry.name)] = info
      }
    }
    return (entries, directories)
  }

  /// The events that turn `old` into `new`: removals (deepest first), then creations (parents first), then
  /// modifications. A path whose type changed is removed and created; a file whose inode, size, mtime or mode
  /// changed is modified; a directory is never "modified" (its mtime moves with every entry added or removed).
  static func diff(from old: [String: EntryStat], to new: [String: EntryStat]) -> [FileEvent] {
    var removed: [FileEvent] = []
    var created: [FileEvent] = []
    var modified: [FileEvent] = []
    for (path, before) in old {
      guard let after = new[path], after.isDirectory == before.isDirectory else {
        removed.append(FileEvent(path: path, kind: .removed, isDirectory: before.isDirectory))
        continue
      }
      if !after.isDirectory
        && (after.inode != before.inode || after.device != before.device || after.size != before.size
          || after.modifiedNanoseconds != before.modifiedNanoseconds || after.mode != before.mode)
      {
        modified.append(FileEvent(path: path, kind: .modified, isDirectory: false))
      }
    }
    for (path, after) in new where old[path]?.isDirectory != after.isDirectory {
      created.append(FileEvent(path: path, kind: .created, isDirectory: after.isDirectory))
    }
    return removed.sorted { $0.path > $1.path } + created.sorted { $0.path < $1.path }
      + modified.sorted { $0.path < $1.path }
  }
}

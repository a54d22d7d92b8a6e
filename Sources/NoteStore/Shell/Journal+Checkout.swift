import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Sync's checkouts (a fast-forward, or the merge commit it made) under the journal. git writes the work tree first
/// and moves the branch last; a crash between the two would leave the work tree (partly) at the new commit while
/// the branch stays at the old one, and the next `nb save` would commit that as an ordinary save. The journal holds
/// one `checkout` record (`from`, `to`); the two commits' trees say what each path was and was to become, so no
/// bytes need recording.
extension NoteRepository {
  /// Checks out `target` over `expected` (the branch's value) with a `checkout` journal record made durable first.
  /// Returns the paths that blocked it (nothing was written then). When the checkout fails part-way, what it wrote
  /// is rolled back before the error goes on.
  func journaledCheckout(_ target: String, expected: String?, message: String) throws -> [String] {
    let journal = try Journal(
      directory: journalDirectory, head: expected,
      first: [(JournalRecord(kind: .checkout, to: target, from: expected), nil)])
    let blocked: [String]
    do {
      blocked = try git.checkout(
        target, expected: expected, message: message, onFileWritten: TestFailpoints.checkoutFileWritten)
    } catch {
      if let message = try? recoverInterruptedTransaction() { notice?(message) }
      throw error
    }
    journal.finish()
    return blocked
  }

  /// Settles a journal whose transaction is a checkout (see ``recoverInterruptedTransaction()``): HEAD at `to`
  /// means it finished; HEAD at `from` means the branch never moved, so every path the two commits differ on that
  /// holds `to`'s version (or a torn write of it) gets `from`'s back, one edited since is left as it is with
  /// `from`'s version kept under `.git/nb/recovered/`, and the index is put back to HEAD's for those paths.
  /// HEAD anywhere else: something else moved it since, and the work tree is left alone.
  func recoverInterruptedCheckout(_ record: JournalRecord, begin: JournalRecord, description: String) throws
    -> String
  {
    let directory = journalDirectory
    let git = try self.git
    let head = try git.headID()
    let target = record.to
    func short(_ id: String?) -> String { id.map { String($0.prefix(8)) } ?? "nothing" }
    if head == target {
      Journal.remove(directory: directory)
      return "nb: an interrupted \(description) had finished checking out \(short(target)); "
        + "only its journal was left to remove"
    }
    guard head == record.from, let target else {
      Journal.remove(directory: directory)
      return "nb: an interrupted \(description) was checking out \(short(target)) over \(short(record.from)), "
        + "but the branch has moved to \(short(head)) since; the work tree was left as it is (see 'git status')"
    }
    let old = try record.from.map { try git.snapshot(of: $0) } ?? [:]
    let new = try git.snapshot(of: target)
    let paths = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()

    var recovered = RecoveredFiles(gitDirectory: gitDirectory, begin: begin)
    var restored = 0
    var removedFrom: Set<String> = []
    for path in paths {
      let before = old[path]
      let after = new[path]
      // A submodule's content is not in the work tree; git leaves its directory alone too.
      if before?.mode == .submodule || after?.mode == .submodule { continue }
      let full = absolute(path)
      let current = WorkTreeState(full)
      let priorData = try before.map { try git.read($0) }
      let targetData = try after.map { try git.read($0) }
      if current.matches(priorData, mode: before?.mode) {
        if let before, current.isRegular, (before.mode == .executable) != current.isExecutable {
          setExecutable(full, before.mode == .executable)
        }
        continue
      }
      // The checkout's version, or a torn write of it: git writes a file from the start, over an emptied file or —
      // one that does not shrink — over the old bytes (GitKit's in-place checkout).
      let isCheckouts =
        current.matches(targetData, mode: after?.mode) || current.isPrefix(of: targetData, mode: after?.mode)
        || current.isPartialOverwrite(of: targetData, over: priorData, mode: after?.mode)
      if isCheckouts {
        if let before, let priorData {
          try put(full, priorData, mode: before.mode)
        } else {
          try FileSystem.remove(full)
          removedFrom.insert((path as NSString).deletingLastPathComponent)
        }
        restored += 1
      } else if let priorData, before?.mode != .link {
        recovered.keep(path, priorData)
      }
    }
    // Directories the checkout made for files it added go with them, as git's own checkout back would do.
    let oldDirectories = Set(old.keys.flatMap(Self.ancestors))
    for directory in removedFrom.flatMap(Self.ancestorsAndSelf).sorted(by: { $0.count > $1.count })
    where !directory.isEmpty && !oldDirectories.contains(directory) {
      _ = rmdir(absolute(directory))
    }
    // The checkout may have written the index before it was stopped. (A path with `*?[` is matched as a pattern
    // too; that only puts more entries back to HEAD's.)
    try git.resetIndex(paths: paths)
    Journal.remove(directory: directory)
    return "nb: rolled back an interrupted sync checkout (\(description)) of \(short(target)): \(restored) "
      + "file\(restored == 1 ? "" : "s") put back as they were at \(short(record.from)); "
      + "run 'nb sync' again to take the remote's changes" + recovered.summary
  }

  private func put(_ full: String, _ data: Data, mode: StoredFile.Mode) throws {
    try FileSystem.makeDirectory(containing: full)
    if mode == .link {
      if FileSystem.exists(full) { try FileSystem.remove(full) }
      guard symlink(String(decoding: data, as: UTF8.self), full) == 0 else {
        throw AtomicFile.ioError(full, errno)
      }
      return
    }
    if FileSystem.lstatInfo(full)?.isSymlink == true { try FileSystem.remove(full) }
    try AtomicFile.write(data, to: URL(fileURLWithPath: full))
    setExecutable(full, mode == .executable)
  }

  private func setExecutable(_ full: String, _ executable: Bool) {
    var s = stat()
    guard stat(full, &s) == 0 else { return }
    let bits = mode_t(S_IXUSR | S_IXGRP | S_IXOTH)
    var mode = s.st_mode & 0o7777
    if executable { mode |= (mode & 0o444) >> 2 } else { mode &= ~bits }
    _ = chmod(full, mode)
  }

  private static func ancestors(_ path: String) -> [String] {
    var result: [String] = []
    var current = (path as NSString).deletingLastPathComponent
    while !current.isEmpty {
      result.append(current)
      current = (current as NSString).deletingLastPathComponent
    }
    return result
  }

  private static func ancestorsAndSelf(_ directory: String) -> [String] {
    directory.isEmpty ? [] : [directory] + ancestors(directory)
  }
}

/// What the work tree holds at one path, for comparing with a stored version.
private enum WorkTreeState {
  case absent
  case file(Data, executable: Bool)
  case link(String)
  /// A directory, or a file that cannot be read: never one of the two versions.
  case other

  init(_ full: String) {
    guard let info = FileSystem.lstatInfo(full) else {
      self = .absent
      return
    }
    if info.isSymlink {
      if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: full) {
        self = .link(target)
      } else {
        self = .other
      }
    } else if info.isRegular, let data = try? FileSystem.read(full) {
      self = .file(data, executable: access(full, X_OK) == 0)
    } else {
      self = .other
    }
  }

  var isRegular: Bool {
    if case .file = self { return true }
    return false
  }

  var isExecutable: Bool {
    if case .file(_, let executable) = self { return executable }
    return false
  }

  /// Whether this is `data` (nil: no file) stored with `mode`; an executable bit alone does not make a difference.
  func matches(_ data: Data?, mode: StoredFile.Mode?) -> Bool {
    switch self {
    case .absent: return data == nil
    case .file(let bytes, _): return data != nil && mode != .link && bytes == data
    case .link(let target): return data != nil && mode == .link && Data(target.utf8) == data
    case .other: return false
    }
  }

  /// Whether this is a regular file holding `data` written over `prior` from the start without emptying it first,
  /// stopped part-way: `data`'s first bytes, then the rest of `prior` (so as long as `prior`, which `data` is not
  /// shorter than).
  func isPartialOverwrite(of data: Data?, over prior: Data?, mode: StoredFile.Mode?) -> Bool {
    guard case .file(let bytes, _) = self, let data, let prior, mode != .link, bytes.count == prior.count,
      data.count >= prior.count
    else { return false }
    let (current, old, new) = ([UInt8](bytes), [UInt8](prior), [UInt8](data))
    // The write reached at least the last byte that differs from `prior`; everything before it must be `data`'s.
    guard let last = current.indices.last(where: { current[$0] != old[$0] }) else { return false }
    return current[...last].elementsEqual(new[...last])
  }

  /// Whether this is a regular file holding a proper beginning of `data`: a write of it stopped part-way.
  func isPrefix(of data: Data?, mode: StoredFile.Mode?) -> Bool {
    guard case .file(let bytes, _) = self, let data, mode != .link, bytes.count < data.count else { return false }
    return data.starts(with: bytes)
  }
}

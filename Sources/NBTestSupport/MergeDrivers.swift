// Test support, not product code: nb's sync merges notes and ink in Swift and never runs a libgit2 merge, so no
// product module registers a merge driver. These drivers exist so that tests can prove the ink merge also works
// when a libgit2 merge (`git_merge_trees`) calls it through `.gitattributes`, as a libgit2-based app embedding
// NoteStore would. That needs libgit2 itself, hence this target's own dependency on CLibGit2: it uses no GitKit
// internals, only a handle of its own opened by path (see `Repository.mergeTrees`).

import CLibGit2
import Foundation
import GitKit

/// The three versions of one file that a merge driver reconciles.
///
/// A side is nil when the file does not exist there: `ancestor` is nil when both sides added the file
/// independently (add/add). libgit2 only calls a driver when both `ours` and `theirs` exist, so in practice those
/// two are always present; they stay optional so a driver never has to trust that.
public struct MergeDriverInput: Sendable, Equatable {
  /// The work-tree relative path (`/`-separated) the merged file will have.
  public let path: String
  /// The file in the merge base; nil for add/add.
  public let ancestor: Data?
  /// The file on our side (the branch being merged into).
  public let ours: Data?
  /// The file on their side (the branch being merged in).
  public let theirs: Data?

  /// Creates an input (the driver callback makes these; public so drivers can be unit-tested without a repository).
  public init(path: String, ancestor: Data?, ours: Data?, theirs: Data?) {
    self.path = path
    self.ancestor = ancestor
    self.ours = ours
    self.theirs = theirs
  }
}

/// What a merge driver decided for one file.
public enum MergeDriverResult: Sendable, Equatable {
  /// The merged bytes; they become the file's blob in the merged tree.
  case merged(Data)
  /// The versions cannot be reconciled: the path stays conflicted (all three stages are kept).
  case conflict
  /// Let libgit2's own line-level merge (the `text` driver) handle the file instead.
  case fallBackToText
}

/// Process-wide registry of in-process merge drivers, selected by a path's `merge=<name>` attribute.
///
/// `.gitattributes` says which paths use a driver (`*.ink.jsonl merge=nb-ink`); when a merge (`git_merge_trees`,
/// `Repository.mergeTrees`) finds a path that both sides changed, libgit2 calls the registered closure with the three
/// versions. Paths both sides did not change, or that only one side changed, never reach a driver.
public enum MergeDrivers {
  /// The signature of a driver: a pure function of the three versions.
  public typealias Merge = @Sendable (MergeDriverInput) -> MergeDriverResult

  /// Registers `merge` as the driver `name` for every repository in the process. Registering a name again replaces
  /// the closure; merges already running may still use the previous one.
  ///
  /// The closure runs synchronously on the thread that runs the merge, once per path that needs it.
  ///
  /// libgit2's driver table itself is not thread-safe, and only the first registration of a name touches it: make
  /// that first call before any merge can run concurrently (e.g. at start-up). Replacing a closure later is safe.
  ///
  /// - Throws: `GitError` from `git_merge_driver_register`, e.g. `GIT_EEXISTS` for libgit2's built-in
  ///   `text`, `union` and `binary` drivers or a name registered with libgit2 by someone other than this type.
  public static func register(name: String, _ merge: @escaping Merge) throws {
    try registry.register(name: name, merge)
  }

  /// True when `name` has been registered through `register(name:_:)` in this process.
  public static func isRegistered(name: String) -> Bool {
    registry.isRegistered(name: name)
  }

  static let registry = Registry()

  /// The name -> driver table. The `git_merge_driver` structs are allocated once per name and never freed:
  /// libgit2 keeps the pointer for the rest of the process, and freeing would need `git_merge_driver_unregister`,
  /// which is not safe while another thread might be merging.
  final class Registry: @unchecked Sendable {
    private let lock = NSLock()
    private var drivers: [String: UnsafeMutablePointer<git_merge_driver>] = [:]
    /// Keyed by the driver struct's address: the C callback receives only that pointer, and unlike its
    /// `filter_name` argument it cannot differ from the name we registered.
    private var closures: [UnsafeMutableRawPointer: Merge] = [:]

    func register(name: String, _ merge: @escaping Merge) throws {
      initializeLibGit2()
      lock.lock()
      defer { lock.unlock() }
      if let existing = drivers[name] {
        closures[UnsafeMutableRawPointer(existing)] = merge
        return
      }
      let driver = UnsafeMutablePointer<git_merge_driver>.allocate(capacity: 1)
      driver.initialize(
        to: git_merge_driver(
          version: UInt32(GIT_MERGE_DRIVER_VERSION), initialize: nil, shutdown: nil, apply: mergeDriverApply))
      // The closure goes in first: once libgit2 knows the driver, a merge may call it at once.
      closures[UnsafeMutableRawPointer(driver)] = merge
      let rc = git_merge_driver_register(name, driver)
      if rc < 0 {
        closures[UnsafeMutableRawPointer(driver)] = nil
        driver.deinitialize(count: 1)
        driver.deallocate()
        throw lastGitError("git_merge_driver_register(\(name))", rc)
      }
      drivers[name] = driver
    }

    func isRegistered(name: String) -> Bool {
      lock.lock()
      defer { lock.unlock() }
      return drivers[name] != nil
    }

    func closure(for driver: UnsafeMutablePointer<git_merge_driver>) -> Merge? {
      lock.lock()
      defer { lock.unlock() }
      return closures[UnsafeMutableRawPointer(driver)]
    }
  }
}

/// libgit2's `apply` callback for every driver registered here: reads the three blobs, runs the closure outside the lock
/// (so a closure may itself register drivers) and hands the result back in libgit2's terms.
private let mergeDriverApply: git_merge_driver_apply_fn = { driver, pathOut, modeOut, mergedOut, _, source in
  guard let driver, let pathOut, let modeOut, let mergedOut, let source else {
    git_error_set_str(Int32(GIT_ERROR_INVALID.rawValue), "merge driver called without its arguments")
    return GIT_EINVALID.rawValue
  }
  guard let merge = MergeDrivers.registry.closure(for: driver) else {
    git_error_set_str(Int32(GIT_ERROR_MERGE.rawValue), "merge driver has no registered closure")
    return GIT_ERROR.rawValue
  }
  let ancestorEntry = git_merge_driver_source_ancestor(source)
  let oursEntry = git_merge_driver_source_ours(source)
  let theirsEntry = git_merge_driver_source_theirs(source)
  // libgit2 only resolves contents when both sides exist, but it costs nothing to refuse rather than crash.
  guard let resultEntry = chooseResultEntry(ancestor: ancestorEntry, ours: oursEntry, theirs: theirsEntry),
    let cPath = resultEntry.pointee.path
  else {
    return GIT_PASSTHROUGH.rawValue
  }
  let path = String(cString: cPath)
  let repo = git_merge_driver_source_repo(source)

  let input: MergeDriverInput
  do {
    input = MergeDriverInput(
      path: path,
      ancestor: try blobData(repo, ancestorEntry, side: "ancestor", path: path),
      ours: try blobData(repo, oursEntry, side: "ours", path: path),
      theirs: try blobData(repo, theirsEntry, side: "theirs", path: path))
  } catch {
    git_error_set_str(Int32(GIT_ERROR_MERGE.rawValue), "merge driver: \(error)")
    return (error as? GitError)?.code ?? GIT_ERROR.rawValue
  }

  switch merge(input) {
  case .conflict:
    return GIT_EMERGECONFLICT.rawValue
  case .fallBackToText:
    return GIT_PASSTHROUGH.rawValue
  case .merged(let data):
    // Why this call: libgit2 frees `merged_out` with its own allocator (`git_buf_dispose`), so the bytes must be
    // allocated by libgit2. Since 1.2 a `git_buf` is output-only for callers and `git_buf_set`/`git_buf_grow` are
    // deprecated (hidden by GIT_DEPRECATE_HARD, and absent from a libgit2 built that way); malloc would only work
    // while libgit2's allocator happens to be the C one. Applying an empty (NULL) filter list is the current public
    // API that copies a buffer into a libgit2-owned `git_buf` verbatim; filters.h documents NULL as a valid list.
    let rc = data.withUnsafeBytes { bytes in
      git_filter_list_apply_to_buffer(
        mergedOut, nil, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
    }
    if rc < 0 { return rc }
    // Points into libgit2's own index entry, which outlives this call; libgit2 copies the path right after.
    pathOut.pointee = UnsafePointer(cPath)
    modeOut.pointee = mergedMode(
      ancestor: ancestorEntry?.pointee.mode, ours: oursEntry?.pointee.mode, theirs: theirsEntry?.pointee.mode)
    return 0
  }
}

/// The entry whose path the merged file takes: the side that moved the file away from the ancestor's path, so a
/// rename on one side survives the merge; otherwise ours.
private func chooseResultEntry(
  ancestor: UnsafePointer<git_index_entry>?, ours: UnsafePointer<git_index_entry>?,
  theirs: UnsafePointer<git_index_entry>?
) -> UnsafePointer<git_index_entry>? {
  guard let ours, let theirs else { return nil }
  if let ancestorPath = ancestor?.pointee.path, let oursPath = ours.pointee.path,
    strcmp(ancestorPath, oursPath) == 0
  {
    return theirs
  }
  return ours
}

/// The merged file's mode: a side's mode change wins, as in git's own merge; for add/add the file is executable
/// if either side made it so.
private func mergedMode(ancestor: UInt32?, ours: UInt32?, theirs: UInt32?) -> UInt32 {
  let executable = UInt32(GIT_FILEMODE_BLOB_EXECUTABLE.rawValue)
  let ours = ours ?? 0
  let theirs = theirs ?? 0
  guard let ancestor, ancestor != 0 else {
    return ours == executable || theirs == executable ? executable : UInt32(GIT_FILEMODE_BLOB.rawValue)
  }
  return ancestor == ours ? theirs : ours
}

/// The bytes of one side's blob; nil when the side does not have the file.
private func blobData(
  _ repo: OpaquePointer?, _ entry: UnsafePointer<git_index_entry>?, side: String, path: String
) throws -> Data? {
  guard let entry else { return nil }
  var oid = entry.pointee.id
  var blob: OpaquePointer?
  try checkGit("git_blob_lookup(\(side) of \(path))", git_blob_lookup(&blob, repo, &oid))
  defer { git_blob_free(blob) }
  let size = Int(git_blob_rawsize(blob))
  guard size > 0, let raw = git_blob_rawcontent(blob) else { return Data() }
  return Data(bytes: raw, count: size)
}

/// libgit2 is initialised once per process and never shut down (GitKit does the same; the calls nest).
private let libgit2Initialized: Int32 = git_libgit2_init()

func initializeLibGit2() {
  _ = libgit2Initialized
}

/// The `GitError` for a libgit2 call that just returned `code`, with the thread's last error text.
func lastGitError(_ function: String, _ code: Int32) -> GitError {
  var message = ""
  if let last = git_error_last(), let text = last.pointee.message {
    message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
  }
  return GitError(function: function, code: code, message: message)
}

/// Throws `lastGitError` when a libgit2 call returned a negative code.
func checkGit(_ function: @autoclosure () -> String, _ rc: Int32) throws {
  if rc < 0 { throw lastGitError(function(), rc) }
}

import CLibGit2
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The kind of a tree entry, as git records it in the mode field.
public enum FileMode: UInt32, Sendable, Hashable {
  /// A regular file (100644).
  case blob = 0o100644
  /// An executable file (100755).
  case executable = 0o100755
  /// A symbolic link; the blob holds the target (120000).
  case link = 0o120000
  /// A submodule commit (160000).
  case gitlink = 0o160000
}

/// One file of a tree: its blob (or, for a submodule, commit) and mode.
public struct TreeEntry: Sendable, Hashable {
  /// The blob id.
  public var id: ObjectID
  /// The entry kind.
  public var mode: FileMode

  /// Creates an entry.
  public init(id: ObjectID, mode: FileMode = .blob) {
    self.id = id
    self.mode = mode
  }
}

/// The paths a checkout touches: files written in place (not shrinking, or new) and the rest.
private struct CheckoutPlan: Equatable {
  var inPlace: [String]
  var others: [String]
}

/// The outcome of `checkoutSafely`.
public enum SafeCheckoutResult: Sendable, Equatable {
  /// The work tree, index and branch now match the target commit.
  case checkedOut
  /// Nothing was changed: these work-tree paths hold edits (or untracked files) the checkout would overwrite.
  case blocked(conflicts: [String])
}

extension Repository {
  // MARK: References

  /// The commit `name` resolves to (`refs/heads/main`, `refs/remotes/origin/main`, `HEAD`); nil when absent.
  public func reference(named name: String) throws -> ObjectID? {
    var oid = git_oid()
    let rc = git_reference_name_to_id(&oid, pointer, name)
    if rc == GIT_ENOTFOUND.rawValue || rc == GIT_EUNBORNBRANCH.rawValue { return nil }
    try check("git_reference_name_to_id(\(name))", rc)
    return ObjectID(oid)
  }

  /// Creates or moves the direct reference `name` (e.g. `refs/nb/backup/20261122T101500Z`) to `id`, with a
  /// reflog entry. With `expected` the update is a compare-and-swap on the current value (`.some(nil)`: the
  /// reference must not exist yet); without it the reference is simply set.
  public func setReference(_ name: String, to id: ObjectID, message: String, expected: ObjectID?? = nil) throws {
    var ref: OpaquePointer?
    var newOID = id.oid
    let rc: Int32
    switch expected {
    case .none:
      rc = git_reference_create(&ref, pointer, name, &newOID, 1, message)
    case .some(.none):
      rc = git_reference_create(&ref, pointer, name, &newOID, 0, message)
    case .some(.some(let old)):
      var oldOID = old.oid
      rc = git_reference_create_matching(&ref, pointer, name, &newOID, 1, &oldOID, message)
    }
    git_reference_free(ref)
    try check("git_reference_create(\(name))", rc)
  }

  /// Deletes the reference `name`; no error when it does not exist.
  public func deleteReference(_ name: String) throws {
    var ref: OpaquePointer?
    let rc = git_reference_lookup(&ref, pointer, name)
    if rc == GIT_ENOTFOUND.rawValue { return }
    try check("git_reference_lookup(\(name))", rc)
    defer { git_reference_free(ref) }
    try check("git_reference_delete(\(name))", git_reference_delete(ref))
  }

  /// References whose names match a glob (`refs/nb/backup/*`), resolved to their ids, keyed by full name.
  public func references(matching glob: String) throws -> [String: ObjectID] {
    var iterator: OpaquePointer?
    try check("git_reference_iterator_glob_new(\(glob))", git_reference_iterator_glob_new(&iterator, pointer, glob))
    defer { git_reference_iterator_free(iterator) }
    var result: [String: ObjectID] = [:]
    while true {
      var ref: OpaquePointer?
      let rc = git_reference_next(&ref, iterator)
      if rc == GIT_ITEROVER.rawValue { break }
      try check("git_reference_next", rc)
      defer { git_reference_free(ref) }
      guard let cName = git_reference_name(ref) else { continue }
      var resolved: OpaquePointer?
      guard git_reference_resolve(&resolved, ref) == 0 else { continue }
      defer { git_reference_free(resolved) }
      if let target = git_reference_target(resolved) { result[String(cString: cName)] = ObjectID(target) }
    }
    return result
  }

  /// The upstream of local `branch` from `branch.<name>.remote` / `.merge`, e.g. `("origin", "refs/heads/main")`;
  /// nil when not configured.
  public func upstream(of branch: String) -> (remote: String, branch: String)? {
    guard let remote = config("branch.\(branch).remote"), let merge = config("branch.\(branch).merge") else {
      return nil
    }
    return (remote, merge)
  }

  /// Records `remote`'s `remoteBranch` (full name, `refs/heads/main`) as the upstream of local `branch`, as
  /// `git push -u` / `git branch --set-upstream-to` do.
  public func setUpstream(of branch: String, remote: String, remoteBranch: String) throws {
    let full = remoteBranch.hasPrefix("refs/") ? remoteBranch : "refs/heads/" + remoteBranch
    try setConfig("branch.\(branch).remote", remote)
    try setConfig("branch.\(branch).merge", full)
  }

  /// The remote-tracking reference of `branch`'s upstream (`refs/remotes/origin/main`); nil when there is none.
  public func upstreamTrackingReference(of branch: String) throws -> String? {
    var buf = git_buf()
    defer { git_buf_dispose(&buf) }
    let rc = git_branch_upstream_name(&buf, pointer, "refs/heads/" + branch)
    if rc == GIT_ENOTFOUND.rawValue { return nil }
    try check("git_branch_upstream_name(\(branch))", rc)
    return buf.ptr.map { String(cString: $0) }
  }

  // MARK: Commit graph

  /// How many commits `local` has that `upstream` lacks, and the reverse (`git rev-list --left-right --count`).
  public func aheadBehind(local: ObjectID, upstream: ObjectID) throws -> (ahead: Int, behind: Int) {
    var ahead = 0
    var behind = 0
    var localOID = local.oid
    var upstreamOID = upstream.oid
    try check(
      "git_graph_ahead_behind", git_graph_ahead_behind(&ahead, &behind, pointer, &localOID, &upstreamOID))
    return (ahead, behind)
  }

  /// The best common ancestor of two commits; nil when the histories are unrelated.
  public func mergeBase(_ one: ObjectID, _ two: ObjectID) throws -> ObjectID? {
    var out = git_oid()
    var a = one.oid
    var b = two.oid
    let rc = git_merge_base(&out, pointer, &a, &b)
    if rc == GIT_ENOTFOUND.rawValue { return nil }
    try check("git_merge_base(\(one.short), \(two.short))", rc)
    return ObjectID(out)
  }

  /// True when `commit` strictly descends from `ancestor` (a commit is not its own descendant).
  public func isDescendant(_ commit: ObjectID, of ancestor: ObjectID) throws -> Bool {
    var a = commit.oid
    var b = ancestor.oid
    let rc = git_graph_descendant_of(pointer, &a, &b)
    try check("git_graph_descendant_of(\(commit.short), \(ancestor.short))", rc)
    return rc == 1
  }

  // MARK: Trees and blobs

  /// Every file of `commit`'s tree, recursively: path (`/`-separated) -> blob and mode, as `git ls-tree -r`.
  public func treeEntries(ofCommit commit: ObjectID) throws -> [String: TreeEntry] {
    let tree = try commitTree(commit)
    defer { git_tree_free(tree) }
    final class Collector {
      var entries: [String: TreeEntry] = [:]
      var unknownMode: String?
    }
    let collector = Collector()
    let rc = withExtendedLifetime(collector) {
      git_tree_walk(
        tree, GIT_TREEWALK_PRE,
        { root, entry, payload in
          guard let entry, let payload else { return 0 }
          let collector = Unmanaged<Collector>.fromOpaque(payload).takeUnretainedValue()
          guard git_tree_entry_type(entry) != GIT_OBJECT_TREE else { return 0 }
          let path = (root.map { String(cString: $0) } ?? "") + String(cString: git_tree_entry_name(entry))
          guard let mode = FileMode(rawValue: git_tree_entry_filemode_raw(entry).rawValue) else {
            collector.unknownMode = path
            return -1
          }
          collector.entries[path] = TreeEntry(id: ObjectID(git_tree_entry_id(entry)), mode: mode)
          return 0
        }, Unmanaged.passUnretained(collector).toOpaque())
    }
    if let path = collector.unknownMode {
      throw GitError(
        function: "git_tree_walk", code: GIT_EINVALID.rawValue, message: "unsupported file mode at \(path)")
    }
    try check("git_tree_walk(\(commit.short))", rc)
    return collector.entries
  }

  /// The files whose entry differs between the trees of commits `old` and `new`: path -> its entry in each (nil
  /// where absent), as `git diff-tree -r` (no rename detection; a file that became a link is one change). Only the
  /// subtrees that differ are read, so the cost follows the change, not the repository.
  public func treeChanges(from old: ObjectID, to new: ObjectID) throws
    -> [String: (old: TreeEntry?, new: TreeEntry?)]
  {
    func entry(_ file: git_diff_file, present: Bool) throws -> TreeEntry? {
      guard present else { return nil }
      guard let mode = FileMode(rawValue: UInt32(file.mode)) else {
        throw GitError(
          function: "git_diff_tree_to_tree", code: GIT_EINVALID.rawValue,
          message: "unsupported file mode at \(file.path.map { String(cString: $0) } ?? "?")")
      }
      return TreeEntry(id: ObjectID(file.id), mode: mode)
    }
    var changes: [String: (old: TreeEntry?, new: TreeEntry?)] = [:]
    try forEachTreeDelta(from: old, to: new, flags: GIT_DIFF_INCLUDE_TYPECHANGE.rawValue) { delta in
      guard let path = (delta.new_file.path ?? delta.old_file.path).map({ String(cString: $0) }) else { return }
      changes[path] = (
        try entry(delta.old_file, present: delta.status != GIT_DELTA_ADDED),
        try entry(delta.new_file, present: delta.status != GIT_DELTA_DELETED)
      )
    }
    return changes
  }

  /// The entries directly in `directory` (`""`: the root) of `commit`'s tree: its files by path
  /// (`directory/name`) and the paths of its subdirectories; empty when there is no such directory.
  public func directoryListing(ofCommit commit: ObjectID, directory: String) throws
    -> (files: [String: TreeEntry], directories: [String])
  {
    let root = try commitTree(commit)
    defer { git_tree_free(root) }
    var tree: OpaquePointer? = root
    var owned: OpaquePointer?
    defer { git_tree_free(owned) }
    if !directory.isEmpty {
      var entry: OpaquePointer?
      let rc = git_tree_entry_bypath(&entry, root, directory)
      if rc == GIT_ENOTFOUND.rawValue { return ([:], []) }
      try check("git_tree_entry_bypath(\(directory))", rc)
      defer { git_tree_entry_free(entry) }
      guard git_tree_entry_type(entry) == GIT_OBJECT_TREE else { return ([:], []) }
      try check("git_tree_lookup(\(directory))", git_tree_lookup(&owned, pointer, git_tree_entry_id(entry)))
      tree = owned
    }
    let prefix = directory.isEmpty ? "" : directory + "/"
    var files: [String: TreeEntry] = [:]
    var directories: [String] = []
    for index in 0..<git_tree_entrycount(tree) {
      guard let entry = git_tree_entry_byindex(tree, index) else { continue }
      let path = prefix + String(cString: git_tree_entry_name(entry))
      if git_tree_entry_type(entry) == GIT_OBJECT_TREE {
        directories.append(path)
      } else if let mode = FileMode(rawValue: git_tree_entry_filemode_raw(entry).rawValue) {
        files[path] = TreeEntry(id: ObjectID(git_tree_entry_id(entry)), mode: mode)
      }
    }
    return (files, directories)
  }

  /// Stores `data` as a blob (no filters: the bytes are what the tree will hold) and returns its id.
  public func writeBlob(_ data: Data) throws -> ObjectID {
    var out = git_oid()
    let rc = data.withUnsafeBytes { buffer in
      git_blob_create_from_buffer(&out, pointer, buffer.baseAddress, buffer.count)
    }
    try check("git_blob_create_from_buffer", rc)
    return ObjectID(out)
  }

  /// Writes a tree holding exactly `entries` and returns its id. With `base` (a commit) only the differences
  /// from that commit's tree are applied (`git_tree_create_updated`), so unchanged subtrees are reused as-is.
  public func writeTree(_ entries: [String: TreeEntry], base: ObjectID?) throws -> ObjectID {
    var baseTree: OpaquePointer?
    defer { git_tree_free(baseTree) }
    var baseEntries: [String: TreeEntry] = [:]
    if let base {
      baseTree = try commitTree(base)
      baseEntries = try treeEntries(ofCommit: base)
    } else {
      baseTree = try emptyTree()
    }
    var removals: [String] = []
    var upserts: [(String, TreeEntry)] = []
    for (path, entry) in entries where baseEntries[path] != entry { upserts.append((path, entry)) }
    for path in baseEntries.keys where entries[path] == nil { removals.append(path) }
    if removals.isEmpty && upserts.isEmpty { return ObjectID(git_tree_id(baseTree)) }

    // Removals first, so a file may replace a directory (or the reverse) in one call.
    let ordered: [(git_tree_update_t, String, TreeEntry?)] =
      removals.sorted().map { (GIT_TREE_UPDATE_REMOVE, $0, nil) }
      + upserts.sorted { $0.0 < $1.0 }.map { (GIT_TREE_UPDATE_UPSERT, $0.0, $0.1) }
    let cPaths = ordered.map { strdup($0.1) }
    defer { cPaths.forEach { free($0) } }
    var updates = zip(ordered, cPaths).map { update, cPath in
      git_tree_update(
        action: update.0, id: update.2?.id.oid ?? git_oid(),
        filemode: git_filemode_t(update.2?.mode.rawValue ?? FileMode.blob.rawValue), path: UnsafePointer(cPath))
    }
    var out = git_oid()
    try check(
      "git_tree_create_updated", git_tree_create_updated(&out, pointer, baseTree, updates.count, &updates))
    return ObjectID(out)
  }

  /// Creates a commit object with the given tree and parents (two for a merge) without moving any reference.
  public func createCommit(
    tree: ObjectID, parents: [ObjectID], message: String, author: Signature? = nil, committer: Signature? = nil
  ) throws -> ObjectID {
    var treeOID = tree.oid
    var gitTree: OpaquePointer?
    try check("git_tree_lookup(\(tree.short))", git_tree_lookup(&gitTree, pointer, &treeOID))
    defer { git_tree_free(gitTree) }
    var parentCommits: [OpaquePointer?] = []
    defer { parentCommits.forEach { git_commit_free($0) } }
    for parent in parents {
      var oid = parent.oid
      var commit: OpaquePointer?
      try check("git_commit_lookup(\(parent.short))", git_commit_lookup(&commit, pointer, &oid))
      parentCommits.append(commit)
    }
    let authorSignature = author ?? defaultSignature()
    let authorSig = try authorSignature.makeGitSignature()
    defer { git_signature_free(authorSig) }
    let committerSig = try (committer ?? authorSignature).makeGitSignature()
    defer { git_signature_free(committerSig) }
    let text = message.isEmpty || message.hasSuffix("\n") ? message : message + "\n"
    var out = git_oid()
    let rc = parentCommits.withUnsafeMutableBufferPointer { buffer in
      git_commit_create(
        &out, pointer, nil, authorSig, committerSig, nil, text, gitTree, buffer.count, buffer.baseAddress)
    }
    try check("git_commit_create", rc)
    return ObjectID(out)
  }

  // MARK: Text merge

  /// Line-level 3-way merge of three versions of a file, in memory (`git merge-file`): the merged bytes when the
  /// two sides changed different lines, nil when they overlap. Conflict markers are never returned, so they
  /// cannot reach a work tree or a commit by accident.
  public static func mergeText(base: Data, ours: Data, theirs: Data) throws -> Data? {
    LibGit2.initialize()
    var options = git_merge_file_options()
    try check(
      "git_merge_file_options_init", git_merge_file_options_init(&options, UInt32(GIT_MERGE_FILE_OPTIONS_VERSION)))
    var result = git_merge_file_result()
    defer { git_merge_file_result_free(&result) }
    let rc = try withMergeInput(base) { ancestor in
      try withMergeInput(ours) { mine in
        try withMergeInput(theirs) { other in git_merge_file(&result, &ancestor, &mine, &other, &options) }
      }
    }
    try check("git_merge_file", rc)
    guard result.automergeable != 0 else { return nil }
    guard let ptr = result.ptr, result.len > 0 else { return Data() }
    return Data(bytes: ptr, count: result.len)
  }

  private static func withMergeInput(_ data: Data, _ body: (inout git_merge_file_input) throws -> Int32) throws
    -> Int32
  {
    var input = git_merge_file_input()
    try check("git_merge_file_input_init", git_merge_file_input_init(&input, UInt32(GIT_MERGE_FILE_INPUT_VERSION)))
    return try data.withUnsafeBytes { buffer in
      input.ptr = buffer.baseAddress?.assumingMemoryBound(to: CChar.self)
      input.size = buffer.count
      return try body(&input)
    }
  }

  // MARK: Checkout

  /// Moves HEAD's branch to `target` and updates the index and work tree to match, never overwriting a file
  /// edited since the last commit or an untracked file in the way (`GIT_CHECKOUT_SAFE`). Files the target does
  /// not change are left alone, edited or not; files the target deletes are removed only when unedited.
  ///
  /// - Parameters:
  ///   - expected: the branch's current value (nil: unborn); the branch moves only if it still has it.
  ///   - onFileWritten: called after each file the checkout writes or removes (a file removed to be written again
  ///     counts twice), with how many so far across its passes; the branch moves after the last call.
  /// - Returns: `.blocked` with the paths in the way, in which case nothing was changed.
  /// - Throws: `GitError` when HEAD is detached, the branch moved meanwhile (`GIT_EMODIFIED`) or libgit2 fails.
  @discardableResult
  public func checkoutSafely(
    _ target: ObjectID, expected: ObjectID?, message: String, onFileWritten: ((Int) -> Void)? = nil
  ) throws -> SafeCheckoutResult {
    guard let branchRef = headSymbolicTarget() else {
      throw GitError(
        function: "Repository.checkoutSafely", code: GIT_EINVALID.rawValue, message: "HEAD is detached")
    }
    let current = try headCommitID()
    guard current == expected else {
      throw GitError(
        function: "Repository.checkoutSafely", code: GIT_EMODIFIED.rawValue,
        message: "\(branchRef) is at \(current?.hex ?? "nothing"), expected \(expected?.hex ?? "nothing")")
    }
    var oid = target.oid
    var commit: OpaquePointer?
    try check("git_commit_lookup(\(target.short))", git_commit_lookup(&commit, pointer, &oid))
    defer { git_commit_free(commit) }

    // Only the paths the two trees differ on (both ends of each change, taken literally): the others cannot change,
    // and without a list libgit2 walks and compares every file of the work tree, which in a large repository costs
    // more than writing the few files a sync brings.
    let plan = try current.map { try checkoutPlan(from: $0, to: target) }
    let progress = onFileWritten.map(CheckoutProgress.init)
    // The cached index must reflect the file on disk before libgit2 compares against it.
    _ = try index()
    if let plan, !plan.inPlace.isEmpty, !plan.others.isEmpty {
      // Two passes, each all-or-nothing on its own: so that the second cannot be blocked once the first has written,
      // a dry run looks at every path first. An edit landing between the two is an error, not `.blocked`: the
      // caller's journal then puts back what the first pass wrote.
      if let blocked = try checkoutPass(commit, target: target, paths: plan.inPlace + plan.others, dryRun: true) {
        return .blocked(conflicts: blocked)
      }
      for (paths, inPlace) in [(plan.others, false), (plan.inPlace, true)] {
        if let blocked = try checkoutPass(commit, target: target, paths: paths, inPlace: inPlace, progress: progress) {
          throw GitError(
            function: "git_checkout_tree(\(target.short))", code: GIT_ECONFLICT.rawValue,
            message: "\(blocked.joined(separator: ", ")) changed while being checked out")
        }
      }
    } else if let plan, !plan.inPlace.isEmpty || !plan.others.isEmpty {
      let inPlace = plan.others.isEmpty
      if let blocked = try checkoutPass(
        commit, target: target, paths: inPlace ? plan.inPlace : plan.others, inPlace: inPlace, progress: progress)
      {
        return .blocked(conflicts: blocked)
      }
    } else if let blocked = try checkoutPass(commit, target: target, paths: nil, progress: progress) {
      return .blocked(conflicts: blocked)
    }

    var ref: OpaquePointer?
    let refRC: Int32
    if var oldOID = expected?.oid {
      refRC = git_reference_create_matching(&ref, pointer, branchRef, &oid, 1, &oldOID, message)
    } else {
      refRC = git_reference_create_matching(&ref, pointer, branchRef, &oid, 0, nil, message)
    }
    git_reference_free(ref)
    try check("git_reference_create_matching(\(branchRef))", refRC)
    revalidateIndexCacheTree(against: target)
    return .checkedOut
  }

  /// Which paths a checkout from `old` to `new` touches, split by how their files are written (see
  /// ``checkoutPass(_:target:paths:inPlace:dryRun:)``).
  private func checkoutPlan(from old: ObjectID, to new: ObjectID) throws -> CheckoutPlan {
    var odb: OpaquePointer?
    try check("git_repository_odb", git_repository_odb(&odb, pointer))
    defer { git_odb_free(odb) }
    var plan = CheckoutPlan(inPlace: [], others: [])
    // Compared, not looked up in a Set<UInt32>: a set literal of UInt32 has the runtime look up its Hashable
    // conformance by scanning every conformance record in the binary, once per process, in every sync.
    func isRegular(_ mode: UInt32) -> Bool { mode == FileMode.blob.rawValue || mode == FileMode.executable.rawValue }
    try forEachTreeDelta(from: old, to: new) { delta in
      let oldPath = delta.old_file.path.map { String(cString: $0) }
      let newPath = delta.new_file.path.map { String(cString: $0) }
      var file = stat()
      let found = newPath.map { lstat(workTree.appendingPathComponent($0).path, &file) == 0 } ?? false
      let lstatError = errno
      var inPlace = false
      if let newPath, oldPath == newPath, isRegular(UInt32(delta.new_file.mode)) {
        switch delta.status {
        case GIT_DELTA_MODIFIED where delta.old_file.mode == delta.new_file.mode && found
          && file.st_mode & S_IFMT == S_IFREG:
          var size = 0
          var type = GIT_OBJECT_INVALID
          var id = delta.new_file.id
          inPlace = git_odb_read_header(&size, &type, odb, &id) == 0 && Int(file.st_size) <= size
        case GIT_DELTA_ADDED:
          // Nothing there, and no file in the way of its directories (that would be ENOTDIR).
          inPlace = !found && lstatError == ENOENT
        default:
          break
        }
      }
      if inPlace, let newPath {
        plan.inPlace.append(newPath)
      } else {
        plan.others += Set([oldPath, newPath].compactMap { $0 })
      }
    }
    return plan
  }

  /// The count of files a checkout's passes have written or removed so far, for its `onFileWritten`.
  private final class CheckoutProgress {
    let report: (Int) -> Void
    var written = 0
    init(_ report: @escaping (Int) -> Void) { self.report = report }
  }

  /// One `git_checkout_tree` of `commit` limited to `paths` (nil: the whole tree) — GIT_CHECKOUT_SAFE: nothing is
  /// written when a file in the way holds an edit. Returns the paths that blocked it, else nil.
  ///
  /// `inPlace` (every path a file that will not shrink, or a new one): files are opened without `O_TRUNC` and
  /// written over from the start. Truncating a file frees its blocks and writing allocates new ones, a journalled
  /// change per file; on ext4 with `discard` that cost ~1.3 ms a file, 1.3 s for a sync that brings a thousand
  /// notes, where writing over them in place cost 25 ms. A write stopped part-way leaves the new bytes' beginning
  /// followed by the old file's rest, which the sync's journal recognises as its own and rolls back.
  private func checkoutPass(
    _ commit: OpaquePointer?, target: ObjectID, paths: [String]?, inPlace: Bool = false, dryRun: Bool = false,
    progress: CheckoutProgress? = nil
  ) throws -> [String]? {
    final class Conflicts { var paths: [String] = [] }
    let conflicts = Conflicts()
    var options = git_checkout_options()
    try check("git_checkout_options_init", git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)))
    options.checkout_strategy = GIT_CHECKOUT_SAFE.rawValue
    if dryRun { options.checkout_strategy |= GIT_CHECKOUT_DRY_RUN.rawValue }
    if paths != nil { options.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH.rawValue }
    if inPlace { options.file_open_flags = O_CREAT | O_WRONLY }
    options.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT.rawValue
    options.notify_payload = Unmanaged.passUnretained(conflicts).toOpaque()
    options.notify_cb = { _, path, _, _, _, payload in
      if let path, let payload {
        Unmanaged<Conflicts>.fromOpaque(payload).takeUnretainedValue().paths.append(String(cString: path))
      }
      return 0
    }
    if let progress {
      options.progress_payload = Unmanaged.passUnretained(progress).toOpaque()
      // libgit2 reports once before the first file (with no path) and then after each file it wrote or removed.
      options.progress_cb = { path, _, _, payload in
        guard path != nil, let payload else { return }
        let progress = Unmanaged<CheckoutProgress>.fromOpaque(payload).takeUnretainedValue()
        progress.written += 1
        progress.report(progress.written)
      }
    }
    let rc = withExtendedLifetime((conflicts, progress)) {
      guard let paths else { return git_checkout_tree(pointer, commit, &options) }
      return withStrArray(paths) { array in
        options.paths = array
        return git_checkout_tree(pointer, commit, &options)
      }
    }
    if rc == GIT_ECONFLICT.rawValue {
      discardIndexChanges()
      return conflicts.paths.sorted()
    }
    try check("git_checkout_tree(\(target.short))", rc)
    return nil
  }

  // MARK: Helpers

  /// `commit`'s tree; the caller frees it (`git_tree_free`).
  func commitTree(_ commit: ObjectID) throws -> OpaquePointer {
    var oid = commit.oid
    var gitCommit: OpaquePointer?
    try check("git_commit_lookup(\(commit.short))", git_commit_lookup(&gitCommit, pointer, &oid))
    defer { git_commit_free(gitCommit) }
    var tree: OpaquePointer?
    try check("git_commit_tree(\(commit.short))", git_commit_tree(&tree, gitCommit))
    return tree!
  }

  private func emptyTree() throws -> OpaquePointer {
    var builder: OpaquePointer?
    try check("git_treebuilder_new", git_treebuilder_new(&builder, pointer, nil))
    defer { git_treebuilder_free(builder) }
    var oid = git_oid()
    try check("git_treebuilder_write", git_treebuilder_write(&oid, builder))
    var tree: OpaquePointer?
    try check("git_tree_lookup(empty)", git_tree_lookup(&tree, pointer, &oid))
    return tree!
  }
}

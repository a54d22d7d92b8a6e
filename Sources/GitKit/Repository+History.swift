import CLibGit2
import Foundation

extension Repository {
  /// Commits reachable from `start` (HEAD when nil; empty when unborn), newest first (time + topological order).
  ///
  /// The sequence is lazy: the revision walk advances as you iterate, so taking the first few commits of a long
  /// history costs only those. Each iteration starts a fresh walk. Iteration stops early if libgit2 fails
  /// mid-walk (an iterator cannot throw); the start commit itself is checked before this returns.
  public func log(from start: ObjectID? = nil) throws -> AnySequence<Commit> {
    guard let start = try start ?? headCommitID() else { return AnySequence([]) }
    // Fail now, with the error, rather than silently yielding nothing.
    _ = try commit(start)
    let repository = self
    return AnySequence { () -> AnyIterator<Commit> in
      guard let walk = try? RevisionWalk(repository: repository, start: start) else {
        return AnyIterator { nil }
      }
      return AnyIterator { walk.next() }
    }
  }

  /// The commit with the given id.
  public func commit(_ id: ObjectID) throws -> Commit {
    var oid = id.oid
    var commit: OpaquePointer?
    try check("git_commit_lookup(\(id.hex))", git_commit_lookup(&commit, pointer, &oid))
    defer { git_commit_free(commit) }
    return Self.makeCommit(commit!)
  }

  static func makeCommit(_ commit: OpaquePointer) -> Commit {
    let parents = (0..<git_commit_parentcount(commit)).compactMap { i in
      git_commit_parent_id(commit, i).map { ObjectID($0) }
    }
    let message = git_commit_message(commit).map { String(cString: $0) } ?? ""
    let summary = git_commit_summary(commit).map { String(cString: $0) } ?? ""
    return Commit(
      id: ObjectID(git_commit_id(commit)),
      parents: parents,
      author: Signature(git_commit_author(commit)),
      committer: Signature(git_commit_committer(commit)),
      message: message,
      summary: summary,
      tree: ObjectID(git_commit_tree_id(commit)))
  }

  /// Changes introduced by `commit` against its first parent (against the empty tree for a root commit), with
  /// rename detection (exact and similarity-based, git's default 50 % threshold).
  public func changes(in commit: ObjectID) throws -> [TreeChange] {
    var oid = commit.oid
    var gitCommit: OpaquePointer?
    try check("git_commit_lookup(\(commit.hex))", git_commit_lookup(&gitCommit, pointer, &oid))
    defer { git_commit_free(gitCommit) }
    var tree: OpaquePointer?
    try check("git_commit_tree", git_commit_tree(&tree, gitCommit))
    defer { git_tree_free(tree) }
    var parentTree: OpaquePointer?
    defer { git_tree_free(parentTree) }
    if git_commit_parentcount(gitCommit) > 0 {
      var parent: OpaquePointer?
      try check("git_commit_parent", git_commit_parent(&parent, gitCommit, 0))
      defer { git_commit_free(parent) }
      try check("git_commit_tree(parent)", git_commit_tree(&parentTree, parent))
    }

    var options = git_diff_options()
    try check("git_diff_options_init", git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)))
    var diff: OpaquePointer?
    try check("git_diff_tree_to_tree", git_diff_tree_to_tree(&diff, pointer, parentTree, tree, &options))
    defer { git_diff_free(diff) }
    var find = git_diff_find_options()
    try check(
      "git_diff_find_options_init", git_diff_find_options_init(&find, UInt32(GIT_DIFF_FIND_OPTIONS_VERSION)))
    find.flags = GIT_DIFF_FIND_RENAMES.rawValue
    try check("git_diff_find_similar", git_diff_find_similar(diff, &find))

    var changes: [TreeChange] = []
    for i in 0..<git_diff_num_deltas(diff) {
      guard let delta = git_diff_get_delta(diff, i)?.pointee else { continue }
      let oldPath = delta.old_file.path.map { String(cString: $0) }
      let newPath = delta.new_file.path.map { String(cString: $0) }
      let oldBlob = ObjectID(delta.old_file.id)
      let newBlob = ObjectID(delta.new_file.id)
      switch delta.status {
      case GIT_DELTA_ADDED:
        changes.append(TreeChange(kind: .added, oldPath: nil, newPath: newPath, oldBlob: nil, newBlob: newBlob))
      case GIT_DELTA_DELETED:
        changes.append(TreeChange(kind: .deleted, oldPath: oldPath, newPath: nil, oldBlob: oldBlob, newBlob: nil))
      case GIT_DELTA_MODIFIED:
        changes.append(
          TreeChange(kind: .modified, oldPath: oldPath, newPath: newPath, oldBlob: oldBlob, newBlob: newBlob))
      case GIT_DELTA_RENAMED:
        changes.append(
          TreeChange(kind: .renamed, oldPath: oldPath, newPath: newPath, oldBlob: oldBlob, newBlob: newBlob))
      case GIT_DELTA_TYPECHANGE:
        changes.append(
          TreeChange(kind: .typeChange, oldPath: oldPath, newPath: newPath, oldBlob: oldBlob, newBlob: newBlob))
      case GIT_DELTA_COPIED:
        // Copy detection is not requested; should libgit2 report one anyway, the new path is what appeared.
        changes.append(TreeChange(kind: .added, oldPath: nil, newPath: newPath, oldBlob: nil, newBlob: newBlob))
      default:
        continue
      }
    }
    return changes
  }

  /// Every path whose entry differs between the trees of `old` and `new` (the empty tree when `old` is nil), as
  /// the old and the new path of each change. No rename detection: a derived cache that re-reads both ends of a
  /// move needs none, and skipping it keeps a diff of two distant commits proportional to the subtrees that differ.
  public func changedPaths(from old: ObjectID?, to new: ObjectID) throws -> Set<String> {
    var paths = Set<String>()
    try forEachTreeDelta(from: old, to: new) { delta in
      if let path = delta.old_file.path { paths.insert(String(cString: path)) }
      if let path = delta.new_file.path { paths.insert(String(cString: path)) }
    }
    return paths
  }

  /// Hands `body` every file that differs between the trees of commits `old` (nil: the empty tree) and `new`, as
  /// `git diff-tree -r` lists them (no rename detection). Only the subtrees that differ are read, so the cost
  /// follows the change, not the repository. `flags`: more `git_diff_option_t` flags.
  func forEachTreeDelta(
    from old: ObjectID?, to new: ObjectID, flags: UInt32 = 0, _ body: (git_diff_delta) throws -> Void
  ) throws {
    let newTree = try commitTree(new)
    defer { git_tree_free(newTree) }
    var oldTree: OpaquePointer?
    defer { git_tree_free(oldTree) }
    if let old { oldTree = try commitTree(old) }
    var options = git_diff_options()
    try check("git_diff_options_init", git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)))
    options.flags |= flags
    var diff: OpaquePointer?
    try check("git_diff_tree_to_tree", git_diff_tree_to_tree(&diff, pointer, oldTree, newTree, &options))
    defer { git_diff_free(diff) }
    for i in 0..<git_diff_num_deltas(diff) {
      guard let delta = git_diff_get_delta(diff, i)?.pointee else { continue }
      try body(delta)
    }
  }

  /// The id of the blob at `path` in `commit`'s tree; nil when absent or not a blob (a directory or submodule).
  public func blobID(at path: String, in commit: ObjectID) throws -> ObjectID? {
    let tree = try commitTree(commit)
    defer { git_tree_free(tree) }
    var entry: OpaquePointer?
    let rc = git_tree_entry_bypath(&entry, tree, path)
    if rc == GIT_ENOTFOUND.rawValue { return nil }
    try check("git_tree_entry_bypath(\(path))", rc)
    defer { git_tree_entry_free(entry) }
    guard git_tree_entry_type(entry) == GIT_OBJECT_BLOB else { return nil }
    return ObjectID(git_tree_entry_id(entry))
  }

  /// Whether `commit`'s tree has a directory (a tree entry) at `path`.
  public func hasDirectory(at path: String, in commit: ObjectID) throws -> Bool {
    let tree = try commitTree(commit)
    defer { git_tree_free(tree) }
    var entry: OpaquePointer?
    let rc = git_tree_entry_bypath(&entry, tree, path)
    if rc == GIT_ENOTFOUND.rawValue { return false }
    try check("git_tree_entry_bypath(\(path))", rc)
    defer { git_tree_entry_free(entry) }
    return git_tree_entry_type(entry) == GIT_OBJECT_TREE
  }

  /// The raw bytes of a blob, exactly as stored (no filters applied).
  public func blob(_ id: ObjectID) throws -> Data {
    var oid = id.oid
    var blob: OpaquePointer?
    try check("git_blob_lookup(\(id.hex))", git_blob_lookup(&blob, pointer, &oid))
    defer { git_blob_free(blob) }
    let size = Int(git_blob_rawsize(blob))
    guard size > 0, let bytes = git_blob_rawcontent(blob) else { return Data() }
    return Data(bytes: bytes, count: size)
  }
}

/// Owns a `git_revwalk` and the repository it walks, so the walk outlives neither.
final class RevisionWalk {
  private let repository: Repository
  private let walk: OpaquePointer

  init(repository: Repository, start: ObjectID) throws {
    var walk: OpaquePointer?
    try check("git_revwalk_new", git_revwalk_new(&walk, repository.pointer))
    self.walk = walk!
    self.repository = repository
    try check(
      "git_revwalk_sorting", git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue))
    var oid = start.oid
    try check("git_revwalk_push(\(start.hex))", git_revwalk_push(walk, &oid))
  }

  deinit { git_revwalk_free(walk) }

  func next() -> Commit? {
    var oid = git_oid()
    guard git_revwalk_next(&oid, walk) == 0 else { return nil }
    var commit: OpaquePointer?
    guard git_commit_lookup(&commit, repository.pointer, &oid) == 0, let commit else { return nil }
    defer { git_commit_free(commit) }
    return Repository.makeCommit(commit)
  }
}

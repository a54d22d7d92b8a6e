import CLibGit2
import Foundation
import GitKit

/// The outcome of `Repository.mergeTrees`.
public enum TreeMergeResult: Sendable, Equatable {
  /// Every path merged; the id of the merged tree, already written to the object database.
  case merged(tree: ObjectID)
  /// Some paths could not be merged; nothing was written. Sorted, each path once (for a rename conflict, every
  /// path any of the three versions has).
  case conflicts([String])
}

extension Repository {
  /// Three-way merge of whole trees in memory (`git merge-tree`), without touching the index, the work tree or any
  /// reference. Rename detection and merge drivers (`MergeDrivers`, chosen by the `merge` attribute) apply as in
  /// `git merge`; files both sides changed get libgit2's line-level merge otherwise.
  ///
  /// Each id may name a tree or a commit (a commit stands for its tree), so the result of `writeTree`, a branch
  /// tip and a `mergeBase` can be mixed freely.
  ///
  /// Which driver a path uses comes from this repository's `.gitattributes` in the work tree (then the index) and
  /// `.git/info/attributes`, as libgit2 reads them at the time of the call, not from the trees being merged.
  ///
  /// Runs on a libgit2 handle of its own, opened on `workTree`: GitKit keeps its handle internal, and a merge is the
  /// one thing only tests need (see MergeDrivers.swift).
  ///
  /// - Parameter ancestor: the merge base; nil when the histories share none (every file is then add/add).
  /// - Throws: `GitError` when an id names neither a tree nor a commit, or libgit2 (or a driver's blob read) fails.
  public func mergeTrees(ancestor: ObjectID?, ours: ObjectID, theirs: ObjectID) throws -> TreeMergeResult {
    initializeLibGit2()
    var opened: OpaquePointer?
    try checkGit(
      "git_repository_open_ext",
      workTree.path.withCString { git_repository_open_ext(&opened, $0, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) })
    guard let repo = opened else { throw GitError(function: "git_repository_open_ext", code: -1, message: "") }
    defer { git_repository_free(repo) }

    let ancestorTree = try ancestor.map { try peeledTree(repo, $0) }
    defer { git_object_free(ancestorTree) }
    let ourTree = try peeledTree(repo, ours)
    defer { git_object_free(ourTree) }
    let theirTree = try peeledTree(repo, theirs)
    defer { git_object_free(theirTree) }

    var options = git_merge_options()
    try checkGit("git_merge_options_init", git_merge_options_init(&options, UInt32(GIT_MERGE_OPTIONS_VERSION)))
    var index: OpaquePointer?
    try checkGit(
      "git_merge_trees(\(ours.short), \(theirs.short))",
      git_merge_trees(&index, repo, ancestorTree, ourTree, theirTree, &options))
    defer { git_index_free(index) }

    if git_index_has_conflicts(index) != 0 {
      return .conflicts(try conflictedPaths(index))
    }
    var out = git_oid()
    try checkGit("git_index_write_tree_to", git_index_write_tree_to(&out, index, repo))
    return .merged(tree: try objectID(out))
  }

  /// The tree `id` names, directly or through a commit; the caller frees it (`git_object_free`).
  private func peeledTree(_ repo: OpaquePointer, _ id: ObjectID) throws -> OpaquePointer {
    var oid = git_oid()
    try checkGit("git_oid_fromstr(\(id.hex))", git_oid_fromstr(&oid, id.hex))
    var object: OpaquePointer?
    try checkGit("git_object_lookup(\(id.short))", git_object_lookup(&object, repo, &oid, GIT_OBJECT_ANY))
    defer { git_object_free(object) }
    var tree: OpaquePointer?
    try checkGit("git_object_peel(\(id.short), tree)", git_object_peel(&tree, object, GIT_OBJECT_TREE))
    return tree!
  }

  private func objectID(_ oid: git_oid) throws -> ObjectID {
    var copy = oid
    // git_oid_tostr writes 40 digits plus the terminator.
    var buffer = [CChar](repeating: 0, count: 41)
    git_oid_tostr(&buffer, buffer.count, &copy)
    guard let id = ObjectID(hex: String(cString: buffer)) else {
      throw GitError(function: "git_oid_tostr", code: -1, message: "not an object id: \(String(cString: buffer))")
    }
    return id
  }

  private func conflictedPaths(_ index: OpaquePointer?) throws -> [String] {
    var iterator: OpaquePointer?
    try checkGit("git_index_conflict_iterator_new", git_index_conflict_iterator_new(&iterator, index))
    defer { git_index_conflict_iterator_free(iterator) }
    var paths = Set<String>()
    while true {
      var ancestor: UnsafePointer<git_index_entry>?
      var ours: UnsafePointer<git_index_entry>?
      var theirs: UnsafePointer<git_index_entry>?
      let rc = git_index_conflict_next(&ancestor, &ours, &theirs, iterator)
      if rc == GIT_ITEROVER.rawValue { break }
      try checkGit("git_index_conflict_next", rc)
      for entry in [ancestor, ours, theirs] {
        if let cPath = entry?.pointee.path { paths.insert(String(cString: cPath)) }
      }
    }
    return paths.sorted()
  }
}

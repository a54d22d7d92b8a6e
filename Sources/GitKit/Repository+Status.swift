import CLibGit2

extension Repository {
  /// Status of the work tree like `git status --untracked-files=all`: untracked files listed individually,
  /// ignored files excluded, no rename detection. `paths` restricts the result to these pathspecs (git's
  /// fnmatch rules) when non-empty; with `exact`, `paths` are file paths taken literally (no patterns), and only
  /// they are looked at. Sorted by path.
  ///
  /// For the whole work tree the index's stat data answer, as for `git status` (`scanWorkTree`); libgit2's status
  /// (which compares stat data too, but loads the whole index and HEAD's whole tree first) when that walk declines.
  public func status(paths: [String] = [], exact: Bool = false) throws -> [StatusEntry] {
    if paths.isEmpty, let scan = try scanWorkTree() { return scan.entries }
    return try libgit2Status(paths: paths, exact: exact)
  }

  /// `status(paths:exact:)` as libgit2 computes it, without trying `scanWorkTree` first: for a caller that already
  /// did.
  public func libgit2Status(paths: [String] = [], exact: Bool = false) throws -> [StatusEntry] {
    var options = git_status_options()
    try check("git_status_options_init", git_status_options_init(&options, UInt32(GIT_STATUS_OPTIONS_VERSION)))
    options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
    options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
    if exact { options.flags |= GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH.rawValue }
    var list: OpaquePointer?
    let rc = withStrArray(paths) { pathspec -> Int32 in
      options.pathspec = pathspec
      return git_status_list_new(&list, pointer, &options)
    }
    try check("git_status_list_new", rc)
    defer { git_status_list_free(list) }

    var entries: [StatusEntry] = []
    for i in 0..<git_status_list_entrycount(list) {
      guard let entry = git_status_byindex(list, i)?.pointee else { continue }
      let flags = entry.status.rawValue
      let delta = entry.index_to_workdir ?? entry.head_to_index
      guard let delta, let cPath = delta.pointee.new_file.path ?? delta.pointee.old_file.path else { continue }
      var staged: StatusEntry.Change?
      var unstaged: StatusEntry.Change?
      if flags & GIT_STATUS_CONFLICTED.rawValue != 0 {
        staged = .conflicted
        unstaged = .conflicted
      } else {
        staged = Self.change(
          flags, added: GIT_STATUS_INDEX_NEW, modified: GIT_STATUS_INDEX_MODIFIED, deleted: GIT_STATUS_INDEX_DELETED,
          renamed: GIT_STATUS_INDEX_RENAMED, typeChange: GIT_STATUS_INDEX_TYPECHANGE)
        unstaged = Self.change(
          flags, added: GIT_STATUS_WT_NEW, modified: GIT_STATUS_WT_MODIFIED, deleted: GIT_STATUS_WT_DELETED,
          renamed: GIT_STATUS_WT_RENAMED, typeChange: GIT_STATUS_WT_TYPECHANGE)
      }
      if staged == nil && unstaged == nil { continue }
      entries.append(StatusEntry(path: String(cString: cPath), staged: staged, unstaged: unstaged))
    }
    return entries
  }

  /// Whether git ignores `path` (relative to the work tree): `.gitignore` files, `.git/info/exclude` and
  /// `core.excludesFile`, as `git check-ignore` answers. A path under an ignored directory is ignored.
  public func isIgnored(_ path: String) throws -> Bool {
    var ignored: Int32 = 0
    try check("git_ignore_path_is_ignored", git_ignore_path_is_ignored(&ignored, pointer, path))
    return ignored != 0
  }

  private static func change(
    _ flags: UInt32, added: git_status_t, modified: git_status_t, deleted: git_status_t, renamed: git_status_t,
    typeChange: git_status_t
  ) -> StatusEntry.Change? {
    if flags & added.rawValue != 0 { return .added }
    if flags & deleted.rawValue != 0 { return .deleted }
    if flags & renamed.rawValue != 0 { return .renamed }
    if flags & typeChange.rawValue != 0 { return .typeChange }
    if flags & modified.rawValue != 0 { return .modified }
    return nil
  }
}

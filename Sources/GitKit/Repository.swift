import CLibGit2
import Foundation
import TextFormat

/// A non-bare git repository opened through libgit2.
///
/// Owns the `git_repository` and, once used, the repository's `git_index`, and frees both in `deinit`. Not
/// thread-safe: libgit2 objects must not be used from two threads at once, so confine an instance to one thread
/// or actor (separate instances on the same directory are fine).
public final class Repository {
  /// The `git_repository *`.
  let pointer: OpaquePointer
  /// The repository's `git_index *`, kept open between calls so that `git_index_read(index, 0)` can skip
  /// re-parsing a file that has not changed on disk (the dominant cost of a save in a large repository).
  private var cachedIndex: OpaquePointer?
  /// Where `commit(paths:)`'s byte patcher reads and writes `.git/index`: the process-wide cache by default.
  var indexFileStore: IndexFileStore = .shared

  /// The work tree root: standardized, no trailing slash.
  public let workTree: URL
  /// The git directory (`.git`, or the per-worktree directory a gitlink points to).
  public let gitDirectory: URL

  private init(pointer: OpaquePointer, function: String) throws {
    guard let workdir = git_repository_workdir(pointer) else {
      git_repository_free(pointer)
      throw GitError(
        function: function, code: GIT_EBAREREPO.rawValue, message: "the repository is bare; a work tree is required")
    }
    self.pointer = pointer
    self.workTree = directoryURL(fromGitPath: workdir)
    self.gitDirectory = directoryURL(fromGitPath: git_repository_path(pointer))
  }

  deinit {
    if let cachedIndex { git_index_free(cachedIndex) }
    git_repository_free(pointer)
  }

  /// `git init` with the given initial branch (HEAD -> refs/heads/<branch>), non-bare. Creates missing parent
  /// directories; re-initialising an existing repository keeps its history.
  public static func create(at workTree: URL, initialBranch: String = "main") throws -> Repository {
    LibGit2.initialize()
    var options = git_repository_init_options()
    try check(
      "git_repository_init_options_init",
      git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)))
    options.flags = GIT_REPOSITORY_INIT_MKPATH.rawValue
    var repo: OpaquePointer?
    let rc = initialBranch.withCString { branch -> Int32 in
      options.initial_head = branch
      return workTree.standardizedFileURL.path.withCString { git_repository_init_ext(&repo, $0, &options) }
    }
    try check("git_repository_init_ext", rc)
    let repository = try Repository(pointer: repo!, function: "git_repository_init_ext")
    try repository.preferCompactIndex()
    return repository
  }

  /// Starts a new repository's index in version 4 (path-prefix compression). Every save rewrites the whole index
  /// and libgit2 hashes it with SHA-1, so its size is the dominant cost of a commit in a big repository: v4 is
  /// about 20 % smaller and measured ~10 % faster per save at 100k notes. libgit2 and git keep the version they
  /// read, and git has read v4 since 1.8.0. An existing index (a repository nb did not create) is left alone.
  private func preferCompactIndex() throws {
    let index = try index()
    guard git_index_entrycount(index) == 0, let path = git_index_path(index),
      !FileManager.default.fileExists(atPath: String(cString: path))
    else { return }
    try check("git_index_set_version", git_index_set_version(index, 4))
    try check("git_index_write", git_index_write(index))
  }

  /// Where, relative to a repository's git directory, the SHA-1 states of its index file may be kept between
  /// processes (derived data, safe to delete): a process that finds the index as the last one left it then does
  /// not hash the whole file again to verify it (10 MB at 100 000 entries). nil, the default, keeps them in memory.
  public static var indexCheckpointsPath: String? {
    get { IndexFileStore.shared.checkpointsRelativePath }
    set { IndexFileStore.shared.checkpointsRelativePath = newValue }
  }

  /// Opens the repository whose work tree root is exactly `workTree` (no upward discovery).
  public static func open(at workTree: URL) throws -> Repository {
    LibGit2.initialize()
    let requested = workTree.standardizedFileURL
    var repo: OpaquePointer?
    let rc = requested.path.withCString {
      git_repository_open_ext(&repo, $0, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil)
    }
    try check("git_repository_open_ext", rc)
    let repository = try Repository(pointer: repo!, function: "git_repository_open_ext")
    // NO_SEARCH still accepts the git directory itself; insist on the work tree root the caller named.
    if repository.workTree.resolvingSymlinksInPath().path != requested.resolvingSymlinksInPath().path {
      throw GitError(
        function: "git_repository_open_ext", code: GIT_ENOTFOUND.rawValue,
        message: "\(requested.path) is not the work tree root of a repository (root: \(repository.workTree.path))")
    }
    return repository
  }

  /// The operation git has left in progress, if any.
  public var state: RepositoryState {
    RepositoryState(raw: git_repository_state(pointer))
  }

  /// True when HEAD points straight at a commit instead of at a branch.
  public var isHeadDetached: Bool {
    git_repository_head_detached(pointer) == 1
  }

  /// True when HEAD names a branch that has no commit yet (a fresh repository).
  public var isHeadUnborn: Bool {
    git_repository_head_unborn(pointer) == 1
  }

  /// The branch HEAD is on, e.g. `"main"` (also when unborn); nil when detached.
  public var currentBranch: String? {
    guard let target = headSymbolicTarget() else { return nil }
    let prefix = "refs/heads/"
    return target.hasPrefix(prefix) ? String(target.dropFirst(prefix.count)) : target
  }

  /// The full ref name HEAD points to (`refs/heads/main`), or nil when HEAD is detached.
  func headSymbolicTarget() -> String? {
    var ref: OpaquePointer?
    guard git_reference_lookup(&ref, pointer, "HEAD") == 0, let ref else { return nil }
    defer { git_reference_free(ref) }
    guard git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC, let target = git_reference_symbolic_target(ref) else {
      return nil
    }
    return String(cString: target)
  }

  /// The commit HEAD resolves to; nil when HEAD's branch is unborn.
  public func headCommitID() throws -> ObjectID? {
    var oid = git_oid()
    let rc = git_reference_name_to_id(&oid, pointer, "HEAD")
    if rc == GIT_ENOTFOUND.rawValue || rc == GIT_EUNBORNBRANCH.rawValue { return nil }
    try check("git_reference_name_to_id(HEAD)", rc)
    return ObjectID(oid)
  }

  /// Whether the index in `gitDirectory` (per worktree) has conflict entries, read from the file without libgit2;
  /// nil when the file is missing, corrupt or unusual (then ask ``hasConflicts()``). Shares the index cache of
  /// every `Repository`, so a commit that follows reuses the bytes read here.
  public static func indexHasConflicts(gitDirectory: URL) -> Bool? {
    IndexFileStore.shared.hasConflicts(gitDirectory.appendingPathComponent("index").path)
  }

  /// True when the index has conflict entries (stages 1-3), e.g. after a merge stopped on conflicts.
  public func hasConflicts() throws -> Bool {
    // The file on disk is what libgit2 would re-read anyway; scanning its bytes avoids loading 100k entries.
    if let answer = indexFileStore.hasConflicts(gitDirectory.appendingPathComponent("index").path) { return answer }
    return git_index_has_conflicts(try index()) != 0
  }

  /// The repository's index, re-read from disk only when the file changed since we last read or wrote it.
  func index() throws -> OpaquePointer {
    if let cachedIndex {
      // force = 0: libgit2 compares the file's stamp and skips the parse when unchanged (fast path for saves).
      try check("git_index_read", git_index_read(cachedIndex, 0))
      return cachedIndex
    }
    var index: OpaquePointer?
    try check("git_repository_index", git_repository_index(&index, pointer))
    cachedIndex = index
    return index!
  }

  /// Discards in-memory index edits after a failure so the next call starts from the file on disk.
  func discardIndexChanges() {
    if let cachedIndex { _ = git_index_read(cachedIndex, 1) }
  }

  /// Paths tracked in the index (sorted; a conflicted path appears once).
  public func indexPaths() throws -> [String] {
    let index = try index()
    let count = git_index_entrycount(index)
    var paths: [String] = []
    paths.reserveCapacity(count)
    var previous: String?
    for i in 0..<count {
      guard let entry = git_index_get_byindex(index, i), let cPath = entry.pointee.path else { continue }
      let path = String(cString: cPath)
      // Conflict stages of one path are adjacent in the index, so comparing with the previous one dedupes.
      if path != previous { paths.append(path) }
      previous = path
    }
    // The index sorts by bytes; Swift's String order can differ for non-ASCII, and callers were promised sorted.
    return paths.sorted()
  }

  // MARK: Config

  /// The value of `key` (e.g. `"user.name"`) from the repository config, falling back to global/xdg/system as
  /// libgit2 does; nil when unset or unreadable.
  public func config(_ key: String) -> String? {
    var config: OpaquePointer?
    guard git_repository_config(&config, pointer) == 0, let config else { return nil }
    defer { git_config_free(config) }
    var buf = git_buf()
    defer { git_buf_dispose(&buf) }
    guard git_config_get_string_buf(&buf, config, key) == 0, let ptr = buf.ptr else { return nil }
    return String(cString: ptr)
  }

  /// Writes `key = value` to the repository's own config (`.git/config`).
  public func setConfig(_ key: String, _ value: String) throws {
    var config: OpaquePointer?
    try check("git_repository_config", git_repository_config(&config, pointer))
    defer { git_config_free(config) }
    var local: OpaquePointer?
    try check("git_config_open_level(local)", git_config_open_level(&local, config, GIT_CONFIG_LEVEL_LOCAL))
    defer { git_config_free(local) }
    try check("git_config_set_string(\(key))", git_config_set_string(local, key, value))
  }

  /// `user.name` / `user.email` from config; each falls back to `nb` / `nb@<host name>` when unset or empty. The
  /// offset is the process's at `date` (`TZ`, else `/etc/localtime`), as git's own commits take it.
  public func defaultSignature(date: Date = Date()) -> Signature {
    PlainCommitSettings(name: config("user.name"), email: config("user.email"), logsRefUpdates: true)
      .signature(date: date)
  }
}

extension Repository {
  /// Puts the index entries of `paths` back to HEAD's (removing those HEAD lacks), like `git reset -- PATHS`; the
  /// work tree is not touched. For undoing a commit that wrote the index but was stopped before the branch moved.
  public func resetIndex(paths: [String]) throws {
    guard !paths.isEmpty else { return }
    // git_reset_default works on the repository's index object as it is in memory: a cached one older than the
    // file on disk would be written back whole, dropping every entry added since it was read.
    _ = try index()
    var target: OpaquePointer?
    if let head = try headCommitID() {
      var oid = head.oid
      try check("git_object_lookup(HEAD)", git_object_lookup(&target, pointer, &oid, GIT_OBJECT_COMMIT))
    }
    defer { git_object_free(target) }
    try withStrArray(paths) { array in
      try check("git_reset_default", git_reset_default(pointer, target, &array))
    }
    // The cached index must not write the old entries back over the reset ones.
    discardIndexChanges()
  }
}

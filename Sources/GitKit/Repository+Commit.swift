import CLibGit2
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Repository {
  /// One commit on HEAD's branch containing exactly the given work-tree paths: each path that exists in the work
  /// tree is (re)hashed and upserted, each that does not exist is removed (a path naming a tracked directory
  /// removes everything below it). Other entries, including changes the user staged with `git add` for other
  /// paths, are neither committed nor un-staged.
  ///
  /// The tree is built from HEAD's tree with `git_tree_create_updated` (cost O(depth), not O(repository)); the
  /// listed paths' index entries are updated and the index written, then HEAD's branch is moved with a
  /// compare-and-swap on its old value, so `git status` is clean for these paths afterwards. On a detached HEAD
  /// the commit moves HEAD itself.
  ///
  /// - Returns: the new commit, or nil (and no commit) when the resulting tree equals HEAD's tree.
  /// - Throws: `GitError` with `isLocked` when `.git/index.lock` exists (it is never deleted); `GIT_EMODIFIED`
  ///   when the branch moved under us. The index is written before the branch moves, so a lock race costs no
  ///   commit; if the final ref update fails, the paths' index entries are put back as they were.
  @discardableResult
  public func commit(paths: [String], message: String, author: Signature? = nil) throws -> ObjectID? {
    let paths = try normalized(paths)
    // libgit2 keeps a repository's index at <git dir>/index (per worktree), whatever GIT_INDEX_FILE says.
    let indexPath = gitDirectory.appendingPathComponent("index").path
    // Writing the index would also fail on the lock, but only after the commit's objects exist; checking first
    // keeps the failure clean and cheap. A lock taken between here and the write still fails the write.
    let lockPath = indexPath + ".lock"
    if pathExists(lockPath) {
      throw GitError(
        function: "git_index_write", code: GitError.lockedCode,
        message: "\(lockPath) exists: another git process is running, or one crashed and left it behind")
    }
    if case .committed(let id) = try commitPatchingIndex(
      paths: paths, message: message, author: author, indexPath: indexPath)
    {
      return id
    }
    let index = try index()
    do {
      return try commitUnchecked(paths: paths, message: message, author: author, index: index)
    } catch {
      discardIndexChanges()
      throw error
    }
  }

  private enum PatchOutcome {
    case notHandled
    case committed(ObjectID?)
  }

  /// `commit(paths:)` editing `.git/index` bytes directly (see `IndexFile`) instead of loading all of it into
  /// libgit2: the same steps and ordering as `commitUnchecked`, or `.notHandled` before anything is written when
  /// the index or the repository's settings need libgit2's general code.
  private func commitPatchingIndex(paths: [String], message: String, author: Signature?, indexPath: String) throws
    -> PatchOutcome
  {
    // With core.filemode / core.symlinks false libgit2 derives modes from the old entry; leave that to it.
    // libgit2 refuses `.git`-like components anywhere in a path (also spelled `.GIT.`, `git~1`); leave judging
    // those to it. Trimming dots and spaces on both ends makes this a superset (a plain `git` goes there too).
    let suspicious = paths.contains { path in
      path.utf8.contains(0)
        || path.split(separator: "/").contains { component in
          let name = component.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: " ."))
          return name == "git" || name == "git~1"
        }
    }
    guard configFlag("core.filemode") && configFlag("core.symlinks"), !suspicious else { return .notHandled }
    guard case .success(let loaded) = IndexFileStore.load(indexPath) else { return .notHandled }

    let head = try HeadTree(of: self)
    // The pointers below belong to `head`: keep it alive to the end of the scope, not just to its last use.
    defer { withExtendedLifetime(head) {} }
    let headID = head.id
    let headCommit = head.commit
    let headTree = head.tree

    // Hashing files (and racily clean entries) applies .gitattributes filters; see withAttributesOnlyIndex.
    var operations: [IndexPatchOperation] = []
    let racyCutoff = UInt32(truncatingIfNeeded: loaded.identity.mtimeSeconds)
    var patched: IndexPatchResult?
    let attributeFiles = try? IndexFileStore.attributeFiles(indexPath, loaded)
    try withAttributesOnlyIndex(attributeFiles) { hashing in
      try hashPaths(paths, into: &operations, hashing: hashing)
      guard operations.count == paths.count else { return }
      patched = try? IndexFile.patch(
        loaded.snapshot, operations, racyCutoff: racyCutoff,
        isRacilyModified: { self.isRacilyModified($0, hashing: hashing) })
    }
    guard let patched else { return .notHandled }

    var updates: [(action: git_tree_update_t, id: git_oid, mode: git_filemode_t, path: String)] = []
    var indexChanged = patched.removedDescendants
    for operation in operations {
      let path = String(decoding: operation.path, as: UTF8.self)
      let before = patched.previous[operation.path]
      switch operation {
      case .upsert(let record):
        if before.map({ $0.id != record.id || $0.mode != record.mode }) ?? true { indexChanged = true }
        updates.append((GIT_TREE_UPDATE_UPSERT, Self.oid(record.id), git_filemode_t(record.mode), path))
      case .remove:
        if before != nil { indexChanged = true }
        // Removing what HEAD's tree does not have is an error in git_tree_create_updated, so only existing ones.
        if let headTree, try treeEntryExists(headTree, path) {
          updates.append((GIT_TREE_UPDATE_REMOVE, git_oid(), GIT_FILEMODE_BLOB, path))
        }
      }
    }

    let newTreeID = try createUpdatedTree(base: headTree, updates: updates)
    let unchanged: Bool
    if let headTree {
      unchanged = ObjectID(git_tree_id(headTree)) == newTreeID.id
    } else {
      unchanged = updates.allSatisfy { $0.action == GIT_TREE_UPDATE_REMOVE }
    }
    // The patch writes stage-0 entries only and declines touched conflicted paths, so "no conflicts" carries
    // over; the attribute files carry over unless one of them (or a directory) was touched.
    var derived = IndexFileStore.Derived()
    if loaded.derived.hasConflicts == false { derived.hasConflicts = false }
    if !patched.removedDescendants,
      !operations.contains(where: { String(decoding: $0.path, as: UTF8.self).hasSuffix(".gitattributes") })
    {
      derived.attributeFiles = attributeFiles
    }
    if unchanged {
      if indexChanged {
        try IndexFileStore.write(indexPath, patched.bytes, checkpoints: patched.checkpoints, derived: derived)
      }
      return .committed(nil)
    }

    let authorSignature = author ?? defaultSignature()
    let committerSignature = author == nil ? authorSignature : defaultSignature()
    let commitID = try createCommit(
      tree: newTreeID, parent: headCommit, author: authorSignature, committer: committerSignature,
      message: message)

    try IndexFileStore.write(indexPath, patched.bytes, checkpoints: patched.checkpoints, derived: derived)
    do {
      try moveHead(to: commitID, from: headID, reflogMessage: reflogMessage(message, initial: headID == nil))
    } catch {
      // As in commitUnchecked: the commit did not happen, so put the touched entries back as they were.
      restore(operations, previous: patched.previous, after: patched, indexPath: indexPath, racyCutoff: racyCutoff)
      throw error
    }
    return .committed(commitID)
  }

  /// Stats and hashes each path into an upsert or a removal; stops early (leaving `operations` short) on a file
  /// type the patcher does not write (a fifo, a socket...).
  private func hashPaths(_ paths: [String], into operations: inout [IndexPatchOperation], hashing: OpaquePointer)
    throws
  {
    for path in paths {
      let (kind, info) = try workTreeStat(of: path)
      switch kind {
      case .file:
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG || type == S_IFLNK else { return }
        // Stat first, then hash (as libgit2 and git do): a write in between leaves a stat mismatch, so git
        // re-hashes instead of trusting a stale entry. from_workdir applies .gitattributes filters exactly like
        // git_index_add_bypath (both go through git_blob__create_from_paths with filters on).
        var oid = git_oid()
        try check("git_blob_create_from_workdir(\(path))", git_blob_create_from_workdir(&oid, hashing, path))
        var record = Self.statRecord(info)
        record.mode = type == S_IFLNK ? 0o120000 : (info.st_mode & S_IXUSR != 0 ? 0o100755 : 0o100644)
        record.id = Self.bytes(of: oid)
        record.path = Array(path.utf8)
        operations.append(.upsert(record))
      case .missing:
        operations.append(.remove(path: Array(path.utf8), descendants: true))
      case .directory:
        throw GitError(
          function: "git_index_add_bypath(\(path))", code: GIT_EINVALIDSPEC.rawValue,
          message: "\(path) is a directory in the work tree; pass file paths")
      }
    }
  }

  /// Runs `body` with a second handle on this repository whose index is an in-memory one holding only the
  /// index's `.gitattributes` entries, `attributes`; `body` hashes through that handle.
  ///
  /// Hashing a work-tree file applies its filters, and libgit2 looks for `.gitattributes` in the index too, for
  /// which it loads the whole index (~60 ms at 100k entries): exactly the cost the patcher exists to avoid. The
  /// attribute files libgit2 can see are the same, so the filters are the same. A separate handle, because
  /// replacing this one's index would orphan the index object `Repository` keeps. On any failure here, `body` gets
  /// this repository and libgit2 loads the index as before.
  private func withAttributesOnlyIndex(
    _ attributes: [IndexEntryRecord]?, _ body: (_ hashing: OpaquePointer) throws -> Void
  ) throws {
    guard let attributes else { return try body(pointer) }
    hashingHandleLock.lock()
    defer { hashingHandleLock.unlock() }
    // Reused while this Repository lives: opening one reads the config files each time (~1 ms per save).
    if hashingHandle?.owner !== self {
      var opened: OpaquePointer?
      let rc = workTree.path.withCString {
        git_repository_open_ext(&opened, $0, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil)
      }
      guard rc == 0, let opened else { return try body(pointer) }
      hashingHandle = HashingHandle(owner: self, pointer: opened)
    }
    guard let handle = hashingHandle?.pointer else { return try body(pointer) }
    var tiny: OpaquePointer?
    guard git_index_new(&tiny) == 0, let tiny else { return try body(pointer) }
    defer { git_index_free(tiny) }
    for entry in attributes {
      let added = String(decoding: entry.path, as: UTF8.self).withCString { cPath -> Int32 in
        var cEntry = git_index_entry()
        cEntry.path = cPath
        cEntry.mode = entry.mode
        cEntry.id = Self.oid(entry.id)
        return git_index_add(tiny, &cEntry)
      }
      if added < 0 { return try body(pointer) }
    }
    guard git_repository_set_index(handle, tiny) == 0 else { return try body(pointer) }
    try body(handle)
  }

  /// Best effort, like `restore(_:in:)`: the branch update already failed, and that is the error worth reporting.
  private func restore(
    _ operations: [IndexPatchOperation], previous: [[UInt8]: IndexEntryRecord], after patched: IndexPatchResult,
    indexPath: String, racyCutoff: UInt32
  ) {
    var undo: [IndexPatchOperation] = []
    for operation in operations {
      if var entry = previous[operation.path] {
        // Zeroed stat data makes git compare contents next time instead of trusting a stale timestamp.
        entry = IndexEntryRecord(mode: entry.mode, id: entry.id, path: entry.path)
        undo.append(.upsert(entry))
      } else if case .upsert = operation {
        undo.append(.remove(path: operation.path, descendants: false))
      }
    }
    let snapshot = IndexFile.Snapshot(bytes: patched.bytes, checkpoints: patched.checkpoints)
    guard
      let restored = try? IndexFile.patch(
        snapshot, undo, racyCutoff: racyCutoff, isRacilyModified: { self.isRacilyModified($0, hashing: self.pointer) })
    else { return }
    try? IndexFileStore.write(indexPath, restored.bytes, checkpoints: restored.checkpoints)
  }

  /// The stat fields of an index entry, truncated to 32 bits as git records them.
  private static func statRecord(_ info: stat) -> IndexEntryRecord {
    var record = IndexEntryRecord()
    record.ctimeSeconds = UInt32(truncatingIfNeeded: info.st_ctim.tv_sec)
    record.ctimeNanoseconds = UInt32(truncatingIfNeeded: info.st_ctim.tv_nsec)
    record.mtimeSeconds = UInt32(truncatingIfNeeded: info.st_mtim.tv_sec)
    record.mtimeNanoseconds = UInt32(truncatingIfNeeded: info.st_mtim.tv_nsec)
    record.dev = UInt32(truncatingIfNeeded: info.st_dev)
    record.ino = UInt32(truncatingIfNeeded: info.st_ino)
    record.uid = UInt32(truncatingIfNeeded: info.st_uid)
    record.gid = UInt32(truncatingIfNeeded: info.st_gid)
    record.size = UInt32(truncatingIfNeeded: info.st_size)
    return record
  }

  /// For an entry recorded in the same second the old index was written: could its file have changed since
  /// without git noticing by stat? Only mtime seconds and size are compared, the fields git checks under every
  /// `core.checkStat`; when they still match, the contents decide.
  private func isRacilyModified(_ entry: IndexEntryRecord, hashing: OpaquePointer) -> Bool {
    let path = String(decoding: entry.path, as: UTF8.self)
    var info = stat()
    guard lstat(workTree.path + "/" + path, &info) == 0 else { return false }
    let current = Self.statRecord(info)
    guard current.mtimeSeconds == entry.mtimeSeconds, current.size == entry.size else { return false }
    switch info.st_mode & S_IFMT {
    case S_IFREG:
      var oid = git_oid()
      guard git_repository_hashfile(&oid, hashing, path, GIT_OBJECT_BLOB, nil) == 0 else { return true }
      return Self.bytes(of: oid) != entry.id
    case S_IFDIR:
      return false  // a submodule: git compares its HEAD, not stat data
    default:
      return true
    }
  }

  private static func bytes(of oid: git_oid) -> [UInt8] {
    withUnsafeBytes(of: oid.id) { Array($0) }
  }

  private static func oid(_ bytes: [UInt8]) -> git_oid {
    var oid = git_oid()
    withUnsafeMutableBytes(of: &oid.id) { $0.copyBytes(from: bytes.prefix(20)) }
    return oid
  }

  /// A boolean config value, true when unset (the default of the keys asked here).
  private func configFlag(_ key: String) -> Bool {
    guard let value = config(key)?.lowercased() else { return true }
    return !["false", "no", "off", "0"].contains(value)
  }

  private func commitUnchecked(paths: [String], message: String, author: Signature?, index: OpaquePointer) throws
    -> ObjectID?
  {
    let head = try HeadTree(of: self)
    // The pointers below belong to `head`: keep it alive to the end of the scope, not just to its last use.
    defer { withExtendedLifetime(head) {} }
    let headID = head.id
    let headCommit = head.commit
    let headTree = head.tree

    var updates: [(action: git_tree_update_t, id: git_oid, mode: git_filemode_t, path: String)] = []
    var indexChanged = false
    var previous: [(path: String, entry: IndexEntry?)] = []
    for path in paths {
      let before = indexEntry(index, path)
      previous.append((path, before))
      switch try workTreeKind(of: path) {
      case .file:
        // add_bypath applies the repository's filters (.gitattributes eol, ...) exactly like `git add`, writes the
        // blob and refreshes the entry's stat data, so git sees the file as clean without re-hashing it.
        try check("git_index_add_bypath(\(path))", git_index_add_bypath(index, path))
        guard let after = indexEntry(index, path) else {
          throw GitError(function: "git_index_get_bypath(\(path))", code: GIT_ENOTFOUND.rawValue, message: "")
        }
        if before.map({ !($0.id == after.id && $0.mode == after.mode) }) ?? true { indexChanged = true }
        updates.append((GIT_TREE_UPDATE_UPSERT, after.oid, git_filemode_t(after.mode), path))
      case .missing:
        if before != nil { indexChanged = true }
        try check("git_index_remove_bypath(\(path))", git_index_remove_bypath(index, path))
        if try removeDirectoryEntries(index, path) { indexChanged = true }
        // Removing what HEAD's tree does not have is an error in git_tree_create_updated, so only existing ones.
        if let headTree, try treeEntryExists(headTree, path) {
          updates.append((GIT_TREE_UPDATE_REMOVE, git_oid(), GIT_FILEMODE_BLOB, path))
        }
      case .directory:
        throw GitError(
          function: "git_index_add_bypath(\(path))", code: GIT_EINVALIDSPEC.rawValue,
          message: "\(path) is a directory in the work tree; pass file paths")
      }
    }

    let newTreeID = try createUpdatedTree(base: headTree, updates: updates)
    let unchanged: Bool
    if let headTree {
      unchanged = ObjectID(git_tree_id(headTree)) == newTreeID.id
    } else {
      // An unborn branch "has" the empty tree: committing nothing into it is a no-op too.
      unchanged = updates.allSatisfy { $0.action == GIT_TREE_UPDATE_REMOVE }
    }
    if unchanged {
      if indexChanged { try check("git_index_write", git_index_write(index)) }
      return nil
    }

    let authorSignature = author ?? defaultSignature()
    let committerSignature = author == nil ? authorSignature : defaultSignature()
    let commitID = try createCommit(
      tree: newTreeID, parent: headCommit, author: authorSignature, committer: committerSignature,
      message: message)

    try check("git_index_write", git_index_write(index))
    do {
      try moveHead(to: commitID, from: headID, reflogMessage: reflogMessage(message, initial: headID == nil))
    } catch {
      // The commit did not happen, so the index must not claim it did: put the entries back as they were, so
      // nothing is left staged that the caller is about to roll back in the work tree.
      restore(previous, in: index)
      throw error
    }
    return commitID
  }

  /// Best effort: the branch update already failed, and that is the error worth reporting.
  private func restore(_ entries: [(path: String, entry: IndexEntry?)], in index: OpaquePointer) {
    for (path, entry) in entries {
      guard let entry else {
        _ = git_index_remove_bypath(index, path)
        continue
      }
      path.withCString { cPath in
        // Zeroed stat data makes git compare contents next time instead of trusting a stale timestamp.
        var restored = git_index_entry()
        restored.id = entry.oid
        restored.mode = entry.mode
        restored.path = cPath
        _ = git_index_add(index, &restored)
      }
    }
    _ = git_index_write(index)
  }

  /// Validates caller paths (relative, `/`-separated, no `.`/`..` components) and removes duplicates.
  private func normalized(_ paths: [String]) throws -> [String] {
    var seen = Set<String>()
    var result: [String] = []
    for raw in paths {
      var path = raw
      while path.hasSuffix("/") { path.removeLast() }
      let components = path.split(separator: "/", omittingEmptySubsequences: false)
      if path.isEmpty || path.hasPrefix("/") || components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        || components.first == ".git"
      {
        throw GitError(
          function: "Repository.commit(paths:)", code: GIT_EINVALIDSPEC.rawValue,
          message: "invalid work-tree relative path: \(raw.debugDescription)")
      }
      if seen.insert(path).inserted { result.append(path) }
    }
    return result
  }

  private enum WorkTreeKind { case file, directory, missing }

  private func workTreeKind(of path: String) throws -> WorkTreeKind {
    try workTreeStat(of: path).kind
  }

  /// lstat, not stat: a symlink (even a dangling one) is committed as a link, never followed.
  private func workTreeStat(of path: String) throws -> (kind: WorkTreeKind, info: stat) {
    var info = stat()
    let full = workTree.path + "/" + path
    if lstat(full, &info) != 0 {
      if errno == ENOENT || errno == ENOTDIR { return (.missing, info) }
      throw GitError(
        function: "lstat(\(path))", code: GIT_ERROR.rawValue, message: String(cString: strerror(errno)))
    }
    return ((info.st_mode & S_IFMT) == S_IFDIR ? .directory : .file, info)
  }

  private struct IndexEntry: Equatable {
    var id: ObjectID
    var oid: git_oid
    var mode: UInt32
    static func == (a: IndexEntry, b: IndexEntry) -> Bool { a.id == b.id && a.mode == b.mode }
  }

  private func indexEntry(_ index: OpaquePointer, _ path: String) -> IndexEntry? {
    guard let entry = git_index_get_bypath(index, path, 0) else { return nil }
    return IndexEntry(id: ObjectID(entry.pointee.id), oid: entry.pointee.id, mode: entry.pointee.mode)
  }

  /// Drops index entries below `path` when it was a tracked directory; returns whether any were dropped.
  private func removeDirectoryEntries(_ index: OpaquePointer, _ path: String) throws -> Bool {
    let before = git_index_entrycount(index)
    try check("git_index_remove_directory(\(path))", git_index_remove_directory(index, path, 0))
    return git_index_entrycount(index) != before
  }

  private func treeEntryExists(_ tree: OpaquePointer, _ path: String) throws -> Bool {
    var entry: OpaquePointer?
    let rc = git_tree_entry_bypath(&entry, tree, path)
    if rc == GIT_ENOTFOUND.rawValue { return false }
    try check("git_tree_entry_bypath(\(path))", rc)
    git_tree_entry_free(entry)
    return true
  }

  private func createUpdatedTree(
    base: OpaquePointer?, updates: [(action: git_tree_update_t, id: git_oid, mode: git_filemode_t, path: String)]
  ) throws -> (id: ObjectID, oid: git_oid) {
    var out = git_oid()
    if updates.isEmpty, let base {
      out = git_tree_id(base).pointee
      return (ObjectID(out), out)
    }
    // Removing `a` and `a/b` in one call makes libgit2 rebuild `a` for the second removal and keep the rest of
    // it: a removal below another removal is already covered by it.
    let removed = updates.filter { $0.action == GIT_TREE_UPDATE_REMOVE }.map { $0.path + "/" }
    let updates = updates.filter { update in
      update.action != GIT_TREE_UPDATE_REMOVE || !removed.contains { update.path.hasPrefix($0) }
    }
    let cPaths = updates.map { strdup($0.path) }
    defer { cPaths.forEach { free($0) } }
    var cUpdates = zip(updates, cPaths).map { update, cPath in
      git_tree_update(action: update.action, id: update.id, filemode: update.mode, path: UnsafePointer(cPath))
    }
    try check("git_tree_create_updated", git_tree_create_updated(&out, pointer, base, cUpdates.count, &cUpdates))
    return (ObjectID(out), out)
  }

  private func createCommit(
    tree treeID: (id: ObjectID, oid: git_oid), parent: OpaquePointer?, author: Signature, committer: Signature,
    message: String
  ) throws -> ObjectID {
    var treeOID = treeID.oid
    var tree: OpaquePointer?
    try check("git_tree_lookup", git_tree_lookup(&tree, pointer, &treeOID))
    defer { git_tree_free(tree) }
    let authorSig = try author.makeGitSignature()
    defer { git_signature_free(authorSig) }
    let committerSig = try committer.makeGitSignature()
    defer { git_signature_free(committerSig) }
    // Git's own commands end a message with a newline; tools that print raw messages expect it.
    let text = message.isEmpty || message.hasSuffix("\n") ? message : message + "\n"
    var out = git_oid()
    var parents: [OpaquePointer?] = parent.map { [$0] } ?? []
    let rc = parents.withUnsafeMutableBufferPointer { buffer in
      // update_ref = nil: the ref moves only after the index is written (see commit(paths:)).
      git_commit_create(
        &out, pointer, nil, authorSig, committerSig, nil, text, tree, buffer.count, buffer.baseAddress)
    }
    try check("git_commit_create", rc)
    return ObjectID(out)
  }

  /// Moves HEAD's branch (or a detached HEAD) from `old` to `new`, failing if someone else moved it meanwhile.
  private func moveHead(to new: ObjectID, from old: ObjectID?, reflogMessage: String) throws {
    let refName = headSymbolicTarget() ?? "HEAD"
    var newOID = new.oid
    var ref: OpaquePointer?
    let rc: Int32
    if var oldOID = old?.oid {
      rc = git_reference_create_matching(&ref, pointer, refName, &newOID, 1, &oldOID, reflogMessage)
    } else {
      // force = 0 on an unborn branch: if another process created it meanwhile we fail instead of overwriting.
      rc = git_reference_create_matching(&ref, pointer, refName, &newOID, 0, nil, reflogMessage)
    }
    git_reference_free(ref)
    try check("git_reference_create_matching(\(refName))", rc)
  }

  private func reflogMessage(_ message: String, initial: Bool) -> String {
    let subject = message.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: true).first ?? ""
    return (initial ? "commit (initial): " : "commit: ") + subject
  }

  private func pathExists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }
}

/// The second libgit2 handle `withAttributesOnlyIndex` hashes through, kept for the `Repository` that opened it.
private final class HashingHandle {
  weak var owner: Repository?
  let pointer: OpaquePointer

  init(owner: Repository, pointer: OpaquePointer) {
    self.owner = owner
    self.pointer = pointer
  }

  deinit { git_repository_free(pointer) }
}

/// One handle is enough (a process saves to one repository at a time); the lock also keeps two threads'
/// `Repository` instances from using it at once.
private nonisolated(unsafe) var hashingHandle: HashingHandle?
private let hashingHandleLock = NSLock()

/// HEAD's commit and its tree, looked up together and freed together (both nil on an unborn branch).
private final class HeadTree {
  let id: ObjectID?
  private(set) var commit: OpaquePointer?
  private(set) var tree: OpaquePointer?

  init(of repository: Repository) throws {
    id = try repository.headCommitID()
    guard let id else { return }
    var oid = id.oid
    try check("git_commit_lookup(HEAD)", git_commit_lookup(&commit, repository.pointer, &oid))
    try check("git_commit_tree(HEAD)", git_commit_tree(&tree, commit))
  }

  deinit {
    git_tree_free(tree)
    git_commit_free(commit)
  }
}

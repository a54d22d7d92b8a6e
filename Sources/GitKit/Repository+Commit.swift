import CLibGit2
import Foundation
import TextFormat

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
    // The patcher writes the index only if it is still the file it patched: a `git add` that replaced it
    // meanwhile is kept, and the commit is made again from the index as it now is.
    var attempts = 0
    while true {
      do {
        return try commitOnce(paths: paths, message: message, author: author)
      } catch is IndexReplaced {
        attempts += 1
        guard attempts < 4 else {
          throw GitError(
            function: "git_index_write", code: GIT_EMODIFIED.rawValue,
            message: "the index kept being replaced by another process while the commit was made; nothing was committed"
          )
        }
      }
    }
  }

  /// The index file was replaced between the patcher's read and its write: ``commit(paths:message:author:)``
  /// commits again from the index as it now is.
  struct IndexReplaced: Error {}

  private func commitOnce(paths: [String], message: String, author: Signature?) throws -> ObjectID? {
    let paths = try Self.normalized(paths)
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
    let head = try HeadTree(of: self)
    // The pointers in `head` are used to the end: keep it alive that long, not just to its last use.
    defer { withExtendedLifetime(head) {} }

    let patcher = PatchingIndexWriter(
      repository: self, indexPath: indexPath, store: indexFileStore,
      headTreeID: head.tree.map { Self.bytes(of: git_tree_id($0).pointee) })
    if let staged = try patcher.stage(paths) {
      return try commit(staged, through: patcher, head: head, message: message, author: author)
    }
    // The patcher declined before writing anything: libgit2 loads the whole index and stages the paths itself.
    let libgit2 = LibGit2IndexWriter(repository: self, index: try index())
    let staged: StagedPaths
    do {
      staged = try libgit2.stage(paths)
    } catch {
      libgit2.discardChanges()
      throw error
    }
    return try commit(staged, through: libgit2, head: head, message: message, author: author)
  }

  /// The steps after staging, the same whoever staged: the tree, the unchanged check, the commit object, the index
  /// write, then the compare-and-swap on the branch, putting the index entries back if that fails.
  private func commit(
    _ staged: StagedPaths, through writer: some IndexWriter, head: HeadTree, message: String, author: Signature?
  ) throws -> ObjectID? {
    do {
      var updates: [(action: git_tree_update_t, id: git_oid, mode: git_filemode_t, path: String)] = []
      var indexChanged = staged.removedDescendants
      for path in staged.paths {
        switch path.change {
        case .upsert(let entry):
          if path.previous != entry { indexChanged = true }
          updates.append((GIT_TREE_UPDATE_UPSERT, Self.oid(entry.id), git_filemode_t(entry.mode), path.path))
        case .remove:
          if path.previous != nil { indexChanged = true }
          // Removing what HEAD's tree does not have is an error in git_tree_create_updated, so only existing ones.
          if staged.builtTree == nil, let headTree = head.tree, try treeEntryExists(headTree, path.path) {
            updates.append((GIT_TREE_UPDATE_REMOVE, git_oid(), GIT_FILEMODE_BLOB, path.path))
          }
        }
      }

      // The check that each entry exists reads every new blob's header back from the packs just written, paging
      // them all into memory (180 MB of a 6 000-file adoption's peak); the stager already knows they exist.
      let newTreeID: (id: ObjectID, oid: git_oid)
      if let built = staged.builtTree {
        newTreeID = (built, built.oid)
      } else if staged.entriesExist && updates.count >= Self.packThreshold {
        newTreeID = try LibGit2.withoutStrictObjectCreation { try createUpdatedTree(base: head.tree, updates: updates) }
      } else {
        newTreeID = try createUpdatedTree(base: head.tree, updates: updates)
      }
      let unchanged: Bool
      if let headTree = head.tree {
        unchanged = ObjectID(git_tree_id(headTree)) == newTreeID.id
      } else {
        // An unborn branch "has" the empty tree: committing nothing into it is a no-op too.
        unchanged = updates.allSatisfy { $0.action == GIT_TREE_UPDATE_REMOVE }
      }
      if unchanged {
        if indexChanged {
          if let headTree = head.tree { writer.revalidateCacheTree(against: headTree) }
          try writer.write()
        }
        return nil
      }

      var oid = newTreeID.oid
      var newTree: OpaquePointer?
      try check("git_tree_lookup", git_tree_lookup(&newTree, pointer, &oid))
      defer { git_tree_free(newTree) }
      let authorSignature = author ?? defaultSignature()
      let committerSignature = author == nil ? authorSignature : defaultSignature()
      let commitID = try createCommit(
        tree: newTree!, parent: head.commit, author: authorSignature, committer: committerSignature, message: message)

      // Before the index is written: the directories the commit leaves equal to the new tree get their ids back.
      writer.revalidateCacheTree(against: newTree!)
      try writer.write()
      do {
        try moveHead(to: commitID, from: head.id, reflogMessage: reflogMessage(message, initial: head.id == nil))
      } catch {
        // The commit did not happen, so the index must not claim it did: put the entries back as they were, so
        // nothing is left staged that the caller is about to roll back in the work tree.
        restore(staged, through: writer)
        throw error
      }
      return commitID
    } catch {
      writer.discardChanges()
      throw error
    }
  }

  /// Best effort: the branch update already failed, and that is the error worth reporting.
  private func restore(_ staged: StagedPaths, through writer: some IndexWriter) {
    var undo: [IndexUndo] = []
    for path in staged.paths {
      if let previous = path.previous {
        undo.append(.put(path: path.path, previous))
      } else if case .upsert = path.change {
        undo.append(.remove(path: path.path))
      }
    }
    guard (try? writer.apply(undo)) != nil else { return }
    try? writer.write()
  }

  /// Stats and hashes each path into an upsert or a removal; stops early (leaving `operations` short) on a file
  /// type the patcher does not write (a fifo, a socket...).
  ///
  /// Many paths at once (adopting a folder) go into pack files (`PackWriter`, see ``NewObjects``) rather than a
  /// loose file each: each file is read once, hashed once and compressed once, and the objects land in a few files
  /// instead of thousands. They are readable once `objects` is finished.
  fileprivate func hashPaths(_ paths: [String], into operations: inout [IndexPatchOperation], objects: NewObjects)
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
        var id: [UInt8]?
        if let packer = objects.packer, let odb = objects.odb {
          id = try packedBlob(
            path, size: Int(info.st_size), symlink: type == S_IFLNK, packer: packer, odb: odb, hashing: objects.hashing)
        }
        if id == nil {
          var oid = git_oid()
          try check(
            "git_blob_create_from_workdir(\(path))", git_blob_create_from_workdir(&oid, objects.hashing, path))
          id = Self.bytes(of: oid)
        }
        var record = Self.statRecord(info)
        record.mode = Self.gitMode(info)
        record.id = id!
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

  /// From this many paths on, `hashPaths` writes pack files: below it a loose file each costs less than a pack.
  static let packThreshold = 64
  /// Files larger than this go to libgit2 (which streams them) rather than into a pack buffer.
  static let packedFileLimit = 8 << 20

  /// Hashes one work-tree file (or a symlink's target) as a blob and adds it to `packer` unless the repository has
  /// it; its id. nil when the file is for libgit2 instead: a filter applies to it (.gitattributes, core.autocrlf),
  /// it is large, or it cannot be read as it was stat'ed.
  private func packedBlob(
    _ path: String, size: Int, symlink: Bool, packer: PackWriter, odb: OpaquePointer, hashing: OpaquePointer
  ) throws -> [UInt8]? {
    let full = workTree.path + "/" + path
    var content: [UInt8]
    if symlink {
      guard let target = symlinkTarget(full) else { return nil }
      content = target
    } else {
      guard size <= Self.packedFileLimit,
        let bytes = readWholeFile(full, expected: size, limit: Self.packedFileLimit)
      else { return nil }
      content = bytes
      // libgit2's filters towards the repository are end-of-line conversion (CRLF to LF) and `ident` ($Id$):
      // neither changes bytes without a CR or a "$Id", whatever .gitattributes says, so only such files need their
      // filters looked up (which stats every attribute file above the path) and applied.
      if Self.mayNeedFilters(content) {
        var filters: OpaquePointer?
        guard git_filter_list_load(&filters, hashing, nil, path, GIT_FILTER_TO_ODB, GIT_FILTER_DEFAULT.rawValue) == 0
        else { return nil }
        if let filters {
          defer { git_filter_list_free(filters) }
          var buffer = git_buf()
          defer { git_buf_dispose(&buffer) }
          let rc = content.withUnsafeBytes { raw in
            git_filter_list_apply_to_buffer(
              &buffer, filters, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count)
          }
          guard rc == 0 else { return nil }
          content = buffer.ptr.map { Array(UnsafeRawBufferPointer(start: $0, count: buffer.size)) } ?? []
        }
      }
    }
    let id = content.withUnsafeBytes { GitObjectHash.digest(prefix: Array("blob \(content.count)\0".utf8), $0) }
    var oid = Self.oid(id)
    if !packer.contains(id), git_odb_exists(odb, &oid) == 0 {
      try content.withUnsafeBytes { try packer.add(.blob, id: id, data: $0) }
    }
    return id
  }

  /// Whether a filter could change `content` on its way into the repository: it holds a CR or `$Id`.
  static func mayNeedFilters(_ content: [UInt8]) -> Bool {
    content.withUnsafeBytes { raw in
      guard let base = raw.baseAddress, raw.count > 0 else { return false }
      if memchr(base, 0x0D, raw.count) != nil { return true }
      var offset = 0
      while offset < raw.count, let dollar = memchr(base + offset, 0x24, raw.count - offset) {
        let at = base.distance(to: UnsafeRawPointer(dollar))
        if at + 3 <= raw.count, raw[at + 1] == 0x49, raw[at + 2] == 0x64 { return true }
        offset = at + 1
      }
      return false
    }
  }

  fileprivate func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// Runs `body` with a second handle on this repository whose index is an in-memory one holding only the
  /// index's `.gitattributes` entries, `attributes`; `body` hashes through that handle.
  ///
  /// Hashing a work-tree file applies its filters, and libgit2 looks for `.gitattributes` in the index too, for
  /// which it loads the whole index (~60 ms at 100k entries): exactly the cost the patcher exists to avoid. The
  /// attribute files libgit2 can see are the same, so the filters are the same. A separate handle, because
  /// replacing this one's index would orphan the index object `Repository` keeps. On any failure here, `body` gets
  /// this repository and libgit2 loads the index as before.
  func withAttributesOnlyIndex(
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

  /// The stat fields of an index entry, truncated to 32 bits as git records them.
  static func statRecord(_ info: stat) -> IndexEntryRecord {
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

  /// The mode git records for a file or symlink: a link, an executable (by its owner's bit) or a plain file.
  static func gitMode(_ info: stat) -> UInt32 {
    (info.st_mode & S_IFMT) == S_IFLNK ? 0o120000 : (info.st_mode & S_IXUSR != 0 ? 0o100755 : 0o100644)
  }

  /// For an entry recorded in the same second the old index was written: could its file have changed since
  /// without git noticing by stat? Only mtime seconds and size are compared, the fields git checks under every
  /// `core.checkStat`; when they still match, the contents decide.
  func isRacilyModified(_ entry: IndexEntryRecord, hashing: OpaquePointer) -> Bool {
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

  static func bytes(of oid: git_oid) -> [UInt8] {
    withUnsafeBytes(of: oid.id) { Array($0) }
  }

  static func oid(_ bytes: [UInt8]) -> git_oid {
    var oid = git_oid()
    withUnsafeMutableBytes(of: &oid.id) { $0.copyBytes(from: bytes.prefix(20)) }
    return oid
  }

  /// A boolean config value, true when unset (the default of the keys asked here).
  func configFlag(_ key: String) -> Bool {
    guard let value = config(key)?.lowercased() else { return true }
    return !["false", "no", "off", "0"].contains(value)
  }

  /// Validates caller paths (relative, `/`-separated, no `.`/`..` components) and removes duplicates.
  static func normalized(_ paths: [String]) throws -> [String] {
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

  /// Whether a path has a `.git`-like component: libgit2 refuses those anywhere in a path (also spelled `.GIT.`,
  /// `git~1`), so judging them is left to it. Trimming dots and spaces on both ends makes this a superset (a plain
  /// `git` goes there too).
  static func hasGitLikeComponent(_ paths: [String]) -> Bool {
    paths.contains { path in
      path.utf8.contains(0)
        || path.split(separator: "/").contains { component in
          // Trimmed in Swift: Foundation's trimmingCharacters(in:) bridges to NSString, whose first use makes the
          // runtime scan every conformance record in the binary.
          let name = component.lowercased()[...].trimmingScalars { $0 == " " || $0 == "." }
          return name == "git" || name == "git~1"
        }
    }
  }

  fileprivate enum WorkTreeKind { case file, directory, missing }

  fileprivate func workTreeKind(of path: String) throws -> WorkTreeKind {
    try workTreeStat(of: path).kind
  }

  /// lstat, not stat: a symlink (even a dangling one) is committed as a link, never followed.
  fileprivate func workTreeStat(of path: String) throws -> (kind: WorkTreeKind, info: stat) {
    var info = stat()
    let full = workTree.path + "/" + path
    if lstat(full, &info) != 0 {
      if errno == ENOENT || errno == ENOTDIR { return (.missing, info) }
      throw GitError(
        function: "lstat(\(path))", code: GIT_ERROR.rawValue, message: String(cString: strerror(errno)))
    }
    return ((info.st_mode & S_IFMT) == S_IFDIR ? .directory : .file, info)
  }

  fileprivate func indexEntry(_ index: OpaquePointer, _ path: String) -> IndexEntryValue? {
    guard let entry = git_index_get_bypath(index, path, 0) else { return nil }
    return IndexEntryValue(id: Self.bytes(of: entry.pointee.id), mode: entry.pointee.mode)
  }

  /// Drops index entries below `path` when it was a tracked directory; returns whether any were dropped.
  fileprivate func removeDirectoryEntries(_ index: OpaquePointer, _ path: String) throws -> Bool {
    let before = git_index_entrycount(index)
    try check("git_index_remove_directory(\(path))", git_index_remove_directory(index, path, 0))
    return git_index_entrycount(index) != before
  }

  fileprivate func treeEntryExists(_ tree: OpaquePointer, _ path: String) throws -> Bool {
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
    tree: OpaquePointer, parent: OpaquePointer?, author: Signature, committer: Signature, message: String
  ) throws -> ObjectID {
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
    // String(subject): `String + Substring` is the generic `+`, whose first use looks a conformance up by scanning
    // every conformance record in the binary.
    return (initial ? "commit (initial): " : "commit: ") + String(subject)
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

/// An index entry's identity as far as a commit cares: the blob and the mode.
private struct IndexEntryValue: Equatable {
  /// The blob id, 20 bytes.
  var id: [UInt8]
  var mode: UInt32
}

/// What staging did to the index, path by path in the caller's order: all the pipeline needs to build the tree,
/// tell whether the index changed, and undo the staging.
private struct StagedPaths {
  enum Change {
    case upsert(IndexEntryValue)
    case remove
  }

  struct Path {
    var path: String
    var change: Change
    /// The stage-0 entry the path had before; nil when it had none.
    var previous: IndexEntryValue?
  }

  var paths: [Path] = []
  /// True when removing a path (a tracked directory) dropped entries below it too.
  var removedDescendants = false
  /// True when every upserted id is known to be in the repository (written or found while hashing), so a tree
  /// naming them needs no check that they exist.
  var entriesExist = false
  /// The tree of the whole staged index when the stager made it (every new tree written): the tree to commit.
  var builtTree: ObjectID?
}

/// One step of putting staged entries back.
private enum IndexUndo {
  /// The entry as it was, with zeroed stat data so git compares contents next time instead of trusting a stale
  /// timestamp.
  case put(path: String, IndexEntryValue)
  case remove(path: String)
}

/// Who edits the index for `commit(paths:)`: the byte patcher or libgit2's own index. Each stages in its own way;
/// everything after staging is `Repository.commit(_:through:...)`.
private protocol IndexWriter {
  /// Writes the staged index with git's lock protocol (an existing `index.lock` fails with `isLocked`).
  func write() throws
  /// Applies `undo` to the staged index in memory; `write()` then writes the result.
  func apply(_ undo: [IndexUndo]) throws
  /// Forgets in-memory edits after a failure, so the next commit starts from the file on disk.
  func discardChanges()
  /// Marks the directories whose staged entries equal `tree`'s valid in the index's cache tree (best effort).
  func revalidateCacheTree(against tree: OpaquePointer)
}

/// Where a commit's new objects go: with many paths (``Repository/packThreshold``) one pack, written when
/// ``finish()`` is called; else a loose file each, through libgit2. Objects the repository has are not written
/// again.
private final class NewObjects {
  /// The handle whose object database and filters hash the files (see `withAttributesOnlyIndex`).
  let hashing: OpaquePointer
  let odb: OpaquePointer?
  let packer: PackWriter?

  init(repository: Repository, hashing: OpaquePointer, pathCount: Int) {
    self.hashing = hashing
    var odb: OpaquePointer?
    if git_repository_odb(&odb, hashing) != 0 { odb = nil }
    self.odb = odb
    let objects = repository.gitDirectory.appendingPathComponent("objects").path
    packer =
      pathCount >= Repository.packThreshold && odb != nil && repository.isDirectory(objects)
      ? PackWriter(objectsDirectory: objects) : nil
  }

  deinit { git_odb_free(odb) }

  /// Stores the tree `content` whose id is `id`, unless it exists.
  func storeTree(id: [UInt8], content: [UInt8]) throws {
    guard let odb else {
      throw GitError(function: "git_repository_odb", code: -1, message: "no object database to write a tree to")
    }
    var oid = Repository.oid(id)
    if packer?.contains(id) == true || git_odb_exists(odb, &oid) != 0 { return }
    if let packer {
      try content.withUnsafeBytes { try packer.add(.tree, id: id, data: $0) }
      return
    }
    var written = git_oid()
    try check(
      "git_odb_write(tree)",
      content.withUnsafeBytes { git_odb_write(&written, odb, $0.baseAddress, $0.count, GIT_OBJECT_TREE) })
    guard Repository.bytes(of: written) == id else {
      throw GitError(function: "git_odb_write(tree)", code: -1, message: "the tree's id differs from the one computed")
    }
  }

  /// Installs the pack, if any: every object added becomes readable.
  func finish() throws {
    try packer?.finish()
  }
}

/// Edits `.git/index` bytes directly (see `IndexFile`) instead of loading all of it into libgit2.
private final class PatchingIndexWriter: IndexWriter {
  private let repository: Repository
  private let indexPath: String
  private let store: IndexFileStore
  private var result: IndexFile.Snapshot?
  /// The identity of the index file that was patched, until the first write: that write happens only if the file
  /// is still this one (a later write, restoring entries, replaces the file this writer wrote itself).
  private var patchedIdentity: IndexFileStore.Identity?
  private var derived = IndexFileStore.Derived()
  private var racyCutoff: UInt32 = 0
  /// HEAD's tree id: an index whose cache tree says it holds exactly that tree gets its new trees made from it.
  private let headTreeID: [UInt8]?
  /// Whether the staged index's cache tree was made whole with its trees (nothing to revalidate).
  private var treeBuilt = false

  init(repository: Repository, indexPath: String, store: IndexFileStore, headTreeID: [UInt8]?) {
    self.repository = repository
    self.indexPath = indexPath
    self.store = store
    self.headTreeID = headTreeID
  }

  /// Makes every tree of the patched index that its cache tree does not hold as valid (see
  /// ``CacheTree/built(_:existing:store:)``); nil when the index has entries a tree cannot be made from this way
  /// (conflicts, intent-to-add, skip-worktree), which libgit2's path then handles.
  private func buildTrees(_ table: IndexTable, objects: NewObjects) throws -> (root: CacheTree.Node, entriesEnd: Int)? {
    guard !table.hasUnusualEntries else { return nil }
    let root = try CacheTree.built(table, existing: CacheTree.existing(in: table)) { id, content in
      try objects.storeTree(id: id, content: content)
    }
    return (root, table.entriesEnd)
  }

  /// Hashes and patches the paths in memory; nil, before anything is written, when the index or the repository's
  /// settings need libgit2's general code.
  func stage(_ paths: [String]) throws -> StagedPaths? {
    // With core.filemode / core.symlinks false libgit2 derives modes from the old entry; leave that to it.
    guard repository.configFlag("core.filemode") && repository.configFlag("core.symlinks"),
      !Repository.hasGitLikeComponent(paths)
    else {
      return nil
    }
    guard case .success(let loaded) = store.load(indexPath) else { return nil }

    // Hashing files (and racily clean entries) applies .gitattributes filters; see withAttributesOnlyIndex.
    var operations: [IndexPatchOperation] = []
    racyCutoff = UInt32(truncatingIfNeeded: loaded.identity.mtimeSeconds)
    var patched: IndexPatchResult?
    var snapshot: IndexFile.Snapshot?
    var built: (root: CacheTree.Node, entriesEnd: Int)?
    let attributeFiles = try? store.attributeFiles(indexPath, loaded)
    try repository.withAttributesOnlyIndex(attributeFiles) { hashing in
      let objects = NewObjects(repository: repository, hashing: hashing, pathCount: paths.count)
      try repository.hashPaths(paths, into: &operations, objects: objects)
      if operations.count == paths.count {
        patched = try? IndexFile.patch(
          loaded.snapshot, operations, racyCutoff: racyCutoff, buildTable: true,
          isRacilyModified: { self.repository.isRacilyModified($0, hashing: hashing) })
        // The bytes move to `snapshot`, the only reference to them once the table is dropped, so that the cache
        // tree is replaced in place.
        let table = patched?.table
        patched?.table = nil
        if let bytes = patched?.bytes, let checkpoints = patched?.checkpoints {
          snapshot = IndexFile.Snapshot(bytes: bytes, checkpoints: checkpoints)
          patched?.bytes = []
        }
        // The index held HEAD's tree and nothing else (its cache tree said so): patched, it holds exactly the
        // tree to commit, made from it with no tree of HEAD read.
        if let table, let before = patched?.previousRootTreeID, before == headTreeID {
          built = try buildTrees(table, objects: objects)
        }
      }
      try objects.finish()
    }
    guard let patched, var patchedIndex = snapshot else { return nil }
    snapshot = nil
    patchedIdentity = loaded.identity
    if let built {
      IndexFile.replaceCacheTree(&patchedIndex, entriesEnd: built.entriesEnd, root: built.root)
      treeBuilt = true
    }
    result = patchedIndex

    // The patch writes stage-0 entries only and declines touched conflicted paths, so "no conflicts" carries
    // over; the attribute files carry over unless one of them (or a directory) was touched.
    if loaded.derived.hasConflicts == false { derived.hasConflicts = false }
    if !patched.removedDescendants,
      !operations.contains(where: { String(decoding: $0.path, as: UTF8.self).hasSuffix(".gitattributes") })
    {
      derived.attributeFiles = attributeFiles
    }

    // hashPaths wrote each blob (to a pack or through libgit2) or found it in the object database.
    var staged = StagedPaths(removedDescendants: patched.removedDescendants, entriesExist: true)
    if treeBuilt, let id = built?.root.id { staged.builtTree = ObjectID(Repository.oid(id)) }
    for operation in operations {
      let previous = patched.previous[operation.path].map { IndexEntryValue(id: $0.id, mode: $0.mode) }
      let change: StagedPaths.Change
      switch operation {
      case .upsert(let record): change = .upsert(IndexEntryValue(id: record.id, mode: record.mode))
      case .remove: change = .remove
      }
      staged.paths.append(
        StagedPaths.Path(path: String(decoding: operation.path, as: UTF8.self), change: change, previous: previous))
    }
    return staged
  }

  func write() throws {
    guard let result else { return }
    let expected = patchedIdentity
    patchedIdentity = nil
    guard try store.write(indexPath, result.bytes, checkpoints: result.checkpoints, derived: derived, ifStill: expected)
    else { throw Repository.IndexReplaced() }
  }

  func apply(_ undo: [IndexUndo]) throws {
    guard let result else { return }
    let operations = undo.map { step -> IndexPatchOperation in
      switch step {
      case .put(let path, let entry):
        return .upsert(IndexEntryRecord(mode: entry.mode, id: entry.id, path: Array(path.utf8)))
      case .remove(let path): return .remove(path: Array(path.utf8), descendants: false)
      }
    }
    let restored = try IndexFile.patch(
      result, operations, racyCutoff: racyCutoff,
      isRacilyModified: { self.repository.isRacilyModified($0, hashing: self.repository.pointer) })
    self.result = IndexFile.Snapshot(bytes: restored.bytes, checkpoints: restored.checkpoints)
    derived = IndexFileStore.Derived()
  }

  /// Nothing to forget: the patch lives only in this writer until `write()`.
  func discardChanges() {}

  func revalidateCacheTree(against tree: OpaquePointer) {
    // Made whole with the trees: every directory is valid already.
    guard !treeBuilt else { return }
    guard let current = result, let table = try? IndexTable(current), !table.hasUnusualEntries,
      let root = try? CacheTree.revalidated(table, against: tree, repository: repository.pointer)
    else { return }
    result = IndexFile.replacingCacheTree(current, table: table, root: root)
  }
}

/// Stages through libgit2's own index, which it loads whole: the general case the patcher declines.
private final class LibGit2IndexWriter: IndexWriter {
  private let repository: Repository
  private let index: OpaquePointer

  init(repository: Repository, index: OpaquePointer) {
    self.repository = repository
    self.index = index
  }

  func stage(_ paths: [String]) throws -> StagedPaths {
    var staged = StagedPaths()
    for path in paths {
      let before = repository.indexEntry(index, path)
      switch try repository.workTreeKind(of: path) {
      case .file:
        // add_bypath applies the repository's filters (.gitattributes eol, ...) exactly like `git add`, writes the
        // blob and refreshes the entry's stat data, so git sees the file as clean without re-hashing it.
        try check("git_index_add_bypath(\(path))", git_index_add_bypath(index, path))
        guard let after = repository.indexEntry(index, path) else {
          throw GitError(function: "git_index_get_bypath(\(path))", code: GIT_ENOTFOUND.rawValue, message: "")
        }
        staged.paths.append(StagedPaths.Path(path: path, change: .upsert(after), previous: before))
      case .missing:
        try check("git_index_remove_bypath(\(path))", git_index_remove_bypath(index, path))
        if try repository.removeDirectoryEntries(index, path) { staged.removedDescendants = true }
        staged.paths.append(StagedPaths.Path(path: path, change: .remove, previous: before))
      case .directory:
        throw GitError(
          function: "git_index_add_bypath(\(path))", code: GIT_EINVALIDSPEC.rawValue,
          message: "\(path) is a directory in the work tree; pass file paths")
      }
    }
    return staged
  }

  func write() throws {
    try check("git_index_write", git_index_write(index))
  }

  /// Never throws: each step is best effort, like the restore it serves.
  func apply(_ undo: [IndexUndo]) throws {
    for step in undo {
      switch step {
      case .remove(let path):
        _ = git_index_remove_bypath(index, path)
      case .put(let path, let entry):
        path.withCString { cPath in
          var restored = git_index_entry()
          restored.id = Repository.oid(entry.id)
          restored.mode = entry.mode
          restored.path = cPath
          _ = git_index_add(index, &restored)
        }
      }
    }
  }

  func discardChanges() {
    repository.discardIndexChanges()
  }

  /// libgit2 keeps its own tree cache; the general path leaves it to it.
  func revalidateCacheTree(against tree: OpaquePointer) {}
}

/// The target a symlink at `full` names, as its blob holds it; nil when it cannot be read.
func symlinkTarget(_ full: String) -> [UInt8]? {
  var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
  let count = readlink(full, &buffer, buffer.count)
  guard count >= 0, count < buffer.count else { return nil }
  buffer.removeLast(buffer.count - count)
  return buffer
}

/// The whole file at `full` (not following a symlink), or nil when it cannot be read or outgrows `limit`.
func readWholeFile(_ full: String, expected: Int, limit: Int) -> [UInt8]? {
  let fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  var bytes = [UInt8](repeating: 0, count: expected + 1)
  var count = 0
  while true {
    if count == bytes.count {
      guard bytes.count <= limit else { return nil }
      bytes.append(contentsOf: repeatElement(0, count: max(4096, bytes.count)))
    }
    let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
    if n < 0 && errno == EINTR { continue }
    if n < 0 { return nil }
    if n == 0 { break }
    count += n
  }
  bytes.removeLast(bytes.count - count)
  return bytes
}

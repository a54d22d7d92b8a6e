import CLibGit2
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What one walk of the work tree against the index found (see `Repository.scanWorkTree`).
public struct WorkTreeScan: Sendable {
  /// The changes, exactly as `status()` reports them, sorted by path.
  public var entries: [StatusEntry]
  /// The tree the index holds, which is HEAD's tree (the walk answers only then).
  public var tree: ObjectID
  /// How many tracked files had to be read and hashed because their stat data did not settle it.
  public var hashed: Int
  /// The new stat data of the files that were hashed and found unchanged, for ``writeRefreshedIndex()``.
  var refresh: IndexStatRefresh?

  /// How many index entries ``writeRefreshedIndex()`` would give the file's current stat data.
  public var refreshable: Int { refresh?.entries.count ?? 0 }

  /// Records in `.git/index` the stat data of the files this walk hashed and found unchanged, as `git status` does,
  /// so that the next walk trusts them instead of reading them again (after `cp -a`, a restore from a backup, or
  /// `touch`). Only those entries' stat fields change; the file keeps its mtime, so every entry that was racily
  /// clean stays so. Best effort under git's `index.lock`: false, with nothing written, when there is nothing to
  /// record, the lock is taken, or the index changed since the walk read it.
  ///
  /// The caller must hold whatever keeps its own writers of the index away (nb's repository lock): a writer that
  /// finds `index.lock` taken fails.
  @discardableResult
  public func writeRefreshedIndex() -> Bool {
    refresh?.write() ?? false
  }
}

/// The config settings the work-tree walk depends on (``Repository/workTreeSettings()``).
public struct WorkTreeSettings: Equatable, Sendable {
  /// `core.trustctime`: whether a changed ctime alone makes a file suspect.
  public var trustCtime: Bool

  /// Settings as a caller kept them.
  public init(trustCtime: Bool) {
    self.trustCtime = trustCtime
  }
}

/// A repository opened on first need, by whichever thread asks first.
private final class OpenedOnce: @unchecked Sendable {
  private let open: () throws -> Repository
  private var opened: Result<Repository, Error>?
  private let lock = NSLock()

  init(_ open: @escaping () throws -> Repository) {
    self.open = open
  }

  func value() throws -> Repository {
    lock.lock()
    defer { lock.unlock() }
    if opened == nil { opened = Result { try open() } }
    return try opened!.get()
  }
}

extension Repository {
  /// `status()` for the whole work tree, answered the way `git status` answers it: a tracked file whose stat data
  /// (size, mtime, ctime, inode, owner) equal what the index recorded is unchanged without being read; only a file
  /// whose stat data differ, or that was modified at or after the index was written ("racy git": a write within
  /// the timestamps' granularity would not show), is hashed. Staged changes come from the index's cache of tree ids
  /// (the `TREE` extension): when its root is valid and is HEAD's tree, nothing is staged.
  ///
  /// `onDirectory` is called with each directory the walk lists (relative path, `""` for the root) and the names in
  /// it, so a caller that needs the listing (stray files) gets it without walking again. Ignored directories are
  /// not listed.
  ///
  /// Returns nil, having changed nothing, when the index or the work tree holds something this walk does not
  /// model (conflicts, submodules, skip-worktree, a stale or missing cache tree, case-insensitive or mode-less
  /// settings, a file where the index has a directory...): `status()` then asks libgit2.
  public func scanWorkTree(onDirectory: ((_ directory: String, _ names: [String]) -> Void)? = nil) throws
    -> WorkTreeScan?
  {
    guard let settings = workTreeSettings(), let headTree = try headTreeID() else { return nil }
    return try Self.scanWorkTree(
      workTree: workTree, gitDirectory: gitDirectory, settings: settings, headTree: headTree,
      indexFileStore: indexFileStore, repository: { self }, onDirectory: onDirectory)
  }

  /// The config settings ``scanWorkTree(onDirectory:)`` walks with; nil when one makes the walk unable to answer
  /// (no file modes or symlinks, case-insensitive names, `core.checkStat` other than the default).
  public func workTreeSettings() -> WorkTreeSettings? {
    guard configFlag("core.filemode"), configFlag("core.symlinks"), !configFlag("core.ignorecase", default: false),
      config("core.checkstat").map({ $0.lowercased() == "default" }) ?? true
    else { return nil }
    return WorkTreeSettings(trustCtime: configFlag("core.trustctime"))
  }

  /// ``scanWorkTree(onDirectory:)`` without a repository opened beforehand, for a caller that knows the settings
  /// and HEAD's tree from elsewhere (``GitFiles``, what it kept from an earlier process): libgit2 starts only if
  /// the walk meets a file it must ask about (an untracked file's ignore rules, a file whose stat data cannot
  /// settle it), through `repository`, called at most once.
  public static func scanWorkTree(
    workTree: URL, gitDirectory: URL, settings: WorkTreeSettings, headTree: ObjectID,
    repository: @escaping () throws -> Repository,
    onDirectory: ((_ directory: String, _ names: [String]) -> Void)? = nil
  ) throws -> WorkTreeScan? {
    try scanWorkTree(
      workTree: workTree, gitDirectory: gitDirectory, settings: settings, headTree: headTree,
      indexFileStore: .shared, repository: repository, onDirectory: onDirectory)
  }

  static func scanWorkTree(
    workTree: URL, gitDirectory: URL, settings: WorkTreeSettings, headTree: ObjectID,
    indexFileStore: IndexFileStore, repository: @escaping () throws -> Repository,
    onDirectory: ((_ directory: String, _ names: [String]) -> Void)?
  ) throws -> WorkTreeScan? {
    let indexPath = gitDirectory.appendingPathComponent("index").path
    guard case .success(let loaded) = indexFileStore.load(indexPath),
      let table = try? IndexTable(loaded.snapshot), !table.hasUnusualEntries,
      let tree = cacheTreeRoot(table), headTree == tree
    else { return nil }

    let opened = OpenedOnce(repository)
    let walker = WorkTreeWalker(
      table: table, root: workTree.standardizedFileURL.path, trustCtime: settings.trustCtime,
      racyCutoff: (loaded.identity.mtimeSeconds, loaded.identity.mtimeNanoseconds),
      isIgnored: { path in (try? opened.value().isIgnored(path)) ?? false }, onDirectory: onDirectory)
    // Threads pay off once there is enough to stat; below that, starting them costs more than they save.
    let workers = table.entries.count >= 2_000 ? min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) : 1
    guard walker.run(workers: workers) else { return nil }

    var entries = walker.changes
    // A file whose bytes are the blob's is unchanged whatever its filters (a clean filter leaves the blob's own
    // bytes as they are): only a file whose bytes differ needs libgit2, which applies the filters, to tell.
    let root = workTree.standardizedFileURL.path
    var unchanged: [(offset: Int, fields: IndexStatFields)] = []
    func keep(_ candidate: WorkTreeWalker.HashCandidate) {
      if let fields = candidate.refresh { unchanged.append((Int(table.entries[candidate.entry].offset), fields)) }
    }
    let toFilter = walker.toHash.filter { candidate in
      guard let id = rawBlobID(root + "/" + candidate.path, symlink: candidate.symlink) else { return true }
      if !table.id(table.entries[candidate.entry]).elementsEqual(id) { return true }
      keep(candidate)
      return false
    }
    if !toFilter.isEmpty {
      let repository = try opened.value()
      // Hashing applies .gitattributes filters; see withAttributesOnlyIndex for why a second handle.
      let attributeFiles = try? indexFileStore.attributeFiles(indexPath, loaded)
      var failed = false
      try repository.withAttributesOnlyIndex(attributeFiles) { hashing in
        for candidate in toFilter {
          guard
            let id = repository.hashWorkTreeFile(candidate.path, symlink: candidate.symlink, hashing: hashing)
          else {
            failed = true
            return
          }
          if !table.id(table.entries[candidate.entry]).elementsEqual(id) {
            entries.append(StatusEntry(path: candidate.path, staged: nil, unstaged: .modified))
          } else {
            keep(candidate)
          }
        }
      }
      if failed { return nil }
    }
    entries.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    let refresh =
      unchanged.isEmpty
      ? nil : IndexStatRefresh(store: indexFileStore, indexPath: indexPath, loaded: loaded, entries: unchanged)
    return WorkTreeScan(entries: entries, tree: tree, hashed: walker.toHash.count, refresh: refresh)
  }

  /// The blob id of a file's bytes as they are (no filters), or of a symlink's target; nil when it cannot be read.
  private static func rawBlobID(_ path: String, symlink: Bool) -> [UInt8]? {
    if symlink { return symlinkTarget(path).map { GitObjectHash.blob($0) } }
    guard let bytes = GitFiles.contents(of: path, limit: 64 << 20) else { return nil }
    return bytes.withUnsafeBytes { GitObjectHash.digest(prefix: Array("blob \(bytes.count)\0".utf8), $0) }
  }

  /// HEAD's tree; nil on an unborn branch.
  func headTreeID() throws -> ObjectID? {
    guard let head = try headCommitID() else { return nil }
    var oid = head.oid
    var commit: OpaquePointer?
    try check("git_commit_lookup(HEAD)", git_commit_lookup(&commit, pointer, &oid))
    defer { git_commit_free(commit) }
    return ObjectID(git_commit_tree_id(commit))
  }

  /// The root of the index's cache tree when it is valid (its entry count is not -1).
  static func cacheTreeRoot(_ table: IndexTable) -> ObjectID? {
    guard let range = table.cacheTree else { return nil }
    let bytes = table.bytes
    // The root's name is empty: a NUL, then "<entry count> <subtree count>\n", then the id when the count is valid.
    guard range.count > 0, bytes[range.lowerBound] == 0,
      let newline = bytes[range].firstIndex(of: 0x0A),
      let space = bytes[range.lowerBound..<newline].firstIndex(of: 0x20),
      let count = Int(String(decoding: bytes[(range.lowerBound + 1)..<space], as: UTF8.self)), count >= 0,
      newline + 21 <= range.upperBound
    else { return nil }
    return ObjectID(raw: bytes[(newline + 1)..<(newline + 21)])
  }

  /// The blob id of a work-tree file as `git add` would store it (filters applied), or of a symlink's target;
  /// nil when it cannot be read.
  fileprivate func hashWorkTreeFile(_ path: String, symlink: Bool, hashing: OpaquePointer) -> [UInt8]? {
    if symlink { return symlinkTarget(workTree.path + "/" + path).map { GitObjectHash.blob($0) } }
    var oid = git_oid()
    guard git_repository_hashfile(&oid, hashing, path, GIT_OBJECT_BLOB, nil) == 0 else { return nil }
    return Self.bytes(of: oid)
  }

  /// A boolean config value, `default` when unset.
  func configFlag(_ key: String, default value: Bool) -> Bool {
    guard config(key) != nil else { return value }
    return configFlag(key)
  }
}

/// Git object ids computed in process (plain SHA-1 of the object header and bytes).
enum GitObjectHash {
  static func blob<C: Collection<UInt8>>(_ content: C) -> [UInt8] {
    var bytes = Array("blob \(content.count)\0".utf8)
    bytes.append(contentsOf: content)
    return bytes.withUnsafeBytes { SHA1.hash($0) }
  }

  /// SHA-1 of `prefix` followed by `body`, without copying `body` (which may be megabytes) behind the prefix.
  static func digest(prefix: [UInt8], _ body: UnsafeRawBufferPointer) -> [UInt8] {
    precondition(prefix.count < 64)
    var state = SHA1()
    // The state advances by whole 64-byte blocks: the first one is the prefix and the body's first bytes.
    var first = prefix
    let take = min(body.count, 64 - prefix.count)
    if take > 0 { first.append(contentsOf: body[0..<take]) }
    guard first.count == 64 else { return first.withUnsafeBytes { SHA1.hash($0) } }
    first.withUnsafeBytes { state.updateBlocks($0.baseAddress!, count: 64) }
    let remaining = body.count - take
    let blocks = remaining & ~63
    if blocks > 0 { state.updateBlocks(body.baseAddress! + take, count: blocks) }
    return state.finish(body.baseAddress.map { $0 + take + blocks }, count: remaining - blocks)
  }
}

/// The walk behind `scanWorkTree`: lists each directory once (readdir), stats each entry relative to its open
/// directory (fstatat: no path resolution per file), and merges the listing with the index's entries for that
/// directory. Directories are jobs on a queue that `workers` threads take from, as git's preload stats the index
/// on several threads: most of a status is the kernel's stat, which runs in parallel.
private final class WorkTreeWalker: @unchecked Sendable {
  struct HashCandidate {
    var entry: Int
    var path: String
    var symlink: Bool
    /// The file's stat data when they differ from the entry's and may be recorded if the bytes prove unchanged.
    var refresh: IndexStatFields?
  }

  /// A directory to walk: its relative path (empty, or ending in `/`) and the index entries below it.
  private struct Job {
    var prefix: [UInt8]
    var range: Range<Int>
  }

  /// What one worker found.
  private struct Found {
    var changes: [StatusEntry] = []
    var toHash: [HashCandidate] = []
  }

  let table: IndexTable
  let root: String
  let trustCtime: Bool
  let racyCutoff: (seconds: Int, nanoseconds: Int)
  private let isIgnoredCall: (String) -> Bool
  private let onDirectory: ((String, [String]) -> Void)?
  private(set) var changes: [StatusEntry] = []
  private(set) var toHash: [HashCandidate] = []

  private var rootFD: Int32 = -1
  /// Guards the queue, `busy`, `declined` and the merged results.
  private let condition = NSCondition()
  private var jobs: [Job] = []
  /// Workers holding a job (whose subdirectories may still be queued).
  private var busy = 0
  /// Set when something turned up that the walk does not model; the caller then asks libgit2.
  private var declined = false
  /// libgit2's repository is not for concurrent use, and listings reach their caller one at a time, parents first.
  private let callbackLock = NSLock()

  init(
    table: IndexTable, root: String, trustCtime: Bool, racyCutoff: (Int, Int), isIgnored: @escaping (String) -> Bool,
    onDirectory: ((String, [String]) -> Void)?
  ) {
    self.table = table
    self.root = root
    self.trustCtime = trustCtime
    self.racyCutoff = racyCutoff
    self.isIgnoredCall = isIgnored
    self.onDirectory = onDirectory
  }

  /// False when the walk declined.
  func run(workers: Int) -> Bool {
    rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard rootFD >= 0 else { return false }
    defer { close(rootFD) }
    jobs = [Job(prefix: [], range: 0..<table.entries.count)]
    if workers <= 1 {
      work()
    } else {
      DispatchQueue.concurrentPerform(iterations: workers) { _ in work() }
    }
    return !declined
  }

  private func work() {
    var found = Found()
    while let job = take() {
      walk(job, into: &found)
      condition.lock()
      busy -= 1
      if busy == 0 && jobs.isEmpty { condition.broadcast() }
      condition.unlock()
    }
    condition.lock()
    changes += found.changes
    toHash += found.toHash
    condition.unlock()
  }

  /// The next directory, waiting while others may still queue some; nil when the walk is over.
  private func take() -> Job? {
    condition.lock()
    defer { condition.unlock() }
    while jobs.isEmpty && busy > 0 && !declined { condition.wait() }
    guard !declined, let job = jobs.popLast() else {
      condition.broadcast()
      return nil
    }
    busy += 1
    return job
  }

  private func enqueue(_ job: Job) {
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  private func decline() {
    condition.lock()
    declined = true
    condition.broadcast()
    condition.unlock()
  }

  private var hasDeclined: Bool {
    condition.lock()
    defer { condition.unlock() }
    return declined
  }

  private func isIgnored(_ path: String) -> Bool {
    callbackLock.lock()
    defer { callbackLock.unlock() }
    return isIgnoredCall(path)
  }

  /// One directory-listing entry.
  private struct Name {
    var start: Int
    var count: Int
    var type: UInt8
    /// The name's first 16 bytes, big-endian and padded with zeros (a name holds no NUL): ordering by them orders
    /// by bytes as far as they go, so a sort compares two integers where it would call memcmp.
    var key: (UInt64, UInt64)
  }

  /// `Name.key` of the `count` bytes at `start`.
  private static func sortKey(_ start: UnsafePointer<UInt8>, count: Int) -> (UInt64, UInt64) {
    var words: (UInt64, UInt64) = (0, 0)
    withUnsafeMutableBytes(of: &words) { raw in
      raw.copyMemory(from: UnsafeRawBufferPointer(start: start, count: min(count, 16)))
    }
    return (UInt64(bigEndian: words.0), UInt64(bigEndian: words.1))
  }

  private typealias Child = IndexTable.Child

  /// Lists the directory of `job` and merges the listing with its index entries; subdirectories become jobs.
  private func walk(_ job: Job, into found: inout Found) {
    let prefix = job.prefix
    if hasDeclined { return }
    // Opened from the root by its relative path: a job waiting on the queue holds no descriptor.
    let fd =
      prefix.isEmpty
      ? openat(rootFD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      : String(decoding: prefix.dropLast(), as: UTF8.self).withCString {
        openat(rootFD, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      }
    guard fd >= 0, let dir = fdopendir(fd) else {
      if fd >= 0 { close(fd) }
      // A directory of the index that vanished or turned into something else since its parent was listed.
      if job.range.isEmpty { return }
      decline()
      return
    }
    defer { closedir(dir) }
    // The listing: names back to back in one buffer, each followed by a NUL so fstatat can take it in place.
    var buffer: [UInt8] = []
    var names: [Name] = []
    while let pointer = readdir(dir) {
      let type = pointer.pointee.d_type
      withUnsafePointer(to: pointer.pointee.d_name) { raw in
        raw.withMemoryRebound(to: UInt8.self, capacity: 256) { name in
          let count = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
          if count == 1 && name[0] == 0x2E { return }
          if count == 2 && name[0] == 0x2E && name[1] == 0x2E { return }
          names.append(
            Name(start: buffer.count, count: count, type: type, key: Self.sortKey(name, count: count)))
          buffer.append(contentsOf: UnsafeBufferPointer(start: name, count: count + 1))
        }
      }
    }
    let children = indexChildren(prefix: prefix, range: job.range)
    let dirFD = dirfd(dir)
    var stop = false
    buffer.withUnsafeBufferPointer { all in
      func bytes(_ n: Name) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: all[n.start..<(n.start + n.count)])
      }
      names.sort { a, b in
        if a.key != b.key { return a.key < b.key }
        // The same first 16 bytes: the rest decides.
        return IndexFile.compare(bytes(a), bytes(b)) < 0
      }
      if let onDirectory {
        let listing = names.map { String(decoding: bytes($0), as: UTF8.self) }
        callbackLock.lock()
        onDirectory(String(decoding: prefix.dropLast(), as: UTF8.self), listing)
        callbackLock.unlock()
      }
      table.paths.withUnsafeBufferPointer { paths in
        var n = 0
        var c = 0
        while !stop && (n < names.count || c < children.count) {
          let order: Int
          if n == names.count {
            order = 1
          } else if c == children.count {
            order = -1
          } else {
            let child = children[c]
            order = IndexFile.compare(
              bytes(names[n]),
              UnsafeBufferPointer(rebasing: paths[child.nameStart..<(child.nameStart + child.nameCount)]))
          }
          if order < 0 {
            let name = names[n]
            n += 1
            // The repository's own directory (a file in a linked worktree) is never part of the work tree.
            if prefix.isEmpty && bytes(name).elementsEqual(Self.dotGit) { continue }
            stop = !untracked(dirFD, name: bytes(name), type: name.type, prefix: prefix, into: &found)
          } else if order > 0 {
            deleted(children[c], into: &found)
            c += 1
          } else {
            stop = !tracked(dirFD, name: bytes(names[n]), child: children[c], prefix: prefix, into: &found)
            n += 1
            c += 1
          }
        }
      }
    }
    if stop { decline() }
  }

  private static let dotGit: [UInt8] = Array(".git".utf8)

  /// The index's direct children of `prefix` among `range`, sorted by name bytes like the listing.
  private func indexChildren(prefix: [UInt8], range: Range<Int>) -> [Child] {
    var children = table.children(prefixCount: prefix.count, range: range)
    // A directory sorts in the index as "name/", a listing as "name": the orders differ only around '/', where a
    // name is a prefix of the next one. Most directories have none, and their children are already in order.
    table.paths.withUnsafeBufferPointer { paths in
      func name(_ child: Child) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: paths[child.nameStart..<(child.nameStart + child.nameCount)])
      }
      let ordered = children.indices.dropFirst().allSatisfy {
        IndexFile.compare(name(children[$0 - 1]), name(children[$0])) < 0
      }
      if !ordered { children.sort { IndexFile.compare(name($0), name($1)) < 0 } }
    }
    return children
  }

  private func relative(_ prefix: [UInt8], _ name: UnsafeBufferPointer<UInt8>) -> String {
    String(decoding: prefix + Array(name), as: UTF8.self)
  }

  /// Every index entry of `child` is gone from the work tree.
  private func deleted(_ child: Child, into found: inout Found) {
    for i in child.range {
      found.changes.append(StatusEntry(path: table.pathString(table.entries[i]), staged: nil, unstaged: .deleted))
    }
  }

  /// `name` points into the listing's buffer and is followed by a NUL.
  private func cName(_ name: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
    UnsafeRawPointer(name.baseAddress!).assumingMemoryBound(to: CChar.self)
  }

  /// A name the index has. False when the walk must decline.
  private func tracked(
    _ dirFD: Int32, name: UnsafeBufferPointer<UInt8>, child: Child, prefix: [UInt8], into found: inout Found
  ) -> Bool {
    var info = stat()
    guard fstatat(dirFD, cName(name), &info, AT_SYMLINK_NOFOLLOW) == 0 else {
      // Gone between the listing and the stat: as if never listed.
      deleted(child, into: &found)
      return true
    }
    let type = info.st_mode & S_IFMT
    if child.entry < 0 {
      // A file where the index has a directory: libgit2 reports that.
      guard type == S_IFDIR else { return false }
      enqueue(Job(prefix: prefix + Array(name) + [0x2F], range: child.range))
      return true
    }
    let e = table.entries[child.entry]
    let indexMode = table.mode(e)
    // A directory or device where the index has a file, or a submodule: libgit2 reports those.
    guard type == S_IFREG || type == S_IFLNK, indexMode == 0o100644 || indexMode == 0o100755 || indexMode == 0o120000
    else { return false }
    let workMode = Repository.gitMode(info)
    if (workMode == 0o120000) != (indexMode == 0o120000) {
      found.changes.append(StatusEntry(path: relative(prefix, name), staged: nil, unstaged: .typeChange))
      return true
    }
    if workMode != indexMode {
      found.changes.append(StatusEntry(path: relative(prefix, name), staged: nil, unstaged: .modified))
      return true
    }
    let size = UInt32(truncatingIfNeeded: info.st_size)
    let indexSize = table.size(e)
    let statMatches =
      UInt32(truncatingIfNeeded: info.st_mtim.tv_sec) == table.mtimeSeconds(e)
      && UInt32(truncatingIfNeeded: info.st_mtim.tv_nsec) == table.mtimeNanoseconds(e)
      && (!trustCtime
        || (UInt32(truncatingIfNeeded: info.st_ctim.tv_sec) == table.ctimeSeconds(e)
          && UInt32(truncatingIfNeeded: info.st_ctim.tv_nsec) == table.ctimeNanoseconds(e)))
      && UInt32(truncatingIfNeeded: info.st_ino) == table.ino(e) && UInt32(info.st_uid) == table.uid(e)
      && UInt32(info.st_gid) == table.gid(e) && size == indexSize
    // Racy: recorded no earlier than the index was written, so a later write in the same tick may not show.
    let seconds = Int(table.mtimeSeconds(e))
    let racy =
      seconds > racyCutoff.seconds
      || (seconds == racyCutoff.seconds && Int(table.mtimeNanoseconds(e)) >= racyCutoff.nanoseconds)
    if statMatches && !racy { return true }
    // As git does: a different size of a regular file whose recorded size is real (not zeroed) is a change.
    if type == S_IFREG, indexSize != 0, size != indexSize {
      found.changes.append(StatusEntry(path: relative(prefix, name), staged: nil, unstaged: .modified))
      return true
    }
    // Stat data can be recorded only for a file last modified before the index was written: a write after this
    // walk's read then gets a later mtime (the clock has passed the index's), which the next walk sees.
    let fileSeconds = Int(info.st_mtim.tv_sec)
    let olderThanIndex =
      fileSeconds < racyCutoff.seconds
      || (fileSeconds == racyCutoff.seconds && Int(info.st_mtim.tv_nsec) < racyCutoff.nanoseconds)
    found.toHash.append(
      HashCandidate(
        entry: child.entry, path: relative(prefix, name), symlink: type == S_IFLNK,
        refresh: !statMatches && olderThanIndex ? IndexStatFields(info) : nil))
    return true
  }

  /// A name the index does not have: an untracked file, or a directory to search for untracked files, unless
  /// ignored. False when the walk must decline.
  private func untracked(
    _ dirFD: Int32, name: UnsafeBufferPointer<UInt8>, type: UInt8, prefix: [UInt8], into found: inout Found
  ) -> Bool {
    var kind = Int32(type)
    if kind == Int32(DT_UNKNOWN) {
      var info = stat()
      guard fstatat(dirFD, cName(name), &info, AT_SYMLINK_NOFOLLOW) == 0 else { return true }
      switch info.st_mode & S_IFMT {
      case S_IFDIR: kind = Int32(DT_DIR)
      case S_IFREG: kind = Int32(DT_REG)
      case S_IFLNK: kind = Int32(DT_LNK)
      default: return true
      }
    }
    let path = relative(prefix, name)
    switch kind {
    case Int32(DT_REG), Int32(DT_LNK):
      if !isIgnored(path) { found.changes.append(StatusEntry(path: path, staged: nil, unstaged: .added)) }
    case Int32(DT_DIR):
      // A nested repository: git shows it as one entry.
      if name.elementsEqual(Self.dotGit) { return false }
      if !isIgnored(path) { enqueue(Job(prefix: prefix + Array(name) + [0x2F], range: 0..<0)) }
    default:
      break  // fifos, sockets, devices: git does not track them
    }
    return true
  }
}

import CLibGit2
import Foundation
import TextFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a commit made without libgit2 (``PlainCommit``) needs from the config: who commits, and whether ref
/// updates are logged. Learnt through libgit2 once (``Repository/plainCommitSettings()``), then kept by the caller
/// while the config files stay the same (``GitFiles/configDigest(environment:)``).
public struct PlainCommitSettings: Equatable, Sendable {
  /// `user.name`; nil when unset or empty.
  public var name: String?
  /// `user.email`; nil when unset or empty.
  public var email: String?
  /// False when `core.logAllRefUpdates` is false: then no reflog is written, as libgit2 writes none.
  public var logsRefUpdates: Bool

  /// Settings as read from a config.
  public init(name: String?, email: String?, logsRefUpdates: Bool) {
    self.name = name.flatMap { $0.isEmpty ? nil : $0 }
    self.email = email.flatMap { $0.isEmpty ? nil : $0 }
    self.logsRefUpdates = logsRefUpdates
  }

  /// The signature nb commits with: `user.name` / `user.email`, each falling back to `nb` / `nb@<host name>`, at
  /// `date` with the process's offset then (`TZ`, else `/etc/localtime`), as git's own commits take it.
  public func signature(date: Date) -> Signature {
    Signature(
      name: name ?? "nb", email: email ?? "nb@\(ProcessInfo.processInfo.hostName)", date: date,
      timeZoneOffsetMinutes: LocalOffset.seconds(at: date.timeIntervalSince1970.rounded(.down)) / 60)
  }

  /// Who a reflog entry names: libgit2 takes the configured identity, else "unknown".
  var reflogIdentity: (name: String, email: String) {
    guard let name, let email else { return ("unknown", "unknown") }
    return (name, email)
  }
}

extension Repository {
  /// The settings a ``PlainCommit`` needs, or nil when the config asks for something it does not do, so that
  /// libgit2 must commit: modes or symlinks not taken from the file system (`core.filemode`, `core.symlinks`
  /// false), a case-insensitive index (`core.ignorecase`), shared permissions (`core.sharedRepository`) or an
  /// object format other than SHA-1.
  public func plainCommitSettings() -> PlainCommitSettings? {
    guard configFlag("core.filemode"), configFlag("core.symlinks"), !configFlag("core.ignorecase", default: false),
      config("core.sharedrepository") == nil, (config("extensions.objectformat") ?? "sha1").lowercased() == "sha1"
    else { return nil }
    let logAll = config("core.logallrefupdates")?.lowercased()
    return PlainCommitSettings(
      name: config("user.name"), email: config("user.email"),
      logsRefUpdates: logAll.map { !["false", "no", "off", "0"].contains($0) } ?? true)
  }
}

/// A commit of work-tree paths on HEAD's branch made from git's files alone, without loading libgit2 (whose
/// start-up and configuration take longer than the rest of an `nb add`): the same commit, index and reflog as
/// ``Repository/commit(paths:message:author:)`` makes through its byte patcher, for the common case only.
///
/// Anything else is declined before anything is written (but for unreferenced objects when the index changes under
/// the commit), and the caller commits through libgit2: HEAD not on a branch with a commit, a linked worktree, a
/// packed HEAD commit, an index whose cache tree does not say it holds exactly HEAD's tree (something staged),
/// entries the patcher does not write, a file a filter could change (a CR or `$Id` in it), more paths than a commit
/// writes loose, a large file, a `.git`-like path.
///
/// The steps are libgit2's: new objects as loose files (never replacing one), the index under `index.lock`, then
/// the branch under its `.lock` after checking it still names the parent, with the reflog of the branch and of
/// HEAD. Like libgit2 (and git by default) nothing is flushed to disk. If the branch cannot be moved, the paths'
/// index entries are put back as they were.
public enum PlainCommit {
  /// What a commit did.
  public enum Outcome: Equatable, Sendable {
    /// The branch now points at this new commit.
    case committed(ObjectID)
    /// The paths' tree equals HEAD's: no commit (the index may have been refreshed).
    case unchanged
    /// Nothing was written; the reason, for logs and tests.
    case declined(String)
  }

  /// Starts loading zlib, which a plain commit inflates HEAD's commit and deflates its objects with, on another
  /// thread: the dynamic load takes most of a millisecond, which the caller's writes can hide. Only the first call
  /// starts a thread.
  public static func preload() {
    _ = preloadOnce
  }

  /// Waits until a load ``preload()`` started has finished: a process must not exit while another thread is inside
  /// the dynamic loader (see ``LibGit2/waitForPreload()``).
  public static func waitForPreload() {
    preloading.wait()
  }

  private static let preloading = DispatchGroup()

  private static let preloadOnce: Void = {
    preloading.enter()
    Thread.detachNewThread {
      _ = Zlib.shared
      preloading.leave()
    }
  }()

  /// Commits exactly `paths` (work-tree relative; a path that no longer exists is removed) with `message`.
  /// - Throws: `GitError` with `isLocked` when `index.lock` or the branch's lock exists (neither is removed);
  ///   `GIT_EMODIFIED` when the branch moved since it was read. Both leave the index as it was.
  public static func commit(
    workTree: URL, gitDirectory: URL, paths: [String], message: String, author: Signature, committer: Signature,
    settings: PlainCommitSettings
  ) throws -> Outcome {
    try commit(
      workTree: workTree, gitDirectory: gitDirectory, paths: paths, message: message, author: author,
      committer: committer, settings: settings, store: .shared)
  }

  /// ``commit(workTree:gitDirectory:paths:message:author:committer:settings:)`` reading and writing the index
  /// through `store` (tests pass one that counts, or that lets another writer in).
  static func commit(
    workTree: URL, gitDirectory: URL, paths: [String], message: String, author: Signature, committer: Signature,
    settings: PlainCommitSettings, store: IndexFileStore
  ) throws -> Outcome {
    let paths = try Repository.normalized(paths)
    let files = GitFiles(gitDirectory: gitDirectory)
    guard files.commonDirectory == files.gitDirectory else { return .declined("a linked worktree") }
    guard case .branch(let branch) = files.head() else { return .declined("HEAD is not on a branch") }
    let reference = "refs/heads/" + branch
    guard let parent = files.resolve(reference) else { return .declined("\(reference) has no commit the files show") }
    guard let parentCommit = files.looseCommit(parent) else { return .declined("HEAD's commit is not loose") }
    guard paths.count < Repository.packThreshold else { return .declined("many paths: libgit2 packs them") }
    guard !Repository.hasGitLikeComponent(paths) else { return .declined("a .git-like path") }
    guard let author = Header(author), let committer = Header(committer) else {
      return .declined("a name or e-mail libgit2 would trim or refuse")
    }
    // The files are opened below it: a path without `.` or `..` components opens them as its standardized form
    // would, and standardizing costs a scan of the binary's conformance records.
    let plain = workTree.path
    let root =
      plain.split(separator: "/").contains { $0 == "." || $0 == ".." } ? workTree.standardizedFileURL.path : plain
    let indexPath = files.gitDirectory + "/index"
    if access(indexPath + ".lock", F_OK) == 0 {
      throw GitError(
        function: "git_index_write", code: GitError.lockedCode,
        message: "\(indexPath).lock exists: another git process is running, or one crashed and left it behind")
    }
    guard case .success(let loaded) = store.load(indexPath) else { return .declined("the index cannot be read") }

    var operations: [IndexPatchOperation] = []
    var blobs: [(id: [UInt8], content: [UInt8])] = []
    for path in paths {
      switch try hashed(path, root: root) {
      case .declined(let reason): return .declined(reason)
      case .missing: operations.append(.remove(path: Array(path.utf8), descendants: true))
      case .file(let record, let content):
        operations.append(.upsert(record))
        blobs.append((record.id, content))
      }
    }
    let racyCutoff = UInt32(truncatingIfNeeded: loaded.identity.mtimeSeconds)
    guard
      var patched = try? IndexFile.patch(
        loaded.snapshot, operations, racyCutoff: racyCutoff, buildTable: true,
        isRacilyModified: { isRacilyModified($0, root: root) })
    else { return .declined("the index patcher declined") }
    guard let headTree = bytes(ofHex: parentCommit.tree.hex), patched.previousRootTreeID == headTree else {
      return .declined("the index does not hold exactly HEAD's tree")
    }
    // The patched bytes get their cache tree in place: `staged` must hold the only reference to them, so the
    // patch's table of them lives only while the trees are made.
    var staged = IndexFile.Snapshot(bytes: patched.bytes, checkpoints: patched.checkpoints)
    patched.bytes = []
    var trees: [(id: [UInt8], content: [UInt8])] = []
    let tree: CacheTree.Node
    let entriesEnd: Int
    do {
      guard let table = patched.table, !table.hasUnusualEntries else {
        return .declined("the index has entries a tree is not made from here")
      }
      patched.table = nil
      tree = try CacheTree.built(table, existing: CacheTree.existing(in: table)) { id, content in
        trees.append((id, content))
      }
      entriesEnd = table.entriesEnd
    }
    IndexFile.replaceCacheTree(&staged, entriesEnd: entriesEnd, root: tree)
    var derived = IndexFileStore.Derived()
    // The patch writes stage-0 entries only, so an index without conflicts stays without.
    if loaded.derived.hasConflicts == false { derived.hasConflicts = false }

    guard tree.id != headTree else {
      let indexChanged =
        patched.removedDescendants
        || operations.contains { operation in
          let before = patched.previous[operation.path]
          switch operation {
          case .upsert(let record): return before?.id != record.id || before?.mode != record.mode
          case .remove: return before != nil
          }
        }
      if indexChanged,
        try !store.write(
          indexPath, staged.bytes, checkpoints: staged.checkpoints, derived: derived, ifStill: loaded.identity)
      {
        return .declined("the index changed while the commit was made")
      }
      return .unchanged
    }

    let objects = files.commonDirectory + "/objects"
    // One deflate stream for all of them: each new one allocates zlib's quarter megabyte of state.
    guard let zlib = Zlib.shared, let stream = Zlib.Stream(zlib, level: 1) else {
      return .declined("zlib is not available")
    }
    for blob in blobs { try writeLoose(objects, type: "blob", id: blob.id, content: blob.content, stream: stream) }
    for tree in trees { try writeLoose(objects, type: "tree", id: tree.id, content: tree.content, stream: stream) }
    // Git's own commands end a message with a newline; tools that print raw messages expect it.
    let text = message.isEmpty || message.hasSuffix("\n") ? message : message + "\n"
    var commit = Array("tree \(lowercaseHex(tree.id!))\nparent \(parent.hex)\n".utf8)
    commit += Array("author \(author.text)\ncommitter \(committer.text)\n\n".utf8)
    commit += Array(text.utf8)
    let commitID = commit.withUnsafeBytes { GitObjectHash.digest(prefix: Array("commit \(commit.count)\0".utf8), $0) }
    try writeLoose(objects, type: "commit", id: commitID, content: commit, stream: stream)

    // Under index.lock, the index must still be the one patched: a `git add` that wrote it meanwhile is not undone
    // (libgit2 then commits from the index as it now is; the objects written here are only unreferenced).
    guard
      try store.write(
        indexPath, staged.bytes, checkpoints: staged.checkpoints, derived: derived, ifStill: loaded.identity)
    else { return .declined("the index changed while the commit was made") }
    let new = ObjectID(raw: commitID)
    do {
      let subject = message.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: true).first ?? ""
      try moveBranch(
        files, reference: reference, from: parent, to: new, settings: settings, when: committer,
        message: "commit: " + String(subject))
    } catch {
      restore(patched, operations, indexPath: indexPath, root: root, store: store)
      throw error
    }
    return .committed(new)
  }

  // MARK: - The work tree

  private enum Hashed {
    case file(IndexEntryRecord, content: [UInt8])
    case missing
    case declined(String)
  }

  /// One path's index entry and blob content, hashed as libgit2 would store it (lstat first, then read: a write in
  /// between leaves a stat mismatch, so git hashes again instead of trusting the entry).
  private static func hashed(_ path: String, root: String) throws -> Hashed {
    var info = stat()
    let full = root + "/" + path
    if lstat(full, &info) != 0 {
      if errno == ENOENT || errno == ENOTDIR { return .missing }
      throw GitError(function: "lstat(\(path))", code: -1, message: String(cString: strerror(errno)))
    }
    let type = info.st_mode & S_IFMT
    var content: [UInt8]
    switch type {
    case S_IFDIR:
      throw GitError(
        function: "git_index_add_bypath(\(path))", code: GIT_EINVALIDSPEC.rawValue,
        message: "\(path) is a directory in the work tree; pass file paths")
    case S_IFLNK:
      guard let target = symlinkTarget(full) else { return .declined("an unreadable symlink") }
      content = target
    case S_IFREG:
      guard info.st_size <= Repository.packedFileLimit,
        let bytes = readWholeFile(full, expected: Int(info.st_size), limit: Repository.packedFileLimit)
      else { return .declined("a large or unreadable file") }
      // CRLF conversion and `ident` change only bytes with a CR or `$Id`; libgit2 runs no other filter.
      guard !Repository.mayNeedFilters(bytes) else { return .declined("a file a filter could change") }
      content = bytes
    default:
      return .declined("neither a file nor a symlink")
    }
    var record = Repository.statRecord(info)
    record.mode = Repository.gitMode(info)
    record.id = content.withUnsafeBytes { GitObjectHash.digest(prefix: Array("blob \(content.count)\0".utf8), $0) }
    record.path = Array(path.utf8)
    return .file(record, content: content)
  }

  /// ``Repository/isRacilyModified(_:hashing:)`` without libgit2: a file a filter could change counts as modified
  /// (its entry is smudged, so git hashes it next time), which is always safe.
  private static func isRacilyModified(_ entry: IndexEntryRecord, root: String) -> Bool {
    var info = stat()
    let full = root + "/" + String(decoding: entry.path, as: UTF8.self)
    guard lstat(full, &info) == 0 else { return false }
    let current = Repository.statRecord(info)
    guard current.mtimeSeconds == entry.mtimeSeconds, current.size == entry.size else { return false }
    switch info.st_mode & S_IFMT {
    case S_IFREG:
      guard let bytes = readWholeFile(full, expected: Int(info.st_size), limit: 64 << 20),
        !Repository.mayNeedFilters(bytes)
      else { return true }
      return bytes.withUnsafeBytes { GitObjectHash.digest(prefix: Array("blob \(bytes.count)\0".utf8), $0) }
        != entry.id
    case S_IFDIR:
      return false  // a submodule: git compares its HEAD, not stat data
    default:
      return true
    }
  }

  // MARK: - Objects

  /// Writes one loose object unless it exists: compressed into a temporary file in its directory, read-only, then
  /// renamed into place (a concurrent writer of the same id writes the same bytes).
  static func writeLoose(_ objects: String, type: String, id: [UInt8], content: [UInt8], stream: Zlib.Stream) throws {
    let hex = lowercaseHex(id)
    // String(_:) around the slices: `+` with a Substring is generic, and looks up a conformance at run time.
    let directory = objects + "/" + String(hex.prefix(2))
    let path = directory + "/" + String(hex.dropFirst(2))
    if access(path, F_OK) == 0 { return }
    var raw = Array("\(type) \(content.count)\0".utf8)
    raw += content
    var compressed: [UInt8] = []
    try raw.withUnsafeBytes { try stream.compress($0, into: &compressed, storeIfIncompressible: false) }
    if mkdir(directory, 0o777) != 0 && errno != EEXIST { throw IndexFileStore.posixError("mkdir(\(directory))") }
    var template = Array((directory + "/tmp_obj_XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw IndexFileStore.posixError("mkstemp(\(directory))") }
    let temporary = String(cString: template)
    var renamed = false
    defer { if !renamed { unlink(temporary) } }
    do {
      defer { close(fd) }
      try IndexFileStore.writeAll(fd, compressed, what: temporary)
      // Loose objects are read-only, as git and libgit2 leave them.
      fchmod(fd, 0o444)
    }
    guard rename(temporary, path) == 0 else { throw IndexFileStore.posixError("rename(\(temporary), \(path))") }
    renamed = true
  }

  // MARK: - The branch

  /// Moves `reference` from `old` to `new` under `<reference>.lock`, checked against the value it has once locked,
  /// and appends the reflog lines of the branch and of HEAD (which points to it).
  private static func moveBranch(
    _ files: GitFiles, reference: String, from old: ObjectID, to new: ObjectID, settings: PlainCommitSettings,
    when: Header, message: String
  ) throws {
    let path = files.commonDirectory + "/" + reference
    let lockPath = path + ".lock"
    let fd = try IndexFileStore.takeLock(
      lockPath, function: "git_reference_create_matching(\(reference))",
      holder: "another git process is moving the branch")
    var renamed = false
    defer { if !renamed { unlink(lockPath) } }
    do {
      defer { close(fd) }
      guard files.resolve(reference) == old else {
        throw GitError(
          function: "git_reference_create_matching(\(reference))", code: GIT_EMODIFIED.rawValue,
          message: "\(reference) moved while the commit was made; nothing was committed")
      }
      try IndexFileStore.writeAll(fd, Array((new.hex + "\n").utf8), what: lockPath)
    }
    if settings.logsRefUpdates {
      let identity = settings.reflogIdentity
      let line =
        "\(old.hex) \(new.hex) \(identity.name) <\(identity.email)> \(when.time)\t"
        + String(decoding: message.utf8.map { $0 == 0x0A ? 0x20 : $0 }, as: UTF8.self) + "\n"
      for log in [files.commonDirectory + "/logs/" + reference, files.gitDirectory + "/logs/HEAD"] {
        try append(Array(line.utf8), to: log)
      }
    }
    guard rename(lockPath, path) == 0 else { throw IndexFileStore.posixError("rename(\(lockPath), \(path))") }
    renamed = true
  }

  /// Appends `bytes` to a reflog, making it (and its directories) when missing.
  private static func append(_ bytes: [UInt8], to log: String) throws {
    var fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o666)
    if fd < 0 && errno == ENOENT, let slash = log.lastIndex(of: "/") {
      try IndexFileStore.makeDirectories(String(log[..<slash]))
      fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o666)
    }
    guard fd >= 0 else { throw IndexFileStore.posixError("open(\(log))") }
    defer { close(fd) }
    try IndexFileStore.writeAll(fd, bytes, what: log)
  }

  /// Puts the paths' index entries back as they were before `patched` (best effort: the branch update already
  /// failed, and that is the error worth reporting). A restored entry has no stat data, so git compares its file's
  /// contents next time instead of trusting a stale timestamp.
  private static func restore(
    _ patched: IndexPatchResult, _ operations: [IndexPatchOperation], indexPath: String, root: String,
    store: IndexFileStore
  ) {
    var undo: [IndexPatchOperation] = []
    for operation in operations {
      if let previous = patched.previous[operation.path] {
        undo.append(.upsert(IndexEntryRecord(mode: previous.mode, id: previous.id, path: operation.path)))
      } else if case .upsert = operation {
        undo.append(.remove(path: operation.path, descendants: false))
      }
    }
    guard case .success(let loaded) = store.load(indexPath),
      let restored = try? IndexFile.patch(
        loaded.snapshot, undo, racyCutoff: UInt32(truncatingIfNeeded: loaded.identity.mtimeSeconds),
        isRacilyModified: { isRacilyModified($0, root: root) })
    else { return }
    _ = try? store.write(indexPath, restored.bytes, checkpoints: restored.checkpoints)
  }

  // MARK: - Helpers

  /// A signature as a commit header writes it: `Name <email> 1700000000 +0100`; nil for one libgit2 would trim or
  /// refuse (angle brackets, line breaks, surrounding spaces, empty), which its own path then reports.
  struct Header {
    var text: String
    /// `1700000000 +0100`.
    var time: String

    init?(_ signature: Signature) {
      func acceptable(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.first != 0x20 && value.utf8.last != 0x20
          && !value.utf8.contains { $0 == 0x3C || $0 == 0x3E || $0 < 0x20 }
      }
      guard acceptable(signature.name), acceptable(signature.email) else { return nil }
      let offset = signature.timeZoneOffsetMinutes
      let magnitude = abs(offset)
      let hours = magnitude / 60
      let minutes = magnitude % 60
      let zone =
        (offset < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + String(hours) + (minutes < 10 ? "0" : "")
        + String(minutes)
      time = String(Int64(signature.date.timeIntervalSince1970.rounded(.down))) + " " + zone
      text = "\(signature.name) <\(signature.email)> \(time)"
    }
  }

  /// The 20 bytes of a 40-digit hex id.
  static func bytes(ofHex hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count == 40 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(20)
    func value(_ digit: UInt8) -> UInt8? {
      switch digit {
      case 0x30...0x39: return digit - 0x30
      case 0x61...0x66: return digit - 0x61 + 10
      case 0x41...0x46: return digit - 0x41 + 10
      default: return nil
      }
    }
    for index in stride(from: 0, to: 40, by: 2) {
      guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
      out.append(high << 4 | low)
    }
    return out
  }
}

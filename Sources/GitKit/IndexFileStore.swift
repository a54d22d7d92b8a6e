import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads and writes `.git/index` for `IndexFile`, keeping the last verified bytes in memory.
///
/// Re-reading and re-hashing a 7 MB index on every save of a long-lived process is most of a save's cost, so the
/// bytes we read or wrote last are kept together with the file's stat identity; while the file on disk still has
/// that identity (same inode, size, mtime and ctime) the cached bytes are used without touching the file.
/// Anyone else replacing the index (git, libgit2) writes a new file and renames it, which changes the inode.
///
/// A class with one process-wide instance (`shared`) rather than static functions so that a `Repository` can be
/// given another one: GitKitTests pass a subclass that counts `readFromDisk` and `write` calls, which is how they
/// prove that saves go through the patcher and that our own writes are not read back.
class IndexFileStore: @unchecked Sendable {
  /// The store every `Repository` uses unless given another.
  static let shared = IndexFileStore()

  init() {}

  /// What identifies one version of the file on disk.
  struct Identity: Equatable {
    var dev: UInt64
    var ino: UInt64
    var size: Int64
    var mtimeSeconds: Int
    var mtimeNanoseconds: Int
    var ctimeSeconds: Int
    var ctimeNanoseconds: Int

    init(_ info: stat) {
      dev = UInt64(info.st_dev)
      ino = UInt64(info.st_ino)
      size = Int64(info.st_size)
      mtimeSeconds = Int(info.st_mtim.tv_sec)
      mtimeNanoseconds = Int(info.st_mtim.tv_nsec)
      ctimeSeconds = Int(info.st_ctim.tv_sec)
      ctimeNanoseconds = Int(info.st_ctim.tv_nsec)
    }
  }

  /// A verified index with the identity of the file it came from.
  struct Loaded {
    var snapshot: IndexFile.Snapshot
    var identity: Identity
    /// Facts derived from the bytes, kept so that each save does not walk 100k entries again for them; nil
    /// until computed.
    var derived = Derived()
  }

  /// What `hasConflicts` and the attribute lookup found in one version of the file.
  struct Derived {
    /// Whether some entry has a conflict stage.
    var hasConflicts: Bool?
    /// The `.gitattributes` entries (see `IndexFile.entries(named:in:)`).
    var attributeFiles: [IndexEntryRecord]?
  }

  /// One entry is enough: a process works on one repository at a time, and each entry holds a whole index.
  private var cache: (path: String, loaded: Loaded)?
  private let cacheLock = NSLock()
  private var checkpointsName: String?

  /// Where, relative to the index file's directory (the git directory), the SHA-1 states of the last index this
  /// process verified or wrote are kept for the next process (``IndexCheckpoints``); nil keeps them in memory only.
  var checkpointsRelativePath: String? {
    get {
      cacheLock.lock()
      defer { cacheLock.unlock() }
      return checkpointsName
    }
    set {
      cacheLock.lock()
      checkpointsName = newValue
      cacheLock.unlock()
    }
  }

  /// The smallest index whose states are kept on disk: below it, hashing the file again costs less than reading
  /// and writing another one (half a megabyte is about 5 000 entries).
  var checkpointsMinimumSize = 512 * 1024

  /// Where the states of the index at `indexPath`, of `size` bytes, are kept; nil when they are not.
  private func checkpointsFile(for indexPath: String, size: Int) -> String? {
    guard size >= checkpointsMinimumSize else { return nil }
    guard let relative = checkpointsRelativePath, let slash = indexPath.lastIndex(of: "/") else { return nil }
    return indexPath[..<slash] + "/" + relative
  }

  /// Why loading did not give a usable snapshot.
  enum LoadFailure: Error {
    /// No index file yet (libgit2 creates one).
    case missing
    /// The trailing checksum does not match (or the file is too short): leave it to libgit2 to refuse it.
    case corrupt
    /// open/read/fstat failed.
    case io(GitError)
  }

  /// A load's answer. Not `Result`: making `Result<Loaded, LoadFailure>` makes the runtime check that the failure is
  /// an `Error`, by scanning every conformance record in the binary, in every process that reads the index.
  enum Outcome<Value> {
    case success(Value)
    case failure(LoadFailure)
  }

  /// The verified contents of the index at `path`, from the cache when the file has not changed since.
  func load(_ path: String) -> Outcome<Loaded> {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT { return .failure(.missing) }
      return .failure(.io(Self.posixError("open(\(path))")))
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { return .failure(.io(Self.posixError("fstat(\(path))"))) }
    let identity = Identity(info)
    cacheLock.lock()
    let cached = cache
    cacheLock.unlock()
    if let cached, cached.path == path, cached.loaded.identity == identity { return .success(cached.loaded) }

    switch readFromDisk(fd, size: Int(info.st_size), path: path, identity: identity) {
    case .failure(let failure):
      return .failure(failure)
    case .success(let loaded):
      remember(path, loaded)
      return .success(loaded)
    }
  }

  /// Reads `size` bytes from `fd` (the open index at `path`, whose stat identity is `identity`) and verifies their
  /// checksum, unless the states kept for that very version (``IndexCheckpoints``) vouch for them. When the states
  /// are kept, whether the index has conflicts is known too: kept with them, or found once when it is verified.
  func readFromDisk(_ fd: Int32, size: Int, path: String, identity: Identity) -> Outcome<Loaded> {
    // Read straight into uninitialised memory: zeroing 7 MB first (at 100 000 entries) costs as much as the read.
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
      LargeBuffers.adviseHugePages(buffer.baseAddress, count: size)
      var done = 0
      while done < size {
        let n = read(fd, buffer.baseAddress! + done, size - done)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 {
          failed = true
          break
        }
        done += n
      }
      initialized = done
    }
    if failed { return .failure(.io(Self.posixError("read(\(path))"))) }
    let file = checkpointsFile(for: path, size: bytes.count)
    if let file, let kept = IndexCheckpoints.load(file, identity: identity, bytes: bytes) {
      return .success(
        Loaded(
          snapshot: IndexFile.Snapshot(bytes: bytes, checkpoints: kept.states), identity: identity,
          derived: Derived(hasConflicts: kept.hasConflicts)))
    }
    guard let snapshot = verify(bytes) else { return .failure(.corrupt) }
    var loaded = Loaded(snapshot: snapshot, identity: identity)
    if let file {
      loaded.derived.hasConflicts = try? IndexFile.hasConflicts(snapshot)
      IndexCheckpoints.save(
        file, identity: identity, bytes: bytes, states: snapshot.checkpoints, hasConflicts: loaded.derived.hasConflicts)
    }
    return .success(loaded)
  }

  /// `bytes` as a snapshot when their checksum is right (``IndexFile/verify(_:)``).
  func verify(_ bytes: [UInt8]) -> IndexFile.Snapshot? {
    IndexFile.verify(bytes)
  }

  /// Whether the index at `path` has conflict entries; nil when the file is missing, corrupt or unusual, and
  /// libgit2 should be asked instead. Reads through the cache, so the save that usually follows reuses the bytes.
  func hasConflicts(_ path: String) -> Bool? {
    guard case .success(let loaded) = load(path) else { return nil }
    if let known = loaded.derived.hasConflicts { return known }
    guard let answer = try? IndexFile.hasConflicts(loaded.snapshot) else { return nil }
    record(path, loaded.identity) { $0.hasConflicts = answer }
    return answer
  }

  /// The `.gitattributes` entries of `loaded` (read from the index file at `path`), computed once per version.
  func attributeFiles(_ path: String, _ loaded: Loaded) throws -> [IndexEntryRecord] {
    if let known = loaded.derived.attributeFiles { return known }
    let found = try IndexFile.entries(named: ".gitattributes", in: loaded.snapshot)
    record(path, loaded.identity) { $0.attributeFiles = found }
    return found
  }

  /// Updates the cached facts if the cache still holds that version of the file.
  private func record(_ path: String, _ identity: Identity, _ update: (inout Derived) -> Void) {
    cacheLock.lock()
    defer { cacheLock.unlock() }
    guard var cached = cache, cached.path == path, cached.loaded.identity == identity else { return }
    update(&cached.loaded.derived)
    cache = cached
  }

  /// Writes `bytes` with git's lock protocol: `index.lock` created exclusively (an existing one fails with
  /// `GitError.isLocked` and is left alone), written, then renamed over the index. The written version is cached.
  ///
  /// `keepingModificationTime`: the mtime the new file gets before it replaces the index (set on the lock file, so
  /// no other writer's index can get it). For a rewrite that records no newer stat data than the file it replaces:
  /// with that file's mtime, the entries that were racily clean stay so, and nothing has to be read to smudge them.
  ///
  /// `ifStill`: the identity the index must still have once the lock is held; if another writer replaced it since
  /// it was read, nothing is written and the answer is false (git's `verify_index` before an opportunistic write).
  @discardableResult
  func write(
    _ path: String, _ bytes: [UInt8], checkpoints: [SHA1], derived: Derived = Derived(),
    keepingModificationTime mtime: (seconds: Int, nanoseconds: Int)? = nil, ifStill expected: Identity? = nil
  ) throws -> Bool {
    let lockPath = path + ".lock"
    let fd = try Self.takeLock(lockPath, function: "git_index_write", holder: "another git process is running")
    var renamed = false
    defer {
      close(fd)
      if !renamed { unlink(lockPath) }
    }
    if let expected {
      var current = stat()
      guard stat(path, &current) == 0, Identity(current) == expected else { return false }
    }
    try Self.writeAll(fd, bytes, what: lockPath)
    if let mtime {
      // Access time too (nothing reads it; UTIME_OMIT is a macro Swift does not import).
      let time = timespec(tv_sec: mtime.seconds, tv_nsec: mtime.nanoseconds)
      let times = [time, time]
      guard futimens(fd, times) == 0 else { throw Self.posixError("futimens(\(lockPath))") }
    }
    guard rename(lockPath, path) == 0 else { throw Self.posixError("rename(\(lockPath), \(path))") }
    renamed = true
    // fstat on our descriptor, not lstat on the path: if someone replaced the file right after our rename, the
    // cache must describe our inode, which then no longer matches the path and is ignored.
    var info = stat()
    if fstat(fd, &info) == 0 {
      remember(
        path,
        Loaded(
          snapshot: IndexFile.Snapshot(bytes: bytes, checkpoints: checkpoints), identity: .init(info), derived: derived)
      )
      if let file = checkpointsFile(for: path, size: bytes.count) {
        IndexCheckpoints.save(
          file, identity: .init(info), bytes: bytes, states: checkpoints, hasConflicts: derived.hasConflicts)
      }
    } else {
      forget()
    }
    return true
  }

  /// Drops the cached bytes after a write whose result we could not identify.
  private func forget() {
    cacheLock.lock()
    cache = nil
    cacheLock.unlock()
  }

  private func remember(_ path: String, _ loaded: Loaded) {
    cacheLock.lock()
    cache = (path, loaded)
    cacheLock.unlock()
  }

  /// Takes git's lock file `lockPath` (created exclusively, as git and libgit2 take theirs) and returns its
  /// descriptor. An existing one fails with `isLocked`, saying that `holder` (or a crashed process) has it.
  static func takeLock(_ lockPath: String, function: String, holder: String) throws -> Int32 {
    let fd = open(lockPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    if fd >= 0 { return fd }
    if errno == EEXIST {
      throw GitError(
        function: function, code: GitError.lockedCode,
        message: "\(lockPath) exists: \(holder), or one crashed and left it behind")
    }
    throw posixError("open(\(lockPath))")
  }

  /// Makes `directory` and any missing parents (`mkdir -p`), with POSIX calls: FileManager's first use in a process
  /// costs more than the directories.
  static func makeDirectories(_ directory: String) throws {
    var made = directory.hasPrefix("/") ? "" : "."
    for component in directory.split(separator: "/") {
      made += "/" + component
      if mkdir(made, 0o777) != 0 && errno != EEXIST { throw posixError("mkdir(\(made))") }
    }
  }

  /// Writes all of `bytes` to `fd` (`what` names the file in an error).
  static func writeAll(_ fd: Int32, _ bytes: [UInt8], what: String) throws {
    var done = 0
    try bytes.withUnsafeBytes { buffer in
      while done < buffer.count {
        let n = posixWrite(fd, buffer.baseAddress! + done, buffer.count - done)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { throw posixError("write(\(what))") }
        done += n
      }
    }
  }

  static func posixError(_ function: String) -> GitError {
    GitError(function: function, code: -1, message: String(cString: strerror(errno)))
  }
}

/// `write(2)`; a file-scope name so that `IndexFileStore.write` does not shadow it.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, buffer, count)
}

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Thin, fast file-system calls. Listing 100 000 notes through FileManager costs several times what readdir and
/// lstat cost, and listing is on the path of every command that resolves a note by title.
#if canImport(Glibc)
  private let systemRead = Glibc.read
#else
  private let systemRead = Darwin.read
#endif

enum FileSystem {
  struct Entry {
    var name: String
    var isDirectory: Bool
    var isRegular: Bool
    var isSymlink: Bool
  }

  struct Info: Equatable {
    var size: Int64
    var modifiedNanoseconds: Int64
    var inode: UInt64
    var isDirectory: Bool
    var isRegular: Bool
    var isSymlink: Bool
    /// The inode's change time (ctime): moves on a rename or a chmod that leaves mtime alone.
    var changedNanoseconds: Int64 = 0
  }

  /// Writes this process's id over the start of the owner file `fd` of the watch's change journal
  /// (``writePadded(_:width:to:)``); readers trim the padding. The repository lock writes its own line
  /// (``RepositoryLock``).
  static func writeLockHolder(_ fd: Int32) {
    _ = writePadded(String(getpid()), width: lockHolderWidth, to: fd)
  }

  /// Writes `line` and a newline over the start of the file at `path` (created if missing) with
  /// ``writePadded(_:width:to:)``; a longer file is cut to the padded line. For a small file of derived data
  /// rewritten often (the time of the last sync). Not atomic: only for what nb can lose or misread without harm.
  static func overwriteInPlace(_ line: String, path: String, width: Int) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw AtomicFile.ioError(path, errno) }
    defer { close(fd) }
    let count = writePadded(line, width: width, to: fd)
    // Cuts a longer file; at the length it already has, frees nothing.
    guard count > 0, ftruncate(fd, off_t(count)) == 0 else { throw AtomicFile.ioError(path, errno) }
  }

  /// Writes `line`, padded with spaces to `width` bytes, and a newline over the start of `fd`: lines of one width
  /// cover one another, so the file is never truncated first. Truncating (or replacing the file by a rename) would
  /// free its block and allocate another on every write, and on a disk mounted with `discard` every free waits for
  /// the device. Returns the bytes written, or 0 when the write failed (`errno` says why).
  @discardableResult
  static func writePadded(_ line: String, width: Int, to fd: Int32) -> Int {
    let padded = line + String(repeating: " ", count: max(0, width - line.utf8.count)) + "\n"
    let count = padded.utf8.count
    let written = padded.withCString { pwrite(fd, $0, count, 0) }
    if written != count && written >= 0 { errno = EIO }
    return written == count ? count : 0
  }

  /// The digits a process id can have on Linux (`pid_max` is at most 2^22) and more: lines of this width always
  /// cover one another.
  static let lockHolderWidth = 10

  /// Entries of a directory, without `.` and `..`; empty when it cannot be read.
  static func entries(of path: String) -> [Entry] {
    entries(of: path, statingWhere: { _ in false }).map(\.entry)
  }

  static func lstatInfo(_ path: String) -> Info? {
    var s = stat()
    guard lstat(path, &s) == 0 else { return nil }
    return info(s)
  }

  static func statInfo(_ path: String) -> Info? {
    var s = stat()
    guard stat(path, &s) == 0 else { return nil }
    return info(s)
  }

  private static func info(_ s: stat) -> Info {
    let kind = s.st_mode & S_IFMT
    #if canImport(Darwin)
      let nanos = Int64(s.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(s.st_mtimespec.tv_nsec)
      let changed = Int64(s.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(s.st_ctimespec.tv_nsec)
    #else
      let nanos = Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec)
      let changed = Int64(s.st_ctim.tv_sec) * 1_000_000_000 + Int64(s.st_ctim.tv_nsec)
    #endif
    return Info(
      size: Int64(s.st_size), modifiedNanoseconds: nanos, inode: UInt64(s.st_ino), isDirectory: kind == S_IFDIR,
      isRegular: kind == S_IFREG, isSymlink: kind == S_IFLNK, changedNanoseconds: changed)
  }

  static func exists(_ path: String) -> Bool { lstatInfo(path) != nil }

  /// A directory's entries, with stat data (not following symlinks) for those `wanted` picks: `fstatat` relative
  /// to the open directory, so the kernel does not resolve the whole path again for each file of a large tree.
  static func entries(of path: String, statingWhere wanted: (Entry) -> Bool) -> [(entry: Entry, info: Info?)] {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return [] }
    guard let dir = fdopendir(fd) else {
      close(fd)
      return []
    }
    defer { closedir(dir) }
    var result: [(entry: Entry, info: Info?)] = []
    while let pointer = readdir(dir) {
      var s = stat()
      let name = withUnsafePointer(to: pointer.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      }
      if name == "." || name == ".." { continue }
      var type = Int32(pointer.pointee.d_type)
      var entry = Entry(name: name, isDirectory: false, isRegular: false, isSymlink: false)
      var info: Info?
      if type == Int32(DT_UNKNOWN), fstatat(fd, name, &s, AT_SYMLINK_NOFOLLOW) == 0 {
        info = Self.info(s)
        type = info!.isDirectory ? Int32(DT_DIR) : info!.isSymlink ? Int32(DT_LNK) : Int32(DT_REG)
      }
      entry.isDirectory = type == Int32(DT_DIR)
      entry.isRegular = type == Int32(DT_REG)
      entry.isSymlink = type == Int32(DT_LNK)
      if info == nil, wanted(entry), fstatat(fd, name, &s, AT_SYMLINK_NOFOLLOW) == 0 { info = Self.info(s) }
      result.append((entry, info))
    }
    return result
  }

  /// Whether a running process has `path` open: true or false where `/proc` tells (Linux), nil where nothing does.
  static func isHeldOpen(_ path: String) -> Bool? {
    guard let target = realPath(path), FileManager.default.fileExists(atPath: "/proc/self/fd") else { return nil }
    for process in entries(of: "/proc") where process.isDirectory && process.name.allSatisfy(\.isNumber) {
      let fds = "/proc/\(process.name)/fd"
      for fd in entries(of: fds) {
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + fd.name)) == target { return true }
      }
    }
    return false
  }

  /// Reads at most `limit` bytes from the start of a file (the whole file when `limit` is nil).
  static func read(_ path: String, limit: Int? = nil) throws -> Data {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw AtomicFile.ioError(path, errno) }
    defer { close(fd) }
    var s = stat()
    let size = fstat(fd, &s) == 0 ? Int(s.st_size) : 0
    let capacity = min(limit ?? Int.max, max(size, 0))
    var data = Data(count: capacity)
    var filled = 0
    let failure: Int32 = data.withUnsafeMutableBytes { buffer -> Int32 in
      while filled < capacity {
        let n = systemRead(fd, buffer.baseAddress! + filled, capacity - filled)
        if n < 0 {
          if errno == EINTR { continue }
          return errno
        }
        if n == 0 { break }
        filled += n
      }
      return 0
    }
    if failure != 0 { throw AtomicFile.ioError(path, failure) }
    if filled < capacity { data.removeSubrange(filled..<capacity) }
    if limit == nil, filled == capacity {
      // The file may have grown since fstat; read what is left rather than truncate a note silently.
      while true {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = systemRead(fd, &chunk, chunk.count)
        if n <= 0 { break }
        data.append(contentsOf: chunk[0..<n])
      }
    }
    return data
  }

  /// The canonical absolute path (symlinks resolved), nil when it does not exist.
  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// `mkdir -p`: makes the directory and any missing parents; one that exists already is fine, a file in the way
  /// is not. With mkdir itself: FileManager's first use sets itself up (a few tenths of a millisecond of every
  /// command that takes the repository lock).
  static func makeDirectory(_ path: String) throws {
    if mkdir(path, 0o777) == 0 { return }
    var failure = errno
    if failure == ENOENT, let parent = parentDirectory(of: path) {
      try makeDirectory(parent)
      if mkdir(path, 0o777) == 0 { return }
      failure = errno
    }
    // Another process (or the parent's own making, for a path ending in `..`) may have made it meanwhile.
    if failure == EEXIST, statInfo(path)?.isDirectory == true { return }
    throw NoteStoreError.io(path: path, detail: "cannot create directory (\(String(cString: strerror(failure))))")
  }

  /// Makes the directory a file at `path` goes in, and any missing parents (``makeDirectory(_:)``).
  static func makeDirectory(containing path: String) throws {
    if let parent = parentDirectory(of: path) { try makeDirectory(parent) }
  }

  /// The directory `path` is in, by its text (trailing slashes ignored); nil for a single relative component or
  /// the root, whose parent needs no making.
  static func parentDirectory(of path: String) -> String? {
    var bytes = Array(path.utf8)
    while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return nil }
    guard slash > 0 else { return bytes.count > 1 ? "/" : nil }
    return String(decoding: bytes[..<slash], as: UTF8.self)
  }

  static func remove(_ path: String) throws {
    if unlink(path) != 0, errno != ENOENT { throw AtomicFile.ioError(path, errno) }
  }

  static func removeTree(_ path: String) throws {
    do { try FileManager.default.removeItem(atPath: path) } catch {
      if exists(path) { throw NoteStoreError.io(path: path, detail: "cannot remove") }
    }
  }

  static func move(_ from: String, _ to: String) throws {
    if rename(from, to) != 0 { throw AtomicFile.ioError(from, errno) }
  }
}

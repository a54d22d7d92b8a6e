import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the polling backend compares between two scans of one path.
struct EntryStat: Equatable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modifiedNanoseconds: Int64
  var mode: UInt32
  var isDirectory: Bool

  init(_ st: stat) {
    device = UInt64(truncatingIfNeeded: st.st_dev)  // signed on Darwin
    inode = UInt64(truncatingIfNeeded: st.st_ino)
    size = Int64(st.st_size)
    #if canImport(Darwin)
      modifiedNanoseconds = Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
    #else
      modifiedNanoseconds = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    #endif
    mode = UInt32(st.st_mode)
    isDirectory = (mode & UInt32(S_IFMT)) == UInt32(S_IFDIR)
  }

  init(device: UInt64, inode: UInt64, size: Int64, modifiedNanoseconds: Int64, mode: UInt32, isDirectory: Bool) {
    self.device = device
    self.inode = inode
    self.size = size
    self.modifiedNanoseconds = modifiedNanoseconds
    self.mode = mode
    self.isDirectory = isDirectory
  }
}

/// One name in a directory. A symlink is never a directory here: the watcher does not follow links.
struct DirectoryEntry {
  var name: String
  var isDirectory: Bool
  /// Set when the listing was asked to stat (lstat, relative to the open directory).
  var stat: EntryStat?
}

enum FileSystem {
  /// The entries of the directory at `path` ("." and ".." left out, in readdir order), or nil when it cannot be
  /// opened (gone, not a directory, no permission). With `withStat`, every entry is lstat'ed; without, only those
  /// whose type readdir does not tell.
  static func entries(of path: String, withStat: Bool) -> [DirectoryEntry]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    let fd = dirfd(dir)
    var result: [DirectoryEntry] = []
    while let entry = readdir(dir) {
      let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
        pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: pointer.pointee)) {
          String(cString: $0)
        }
      }
      if name == "." || name == ".." { continue }
      let type = Int(entry.pointee.d_type)
      if !withStat && type != Int(DT_UNKNOWN) {
        result.append(DirectoryEntry(name: name, isDirectory: type == Int(DT_DIR), stat: nil))
        continue
      }
      var st = stat()
      // Gone between readdir and the stat: leave it out, as if it had not been there.
      guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
      let info = EntryStat(st)
      result.append(DirectoryEntry(name: name, isDirectory: info.isDirectory, stat: withStat ? info : nil))
    }
    return result
  }

  /// stat(2) of `path`, following a symlink (the root may be one), or the errno.
  static func status(of path: String) -> Result<EntryStat, SystemError> {
    var st = stat()
    guard stat(path, &st) == 0 else { return .failure(SystemError(code: errno)) }
    return .success(EntryStat(st))
  }

  /// `relative` joined under `parent` (both relative to the root, "" being the root).
  static func join(_ parent: String, _ name: String) -> String {
    parent.isEmpty ? name : parent + "/" + name
  }

  /// Whether `path` is `prefix` or lies under it.
  static func isWithin(_ path: String, _ prefix: String) -> Bool {
    prefix.isEmpty || path == prefix
      || (path.hasPrefix(prefix) && path.utf8.dropFirst(prefix.utf8.count).first == UInt8(ascii: "/"))
  }

  /// An integer read from a file such as `/proc/sys/fs/inotify/max_user_watches`, nil when unreadable.
  static func integer(at path: String) -> Int? {
    (try? String(contentsOfFile: path, encoding: .utf8)).flatMap {
      Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
  }
}

/// An errno, carried out of a call that failed.
struct SystemError: Error {
  var code: Int32
}

/// The self-pipe that wakes the watcher thread out of poll(2) for `stop()`; never drained, since a wake-up means
/// the thread is leaving.
final class WakePipe {
  let readFD: Int32
  let writeFD: Int32

  init() throws {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw FileWatchError.system(call: "pipe", path: nil, errno: errno) }
    for fd in fds {
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }
    readFD = fds[0]
    writeFD = fds[1]
  }

  func signal() {
    var byte: UInt8 = 1
    // EAGAIN means a byte is already waiting, which wakes the reader just as well.
    _ = write(writeFD, &byte, 1)
  }

  func close() {
    #if canImport(Glibc)
      _ = Glibc.close(readFD)
      _ = Glibc.close(writeFD)
    #else
      _ = Darwin.close(readFD)
      _ = Darwin.close(writeFD)
    #endif
  }
}

/// poll(2) on `fds` for input, retrying EINTR; returns which are readable (hang-up and errors count as readable, so
/// the read that follows reports them). `timeout` in milliseconds, -1 to wait for ever. Blocks in the kernel: the
/// watcher's idle cost is this call.
func waitForInput(_ fds: [Int32], timeout: Int32) -> [Bool] {
  var set = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
  while poll(&set, nfds_t(set.count), timeout) < 0 {
    if errno == EINTR { continue }
    // Not expected with valid descriptors (ENOMEM): back off rather than spin, then let the caller try again.
    usleep(100_000)
    return fds.map { _ in false }
  }
  return set.map { $0.revents != 0 }
}

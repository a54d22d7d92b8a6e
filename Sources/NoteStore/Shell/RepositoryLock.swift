import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The repository lock, `.git/nb/lock`: every nb process that changes the repository holds it from its first read
/// to its commit, so two terminals or a watcher never lose a save. It is a `flock`, released by the kernel when the
/// holder exits or crashes, so a crash can never leave a stale nb lock behind.
///
/// The file says who holds it: `<pid> <seconds since 1970>` while held, blank once released. A line still there
/// when the next process takes the lock is a holder that never released it, killed with whatever git lock files it
/// had made (a fetch's remote-tracking refs, the index): ``killedHolderStarted`` says since when, so that only
/// those are removed.
final class RepositoryLock {
  private let fd: Int32
  private let announces: Bool
  let path: String
  /// When a holder that was killed before it released the lock took it; nil when the last holder released it (or
  /// was an older nb, which leaves its pid alone and no time).
  private(set) var killedHolderStarted: Date?

  /// The width of the holder's line: a pid (`pid_max` is at most 2^22), a space and a time to the millisecond.
  static let lineWidth = 31

  /// Waits up to `timeout` for the lock. Unless `announces` is false (a process that only reads and takes the lock
  /// for an instant), it writes who holds it over the file, and blanks it when released.
  init(path: String, timeout: TimeInterval = 30, announces: Bool = true) throws {
    self.path = path
    self.announces = announces
    try? FileSystem.makeDirectory(containing: path)
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw NoteStoreError.io(path: path, detail: String(cString: strerror(errno))) }
    let deadline = Date().addingTimeInterval(timeout)
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
        let holder = Self.holder(in: Self.firstLine(fd))?.pid
        close(fd)
        throw NoteStoreError.busy(path: path, holder: holder.map { "pid \($0)" } ?? "unknown")
      }
      usleep(5_000)
    }
    guard announces else { return }
    if let last = Self.holder(in: Self.firstLine(fd)), let started = last.started, last.pid != getpid(),
      kill(last.pid, 0) != 0, errno == ESRCH
    {
      killedHolderStarted = started
    }
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let milliseconds = String(1000 + now.tv_nsec / 1_000_000).dropFirst()
    FileSystem.writePadded("\(getpid()) \(now.tv_sec).\(milliseconds)", width: Self.lineWidth, to: fd)
  }

  deinit {
    // Blanked before the release, so the next holder never takes this one for a killed one.
    if announces { FileSystem.writePadded("", width: Self.lineWidth, to: fd) }
    flock(fd, LOCK_UN)
    close(fd)
  }

  private static func firstLine(_ fd: Int32) -> Substring {
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = pread(fd, &buffer, buffer.count, 0)
    let text = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
    return text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
  }

  /// The holder a line names: its pid, and when it took the lock (absent from an older nb's line).
  private static func holder(in line: Substring) -> (pid: pid_t, started: Date?)? {
    let fields = line.split(separator: " ")
    guard let first = fields.first, let pid = pid_t(first), pid > 0 else { return nil }
    let started = fields.count == 2 ? Double(fields[1]).map { Date(timeIntervalSince1970: $0) } : nil
    return (pid, started)
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The repository lock, `.git/nb/lock`: every nb process that changes the repository holds it from its first read
/// to its commit, so two terminals or a watcher never lose a save. It is a `flock`, released by the kernel when the
/// holder exits or crashes, so a crash can never leave a stale nb lock behind.
final class RepositoryLock {
  private let fd: Int32
  let path: String

  /// Waits up to `timeout` for the lock.
  init(path: String, timeout: TimeInterval = 30) throws {
    self.path = path
    try? FileSystem.makeDirectory(containing: path)
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw NoteStoreError.io(path: path, detail: String(cString: strerror(errno))) }
    let deadline = Date().addingTimeInterval(timeout)
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
        let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(
          in: .whitespacesAndNewlines)
        close(fd)
        throw NoteStoreError.busy(path: path, holder: holder.map { "pid \($0)" } ?? "unknown")
      }
      usleep(5_000)
    }
    // Who holds it, for the message another process shows while it waits.
    FileSystem.writeLockHolder(fd)
  }

  deinit {
    flock(fd, LOCK_UN)
    close(fd)
  }
}

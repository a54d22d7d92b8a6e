import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Hands the name of every file that appears in a directory to `handle`, in the order they appear, on a thread of
/// its own until ``stop()``: what `nb watch` does with a change journal's requests, for tests and the benchmark
/// (which pass `ChangeJournal.acknowledge(request:)`). inotify on Linux, else a listing every 200 µs.
public final class NewFileWatcher: @unchecked Sendable {
  private let directory: String
  private let handle: (String) -> Void
  private let lock = NSLock()
  private var stopping = false
  private let finished = DispatchSemaphore(value: 0)

  public init(directory: String, handle: @escaping (String) -> Void) throws {
    self.directory = directory
    self.handle = handle
    #if os(Linux)
      let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
      guard fd >= 0, inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      }
      Thread.detachNewThread { [self] in
        self.run(inotify: fd)
        close(fd)
        self.finished.signal()
      }
    #else
      Thread.detachNewThread { [self] in
        self.poll()
        self.finished.signal()
      }
    #endif
  }

  deinit { stop() }

  /// Stops the thread and waits for it (idempotent).
  public func stop() {
    lock.lock()
    let first = !stopping
    stopping = true
    lock.unlock()
    if first { finished.wait() }
  }

  private var isStopping: Bool {
    lock.lock()
    defer { lock.unlock() }
    return stopping
  }

  #if os(Linux)
    private func run(inotify fd: Int32) {
      // Files made before the watch existed.
      for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() { handle(name) }
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while !isStopping {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&poller, 1, 20) > 0 else { continue }
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { continue }
        var offset = 0
        while offset + 16 <= n {
          // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of NUL-padded name.
          let length = buffer[(offset + 12)..<(offset + 16)].withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) }
          let name = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
          if !name.isEmpty { handle(String(decoding: name, as: UTF8.self)) }
          offset += 16 + length
        }
      }
    }
  #else
    private func poll() {
      while !isStopping {
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() { handle(name) }
        usleep(200)
      }
    }
  #endif
}

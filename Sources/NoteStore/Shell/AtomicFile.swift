import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes that are all-or-nothing: the bytes go to a temporary file in the same directory, are flushed, and the
/// file is renamed over the target, so a crash or a full disk leaves either the old note or the new one, never half.
#if canImport(Glibc)
  private let systemWrite = Glibc.write
#else
  private let systemWrite = Darwin.write
#endif

enum AtomicFile {
  /// Writes every byte of `data` to `fd` (retrying short and interrupted writes); 0, or the `errno` that stopped it.
  static func writeAll(_ data: Data, to fd: Int32) -> Int32 {
    data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32 in
      var offset = 0
      while offset < buffer.count {
        let n = systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          return errno
        }
        offset += n
      }
      return 0
    }
  }

  static func write(_ data: Data, to url: URL, durable: Bool = true) throws {
    let directory = url.deletingLastPathComponent().path
    let temporary = directory + "/.\(url.lastPathComponent).nb-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
    let mode = existingMode(of: url.path) ?? 0o644
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw ioError(url.path, errno) }
    var failure = writeAll(data, to: fd)
    if failure == 0, durable, fsync(fd) != 0 { failure = errno }
    close(fd)
    if failure == 0, rename(temporary, url.path) != 0 { failure = errno }
    if failure != 0 {
      unlink(temporary)
      throw ioError(url.path, failure)
    }
  }

  /// Whether `path`'s last component is one of the temporary files `write` makes (`.<name>.nb-<pid>-<n>.tmp`): one
  /// left by a process killed mid-write holds a partial note and must never be committed.
  static func isTemporary(_ path: String) -> Bool {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    return name.hasPrefix(".") && name.hasSuffix(".tmp") && name.contains(".nb-")
  }

  static func write(_ text: String, to url: URL) throws {
    try write(Data(text.utf8), to: url)
  }

  private static func existingMode(of path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
  }

  static func ioError(_ path: String, _ code: Int32) -> NoteStoreError {
    .io(path: path, detail: String(cString: strerror(code)))
  }
}

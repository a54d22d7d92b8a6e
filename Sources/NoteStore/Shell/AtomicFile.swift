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

  /// A file written beside its target and flushed to disk, not yet renamed over it (see ``stage(_:)``).
  struct Staged {
    let temporary: String
    let target: String
  }

  /// Writes each file's bytes to a temporary file beside its target, as ``write(_:to:durable:)`` does, and makes
  /// them all durable; renames none. On failure, nothing is left behind.
  ///
  /// On Linux the batch costs one flush of each file system it lies on (`syncfs`), not one per file: each file's
  /// writeback is started as soon as it is written (`sync_file_range`), then one call waits for all of it and
  /// commits the file system's journal once. A flush per file, even overlapped, made the disk flush its cache once
  /// per file (1 000 notes: 1 000 cache flushes, a third of a rename's time). `syncfs` also writes back whatever
  /// else is dirty on that file system, which is why it is kept to batches of at least ``fileSystemFlushMinimum``
  /// files and not used for a single note. Elsewhere, and for fewer files, each file is flushed on its own.
  static func stage(_ files: [(data: Data, target: String)]) throws -> [Staged] {
    let syncsFileSystems = syncsFileSystems && files.count >= fileSystemFlushMinimum
    var staged: [Staged] = []
    // Descriptors written but not yet flushed; a long batch is flushed in slices to bound how many are open.
    var pending: [Int32] = []
    // The file systems the batch wrote to: one descriptor of each stays in `pending`, for its `syncfs`.
    var fileSystems = Set<UInt64>()
    do {
      for file in files {
        let url = URL(fileURLWithPath: file.target)
        let directory = url.deletingLastPathComponent().path
        let temporary =
          directory + "/.\(url.lastPathComponent).nb-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, existingMode(of: file.target) ?? 0o644)
        guard fd >= 0 else { throw ioError(file.target, errno) }
        staged.append(Staged(temporary: temporary, target: file.target))
        pending.append(fd)
        let failure = writeAll(file.data, to: fd)
        if failure != 0 { throw ioError(file.target, failure) }
        startWriteback(fd)
        if syncsFileSystems {
          var info = stat()
          if fstat(fd, &info) != 0 { throw ioError(file.target, errno) }
          if !fileSystems.insert(UInt64(info.st_dev)).inserted { close(pending.removeLast()) }
        } else if pending.count >= 128 {
          let slice = pending
          pending = []
          try flush(slice, staged.suffix(slice.count))
        }
      }
      let slice = pending
      pending = []
      if syncsFileSystems {
        try syncFileSystems(slice, target: staged.first?.target ?? "")
      } else {
        try flush(slice, staged.suffix(slice.count))
      }
    } catch {
      pending.forEach { close($0) }
      discard(staged[...])
      throw error
    }
    return staged
  }

  /// Waits for each descriptor's data to be on disk, and closes them all (also when one fails).
  private static func flush(_ descriptors: [Int32], _ staged: ArraySlice<Staged>) throws {
    var failure: (target: String, code: Int32)?
    for (fd, file) in zip(descriptors, staged) {
      if failure == nil, fsync(fd) != 0 { failure = (file.target, errno) }
      close(fd)
    }
    if let failure { throw ioError(failure.target, failure.code) }
  }

  /// Flushes the whole file system of each descriptor (one per file system) and closes them all. `syncfs` reports
  /// a writeback error of any file on it since the descriptor was opened (Linux 5.8 and later), so a failed write
  /// of a staged file is not missed.
  private static func syncFileSystems(_ descriptors: [Int32], target: String) throws {
    var failure: Int32 = 0
    for fd in descriptors {
      #if os(Linux)
        if failure == 0, let syncFileSystem, syncFileSystem(fd) != 0 { failure = errno }
      #endif
      close(fd)
    }
    if failure != 0 { throw ioError(target, failure) }
  }

  /// From this many files on, ``stage(_:)`` flushes the file system once rather than each file.
  static let fileSystemFlushMinimum = 8

  /// Whether ``stage(_:)`` can flush file systems (`syncfs`) rather than files.
  private static var syncsFileSystems: Bool {
    #if os(Linux)
      syncFileSystem != nil
    #else
      false
    #endif
  }

  /// Renames a staged file over its target.
  static func install(_ staged: Staged) throws {
    if rename(staged.temporary, staged.target) != 0 {
      let failure = errno
      unlink(staged.temporary)
      throw ioError(staged.target, failure)
    }
  }

  /// Renames a staged file over its target as ``install(_:)`` does, the file it replaces released by `release`.
  static func install(_ staged: Staged, releasing release: ReplacedFiles) throws {
    let replaced = release.hold(staged.target)
    do {
      try install(staged)
    } catch {
      release.release(replaced)
      throw error
    }
    release.release(replaced)
  }

  /// Removes staged files that will not be installed.
  static func discard(_ staged: ArraySlice<Staged>) {
    for file in staged { unlink(file.temporary) }
  }

  /// Starts writing a file's dirty pages to disk without waiting (Linux's `sync_file_range(SYNC_FILE_RANGE_WRITE)`,
  /// which Glibc's module does not declare); nothing elsewhere, where the flush alone does the work.
  private static func startWriteback(_ fd: Int32) {
    #if os(Linux)
      if let function = syncFileRange { _ = function(fd, 0, 0, 2) }
    #endif
  }

  #if os(Linux)
    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    private static let syncFileRange: SyncFileRange? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range")
      .map { unsafeBitCast($0, to: SyncFileRange.self) }
    /// `syncfs`, which Glibc's module does not declare either.
    private typealias SyncFileSystem = @convention(c) (Int32) -> Int32
    private static let syncFileSystem: SyncFileSystem? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs")
      .map { unsafeBitCast($0, to: SyncFileSystem.self) }
  #endif

  /// Whether `path`'s last component is one of the temporary files `write` makes (`.<name>.nb-<pid>-<n>.tmp`): one
  /// left by a process killed mid-write holds a partial note and must never be committed.
  static func isTemporary(_ path: String) -> Bool {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    return name.hasPrefix(".") && name.hasSuffix(".tmp") && name.contains(".nb-")
  }

  static func write(_ text: String, to url: URL) throws {
    try write(Data(utf8Of: text), to: url)
  }

  private static func existingMode(of path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
  }

  static func ioError(_ path: String, _ code: Int32) -> NoteStoreError {
    .io(path: path, detail: String(cString: strerror(code)))
  }
}

/// Lets the files that renames replace be freed on a thread of their own. A file renamed over another frees the
/// other's blocks when its last reference goes, in the rename itself: on a file system mounted with `discard`
/// (common on cloud disks) that is a discard request per file, waited for (1 000 notes rewritten: 0.1 to 2 s of
/// waiting in the renames alone). Held open across its rename, the replaced file is freed when the descriptor is
/// closed, here on a background queue while the command goes on (the commit, the index); ``wait()`` waits for the
/// rest. What is on disk is the same either way: a replaced file held open is an orphan the file system frees
/// after a crash.
final class ReplacedFiles: @unchecked Sendable {
  private let queue = DispatchQueue(label: "nb.replaced-files")
  private let group = DispatchGroup()
  /// At most this many held open at once, so a large batch never runs the process out of descriptors.
  private let slots = DispatchSemaphore(value: 128)

  /// Opens the file at `path` (-1 when there is none or it cannot be opened) before a rename replaces it.
  func hold(_ path: String) -> Int32 {
    slots.wait()
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    if fd < 0 { slots.signal() }
    return fd
  }

  /// Closes a descriptor from ``hold(_:)`` on the background queue.
  func release(_ fd: Int32) {
    guard fd >= 0 else { return }
    queue.async(group: group) { [slots] in
      close(fd)
      slots.signal()
    }
  }

  /// Waits until every held file was closed.
  func wait() {
    group.wait()
  }
}

extension Data {
  /// `text`'s UTF-8 bytes. Not `Data(text.utf8)`: that asks the runtime whether `String.UTF8View` is
  /// `ContiguousBytes`, and the answer (no) costs a scan of every conformance record in the binary, once per
  /// process, in every command that writes a note or what it learnt of git (status, sync).
  init(utf8Of text: String) {
    var text = text
    self = text.withUTF8 { bytes in bytes.baseAddress.map { Data(bytes: $0, count: bytes.count) } ?? Data() }
  }
}

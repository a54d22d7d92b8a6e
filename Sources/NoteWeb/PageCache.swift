import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Note pages already made, answered again while nothing they show can have changed: under `wrk`, making a note
/// page (its file read, Markdown rendered, links and backlinks asked of the index, the template filled) is about
/// 4 ms, and the server answers one request at a time.
///
/// A page is kept with the stat data of the files it shows directly (the note and its ink sidecar), checked on
/// every hit, so an edit to the note itself is never answered from the cache, however it was made. Everything else
/// on the page (backlinks, attachments, resolved links: other files) is dropped from the cache by
/// ``invalidate()``, which the server calls on every change its file watcher sees, as soon as it sees it — before
/// the change is published to open pages, whose refresh must not get the old page back — and the app calls after
/// each of its own writes. Thread-safe: the watcher calls ``invalidate()`` from its own thread.
final class PageCache: @unchecked Sendable {
  /// What a file looked like when the page was made (nil: absent).
  struct Stamp: Equatable {
    var size: Int64
    var modified: timespec
    var changed: timespec
    var inode: UInt64

    static func == (a: Stamp, b: Stamp) -> Bool {
      a.size == b.size && a.inode == b.inode && a.modified.tv_sec == b.modified.tv_sec
        && a.modified.tv_nsec == b.modified.tv_nsec && a.changed.tv_sec == b.changed.tv_sec
        && a.changed.tv_nsec == b.changed.tv_nsec
    }

    /// `path`'s stat data, not following a final symlink; nil when there is no such file.
    static func of(_ path: String) -> Stamp? {
      var info = stat()
      guard lstat(path, &info) == 0 else { return nil }
      return Stamp(size: Int64(info.st_size), modified: info.st_mtim, changed: info.st_ctim, inode: UInt64(info.st_ino))
    }
  }

  private struct Entry {
    var response: WebResponse
    var files: [String]
    var stamps: [Stamp?]
    var bytes: Int
  }

  private let lock = NSLock()
  private var entries: [String: Entry] = [:]
  private var generation: UInt64 = 0
  private var bytes = 0
  /// The most bytes of pages kept: beyond it the cache starts over (a reader browses a few pages; `wrk` one).
  let limit: Int

  init(limit: Int = 32 << 20) { self.limit = limit }

  /// Forgets every page: something in the repository changed.
  func invalidate() {
    lock.withLock {
      generation &+= 1
      entries.removeAll(keepingCapacity: true)
      bytes = 0
    }
  }

  /// The page kept for `key`, when nothing changed since it was made and its files are as they were.
  func page(for key: String) -> WebResponse? {
    guard let entry = lock.withLock({ entries[key] }) else { return nil }
    // Outside the lock: a stat is a system call, and the watcher's invalidate must not wait for it.
    for (file, stamp) in zip(entry.files, entry.stamps) where Stamp.of(file) != stamp { return nil }
    return entry.response
  }

  /// The current generation, to be taken *before* a page is made: a change seen while it is made (``invalidate()``
  /// moves the generation on) keeps that page out of the cache.
  var currentGeneration: UInt64 { lock.withLock { generation } }

  /// Keeps `response` for `key`, with `files`' stat data as they were before the page was read (so a write while it
  /// was made is caught on the next hit), unless the repository changed since `generation`.
  func keep(_ response: WebResponse, for key: String, files: [String], stamps: [Stamp?], generation: UInt64) {
    let size = response.body.count + key.utf8.count
    guard size <= limit / 8 else { return }
    lock.withLock {
      guard generation == self.generation else { return }
      if bytes + size > limit {
        entries.removeAll(keepingCapacity: true)
        bytes = 0
      }
      if let old = entries[key] { bytes -= old.bytes }
      entries[key] = Entry(response: response, files: files, stamps: stamps, bytes: size)
      bytes += size
    }
  }
}

import FileWatch
import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Collects what a watcher delivers, for the test thread to wait on.
final class Recorder: @unchecked Sendable {
  private let lock = NSLock()
  private var received: [FileWatchBatch] = []

  func append(_ batch: FileWatchBatch) {
    lock.lock()
    received.append(batch)
    lock.unlock()
  }

  var batches: [FileWatchBatch] {
    lock.lock()
    defer { lock.unlock() }
    return received
  }

  var events: [FileEvent] {
    batches.flatMap { batch -> [FileEvent] in
      if case .events(let events) = batch { return events }
      return []
    }
  }

  /// Polls every 5 ms until `condition` holds or `timeout` passes; whether it held.
  @discardableResult
  func wait(timeout: TimeInterval = 5, until condition: ([FileWatchBatch]) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if condition(batches) { return true }
      usleep(5_000)
    }
    return condition(batches)
  }

  /// Waits for an event satisfying `match`.
  @discardableResult
  func waitForEvent(timeout: TimeInterval = 5, _ match: @escaping (FileEvent) -> Bool) -> Bool {
    wait(timeout: timeout) { batches in
      batches.contains { batch in
        if case .events(let events) = batch { return events.contains(where: match) }
        return false
      }
    }
  }

  func waitForEvent(_ path: String, _ kinds: FileEvent.Kind...) -> Bool {
    waitForEvent { $0.path == path && kinds.contains($0.kind) }
  }
}

/// A temporary root per test and watchers on it that are stopped when the test ends.
class FileWatchTestCase: XCTestCase {
  var directory: TemporaryDirectory!
  var root: URL { directory.url }
  private var watchers: [DirectoryWatcher] = []

  override func setUpWithError() throws {
    directory = try TemporaryDirectory(prefix: "nb-filewatch")
  }

  override func tearDown() {
    for watcher in watchers { watcher.stop() }
    watchers = []
    directory = nil
  }

  /// Whether this platform has inotify (the inotify variants of the scenarios skip elsewhere).
  var hasInotify: Bool {
    #if os(Linux)
      return true
    #else
      return false
    #endif
  }

  /// A started watcher on the root and what it delivers. Polling runs every 50 ms so the tests stay quick.
  func watch(
    _ backend: DirectoryWatchOptions.Backend, watchLimit: Int? = nil, alsoWatch: [String] = [],
    isIgnored: @escaping @Sendable (String, Bool) -> Bool = { _, _ in false }, start: Bool = true
  ) throws -> (DirectoryWatcher, Recorder) {
    if backend == .inotify && !hasInotify { throw XCTSkip("inotify is Linux only") }
    var options = DirectoryWatchOptions(
      backend: backend, pollInterval: 0.05, watchLimit: watchLimit, isIgnored: isIgnored)
    options.alsoWatch = alsoWatch
    let watcher = try DirectoryWatcher(root: root, options: options)
    watchers.append(watcher)
    let recorder = Recorder()
    if start { watcher.start { recorder.append($0) } }
    return (watcher, recorder)
  }

  /// `relative`'s absolute path.
  func path(_ relative: String) -> String { directory.file(relative).path }

  /// Overwrites an existing file in place (same inode): open, truncate, write, close.
  func writeInPlace(_ relative: String, _ text: String) throws {
    let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path(relative)))
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
  }

  /// Writes with `Data.write` without the atomic option, as an editor writing in place does.
  func write(_ relative: String, _ text: String) throws {
    try Data(text.utf8).write(to: directory.file(relative))
  }

  /// An editor's safe-write: the whole text to a temporary next to the note, then rename(2) onto it.
  func atomicWrite(_ relative: String, _ text: String) throws {
    let temporary = relative + ".tmp~"
    try write(temporary, text)
    try rename(relative: temporary, to: relative)
  }

  func rename(relative from: String, to: String) throws {
    guard Foundation.rename(path(from), path(to)) == 0 else {
      throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno))
    }
  }

  func mkdir(_ relative: String) throws {
    try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
  }

  /// Descriptors open in this process (Linux): a stopped watcher must have given its own back.
  func openDescriptorCount() -> Int? {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count
  }
}

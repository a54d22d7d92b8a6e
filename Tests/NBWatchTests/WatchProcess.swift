import Foundation
import NBTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One line `nb watch --json` printed: its `event` and the whole object.
struct WatchEvent: CustomStringConvertible {
  /// The line as printed.
  var line: String
  /// The decoded object (empty when the line was not JSON).
  var object: [String: Any]

  /// `started`, `saved`, `synced`, `notice` or `stopped` (empty for a line that is not an event).
  var event: String { object["event"] as? String ?? "" }
  /// A notice's kind (`unreadable`, `offline`, `online`, `paused`, `resumed`, `rescan`, `error`).
  var kind: String? { object["kind"] as? String }
  /// A string field.
  func string(_ key: String) -> String? { object[key] as? String }
  /// An integer field.
  func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
  /// A Boolean field.
  func bool(_ key: String) -> Bool? { (object[key] as? NSNumber)?.boolValue }
  /// A list of strings (`added`, `changed`, `removed`, `conflicts` …).
  func strings(_ key: String) -> [String] { object[key] as? [String] ?? [] }
  /// Every path a `saved` event names.
  var savedPaths: [String] { strings("added") + strings("changed") + strings("removed") }

  var description: String { line }
}

/// Why waiting on a watcher failed; carries its output so far.
struct WatchWaitError: Error, CustomStringConvertible {
  var description: String
}

/// A running `nb watch --json` child process. A background thread reads its standard output line by line, so a
/// test can wait (with a deadline, polling every 20 ms) for an event matching a predicate while the watcher keeps
/// running; standard error is collected for messages and failure reports.
final class WatchProcess: @unchecked Sendable {
  /// A name for failure messages (e.g. the device).
  let name: String
  /// The child's process id.
  let pid: Int32
  private let process: Process
  private let lock = NSLock()
  private var lines: [WatchEvent] = []
  private var stderrData = Data()
  private let exited = DispatchSemaphore(value: 0)
  private let readers = DispatchGroup()
  private var exitStatus: Int32?

  /// Starts `binary arguments` with exactly `environment`, in `directory`.
  init(name: String, binary: URL, arguments: [String], environment: [String: String], directory: URL) throws {
    signal(SIGPIPE, SIG_IGN)
    self.name = name
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    process.environment = environment
    process.currentDirectoryURL = directory
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    let exited = self.exited
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    self.process = process
    pid = process.processIdentifier

    readers.enter()
    Thread.detachNewThread { [self] in
      var pending = Data()
      let handle = out.fileHandleForReading
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          let line = pending[pending.startIndex..<newline]
          pending = Data(pending[(newline + 1)...])
          append(line)
        }
      }
      if !pending.isEmpty { append(pending) }
      // Closed by hand: Foundation keeps a pipe of a process with a termination handler open after it exits.
      try? handle.close()
      readers.leave()
    }
    readers.enter()
    Thread.detachNewThread { [self] in
      let data = err.fileHandleForReading.readDataToEndOfFile()
      try? err.fileHandleForReading.close()
      lock.lock()
      stderrData = data
      lock.unlock()
      readers.leave()
    }
  }

  private func append(_ bytes: Data) {
    let text = String(decoding: bytes, as: UTF8.self)
    let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    lock.lock()
    lines.append(WatchEvent(line: text, object: object))
    lock.unlock()
  }

  /// Every line read so far.
  var events: [WatchEvent] {
    lock.lock()
    defer { lock.unlock() }
    return lines
  }

  /// How many lines have been read; pass it as `after:` to wait only for what comes next.
  var mark: Int { events.count }

  /// The events named `event` read so far (at or after index `after`), optionally of one notice kind.
  func all(_ event: String, kind: String? = nil, after: Int = 0) -> [WatchEvent] {
    events.dropFirst(after).filter { $0.event == event && (kind == nil || $0.kind == kind) }
  }

  /// Standard error so far (complete once the process has exited).
  var stderr: String {
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: stderrData, as: UTF8.self)
  }

  /// Whether the process is still running.
  var isRunning: Bool { exitStatus == nil && kill(pid, 0) == 0 && process.isRunning }

  /// Everything it printed, for failure messages.
  var transcript: String {
    "[\(name) pid \(pid)] stdout:\n" + events.map(\.line).joined(separator: "\n") + "\nstderr:\n" + stderr
  }

  /// Waits until an event at index `after` or later satisfies `predicate`, polling every 20 ms; throws (with the
  /// transcript) after `timeout` seconds, or when the process exits first.
  @discardableResult
  func wait(
    for what: String, after: Int = 0, timeout: TimeInterval = 20, _ predicate: (WatchEvent) -> Bool
  ) throws -> WatchEvent {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let hit = events.dropFirst(after).first(where: predicate) { return hit }
      if !process.isRunning {
        // The reader may still hold the last lines.
        readers.wait()
        if let hit = events.dropFirst(after).first(where: predicate) { return hit }
        throw WatchWaitError(description: "nb watch exited before \(what)\n\(transcript)")
      }
      if Date() >= deadline {
        throw WatchWaitError(description: "no \(what) within \(timeout) s\n\(transcript)")
      }
      usleep(20_000)
    }
  }

  /// Waits for the next `saved` event after `after`.
  @discardableResult
  func waitForSave(after: Int, timeout: TimeInterval = 20, _ predicate: (WatchEvent) -> Bool = { _ in true }) throws
    -> WatchEvent
  {
    try wait(for: "a saved event", after: after, timeout: timeout) { $0.event == "saved" && predicate($0) }
  }

  /// Waits for a notice of `kind` after `after`.
  @discardableResult
  func waitForNotice(_ kind: String, after: Int = 0, timeout: TimeInterval = 20) throws -> WatchEvent {
    try wait(for: "a '\(kind)' notice", after: after, timeout: timeout) { $0.event == "notice" && $0.kind == kind }
  }

  /// Sends `signal`.
  func send(_ signal: Int32) {
    kill(pid, signal)
  }

  /// Waits for the process to exit (SIGKILL after `timeout`, then throwing) and its output to be read; returns the
  /// exit status (128 + the signal number when a signal ended it).
  @discardableResult
  func waitForExit(timeout: TimeInterval = 20) throws -> Int32 {
    if let exitStatus { return exitStatus }
    if exited.wait(timeout: .now() + timeout) == .timedOut {
      kill(pid, SIGKILL)
      exited.wait()
      readers.wait()
      exitStatus = 128 + SIGKILL
      throw WatchWaitError(description: "nb watch did not exit within \(timeout) s\n\(transcript)")
    }
    readers.wait()
    let status =
      process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    exitStatus = status
    return status
  }

  /// SIGTERM, then waits for the exit; returns the exit status.
  @discardableResult
  func stop(timeout: TimeInterval = 20) throws -> Int32 {
    if exitStatus == nil { send(SIGTERM) }
    return try waitForExit(timeout: timeout)
  }

  /// SIGKILL, then waits for the exit.
  func kill9() {
    send(SIGKILL)
    _ = try? waitForExit(timeout: 20)
  }
}

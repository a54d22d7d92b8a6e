import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One entry of the write-ahead journal (`.git/nb/journal/log`): what a transaction is about to do to one path,
/// with what is needed to undo it. Stored as one JSON line, followed by `prior` bytes of the file's earlier content.
struct JournalRecord: Codable, Equatable {
  enum Kind: String, Codable {
    /// The first record: who wrote the journal and where HEAD was.
    case begin
    /// A file is about to be written (created or replaced).
    case write
    /// A file is about to be removed.
    case remove
    /// A file or directory is about to be renamed from `path` to `to`.
    case move
    /// A directory is about to be created.
    case directory
    /// Every file change is done and the commit is about to be made.
    case commit
    /// Sync is about to check out commit `to` over `from` (the branch's value, nil in a repository without commits):
    /// git writes the work tree first and moves the branch last, so a crash between the two is undone from the two
    /// commits' trees rather than from recorded bytes.
    case checkout
  }

  var kind: Kind
  var path: String?
  /// A move's new path; a checkout's target commit.
  var to: String?
  /// A checkout's starting commit.
  var from: String?
  /// How many bytes of the file's earlier content follow the line; nil when there was no file.
  var prior: Int?
  /// The size and hash (``Journal/hash(_:)``) of the bytes being written, so a roll-back can tell nb's write from
  /// an edit someone made after the crash.
  var newSize: Int?
  var newHash: String?
  var pid: Int32?
  var time: Double?
  var head: String?
  var command: String?
  var subject: String?
  var paths: [String]?
}

extension JournalRecord {
  /// The record as one line of JSON, byte for byte what `JSONEncoder` with sorted keys and unescaped slashes writes
  /// (absent values left out), without `JSONEncoder`: setting Codable up costs about a millisecond of every
  /// command that changes a file, before its first change.
  func jsonLine() -> [UInt8] {
    var out: [UInt8] = [UInt8(ascii: "{")]
    var first = true
    func key(_ name: String) {
      if !first { out.append(UInt8(ascii: ",")) }
      first = false
      Self.appendString(name, to: &out)
      out.append(UInt8(ascii: ":"))
    }
    func field(_ name: String, _ value: String?) {
      guard let value else { return }
      key(name)
      Self.appendString(value, to: &out)
    }
    func field(_ name: String, number: String?) {
      guard let number else { return }
      key(name)
      out.append(contentsOf: number.utf8)
    }
    // Sorted by key, as `.sortedKeys` orders them.
    field("command", command)
    field("from", from)
    field("head", head)
    field("kind", kind.rawValue)
    field("newHash", newHash)
    field("newSize", number: newSize.map { String($0) })
    field("path", path)
    if let paths {
      key("paths")
      out.append(UInt8(ascii: "["))
      for (index, path) in paths.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        Self.appendString(path, to: &out)
      }
      out.append(UInt8(ascii: "]"))
    }
    field("pid", number: pid.map { String($0) })
    field("prior", number: prior.map { String($0) })
    field("subject", subject)
    field("time", number: time.map(Self.number))
    field("to", to)
    out.append(UInt8(ascii: "}"))
    return out
  }

  /// A JSON string as JSONEncoder escapes it: quote, backslash and the control characters, the short forms where
  /// JSON has them, everything else (slashes, non-ASCII) as its UTF-8 bytes.
  private static func appendString(_ text: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
      case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
      case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
      case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: Array("\\u00".utf8))
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0x0F)])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// A Double as JSONEncoder writes it: the shortest text that reads back as the same value, without a fraction
  /// when it is whole.
  private static func number(_ value: Double) -> String {
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    return text
  }
}

/// A record as read back, with the prior bytes it carries.
struct JournalEntry: Equatable {
  var record: JournalRecord
  var prior: Data?
}

/// The write-ahead journal of a transaction that changes files. A crash (SIGKILL, power loss) between the first
/// file change and the commit would otherwise leave half a command in the work tree for the next `nb save` to
/// commit; the journal says what to put back. Each record is made durable before the change it describes, so a
/// record without its change is harmless (undoing it finds nothing to undo) and no change lacks its record.
final class Journal {
  /// The directory under `.git/nb/` that holds the log while a transaction runs.
  static let directoryName = "journal"

  let directory: String
  let path: String
  private let fd: Int32
  /// The log's length so far: where the next record goes.
  private var size = 0
  /// Where, in the log, the prior bytes of the records the journal was started with begin (nil: none carried).
  private(set) var firstPriorOffsets: [Int?] = []

  static func logPath(in directory: String) -> String { directory + "/log" }

  /// Where a log is written until its first records are durable.
  static func startingPath(in directory: String) -> String { directory + "/log.new" }

  /// Starts a journal: creates the directory and writes the `begin` record together with the transaction's first
  /// records, durably (one flush: on the save path every flush is a visible part of the time).
  init(directory: String, head: String?, first entries: [(JournalRecord, Data?)]) throws {
    self.directory = directory
    path = Self.logPath(in: directory)
    let begin = JournalRecord(
      kind: .begin, pid: getpid(), time: Date().timeIntervalSince1970, head: head,
      command: Self.commandLine())
    // The log appears (by rename) only once its first records are on disk: a log without its `begin` record would
    // look like one that changed nothing.
    let (first, offsets) = try Self.encode([(begin, nil)] + entries)
    try Self.makeDirectory(directory)
    let starting = Self.startingPath(in: directory)
    fd = open(starting, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw AtomicFile.ioError(starting, errno) }
    try write(first)
    firstPriorOffsets = Array(offsets.dropFirst())
    guard rename(starting, path) == 0 else { throw AtomicFile.ioError(path, errno) }
    // The log's directory entry must be durable too, or a power loss could keep the changes and lose the log.
    Self.syncDirectory(directory)
  }

  deinit { close(fd) }

  /// Appends records (each with the prior bytes it carries) in one write, and flushes them to disk before returning.
  /// Returns where each record's prior bytes begin in the log (nil for a record that carries none), so an undo
  /// can read them back from here instead of keeping every file's old bytes in memory.
  @discardableResult
  func append(_ entries: [(JournalRecord, Data?)]) throws -> [Int?] {
    let (buffer, offsets) = try Self.encode(entries)
    let start = size
    try write(buffer)
    return offsets.map { $0.map { start + $0 } }
  }

  /// The `count` bytes at `offset` of the log: prior bytes ``append(_:)`` placed there.
  func prior(at offset: Int, count: Int) -> Data? {
    let reader = open(path, O_RDONLY | O_CLOEXEC)
    guard reader >= 0 else { return nil }
    defer { close(reader) }
    var data = Data(count: count)
    var done = 0
    let ok = data.withUnsafeMutableBytes { buffer -> Bool in
      while done < count {
        let n = pread(reader, buffer.baseAddress! + done, count - done, off_t(offset + done))
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return false }
        done += n
      }
      return true
    }
    return ok ? data : nil
  }

  /// Each record as a JSON line followed by the prior bytes it carries, and where in the buffer each prior begins.
  private static func encode(_ entries: [(JournalRecord, Data?)]) throws -> (Data, [Int?]) {
    var buffer = Data()
    var offsets: [Int?] = []
    for (record, prior) in entries {
      buffer.append(contentsOf: record.jsonLine())
      buffer.append(0x0A)
      offsets.append(prior == nil ? nil : buffer.count)
      if let prior { buffer.append(prior) }
    }
    return (buffer, offsets)
  }

  /// Appends `buffer` and flushes it to disk before returning.
  private func write(_ buffer: Data) throws {
    var failure = AtomicFile.writeAll(buffer, to: fd)
    if failure == 0, fdatasync(fd) != 0 { failure = errno }
    if failure != 0 { throw AtomicFile.ioError(path, failure) }
    size += buffer.count
  }

  /// Removes the journal: the transaction committed, or was undone in process.
  func finish() {
    Self.remove(directory: directory)
  }

  static func remove(directory: String) {
    unlink(logPath(in: directory))
    unlink(startingPath(in: directory))
  }

  /// Makes the journal's directory the first time and keeps it from then on. Its entry is flushed once, when it is
  /// made: a log is only as durable as the directories above it. Made and removed by every transaction, it would
  /// need that flush every time, and removing it frees its block, which on a disk mounted with `discard` waits for
  /// the device.
  private static func makeDirectory(_ directory: String) throws {
    if mkdir(directory, 0o777) != 0 {
      if errno == EEXIST { return }
      try FileSystem.makeDirectory(directory)
    }
    if let parent = FileSystem.parentDirectory(of: directory) { syncDirectory(parent) }
  }

  /// The records of a log, in order. A record cut short by a crash while it was being appended is dropped with
  /// everything after it: its change never started, because each change waits for its record to be on disk.
  static func read(directory: String) -> [JournalEntry] {
    guard let data = try? FileSystem.read(logPath(in: directory)) else { return [] }
    let decoder = JSONDecoder()
    var entries: [JournalEntry] = []
    var offset = data.startIndex
    while offset < data.endIndex {
      guard let newline = data[offset...].firstIndex(of: 0x0A),
        let record = try? decoder.decode(JournalRecord.self, from: data[offset..<newline])
      else { break }
      offset = newline + 1
      var prior: Data?
      if let count = record.prior {
        guard count >= 0, data.endIndex - offset >= count else { break }
        prior = Data(data[offset..<offset + count])
        offset += count
      }
      entries.append(JournalEntry(record: record, prior: prior))
    }
    return entries
  }

  /// ``contentHash(_:)`` in hex, as the journal records it.
  static func hash(_ data: Data) -> String {
    String(contentHash(data), radix: 16)
  }

  /// A 64-bit FNV-1a hash over 8-byte words (then the tail): stable across processes, unlike `Hasher`, and cheap
  /// enough for a 50 MB note.
  static func contentHash(_ data: Data) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    let prime: UInt64 = 0x100_0000_01b3
    data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
      let words = bytes.count / 8
      for i in 0..<words {
        h = (h ^ bytes.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* prime
      }
      for i in (words * 8)..<bytes.count { h = (h ^ UInt64(bytes[i])) &* prime }
    }
    return h
  }

  /// The command being run, for the message that names an interrupted operation.
  private static func commandLine() -> String {
    let arguments = CommandLine.arguments
    guard let program = arguments.first else { return "" }
    return joinedWithoutLookup([(program as NSString).lastPathComponent] + arguments.dropFirst(), separator: " ")
  }

  private static func syncDirectory(_ path: String) {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = fsync(fd)
    close(fd)
  }
}

extension NoteRepository {
  /// `.git/nb/journal`: made by the first transaction and kept; its `log` is present only while a transaction runs,
  /// or after one was interrupted.
  var journalDirectory: String { gitDirectory.appendingPathComponent("nb/" + Journal.directoryName).path }

  /// The interrupted operation a journal describes, for `nb status`; nil when there is none.
  func interruptedOperation() -> String? {
    let entries = Journal.read(directory: journalDirectory)
    guard let begin = entries.first?.record, begin.kind == .begin else { return nil }
    return Self.describe(begin)
  }

  private static func describe(_ begin: JournalRecord) -> String {
    var words = "'\(begin.command?.isEmpty == false ? begin.command! : "nb")'"
    if let pid = begin.pid { words += " (pid \(pid)" }
    if let time = begin.time {
      let formatter = ISO8601DateFormatter()
      words += (begin.pid == nil ? " (" : ", ") + "started \(formatter.string(from: Date(timeIntervalSince1970: time)))"
    }
    if begin.pid != nil || begin.time != nil { words += ")" }
    return words
  }

  /// Finishes or undoes a transaction a crash interrupted, before anything else runs under the lock. The commit
  /// had landed when the journal reached its `commit` record and HEAD has moved since it began: then only the
  /// journal is left to remove. Otherwise every recorded change is undone, newest first, so the work tree is as the
  /// command found it. An undo never discards bytes: a file changed again after the crash (neither what nb wrote
  /// nor what was there) is left as it is, and its earlier content is kept under `.git/nb/recovered/`.
  ///
  /// Returns what happened, for a notice; nil when there was no journal.
  func recoverInterruptedTransaction() throws -> String? {
    let directory = journalDirectory
    guard FileSystem.exists(Journal.logPath(in: directory)) else {
      // A journal killed before its log was in place changed nothing: only its start is left to clear.
      unlink(Journal.startingPath(in: directory))
      return nil
    }
    let entries = Journal.read(directory: directory)
    guard let begin = entries.first?.record, begin.kind == .begin else {
      // The begin record is written before any change, so a log without one changed nothing.
      Journal.remove(directory: directory)
      return nil
    }
    let description = Self.describe(begin)
    // Before anything that writes the index: a lock the killed process left would refuse it.
    var lockNote = ""
    if let time = begin.time,
      let removed = try? git.removeLocksAKilledCommandLeft(since: Date(timeIntervalSince1970: time)), !removed.isEmpty
    {
      lockNote = "; removed the lock it left (\(removed.joined(separator: ", ")))"
    }
    if let checkout = entries.first(where: { $0.record.kind == .checkout })?.record {
      return try recoverInterruptedCheckout(checkout, begin: begin, description: description) + lockNote
    }
    let commit = entries.last { $0.record.kind == .commit }?.record
    let head = try git.headID()
    if commit != nil, head != begin.head {
      Journal.remove(directory: directory)
      return "nb: an interrupted \(description) had committed; only its journal was left to remove" + lockNote
    }
    var restored = 0
    var recovered = RecoveredFiles(gitDirectory: gitDirectory, begin: begin)
    func put(_ path: String, _ prior: Data?) throws {
      let full = absolute(path)
      if let prior {
        try RecoveredFiles.write(prior, to: full)
      } else {
        try FileSystem.remove(full)
      }
      restored += 1
    }
    for entry in entries.dropFirst().reversed() {
      let record = entry.record
      guard let path = record.path else { continue }
      let full = absolute(path)
      switch record.kind {
      case .write:
        let current = try? FileSystem.read(full)
        if current == entry.prior { continue }
        if let current, current.count == record.newSize, Journal.hash(current) == record.newHash {
          try put(path, entry.prior)
        } else if let prior = entry.prior {
          recovered.keep(path, prior)
        }
      case .remove:
        guard let prior = entry.prior else { continue }
        if let current = try? FileSystem.read(full) {
          if current != prior { recovered.keep(path, prior) }
        } else if !FileSystem.exists(full) {
          try put(path, prior)
        }
      case .move:
        guard let to = record.to else { continue }
        let target = absolute(to)
        if FileSystem.exists(target), !FileSystem.exists(full) {
          try FileSystem.makeDirectory(containing: full)
          try FileSystem.move(target, full)
          restored += 1
        }
      case .directory:
        // Only an empty directory goes: anything put there since the crash stays.
        _ = rmdir(full)
      case .begin, .commit, .checkout:
        continue
      }
    }
    // A commit stopped after writing the index but before moving the branch left the new entries staged.
    if let paths = commit?.paths { try git.resetIndex(paths: paths) }
    removeTemporaryFiles(of: begin.pid, near: entries.compactMap(\.record.path))
    Journal.remove(directory: directory)
    return
      "nb: rolled back an interrupted \(description): \(restored) file\(restored == 1 ? "" : "s") put back as they were, nothing of it was committed"
      + recovered.summary + lockNote
  }

  /// Deletes the partial temporary files (``AtomicFile``) the killed process `pid` left beside the paths it wrote.
  private func removeTemporaryFiles(of pid: Int32?, near paths: [String]) {
    guard let pid else { return }
    let marker = ".nb-\(pid)-"
    for directory in Set(paths.map { (absolute($0) as NSString).deletingLastPathComponent }) {
      for entry in FileSystem.entries(of: directory) where !entry.isDirectory {
        if AtomicFile.isTemporary(entry.name), entry.name.contains(marker) {
          try? FileSystem.remove(directory + "/" + entry.name)
        }
      }
    }
  }
}

/// Where a roll-back keeps the earlier content of files changed again after the crash (`.git/nb/recovered/<time>/`),
/// so undoing a command never discards bytes someone wrote since.
struct RecoveredFiles {
  let directory: String
  private(set) var kept: [String] = []

  init(gitDirectory: URL, begin: JournalRecord) {
    directory =
      gitDirectory.appendingPathComponent(
        "nb/recovered/\(Int(begin.time ?? Date().timeIntervalSince1970))"
      ).path
  }

  /// Keeps `data`, the earlier content of `path`, under the recovered directory (best effort).
  mutating func keep(_ path: String, _ data: Data) {
    if (try? Self.write(data, to: directory + "/" + path)) != nil { kept.append(path) }
  }

  /// The tail of the roll-back's message naming what was kept; empty when nothing was.
  var summary: String {
    guard !kept.isEmpty else { return "" }
    return "; \(kept.count) changed since (\(kept.prefix(3).joined(separator: ", "))) left as they are, their "
      + "earlier content kept in \(directory)"
  }

  /// Writes a file atomically, making its parent directories first.
  static func write(_ data: Data, to full: String) throws {
    try FileSystem.makeDirectory(containing: full)
    try AtomicFile.write(data, to: URL(fileURLWithPath: full))
  }
}

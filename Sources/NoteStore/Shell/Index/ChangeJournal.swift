import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The paths a running watcher saw change, under `.git/nb/watch/` (device-local, derived, safe to delete), so that
/// while a watcher runs a query checks only those paths instead of walking the whole work tree (which costs a
/// quarter of a second at 100 000 notes).
///
/// - `owner`: the watcher holds it with `flock(LOCK_EX)` for as long as it runs (it also holds its pid, for people).
///   The kernel drops the lock when the process dies, even on `kill -9`, so a reader that can take `LOCK_SH` knows
///   nobody is recording and walks: a journal without a live owner says nothing about what changed since.
/// - `changes`: a header line `nb-watch 1 <session>` (format version, 32 random hex digits), then one line per
///   record: `f <path>` (a file was created, written, removed or renamed from or to the path), `d <path>` (the same
///   for a directory: everything under it may have changed), `rescan` (the watcher lost events: everything may
///   have), `ack <name>` (the answer to a reader's request, below). Paths are relative to the work tree's root,
///   `/`-separated, with `%`, line feed and carriage return written `%25`, `%0A`, `%0D`. Each owner starts a new
///   session (a new file, renamed into place), and so does the owner when the file passes 4 MiB: a reader keeps
///   the session and byte offset it has taken into account (the index's `watch` meta row) and walks once whenever
///   the session is not the one it knows.
/// - `requests/`: where readers ask the watcher to catch up. The watcher reads its events some time after they
///   happen, so an edit saved just before a query might not be recorded yet. A reader creates a file there and
///   waits for the `ack <name>` line: the watcher watches this directory with the same inotify instance as the
///   tree, whose queue keeps the order events happened in, so by the time it answers it has recorded every edit
///   made before the request. A watcher that does not answer within 100 ms costs that query a walk, and the next
///   queries walk without asking until the answer shows up.
///
/// What to record: every path the tree's watches report (`IN_MODIFY`, `IN_CLOSE_WRITE`, `IN_ATTRIB`, `IN_CREATE`,
/// `IN_DELETE`, `IN_MOVED_FROM`, `IN_MOVED_TO`; a directory's own events as a directory), and a rescan on
/// `IN_Q_OVERFLOW`. Paths in hidden directories are ignored by readers.
///
/// Nothing here is needed for correctness: the journal is a hint, and any doubt (no live owner, another session,
/// a `rescan`, a line that cannot be read, a missing file) means the reader walks the whole tree as it does
/// without a watcher. Lines are appended with one `write()` per call and never synced: a crash loses nothing,
/// because the owner's death ends the session.
public final class ChangeJournal: @unchecked Sendable {
  static let formatVersion = 1
  static let magic = "nb-watch"
  /// Past this size the owner starts a new session, so a journal never grows without bound.
  static let rotationBytes = 4 << 20
  /// How long a reader waits for the watcher's answer before it walks instead.
  static let answerTimeout: TimeInterval = 0.1

  /// `.git/nb/watch`.
  let directory: String
  var ownerPath: String { directory + "/owner" }
  var changesPath: String { directory + "/changes" }

  /// The directory readers create their requests in. The watcher watches it (`IN_CREATE`) with the inotify
  /// instance that watches the tree, and calls ``acknowledge(request:)`` with each new file's name, in the order
  /// its events arrive (it is the one directory under `.git` to watch: the journal's own writes must not be
  /// events). If someone deletes `.git/nb/watch`, recording stops (readers walk) until the watcher starts again. A query made in the watcher's own process waits for this answer
  /// too: answer on a thread that never waits for a query.
  public var requestDirectory: String { directory + "/requests" }

  /// The request directory of `repository`'s journal (see ``requestDirectory``), known before the journal is
  /// opened: a watcher sets up its watches, this one among them, first.
  public static func requestDirectory(of repository: NoteRepository) -> String {
    directory(gitDirectory: repository.gitDirectory) + "/requests"
  }

  /// Guards everything below: a watcher may record from one thread and answer from another.
  private let lock = NSLock()
  private var owner: Int32
  private var changes: Int32 = -1
  private var size = 0
  /// The current session's id.
  private(set) var session = ""
  /// False once the journal was closed or stopped recording (another process took it over, a write failed).
  private var active = true

  private init(directory: String, owner: Int32) {
    self.directory = directory
    self.owner = owner
  }

  deinit { close() }

  /// The journal directory of a repository whose git directory is `gitDirectory`.
  static func directory(gitDirectory: URL) -> String { gitDirectory.appendingPathComponent("nb/watch").path }

  // MARK: - Writing

  /// Takes ownership of the repository's change journal for this process's lifetime and starts a new session (a
  /// fresh file with a new session id). Returns nil when another live process owns it (a second watcher on the
  /// same repository runs without one). The caller must have set up its file watches BEFORE calling this, so
  /// every edit after the session starts is either recorded or happened before the session header (and is then
  /// found by the reader's one full walk).
  public static func open(repository: NoteRepository) throws -> ChangeJournal? {
    let directory = Self.directory(gitDirectory: repository.gitDirectory)
    let journal = ChangeJournal(directory: directory, owner: -1)
    try FileSystem.makeDirectory(journal.requestDirectory)
    guard let owner = try takeOwnership(journal.ownerPath) else { return nil }
    journal.lock.lock()
    defer { journal.lock.unlock() }
    journal.owner = owner
    // Requests left by readers of an earlier session: nobody will answer them.
    for entry in FileSystem.entries(of: journal.requestDirectory) {
      unlink(journal.requestDirectory + "/" + entry.name)
    }
    try journal.startSession()
    return journal
  }

  /// Appends changed paths (relative to the root, "/"-separated). A directory (created, removed, renamed) is
  /// recorded with isDirectory: true: readers re-check everything under it. Record a new directory only after its
  /// watch is in place, so that an edit under it is either seen by the walk of a reader that takes this record
  /// into account or recorded itself. Cheap: one write() per call, no fsync (it is derived data; a crash loses
  /// nothing because the owner's death ends the session). A path with an empty, `.` or `..` component is recorded
  /// as a rescan; so is the root itself as a directory (an empty path).
  public func record(_ changes: [(path: String, isDirectory: Bool)]) {
    var text = ""
    for change in changes {
      var path = Substring(change.path)
      while path.hasPrefix("/") { path = path.dropFirst() }
      while path.hasSuffix("/") { path = path.dropLast() }
      if path.isEmpty {
        if change.isDirectory { text += "rescan\n" }
        continue
      }
      if path.split(separator: "/", omittingEmptySubsequences: false).contains(where: {
        $0.isEmpty || $0 == "." || $0 == ".."
      }) {
        text += "rescan\n"
        continue
      }
      text += (change.isDirectory ? "d " : "f ") + Self.escape(path) + "\n"
    }
    append(text)
  }

  /// The watcher lost events (inotify queue overflow): readers walk the whole tree once more.
  public func recordRescan() {
    append("rescan\n")
  }

  /// Answers a reader's request (a file named `name` that appeared in ``requestDirectory``): call it after
  /// recording every change whose event arrived before the request's, and delete nothing else. Removes the file.
  public func acknowledge(request name: String) {
    guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return }
    append("ack " + Self.escape(Substring(name)) + "\n")
    unlink(requestDirectory + "/" + name)
  }

  /// Ends ownership (deinit does too). The journal file goes with it; readers walk from then on.
  public func close() {
    lock.lock()
    defer { lock.unlock() }
    if active, changes >= 0, Self.identity(path: changesPath) == Self.identity(fd: changes) { unlink(changesPath) }
    release()
  }

  /// Closes the files without removing anything, as the kernel does when the owner dies (for tests).
  func abandon() {
    lock.lock()
    defer { lock.unlock() }
    release()
  }

  private func release() {
    if changes >= 0 { closeFile(changes) }
    if owner >= 0 { closeFile(owner) }
    changes = -1
    owner = -1
    active = false
  }

  /// Opens (creating) the owner file and takes its lock; nil when another process holds it. Waits a moment first:
  /// a reader checking whether the journal has an owner holds a shared lock for a few microseconds.
  private static func takeOwnership(_ path: String) throws -> Int32? {
    let deadline = Date().addingTimeInterval(0.25)
    while true {
      let fd = openFile(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
      guard fd >= 0 else { throw AtomicFile.ioError(path, errno) }
      var locked = false
      while true {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
          locked = true
          break
        }
        if errno == EINTR { continue }
        guard errno == EWOULDBLOCK, Date() < deadline else { break }
        usleep(2_000)
      }
      guard locked else {
        let failure = errno
        closeFile(fd)
        if failure == EWOULDBLOCK { return nil }
        throw AtomicFile.ioError(path, failure)
      }
      // The file may have been removed or replaced between the open and the lock: a lock on it would bind no one.
      guard identity(path: path) == identity(fd: fd) else {
        closeFile(fd)
        if Date() < deadline { continue }
        return nil
      }
      FileSystem.writeLockHolder(fd)
      return fd
    }
  }

  /// Writes a new file holding only a header with a new session id and renames it into place: a reader that has
  /// the old file open keeps reading it whole, and then finds another session.
  private func startSession() throws {
    var random = SystemRandomNumberGenerator()
    let id = (0..<4).map { _ in String(format: "%08x", random.next() as UInt32) }.joined()
    let temporary = directory + "/changes.\(getpid()).tmp"
    let fd = openFile(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw AtomicFile.ioError(temporary, errno) }
    let header = "\(Self.magic) \(Self.formatVersion) \(id)\n"
    var failure = Self.writeAll(fd, header)
    if failure == 0, rename(temporary, changesPath) != 0 { failure = errno }
    guard failure == 0 else {
      closeFile(fd)
      unlink(temporary)
      throw AtomicFile.ioError(changesPath, failure)
    }
    if changes >= 0 { closeFile(changes) }
    changes = fd
    size = header.utf8.count
    session = id
  }

  private func append(_ text: String) {
    lock.lock()
    defer { lock.unlock() }
    guard active, ensureInPlace(), !text.isEmpty else { return }
    if Self.writeAll(changes, text) != 0 {
      // A record that did not make it means readers must not trust the journal: remove it and give up ownership,
      // so every reader walks.
      if Self.identity(path: changesPath) == Self.identity(fd: changes) { unlink(changesPath) }
      release()
      return
    }
    size += text.utf8.count
    if size >= Self.rotationBytes, (try? startSession()) == nil { stop() }
  }

  /// Makes sure the owner file and the journal on disk are still this process's. The journal file alone deleted:
  /// a new session starts beside the owner file. The owner file or the directory deleted: recording stops for good
  /// (readers walk), because making `.git/nb/watch` again could fight someone deleting the whole repository.
  private func ensureInPlace() -> Bool {
    if Self.identity(path: ownerPath) != Self.identity(fd: owner) {
      stop()
      return false
    }
    if Self.identity(path: changesPath) != Self.identity(fd: changes) {
      guard (try? startSession()) != nil else {
        stop()
        return false
      }
    }
    return true
  }

  /// Stops recording for good, leaving the files on disk alone (they may be another owner's by now).
  private func stop() {
    release()
  }

  /// Writes all of `text`, retrying short writes; 0 or the errno of the failure.
  private static func writeAll(_ fd: Int32, _ text: String) -> Int32 {
    AtomicFile.writeAll(Data(text.utf8), to: fd)
  }

  static func escape(_ path: Substring) -> String {
    guard path.contains(where: { $0 == "%" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
      return String(path)
    }
    var escaped = ""
    for scalar in path.unicodeScalars {
      switch scalar {
      case "%": escaped += "%25"
      case "\n": escaped += "%0A"
      case "\r": escaped += "%0D"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }

  // MARK: - Identity of files

  /// Device and inode: what tells whether a path still names the file a descriptor has open.
  struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
  }

  static func identity(path: String) -> FileIdentity? {
    var s = stat()
    guard stat(path, &s) == 0 else { return nil }
    return FileIdentity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino))
  }

  static func identity(fd: Int32) -> FileIdentity? {
    var s = stat()
    guard fd >= 0, fstat(fd, &s) == 0 else { return nil }
    return FileIdentity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino))
  }
}

// MARK: - Reading

extension ChangeJournal {
  /// How far a reader has taken the journal into account: the session and the byte offset of the first record it
  /// has not (stored in the index's meta table as `<session> <offset>`).
  struct Cursor: Equatable {
    var session: String
    var offset: Int

    init(session: String, offset: Int) {
      (self.session, self.offset) = (session, offset)
    }

    init?(_ text: String) {
      let parts = text.split(separator: " ")
      guard parts.count == 2, let offset = Int(parts[1]), offset > 0 else { return nil }
      (session, self.offset) = (String(parts[0]), offset)
    }

    var text: String { "\(session) \(offset)" }
  }

  /// What a reader must check to bring its rows up to date.
  enum Changes: Equatable {
    /// Everything: walk the whole tree.
    case everything
    /// The recorded file paths and directories (relative, neither empty).
    case paths(files: Set<String>, directories: Set<String>)
  }

  /// The outcome of a look at the journal.
  struct Look: Equatable {
    var changes: Changes
    /// What to store once the rows are up to date; nil when there is no live owner (nothing to store).
    var cursor: Cursor?
    /// A request the watcher has not answered yet, to store with the cursor: until its answer shows up, readers
    /// walk without waiting for another.
    var unanswered: String?
  }

  /// One line of the journal after its header.
  enum Record: Equatable {
    case file(String)
    case directory(String)
    case rescan
    case ack(String)
  }

  /// Reads the journal of the repository whose git directory is `gitDirectory` from `cursor` on. Asks the watcher
  /// to catch up (a request, then its answer) when the records can replace the walk. Any doubt is `.everything`.
  static func look(
    gitDirectory: URL, cursor: Cursor?, unanswered: String?, timeout: TimeInterval = answerTimeout
  ) -> Look {
    let directory = Self.directory(gitDirectory: gitDirectory)
    let walk = Look(changes: .everything, cursor: nil, unanswered: nil)
    guard ownerIsLive(directory + "/owner"), let file = JournalFile(path: directory + "/changes") else { return walk }
    defer { closeFile(file.fd) }
    // Taken before anything is read or walked: every record before it is of an edit made before the walk, and
    // every later one will be read by the next look.
    func walkFrom(_ offset: Int?, unanswered: String? = nil) -> Look {
      guard let offset = offset ?? file.completeEnd() else { return walk }
      return Look(changes: .everything, cursor: Cursor(session: file.session, offset: offset), unanswered: unanswered)
    }
    guard let cursor, cursor.session == file.session else { return walkFrom(nil) }
    guard let first = file.records(from: cursor.offset) else { return walkFrom(nil) }
    var (records, end) = (first.records, first.end)
    if let unanswered, !records.contains(.ack(unanswered)) {
      // The watcher has not answered the last request yet: asking again would only cost another wait.
      return walkFrom(end, unanswered: unanswered)
    }
    var random = SystemRandomNumberGenerator()
    let name = "\(getpid())-" + String(format: "%08x", random.next() as UInt32)
    let request = directory + "/requests/" + name
    let fd = openFile(request, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return walkFrom(end) }
    closeFile(fd)
    let deadline = Date().addingTimeInterval(timeout)
    var answered = false
    while !answered, Date() < deadline {
      // A new session (the file grew past its limit, or the watcher restarted) answers in another file.
      guard ChangeJournal.identity(path: directory + "/changes") == ChangeJournal.identity(fd: file.fd) else {
        unlink(request)
        return walk
      }
      usleep(100)
      guard let more = file.records(from: end) else {
        unlink(request)
        return walkFrom(nil)
      }
      records += more.records
      end = more.end
      answered = more.records.contains(.ack(name))
    }
    // Left in place when unanswered: the watcher removes it when it answers at last.
    guard answered else { return walkFrom(end, unanswered: name) }
    unlink(request)
    var files = Set<String>()
    var directories = Set<String>()
    for record in records {
      switch record {
      case .file(let path): files.insert(path)
      case .directory(let path): directories.insert(path)
      case .rescan: return walkFrom(end)
      case .ack: continue
      }
    }
    return Look(
      changes: .paths(files: files, directories: directories), cursor: Cursor(session: file.session, offset: end),
      unanswered: nil)
  }

  /// Whether a live process holds the owner file's lock (a shared lock cannot be taken).
  static func ownerIsLive(_ path: String) -> Bool {
    let fd = openFile(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { closeFile(fd) }
    while true {
      if flock(fd, LOCK_SH | LOCK_NB) == 0 {
        flock(fd, LOCK_UN)
        return false
      }
      if errno == EINTR { continue }
      return errno == EWOULDBLOCK
    }
  }

  /// An open journal file whose header was read.
  struct JournalFile {
    let fd: Int32
    let session: String
    /// Bytes of the header line, newline included: where the first record starts.
    let headerLength: Int

    /// nil when the file is missing or its header is not one this version writes.
    init?(path: String) {
      let fd = openFile(path, O_RDONLY | O_CLOEXEC)
      guard fd >= 0 else { return nil }
      var buffer = [UInt8](repeating: 0, count: 128)
      let n = pread(fd, &buffer, buffer.count, 0)
      let header = n > 0 ? buffer[0..<n].firstIndex(of: 0x0A).map { buffer[0..<$0] } : nil
      let fields = header.map {
        String(decoding: $0, as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
      }
      guard let fields, fields.count == 3, fields[0] == ChangeJournal.magic,
        fields[1] == "\(ChangeJournal.formatVersion)", fields[2].count == 32,
        fields[2].allSatisfy({ $0.isHexDigit && !$0.isUppercase })
      else {
        closeFile(fd)
        return nil
      }
      self.fd = fd
      session = String(fields[2])
      headerLength = header!.count + 1
    }

    /// The offset just past the last complete line (a line being written has no newline yet).
    func completeEnd() -> Int? {
      var s = stat()
      guard fstat(fd, &s) == 0 else { return nil }
      var end = Int(s.st_size)
      var buffer = [UInt8](repeating: 0, count: 16_384)
      while end > headerLength {
        let start = max(headerLength - 1, end - buffer.count)
        let n = pread(fd, &buffer, end - start, off_t(start))
        guard n == end - start else { return nil }
        if let last = buffer[0..<n].lastIndex(of: 0x0A) { return start + last + 1 }
        end = start
      }
      return headerLength
    }

    /// The complete records from `offset` on, and the offset past the last one; nil when `offset` is not the start
    /// of a line of this file or a line cannot be read (the journal is then no use).
    func records(from offset: Int) -> (records: [Record], end: Int)? {
      var s = stat()
      guard offset >= headerLength, fstat(fd, &s) == 0, Int(s.st_size) >= offset else { return nil }
      // From the byte before: it must end a line.
      let count = Int(s.st_size) - offset + 1
      var bytes = [UInt8](repeating: 0, count: count)
      var filled = 0
      while filled < count {
        let n = bytes.withUnsafeMutableBytes {
          pread(fd, $0.baseAddress! + filled, count - filled, off_t(offset - 1 + filled))
        }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { break }
        filled += n
      }
      guard filled > 0, bytes[0] == 0x0A else { return nil }
      guard let last = bytes[0..<filled].lastIndex(of: 0x0A) else { return nil }
      var records: [Record] = []
      for line in bytes[1..<last + 1].split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
        guard let record = ChangeJournal.parse(line) else { return nil }
        records.append(record)
      }
      return (records, offset - 1 + last + 1)
    }
  }

  /// One record line (without its newline); nil when it is not one this version writes.
  static func parse(_ line: ArraySlice<UInt8>) -> Record? {
    if line.elementsEqual("rescan".utf8) { return .rescan }
    func value(after prefix: String) -> String? {
      guard line.starts(with: prefix.utf8) else { return nil }
      return unescape(line.dropFirst(prefix.utf8.count))
    }
    if let path = value(after: "f "), isRelativePath(path) { return .file(path) }
    if let path = value(after: "d "), isRelativePath(path) { return .directory(path) }
    if let name = value(after: "ack "), !name.isEmpty { return .ack(name) }
    return nil
  }

  /// Undoes ``escape(_:)``; nil for any other `%` sequence or bytes that are not UTF-8.
  static func unescape(_ bytes: ArraySlice<UInt8>) -> String? {
    guard bytes.contains(0x25) else { return String(bytes: bytes, encoding: .utf8) }
    var result: [UInt8] = []
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      guard byte == 0x25 else {
        result.append(byte)
        index += 1
        continue
      }
      guard index + 2 < bytes.endIndex else { return nil }
      switch String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self) {
      case "25": result.append(0x25)
      case "0A": result.append(0x0A)
      case "0D": result.append(0x0D)
      default: return nil
      }
      index += 3
    }
    return String(bytes: result, encoding: .utf8)
  }

  /// A path the writer records: relative, with no empty, `.` or `..` component.
  static func isRelativePath(_ path: String) -> Bool {
    !path.isEmpty
      && !path.split(separator: "/", omittingEmptySubsequences: false).contains {
        $0.isEmpty || $0 == "." || $0 == ".."
      }
  }
}

// The class's own `open` and `close` hide the system calls' names inside it.
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
  open(path, flags, mode)
}

private func closeFile(_ fd: Int32) {
  _ = close(fd)
}

import Foundation

/// What `nb status` needs from the notes' contents — each note's `id` and the warning reading it gives (broken
/// front matter, not UTF-8) — for the notes of one commit, kept under `.git/nb/cache/summary-v2/` (device-local,
/// never committed).
///
/// A note's contents are those of its blob, so a summary is valid for exactly one tree: it is keyed by the commit
/// whose tree the index holds, and brought forward from the previous commit by reading only the blobs of the notes
/// that changed between the two. `status` reads, beside it, only the notes the work tree changed: a clean status
/// of 100 000 notes reads one small file (`warnings`: the warnings and the duplicate ids, computed once per
/// commit) instead of every notebook's listing cache.
///
/// A change never loads every note: the warnings are kept with the path or id they belong to, so the warnings of a
/// few changed notes replace theirs, and only an id one of them had or has is looked for in the other notes' lines
/// (one pass over the `notes` file's bytes, no string per note). At 100 000 notes a status after `nb add` loaded a
/// dictionary of every note and derived every warning again: 0.8 s and 108 MiB.
///
/// The notes are those a listing walks: `.md` files git tracks as regular files, with no hidden path component,
/// outside attachment folders (format 2).
enum NoteSummary {
  /// One note's facts.
  struct Facts: Equatable {
    var id: String?
    var warning: String?
  }

  /// A note's new facts, or nil when the path is no longer a note.
  struct Change: Equatable {
    var path: String
    var facts: Facts?
  }

  /// A note's own warning.
  struct NoteWarning: Equatable {
    var path: String
    var text: String
  }

  /// An id (lower-cased) that two or more notes share, and the warning naming them.
  struct SharedID: Equatable {
    var id: String
    var text: String
  }

  /// The warnings `status` prints for a summary's notes: each note's own, in path order, then each id two or more
  /// notes share, in id order.
  struct Warnings: Equatable {
    var notes: [NoteWarning] = []
    var duplicates: [SharedID] = []

    var texts: (notes: [String], duplicates: [String]) { (notes.map(\.text), duplicates.map(\.text)) }
  }

  static let magic = "nb-note-summary 2"

  // MARK: The derived warnings

  /// The warnings of `notes`, every one derived.
  static func warnings(_ notes: [String: Facts]) -> Warnings { warnings(notes.lazy.map { ($0.key, $0.value) }) }

  /// The warnings of `notes` (path and facts; each path once), every one derived.
  static func warnings(_ notes: some Sequence<(String, Facts)>) -> Warnings {
    var own: [NoteWarning] = []
    // An array per id would be a hundred thousand allocations for a hundred thousand notes: only an id seen a second
    // time gets one.
    var firstPath: [String: String] = [:]
    firstPath.reserveCapacity(notes.underestimatedCount)
    var shared: [String: [String]] = [:]
    for (path, facts) in notes {
      if let warning = facts.warning { own.append(NoteWarning(path: path, text: warning)) }
      guard let id = facts.id else { continue }
      let key = idKey(id)
      if let first = firstPath.updateValue(path, forKey: key) {
        firstPath[key] = first
        shared[key, default: [first]].append(path)
      }
    }
    return Warnings(
      notes: own.sorted { $0.path < $1.path },
      duplicates: shared.map { SharedID(id: $0.key, text: duplicateText($0.key, $0.value)) }.sorted { $0.id < $1.id })
  }

  /// The warnings of `file`'s notes (whose warnings are `base`) with `changes` made: only the changed notes' own
  /// warnings and the ids they had or have are derived again.
  static func warnings(_ base: Warnings, in file: NotesFile, changing changes: [Change]) -> Warnings {
    let changed = Set(changes.map(\.path))
    var own = base.notes.filter { !changed.contains($0.path) }
    for change in changes {
      if let warning = change.facts?.warning { own.append(NoteWarning(path: change.path, text: warning)) }
    }
    own.sort { $0.path < $1.path }
    var keys: Set<String> = []
    for change in changes {
      if let old = file.facts(of: change.path)?.id { keys.insert(idKey(old)) }
      if let new = change.facts?.id { keys.insert(idKey(new)) }
    }
    guard !keys.isEmpty else { return Warnings(notes: own, duplicates: base.duplicates) }
    var holders = file.paths(withIDKeys: keys, excluding: changed)
    for change in changes {
      if let id = change.facts?.id { holders[idKey(id), default: []].append(change.path) }
    }
    var duplicates = base.duplicates.filter { !keys.contains($0.id) }
    for (id, paths) in holders where paths.count > 1 {
      duplicates.append(SharedID(id: id, text: duplicateText(id, paths)))
    }
    duplicates.sort { $0.id < $1.id }
    return Warnings(notes: own, duplicates: duplicates)
  }

  private static func duplicateText(_ id: String, _ paths: [String]) -> String {
    "\(paths.sorted().joined(separator: " and ")) share the id \(id); remove the id line from all but one and run "
      + "'nb save'"
  }

  /// The key two ids share when they are the same id: `id.lowercased()`, without a new string for an id that has no
  /// upper-case letter (nb's ids never do).
  static func idKey(_ id: String) -> String {
    id.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) ? id : id.lowercased()
  }

  // MARK: Reading notes

  /// The facts of a note whose bytes are `data`, exactly as a listing reads them (``NoteScanner/readNote``): the
  /// first ``NoteScanner/headBytes`` unless the front matter runs past them.
  static func facts(path: String, data: Data) -> Facts {
    var bytes = data.prefix(NoteScanner.headBytes)
    if bytes.count == NoteScanner.headBytes, NoteScanner.needsWholeFile(head: Data(bytes)) { bytes = data[...] }
    guard let text = NoteScanner.decodeUTF8Prefix(Data(bytes), truncated: bytes.count == NoteScanner.headBytes) else {
      return Facts(id: nil, warning: NoteStoreError.notUTF8(path: path).description)
    }
    let note = NoteScanner.note(path: path, text: text)
    return Facts(id: note.id, warning: note.warning)
  }

  /// Whether `path` names a note, with `isNote(p)` saying whether a `.md` file is at `p` (for the attachment rule).
  static func isNote(_ path: String, attachmentFolders: Bool, isNote: (String) -> Bool) -> Bool {
    guard RepoPaths.isNotePath(path), !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else {
      return false
    }
    return !attachmentFolders || !RepoPaths.isInsideAttachmentFolder(path, isNote: isNote)
  }
}

/// The notes of a summary as the `notes` file holds them: a line per note, `path⇥id⇥warning` (each escaped as a
/// listing cache escapes), in path order. Looked up by binary search and scanned as bytes, never loaded into a
/// dictionary.
struct NotesFile {
  /// The file's bytes; the lines start at `bodyStart` (after the first line, in a file as read).
  private let bytes: [UInt8]
  private let bodyStart: Int
  /// Where each line starts in `bytes`.
  private let starts: [Int]

  /// The lines, without the file's first line.
  var body: ArraySlice<UInt8> { bytes[bodyStart...] }

  /// nil when a line is not three fields.
  init?(body: [UInt8]) { self.init(bytes: body, bodyStart: 0) }

  /// The lines from `bodyStart` of `bytes` (a file as read, kept whole: a copy without its first line would be
  /// another 7 MiB at 100 000 notes); nil when one is not three fields.
  init?(bytes: [UInt8], bodyStart: Int) {
    var starts: [Int] = []
    let valid = bytes.withUnsafeBufferPointer { buffer -> Bool in
      var position = bodyStart
      while position < buffer.count {
        guard let newline = Self.find(0x0A, in: buffer, from: position, to: buffer.count),
          let tab = Self.find(0x09, in: buffer, from: position, to: newline),
          Self.find(0x09, in: buffer, from: tab + 1, to: newline) != nil
        else { return false }
        starts.append(position)
        position = newline + 1
      }
      return true
    }
    guard valid else { return nil }
    self.bytes = bytes
    self.bodyStart = bodyStart
    self.starts = starts
  }

  /// The file for `notes`.
  init(_ notes: [String: NoteSummary.Facts]) {
    self.init(sorted: notes.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 })
  }

  /// The file for `notes`, in path order.
  init(sorted notes: [(String, NoteSummary.Facts)]) {
    var body: [UInt8] = []
    // Each line's bytes go straight into the file's: a string of them all, then its bytes, was 16 MiB at 100 000.
    body.reserveCapacity(notes.count * 96)
    for (path, facts) in notes { body.append(contentsOf: Self.line(path, facts).utf8) }
    // Made from well-formed lines, so it parses.
    self.init(body: body)!
  }

  var count: Int { starts.count }

  private static func line(_ path: String, _ facts: NoteSummary.Facts) -> String {
    CacheShard.escape(path) + "\t" + CacheShard.escape(facts.id ?? "") + "\t" + CacheShard.escape(facts.warning ?? "")
      + "\n"
  }

  private static func find(_ byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
    guard start < end, let base = buffer.baseAddress,
      let found = memchr(base + start, Int32(byte), end - start)
    else { return nil }
    return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
  }

  /// The three fields of line `line`, as ranges of `bytes`.
  private func fields(_ line: Int) -> (path: Range<Int>, id: Range<Int>, warning: Range<Int>) {
    bytes.withUnsafeBufferPointer { buffer in
      let start = starts[line]
      let end = line + 1 < starts.count ? starts[line + 1] - 1 : buffer.count - 1
      // `init` checked both tabs are there.
      let first = Self.find(0x09, in: buffer, from: start, to: end)!
      let second = Self.find(0x09, in: buffer, from: first + 1, to: end)!
      return (start..<first, first + 1..<second, second + 1..<end)
    }
  }

  private func path(at line: Int) -> String { CacheShard.unescape(bytes[fields(line).path]) }

  /// Where `path`'s line is, or where it would go, and whether it is there.
  private func place(of path: String) -> (line: Int, present: Bool) {
    var low = 0
    var high = starts.count
    while low < high {
      let middle = (low + high) / 2
      if self.path(at: middle) < path { low = middle + 1 } else { high = middle }
    }
    return (low, low < starts.count && self.path(at: low) == path)
  }

  /// The facts of the note at `path`, or nil when it is not one of these notes.
  func facts(of path: String) -> NoteSummary.Facts? {
    let (line, present) = place(of: path)
    guard present else { return nil }
    let (_, id, warning) = fields(line)
    return NoteSummary.Facts(
      id: id.isEmpty ? nil : CacheShard.unescape(bytes[id]),
      warning: warning.isEmpty ? nil : CacheShard.unescape(bytes[warning]))
  }

  /// The paths, other than `excluded`, of the notes whose id's key (``NoteSummary/idKey(_:)``) is one of `keys`,
  /// by key. An id whose bytes are its key (lower-case ASCII, nothing escaped, as every id nb makes) is compared as
  /// bytes, without a string.
  func paths(withIDKeys keys: Set<String>, excluding excluded: Set<String>) -> [String: [String]] {
    // A few keys (a note or two changed) are compared byte by byte; many (a merge) through a set.
    let keyBytes = keys.count <= 8 ? keys.map { Array($0.utf8) } : []
    var found: [String: [String]] = [:]
    for line in starts.indices {
      let (path, id, _) = fields(line)
      guard !id.isEmpty else { continue }
      let key: String?
      let plain = bytes[id].allSatisfy { $0 < 0x80 && !(0x41...0x5A).contains($0) && $0 != 0x5C }
      if plain, keys.count > 8 {
        let candidate = String(decoding: bytes[id], as: UTF8.self)
        key = keys.contains(candidate) ? candidate : nil
      } else if plain {
        key = keyBytes.first { $0.count == id.count && $0.elementsEqual(bytes[id]) }.map {
          String(decoding: $0, as: UTF8.self)
        }
      } else {
        let candidate = NoteSummary.idKey(CacheShard.unescape(bytes[id]))
        key = keys.contains(candidate) ? candidate : nil
      }
      guard let key else { continue }
      let notePath = CacheShard.unescape(bytes[path])
      if !excluded.contains(notePath) { found[key, default: []].append(notePath) }
    }
    return found
  }

  /// This file with the lines of `changes` replaced, added or removed, every other line kept as it is: a few
  /// changed notes do not sort and escape every note again.
  func changing(_ changes: [NoteSummary.Change]) -> NotesFile {
    var out: [UInt8] = []
    out.reserveCapacity(body.count + 256)
    var copied = bodyStart
    var previous: String?
    for change in changes.sorted(by: { $0.path < $1.path }) {
      // Callers give each path once; were one given twice, one of its lines would be written, not both.
      if change.path == previous { continue }
      previous = change.path
      let (line, present) = place(of: change.path)
      let lineStart = line < starts.count ? starts[line] : bytes.count
      out.append(contentsOf: bytes[copied..<lineStart])
      copied = lineStart
      if present { copied = line + 1 < starts.count ? starts[line + 1] : bytes.count }
      if let facts = change.facts { out.append(contentsOf: Self.line(change.path, facts).utf8) }
    }
    out.append(contentsOf: bytes[copied...])
    // Made of this file's lines and well-formed new ones.
    return NotesFile(body: out)!
  }
}

extension NoteSummary {
  /// A summary as kept: the commit it describes, whether attachment folders were skipped (they change which `.md`
  /// files are notes), its notes and their warnings.
  struct Kept {
    var commit: String
    var attachmentFolders: Bool
    var file: NotesFile
    var warnings: Warnings
  }

  /// The two files: `warnings` (what a clean status prints, each warning with its path or id) and `notes`.
  struct Store {
    let directory: String
    var warningsPath: String { directory + "/warnings" }
    var notesPath: String { directory + "/notes" }

    /// The first version's directory, whose `warnings` did not say which note or id each warning belongs to.
    private let previousVersion: String

    init(cacheDirectory: String) {
      directory = cacheDirectory + "/summary-v2"
      previousVersion = cacheDirectory + "/summary-v1"
    }

    private static func header(_ commit: String, _ attachmentFolders: Bool) -> String {
      "\(NoteSummary.magic)\t\(commit)\t\(attachmentFolders ? 2 : 1)\n"
    }

    /// The file's bytes and where the lines below `header` start, or nil when the file is missing or does not
    /// start with it.
    private func read(_ path: String, header: String) -> (bytes: [UInt8], bodyStart: Int)? {
      guard let data = try? FileSystem.read(path) else { return nil }
      let bytes = [UInt8](data)
      let head = Array(header.utf8)
      guard bytes.starts(with: head) else { return nil }
      return (bytes, head.count)
    }

    /// The first line of `notes`: its commit and whether attachment folders were skipped.
    private func notesHeader() -> (commit: String, attachmentFolders: Bool)? {
      guard let data = try? FileSystem.read(notesPath, limit: 256),
        let newline = data.firstIndex(of: 0x0A)
      else { return nil }
      let fields = data[..<newline].split(separator: 0x09, omittingEmptySubsequences: false)
      guard fields.count == 3, String(decoding: fields[0], as: UTF8.self) == NoteSummary.magic else { return nil }
      return (String(decoding: fields[1], as: UTF8.self), fields[2].elementsEqual([0x32]))
    }

    /// The warnings kept for `commit`, or nil when the file is missing, unreadable or describes another commit.
    func warnings(for commit: String, attachmentFolders: Bool) -> Warnings? {
      guard let (bytes, bodyStart) = read(warningsPath, header: Self.header(commit, attachmentFolders)) else {
        return nil
      }
      var warnings = Warnings()
      for line in bytes[bodyStart...].split(separator: 0x0A) {
        let fields = line.split(separator: 0x09, omittingEmptySubsequences: false)
        guard fields.count == 3 else { return nil }
        let key = CacheShard.unescape(fields[1])
        let text = CacheShard.unescape(fields[2])
        switch fields[0].first {
        case UInt8(ascii: "W"): warnings.notes.append(NoteWarning(path: key, text: text))
        case UInt8(ascii: "D"): warnings.duplicates.append(SharedID(id: key, text: text))
        default: return nil
        }
      }
      return warnings
    }

    /// The kept summary, whatever commit it describes; nil when either file is missing, unreadable, or the two
    /// describe different commits.
    func load() -> Kept? {
      guard let (commit, folders) = notesHeader(),
        let warnings = warnings(for: commit, attachmentFolders: folders),
        let (bytes, bodyStart) = read(notesPath, header: Self.header(commit, folders)),
        let file = NotesFile(bytes: bytes, bodyStart: bodyStart)
      else { return nil }
      return Kept(commit: commit, attachmentFolders: folders, file: file, warnings: warnings)
    }

    /// Writes both files (each atomically; a cache, so not flushed to disk, and failures are ignored). `notes`
    /// first, and `warnings` last: ``load()`` takes the two only when they describe the same commit.
    func save(_ kept: Kept) {
      let header = Array(Self.header(kept.commit, kept.attachmentFolders).utf8)
      var warnings = header
      for warning in kept.warnings.notes {
        warnings += Array("W\t\(CacheShard.escape(warning.path))\t\(CacheShard.escape(warning.text))\n".utf8)
      }
      for shared in kept.warnings.duplicates {
        warnings += Array("D\t\(CacheShard.escape(shared.id))\t\(CacheShard.escape(shared.text))\n".utf8)
      }
      try? FileSystem.makeDirectory(directory)
      // Derived data nothing reads any more (7 MB at 100 000 notes).
      if FileSystem.exists(previousVersion) { try? FileSystem.removeTree(previousVersion) }
      var notes = Data(capacity: header.count + kept.file.body.count)
      notes.append(contentsOf: header)
      notes.append(contentsOf: kept.file.body)
      try? AtomicFile.write(notes, to: URL(fileURLWithPath: notesPath), durable: false)
      try? AtomicFile.write(Data(warnings), to: URL(fileURLWithPath: warningsPath), durable: false)
    }
  }
}

extension NoteRepository {
  /// The summary of the notes of `commit` (whose tree the index holds, `dirty` the paths the work tree changed):
  /// the kept one when it describes `commit`, else the kept one brought forward by the notes that changed since,
  /// else one made from scratch; saved when it changed.
  func noteSummary(at commit: String, dirty: Set<String>) throws -> NoteSummary.Kept {
    let store = NoteSummary.Store(cacheDirectory: gitDirectory.appendingPathComponent("nb/cache").path)
    let folders = hasAttachmentFolders
    if let kept = store.load(), kept.attachmentFolders == folders {
      if kept.commit == commit { return kept }
      if let changes = try? broughtForward(kept, to: commit) {
        var moved = kept
        moved.commit = commit
        // Nearly every commit changes no note's id or warning: then only the first lines change.
        if !changes.allSatisfy({ kept.file.facts(of: $0.path) == $0.facts }) {
          moved.warnings = NoteSummary.warnings(kept.warnings, in: kept.file, changing: changes)
          moved.file = kept.file.changing(changes)
        }
        store.save(moved)
        return moved
      }
    }
    let notes = try fromScratch(commit: commit, dirty: dirty)
    let made = NoteSummary.Kept(
      commit: commit, attachmentFolders: folders, file: NotesFile(sorted: notes),
      warnings: NoteSummary.warnings(notes))
    store.save(made)
    return made
  }

  /// Every note of `commit`: those the work tree holds unchanged read as a listing reads them (through its cache,
  /// so usually without reading the files), the others from their blobs. The index holds `commit`'s tree, so its
  /// paths are the tree's.
  ///
  /// The listings are read a directory at a time, so only one directory's notes are ever held whole, not every
  /// note of the repository (164 MiB at 100 000 notes).
  private func fromScratch(commit: String, dirty: Set<String>) throws -> [(String, NoteSummary.Facts)] {
    let folders = hasAttachmentFolders
    let tracked = Set(try git.trackedPaths().filter { $0.hasSuffix(".md") })
    let isTracked = { (path: String) -> Bool in tracked.contains(path) }
    var byDirectory: [String: [String]] = [:]
    for path in tracked where NoteSummary.isNote(path, attachmentFolders: folders, isNote: isTracked) {
      byDirectory[RepoPaths.directory(of: path), default: []].append(path)
    }
    // An array, not a dictionary by path: a hundred thousand notes' dictionary held 12 MiB of empty slots.
    var notes: [(String, NoteSummary.Facts)] = []
    notes.reserveCapacity(tracked.count)
    // Every note is read once (about 3 s at 100 000 notes, the first status after a clone or a deleted cache).
    let total = byDirectory.values.reduce(0) { $0 + $1.count }
    defer { progress?("Reading notes", total, total) }
    for (directory, paths) in byDirectory {
      progress?("Reading notes", notes.count, total)
      let wanted = Set(paths).subtracting(dirty)
      var listed: [String: NoteSummary.Facts] = [:]
      if !wanted.isEmpty {
        for note in scanner.notes(in: directory, recursive: false) where wanted.contains(note.path) {
          listed[note.path] = NoteSummary.Facts(id: note.id, warning: note.warning)
        }
      }
      for path in paths {
        if let facts = listed[path] {
          notes.append((path, facts))
        } else if let file = try git.file(at: path, in: commit) {
          notes.append((path, NoteSummary.facts(path: path, data: try git.read(file))))
        }
      }
    }
    notes.sort { $0.0 < $1.0 }
    return notes
  }

  /// The changes that move `kept` to `commit`, read from the notes that differ; nil when that cannot be done
  /// exactly (the old commit is gone, or a note appeared or vanished beside an attachment folder, which changes
  /// whether the `.md` files in it are notes).
  private func broughtForward(_ kept: NoteSummary.Kept, to commit: String) throws -> [NoteSummary.Change]? {
    do {
      return try broughtForward(kept, to: commit, reading: LooseObjects(gitDirectory: gitDirectory))
    } catch is LooseObjects.NotLoose {
      return try broughtForward(kept, to: commit, reading: try self.git)
    }
  }

  private func broughtForward(_ kept: NoteSummary.Kept, to commit: String, reading git: some CommitReader) throws
    -> [NoteSummary.Change]?
  {
    guard try git.hasCommit(kept.commit) else { return nil }
    let folders = kept.attachmentFolders
    var isNoteCache: [String: Bool] = [:]
    var unread: Error?
    func isNoteFile(_ path: String) -> Bool {
      if let known = isNoteCache[path] { return known }
      let found: Bool
      do {
        found = try git.file(at: path, in: commit) != nil
      } catch {
        // Told after the loop: a reader that cannot see this object must not be taken to say "no file".
        if error is LooseObjects.NotLoose { unread = error }
        found = false
      }
      isNoteCache[path] = found
      return found
    }
    let changed = Set(try git.changedPaths(from: kept.commit, to: commit).filter { $0.hasSuffix(".md") })
    // Past a tenth of the notes (and a few thousand), reading through the listing cache (fromScratch) beats a blob
    // lookup each; below that, the listing cache may be stale exactly there (a rename's thousand rewritten notes in
    // as many notebooks), and from scratch would parse every note of 100 000 again (17 s) to save reading 3 000.
    if changed.count > max(2_000, kept.file.count / 10) { return nil }
    var changes: [NoteSummary.Change] = []
    for path in changed {
      let file = try git.file(at: path, in: commit)
      if folders, try git.hasDirectory(at: String(path.dropLast(3)) + RepoPaths.attachmentSuffix, in: commit)
        || (try git.hasDirectory(at: String(path.dropLast(3)) + RepoPaths.attachmentSuffix, in: kept.commit))
      {
        return nil
      }
      guard let file, NoteSummary.isNote(path, attachmentFolders: folders, isNote: isNoteFile) else {
        changes.append(NoteSummary.Change(path: path, facts: nil))
        continue
      }
      changes.append(NoteSummary.Change(path: path, facts: NoteSummary.facts(path: path, data: try git.read(file))))
    }
    if let unread { throw unread }
    return changes
  }
}

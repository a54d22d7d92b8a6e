import Foundation

/// What `nb status` needs from the notes' contents — each note's `id` and the warning reading it gives (broken
/// front matter, not UTF-8) — for the notes of one commit, kept under `.git/nb/cache/summary-v1/` (device-local,
/// never committed).
///
/// A note's contents are those of its blob, so a summary is valid for exactly one tree: it is keyed by the commit
/// whose tree the index holds, and brought forward from the previous commit by reading only the blobs of the notes
/// that changed between the two. `status` reads, beside it, only the notes the work tree changed: a clean status
/// of 100 000 notes reads one small file (`warnings`: the warnings and the duplicate ids, computed once per
/// commit) instead of every notebook's listing cache.
///
/// The notes are those a listing walks: `.md` files git tracks as regular files, with no hidden path component,
/// outside attachment folders (format 2).
struct NoteSummary {
  /// One note's facts.
  struct Facts: Equatable {
    var id: String?
    var warning: String?
  }

  /// The commit whose tree this describes.
  var commit: String
  /// Whether attachment folders were skipped (they change which `.md` files are notes).
  var attachmentFolders: Bool
  /// Every note, by path.
  var notes: [String: Facts]

  private static let magic = "nb-note-summary 1"

  // MARK: The derived warnings

  /// The warnings `status` prints for these notes: each note's own, in path order, then each id two or more notes
  /// share, in id order.
  static func warnings(_ notes: [String: Facts]) -> (notes: [String], duplicates: [String]) {
    var own: [(path: String, warning: String)] = []
    // An array per id would be a hundred thousand allocations for a hundred thousand notes: only an id seen a second
    // time gets one.
    var firstPath: [String: String] = [:]
    firstPath.reserveCapacity(notes.count)
    var shared: [String: [String]] = [:]
    for (path, facts) in notes {
      if let warning = facts.warning { own.append((path, warning)) }
      guard let id = facts.id else { continue }
      let key = lowercased(id)
      if let first = firstPath.updateValue(path, forKey: key) {
        firstPath[key] = first
        shared[key, default: [first]].append(path)
      }
    }
    let duplicates = shared.sorted { $0.key < $1.key }.map { id, paths in
      "\(paths.sorted().joined(separator: " and ")) share the id \(id); remove the id line from all but one and run "
        + "'nb save'"
    }
    return (own.sorted { $0.path < $1.path }.map(\.warning), duplicates)
  }

  /// `id.lowercased()`, without a new string for an id that has no upper-case letter (nb's ids never do).
  private static func lowercased(_ id: String) -> String {
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

  // MARK: Storage

  /// The two files: `warnings` (what a clean status prints) and `notes` (every note, to bring forward).
  struct Store {
    let directory: String
    var warningsPath: String { directory + "/warnings" }
    var notesPath: String { directory + "/notes" }

    init(cacheDirectory: String) {
      directory = cacheDirectory + "/summary-v1"
    }

    private func header(_ commit: String, _ attachmentFolders: Bool) -> String {
      "\(NoteSummary.magic)\t\(commit)\t\(attachmentFolders ? 2 : 1)\n"
    }

    /// The warnings kept for `commit`, or nil when the file is missing or describes another commit.
    func warnings(for commit: String, attachmentFolders: Bool) -> (notes: [String], duplicates: [String])? {
      guard let data = try? FileSystem.read(warningsPath) else { return nil }
      var lines = Array(data).split(separator: 0x0A, omittingEmptySubsequences: true)[...]
      guard let first = lines.first,
        String(decoding: first, as: UTF8.self) + "\n" == header(commit, attachmentFolders)
      else { return nil }
      lines = lines.dropFirst()
      var notes: [String] = []
      var duplicates: [String] = []
      for line in lines {
        guard let kind = line.first else { continue }
        let text = CacheShard.unescape(line.dropFirst(2))
        if kind == UInt8(ascii: "W") { notes.append(text) } else if kind == UInt8(ascii: "D") { duplicates.append(text) }
      }
      return (notes, duplicates)
    }

    /// Moves both files from `old` to `commit` keeping everything below their first lines, for a commit whose notes
    /// have the same facts as `old`'s (an edit that changed neither an id nor a warning, which is nearly every one):
    /// the same bytes ``save(_:warnings:)`` would write, without sorting, escaping and deriving the warnings of every
    /// note again. False, with nothing written, when either file does not describe `old`.
    /// `notes` is the `notes` file as ``load()`` read it.
    func retarget(_ notes: Data, from old: String, to commit: String, attachmentFolders: Bool) -> Bool {
      let oldHeader = Data(header(old, attachmentFolders).utf8)
      let newHeader = Data(header(commit, attachmentFolders).utf8)
      guard notes.starts(with: oldHeader),
        let warnings = try? FileSystem.read(warningsPath), warnings.starts(with: oldHeader)
      else { return false }
      // `notes` first, as `save` writes them.
      guard (try? AtomicFile.write(newHeader + notes.dropFirst(oldHeader.count), to: URL(fileURLWithPath: notesPath), durable: false)) != nil
      else { return false }
      try? AtomicFile.write(
        newHeader + warnings.dropFirst(oldHeader.count), to: URL(fileURLWithPath: warningsPath), durable: false)
      return true
    }

    /// The `notes` file for `summary`, made from `file` (the one for `previous`, as ``load()`` read it) by
    /// replacing, adding or removing the lines of `changed` (their places found by binary search: the file is
    /// sorted by path). nil when `file` is not for `previous` or a line cannot be read: the caller writes the whole
    /// file.
    private func splice(_ summary: NoteSummary, from previous: String, file: Data, changed: [String]) -> Data? {
      let oldHeader = Array(header(previous, summary.attachmentFolders).utf8)
      let bytes = [UInt8](file)
      guard bytes.starts(with: oldHeader) else { return nil }
      var starts: [Int] = []
      var position = oldHeader.count
      while position < bytes.count {
        starts.append(position)
        guard let newline = bytes[position...].firstIndex(of: 0x0A) else { return nil }
        position = newline + 1
      }
      func path(at line: Int) -> String? {
        let start = starts[line]
        guard let tab = bytes[start...].firstIndex(of: 0x09) else { return nil }
        return CacheShard.unescape(bytes[start..<tab])
      }
      // Where each changed path's line is or would go, and whether it is there.
      var edits: [(line: Int, present: Bool, path: String)] = []
      for changedPath in Set(changed).sorted() {
        var low = 0
        var high = starts.count
        while low < high {
          let middle = (low + high) / 2
          guard let probe = path(at: middle) else { return nil }
          if probe < changedPath { low = middle + 1 } else { high = middle }
        }
        edits.append((low, low < starts.count && path(at: low) == changedPath, changedPath))
      }
      var out = Array(header(summary.commit, summary.attachmentFolders).utf8)
      out.reserveCapacity(bytes.count + 256)
      var copied = oldHeader.count
      for edit in edits {
        let lineStart = edit.line < starts.count ? starts[edit.line] : bytes.count
        guard lineStart >= copied else { return nil }
        out.append(contentsOf: bytes[copied..<lineStart])
        copied = lineStart
        if edit.present { copied = edit.line + 1 < starts.count ? starts[edit.line + 1] : bytes.count }
        if let facts = summary.notes[edit.path] { out.append(contentsOf: Self.line(edit.path, facts).utf8) }
      }
      out.append(contentsOf: bytes[copied...])
      return Data(out)
    }

    /// The summary in `notes`, whatever commit it describes, and the file's bytes; nil when missing or unreadable.
    func load() -> (summary: NoteSummary, file: Data)? {
      guard let data = try? FileSystem.read(notesPath) else { return nil }
      let bytes = [UInt8](data)
      var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)[...]
      guard let first = lines.first else { return nil }
      let fields = first.split(separator: 0x09, omittingEmptySubsequences: false)
      guard fields.count == 3, String(decoding: fields[0], as: UTF8.self) == NoteSummary.magic else { return nil }
      lines = lines.dropFirst()
      var notes: [String: Facts] = [:]
      notes.reserveCapacity(lines.count)
      for line in lines {
        let parts = line.split(separator: 0x09, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        notes[CacheShard.unescape(parts[0])] = Facts(
          id: parts[1].isEmpty ? nil : CacheShard.unescape(parts[1]),
          warning: parts[2].isEmpty ? nil : CacheShard.unescape(parts[2]))
      }
      let summary = NoteSummary(
        commit: String(decoding: fields[1], as: UTF8.self), attachmentFolders: fields[2].elementsEqual([0x32]),
        notes: notes)
      return (summary, data)
    }

    private static func line(_ path: String, _ facts: Facts) -> String {
      CacheShard.escape(path) + "\t" + CacheShard.escape(facts.id ?? "") + "\t" + CacheShard.escape(facts.warning ?? "")
        + "\n"
    }

    /// Writes both files (each atomically; a cache, so not flushed to disk, and failures are ignored). `notes`
    /// first: a `warnings` file never names a commit whose `notes` file was not written.
    ///
    /// `changed`: the paths whose facts may differ from `previous` (a commit and its `notes` file as ``load()``
    /// read it), when they are known: their lines are put into that file's bytes, every other line kept as it is,
    /// instead of sorting and writing every note again (a fifth of a second at 100 000 notes).
    func save(
      _ summary: NoteSummary, warnings: (notes: [String], duplicates: [String]),
      changedSince previous: (commit: String, file: Data)? = nil, changed: [String] = []
    ) {
      let head = header(summary.commit, summary.attachmentFolders)
      let notes: Data
      if let previous, let spliced = splice(summary, from: previous.commit, file: previous.file, changed: changed) {
        notes = spliced
      } else {
        var text = head
        for (path, facts) in summary.notes.sorted(by: { $0.key < $1.key }) { text += Self.line(path, facts) }
        notes = Data(text.utf8)
      }
      var lines = head
      for warning in warnings.notes { lines += "W\t" + CacheShard.escape(warning) + "\n" }
      for warning in warnings.duplicates { lines += "D\t" + CacheShard.escape(warning) + "\n" }
      try? FileSystem.makeDirectory(directory)
      try? AtomicFile.write(notes, to: URL(fileURLWithPath: notesPath), durable: false)
      try? AtomicFile.write(Data(lines.utf8), to: URL(fileURLWithPath: warningsPath), durable: false)
    }
  }
}

extension NoteRepository {
  /// The summary of the notes of `commit` (whose tree the index holds, `dirty` the paths the work tree changed):
  /// the kept one when it describes `commit`, else the kept one brought forward by the notes that changed since,
  /// else one made from scratch; saved when it changed.
  func noteSummary(at commit: String, dirty: Set<String>) throws -> NoteSummary {
    let store = NoteSummary.Store(cacheDirectory: gitDirectory.appendingPathComponent("nb/cache").path)
    let folders = hasAttachmentFolders
    var summary: NoteSummary
    if let (kept, file) = store.load(), kept.attachmentFolders == folders,
      let forward = try? broughtForward(kept, to: commit)
    {
      if kept.commit == commit { return kept }
      summary = forward.summary
      // Only the notes that changed between the two commits can differ.
      if forward.changed.allSatisfy({ summary.notes[$0] == kept.notes[$0] }),
        store.retarget(file, from: kept.commit, to: commit, attachmentFolders: folders)
      {
        return summary
      }
      store.save(
        summary, warnings: NoteSummary.warnings(summary.notes), changedSince: (kept.commit, file),
        changed: forward.changed)
      return summary
    }
    summary = try fromScratch(commit: commit, dirty: dirty)
    store.save(summary, warnings: NoteSummary.warnings(summary.notes))
    return summary
  }

  /// Every note of `commit`: those the work tree holds unchanged read as a listing reads them (through its cache,
  /// so usually without reading the files), the others from their blobs. The index holds `commit`'s tree, so its
  /// paths are the tree's.
  private func fromScratch(commit: String, dirty: Set<String>) throws -> NoteSummary {
    var summary = NoteSummary(commit: commit, attachmentFolders: hasAttachmentFolders, notes: [:])
    let tracked = Set(try git.trackedPaths().filter { $0.hasSuffix(".md") })
    let isTracked = { (path: String) -> Bool in tracked.contains(path) }
    for note in scanner.notes(in: "", recursive: true) where tracked.contains(note.path) && !dirty.contains(note.path) {
      summary.notes[note.path] = NoteSummary.Facts(id: note.id, warning: note.warning)
    }
    for path in tracked where summary.notes[path] == nil {
      guard NoteSummary.isNote(path, attachmentFolders: hasAttachmentFolders, isNote: isTracked),
        let file = try git.file(at: path, in: commit)
      else { continue }
      summary.notes[path] = NoteSummary.facts(path: path, data: try git.read(file))
    }
    return summary
  }

  /// `summary` moved to `commit` by re-reading the notes that differ; nil when that cannot be done exactly (the
  /// old commit is gone, or a note appeared or vanished beside an attachment folder, which changes whether the
  /// `.md` files in it are notes).
  private func broughtForward(_ summary: NoteSummary, to commit: String) throws -> (
    summary: NoteSummary, changed: [String]
  )? {
    if summary.commit == commit { return (summary, []) }
    do {
      return try broughtForward(summary, to: commit, reading: LooseObjects(gitDirectory: gitDirectory))
    } catch is LooseObjects.NotLoose {
      return try broughtForward(summary, to: commit, reading: try self.git)
    }
  }

  private func broughtForward(_ summary: NoteSummary, to commit: String, reading git: some CommitReader) throws
    -> (summary: NoteSummary, changed: [String])?
  {
    guard try git.hasCommit(summary.commit) else { return nil }
    var result = summary
    result.commit = commit
    let folders = summary.attachmentFolders
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
    let changed = try git.changedPaths(from: summary.commit, to: commit).filter { $0.hasSuffix(".md") }
    // Past a tenth of the notes (and a few thousand), reading through the listing cache (fromScratch) beats a blob
    // lookup each; below that, the listing cache may be stale exactly there (a rename's thousand rewritten notes in
    // as many notebooks), and from scratch would parse every note of 100 000 again (17 s) to save reading 3 000.
    if changed.count > max(2_000, summary.notes.count / 10) { return nil }
    for path in changed {
      let file = try git.file(at: path, in: commit)
      if folders, try git.hasDirectory(at: String(path.dropLast(3)) + RepoPaths.attachmentSuffix, in: commit)
        || (try git.hasDirectory(at: String(path.dropLast(3)) + RepoPaths.attachmentSuffix, in: summary.commit))
      {
        return nil
      }
      guard let file, NoteSummary.isNote(path, attachmentFolders: folders, isNote: isNoteFile) else {
        result.notes[path] = nil
        continue
      }
      result.notes[path] = NoteSummary.facts(path: path, data: try git.read(file))
    }
    if let unread { throw unread }
    return (result, Array(changed))
  }
}

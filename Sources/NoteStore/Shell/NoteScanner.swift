import Foundation

/// Finds notes under the work tree and reads what listings need from the head of each file.
///
/// What was read is remembered under `.git/nb/cache/notes-v2/` (device-local, never committed), one file per
/// directory, keyed by file name and checked against size, mtime and inode: listing one notebook of a 100 000-note
/// repository reads one small cache file, and only the notes that changed since are read again.
final class NoteScanner {
  /// Front matter and the first heading live at the top; reading only this much keeps a 50 MB note cheap to list.
  static let headBytes = 64 * 1024

  private let root: String
  private let cacheDirectory: String
  /// Whether `<stem>.files/` beside `<stem>.md` is an attachment folder (format 2), skipped by every walk; in a
  /// format-1 repository it is a notebook like any directory.
  var attachmentFolders: Bool

  init(root: URL, cacheDirectory: URL, attachmentFolders: Bool) {
    self.root = root.path
    self.cacheDirectory = cacheDirectory.appendingPathComponent("notes-v2").path
    self.attachmentFolders = attachmentFolders
  }

  /// The directories of a listing that are notebooks to descend into: all of them, less the attachment folders of
  /// the notes (`noteNames`, file names) listed beside them.
  static func notebookChildren(
    _ children: [String], of directory: String, noteNames: Set<String>, attachmentFolders: Bool
  ) -> [String] {
    guard attachmentFolders else { return children }
    return children.filter { child in
      !RepoPaths.isAttachmentFolder(RepoPaths.join(directory, child)) {
        noteNames.contains(RepoPaths.lastComponent(of: $0))
      }
    }
  }

  /// Notes under `notebook` (`""` = root), in path order; only that directory unless `recursive`.
  func notes(in notebook: String, recursive: Bool) -> [Note] {
    notesAndStrays(in: notebook, recursive: recursive).notes
  }

  /// What one walk of the work tree finds besides the notes themselves: files `nb status` reports, and which notes
  /// have ink.
  struct Strays {
    /// Temporary files left by nb processes killed mid-write (hidden, so listings never show them).
    var temporaryFiles: [String] = []
    /// Ink sidecars with no note of the same stem beside them.
    var orphanedInk: [String] = []
    /// The notes an ink sidecar sits beside.
    var inked: Set<String> = []
  }

  /// The notes, and the stray files — found in the same walk.
  func notesAndStrays(in notebook: String, recursive: Bool) -> (notes: [Note], strays: Strays) {
    var notes: [Note] = []
    var strays = Strays()
    var shards: [PendingShard] = []
    // Entries written in the last two seconds before the walk stat'ed them may still change without moving mtime:
    // don't trust those later.
    let racyLimit = Int64((Date().timeIntervalSince1970 - 2) * 1_000_000_000)
    scan(directory: notebook, recursive: recursive, into: &notes, shards: &shards, strays: &strays)
    // The notes no shard knows are read and parsed together, on every core: the first listing of a repository
    // (after a clone, or with the cache deleted) parses each of its notes once.
    let misses = shards.indices.flatMap { shard in shards[shard].misses.map { (shard, $0) } }
    let read = misses.concurrentMap { Self.readNote(root: root, path: $0.1.path) }
    for ((shard, miss), note) in zip(misses, read) {
      notes.append(note)
      if miss.info.modifiedNanoseconds < racyLimit {
        shards[shard].fresh[miss.name] = CacheShard.Entry(
          size: miss.info.size, mtime: miss.info.modifiedNanoseconds, inode: miss.info.inode, note: note)
        shards[shard].changed = true
      }
    }
    for var pending in shards {
      // Rewritten only when it changed: a note read afresh, or one that vanished (or is too new to trust).
      if pending.changed || pending.fresh.count != pending.shard.entries.count {
        pending.shard.entries = pending.fresh
        try? FileSystem.makeDirectory(cacheDirectory)
        pending.shard.save()
      }
    }
    strays.temporaryFiles.sort()
    strays.orphanedInk.sort()
    return (notes.sorted { $0.path < $1.path }, strays)
  }

  /// A notebook's listing cache while a walk runs: the entries still valid, and the notes to read.
  private struct PendingShard {
    var shard: CacheShard
    var fresh: [String: CacheShard.Entry] = [:]
    var changed = false
    var misses: [(name: String, path: String, info: FileSystem.Info)] = []
  }

  /// Walks `directory` (and below, when `recursive`): notes its listing cache knows go into `notes`, the others
  /// into their shard's misses, read by the caller.
  private func scan(
    directory: String, recursive: Bool, into notes: inout [Note], shards: inout [PendingShard],
    strays: inout Strays
  ) {
    let full = directory.isEmpty ? root : root + "/" + directory
    var files: [(name: String, info: FileSystem.Info)] = []
    var children: [String] = []
    var inkStems: [String] = []
    for entry in FileSystem.entries(of: full) {
      if entry.isRegular, entry.name.hasSuffix(RepoPaths.inkSuffix), !entry.name.hasPrefix(".") {
        inkStems.append(String(entry.name.dropLast(RepoPaths.inkSuffix.count)))
      }
      if entry.name.hasPrefix(".") {
        if entry.isRegular, AtomicFile.isTemporary(entry.name) {
          strays.temporaryFiles.append(RepoPaths.join(directory, entry.name))
        }
        continue
      }
      if entry.isDirectory {
        children.append(entry.name)
      } else if entry.isRegular, entry.name.hasSuffix(".md"), let info = FileSystem.lstatInfo(full + "/" + entry.name) {
        files.append((entry.name, info))
      }
    }
    if !inkStems.isEmpty {
      let noteNames = Set(files.map(\.name))
      for stem in inkStems {
        if noteNames.contains(stem + ".md") {
          strays.inked.insert(RepoPaths.join(directory, stem + ".md"))
        } else {
          strays.orphanedInk.append(RepoPaths.join(directory, stem + RepoPaths.inkSuffix))
        }
      }
    }
    if !files.isEmpty {
      var pending = PendingShard(shard: CacheShard(path: shardPath(for: directory), directory: directory))
      for (name, info) in files {
        if let hit = pending.shard.entries[name], hit.size == info.size, hit.mtime == info.modifiedNanoseconds,
          hit.inode == info.inode
        {
          notes.append(hit.note)
          pending.fresh[name] = hit
          continue
        }
        pending.misses.append((name, RepoPaths.join(directory, name), info))
      }
      shards.append(pending)
    }
    if recursive {
      let noteNames = Set(files.map(\.name))
      for child in Self.notebookChildren(
        children, of: directory, noteNames: noteNames, attachmentFolders: attachmentFolders)
      {
        scan(
          directory: RepoPaths.join(directory, child), recursive: true, into: &notes, shards: &shards,
          strays: &strays)
      }
    }

  }

  /// One cache file per directory, named by a hash of its path (paths may be long or hold any character).
  private func shardPath(for directory: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in directory.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    return cacheDirectory + "/" + String(hash, radix: 16)
  }

  /// Every notebook (directory) under the root, with its direct note count.
  func notebooks() -> [Notebook] {
    var result: [Notebook] = []
    walkNotebooks(directory: "", into: &result)
    return result.sorted { $0.path < $1.path }
  }

  /// The paths of the notebooks directly inside `path`, or nil when `path` (spelled as on disk) is not a notebook.
  /// Reads only the directories from the root down to `path`, where ``notebooks()`` reads every one.
  func childNotebookPaths(of path: String) -> [String]? {
    let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    guard !path.isEmpty, !components.contains(where: \.isEmpty) else { return nil }
    var directory = ""
    for index in 0...components.count {
      let notebooks = notebookListing(directory).children
      guard index < components.count else { return notebooks.map { RepoPaths.join(directory, $0) } }
      guard notebooks.contains(components[index]) else { return nil }
      directory = RepoPaths.join(directory, components[index])
    }
    return nil
  }

  /// One read of `directory` (`""` = the root): its child notebooks (hidden directories and attachment folders left
  /// out), how many notes it holds directly, and whether it has nb's settings file.
  private func notebookListing(_ directory: String) -> (children: [String], noteCount: Int, hasSettings: Bool) {
    var hasSettings = false
    var children: [String] = []
    // A directory's names are unique, so an array counts them; the set for the attachment-folder check is made only
    // when there are folders to check (the first set of strings in a process costs a scan of the binary).
    var noteNames: [String] = []
    for entry in FileSystem.entries(of: directory.isEmpty ? root : root + "/" + directory) {
      if entry.name == NoteRepository.notebookSettingsFile { hasSettings = true }
      if entry.name.hasPrefix(".") { continue }
      if entry.isDirectory {
        children.append(entry.name)
      } else if entry.isRegular, entry.name.hasSuffix(".md") {
        noteNames.append(entry.name)
      }
    }
    let notebooks =
      children.isEmpty
      ? []
      : Self.notebookChildren(children, of: directory, noteNames: Set(noteNames), attachmentFolders: attachmentFolders)
    return (notebooks, noteNames.count, hasSettings)
  }

  /// Reads one note's metadata from disk; problems become the note's `warning`, never an error, because listing
  /// must go on when one file is broken.
  static func readNote(root: String, path: String) -> Note {
    let full = root + "/" + path
    guard var data = try? FileSystem.read(full, limit: headBytes) else {
      return Note(path: path, id: nil, title: RepoPaths.stem(of: path), warning: "\(path): cannot be read")
    }
    if data.count == headBytes, let whole = try? FileSystem.read(full), needsWholeFile(head: data) {
      data = whole
    }
    guard let text = decodeUTF8Prefix(data, truncated: data.count == headBytes) else {
      return Note(
        path: path, id: nil, title: RepoPaths.stem(of: path), warning: NoteStoreError.notUTF8(path: path).description)
    }
    return note(path: path, text: text)
  }

  /// The note for text already in memory (just written, say), without reading the file again.
  static func note(path: String, text: String) -> Note {
    do {
      return Note(path: path, metadata: try FrontMatter.read(text))
    } catch let error as FrontMatterError {
      return Note(
        path: path, id: nil, title: RepoPaths.stem(of: path),
        warning: NoteStoreError(frontMatter: error, path: path).description)
    } catch {
      return Note(path: path, id: nil, title: RepoPaths.stem(of: path), warning: "\(path): \(error)")
    }
  }

  /// A front matter block still open at the end of the head means the head alone cannot be parsed.
  static func needsWholeFile(head: Data) -> Bool {
    var bytes = head[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    guard bytes.starts(with: Array("---".utf8)) else { return false }
    let closers: [[UInt8]] = [Array("\n---".utf8), Array("\n...".utf8)]
    return !closers.contains { head.range(of: Data($0)) != nil }
  }

  /// Decodes UTF-8; when the data was cut at `headBytes`, an incomplete last character is dropped, not an error.
  static func decodeUTF8Prefix(_ data: Data, truncated: Bool) -> String? {
    if let text = String(data: data, encoding: .utf8) { return text }
    guard truncated else { return nil }
    for cut in 1...3 where data.count > cut {
      if let text = String(data: data.dropLast(cut), encoding: .utf8) { return text }
    }
    return nil
  }

  private func walkNotebooks(directory: String, into result: inout [Notebook]) {
    let listing = notebookListing(directory)
    for child in listing.children {
      walkNotebooks(directory: RepoPaths.join(directory, child), into: &result)
    }
    guard !directory.isEmpty else { return }
    let settings = root + "/" + directory + "/" + NoteRepository.notebookSettingsFile
    let title = listing.hasSettings ? NotebookSettings.read(at: settings)?.title : nil
    result.append(
      Notebook(
        path: directory, title: title ?? RepoPaths.lastComponent(of: directory), noteCount: listing.noteCount,
        hasSettings: listing.hasSettings))
  }
}

extension NoteStoreError {
  init(frontMatter error: FrontMatterError, path: String) {
    switch error {
    case .malformed(let line, _, let message):
      self = .malformedFrontMatter(path: path, line: line, detail: message)
    case .notAMapping(let line):
      self = .malformedFrontMatter(path: path, line: line, detail: "expected 'key: value' lines")
    case .unterminated(let line):
      self = .malformedFrontMatter(path: path, line: line, detail: "'---' opens front matter that never closes")
    case .cannotEdit(let key, let line, let message):
      self = .malformedFrontMatter(path: path, line: line, detail: "cannot safely change '\(key)': \(message)")
    }
  }
}

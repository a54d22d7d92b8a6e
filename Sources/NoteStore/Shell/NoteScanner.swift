import Foundation

/// Finds notes under the work tree and reads what listings need from the head of each file.
///
/// What was read is remembered in `.git/nb/cache/notes-v1` (device-local, never committed), keyed by path and
/// checked against size, mtime and inode, so listing 100 000 notes reads only the files that changed since.
final class NoteScanner {
  /// Front matter and the first heading live at the top; reading only this much keeps a 50 MB note cheap to list.
  static let headBytes = 64 * 1024

  private let root: String
  private let cachePath: String
  private var cache: [String: CacheEntry]?
  private var cacheDirty = false

  init(root: URL, cacheDirectory: URL) {
    self.root = root.path
    self.cachePath = cacheDirectory.appendingPathComponent("notes-v1").path
  }

  /// Notes under `notebook` (`""` = root), in path order; only that directory unless `recursive`.
  func notes(in notebook: String, recursive: Bool) -> [Note] {
    var files: [(path: String, info: FileSystem.Info)] = []
    collect(directory: notebook, recursive: recursive, into: &files)
    loadCache()
    var notes: [Note] = []
    notes.reserveCapacity(files.count)
    // Entries written in the last two seconds may still change without moving mtime: don't trust those later.
    let racyLimit = Int64((Date().timeIntervalSince1970 - 2) * 1_000_000_000)
    for (path, info) in files {
      if let hit = cache?[path], hit.size == info.size, hit.mtime == info.modifiedNanoseconds, hit.inode == info.inode {
        notes.append(hit.note)
        continue
      }
      let note = Self.readNote(root: root, path: path)
      if info.modifiedNanoseconds < racyLimit {
        cache?[path] = CacheEntry(size: info.size, mtime: info.modifiedNanoseconds, inode: info.inode, note: note)
        cacheDirty = true
      }
      notes.append(note)
    }
    saveCache()
    return notes.sorted { $0.path < $1.path }
  }

  /// Every notebook (directory) under the root, with its direct note count.
  func notebooks() -> [Notebook] {
    var result: [Notebook] = []
    walkNotebooks(directory: "", into: &result)
    return result.sorted { $0.path < $1.path }
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
  private static func needsWholeFile(head: Data) -> Bool {
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

  private func collect(
    directory: String, recursive: Bool, into files: inout [(path: String, info: FileSystem.Info)]
  ) {
    let full = directory.isEmpty ? root : root + "/" + directory
    for entry in FileSystem.entries(of: full) where !entry.name.hasPrefix(".") {
      let path = RepoPaths.join(directory, entry.name)
      if entry.isDirectory {
        if recursive { collect(directory: path, recursive: true, into: &files) }
      } else if entry.isRegular, entry.name.hasSuffix(".md"), let info = FileSystem.lstatInfo(root + "/" + path) {
        files.append((path, info))
      }
    }
  }

  private func walkNotebooks(directory: String, into result: inout [Notebook]) {
    let full = directory.isEmpty ? root : root + "/" + directory
    var count = 0
    var hasSettings = false
    for entry in FileSystem.entries(of: full) {
      if entry.name == NoteRepository.notebookSettingsFile { hasSettings = true }
      if entry.name.hasPrefix(".") { continue }
      if entry.isDirectory {
        walkNotebooks(directory: RepoPaths.join(directory, entry.name), into: &result)
      } else if entry.isRegular, entry.name.hasSuffix(".md") {
        count += 1
      }
    }
    guard !directory.isEmpty else { return }
    let title = hasSettings ? NotebookSettings.read(at: full + "/" + NoteRepository.notebookSettingsFile)?.title : nil
    result.append(
      Notebook(
        path: directory, title: title ?? RepoPaths.lastComponent(of: directory), noteCount: count,
        hasSettings: hasSettings))
  }

  // MARK: - Cache

  private struct CacheEntry {
    var size: Int64
    var mtime: Int64
    var inode: UInt64
    var note: Note
  }

  private static let cacheHeader = "nb-notes-cache 1"

  private func loadCache() {
    guard cache == nil else { return }
    cache = [:]
    guard let data = try? FileSystem.read(cachePath), let text = String(data: data, encoding: .utf8) else { return }
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
    guard lines.first == Substring(Self.cacheHeader) else { return }
    lines = lines.dropFirst()
    var entries: [String: CacheEntry] = [:]
    entries.reserveCapacity(lines.count)
    for line in lines {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count == 12, let size = Int64(fields[1]), let mtime = Int64(fields[2]),
        let inode = UInt64(fields[3])
      else { continue }
      let path = Self.unescape(fields[0])
      let note = Note(
        path: path, id: fields[4].isEmpty ? nil : Self.unescape(fields[4]), title: Self.unescape(fields[5]),
        created: Self.decodeTimestamp(fields[6]), updated: Self.decodeTimestamp(fields[7]),
        tags: Self.decodeList(fields[8]), aliases: Self.decodeList(fields[9]),
        conflictOf: fields[10].isEmpty ? nil : Self.unescape(fields[10]),
        warning: fields[11].isEmpty ? nil : Self.unescape(fields[11]))
      entries[path] = CacheEntry(size: size, mtime: mtime, inode: inode, note: note)
    }
    cache = entries
  }

  private func saveCache() {
    guard cacheDirty, let cache else { return }
    var out = Self.cacheHeader + "\n"
    for (path, entry) in cache where FileSystem.exists(root + "/" + path) {
      let n = entry.note
      let fields = [
        Self.escape(path), String(entry.size), String(entry.mtime), String(entry.inode), Self.escape(n.id ?? ""),
        Self.escape(n.title), Self.encodeTimestamp(n.created), Self.encodeTimestamp(n.updated),
        Self.encodeList(n.tags), Self.encodeList(n.aliases), Self.escape(n.conflictOf ?? ""),
        Self.escape(n.warning ?? ""),
      ]
      out += fields.joined(separator: "\t") + "\n"
    }
    // A cache is only an accelerator: failing to write it must never fail the command.
    try? FileSystem.makeDirectory((cachePath as NSString).deletingLastPathComponent)
    try? AtomicFile.write(Data(out.utf8), to: URL(fileURLWithPath: cachePath), durable: false)
    cacheDirty = false
  }

  private static func escape(_ s: String) -> String {
    guard s.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\\" || $0 == "\u{1F}" || $0 == "\r" }) else {
      return s
    }
    var out = ""
    for c in s {
      switch c {
      case "\\": out += "\\\\"
      case "\t": out += "\\t"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\u{1F}": out += "\\u"
      default: out.append(c)
      }
    }
    return out
  }

  private static func unescape(_ s: Substring) -> String {
    guard s.contains("\\") else { return String(s) }
    var out = ""
    var escaping = false
    for c in s {
      if escaping {
        switch c {
        case "t": out += "\t"
        case "n": out += "\n"
        case "r": out += "\r"
        case "u": out += "\u{1F}"
        default: out.append(c)
        }
        escaping = false
      } else if c == "\\" {
        escaping = true
      } else {
        out.append(c)
      }
    }
    return out
  }

  private static func encodeList(_ items: [String]) -> String {
    items.map(escape).joined(separator: "\u{1F}")
  }

  private static func decodeList(_ field: Substring) -> [String] {
    field.isEmpty ? [] : field.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(unescape)
  }

  private static func encodeTimestamp(_ t: Timestamp?) -> String {
    guard let t else { return "" }
    return "\(t.date.timeIntervalSince1970.bitPattern)/\(t.offsetSeconds)"
  }

  private static func decodeTimestamp(_ field: Substring) -> Timestamp? {
    let parts = field.split(separator: "/")
    guard parts.count == 2, let bits = UInt64(parts[0]), let offset = Int(parts[1]) else { return nil }
    return Timestamp(date: Date(timeIntervalSince1970: Double(bitPattern: bits)), offsetSeconds: offset)
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

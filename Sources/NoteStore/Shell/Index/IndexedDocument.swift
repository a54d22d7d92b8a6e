import Foundation

/// One note file as the index stores it: its metadata, the text to search, and its other front matter values.
struct IndexedDocument {
  /// At most this many bytes of a note's body (1 MiB) go into the full-text index: a 50 MB note is indexed by its
  /// metadata and the start of its text without reading the rest, and words past the first MiB are not found.
  static let bodyLimit = 1 << 20

  var note: Note
  /// The body after the front matter, cut at ``bodyLimit`` bytes.
  var body: String
  var fields: [FrontMatterField]
  /// The tasks the note holds (itself, or its checklist lines).
  var tasks: [TaskRow] = []
  /// The links the note holds, in text order (from the whole file up to ``linkLimit``, not just the indexed body).
  var links: [LinkRow] = []
  /// ``Journal/contentHash(_:)`` of the file's bytes when they were read whole (nil: cut at the body limit, or
  /// unreadable), so a row recorded while the file could still change unseen can later be confirmed by its bytes.
  var contentHash: UInt64?

  /// Links are read from at most this many bytes of a note (64 MiB): a larger file is a dump, not a note, and its
  /// links past that point are not indexed.
  static let linkLimit = 64 << 20

  /// Reads the note at `path`. Problems become the note's `warning`, never an error, so a broken file is still
  /// listed: malformed front matter keeps its body searchable, a file that is not UTF-8 is indexed by path only.
  static func read(root: String, path: String) -> IndexedDocument {
    let full = root + "/" + path
    let limit = bodyLimit + NoteScanner.headBytes
    guard var data = try? FileSystem.read(full, limit: limit) else {
      return IndexedDocument(
        note: Note(path: path, id: nil, title: RepoPaths.stem(of: path), warning: "\(path): cannot be read"),
        body: "", fields: [])
    }
    var truncated = data.count == limit
    if truncated, NoteScanner.needsWholeFile(head: data), let whole = try? FileSystem.read(full) {
      data = whole
      truncated = false
    }
    return parse(path: path, data: data, truncated: truncated) { try? FileSystem.read(full, limit: linkLimit) }
  }

  /// The document of `path` made from its bytes in memory, `data` being the whole file: exactly what
  /// ``read(root:path:)`` makes once those bytes are on disk (a file past the body limit is read as that reads it).
  static func parse(path: String, data: Data) -> IndexedDocument {
    let limit = bodyLimit + NoteScanner.headBytes
    guard data.count >= limit, !NoteScanner.needsWholeFile(head: data.prefix(limit)) else {
      return parse(path: path, data: data, truncated: false) { nil }
    }
    return parse(path: path, data: data.prefix(limit), truncated: true) { data.prefix(linkLimit) }
  }

  /// The document of `path` from `data`: the whole file, or its first bytes when `truncated` (then `linkBytes`
  /// gives the bytes links are read from).
  private static func parse(
    path: String, data: Data, truncated: Bool, linkBytes: () -> Data?
  ) -> IndexedDocument {
    let contentHash = truncated ? nil : Journal.contentHash(data)
    guard let text = NoteScanner.decodeUTF8Prefix(data, truncated: truncated) else {
      return IndexedDocument(
        note: Note(
          path: path, id: nil, title: RepoPaths.stem(of: path),
          warning: NoteStoreError.notUTF8(path: path).description),
        body: "", fields: [], contentHash: contentHash)
    }
    let bodyText = FrontMatter.body(of: text)
    let body = capped(bodyText)
    let bodyStart = text.utf8.count - bodyText.utf8.count
    var links: [LinkRow]
    if truncated, let whole = linkBytes(),
      let wholeText = NoteScanner.decodeUTF8Prefix(whole, truncated: whole.count == linkLimit)
    {
      links = NoteIndex.linkRows(in: wholeText, source: path)
    } else {
      links = NoteIndex.linkRows(in: text, source: path)
    }
    do {
      let (metadata, fields, taskFields) = try FrontMatter.readIndexed(text)
      let note = Note(path: path, metadata: metadata)
      let tasks = NoteTasks.rows(
        text: text, bodyStart: bodyStart, title: note.title, tags: note.tags, taskFields: taskFields)
      return IndexedDocument(
        note: note, body: body, fields: fields, tasks: tasks, links: links, contentHash: contentHash)
    } catch {
      // Front matter nb cannot read is still the user's note: its checklist lines are still tasks, its links links.
      let note = NoteScanner.note(path: path, text: text)
      let tasks = NoteTasks.rows(text: text, bodyStart: bodyStart, title: note.title, tags: [], taskFields: nil)
      return IndexedDocument(
        note: note, body: body, fields: [], tasks: tasks, links: links, contentHash: contentHash)
    }
  }

  private static func capped(_ body: Substring) -> String {
    guard body.utf8.count > bodyLimit else { return String(body) }
    // A character cut in half becomes U+FFFD, which the tokenizer treats as a separator.
    return String(decoding: body.utf8.prefix(bodyLimit), as: UTF8.self)
  }
}

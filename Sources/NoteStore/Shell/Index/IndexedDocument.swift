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
    guard let text = NoteScanner.decodeUTF8Prefix(data, truncated: truncated) else {
      return IndexedDocument(
        note: Note(
          path: path, id: nil, title: RepoPaths.stem(of: path),
          warning: NoteStoreError.notUTF8(path: path).description),
        body: "", fields: [])
    }
    let body = capped(FrontMatter.body(of: text))
    do {
      let (metadata, fields) = try FrontMatter.readIndexed(text)
      return IndexedDocument(note: Note(path: path, metadata: metadata), body: body, fields: fields)
    } catch {
      return IndexedDocument(note: NoteScanner.note(path: path, text: text), body: body, fields: [])
    }
  }

  private static func capped(_ body: Substring) -> String {
    guard body.utf8.count > bodyLimit else { return String(body) }
    // A character cut in half becomes U+FFFD, which the tokenizer treats as a separator.
    return String(decoding: body.utf8.prefix(bodyLimit), as: UTF8.self)
  }
}

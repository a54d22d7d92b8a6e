import Foundation
import InkKit

/// A note's handwriting: read, change and import it; each change is one commit that also stamps the note's
/// `updated`, so the sync policy resolves note and ink as one unit.
extension NoteRepository {
  /// The sidecar path of a note (whether or not it exists).
  public func inkPath(of note: Note) -> String { RepoPaths.sidecars(of: note.path)[0] }

  /// The ink sidecar's path of the note at `path` (relative to the root), whether either exists or not.
  public static func inkPath(ofNoteAt path: String) -> String { RepoPaths.sidecars(of: path)[0] }

  /// The note's ink, or nil when it has no sidecar. A sidecar that cannot be parsed is an error naming its line.
  public func ink(of note: Note) throws -> InkDocument? {
    try readInk(of: note).document
  }

  /// The sidecar's bytes and drawing, both nil when there is none: an edit compares against the bytes it read
  /// instead of reading the file twice.
  private func readInk(of note: Note) throws -> (data: Data?, document: InkDocument?) {
    let path = inkPath(of: note)
    guard FileSystem.exists(absolute(path)) else { return (nil, nil) }
    let data = try FileSystem.read(absolute(path))
    return (data, try Self.parseInk(data, path: path))
  }

  static func parseInk(_ data: Data, path: String) throws -> InkDocument {
    do {
      return try InkCodec.parse(data, file: path)
    } catch let error as InkFormatError {
      throw NoteStoreError.malformedInk(path: path, line: error.line, detail: error.message)
    }
  }

  /// Writes `document` as the note's ink and commits it with the note (whose `updated` is stamped). Returns the
  /// note afterwards. When the bytes would not change — or the note has no ink and `document` is empty — nothing is
  /// written or committed. Erasing every stroke keeps a header-only sidecar (the note's drawing surface); deleting
  /// or moving the note takes the sidecar with it.
  @discardableResult
  public func saveInk(_ document: InkDocument, for note: Note, subject: String? = nil) throws -> Note {
    try mutate { tx in
      let path = inkPath(of: note)
      let existing = FileSystem.exists(absolute(path)) ? try FileSystem.read(absolute(path)) : nil
      return try writeInk(document, for: note, replacing: existing, subject: subject, in: &tx)
    }
  }

  /// Reads, changes and saves the note's ink under the repository lock, so two writers never lose each other's
  /// strokes. `change` gets the current drawing (empty when there is none). Returns the note afterwards.
  @discardableResult
  public func editInk(
    of note: Note, subject: String, _ change: (inout InkDocument) throws -> Void
  ) throws -> Note {
    try mutate { tx in
      let current = try readInk(of: note)
      var document = current.document ?? InkDocument()
      try change(&document)
      return try writeInk(document, for: note, replacing: current.data, subject: subject, in: &tx)
    }
  }

  /// The one commit of an ink change; `existing` is the sidecar's bytes as they are now (nil: none).
  private func writeInk(
    _ document: InkDocument, for note: Note, replacing existing: Data?, subject: String?, in tx: inout Transaction
  ) throws -> Note {
    let path = inkPath(of: note)
    let bytes = InkCodec.serialize(document)
    guard bytes != existing, existing != nil || !document.isEmpty else { return note }
    // The values came from an app or an importer, not a file: make sure nb can read back what it writes (ids
    // present and unique, limits kept), or the note's ink would be stuck.
    do {
      _ = try InkCodec.parse(bytes, file: path)
    } catch let error as InkFormatError {
      throw NoteStoreError.invalidArgument(
        "the drawing for \(note.path) cannot be saved: \(error.message); nothing was changed")
    }
    try tx.write(path, bytes)
    return try stampAndWrite(
      note.path, text: try readText(note.path), in: &tx, subject: subject ?? "ink \(note.path)")
  }

  /// Adds an imported drawing to the note's ink (or replaces it with `replace`), in one commit. Imported pages are
  /// added after the note's pages; imported strokes go on top of their page; all get new ids. Returns the note and
  /// the number of strokes added.
  @discardableResult
  public func importInk(
    _ imported: InkDocument, into note: Note, replace: Bool, source: String
  ) throws -> (note: Note, strokes: Int) {
    let subject = "ink import \(source) into \(note.path)"
    var added = 0
    let saved = try editInk(of: note, subject: subject) { document in
      if replace { document = InkDocument(scales: document.scales) }
      document.addImported(imported)
      added = imported.strokes.count
    }
    return (saved, added)
  }
}

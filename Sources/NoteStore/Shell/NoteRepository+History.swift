import Foundation

/// A commit, as nb shows it.
public struct CommitSummary: Equatable, Sendable {
  /// Full hex commit id.
  public var id: String
  /// First line of the message.
  public var subject: String
  /// Author name.
  public var author: String
  /// Author e-mail.
  public var email: String
  /// Author time, in the author's offset.
  public var date: Timestamp
}

/// One commit in a note's history.
public struct HistoryEntry: Equatable, Sendable {
  /// What the commit did to the note.
  public enum Change: String, Sendable { case added, modified, renamed, deleted }
  /// The commit.
  public var commit: CommitSummary
  /// The note's path in that commit (after the change).
  public var path: String
  /// The path before, for a move.
  public var previousPath: String?
  /// What happened.
  public var change: Change
  /// The device that made the commit, from its `Nb-Device:` trailer; nil for a commit without one (plain git).
  public var device: String? = nil
}

extension NoteRepository {
  /// The commits that changed this note, newest first, following moves and renames: by git's rename detection,
  /// and by the note's id for moves that also changed the text.
  public func history(of note: Note, limit: Int? = nil) throws -> [HistoryEntry] {
    do {
      var entries: [HistoryEntry] = []
      var path = note.path
      // Once the note's creation is behind us, an older file at the same path is another note (deleted, then the
      // name reused) unless it carries the same id (the note was deleted and later restored).
      var pastCreation = false
      for commit in try git.commits() {
        if let limit, entries.count >= limit { break }
        defer {
          if let last = entries.indices.last, entries[last].commit.id == commit.summary.id {
            entries[last].device = CommitMessage.device(in: commit.message)
          }
        }
        let here = try git.file(at: path, in: commit.id)
        let parent = commit.parent
        let before = try parent.map { try git.file(at: path, in: $0) } ?? nil
        if here == before { continue }
        guard let here else {
          // The note is not at this path in this commit: it was added later under this path; keep walking.
          continue
        }
        if pastCreation {
          guard let id = note.id, try noteID(inBlob: here)?.lowercased() == id.lowercased() else { break }
        }
        if before != nil {
          entries.append(HistoryEntry(commit: commit.summary, path: path, previousPath: nil, change: .modified))
          continue
        }
        // Absent in the parent: created here, or moved here from somewhere else.
        let changes = try git.pathChanges(in: commit.id)
        if let rename = changes.first(where: { $0.kind == .renamed && $0.newPath == path }), let old = rename.oldPath {
          entries.append(HistoryEntry(commit: commit.summary, path: path, previousPath: old, change: .renamed))
          path = old
          continue
        }
        if let id = note.id, let parent, let old = try movedFrom(id: id, changes: changes, parent: parent) {
          entries.append(HistoryEntry(commit: commit.summary, path: path, previousPath: old, change: .renamed))
          path = old
          continue
        }
        entries.append(HistoryEntry(commit: commit.summary, path: path, previousPath: nil, change: .added))
        if parent == nil { break }
        pastCreation = true
      }
      return entries
    }
  }

  /// The text of the file at `path` as commit `commit` stored it (a ``HistoryEntry``'s `commit.id` and `path`); nil
  /// when that commit has no file there.
  /// - Throws: ``NoteStoreError/notUTF8(path:)`` when that version is not UTF-8 text; an error naming the commit
  ///   when there is no such commit.
  public func text(at path: String, in commit: String) throws -> String? {
    guard let stored = try git.file(at: path, in: commit) else { return nil }
    guard let text = Self.decodeUTF8(try git.read(stored)) else { throw NoteStoreError.notUTF8(path: path) }
    return text
  }

  /// Makes an older version of a note its current text, as a new commit (`nb: restore PATH from COMMIT`): the
  /// text `commit` stored at `path` (a ``HistoryEntry``'s), written to the note's path now and stamped as an edit
  /// is (`updated`; the note keeps its `id` even when that version had none or another). Nothing older is lost:
  /// the version replaced stays in history. Like ``save(text:to:over:)``, only while the file is still `version`.
  /// - Throws: ``NoteStoreError/invalidArgument(_:)`` when that commit has no file at `path`.
  public func restore(_ note: Note, from commit: String, path: String, over version: String) throws -> TextSave {
    guard var text = try text(at: path, in: commit) else {
      throw NoteStoreError.invalidArgument("commit \(commit.prefix(12)) has no file \(path)")
    }
    if let id = note.id {
      text = try frontMatterCall(note.path) {
        try FrontMatter.read(text).id == id ? text : try FrontMatter.setting("id", to: id, in: text)
      }
    }
    return try mutate { tx in
      let data = try FileSystem.read(absolute(note.path))
      let current = NoteHistory.sha256Hex(data)
      guard current == version else {
        return .changed(text: String(decoding: data, as: UTF8.self), version: current)
      }
      guard Data(text.utf8) != data else { return .unchanged(note) }
      return .saved(
        try stampAndWrite(note.path, text: text, in: &tx, subject: "restore \(note.path) from \(commit.prefix(8))"))
    }
  }

  /// The `id` in a stored note's front matter.
  private func noteID(inBlob blob: StoredFile) throws -> String? {
    let data = try git.read(blob)
    guard let text = NoteScanner.decodeUTF8Prefix(data.prefix(NoteScanner.headBytes), truncated: true) else {
      return nil
    }
    return (try? FrontMatter.read(text))?.id
  }

  /// A deleted note file in the parent that carried the same id: the note was moved and edited in one commit.
  private func movedFrom(id: String, changes: [PathChange], parent: String) throws -> String? {
    for change in changes where change.kind == .deleted {
      guard let old = change.oldPath, RepoPaths.isNotePath(old), let blob = change.oldFile else { continue }
      let data = try git.read(blob)
      guard let text = NoteScanner.decodeUTF8Prefix(data.prefix(NoteScanner.headBytes), truncated: true),
        let metadata = try? FrontMatter.read(text)
      else { continue }
      if metadata.id?.lowercased() == id.lowercased() { return old }
    }
    return nil
  }
}

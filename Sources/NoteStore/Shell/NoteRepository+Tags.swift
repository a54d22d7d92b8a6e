import Foundation
import TextFormat

extension NoteRepository {
  /// Every tag in the repository with the number of notes carrying it, most used first, then by name.
  public func tags() throws -> [TagCount] {
    try tagCounts()
  }

  /// Notes carrying `tag` (compared case-insensitively, `#` ignored), in path order.
  public func notes(taggedWith tag: String) throws -> [Note] {
    try index.notes(where: "n.rowid IN (SELECT note FROM tag WHERE folded = ?)", [Self.tagKey(tag)])
  }

  /// Adds a tag to a note (a tag exists as soon as one note carries it). No commit when the note already has it.
  @discardableResult
  public func addTag(_ tag: String, to note: Note) throws -> Note {
    let tags = try Self.normalizedTags([tag])
    guard let tag = tags.first else { throw NoteStoreError.invalidArgument("an empty tag cannot be added") }
    if note.tags.contains(where: { Self.tagKey($0) == Self.tagKey(tag) }) { return note }
    return try update(note, NoteChange(tags: note.tags + [tag]))
  }

  /// Removes a tag from a note. No commit when the note does not have it.
  @discardableResult
  public func removeTag(_ tag: String, from note: Note) throws -> Note {
    let remaining = note.tags.filter { Self.tagKey($0) != Self.tagKey(tag) }
    if remaining.count == note.tags.count { return note }
    return try update(note, NoteChange(tags: remaining))
  }

  /// Renames a tag across all notes in one commit. Returns the number of notes changed.
  @discardableResult
  public func renameTag(_ old: String, to new: String) throws -> Int {
    guard let newTag = try Self.normalizedTags([new]).first else {
      throw NoteStoreError.invalidArgument("the new tag name is empty")
    }
    return try rewriteTags(subject: "rename tag \(old) -> \(newTag)", matching: old) { tags in
      var result: [String] = []
      for tag in tags {
        let replacement = Self.tagKey(tag) == Self.tagKey(old) ? newTag : tag
        if !result.contains(where: { Self.tagKey($0) == Self.tagKey(replacement) }) { result.append(replacement) }
      }
      return result
    }
  }

  /// Removes a tag from all notes in one commit. Returns the number of notes changed.
  @discardableResult
  public func deleteTag(_ tag: String) throws -> Int {
    try rewriteTags(subject: "delete tag \(tag)", matching: tag) { tags in
      tags.filter { Self.tagKey($0) != Self.tagKey(tag) }
    }
  }

  private func rewriteTags(subject: String, matching tag: String, _ rewrite: ([String]) -> [String]) throws -> Int {
    try mutate { tx in
      // Its one change is the batch of retagged notes: their index rows are made while they are written.
      tx.recordsIndexEarly = true
      let affected = try notes(taggedWith: tag)
      // Everything is computed before the first write, so a malformed note stops the command with nothing changed.
      var updates: [(path: String, text: String, id: String)] = []
      for (done, note) in affected.enumerated() {
        progress?("Retagging notes", done, affected.count)
        let text = try readText(note.path)
        let retagged = try frontMatterCall(note.path) { try FrontMatter.settingTags(rewrite(note.tags), in: text) }
        let stamped = try stamp(note.path, text: retagged)
        updates.append((note.path, stamped.text, stamped.id))
      }
      progress?("Retagging notes", affected.count, affected.count)
      try tx.write(all: updates.map { ($0.path, Data($0.text.utf8)) })
      for update in updates { tx.note(update.id) }
      tx.subject = "\(subject) (\(counted(updates.count, "note")))"
      return updates.count
    }
  }

  static func tagKey(_ tag: String) -> String {
    var tag = tag.trimmingWhitespaces()
    while tag.hasPrefix("#") { tag.removeFirst() }
    return tag.lowercased()
  }
}

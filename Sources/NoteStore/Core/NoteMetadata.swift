import Foundation
import TextFormat

/// What nb reads from a note's front matter (and from its body when front matter lacks it).
///
/// Keys are matched case-sensitively. For each field the first listed key holding a usable value wins; a key that
/// is present but null, empty, of the wrong shape (a mapping where a string is expected) or, for timestamps,
/// unparseable counts as absent, so the next alias is tried. Every field defaults to "absent", so the memberwise
/// initialiser takes any of them.
struct NoteMetadata: Equatable, Sendable {
  /// `id`: the note's stable identity; nil when absent or blank.
  var id: String? = nil
  /// Front matter `title` only (the caller falls back to `firstHeading`, then the file stem); nil when blank.
  var title: String? = nil
  /// `created`, else `date`, else `dateCreated` (TaskNotes).
  var created: Timestamp? = nil
  /// `updated`, else `modified`, `lastmod`, `last_modified_at`, `dateModified` (TaskNotes).
  var updated: Timestamp? = nil
  /// `tags`, else `tag`, else `keywords`: a YAML list, or a space/comma separated string; a leading `#` dropped,
  /// empty entries dropped, order kept, duplicates dropped (first occurrence kept).
  var tags: [String] = []
  /// `aliases`, else `alias`: a YAML list, or one string (an alias may contain spaces, so it is not split).
  var aliases: [String] = []
  /// `conflict_of`: the id of the note this copy lost a conflict to.
  var conflictOf: String? = nil
  /// Whether the file has a (terminated) front matter block, even an empty one.
  var hasFrontMatter = false
  /// Text of the first ATX level-1 heading (`# Title`) in the body, outside fenced code blocks.
  var firstHeading: String? = nil

  /// Keys read as `created`, in priority order.
  static let createdKeys = ["created", "date", "dateCreated"]
  /// Keys read as `updated`, in priority order; `settingUpdated` edits the first one present.
  static let updatedKeys = ["updated", "modified", "lastmod", "last_modified_at", "dateModified"]
  /// Keys read as `tags`, in priority order; `settingTags` edits the first one present.
  static let tagKeys = ["tags", "tag", "keywords"]
  /// Keys read as `aliases`, in priority order.
  static let aliasKeys = ["aliases", "alias"]

  /// Normalises tag entries: splits strings on blanks and commas when `split`, drops one leading `#`, drops empty
  /// entries and later duplicates.
  static func normalizedTags(_ raw: [String], split: Bool) -> [String] {
    var seen = Set<String>()
    var result: [String] = []
    for entry in raw {
      let pieces: [Substring]
      if split {
        pieces = entry.split(whereSeparator: { $0 == "," || $0.isWhitespace })
      } else {
        pieces = [Substring(entry)]
      }
      for piece in pieces {
        var tag = piece.trimmingWhitespacesAndNewlines()
        if tag.hasPrefix("#") { tag.removeFirst() }
        tag = tag.trimmingWhitespacesAndNewlines()
        if tag.isEmpty || seen.contains(tag) { continue }
        seen.insert(tag)
        result.append(tag)
      }
    }
    return result
  }

  /// Drops blank entries and later duplicates, keeping order.
  static func normalizedList(_ raw: [String]) -> [String] {
    var seen = Set<String>()
    var result: [String] = []
    for entry in raw {
      let trimmed = entry.trimmingWhitespacesAndNewlines()
      if trimmed.isEmpty || seen.contains(trimmed) { continue }
      seen.insert(trimmed)
      result.append(trimmed)
    }
    return result
  }
}

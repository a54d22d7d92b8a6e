import Foundation

/// What to find and how to order it: the query language's text (`roadmap tag:planning -draft`), a sort, and a page.
///
/// Answered from the index by ``NoteRepository/notes(matching:)`` and ``NoteRepository/count(matching:)``; an app
/// pages through any number of notes with `limit` and `offset` without loading them all.
public struct NoteQuery: Equatable, Hashable, Sendable {
  /// How results are ordered.
  public enum Sort: String, Equatable, Hashable, Sendable, CaseIterable {
    /// Best match first (BM25; a match in the title or tags weighs more than one in the body). Without words to
    /// rank by, the same as `updated`.
    case relevance
    /// By path, `a/b.md` before `a/c.md`.
    case path
    /// By title, case-insensitively.
    case title
    /// Newest `created` first; notes without one last.
    case created
    /// Newest `updated` first; notes without one last.
    case updated
  }

  /// The query language text; empty matches every note.
  public var text: String
  /// The order of the results.
  public var sort: Sort
  /// Reverses `sort`.
  public var reverse: Bool
  /// At most this many results; nil for all.
  public var limit: Int?
  /// Results to skip before the first one returned.
  public var offset: Int

  /// A query; `text` uses the query language (see `nb help search`).
  public init(_ text: String = "", sort: Sort = .relevance, reverse: Bool = false, limit: Int? = nil, offset: Int = 0) {
    self.text = text
    self.sort = sort
    self.reverse = reverse
    self.limit = limit
    self.offset = offset
  }
}

/// A parsed query: a tree of full-text matches and metadata filters.
///
/// Dates are resolved when the query is parsed (relative dates need a clock), so a tree holds instants only.
indirect enum QueryExpression: Equatable, Sendable {
  /// The notebook every match lies in (itself or below it), when the query says so at its top (`notebook:work`,
  /// alone or ANDed with anything); nil when a match can be anywhere. A query of one notebook need only check that
  /// part of the work tree.
  var notebookScope: String? {
    switch self {
    case .filter(.notebook(let notebook)):
      let path = notebook.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
      return path.isEmpty ? nil : path
    case .and(let parts):
      return parts.lazy.compactMap(\.notebookScope).first
    default:
      return nil
    }
  }

  /// Every note (the empty query).
  case all
  /// Words found in the note's text.
  case text(TextMatch)
  /// A condition on the note's metadata.
  case filter(QueryFilter)
  /// Notes the inner expression does not match.
  case not(QueryExpression)
  /// Notes every part matches (two or more parts).
  case and([QueryExpression])
  /// Notes any part matches (two or more parts).
  case or([QueryExpression])

  /// Every filter in the tree, in order (under NOT too).
  var filters: [QueryFilter] {
    switch self {
    case .all, .text: []
    case .filter(let filter): [filter]
    case .not(let inner): inner.filters
    case .and(let parts), .or(let parts): parts.flatMap(\.filters)
    }
  }
}

/// A full-text match: a word, a prefix or a phrase, folded for case and diacritics by the index's tokenizer.
struct TextMatch: Equatable, Sendable {
  enum Kind: Equatable, Sendable {
    /// A word (`plan`).
    case word
    /// Words starting with the text (`plan*`).
    case prefix
    /// The words in this order, next to each other (`"quarterly plan"`).
    case phrase
  }

  /// Where the words must be.
  enum Field: Equatable, Sendable {
    /// Title, tags or body.
    case any
    /// The title only (`title:`).
    case title
  }

  var kind: Kind
  /// As typed, without the quotes or the trailing `*`.
  var text: String
  var field: Field = .any
}

/// A condition on a note's metadata or its links.
enum QueryFilter: Hashable, Sendable {
  /// Carries the tag (case-insensitive, a leading `#` dropped) or a tag nested under it (`tag:work` matches
  /// `work/meetings`).
  case tag(String)
  /// In the notebook or any notebook under it (`notebook:work` matches `work/a.md` and `work/x/b.md`); the path
  /// has no leading or trailing `/`.
  case notebook(String)
  /// The path contains the text, case-insensitively.
  case path(String)
  /// The note's `id` is the text (case-insensitively), or starts with it when the text ended with `*`.
  case id(String, prefix: Bool)
  /// The note's `created` or `updated` instant is in the range; a note without that field never matches.
  case date(DateField, DateRange)
  /// The note has an ink sidecar (`has:ink`).
  case hasInk
  /// The note is a conflict copy (`is:conflict`).
  case isConflict
  /// The note has a link that reaches the note or file (`links-to:NOTE`): a NOTE selector, or the path of another
  /// file (an attachment); resolved against the repository when the query runs.
  case linksTo(String)
  /// The note is reached by a link of the note (`linked-by:NOTE`).
  case linkedBy(String)
  /// The note links to a file the note links to, and neither links to the other (`related:NOTE`).
  case related(String)
  /// The note's text names the note's title or one of its aliases without linking to it (`mentions:NOTE`).
  case mentions(String)
  /// The note has a link that reaches no file (`has:unresolved`).
  case hasUnresolved
  /// No link of the note reaches another file, and no other note's link reaches it (`is:orphan`).
  case isOrphan
  /// No link of the note reaches another file (`is:dead-end`).
  case isDeadEnd

  /// Whether answering the filter needs the links of more than the note itself.
  var isLinkFilter: Bool {
    switch self {
    case .linksTo, .linkedBy, .related, .mentions, .hasUnresolved, .isOrphan, .isDeadEnd: true
    default: false
    }
  }

  /// The NOTE argument of a link filter, if it takes one.
  var linkSelector: String? {
    switch self {
    case .linksTo(let value), .linkedBy(let value), .related(let value), .mentions(let value): value
    default: nil
    }
  }
}

/// The date fields a query can filter on.
enum DateField: String, Hashable, Sendable {
  case created
  case updated
}

/// Instants from `lower` up to `upper`; an open end is nil. `updated:2026-01-01` is that whole local day:
/// lower 2026-01-01T00:00 inclusive, upper 2026-01-02T00:00 exclusive.
struct DateRange: Hashable, Sendable {
  var lower: Date?
  var lowerInclusive = true
  var upper: Date?
  var upperInclusive = false

  func contains(_ date: Date) -> Bool {
    if let lower, lowerInclusive ? date < lower : date <= lower { return false }
    if let upper, upperInclusive ? date > upper : date >= upper { return false }
    return true
  }
}

/// A query that cannot be understood: what is wrong and where (a 1-based column into the query text).
public struct QueryError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The query as given.
  public var query: String
  /// The 1-based column (in characters) of the offending part.
  public var column: Int
  /// How many characters the offending part spans (at least 1).
  public var length: Int
  /// What is wrong and how to fix it.
  public var message: String

  /// A query error.
  public init(query: String, column: Int, length: Int = 1, message: String) {
    self.query = query
    self.column = column
    self.length = max(1, length)
    self.message = message
  }

  /// One line: `query column 9 ('foo:'): unknown filter 'foo:'; use tag:, notebook:, …`.
  public var description: String {
    let characters = Array(query)
    let start = min(max(column - 1, 0), characters.count)
    let end = min(start + length, characters.count)
    let part = String(characters[start..<end])
    return "query column \(column)\(part.isEmpty ? "" : " ('\(part)')"): \(message)"
  }
}

import Foundation

/// One note a query found: its metadata (no body), how well it matched, and where.
public struct NoteHit: Equatable, Sendable {
  /// The note's metadata.
  public var note: Note
  /// The BM25 relevance (higher is better); nil when the query had no words to rank by.
  public var score: Double?
  /// Text around the best match; nil when the query had no words, or the match was in the title or tags only.
  public var snippet: NoteSnippet?
  /// Whether an ink sidecar sits beside the note.
  public var hasInk: Bool

  /// A hit; the index makes these, an app rarely needs to.
  public init(note: Note, score: Double? = nil, snippet: NoteSnippet? = nil, hasInk: Bool = false) {
    self.note = note
    self.score = score
    self.snippet = snippet
    self.hasInk = hasInk
  }
}

/// A short excerpt of a note's text with the matched words marked.
public struct NoteSnippet: Equatable, Sendable {
  /// The excerpt, on one line (newlines become spaces); `…` where it was cut.
  public var text: String
  /// The matched parts of `text`, as offsets in Unicode scalars (code points) from its start.
  public var highlights: [Range<Int>]

  /// A snippet.
  public init(text: String, highlights: [Range<Int>]) {
    self.text = text
    self.highlights = highlights
  }
}

/// A notebook and how many notes it holds.
public struct NotebookCount: Equatable, Sendable {
  /// The notebook's path (`""` for notes at the root).
  public var path: String
  /// Notes directly in it.
  public var notes: Int
  /// Notes in it and every notebook under it.
  public var notesWithChildren: Int

  /// A notebook count.
  public init(path: String, notes: Int, notesWithChildren: Int) {
    self.path = path
    self.notes = notes
    self.notesWithChildren = notesWithChildren
  }
}

/// What a full rebuild of the index did.
public struct IndexReport: Equatable, Sendable {
  /// Notes indexed.
  public var notes: Int
  /// Size of the index files on disk, in bytes.
  public var bytes: Int64
  /// Wall-clock time the rebuild took.
  public var seconds: Double

  /// A report.
  public init(notes: Int, bytes: Int64, seconds: Double) {
    self.notes = notes
    self.bytes = bytes
    self.seconds = seconds
  }
}

extension NoteRepository {
  /// The notes `query` matches, sorted and paged as it asks, answered from the index (brought up to date first).
  /// - Throws: ``NoteStoreError/badQuery(_:)`` for a query that cannot be understood.
  public func notes(matching query: NoteQuery) throws -> [NoteHit] {
    let expression = try parsed(query.text)
    return try notes(
      matching: expression, sort: query.sort, reverse: query.reverse, limit: query.limit, offset: query.offset,
      linkTargets: try linkTargets(expression, query: query.text))
  }

  /// The notes a query tree matches: what ``notes(matching:)-…`` runs once the text is parsed; `linkTargets`
  /// holds the path each link filter's NOTE names (``linkTargets(_:query:)``).
  func notes(
    matching expression: QueryExpression, sort: NoteQuery.Sort = .relevance, reverse: Bool = false,
    limit: Int? = nil, offset: Int = 0, linkTargets: [String: String] = [:]
  ) throws -> [NoteHit] {
    try index.hits(expression, sort: sort, reverse: reverse, limit: limit, offset: offset, linkTargets: linkTargets)
  }

  /// The notes ``notes(matching:)`` returns, handed to `body` one at a time in the same order without all being held
  /// at once: for printing a listing of any size.
  public func forEachNote(matching query: NoteQuery, _ body: (NoteHit) throws -> Void) throws {
    let expression = try parsed(query.text)
    // The streaming cursor compiles no link filter (they need the link rows resolved first): a query with one
    // takes the path that resolves them, its matches being notes linked to or from a few, not the whole listing.
    if expression.filters.contains(where: \.isLinkFilter) {
      for hit in try index.hits(
        expression, sort: query.sort, reverse: query.reverse, limit: query.limit, offset: query.offset,
        linkTargets: try linkTargets(expression, query: query.text))
      {
        try body(hit)
      }
      return
    }
    try index.eachHit(
      expression, sort: query.sort, reverse: query.reverse, limit: query.limit, offset: query.offset, body)
  }

  /// How many notes `query` matches (its sort and page are ignored).
  public func count(matching query: NoteQuery) throws -> Int {
    let expression = try parsed(query.text)
    return try index.count(expression, linkTargets: try linkTargets(expression, query: query.text))
  }

  /// Every tag with the number of notes carrying it, most used first, then by name.
  public func tagCounts() throws -> [TagCount] {
    try index.tagCounts()
  }

  /// Every notebook that holds notes, directly or below it (and the root, `""`, when notes sit there), in path
  /// order.
  public func notebookCounts() throws -> [NotebookCount] {
    try index.notebookCounts()
  }

  /// Rebuilds the index from the work tree; never needed for correctness.
  @discardableResult
  public func reindex() throws -> IndexReport {
    try index.rebuild()
  }

  /// The query language's text as a tree; relative dates count from ``clock`` in ``timeZone``.
  func parsed(_ text: String) throws -> QueryExpression {
    do {
      return try QueryParser.parse(text, now: clock(), timeZone: self.timeZone)
    } catch {
      throw NoteStoreError.badQuery(error)
    }
  }
}

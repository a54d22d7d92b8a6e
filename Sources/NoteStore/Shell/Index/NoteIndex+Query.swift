import Foundation
import GRDB

/// A query tree as SQL over the index: a condition on `note n`, its arguments, and the FTS5 expression whose BM25
/// ranks the results (the positive text leaves: a word under a NOT does not make a note more relevant).
struct CompiledQuery {
  var condition: String
  var arguments: [(any DatabaseValueConvertible)?]
  /// The positive text leaves joined with OR; nil when the query has none.
  var rankMatch: String?
  /// The notes each link filter matches, found beforehand (``NoteIndex/linkMatches(_:_:targets:)``): what a link
  /// reaches is resolved in Swift, not SQL.
  private let links: [QueryFilter: [Int64]]

  /// Compiles `expression`. Each user word becomes a quoted FTS5 string (its `"` doubled), so FTS5's operators
  /// (`AND`, `OR`, `NOT`, `NEAR`, `*`, `^`, `:`, parentheses) in the text are just words; NOT, AND and OR are
  /// SQL's, so a query of negations alone (`-draft`) and mixes of filters and words (`tag:x OR plan`) work.
  init(_ expression: QueryExpression, links: [QueryFilter: [Int64]] = [:]) {
    condition = ""
    arguments = []
    self.links = links
    var positives: [String] = []
    condition = compile(expression, negated: false, positives: &positives)
    rankMatch = positives.isEmpty ? nil : positives.map { "(\($0))" }.joined(separator: " OR ")
  }

  private mutating func compile(_ expression: QueryExpression, negated: Bool, positives: inout [String]) -> String {
    switch expression {
    case .all:
      return "1"
    case .text(let match):
      guard let fts = Self.ftsExpression(match) else { return "0" }
      if !negated { positives.append(fts) }
      arguments.append(fts)
      return "n.rowid IN (SELECT rowid FROM fts WHERE fts MATCH ?)"
    case .filter(let filter):
      return compile(filter)
    case .not(let inner):
      return "NOT (\(compile(inner, negated: !negated, positives: &positives)))"
    case .and(let parts):
      guard !parts.isEmpty else { return "1" }
      return "(" + parts.map { compile($0, negated: negated, positives: &positives) }.joined(separator: " AND ") + ")"
    case .or(let parts):
      guard !parts.isEmpty else { return "0" }
      return "(" + parts.map { compile($0, negated: negated, positives: &positives) }.joined(separator: " OR ") + ")"
    }
  }

  /// Every leaf is 0 or 1, never NULL, so NOT of it is its complement (a note without `created` is in
  /// `NOT created:...`).
  private mutating func compile(_ filter: QueryFilter) -> String {
    switch filter {
    case .tag(let tag):
      let key = NoteRepository.tagKey(tag)
      arguments += [key, key + "/", key + "0"]
      return "n.rowid IN (SELECT note FROM tag WHERE folded = ? OR (folded >= ? AND folded < ?))"
    case .notebook(let notebook):
      let path = notebook.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
      guard !path.isEmpty else { return "1" }
      arguments += [path, path + "/", path + "0"]
      return "(n.dir = ? OR (n.dir >= ? AND n.dir < ?))"
    case .path(let text):
      arguments.append(text.lowercased())
      return "(instr(n.path_folded, ?) > 0)"
    case .id(let id, let prefix):
      let key = id.lowercased()
      if prefix {
        arguments += [key, key.count, key]
        return "(n.note_id_folded IS NOT NULL AND n.note_id_folded >= ? AND substr(n.note_id_folded, 1, ?) = ?)"
      }
      arguments.append(key)
      return "(n.note_id_folded IS NOT NULL AND n.note_id_folded = ?)"
    case .date(let field, let range):
      let column = field == .created ? "n.created" : "n.updated"
      var parts = ["\(column) IS NOT NULL"]
      if let lower = range.lower {
        parts.append("\(column) \(range.lowerInclusive ? ">=" : ">") ?")
        arguments.append(lower.timeIntervalSince1970)
      }
      if let upper = range.upper {
        parts.append("\(column) \(range.upperInclusive ? "<=" : "<") ?")
        arguments.append(upper.timeIntervalSince1970)
      }
      return "(" + parts.joined(separator: " AND ") + ")"
    case .hasInk:
      return "(n.has_ink = 1)"
    case .isConflict:
      return "(n.conflict_of IS NOT NULL)"
    case .linksTo, .linkedBy, .related, .mentions, .hasUnresolved, .isOrphan, .isDeadEnd:
      // A JSON array of rowids: one argument however many notes, read by SQLite's own json_each.
      let rowids = links[filter] ?? []
      guard !rowids.isEmpty else { return "0" }
      arguments.append("[" + rowids.map(String.init).joined(separator: ",") + "]")
      return "n.rowid IN (SELECT value FROM json_each(?))"
    }
  }

  /// The FTS5 expression for one text leaf; nil when the text has no character the tokenizer keeps (punctuation,
  /// emoji), which matches nothing.
  static func ftsExpression(_ match: TextMatch) -> String? {
    let text = match.text
    guard text.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil })
    else { return nil }
    var fts = "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    let scalars = Array(text.unicodeScalars)
    // One CJK character is one unigram token: as a prefix it also finds the bigrams that start with it.
    let singleCJK = scalars.count == 1 && IndexTokenizer.isCJK(scalars[0])
    if match.kind == .prefix || (match.kind == .word && singleCJK) { fts += "*" }
    return match.field == .title ? "title : " + fts : fts
  }
}

extension NoteIndex {
  /// The columns a `Note` is made from, in the order ``note(from:)`` reads them.
  static let noteColumns = """
    n.rowid, n.path, n.note_id, n.title, n.created, n.created_offset, n.updated, n.updated_offset, n.tags, \
    n.aliases, n.conflict_of, n.warning, n.has_ink
    """

  static func note(from row: Row) -> Note {
    func timestamp(_ seconds: Int, _ offset: Int) -> Timestamp? {
      guard let value = row[seconds] as Double?, let offset = row[offset] as Int? else { return nil }
      return Timestamp(date: Date(timeIntervalSince1970: value), offsetSeconds: offset)
    }
    return Note(
      path: row[1], id: row[2], title: row[3], created: timestamp(4, 5), updated: timestamp(6, 7),
      tags: split(row[8]), aliases: split(row[9]), conflictOf: row[10], warning: row[11])
  }

  /// Notes meeting an SQL condition on `note n`, in `order`.
  func notes(
    where condition: String, _ arguments: [(any DatabaseValueConvertible)?] = [], order: String = "n.path",
    scope: String? = nil
  ) throws -> [Note] {
    try read(scope: scope) { db in
      let statement = try db.makeStatement(
        sql: "SELECT \(Self.noteColumns) FROM note n WHERE \(condition) ORDER BY \(order)")
      return try Row.fetchAll(statement, arguments: StatementArguments(arguments)).map(Self.note(from:))
    }
  }

  /// The hits of a query tree, sorted and paged; `snippets` false skips the costliest part for callers that only
  /// want the notes.
  func hits(
    _ expression: QueryExpression, sort: NoteQuery.Sort, reverse: Bool, limit: Int?, offset: Int,
    snippets: Bool = true, linkTargets: [String: String] = [:]
  ) throws -> [NoteHit] {
    try read(scope: Self.scope(of: expression)) { db in
      try hits(
        db, expression, sort: sort, reverse: reverse, limit: limit, offset: offset, snippets: snippets,
        linkTargets: linkTargets)
    }
  }

  /// The notebook a query's refresh may be limited to: none when it filters by links, which reach across the tree.
  private static func scope(of expression: QueryExpression) -> String? {
    expression.filters.contains(where: \.isLinkFilter) ? nil : expression.notebookScope
  }

  private func hits(
    _ db: Database, _ expression: QueryExpression, sort: NoteQuery.Sort, reverse: Bool, limit: Int?, offset: Int,
    snippets: Bool, linkTargets: [String: String]
  ) throws -> [NoteHit] {
    let compiled = CompiledQuery(expression, links: try Self.linkMatches(db, expression, targets: linkTargets))
    var sql = "SELECT \(Self.noteColumns), \(compiled.rankMatch == nil ? "NULL" : "r.rank") FROM note n"
    var arguments: [(any DatabaseValueConvertible)?] = []
    if let rankMatch = compiled.rankMatch {
      // BM25 weights: a match in the title counts ten times one in the body, one in the tags five times.
      sql += """
         LEFT JOIN (SELECT rowid AS rid, bm25(fts, 10.0, 5.0, 1.0) AS rank FROM fts WHERE fts MATCH ?) r \
        ON r.rid = n.rowid
        """
      arguments.append(rankMatch)
    }
    sql += " WHERE " + compiled.condition
    arguments += compiled.arguments
    sql += " ORDER BY " + Self.order(sort, reverse: reverse, ranked: compiled.rankMatch != nil)
    sql += " LIMIT ? OFFSET ?"
    arguments += [limit ?? -1, max(0, offset)]
    let statement = try db.makeStatement(sql: sql)
    var hits: [NoteHit] = []
    var rowids: [Int64] = []
    for row in try Row.fetchAll(statement, arguments: StatementArguments(arguments)) {
      let rank: Double? = row[13]
      hits.append(NoteHit(note: Self.note(from: row), score: rank.map { -$0 }, hasInk: (row[12] as Int64) != 0))
      rowids.append(row[0])
    }
    if snippets, let rankMatch = compiled.rankMatch, !rowids.isEmpty {
      let snippets = try Self.snippets(db, match: rankMatch, rowids: rowids)
      for i in hits.indices { hits[i].snippet = snippets[rowids[i]] }
    }
    return hits
  }

  /// ``hits(_:sort:reverse:limit:offset:snippets:)`` handed to `body` one at a time, in order, read from a cursor
  /// rather than gathered: listing 100 000 notes held them all, 140 MB. A ranked query (words to match) keeps the
  /// gathered path: its snippets are looked up for the whole page at once.
  func eachHit(
    _ expression: QueryExpression, sort: NoteQuery.Sort, reverse: Bool, limit: Int?, offset: Int,
    linkTargets: [String: String] = [:], _ body: (NoteHit) throws -> Void
  ) throws {
    let compiled = CompiledQuery(expression)
    // Link filters match the rowids a pass over the links found, which the cursor's SQL alone does not know.
    guard compiled.rankMatch == nil, !expression.filters.contains(where: \.isLinkFilter) else {
      for hit in try hits(
        expression, sort: sort, reverse: reverse, limit: limit, offset: offset, linkTargets: linkTargets)
      {
        try body(hit)
      }
      return
    }
    let sql = "SELECT \(Self.noteColumns), NULL FROM note n WHERE \(compiled.condition) ORDER BY "
      + Self.order(sort, reverse: reverse, ranked: false) + " LIMIT ? OFFSET ?"
    let arguments = compiled.arguments + [limit ?? -1, max(0, offset)]
    try read(scope: expression.notebookScope) { db in
      let rows = try Row.fetchCursor(db.makeStatement(sql: sql), arguments: StatementArguments(arguments))
      while let row = try rows.next() {
        try body(NoteHit(note: Self.note(from: row), score: nil, hasInk: (row[12] as Int64) != 0))
      }
    }
  }

  /// How many notes a query tree matches.
  func count(_ expression: QueryExpression, linkTargets: [String: String] = [:]) throws -> Int {
    try read(scope: Self.scope(of: expression)) { db in
      let compiled = CompiledQuery(expression, links: try Self.linkMatches(db, expression, targets: linkTargets))
      return try Int.fetchOne(
        db, sql: "SELECT count(*) FROM note n WHERE \(compiled.condition)",
        arguments: StatementArguments(compiled.arguments)) ?? 0
    }
  }

  private static func order(_ sort: NoteQuery.Sort, reverse: Bool, ranked: Bool) -> String {
    let (ascending, descending) = reverse ? ("DESC", "ASC") : ("ASC", "DESC")
    switch sort {
    case .relevance where ranked:
      return "r.rank IS NULL, r.rank \(ascending), n.path \(ascending)"
    case .path:
      return "n.path \(ascending)"
    case .title:
      return "n.title_folded \(ascending), n.path \(ascending)"
    case .created:
      return "n.created IS NULL, n.created \(descending), n.path \(ascending)"
    case .updated, .relevance:
      return "n.updated IS NULL, n.updated \(descending), n.path \(ascending)"
    }
  }

  /// Private-use characters that cannot occur in a note's text mark the matches in `snippet()`'s output.
  private static let openMark: Unicode.Scalar = "\u{E000}"
  private static let closeMark: Unicode.Scalar = "\u{E001}"

  /// The body snippets of the given rows, only those with a match in the body.
  private static func snippets(_ db: Database, match: String, rowids: [Int64]) throws -> [Int64: NoteSnippet] {
    var result: [Int64: NoteSnippet] = [:]
    let placeholders = Array(repeating: "?", count: rowids.count).joined(separator: ",")
    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT rowid, snippet(fts, 2, '\(openMark)', '\(closeMark)', '…', 16) FROM fts
        WHERE fts MATCH ? AND rowid IN (\(placeholders))
        """,
      arguments: StatementArguments([match] + rowids))
    for row in rows {
      guard let text = row[1] as String?, let snippet = snippet(from: text) else { continue }
      result[row[0]] = snippet
    }
    return result
  }

  /// Turns marked text into a snippet: marks become highlight ranges (in Unicode scalars),
  /// line breaks and runs of blanks one space.
  static func snippet(from marked: String) -> NoteSnippet? {
    var scalars = String.UnicodeScalarView()
    var highlights: [Range<Int>] = []
    var openedAt: Int?
    var count = 0
    for scalar in marked.unicodeScalars {
      switch scalar {
      case openMark:
        if openedAt == nil { openedAt = count }
      case closeMark:
        if let start = openedAt, start < count {
          if let last = highlights.last, last.upperBound >= start {
            highlights[highlights.count - 1] = last.lowerBound..<max(last.upperBound, count)
          } else {
            highlights.append(start..<count)
          }
        }
        openedAt = nil
      case "\n", "\r", "\t", " ":
        // One line for a terminal: a run of blanks and line breaks is one space, none at the ends.
        if count > 0, scalars.last != " " {
          scalars.append(" ")
          count += 1
        }
      default:
        scalars.append(scalar)
        count += 1
      }
    }
    guard !highlights.isEmpty else { return nil }
    if scalars.last == " " { scalars.removeLast() }
    return NoteSnippet(text: String(scalars), highlights: highlights)
  }

  /// Tags with how many notes carry each, as notes spell them; most used first, then by name.
  func tagCounts() throws -> [TagCount] {
    let counts = try read { db in
      try Row.fetchAll(db, sql: "SELECT tag, count(*) FROM tag GROUP BY tag").map {
        TagCount(tag: $0[0], count: $0[1])
      }
    }
    return counts.sorted { $0.count != $1.count ? $0.count > $1.count : $0.tag < $1.tag }
  }

  /// Notebooks with their direct and recursive note counts: every directory holding notes, the ones above it, and
  /// the root when notes sit there.
  func notebookCounts() throws -> [NotebookCount] {
    let direct = try read { db in
      try Row.fetchAll(db, sql: "SELECT dir, count(*) FROM note GROUP BY dir").map { ($0[0] as String, $0[1] as Int) }
    }
    var counts: [String: NotebookCount] = [:]
    for (directory, notes) in direct {
      counts[directory, default: NotebookCount(path: directory, notes: 0, notesWithChildren: 0)].notes += notes
      var ancestor: String? = directory
      while let current = ancestor {
        counts[current, default: NotebookCount(path: current, notes: 0, notesWithChildren: 0)].notesWithChildren +=
          notes
        ancestor = current.isEmpty ? nil : RepoPaths.directory(of: current)
      }
    }
    if counts[""]?.notes == 0 { counts[""] = nil }
    return counts.values.sorted { $0.path < $1.path }
  }
}

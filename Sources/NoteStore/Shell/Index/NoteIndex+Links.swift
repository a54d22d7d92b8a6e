import CSQLiteShim
import Foundation
import GRDB
import LinkKit
import TextFormat

/// One link of a note as the index stores it: as written, never resolved (what a link reaches depends on every
/// other path in the repository, which changes without the note changing).
struct LinkRow: Equatable {
  var kind: LinkKind
  /// The decoded path part (`""` for a link into the same note).
  var target: String
  /// ``LinkResolver/nameKey(target:from:)``: the name key every file the link can reach has.
  var name: String
  var line: Int
  var headings: [String]
  var block: String?
  var display: String?
  var inFrontMatter: Bool
  /// The link's line, trimmed; a long line cut to a window around the link (see ``NoteIndex/contextBytes``).
  var text: String
}

/// The index's link rows and the other files' rows, and every answer made from them.
///
/// - `link`: one row per link per note, keyed `(note, ordinal)`: kind (0 wiki, 1 embed, 2 Markdown, 3 image), the
///   target as written, its name key, line, headings (joined by U+001F), block, display text, whether it sits in
///   the front matter, and its line's text — NULL when it is the text of the link before it on the same line (a
///   line of several links keeps its text once). Indexed by name key and target (with the key, `(note,
///   ordinal)`: the index alone answers which links may reach a file, and lists equal targets together).
/// - `file`: one row per file of the work tree that is not a note — an attachment, an ink sidecar, a `.md` file in
///   an attachment folder — with its folder and name key; kept by the same walk, commit diff and change journal as
///   the notes (it only records that a file exists).
/// - `note.link_name`: each note's own name key.
///
/// A link can only reach a file whose name key equals its own (``LinkResolver/nameKey(path:)``), so the links to
/// one file are the rows with its key, resolved by a ``LinkResolver`` over just the files with that key: the
/// answer is the same as over every path, and neither every path nor any note is read. Checking every link builds
/// one resolver over all paths.
extension NoteIndex {
  static let linkSchema = """
    CREATE TABLE link(
      note INTEGER NOT NULL,
      ordinal INTEGER NOT NULL,
      kind INTEGER NOT NULL,
      target TEXT NOT NULL,
      name TEXT NOT NULL,
      line INTEGER NOT NULL,
      headings TEXT NOT NULL,
      block TEXT,
      display TEXT,
      front INTEGER NOT NULL,
      text TEXT,
      PRIMARY KEY(note, ordinal)
    ) WITHOUT ROWID;
    CREATE INDEX link_name ON link(name, target);
    CREATE TABLE file(
      path TEXT PRIMARY KEY NOT NULL,
      dir TEXT NOT NULL,
      name TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX file_dir ON file(dir);
    CREATE INDEX file_name ON file(name);
    """

  /// How many bytes of a long line are kept on each side of a link, and at most of the link itself: enough to
  /// read the sentence, bounded so that 100 000 links on one line cost linear time and space.
  static let contextBytes = 80
  static let contextLinkBytes = 240

  // MARK: - Writing

  /// The rows of every link in `text`, the note at `source`.
  static func linkRows(in text: String, source: String) -> [LinkRow] {
    let links = LinkScanner.links(in: text)
    guard !links.isEmpty else { return [] }
    var text = text
    return text.withUTF8 { bytes in
      links.map { link in
        LinkRow(
          kind: link.kind, target: link.target, name: LinkResolver.nameKey(target: link.target, from: source),
          line: link.line, headings: link.headings, block: link.block, display: link.display,
          inFrontMatter: link.inFrontMatter, text: context(bytes, link.range))
      }
    }
  }

  /// The text of the line holding `range`: at most ``contextBytes`` before and after the link, the link itself cut
  /// after ``contextLinkBytes``, `…` where anything was cut, blanks at the ends trimmed.
  static func context(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
    let newline = UInt8(ascii: "\n")
    var start = range.lowerBound
    let floor = max(0, range.lowerBound - contextBytes)
    while start > floor, bytes[start - 1] != newline { start -= 1 }
    let cutBefore = start > 0 && bytes[start - 1] != newline
    let linkEnd = min(range.upperBound, range.lowerBound + contextLinkBytes)
    var end = linkEnd
    if linkEnd == range.upperBound {
      let ceiling = min(bytes.count, range.upperBound + contextBytes)
      while end < ceiling, bytes[end] != newline { end += 1 }
    }
    let cutAfter = end < bytes.count && bytes[end] != newline
    // Whole characters only: a cut never splits a UTF-8 sequence.
    while start < range.lowerBound, bytes[start] & 0xC0 == 0x80 { start += 1 }
    while end > linkEnd, end < bytes.count, bytes[end] & 0xC0 == 0x80 { end -= 1 }
    if end == linkEnd { while end > range.lowerBound, end < bytes.count, bytes[end] & 0xC0 == 0x80 { end -= 1 } }
    var trimmedEnd = end
    if trimmedEnd > start, bytes[trimmedEnd - 1] == UInt8(ascii: "\r") { trimmedEnd -= 1 }
    // Blanks trimmed byte by byte: Foundation's trimming bridges every line to NSString, a third of what indexing a
    // note's links cost. Only a line that ends in a character outside ASCII (which may be a Unicode blank) is
    // handed to it.
    func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    var trimmedStart = start
    while trimmedStart < trimmedEnd, isBlank(bytes[trimmedStart]) { trimmedStart += 1 }
    while trimmedEnd > trimmedStart, isBlank(bytes[trimmedEnd - 1]) { trimmedEnd -= 1 }
    var line = String(decoding: UnsafeBufferPointer(rebasing: bytes[trimmedStart..<trimmedEnd]), as: UTF8.self)
    if trimmedEnd > trimmedStart, bytes[trimmedStart] >= 0x80 || bytes[trimmedEnd - 1] >= 0x80 {
      line = line.trimmingWhitespaces()
    }
    return (cutBefore ? "…" : "") + line + (cutAfter ? "…" : "")
  }

  /// The columns of `link` after `note` and `ordinal`, in the order ``linkValues(_:)`` gives them.
  static let linkRowColumns = ["kind", "target", "name", "line", "headings", "block", "display", "front", "text"]

  /// One link row: its note, its ordinal, then ``linkRowColumns``.
  static let insertLinkSQL =
    "INSERT INTO link(note, ordinal, \(linkRowColumns.joined(separator: ", "))) VALUES ("
    + Array(repeating: "?", count: linkRowColumns.count + 2).joined(separator: ", ") + ")"

  /// Each link row's values after its note and ordinal, as `link` stores them: a link on the same line as the one
  /// before it, with the same context, stores no text of its own.
  static func linkValues(_ rows: [LinkRow]) -> [[DatabaseValue]] {
    var previous: (line: Int, text: String)?
    return rows.map { row in
      let repeated = previous?.line == row.line && previous?.text == row.text
      previous = (row.line, row.text)
      return [
        kindNumber(row.kind).databaseValue, row.target.databaseValue, row.name.databaseValue, row.line.databaseValue,
        joined(row.headings).databaseValue, row.block.databaseValue, row.display.databaseValue,
        row.inFrontMatter.databaseValue, repeated ? .null : row.text.databaseValue,
      ]
    }
  }

  static func insertLinks(_ db: Database, rowid: Int64, _ rows: [LinkRow]) throws {
    guard !rows.isEmpty else { return }
    let insert = try db.cachedStatement(sql: insertLinkSQL)
    for (ordinal, values) in linkValues(rows).enumerated() {
      try insert.execute(arguments: StatementArguments([rowid.databaseValue, ordinal.databaseValue] + values))
    }
  }

  /// Makes the link rows of the note `rowid` those of `rows`, writing only what differs: a rename's rewrite changes
  /// one link of a note, and rewriting its other rows would rewrite their entries in the name index too.
  static func updateLinks(_ db: Database, rowid: Int64, _ rows: [LinkRow]) throws {
    let old = try Row.fetchAll(
      db.cachedStatement(
        sql: "SELECT \(linkRowColumns.joined(separator: ", ")) FROM link WHERE note = ? ORDER BY ordinal"),
      arguments: [rowid]
    ).map { Array($0.databaseValues) }
    let new = linkValues(rows)
    let insert = try db.cachedStatement(sql: insertLinkSQL)
    for (ordinal, values) in new.enumerated() {
      if ordinal < old.count {
        try updateChanged(
          db, table: "link", key: "note = ? AND ordinal = ?", keyValues: [rowid.databaseValue, ordinal.databaseValue],
          columns: linkRowColumns, old: old[ordinal], new: values)
      } else {
        try insert.execute(arguments: StatementArguments([rowid.databaseValue, ordinal.databaseValue] + values))
      }
    }
    if old.count > new.count {
      try db.cachedStatement(sql: "DELETE FROM link WHERE note = ? AND ordinal >= ?").execute(
        arguments: [rowid, new.count])
    }
  }

  /// The `file` row of a file that is not a note.
  static func insertFile(_ db: Database, _ path: String) throws {
    try db.cachedStatement(sql: "INSERT OR REPLACE INTO file(path, dir, name) VALUES (?, ?, ?)").execute(
      arguments: [path, RepoPaths.directory(of: path), LinkResolver.nameKey(path: path)])
  }

  static func kindNumber(_ kind: LinkKind) -> Int {
    switch kind {
    case .wiki: 0
    case .embed: 1
    case .markdown: 2
    case .image: 3
    }
  }

  static func kind(number: Int) -> LinkKind {
    switch number {
    case 1: .embed
    case 2: .markdown
    case 3: .image
    default: .wiki
    }
  }

  // MARK: - Reading

  /// The columns an ``IndexedLink`` is made from, in the order ``indexedLink(_:resolution:)`` reads them.
  static let linkColumns = """
    l.note, l.ordinal, l.kind, l.target, l.line, l.headings, l.block, l.display, l.front, \(linkText), n.path, n.title
    """

  /// A link row's text: its own, or that of the nearest link before it on its line that has one.
  static let linkText = """
    coalesce(l.text, (SELECT t.text FROM link t WHERE t.note = l.note AND t.ordinal < l.ordinal AND t.line = l.line \
    AND t.text IS NOT NULL ORDER BY t.ordinal DESC LIMIT 1), '')
    """

  static func indexedLink(_ row: Row, resolution: LinkResolution) -> IndexedLink {
    IndexedLink(
      source: row[10], sourceTitle: row[11], ordinal: row[1], kind: kind(number: row[2]), target: row[3],
      headings: split(row[5]),
      block: row[6], display: row[7], line: row[4], inFrontMatter: row[8] as Bool, text: row[9],
      resolution: resolution)
  }

  /// A resolver over the notes and other files whose name key is one of `keys` (SQL yielding keys, with its
  /// arguments): every file the links with those keys can reach.
  static func resolver(_ db: Database, keys sql: String, _ arguments: StatementArguments) throws -> LinkResolver {
    let paths = try String.fetchAll(
      db,
      sql: """
        SELECT path FROM note WHERE link_name IN (\(sql))
        UNION ALL SELECT path FROM file WHERE name IN (\(sql))
        """, arguments: arguments + arguments)
    return LinkResolver(paths: paths)
  }

  /// The links of the note at `path`, in text order, resolved; nil when no note is indexed there.
  static func links(_ db: Database, from path: String) throws -> [IndexedLink]? {
    guard let rowid = try Int64.fetchOne(db, sql: "SELECT rowid FROM note WHERE path = ?", arguments: [path]) else {
      return nil
    }
    let resolver = try resolver(db, keys: "SELECT name FROM link WHERE note = ?", [rowid])
    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT \(linkColumns) FROM link l JOIN note n ON n.rowid = l.note WHERE l.note = ? ORDER BY l.ordinal
        """, arguments: [rowid])
    return rows.map { indexedLink($0, resolution: resolver.resolve(target: $0[3], from: path)) }
  }

  /// The links that reach the file at `path` (a note or any other file), in source path and text order: the rows
  /// with its name key that resolve to it, and a note's links into itself (`[[#Heading]]`). Only the rows that
  /// reach it are read whole.
  static func backlinks(_ db: Database, to path: String) throws -> [IndexedLink] {
    let found = try backlinkRows(db, to: path)
    let row = try db.cachedStatement(
      sql: "SELECT \(linkColumns) FROM link l JOIN note n ON n.rowid = l.note WHERE l.note = ? AND l.ordinal = ?")
    var result: [IndexedLink] = []
    result.reserveCapacity(found.count)
    for link in found {
      guard let full = try Row.fetchOne(row, arguments: [link.note, link.ordinal]) else { continue }
      result.append(indexedLink(full, resolution: link.resolution))
    }
    return result.sorted { ($0.source, $0.ordinal) < ($1.source, $1.ordinal) }
  }

  /// How many notes link to `path`, and with how many links (``backlinks(_:to:)`` counted, without reading rows).
  static func backlinkCount(_ db: Database, to path: String) throws -> (notes: Int, links: Int) {
    let found = try backlinkRows(db, to: path)
    return (Set(found.map(\.note)).count, found.count)
  }

  /// The rowids of the notes with a link that reaches `path`.
  static func sources(_ db: Database, linkingTo path: String) throws -> Set<Int64> {
    Set(try backlinkRows(db, to: path).map(\.note))
  }

  /// The key of each link that reaches `path`, with its resolution, reading only the columns resolving needs: the
  /// rows of the name key resolved over the files of that key, and the note's own links into itself.
  private static func backlinkRows(_ db: Database, to path: String) throws -> [(
    note: Int64, ordinal: Int, resolution: LinkResolution
  )] {
    let key = LinkResolver.nameKey(path: path)
    let resolver = try resolver(db, keys: "?", [key])
    var result: [(note: Int64, ordinal: Int, resolution: LinkResolution)] = []
    let rows = try Row.fetchCursor(
      db,
      sql: "SELECT l.note, l.ordinal, l.target, n.path FROM link l JOIN note n ON n.rowid = l.note WHERE l.name = ?",
      arguments: [key])
    while let row = try rows.next() {
      let target: String = row[2]
      if target.isEmpty { continue }
      let resolution = resolver.resolve(target: target, from: row[3])
      if resolution.path == path { result.append((row[0], row[1], resolution)) }
    }
    let inside = try Row.fetchAll(
      db,
      sql: "SELECT l.note, l.ordinal FROM link l JOIN note n ON n.rowid = l.note WHERE n.path = ? AND l.target = ''",
      arguments: [path])
    result += inside.map { ($0[0], $0[1], .note(path)) }
    return result
  }

  /// Every link checked: the counts by what they reach, and each unresolved or ambiguous one with its row.
  static func checkLinks(_ db: Database) throws -> LinkCheck {
    var check = LinkCheck()
    var problems: [(note: Int64, ordinal: Int, resolution: LinkResolution)] = []
    // The resolver (every path, several dictionaries of them) is let go before the problems' rows are read.
    do {
      let all = try AllLinks(db)
      var hasLinks = [Bool](repeating: false, count: all.notes.count)
      try all.resolveEach(db) { link, target in
        check.links += 1
        hasLinks[link.note] = true
        guard case .file(let index, let isAmbiguous) = link.found else {
          check.unresolved += 1
          problems.append((link.rowid, link.ordinal, .unresolved))
          return
        }
        if target.isEmpty {
          check.sameNote += 1
        } else if all.resolver.isNote(at: index) {
          check.toNotes += 1
        } else {
          check.toAttachments += 1
        }
        if isAmbiguous {
          check.ambiguous += 1
          // Only the whole resolution names the other files.
          let resolution = all.resolver.resolve(target: target, from: all.resolver.paths[link.source])
          problems.append((link.rowid, link.ordinal, resolution))
        }
      }
      check.notes = all.notes.count
      check.notesWithLinks = hasLinks.lazy.filter { $0 }.count
    }
    // In key order the rows sit together on disk, and each note's come together.
    problems.sort { ($0.note, $0.ordinal) < ($1.note, $1.ordinal) }
    let rows = try linkRows(db, problems)
    Phases.mark("links: problem rows")
    // In path and text order: the notes are sorted by path as groups, not each link by its note's path.
    var notes: [Range<Int>] = []
    var start = 0
    for end in rows.indices.dropFirst() where rows[end].note != rows[start].note {
      notes.append(start..<end)
      start = end
    }
    if !rows.isEmpty { notes.append(start..<rows.count) }
    notes.sort { rows[$0.lowerBound].link.source < rows[$1.lowerBound].link.source }
    check.problems.reserveCapacity(rows.count)
    for range in notes {
      check.problems += rows[range].map(\.link).sorted { ($0.line, $0.ordinal) < ($1.line, $1.ordinal) }
    }
    return check
  }

  /// Steps `statement` through SQLite's own call: whether it reached a row (false when done), or the error.
  static func step(_ statement: Statement, _ db: Database) throws -> Bool {
    let code = sqlite3_step(statement.sqliteStatement)
    if code == SQLITE_ROW { return true }
    if code == SQLITE_DONE { return false }
    throw DatabaseError(
      resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
      sql: statement.sql)
  }

  /// The links `keys` names (note rowid and ordinal), with their resolutions, read whole: through SQLite's own calls,
  /// as a row of GRDB costs a dictionary of its column names, and a check of a large repository reads tens of
  /// thousands of them. A key no row has is left out.
  static func linkRows(
    _ db: Database, _ keys: [(note: Int64, ordinal: Int, resolution: LinkResolution)]
  ) throws -> [(note: Int64, link: IndexedLink)] {
    let statement = try db.makeStatement(
      sql: "SELECT \(linkColumns) FROM link l JOIN note n ON n.rowid = l.note WHERE l.note = ? AND l.ordinal = ?")
    let raw = statement.sqliteStatement
    defer { sqlite3_reset(raw) }
    func text(_ column: Int32) -> String? {
      guard sqlite3_column_type(raw, column) != SQLITE_NULL, let bytes = sqlite3_column_text(raw, column) else {
        return nil
      }
      return String(
        decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(raw, column))), as: UTF8.self)
    }
    var result: [(note: Int64, link: IndexedLink)] = []
    result.reserveCapacity(keys.count)
    for key in keys {
      sqlite3_reset(raw)
      sqlite3_bind_int64(raw, 1, key.note)
      sqlite3_bind_int64(raw, 2, Int64(key.ordinal))
      guard try NoteIndex.step(statement, db) else { continue }
      let link = IndexedLink(
        source: text(10) ?? "", sourceTitle: text(11) ?? "", ordinal: key.ordinal,
        kind: kind(number: Int(sqlite3_column_int64(raw, 2))), target: text(3) ?? "", headings: split(text(5) ?? ""),
        block: text(6), display: text(7), line: Int(sqlite3_column_int64(raw, 4)),
        inFrontMatter: sqlite3_column_int64(raw, 8) != 0, text: text(9) ?? "", resolution: key.resolution)
      result.append((key.note, link))
    }
    return result
  }

  // MARK: - Query filters

  /// The notes each link filter of a query matches, as rowids: `targets` maps each filter's NOTE argument to the
  /// path it names (resolved by the repository beforehand). Filters over every link (`has:unresolved`,
  /// `is:orphan`, `is:dead-end`) share one pass over all links.
  static func linkMatches(
    _ db: Database, _ expression: QueryExpression, targets: [String: String]
  ) throws -> [QueryFilter: [Int64]] {
    let filters = Set(expression.filters.filter(\.isLinkFilter))
    guard !filters.isEmpty else { return [:] }
    var result: [QueryFilter: [Int64]] = [:]
    let graph = filters.contains { [.hasUnresolved, .isOrphan, .isDeadEnd].contains($0) } ? try LinkGraph(db) : nil
    func rowids(_ paths: Set<String>) throws -> Set<Int64> {
      var ids = Set<Int64>()
      let statement = try db.cachedStatement(sql: "SELECT rowid FROM note WHERE path = ?")
      for path in paths { if let id = try Int64.fetchOne(statement, arguments: [path]) { ids.insert(id) } }
      return ids
    }
    for filter in filters {
      let path = filter.linkSelector.flatMap { targets[$0] }
      switch filter {
      case .linksTo:
        result[filter] = try path.map { Array(try sources(db, linkingTo: $0)) } ?? []
      case .linkedBy:
        let reached = try path.flatMap { try links(db, from: $0) }?.compactMap(\.resolution.path) ?? []
        result[filter] = Array(try rowids(Set(reached)))
      case .related:
        guard let path, let own = try links(db, from: path) else {
          result[filter] = []
          continue
        }
        let reached = Set(own.compactMap(\.resolution.path)).subtracting([path])
        var related = Set<Int64>()
        for target in reached { related.formUnion(try sources(db, linkingTo: target)) }
        // Already linked, either way, is not "related, not yet linked"; nor is the note itself.
        related.subtract(try rowids(reached.union([path])))
        related.subtract(try sources(db, linkingTo: path))
        result[filter] = Array(related)
      case .mentions:
        guard let path,
          let row = try Row.fetchOne(
            db, sql: "SELECT rowid, title, aliases FROM note WHERE path = ?", arguments: [path])
        else {
          result[filter] = []
          continue
        }
        let names = Set(([row[1] as String] + split(row[2])).filter { !$0.isEmpty })
        var found = Set<Int64>()
        for name in names {
          guard let phrase = CompiledQuery.ftsExpression(TextMatch(kind: .phrase, text: name)) else { continue }
          found.formUnion(
            try Int64.fetchAll(db, sql: "SELECT rowid FROM fts WHERE fts MATCH ?", arguments: ["body : " + phrase]))
        }
        found.remove(row[0])
        found.subtract(try sources(db, linkingTo: path))
        result[filter] = Array(found)
      case .hasUnresolved: result[filter] = Array(graph?.unresolved ?? [])
      case .isOrphan: result[filter] = Array(graph?.orphans ?? [])
      case .isDeadEnd: result[filter] = Array(graph?.deadEnds ?? [])
      default: break
      }
    }
    return result
  }
}

/// Which notes link out, are linked to, and have unresolved links: one pass over every link.
struct LinkGraph {
  var unresolved = Set<Int64>()
  var orphans = Set<Int64>()
  var deadEnds = Set<Int64>()

  init(_ db: Database) throws {
    let all = try AllLinks(db)
    // Links out by note, links in by position in the resolver's paths.
    var linksOut = [Bool](repeating: false, count: all.notes.count)
    var reached = [Bool](repeating: false, count: all.resolver.paths.count)
    var unresolved = Set<Int64>()
    try all.resolveEach(db) { link, _ in
      guard case .file(let index, _) = link.found else {
        unresolved.insert(link.rowid)
        return
      }
      // A link into the note itself leads nowhere else.
      if index == link.source { return }
      linksOut[link.note] = true
      reached[index] = true
    }
    self.unresolved = unresolved
    for (note, (rowid, position)) in all.notes.enumerated() where !linksOut[note] {
      deadEnds.insert(rowid)
      if !reached[position] { orphans.insert(rowid) }
    }
  }
}

/// One link as the pass over every link (``AllLinks/resolveEach(_:_:)``) hands it over: positions, not strings.
struct ResolvedLink {
  /// The linking note's rowid.
  var rowid: Int64
  var ordinal: Int
  /// The linking note, as an index into ``AllLinks/notes``.
  var note: Int
  /// The linking note, as a position in the resolver's paths.
  var source: Int
  /// What it reaches; a link into the same note (an empty target: `[[#Heading]]`) reaches `source`.
  var found: LinkResolver.Found
}

/// Every path of the repository in one resolver, for resolving every link: the notes first, in rowid order, then
/// the other files.
struct AllLinks {
  let resolver: LinkResolver
  /// Each note's rowid and position in the resolver's paths. Notes whose paths are the same text in another
  /// Unicode normalization (`Café` in NFC and in NFD: two files to Linux, one name to Swift's string comparison,
  /// which the resolver uses) are one file to the resolver and share a position.
  let notes: [(rowid: Int64, position: Int)]
  /// Each note's index in `notes` by rowid, -1 for none: 4 bytes a note, so that the million lookups in rowid
  /// order at random stay in the processor's cache (an `Int?` a note took 16 bytes, and three quarters of the
  /// pass's own time waited on memory). Rowids far past the number of notes (a table thinned by mass deletions) go
  /// to `farIndexes`.
  private let indexes: [Int32]
  private let farIndexes: [Int64: Int32]
  /// Whether each note's position is its index in `notes` (no twin was dropped), which spares a lookup per link.
  private let positionIsIndex: Bool

  init(_ db: Database) throws {
    var rowids: [Int64] = []
    var paths: [String] = []
    let noteRows = try Row.fetchCursor(db, sql: "SELECT rowid, path FROM note")
    while let row = try noteRows.next() {
      rowids.append(row[0])
      paths.append(row[1])
    }
    let noteCount = paths.count
    paths += try String.fetchAll(db, sql: "SELECT path FROM file")
    Phases.mark("links: paths")
    resolver = LinkResolver(paths: paths)
    positionIsIndex = resolver.paths.count == paths.count
    if positionIsIndex {
      // Nothing was dropped: a note's position is its place in `paths`.
      notes = rowids.enumerated().map { ($0.element, $0.offset) }
    } else {
      // A note the resolver counted as an earlier one's twin takes that one's position.
      var positions: [String: Int] = [:]
      for (position, path) in resolver.paths.enumerated() where positions[path] == nil { positions[path] = position }
      notes = (0..<noteCount).map { (rowids[$0], positions[paths[$0]] ?? 0) }
    }
    let limit = 4 * rowids.count + 4_096
    var indexes = [Int32](repeating: -1, count: max(0, min(limit, Int(rowids.max() ?? 0) + 1)))
    var farIndexes: [Int64: Int32] = [:]
    for (index, rowid) in rowids.enumerated() {
      if rowid >= 0, rowid < indexes.count {
        indexes[Int(rowid)] = Int32(index)
      } else {
        farIndexes[rowid] = Int32(index)
      }
    }
    self.indexes = indexes
    self.farIndexes = farIndexes
    Phases.mark("links: resolver")
  }

  /// The index in `notes` of the note `rowid`.
  private func index(of rowid: Int64) -> Int? {
    if rowid >= 0, rowid < indexes.count {
      let index = indexes[Int(rowid)]
      return index < 0 ? nil : Int(index)
    }
    return farIndexes[rowid].map(Int.init)
  }

  /// Resolves every link: `visit` gets each one with its target, in name key and target order.
  ///
  /// The links are read from the `(name, target)` index alone, so equal targets come together and a target whose
  /// answer is the same from every note (``LinkResolver/findFromAnywhere(target:)``: most of them) is resolved
  /// once, not once per link; the others (relative paths, names several files share) once per link. A target is
  /// compared as SQLite's bytes and made a string only when it changes: most links repeat the target before them.
  func resolveEach(_ db: Database, _ visit: (ResolvedLink, _ target: String) -> Void) throws {
    // Stepped through SQLite's own calls, as the problem rows are read (a cursor's step retains it, a million
    // times); a statement of its own, which GRDB never steps.
    let statement = try db.makeStatement(
      sql: "SELECT target, note, ordinal FROM link INDEXED BY link_name ORDER BY name, target")
    let raw = statement.sqliteStatement
    sqlite3_reset(raw)
    defer { sqlite3_reset(raw) }
    var last: [UInt8] = []
    var target = ""
    var shared: LinkResolver.Found?
    var first = true
    while try NoteIndex.step(statement, db) {
      let text = sqlite3_column_text(raw, 0)
      let count = Int(sqlite3_column_bytes(raw, 0))
      let bytes = UnsafeBufferPointer(start: text, count: text == nil ? 0 : count)
      if first || bytes.count != last.count || bytes.count > 0 && memcmp(bytes.baseAddress!, last, bytes.count) != 0 {
        first = false
        last = Array(bytes)
        target = String(decoding: bytes, as: UTF8.self)
        shared = resolver.findFromAnywhere(target: target)
      }
      // A link row of no note (never left by a refresh) has nothing to report it in.
      let rowid = sqlite3_column_int64(raw, 1)
      guard let note = index(of: rowid) else { continue }
      let source = positionIsIndex ? note : notes[note].position
      let found: LinkResolver.Found
      if target.isEmpty {
        found = .file(source, isAmbiguous: false)
      } else {
        found = shared ?? resolver.find(target: target, from: resolver.paths[source])
      }
      visit(
        ResolvedLink(
          rowid: rowid, ordinal: Int(sqlite3_column_int64(raw, 2)), note: note, source: source, found: found),
        target)
    }
    Phases.mark("links: resolve every link")
  }
}

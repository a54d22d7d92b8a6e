import Foundation
import GRDB
import InboxKit

/// The inbox classifier's counts, kept in the index so that a suggestion reads only the rows of the features it
/// asks about, and a note that changes changes only its own counts.
///
/// - `inbox_notebook`: one row per notebook trained (`documents`, `total`: the notes' summed weights and feature
///   occurrences); `inbox_term`: per (feature, notebook), the feature's occurrences in the notebook's notes. Kept
///   by ``sync(_:root:path:now:attachments:)``: before a note's rows go, its text (from `fts`) is counted out; after
///   the new rows, the new text is counted in. Every note weighs 1, so the counts are whole numbers and exact.
/// - `inbox_decided_notebook`, `inbox_decided_term`: the same for the filing decisions that won, each weighted as
///   ``InboxClassifier/decisionWeight(base:age:)`` at the time they were counted (meta `inbox_decided_epoch`);
///   a decay is the same factor for all of them, so a suggestion multiplies by `0.5^(elapsed / half-life)` rather
///   than recounting. Recounted when the decisions file or a decided note changed (`inbox_decided_note` holds each
///   decided note's folder and mtime as counted; meta `inbox_decided` the decisions file's size and mtime).
/// - meta `inbox_counts`: the notebook left out (the inbox itself) when the counts were built; absent until an
///   inbox command first needs them, so a repository that never uses the inbox pays nothing on each save. Meta
///   `inbox_vocabulary`: the number of distinct features in `inbox_term`.
extension NoteIndex {
  static let inboxSchema = """
    CREATE TABLE inbox_notebook(
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      documents REAL NOT NULL,
      total REAL NOT NULL
    );
    CREATE TABLE inbox_term(
      term TEXT NOT NULL,
      notebook INTEGER NOT NULL,
      count REAL NOT NULL,
      PRIMARY KEY(term, notebook)
    ) WITHOUT ROWID;
    CREATE TABLE inbox_decided_notebook(name TEXT PRIMARY KEY NOT NULL, documents REAL NOT NULL, total REAL NOT NULL);
    CREATE TABLE inbox_decided_term(
      term TEXT NOT NULL,
      notebook TEXT NOT NULL,
      count REAL NOT NULL,
      PRIMARY KEY(term, notebook)
    ) WITHOUT ROWID;
    CREATE TABLE inbox_decided_note(folded_id TEXT PRIMARY KEY NOT NULL, dir TEXT, mtime INTEGER) WITHOUT ROWID;
    """

  /// The text a note is trained on: title, tags and (indexed) body.
  static func inboxText(title: String, tags: [String], body: String) -> String {
    "\(title) \(tags.joined(separator: " ")) \(body)"
  }

  /// The notebook the counts leave out (the inbox), or nil when the counts are not kept.
  static func inboxCountsExclusion(_ db: Database) throws -> String? {
    try String.fetchOne(
      db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'inbox_counts'"))
  }

  static func isTrained(dir: String, excluding inbox: String) -> Bool {
    !dir.isEmpty && dir != inbox
  }

  /// Counts the note with `rowid` out of its notebook, when the counts are kept (before its rows are deleted).
  static func uncountForInbox(_ db: Database, rowid: Int64) throws {
    guard let inbox = try inboxCountsExclusion(db),
      let row = try Row.fetchOne(
        db.cachedStatement(
          sql: "SELECT n.dir, n.title, n.tags, f.body FROM note n JOIN fts f ON f.rowid = n.rowid WHERE n.rowid = ?"),
        arguments: [rowid])
    else { return }
    let dir: String = row[0]
    guard isTrained(dir: dir, excluding: inbox) else { return }
    let text = inboxText(title: row[1], tags: split(row[2]), body: row[3] as String? ?? "")
    try addInboxCounts(db, notebook: dir, tally: tally(InboxText.features(text)), sign: -1)
  }

  /// Counts a note just inserted into its notebook, when the counts are kept.
  static func countForInbox(_ db: Database, dir: String, text: @autoclosure () -> String) throws {
    guard let inbox = try inboxCountsExclusion(db), isTrained(dir: dir, excluding: inbox) else { return }
    try addInboxCounts(db, notebook: dir, tally: tally(InboxText.features(text())), sign: 1)
  }

  static func tally(_ features: [String]) -> [String: Double] {
    var tally: [String: Double] = [:]
    for feature in features { tally[feature, default: 0] += 1 }
    return tally
  }

  /// Adds (`sign` 1) or removes (-1) one note's feature occurrences in `notebook`, keeping the notebook's totals
  /// and the vocabulary size. A count never goes below 0; a row that reaches 0 is deleted.
  static func addInboxCounts(_ db: Database, notebook: String, tally: [String: Double], sign: Double) throws {
    try db.cachedStatement(sql: "INSERT OR IGNORE INTO inbox_notebook(name, documents, total) VALUES (?, 0, 0)")
      .execute(arguments: [notebook])
    guard
      let id = try Int64.fetchOne(
        db.cachedStatement(sql: "SELECT id FROM inbox_notebook WHERE name = ?"), arguments: [notebook])
    else { return }
    let select = try db.cachedStatement(sql: "SELECT count FROM inbox_term WHERE term = ? AND notebook = ?")
    let anyOther = try db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM inbox_term WHERE term = ?)")
    let insert = try db.cachedStatement(sql: "INSERT INTO inbox_term(term, notebook, count) VALUES (?, ?, ?)")
    let update = try db.cachedStatement(sql: "UPDATE inbox_term SET count = ? WHERE term = ? AND notebook = ?")
    let delete = try db.cachedStatement(sql: "DELETE FROM inbox_term WHERE term = ? AND notebook = ?")
    var added = 0.0
    var vocabulary = 0
    for (term, occurrences) in tally {
      let old = try Double.fetchOne(select, arguments: [term, id])
      let new = max((old ?? 0) + sign * occurrences, 0)
      added += new - (old ?? 0)
      switch (old, new > 0) {
      case (nil, true):
        if try Bool.fetchOne(anyOther, arguments: [term]) != true { vocabulary += 1 }
        try insert.execute(arguments: [term, id, new])
      case (nil, false):
        continue
      case (.some, true):
        try update.execute(arguments: [new, term, id])
      case (.some, false):
        try delete.execute(arguments: [term, id])
        if try Bool.fetchOne(anyOther, arguments: [term]) != true { vocabulary -= 1 }
      }
    }
    try db.cachedStatement(
      sql: "UPDATE inbox_notebook SET documents = max(documents + ?, 0), total = max(total + ?, 0) WHERE id = ?"
    ).execute(arguments: [sign, added, id])
    if vocabulary != 0 {
      try db.cachedStatement(
        sql: "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT) WHERE key = 'inbox_vocabulary'"
      ).execute(arguments: [vocabulary])
    }
  }

  // MARK: - Building

  /// Every trained note's counts, one notebook at a time (notes in folder order), for a build.
  static func countNotebooks(
    _ db: Database, excluding inbox: String, progress: ((Int, Int) -> Void)?,
    _ each: (String, NotebookCounts) throws -> Void
  ) throws {
    let notes = try Int.fetchOne(db, sql: "SELECT count(*) FROM note") ?? 0
    let rows = try Row.fetchCursor(
      db,
      sql: "SELECT n.dir, n.title, n.tags, f.body FROM note n JOIN fts f ON f.rowid = n.rowid ORDER BY n.dir")
    var current: String?
    var counts = NotebookCounts()
    var done = 0
    while let row = try rows.next() {
      done += 1
      if done % 200 == 0 { progress?(done, notes) }
      let dir: String = row[0]
      guard isTrained(dir: dir, excluding: inbox) else { continue }
      if dir != current {
        if let current { try each(current, counts) }
        current = dir
        counts = NotebookCounts()
      }
      let text = inboxText(title: row[1], tags: split(row[2]), body: row[3] as String? ?? "")
      for (term, occurrences) in tally(InboxText.features(text)) {
        counts.terms[term, default: 0] += occurrences
        counts.total += occurrences
      }
      counts.documents += 1
    }
    if let current { try each(current, counts) }
    progress?(notes, notes)
  }

  /// Builds the counts of every note (an inbox command's first need, or after the index was rebuilt).
  static func buildInboxCounts(_ db: Database, excluding inbox: String, progress: ((Int, Int) -> Void)?) throws {
    for table in ["inbox_term", "inbox_notebook", "inbox_decided_term", "inbox_decided_notebook", "inbox_decided_note"]
    {
      try db.execute(sql: "DELETE FROM \(table)")
    }
    let insertNotebook = try db.makeStatement(
      sql: "INSERT INTO inbox_notebook(name, documents, total) VALUES (?, ?, ?)")
    let insertTerm = try db.makeStatement(sql: "INSERT INTO inbox_term(term, notebook, count) VALUES (?, ?, ?)")
    try countNotebooks(db, excluding: inbox, progress: progress) { name, counts in
      try insertNotebook.execute(arguments: [name, counts.documents, counts.total])
      let id = db.lastInsertedRowID
      for (term, count) in counts.terms { try insertTerm.execute(arguments: [term, id, count]) }
    }
    let vocabulary = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT DISTINCT term FROM inbox_term)") ?? 0
    try setMeta(db, "inbox_vocabulary", String(vocabulary))
    try setMeta(db, "inbox_decided", nil)
    try setMeta(db, "inbox_counts", inbox)
  }

  // MARK: - Decisions

  /// A filing decision as counted: the decided note's text, in the notebook chosen, with its weight at `epoch`.
  struct CountedDecision {
    var foldedID: String
    var dir: String?
    var mtime: Int64?
    var notebook: String
    var text: String
    var weight: Double
  }

  /// The decided notes as they are now: folder, mtime and text by folded id.
  static func decidedNotes(_ db: Database, foldedIDs: [String]) throws -> [String: (
    dir: String, mtime: Int64, text: String
  )] {
    var found: [String: (dir: String, mtime: Int64, text: String)] = [:]
    let statement = try db.cachedStatement(
      sql: """
        SELECT n.dir, n.mtime, n.title, n.tags, f.body FROM note n JOIN fts f ON f.rowid = n.rowid
        WHERE n.note_id_folded = ? ORDER BY n.path LIMIT 1
        """)
    for id in foldedIDs {
      guard let row = try Row.fetchOne(statement, arguments: [id]) else { continue }
      found[id] = (row[0], row[1], inboxText(title: row[2], tags: split(row[3]), body: row[4] as String? ?? ""))
    }
    return found
  }

  /// Whether the decisions counted still match the decisions file (`stamp`) and the decided notes.
  static func decidedCountsAreCurrent(_ db: Database, stamp: String) throws -> Bool {
    guard try meta(db, "inbox_decided") == stamp else { return false }
    let changed = try Bool.fetchOne(
      db,
      sql: """
        SELECT EXISTS(
          SELECT 1 FROM inbox_decided_note d
          WHERE d.dir IS NOT (SELECT n.dir FROM note n WHERE n.note_id_folded = d.folded_id ORDER BY n.path LIMIT 1)
             OR d.mtime IS NOT (SELECT n.mtime FROM note n WHERE n.note_id_folded = d.folded_id ORDER BY n.path LIMIT 1))
        """)
    return changed == false
  }

  /// Replaces the decided counts with `decisions`, counted at `epoch`.
  static func storeDecidedCounts(
    _ db: Database, _ decisions: [CountedDecision], consulted: [String: (dir: String?, mtime: Int64?)], stamp: String,
    epoch: Date
  ) throws {
    for table in ["inbox_decided_term", "inbox_decided_notebook", "inbox_decided_note"] {
      try db.execute(sql: "DELETE FROM \(table)")
    }
    var notebooks: [String: NotebookCounts] = [:]
    for decision in decisions {
      var counts = notebooks[decision.notebook] ?? NotebookCounts()
      for (term, occurrences) in tally(InboxText.features(decision.text)) {
        counts.terms[term, default: 0] += occurrences * decision.weight
        counts.total += occurrences * decision.weight
      }
      counts.documents += decision.weight
      notebooks[decision.notebook] = counts
    }
    let insertTerm = try db.makeStatement(
      sql: "INSERT INTO inbox_decided_term(term, notebook, count) VALUES (?, ?, ?)")
    for (name, counts) in notebooks {
      try db.execute(
        sql: "INSERT INTO inbox_decided_notebook(name, documents, total) VALUES (?, ?, ?)",
        arguments: [name, counts.documents, counts.total])
      for (term, count) in counts.terms { try insertTerm.execute(arguments: [term, name, count]) }
    }
    let insertNote = try db.makeStatement(
      sql: "INSERT OR REPLACE INTO inbox_decided_note(folded_id, dir, mtime) VALUES (?, ?, ?)")
    for (id, state) in consulted { try insertNote.execute(arguments: [id, state.dir, state.mtime]) }
    try setMeta(db, "inbox_decided_epoch", String(epoch.timeIntervalSince1970))
    try setMeta(db, "inbox_decided", stamp)
  }

  // MARK: - Reading a slice

  /// The counts of `features` in every notebook, with the notebooks' totals, the decided counts decayed to `now`
  /// added in; and the vocabulary size. Enough for an ``InboxClassifier`` slice to answer about texts made of
  /// these features exactly as the whole model would.
  static func inboxSlice(_ db: Database, features: Set<String>, now: Date) throws -> (
    notebooks: [String: NotebookCounts], vocabulary: Int
  ) {
    let epoch = try meta(db, "inbox_decided_epoch").flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
    let elapsed = epoch.map { max(now.timeIntervalSince($0), 0) } ?? 0
    let decay = pow(0.5, elapsed / InboxClassifier.decisionHalfLife)
    var names: [Int64: String] = [:]
    var notebooks: [String: NotebookCounts] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT id, name, documents, total FROM inbox_notebook WHERE documents > 0") {
      names[row[0]] = row[1]
      notebooks[row[1]] = NotebookCounts(terms: [:], total: row[3], documents: row[2])
    }
    for row in try Row.fetchAll(db, sql: "SELECT name, documents, total FROM inbox_decided_notebook") {
      var counts = notebooks[row[0]] ?? NotebookCounts()
      counts.documents += decay * (row[1] as Double)
      counts.total += decay * (row[2] as Double)
      notebooks[row[0]] = counts
    }
    let terms = Array(features)
    // Chunks under SQLite's default limit of bound parameters.
    for start in stride(from: 0, to: terms.count, by: 500) {
      let chunk = Array(terms[start..<min(start + 500, terms.count)])
      let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
      let rows = try Row.fetchCursor(
        db, sql: "SELECT term, notebook, count FROM inbox_term WHERE term IN (\(marks))",
        arguments: StatementArguments(chunk))
      while let row = try rows.next() {
        guard let name = names[row[1]] else { continue }
        notebooks[name]?.terms[row[0]] = row[2]
      }
      let decided = try Row.fetchCursor(
        db, sql: "SELECT term, notebook, count FROM inbox_decided_term WHERE term IN (\(marks))",
        arguments: StatementArguments(chunk))
      while let row = try decided.next() {
        let name: String = row[1]
        let term: String = row[0]
        notebooks[name, default: NotebookCounts()].terms[term, default: 0] += decay * (row[2] as Double)
      }
    }
    let vocabulary = try meta(db, "inbox_vocabulary").flatMap(Int.init) ?? 0
    return (notebooks, vocabulary)
  }
}

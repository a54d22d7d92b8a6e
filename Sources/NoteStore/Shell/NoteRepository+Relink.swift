import Foundation
import GRDB
import LinkKit

/// One note whose links a rename, a move or a new note rewrote.
public struct RelinkedNote: Equatable, Sendable {
  /// The note's path after the change (the new path of a note that moved itself).
  public var path: String
  /// Every replacement, in text order (byte ranges into the note's text before the change).
  public var edits: [LinkEdit]
  /// Those of `edits` made to links to files that did not move, written longer because a new name made them
  /// ambiguous (or would have taken them over): they keep reaching the file they reached.
  public var disambiguations: [LinkEdit]

  /// Links rewritten to follow a file that moved (or, in a note that moved, relative links out of it).
  public var followed: Int { edits.count - disambiguations.count }
  /// Links written longer to stay unambiguous.
  public var disambiguated: Int { disambiguations.count }

  /// A result as given.
  public init(path: String, edits: [LinkEdit], disambiguations: [LinkEdit]) {
    self.path = path
    self.edits = edits
    self.disambiguations = disambiguations
  }
}

/// A link that stopped reaching its file and could not be rewritten in its own form (see
/// ``LinkRewrite/unwritable``); it is left as it was and reported.
public struct UnwritableLink: Equatable, Sendable {
  /// The note holding it (after the change).
  public var path: String
  /// Its 1-based line.
  public var line: Int
  /// Its path part as written (decoded).
  public var target: String

  /// A link as given.
  public init(path: String, line: Int, target: String) {
    self.path = path
    self.line = line
    self.target = target
  }
}

/// What keeping links working after files moved or appeared did, in one commit with the change itself.
public struct RelinkReport: Equatable, Sendable {
  /// The notes rewritten, in path order.
  public var notes: [RelinkedNote] = []
  /// Links that broke and could not be written in their form, left as they were.
  public var unwritable: [UnwritableLink] = []
  /// Notes that may link to the moved files but could not be read as UTF-8, left as they were.
  public var unreadable: [String] = []

  /// Links rewritten in all, both kinds.
  public var linkCount: Int { notes.reduce(0) { $0 + $1.edits.count } }
  /// Links made longer because a name became ambiguous.
  public var disambiguatedCount: Int { notes.reduce(0) { $0 + $1.disambiguated } }

  /// An empty report.
  public init() {}

  /// One line per link written longer because a new name made it ambiguous — `Index.md:3: 'Plan' -> 'b/Plan'
  /// (…)` — for a command to show on standard error.
  public var disambiguationLines: [String] {
    notes.flatMap { note in
      note.disambiguations.map {
        "\(note.path):\($0.line): link '\($0.old)' rewritten as '\($0.new)': a new name made it ambiguous, it still reaches the same file"
      }
    }
  }

  /// One line per link left broken because its form cannot reach the file, and per note that could not be read.
  public var problemLines: [String] {
    unwritable.map {
      "\($0.path):\($0.line): link '\($0.target)' no longer reaches its file and cannot be written in its form to reach it; left as it was"
    } + unreadable.map { "\($0): not UTF-8, its links were not checked" }
  }
}

/// The link rewrites a change will make, computed before any file is touched.
struct RelinkPlan {
  /// New text per note, keyed by the note's path before the change.
  var texts: [String: (text: String, old: Data, id: String?)] = [:]
  var report = RelinkReport()
}

extension NoteRepository {
  /// Whether notes being added could change what any existing link reaches: only links keyed like one of them
  /// can be (``LinkResolver/nameKey(path:)``). Asked of the index brought up to date with commits but without a walk
  /// of the work tree, so that `nb add` of a name nothing links to costs no walk; a link in a note edited outside nb
  /// and not yet committed nor seen by any command is missed (`nb check links` reports it if it became ambiguous).
  /// An index that was never built is built here, as by any command that reads it.
  func addedNotesMayAffectLinks(_ added: [String]) throws -> Bool {
    let keys = Array(Set(added.filter { !NoteIndex.isHidden($0) }.map(LinkResolver.nameKey(path:))))
    guard !keys.isEmpty else { return false }
    return try index.read(walking: false) { db in
      var found = false
      try Self.sliced(keys) { marks, arguments in
        found = try found
          || Bool.fetchOne(db, sql: "SELECT 1 FROM link WHERE name IN (\(marks)) LIMIT 1", arguments: arguments) == true
      }
      return found
    }
  }

  /// Calls `body` with `values` in slices of 500 and as many `?` marks: SQLite takes at most 32 766 parameters, and
  /// long lists (a notebook of many names) are asked in slices.
  static func sliced<T: DatabaseValueConvertible>(
    _ values: [T], _ body: (_ marks: String, StatementArguments) throws -> Void
  ) rethrows {
    for start in stride(from: 0, to: values.count, by: 500) {
      let slice = Array(values[start..<min(values.count, start + 500)])
      try body(Array(repeating: "?", count: slice.count).joined(separator: ","), StatementArguments(slice))
    }
  }

  /// The rewrites that keep every link working when the files in `moves` (old path -> new path, every file that
  /// moves: notes, sidecars, attachments) move and the files `added` appear, with nothing else changed.
  ///
  /// Which notes can be affected is answered from the index: a link only ever reaches a file of its own name key
  /// (``LinkResolver/nameKey(path:)``), so the candidates are the notes holding a link keyed like a moved or added
  /// file, plus the moved notes themselves (their relative links, and links found through their own folder). Each
  /// candidate is read from disk and handed to ``LinkRewriter``, with one resolver over the files its links can reach
  /// (those of their keys) as they are before the change and one as they will be after it: a link is rewritten only when it would otherwise reach another file, no file, or become
  /// ambiguous — its path bytes alone, in its own form. `skip` are notes never rewritten (the notes being added).
  func relinkPlan(moves: [String: String], added: [String] = [], skip: Set<String> = []) throws -> RelinkPlan {
    // Hidden files (a notebook's `.notebook.yaml`) are nothing any link can reach, as for the index.
    let moves = moves.filter { !NoteIndex.isHidden($0.key) && $0.key != $0.value }
    let added = added.filter { !NoteIndex.isHidden($0) }
    guard !moves.isEmpty || !added.isEmpty else { return RelinkPlan() }
    var keys = Set(added.map(LinkResolver.nameKey(path:)))
    for (from, to) in moves {
      keys.insert(LinkResolver.nameKey(path: from))
      keys.insert(LinkResolver.nameKey(path: to))
    }
    let movedNotes = moves.keys.filter { RepoPaths.isNotePath($0) }
    Phases.mark("before plan")
    let (paths, candidates) = try index.read { db -> (Set<String>, [String: String?]) in
      var candidates: [String: String?] = [:]
      var movedRowids: [Int64] = []
      func collect(_ rows: [Row], moved: Bool = false) {
        for row in rows {
          candidates[row[0]] = row[1] as String?
          if moved { movedRowids.append(row[2]) }
        }
      }
      try Self.sliced(Array(keys)) { marks, arguments in
        collect(
          try Row.fetchAll(
            db,
            sql: """
              SELECT path, note_id, rowid FROM note
              WHERE rowid IN (SELECT DISTINCT note FROM link WHERE name IN (\(marks)))
              """, arguments: arguments))
      }
      try Self.sliced(movedNotes) { marks, arguments in
        collect(
          try Row.fetchAll(
            db, sql: "SELECT path, note_id, rowid FROM note WHERE path IN (\(marks))", arguments: arguments),
          moved: true)
      }
      // The files the links that can change reach. A link only ever reaches a file of its own name key, so in a
      // note that stays, only links keyed like what moves or appears can reach another file after the change:
      // the files of those keys answer them exactly as every path would, and every other link resolves to
      // nothing here and is left alone. A moved note's relative links can change whatever they reach: the files
      // named like any of its links too. (A rename's thousand linking notes hold ten thousand other links.)
      var paths = Set<String>()
      let pathsByKey =
        "SELECT path FROM note WHERE link_name IN (%@) UNION ALL SELECT path FROM file WHERE name IN (%@)"
      try Self.sliced(Array(keys)) { marks, arguments in
        let sql = pathsByKey.replacingOccurrences(of: "%@", with: marks)
        paths.formUnion(try String.fetchAll(db, sql: sql, arguments: arguments + arguments))
      }
      try Self.sliced(movedRowids) { marks, arguments in
        let names = "SELECT name FROM link WHERE note IN (\(marks))"
        let sql = pathsByKey.replacingOccurrences(of: "%@", with: names)
        paths.formUnion(try String.fetchAll(db, sql: sql, arguments: arguments + arguments))
      }
      Phases.mark("plan: candidates query")
      return (paths, candidates)
    }
    // Built from the paths alone, whatever the index already saw of this change: before = the files as they were,
    // after = the files as they will be.
    let newPaths = Set(moves.values).union(added)
    let oldPaths = Set(moves.keys)
    let existing = paths.subtracting(newPaths).subtracting(oldPaths)
    let before = LinkResolver(paths: Array(existing.union(oldPaths)))
    let after = LinkResolver(paths: Array(existing.union(newPaths)))

    // Each candidate is read and rewritten on its own (a rename's thousand in parallel, on every core); the plan is
    // then put together in path order, as one thread would have.
    enum Outcome {
      case unchanged(unwritable: [UnwritableLink])
      case unreadable(String)
      case rewritten(text: String, old: Data, unwritable: [UnwritableLink], note: RelinkedNote)
    }
    let sources = candidates.keys.sorted().filter { !skip.contains($0) && !newPaths.contains($0) }
    let root = self.root.path
    let outcomes = sources.concurrentMap { source -> Outcome? in
      let place = moves[source] ?? source
      guard let data = try? FileSystem.read(root + "/" + source) else { return nil }
      guard let text = Self.decodeUTF8(data) else { return .unreadable(place) }
      let rewrite = LinkRewriter.rewrite(
        text, source: source, newSource: moves[source], moves: moves, before: before, after: after)
      let unwritable = rewrite.unwritable.map { UnwritableLink(path: place, line: $0.line, target: $0.target) }
      guard !rewrite.edits.isEmpty else { return .unchanged(unwritable: unwritable) }
      // Which edits only disambiguate: in a note that stays, those whose link reached a file that does not move.
      var disambiguations: [LinkEdit] = []
      if moves[source] == nil {
        var reached: [Int: String] = [:]
        for link in LinkScanner.links(in: text) {
          if let path = before.resolve(link, from: source).path { reached[link.targetRange.lowerBound] = path }
        }
        disambiguations = rewrite.edits.filter { edit in
          reached[edit.range.lowerBound].map { !oldPaths.contains($0) } ?? false
        }
      }
      return .rewritten(
        text: rewrite.text, old: data, unwritable: unwritable,
        note: RelinkedNote(path: place, edits: rewrite.edits, disambiguations: disambiguations))
    }
    var plan = RelinkPlan()
    for (source, outcome) in zip(sources, outcomes) {
      switch outcome {
      case nil: continue
      case .unreadable(let place): plan.report.unreadable.append(place)
      case .unchanged(let unwritable): plan.report.unwritable += unwritable
      case .rewritten(let text, let old, let unwritable, let note):
        plan.report.unwritable += unwritable
        plan.texts[source] = (text, old, candidates[source] ?? nil)
        plan.report.notes.append(note)
      }
    }
    plan.report.notes.sort { $0.path < $1.path }
    Phases.mark("plan: rewrite \(plan.texts.count) notes")
    return plan
  }

  /// Writes the plan's notes other than `except` (by old path) at their paths after the change, with the files of
  /// `also` (the moved note's own edit), in one journaled batch, naming each note with an id in the commit. Linking
  /// notes are not stamped: only their link bytes change.
  func apply(
    _ plan: RelinkPlan, moves: [String: String], except: Set<String> = [],
    also: [(path: String, data: Data, old: Data?)] = [], in tx: inout Transaction
  ) throws {
    var files = also
    for (source, planned) in plan.texts.sorted(by: { $0.key < $1.key }) where !except.contains(source) {
      files.append((moves[source] ?? source, Data(planned.text.utf8), planned.old))
      tx.note(planned.id)
    }
    try tx.write(all: files)
  }
}

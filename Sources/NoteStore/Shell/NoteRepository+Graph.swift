import Foundation
import GRDB
import LinkKit

/// Notes and the links between them (`nb graph`): the notes a query matched, and every link from one of them that
/// reaches another of them.
public struct NoteGraph: Equatable, Sendable {
  /// The notes, as ``NoteRepository/notes(matching:)`` returns them.
  public var notes: [NoteHit]
  /// The links from one of `notes` to another (its ``IndexedLink/resolution`` path is that note's path), in source
  /// path and text order. A link into its own note (`[[#Heading]]`, a note naming itself) is left out: it joins
  /// nothing; so are links to notes outside the selection, to attachments, and unresolved ones.
  public var links: [IndexedLink]

  /// A graph as given.
  public init(notes: [NoteHit], links: [IndexedLink]) {
    self.notes = notes
    self.links = links
  }
}

extension NoteRepository {
  /// The notes `query` matches (sorted and paged as it asks) and the links among them, answered from the index
  /// alone: no note is read.
  /// - Throws: ``NoteStoreError/badQuery(_:)`` for a query that cannot be understood.
  public func graph(matching query: NoteQuery) throws -> NoteGraph {
    let hits = try notes(matching: query)
    let paths = Set(hits.map(\.note.path))
    guard !paths.isEmpty else { return NoteGraph(notes: hits, links: []) }
    let links = try index.read { db in try NoteIndex.links(db, among: paths) }
    return NoteGraph(notes: hits, links: links)
  }
}

extension NoteIndex {
  /// Above this many name keys the resolver is built over every path instead of over the files of those keys (a
  /// statement holds at most 999 arguments in older SQLite builds, and the key list goes in twice).
  static let graphKeyLimit = 400

  /// The links from one of the notes at `paths` to another, in source path and text order.
  ///
  /// A link can only reach a file of its own name key (``LinkResolver/nameKey(path:)``), so only the rows whose key
  /// is one of the selected notes' keys are read, and they resolve over just the files of those keys exactly as over
  /// every path.
  static func links(_ db: Database, among paths: Set<String>) throws -> [IndexedLink] {
    let noteKey = try db.cachedStatement(sql: "SELECT rowid, link_name FROM note WHERE path = ?")
    var rowids: [Int64: String] = [:]
    var keys = Set<String>()
    for path in paths {
      guard let row = try Row.fetchOne(noteKey, arguments: [path]) else { continue }
      rowids[row[0]] = path
      keys.insert(row[1])
    }
    let resolver: LinkResolver
    if keys.count > graphKeyLimit {
      resolver = LinkResolver(
        paths: try String.fetchAll(db, sql: "SELECT path FROM note UNION ALL SELECT path FROM file"))
    } else {
      let list = Array(keys)
      resolver = try self.resolver(
        db, keys: list.map { _ in "?" }.joined(separator: ","), StatementArguments(list))
    }
    let rows = try db.cachedStatement(
      sql: "SELECT l.ordinal, l.target, l.name FROM link l WHERE l.note = ? ORDER BY l.ordinal")
    let full = try db.cachedStatement(
      sql: "SELECT \(linkColumns) FROM link l JOIN note n ON n.rowid = l.note WHERE l.note = ? AND l.ordinal = ?")
    var result: [IndexedLink] = []
    for (rowid, source) in rowids.sorted(by: { $0.value < $1.value }) {
      let cursor = try Row.fetchCursor(rows, arguments: [rowid])
      var found: [(Int, LinkResolution)] = []
      while let row = try cursor.next() {
        let target: String = row[1]
        guard !target.isEmpty, keys.contains(row[2] as String) else { continue }
        let resolution = resolver.resolve(target: target, from: source)
        guard let path = resolution.path, path != source, paths.contains(path) else { continue }
        found.append((row[0], resolution))
      }
      for (ordinal, resolution) in found {
        if let row = try Row.fetchOne(full, arguments: [rowid, ordinal]) {
          result.append(indexedLink(row, resolution: resolution))
        }
      }
    }
    return result
  }
}

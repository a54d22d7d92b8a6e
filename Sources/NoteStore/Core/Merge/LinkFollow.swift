import Foundation
import LinkKit

/// One link a sync merge rewrote because the file it reached on the side that wrote it moved on the other side.
public struct FollowedLink: Equatable, Sendable {
  /// The note the link is in, at its path after the merge.
  public var path: String
  /// 1-based line of the link in the merged note.
  public var line: Int
  /// The link's path part as it was written (`Old%20name.md`, `Plan`).
  public var old: String
  /// What the merge commit holds instead (`New%20name.md`, `Roadmap`).
  public var new: String

  /// A rewritten link as given.
  public init(path: String, line: Int, old: String, new: String) {
    self.path = path
    self.line = line
    self.old = old
    self.new = new
  }
}

/// The rename-versus-new-link race of a sync: one device renames or moves a note while another writes a link to its
/// old name. Each side's text is right on its own side and the merge takes both, so without this the link that
/// worked on one device reaches nothing — or another file — once the devices have synced. Pure: paths and texts in,
/// texts and a report out; no disk, no git.
///
/// A link is followed when a side whose version of the note holds it (the same bytes) resolved it to a file, and
/// after the merge it no longer reaches that file (at the path the merge put it): exactly its path part is rewritten
/// by ``LinkRewriter`` in the form it had. It is left alone when it was unresolved on every side that holds it, when
/// it still works for any side that holds it (that device's link must not change meaning under it), and when no
/// form of it can reach the file (the file was deleted, a name a wiki link cannot hold).
enum LinkFollow {
  /// A note as one side had it.
  struct Version: Equatable {
    var path: String
    var text: String
  }

  /// A note the merge takes changed (in content or path) from at least one side: its merged path and text, and the
  /// versions the sides had (nil where a side has none, or none it can be read as text).
  struct Note: Equatable {
    var path: String
    var text: String
    var ours: Version?
    var theirs: Version?
  }

  /// One side's tree as links resolve over it: every file path (notes and others), and `moves`, each path of that
  /// side whose file the merge put somewhere else -> that place.
  struct Side: Equatable {
    var paths: [String]
    var moves: [String: String]
  }

  /// The notes whose text changed (merged path -> new text) and every link rewritten, in path and line order.
  struct Result: Equatable {
    var texts: [String: String] = [:]
    var followed: [FollowedLink] = []
  }

  /// Follows the links of `notes` that the merge broke. `merged` is every path of the merged tree.
  static func follow(merged: [String], ours: Side, theirs: Side, notes: [Note]) -> Result {
    var scanned: [(note: Note, links: [NoteLink])] = []
    // A link only ever resolves to a file of its name key (LinkResolver.nameKey), and every candidate the rewriter
    // tries ends like the file it must reach: resolvers over just the files of those keys answer exactly as ones
    // over the whole repository would, so a merge in a large repository builds three small dictionaries.
    var keys: Set<String> = []
    for note in notes {
      let links = LinkScanner.links(in: note.text).filter { !$0.target.isEmpty }
      guard !links.isEmpty else { continue }
      scanned.append((note, links))
      let sources = [note.path] + [note.ours?.path, note.theirs?.path].compactMap { $0 }
      for link in links {
        for source in sources { keys.insert(LinkResolver.nameKey(target: link.target, from: source)) }
      }
    }
    guard !scanned.isEmpty else { return Result() }
    for side in [ours, theirs] {
      for (old, new) in side.moves where keys.contains(LinkResolver.nameKey(path: old)) {
        keys.insert(LinkResolver.nameKey(path: new))
      }
    }
    // The three trees share most paths: each is keyed once.
    var kept: [String: Bool] = [:]
    let relevant = { (paths: [String]) -> [String] in
      paths.filter { path in
        if let known = kept[path] { return known }
        let keep = keys.contains(LinkResolver.nameKey(path: path))
        kept[path] = keep
        return keep
      }
    }
    let after = LinkResolver(paths: relevant(merged))
    let sides: [(side: Side, before: LinkResolver, version: (Note) -> Version?)] = [
      (theirs, LinkResolver(paths: relevant(theirs.paths)), { $0.theirs }),
      (ours, LinkResolver(paths: relevant(ours.paths)), { $0.ours }),
    ]

    var result = Result()
    // In path order, each note's edits in text order: the report is sorted as it is made.
    for (note, links) in scanned.sorted(by: { $0.note.path < $1.note.path }) {
      let merged = Array(note.text.utf8)
      let raw = { (link: NoteLink) in String(decoding: merged[link.range], as: UTF8.self) }
      var proposed: [Int: LinkEdit] = [:]
      var works: Set<Int> = []
      for (side, before, version) in sides {
        guard let version = version(note) else { continue }
        let bytes = Array(version.text.utf8)
        let held = Set(
          LinkScanner.links(in: version.text).map { String(decoding: bytes[$0.range], as: UTF8.self) })
        let rewrite = LinkRewriter.rewrite(
          note.text, source: version.path, newSource: note.path, moves: side.moves, before: before, after: after)
        let edits = Dictionary(rewrite.edits.map { ($0.range.lowerBound, $0) }, uniquingKeysWith: { a, _ in a })
        let unwritable = Set(rewrite.unwritable.map(\.targetRange.lowerBound))
        for link in links where held.contains(raw(link)) {
          let start = link.targetRange.lowerBound
          if let edit = edits[start] {
            if proposed[start] == nil { proposed[start] = edit }
          } else if !unwritable.contains(start),
            before.resolve(target: link.target, from: version.path) != .unresolved
          {
            // It reached a file on this side and still reaches it: whatever the other side wants, this device's
            // link keeps its meaning.
            works.insert(start)
          }
        }
      }
      let edits = proposed.filter { !works.contains($0.key) }.values.sorted {
        $0.range.lowerBound < $1.range.lowerBound
      }
      guard !edits.isEmpty else { continue }
      result.texts[note.path] = LinkRewriter.apply(edits, to: merged)
      result.followed += edits.map { FollowedLink(path: note.path, line: $0.line, old: $0.old, new: $0.new) }
    }
    return result
  }
}

extension PolicyRun {
  /// The sync policy's hook: after the notes are placed, follows the links the merge broke in the notes it takes
  /// changed from a side (conflict copies stay byte for byte the version that lost), and records what it rewrote.
  ///
  /// The moves come from the placements: a note (matched by id) that a side had at one path and the merge put at
  /// another — the other side's rename or move, or a path clash. A file other than a note has no id; one a side had
  /// that the merge dropped, while a new path holds the very same content, counts as moved there (an attachment
  /// renamed or moved with its note's folder).
  mutating func followLinks(groups: [NoteGroup], ours: [String: FileVersion], theirs: [String: FileVersion]) {
    let byKey = Dictionary(groups.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    var ourMoves: [String: String] = [:]
    var theirMoves: [String: String] = [:]
    var notes: [LinkFollow.Note] = []
    let split = Set(placements.map(\.groupKey).filter { $0.hasSuffix("#theirs") }.map { String($0.dropLast(7)) })
    for placement in placements {
      var entries: (base: NoteEntry?, ours: NoteEntry?, theirs: NoteEntry?)
      if placement.groupKey.hasSuffix("#theirs") {
        entries = (nil, nil, byKey[String(placement.groupKey.dropLast(7))]?.theirs)
      } else if let group = byKey[placement.groupKey] {
        // Two different notes created at one path are two placements: this one is ours alone.
        entries = (group.base, group.ours, split.contains(group.key) ? nil : group.theirs)
      } else {
        continue
      }
      if let entry = entries.ours, entry.path != placement.finalPath { ourMoves[entry.path] = placement.finalPath }
      if let entry = entries.theirs, entry.path != placement.finalPath { theirMoves[entry.path] = placement.finalPath }
      let changed = { (entry: NoteEntry?) -> Bool in
        guard let entry else { return false }
        guard let base = entries.base else { return true }
        return base.path != entry.path || base.version.content != entry.version.content
      }
      guard changed(entries.ours) || changed(entries.theirs),
        let bytes = tree[placement.finalPath]?.data, let text = String(data: bytes, encoding: .utf8)
      else { continue }
      let version = { (entry: NoteEntry?) in
        entry.flatMap { e in e.text.map { LinkFollow.Version(path: e.path, text: $0) } }
      }
      notes.append(
        LinkFollow.Note(
          path: placement.finalPath, text: text, ours: version(entries.ours), theirs: version(entries.theirs)))
    }
    guard !notes.isEmpty else { return }
    fileMoves(from: ours, into: &ourMoves)
    fileMoves(from: theirs, into: &theirMoves)
    let result = LinkFollow.follow(
      merged: Array(tree.keys), ours: LinkFollow.Side(paths: Array(ours.keys), moves: ourMoves),
      theirs: LinkFollow.Side(paths: Array(theirs.keys), moves: theirMoves), notes: notes)
    for (path, text) in result.texts { tree[path] = .bytes(Data(text.utf8)) }
    report.followedLinks = result.followed
  }

  /// Files of `side` (not notes) the merge dropped whose exact content sits at exactly one path new to the merged
  /// tree: moved there. Compared by content id, so nothing is read.
  private func fileMoves(from side: [String: FileVersion], into moves: inout [String: String]) {
    var arrived: [String: [String]] = [:]
    for (path, content) in tree where side[path] == nil && !RepoPaths.isNotePath(path) {
      if let id = content.storedID { arrived[id, default: []].append(path) }
    }
    guard !arrived.isEmpty else { return }
    for (path, version) in side where tree[path] == nil && !RepoPaths.isNotePath(path) {
      if let id = version.content.storedID, let places = arrived[id], places.count == 1 { moves[path] = places[0] }
    }
  }
}

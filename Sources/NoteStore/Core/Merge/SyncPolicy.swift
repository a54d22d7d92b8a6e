import Foundation
import InboxKit
import InkKit

/// The sync conflict policy: how the trees of two devices that diverged from a common ancestor become one tree,
/// with nothing anyone wrote lost.
///
/// A pure function of its inputs: the same trees, device name and `now` give the same tree and report, byte for
/// byte (new ids of conflict copies are derived from the inputs, not drawn at random). The remote's side
/// (`theirs`) wins ties and untrusted timestamps, so that every device applying the policy picks the same winner.
/// The roles matter in three more places, by design: a merged note is `ours` with lines edited (keys only
/// `theirs` added go at the end of ours' block), in a path clash the local note keeps the path, and a conflict copy
/// whose version's maker is unknown (``FileVersion/author`` nil) is named after `device`, the device running the
/// merge.
enum SyncPolicy {
  /// The most notes a merge may delete without `force`.
  static let maxDeletedNotes = 50
  /// How far in the future (relative to `now`) an edit time may be before it is no longer trusted.
  static let futureTolerance: TimeInterval = 24 * 60 * 60

  /// Merges the trees `ours` (the local device) and `theirs` (the remote) against their merge base `base`.
  ///
  /// Paths are repository-relative with `/` separators. `device` names the device running the merge; it goes into
  /// the names of conflict copies whose version's maker is unknown. Without `force`, a result that deletes more than ``maxDeletedNotes`` of the local
  /// notes, or every file of a notebook that held a local note, is refused as `.needsForce`.
  static func resolve(
    base: [String: FileVersion], ours: [String: FileVersion], theirs: [String: FileVersion], device: String,
    now: Date, force: Bool = false
  ) -> SyncResolution {
    switch merge(base: base, ours: ours, theirs: theirs, device: device, now: now, force: force) {
    case .merged(let tree, let report): .resolved(tree: tree.mapValues { $0.data ?? Data() }, report: report)
    case .needsForce(let reason): .needsForce(reason: reason)
    }
  }

  /// ``resolve(base:ours:theirs:device:now:force:)`` over contents that may still be unread: a file whose stored
  /// content is the same on all three sides is carried into the result unread (and, being the same everywhere,
  /// takes part in no conflict), so a merge in a 100 000-note repository reads only what changed.
  ///
  /// `attachmentFolders` (format 2): files inside an attachment folder (judged in each side's own tree) are plain
  /// files, never notes, whatever their name — a `.md` attachment changed on both sides is resolved as a binary.
  static func merge(
    base: [String: FileVersion], ours: [String: FileVersion], theirs: [String: FileVersion], device: String,
    now: Date, force: Bool = false, attachmentFolders: Bool = false
  ) -> SyncMerge {
    var run = PolicyRun(device: device, now: now)
    let unchanged = Set(
      ours.keys.filter { path in
        guard let id = ours[path]?.content.storedID else { return false }
        return base[path]?.content.storedID == id && theirs[path]?.content.storedID == id
      })
    // A note the same on every side (its sidecar too, and a note in every side's tree) decides nothing: matched by
    // path alone, it would keep its path, bytes and sidecar. It goes into the result as it is, before the placements —
    // where it would have landed anyway, since a local note never has to give way — so that the work below grows
    // with what changed, not with the repository.
    let settled = Set(
      unchanged.filter { path in
        guard SideTree.isNote(path) else { return false }
        let sidecar = RepoPaths.sidecars(of: path)[0]
        guard unchanged.contains(sidecar) || (base[sidecar] == nil && ours[sidecar] == nil && theirs[sidecar] == nil)
        else { return false }
        return !SideTree.mayBeAttachment(path, attachmentFolders: attachmentFolders)
          || [base, ours, theirs].allSatisfy { SideTree.isNote(path, in: $0, attachmentFolders: attachmentFolders) }
      })
    for path in settled {
      run.tree[path] = ours[path]!.content
      let sidecar = RepoPaths.sidecars(of: path)[0]
      if let version = ours[sidecar] { run.tree[sidecar] = version.content }
    }
    // A version one side left as the base had it is the same stored file on both: read and parsed once.
    let parsed = ParsedNotes()
    parsed.prefetch(
      [base, ours, theirs].flatMap { tree in
        tree.compactMap { path, version in
          settled.contains(path) || unchanged.contains(path)
            || !SideTree.isNote(path, in: tree, attachmentFolders: attachmentFolders) ? nil : version.content
        }
      })
    func side(_ tree: [String: FileVersion]) -> SideTree {
      SideTree(tree, unread: unchanged, settled: settled, attachmentFolders: attachmentFolders, parsed: parsed)
    }
    let (baseSide, ourSide, theirSide) = (side(base), side(ours), side(theirs))
    let groups = NoteGroup.match(base: baseSide.notes, ours: ourSide.notes, theirs: theirSide.notes)
    for group in groups { run.resolve(group) }
    run.place()
    run.resolveFiles(base: baseSide.files, ours: ourSide.files, theirs: theirSide.files)
    run.placeCopies()
    run.followLinks(groups: groups, ours: ours, theirs: theirs)
    if !force, let reason = deletionProblem(ours: ourSide.notes, groups: groups, tree: run.tree, run: run) {
      return .needsForce(reason: reason)
    }
    return .merged(tree: run.tree, report: run.report)
  }

  /// Why the result deletes too much, if it does. A notebook counts as deleted when every local note in it was
  /// deleted (not moved away) and nothing is left inside it.
  private static func deletionProblem(
    ours: [String: NoteEntry], groups: [NoteGroup], tree: [String: FileContent], run: PolicyRun
  ) -> String? {
    let deletedGroups = groups.filter { $0.ours != nil && !run.keptGroups.contains($0.key) }
    if deletedGroups.count > maxDeletedNotes {
      return "the merge would delete \(deletedGroups.count) notes (more than \(maxDeletedNotes))"
    }
    let deletedPaths = Set(deletedGroups.compactMap { $0.ours?.path })
    let notebooks = Set(ours.keys.map(RepoPaths.directory(of:)).filter { !$0.isEmpty })
    for notebook in notebooks.sorted() {
      let notes = ours.keys.filter { RepoPaths.isInside($0, directory: notebook) }
      guard notes.allSatisfy(deletedPaths.contains) else { continue }
      if !tree.keys.contains(where: { RepoPaths.isInside($0, directory: notebook) }) {
        return "the merge would delete the whole notebook '\(notebook)'"
      }
    }
    return nil
  }

  /// The edit time of a version: its `updated`, else its last commit time — and its last commit time, too, when it
  /// changed the note but left `updated` as `base` had it (the same value, or absent on both). Such a change was made
  /// by something that does not stamp (a plain editor, git): its stamp is the time of an older edit, and trusting
  /// it let a newer plain-git edit lose to an older stamped one.
  static func editTime(_ entry: NoteEntry, base: NoteEntry?) -> Date {
    if let base, base.version.content != entry.version.content,
      base.identity?.updated?.date == entry.identity?.updated?.date
    {
      return entry.version.commitTime
    }
    return entry.identity?.updated?.date ?? entry.version.commitTime
  }

  /// Merges two changed ink sidecars stroke by stroke; a side without a sidecar counts as one whose strokes were all
  /// erased. `.unreadable` when a side cannot be parsed (or the merge could not be): the caller then keeps the
  /// losing sidecar whole in a conflict copy.
  /// `.merged(nil)` when one side removed the sidecar and nothing drawn is left.
  static func mergeInk(
    base: FileContent?, ours: FileContent?, theirs: FileContent?, later: SyncSide
  ) -> InkMergeOutcome {
    let empty = InkCodec.serialize(InkDocument())
    // A sidecar that exists but could not be read is unreadable, not absent.
    let sides = [base, ours, theirs].map { content in content.map { $0.data } }
    if sides.contains(where: { $0 == .some(nil) }) { return .unreadable }
    let (baseBytes, ourBytes, theirBytes) = (sides[0] ?? nil, sides[1] ?? nil, sides[2] ?? nil)
    guard
      let merged = InkMerge.merge(
        base: baseBytes, ours: ourBytes ?? empty, theirs: theirBytes ?? empty, later: later == .ours ? .ours : .theirs)
    else { return .unreadable }
    if merged == empty && (ours == nil || theirs == nil) { return .merged(nil) }
    return .merged(.bytes(merged))
  }

  enum InkMergeOutcome {
    case merged(FileContent?)
    case unreadable
  }

  /// `yyyyMMddTHHmmssZ` in UTC.
  static func compactUTC(_ date: Date) -> String {
    let text = Timestamp(date: date, offsetSeconds: 0).rfc3339
    let digits = text.prefix(19).filter { $0 != "-" && $0 != ":" }
    return digits + "Z"
  }
}

/// The front matter keys a sync matches and orders note versions by (``FrontMatter/readIdentity(_:)``).
struct NoteIdentity {
  var id: String? = nil
  var updated: Timestamp? = nil
}

/// A note file on one side, with its ink sidecar.
struct NoteEntry {
  var path: String
  var version: FileVersion
  /// The text when the bytes are valid UTF-8 (only then can the note be merged or edited).
  var text: String?
  /// What the front matter says of the note's identity (`id`, `updated`), when it can be read.
  var identity: NoteIdentity?
  var sidecar: FileContent?

  /// The text, read now for a note matched unread (the same stored file on every side, only its sidecar changed):
  /// a conflict copy of it is edited all the same.
  var textReadingIfUnread: String? { text ?? version.content.data.flatMap { String(data: $0, encoding: .utf8) } }

  /// The identity, read now for a note matched unread (see ``textReadingIfUnread``).
  var identityReadingIfUnread: NoteIdentity? {
    identity ?? (text == nil ? textReadingIfUnread.flatMap { try? FrontMatter.readIdentity($0) } : nil)
  }

  /// Same path, bytes and sidecar.
  func isSame(as other: NoteEntry) -> Bool {
    path == other.path && version.content == other.version.content && sidecar == other.sidecar
  }
}

/// One side's tree split into notes (with their sidecars) and other files.
struct SideTree {
  var notes: [String: NoteEntry] = [:]
  var files: [String: FileVersion] = [:]

  /// `unread`: notes the same on every side, matched by path without reading them. `settled`: notes left out
  /// altogether, with their sidecars (see ``SyncPolicy/merge(base:ours:theirs:device:now:force:attachmentFolders:)``).
  /// `parsed`: the text and front matter of stored files already read (by another side), by content id.
  init(
    _ tree: [String: FileVersion], unread: Set<String> = [], settled: Set<String> = [],
    attachmentFolders: Bool = false, parsed: ParsedNotes = ParsedNotes()
  ) {
    var sidecars: Set<String> = []
    var others: [String] = []
    for path in settled { sidecars.insert(RepoPaths.sidecars(of: path)[0]) }
    for (path, version) in tree where !settled.contains(path) {
      guard SideTree.isNote(path, in: tree, attachmentFolders: attachmentFolders) else {
        others.append(path)
        continue
      }
      let (text, identity) = unread.contains(path) ? (nil, nil) : parsed.read(version.content)
      let sidecarPath = RepoPaths.sidecars(of: path)[0]
      let sidecar = tree[sidecarPath]?.content
      if sidecar != nil { sidecars.insert(sidecarPath) }
      notes[path] = NoteEntry(path: path, version: version, text: text, identity: identity, sidecar: sidecar)
    }
    for path in others where !sidecars.contains(path) {
      files[path] = tree[path]
    }
  }

  /// Whether `path` is a note in `tree`: ``isNote(_:)``, and with attachment folders not inside a note's folder.
  static func isNote(_ path: String, in tree: [String: FileVersion], attachmentFolders: Bool) -> Bool {
    isNote(path)
      && !(mayBeAttachment(path, attachmentFolders: attachmentFolders)
        && RepoPaths.isInsideAttachmentFolder(path) { tree[$0] != nil && isNote($0) })
  }

  /// Whether `path` could lie in an attachment folder in some tree: only below a directory whose name ends in
  /// `.files` (a byte search, so most paths skip the walk up their directories).
  static func mayBeAttachment(_ path: String, attachmentFolders: Bool) -> Bool {
    guard attachmentFolders else { return false }
    let marker = Array((RepoPaths.attachmentSuffix + "/").utf8)
    return path.utf8.withContiguousStorageIfAvailable { bytes in
      guard bytes.count >= marker.count else { return false }
      for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
        if marker.indices.allSatisfy({ bytes[start + $0] == marker[$0] }) { return true }
      }
      return false
    } ?? true
  }

  /// A note nb manages: `.md`, and no hidden component (so `.nb/templates/*.md` are plain files).
  static func isNote(_ path: String) -> Bool {
    RepoPaths.isNotePath(path) && !path.split(separator: "/").contains { $0.hasPrefix(".") }
  }
}

/// The text and front matter of note versions, each stored file read and parsed once however many sides hold it: in
/// a merge most changed notes changed on one side only, so the base and the other side share the stored file.
final class ParsedNotes {
  private var byID: [String: (text: String?, identity: NoteIdentity?)] = [:]

  init() {}

  /// Reads `contents` one after the other (stored files come through libgit2, which wants one thread at a time) and
  /// parses them on every core: in a merge of a thousand notes on each side, reading front matter is most of the
  /// policy's time. A handful is parsed on the spot by ``read(_:)`` instead.
  func prefetch(_ contents: [FileContent]) {
    var seen = Set<String>()
    var todo: [(id: String, data: Data)] = []
    for content in contents {
      guard let id = content.storedID, byID[id] == nil, seen.insert(id).inserted, let data = content.data else {
        continue
      }
      todo.append((id, data))
    }
    let workers = ProcessInfo.processInfo.activeProcessorCount
    guard workers > 1, todo.count >= 64 else { return }
    var results = [(text: String?, identity: NoteIdentity?)](repeating: (nil, nil), count: todo.count)
    results.withUnsafeMutableBufferPointer { buffer in
      let chunks = workers * 4
      DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
        // Each chunk writes only its own slots.
        for index in stride(from: chunk, to: todo.count, by: chunks) {
          let text = String(data: todo[index].data, encoding: .utf8)
          buffer[index] = (text, text.flatMap { try? FrontMatter.readIdentity($0) })
        }
      }
    }
    for (index, item) in todo.enumerated() { byID[item.id] = results[index] }
  }

  /// The text (valid UTF-8 only) and the identity its front matter gives (when it reads) of `content`.
  func read(_ content: FileContent) -> (text: String?, identity: NoteIdentity?) {
    if let id = content.storedID, let known = byID[id] { return known }
    let text = content.data.flatMap { String(data: $0, encoding: .utf8) }
    let result = (text, text.flatMap { try? FrontMatter.readIdentity($0) })
    if let id = content.storedID { byID[id] = result }
    return result
  }
}

/// The versions of one note on the three sides.
struct NoteGroup {
  /// A stable name for ordering: `id:<id>`, or `path:<path>` for notes matched by path.
  var key: String
  var base: NoteEntry?
  var ours: NoteEntry?
  var theirs: NoteEntry?
  /// Matched by path only (no side had an id for it).
  var byPath: Bool

  /// Matches notes by front matter `id` first, then by path among the notes left (each side's id used once; a
  /// second note with the same id on one side is matched by path).
  static func match(
    base: [String: NoteEntry], ours: [String: NoteEntry], theirs: [String: NoteEntry]
  ) -> [NoteGroup] {
    let sides = [base, ours, theirs]
    var byID: [String: [NoteEntry?]] = [:]
    var unassigned: [[String: NoteEntry]] = [[:], [:], [:]]
    // Where each id lives in the earliest side that has it (the base first): when a side holds the id twice (a copied
    // file), the note at that path is the note, and the copy is matched by path like any new note.
    var anchor: [String: String] = [:]
    let sortedPaths = sides.map { $0.keys.sorted() }
    for (side, paths) in zip(sides, sortedPaths) {
      for path in paths {
        if let id = side[path]!.identity?.id, anchor[id] == nil { anchor[id] = path }
      }
    }
    for (index, side) in sides.enumerated() {
      // The entry at its id's anchor path is assigned before any other holding the same id; each part in path order.
      func anchored(_ path: String) -> Bool { side[path]!.identity?.id.map { anchor[$0] == path } ?? false }
      let paths = sortedPaths[index]
      let ordered = paths.filter(anchored) + paths.filter { !anchored($0) }
      for path in ordered {
        let entry = side[path]!
        if let id = entry.identity?.id, byID[id]?[index] == nil {
          byID[id, default: [nil, nil, nil]][index] = entry
        } else {
          unassigned[index][path] = entry
        }
      }
    }
    var groups: [NoteGroup] = []
    for id in byID.keys.sorted() {
      var members = byID[id]!
      // A side whose copy of the note has no id (yet) is found at one of the paths the others use.
      let paths = members.compactMap { $0?.path }
      for index in 0..<3 where members[index] == nil {
        if let path = paths.first(where: { unassigned[index][$0] != nil }) {
          members[index] = unassigned[index].removeValue(forKey: path)
        }
      }
      groups.append(
        NoteGroup(key: "id:" + id, base: members[0], ours: members[1], theirs: members[2], byPath: false))
    }
    let leftPaths = Set(unassigned.flatMap(\.keys)).sorted()
    for path in leftPaths {
      groups.append(
        NoteGroup(
          key: "path:" + path, base: unassigned[0][path], ours: unassigned[1][path], theirs: unassigned[2][path],
          byPath: true))
    }
    return groups
  }
}

/// A note version going into the result, before path clashes are settled.
struct Placement {
  var groupKey: String
  var preferredPath: String
  var bytes: FileContent
  var sidecar: FileContent?
  /// The local side already has this note at `preferredPath`; it keeps the path in a clash.
  var local: Bool
  var merged: Bool
  var resurrected: Bool
  var finalPath: String = ""
  /// For a note new on its side that carries an id another note already has there (a copied file): that id.
  var copyOf: String? = nil
}

/// A losing version to be written as a conflict copy next to the winner.
struct CopyRequest {
  var winnerPlacement: Int
  var loser: NoteEntry
  /// The loser's edit time (``SyncPolicy/editTime(_:base:)``): the copy is named after it.
  var loserTime: Date
  var loserSide: SyncSide
  var winnerID: String?
  var withSidecar: Bool
  var reason: String
}

/// The mutable state of one `resolve` call.
struct PolicyRun {
  var device: String
  var now: Date
  var placements: [Placement] = []
  var copies: [CopyRequest] = []
  var tree: [String: FileContent] = [:]
  var report = SyncReport()
  var keptGroups: Set<String> = []

  init(device: String, now: Date) {
    self.device = device
    self.now = now
  }

  private func trusted(_ date: Date) -> Bool { date <= now.addingTimeInterval(SyncPolicy.futureTolerance) }

  /// Later trusted edit time wins; ties and untrusted times go to the remote.
  func winner(ours: Date, theirs: Date) -> SyncSide {
    guard trusted(ours), trusted(theirs) else { return .theirs }
    return ours > theirs ? .ours : .theirs
  }

  mutating func resolve(_ group: NoteGroup) {
    let base = group.base
    switch (group.ours, group.theirs) {
    case (nil, nil):
      return
    case (let ours?, nil):
      if let base, base.isSame(as: ours) { return }
      add(group, ours, local: true, resurrected: base != nil)
    case (nil, let theirs?):
      if let base, base.isSame(as: theirs) { return }
      add(group, theirs, local: false, resurrected: base != nil)
    case (let ours?, let theirs?):
      resolveBoth(group, base: base, ours: ours, theirs: theirs)
    }
  }

  private mutating func add(_ group: NoteGroup, _ entry: NoteEntry, local: Bool, resurrected: Bool) {
    placements.append(
      Placement(
        groupKey: group.key, preferredPath: entry.path, bytes: entry.version.content, sidecar: entry.sidecar,
        local: local, merged: false, resurrected: resurrected,
        // Matched by path although it has an id: its side holds that id twice, and this one is new.
        copyOf: group.byPath && group.base == nil ? entry.identity?.id : nil))
  }

  private mutating func resolveBoth(_ group: NoteGroup, base: NoteEntry?, ours: NoteEntry, theirs: NoteEntry) {
    if base == nil && group.byPath
      && !(ours.version.content == theirs.version.content && ours.sidecar == theirs.sidecar)
    {
      // Two different notes created at the same path: both stay, the incoming one moves aside when placed.
      add(group, ours, local: true, resurrected: false)
      add(NoteGroup(key: group.key + "#theirs", byPath: true), theirs, local: false, resurrected: false)
      return
    }
    var conflictReason: String?
    var merged = false
    var bytes: FileContent?
    if ours.version.content == theirs.version.content || base?.version.content == theirs.version.content {
      bytes = ours.version.content
    } else if base?.version.content == ours.version.content {
      bytes = theirs.version.content
    } else if let ourText = ours.text, let theirText = theirs.text, base == nil || base?.text != nil {
      switch NoteMerge.merge(base: base?.text, ours: ourText, theirs: theirText) {
      case .clean(let text):
        bytes = .bytes(Data(text.utf8))
        merged = true
      case .conflict(let reason):
        conflictReason = reason
      }
    } else {
      conflictReason = "the note is not UTF-8 text"
    }

    let ourTime = SyncPolicy.editTime(ours, base: base)
    let theirTime = SyncPolicy.editTime(theirs, base: base)
    let winnerSide = winner(ours: ourTime, theirs: theirTime)
    var sidecar: FileContent?
    var sidecarConflict = false
    if ours.sidecar == theirs.sidecar || base?.sidecar == theirs.sidecar {
      sidecar = ours.sidecar
    } else if base?.sidecar == ours.sidecar {
      sidecar = theirs.sidecar
    } else if case .merged(let inkMerged) = SyncPolicy.mergeInk(
      base: base?.sidecar, ours: ours.sidecar, theirs: theirs.sidecar, later: winnerSide)
    {
      // Both drew (or erased): stroke by stroke, so neither device's strokes are lost and no copy is needed.
      sidecar = inkMerged
      merged = true
    } else {
      sidecarConflict = true
    }

    let winner = winnerSide == .ours ? ours : theirs
    let loser = winnerSide == .ours ? theirs : ours
    let path: String
    if ours.path == theirs.path || base?.path == theirs.path {
      path = ours.path
    } else if base?.path == ours.path {
      path = theirs.path
    } else {
      path = winner.path
    }

    let index = placements.count
    placements.append(
      Placement(
        groupKey: group.key, preferredPath: path, bytes: bytes ?? winner.version.content,
        sidecar: sidecarConflict ? winner.sidecar : sidecar, local: path == ours.path,
        merged: merged, resurrected: false))
    if conflictReason != nil || sidecarConflict {
      let reason = conflictReason ?? "ink sidecar"
      copies.append(
        CopyRequest(
          winnerPlacement: index, loser: loser, loserTime: winnerSide == .ours ? theirTime : ourTime,
          loserSide: winnerSide == .ours ? .theirs : .ours,
          winnerID: winner.identityReadingIfUnread?.id ?? loser.identityReadingIfUnread?.id,
          withSidecar: sidecarConflict, reason: reason))
    }
  }

  /// Settles path clashes among the notes: local notes keep their paths, incoming ones get `-2`, `-3`, ….
  mutating func place() {
    let order = placements.indices.sorted { lhs, rhs in
      let a = placements[lhs]
      let b = placements[rhs]
      if a.local != b.local { return a.local }
      if a.preferredPath != b.preferredPath { return a.preferredPath < b.preferredPath }
      return a.groupKey < b.groupKey
    }
    for index in order {
      var placement = placements[index]
      let directory = RepoPaths.directory(of: placement.preferredPath)
      let stem = RepoPaths.stem(of: placement.preferredPath)
      let chosen = Slug.unique(stem) { candidate in
        let path = RepoPaths.join(directory, candidate + ".md")
        return tree[path] != nil || (placement.sidecar != nil && tree[RepoPaths.sidecars(of: path)[0]] != nil)
      }
      let path = RepoPaths.join(directory, chosen + ".md")
      if path != placement.preferredPath {
        report.warnings.append("'\(placement.preferredPath)' was taken: the incoming note is kept as '\(path)'")
      }
      placement.finalPath = path
      tree[path] = placement.bytes
      if let sidecar = placement.sidecar { tree[RepoPaths.sidecars(of: path)[0]] = sidecar }
      if placement.merged { report.merged.append(path) }
      if placement.resurrected { report.resurrected.append(path) }
      keptGroups.insert(placement.groupKey)
      placements[index] = placement
    }
    for placement in placements {
      if let id = placement.copyOf, keptGroups.contains("id:" + id) { giveOwnID(placement, sharing: id) }
    }
    report.merged.sort()
    report.resurrected.sort()
  }

  /// A copied note arriving with its original's id becomes a note of its own: a new id (derived from the inputs, like
  /// conflict copies'), so no device ever matches the two as one note again.
  private mutating func giveOwnID(_ placement: Placement, sharing id: String) {
    let path = placement.finalPath
    guard let bytes = placement.bytes.data, let text = String(data: bytes, encoding: .utf8) else { return }
    var random = StableRandom(seed: [Data(path.utf8), Data(device.utf8), bytes])
    guard let edited = try? FrontMatter.setting("id", to: NoteID.make(using: &random), in: text) else {
      report.warnings.append("'\(path)' has the id \(id) of another note and its front matter cannot be edited")
      return
    }
    tree[path] = .bytes(Data(edited.utf8))
    report.warnings.append("'\(path)' had the id \(id) of another note (a copy?): it was given an id of its own")
  }

  /// Other files: three-way by bytes; a modification beats a deletion; two different changes → the later commit
  /// keeps the path, as git keeps binaries, and the other stays in history (the merge's other parent): a conflict
  /// copy next to an app's settings file would only be noise.
  mutating func resolveFiles(
    base: [String: FileVersion], ours: [String: FileVersion], theirs: [String: FileVersion]
  ) {
    let paths = Set(base.keys).union(ours.keys).union(theirs.keys).sorted()
    for path in paths {
      let b = base[path]?.content
      let o = ours[path]
      let t = theirs[path]
      var result: FileContent?
      if o?.content == t?.content || b == t?.content {
        result = o?.content
      } else if b == o?.content {
        result = t?.content
      } else if let o, let t, path == NoteRepository.inboxDecisionsFile,
        let ourText = o.content.data.map({ String(decoding: $0, as: UTF8.self) }),
        let theirText = t.content.data.map({ String(decoding: $0, as: UTF8.self) })
      {
        // The inbox's decisions are appended on every device: both sides' lines are kept, in time order.
        let baseText = b?.data.map { String(decoding: $0, as: UTF8.self) }
        result = .bytes(Data(DecisionLog.merge(base: baseText, ours: ourText, theirs: theirText).utf8))
      } else if let o, let t {
        let side = winner(ours: o.commitTime, theirs: t.commitTime)
        result = side == .ours ? o.content : t.content
        report.warnings.append(
          "'\(path)' changed on both devices: the newer version (\(side == .ours ? "this device's" : "the remote's")) "
            + "is kept, the other stays in history (git log -p -- '\(path)')")
      } else {
        result = (o ?? t)?.content
        report.warnings.append("'\(path)' was deleted on one side and changed on the other: the change is kept")
      }
      guard let result else { continue }
      var target = path
      if tree[target] != nil {
        target = uniquePath(forFile: path) { tree[$0] != nil }
        report.warnings.append("'\(path)' clashed with a note's file: kept as '\(target)'")
      }
      tree[target] = result
    }
  }

  /// `<name>-2<ext>` (then `-3`, …): a free path for a file that clashed with a note's.
  private func uniquePath(forFile path: String, isTaken: (String) -> Bool) -> String {
    let directory = RepoPaths.directory(of: path)
    let name = RepoPaths.lastComponent(of: path)
    let dot = name.dropFirst().lastIndex(of: ".")
    let stem = dot.map { String(name[..<$0]) } ?? name
    let ext = dot.map { String(name[$0...]) } ?? ""
    let chosen = Slug.unique(stem) { isTaken(RepoPaths.join(directory, $0 + ext)) }
    return RepoPaths.join(directory, chosen + ext)
  }

  /// Writes every losing note version next to its winner with a new id and `conflict_of`.
  mutating func placeCopies() {
    for request in copies {
      let winnerPath = placements[request.winnerPlacement].finalPath
      let loser = request.loser
      let directory = RepoPaths.directory(of: winnerPath)
      // Named after the losing version's own edit and the device (or plain-git author) that made it, so the name
      // says whose words the copy holds; the merging device stands in when that is unknown.
      let maker = loser.version.author.flatMap { $0.isEmpty ? nil : $0 } ?? device
      let base =
        RepoPaths.stem(of: winnerPath) + ".conflict-" + SyncPolicy.compactUTC(request.loserTime) + "-"
        + Slug.make(maker)
      let chosen = Slug.unique(base) { candidate in
        let path = RepoPaths.join(directory, candidate + ".md")
        return tree[path] != nil || tree[RepoPaths.sidecars(of: path)[0]] != nil
      }
      let path = RepoPaths.join(directory, chosen + ".md")
      tree[path] = copyBytes(loser, path: path, conflictOf: request.winnerID)
      if request.withSidecar, let sidecar = loser.sidecar { tree[RepoPaths.sidecars(of: path)[0]] = sidecar }
      report.conflicts.append(
        SyncConflict(
          path: winnerPath, winner: request.loserSide == .ours ? .theirs : .ours, loser: request.loserSide,
          loserPath: path, reason: request.reason))
    }
    report.conflicts.sort { ($0.path, $0.loserPath) < ($1.path, $1.loserPath) }
  }

  /// The loser's bytes with a new `id` and `conflict_of`, edited in place; unchanged (with a warning) when its
  /// front matter cannot be edited, since keeping the version matters more than marking it.
  private mutating func copyBytes(_ loser: NoteEntry, path: String, conflictOf: String?) -> FileContent {
    guard var text = loser.textReadingIfUnread else {
      report.warnings.append("'\(path)' is not UTF-8 text: kept without a new id")
      return loser.version.content
    }
    var random = StableRandom(seed: [Data(path.utf8), Data(device.utf8), loser.version.bytes])
    do {
      text = try FrontMatter.setting("id", to: NoteID.make(using: &random), in: text)
      if let conflictOf {
        // Written like nb writes `id`: a well-formed id is a safe plain scalar.
        let value = NoteID.isWellFormed(conflictOf) ? conflictOf : YAMLScalar.format(conflictOf)
        text = try FrontMatter.setting("conflict_of", to: value, in: text)
      }
      return .bytes(Data(text.utf8))
    } catch {
      report.warnings.append("'\(path)': \(error); kept without a new id")
      return loser.version.content
    }
  }
}

/// SplitMix64 seeded by an FNV-1a hash of its inputs: ids of conflict copies must be the same on every run.
struct StableRandom: RandomNumberGenerator {
  private var state: UInt64

  init(seed parts: [Data]) {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for part in parts {
      for byte in part {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01b3
      }
      hash ^= 0xff
      hash &*= 0x0000_0100_0000_01b3
    }
    state = hash
  }

  mutating func next() -> UInt64 {
    state &+= 0x9e37_79b9_7f4a_7c15
    var z = state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }
}

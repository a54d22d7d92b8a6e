import Foundation

/// What a link points at.
public enum LinkResolution: Hashable, Sendable {
  /// A Markdown file (`.md`, any case). `others` are the files the link could also have meant — same name, or same
  /// path suffix — when a tie-break chose among them: the link is ambiguous. Empty for an unambiguous link.
  case note(String, others: [String] = [])
  /// Any other file: an image, a PDF, a canvas. `others` as for a note.
  case attachment(String, others: [String] = [])
  /// No file. Reported, never an error: Obsidian shows it as a link to a note not yet created.
  case unresolved

  /// The file's repository path; nil when unresolved.
  public var path: String? {
    switch self {
    case .note(let path, _), .attachment(let path, _): return path
    case .unresolved: return nil
    }
  }

  /// The other candidates a tie-break passed over (empty when unambiguous or unresolved).
  public var others: [String] {
    switch self {
    case .note(_, let others), .attachment(_, let others): return others
    case .unresolved: return []
    }
  }

  /// Whether several files could be meant and a tie-break chose.
  public var isAmbiguous: Bool { !others.isEmpty }
}

/// Resolves links to the repository's files as Obsidian does, in O(1) dictionary lookups per link.
///
/// A link's path part (its `target`) is looked up in this order; the first step that finds a file decides:
/// 1. **Same note**: an empty target (`[[#Heading]]`, `[x](#^id)`) is the linking note itself.
/// 2. **Relative** (`./x`, `../x`, Markdown or wiki): joined to the linking note's folder, `.` and `..` resolved; a
///    path that climbs above the repository root is unresolved, never followed. Only that exact path counts, no
///    name search: `./Missing` stays unresolved even when a `Missing.md` exists elsewhere.
/// 3. **Vault path**: the target as a path from the repository root (`Projects/X`, or a bare name for a file at the
///    root). A leading `/` (`[x](/Projects/X.md)`) means this step only. `..` inside the path that climbs out is
///    unresolved.
/// 4. **The linking note's folder**: the target joined to the folder the linking note is in.
/// 5. **By name**: every file with the target's file name; a target with folders (`b/Note`) takes only the files
///    whose path ends with it, folder by folder (`a/b/Note.md`, not `ab/Note.md`). Among several: the shortest path
///    (in UTF-8 bytes), then the lowercased path in byte order, then the path as written.
///
/// Steps 3–5 and the shortest path string are what Obsidian's resolver (`getFirstLinkpathDest`, which its API
/// documents only as "the best match") has been reported to do when probed; the help vault itself depends on step
/// 4 (its `Obsidian Sync/` and `Obsidian Publish/` each have a `Security and privacy` note, linked bare from
/// inside each folder). The last two tie-break keys are nb's, so that the choice never depends on the order of
/// `paths`.
///
/// Every comparison ignores case (Unicode lowercasing; and a Swift string compares canonically equivalent forms
/// equal, so `Café` typed NFC finds a file named NFD); where only case tells two files apart, the one whose case
/// matches wins. The extension: a target whose name has none is a note (`Note` -> `Note.md`); a target with one is
/// tried as written first (`Figure 1.png`, `Note.md`) and then as a note (`v1.2` -> `v1.2.md`) — each time through
/// steps 2–5. Other files must be named with their extension.
///
/// `aliases:` never resolve a link (as in Obsidian, `[[AI]]` does not reach the note whose alias is `AI`);
/// `aliasMatches` says which notes a link's text is an alias of, for counting mentions.
public struct LinkResolver: Sendable {
  /// The repository's files, as given (duplicates dropped).
  public let paths: [String]
  private let lowered: [String]
  private let notes: [Bool]
  /// Lowercased path -> the first of the files with it, in tie-break order; `pathNext` chains the others (files
  /// whose names differ only in case), -1 ending the chain. Chains instead of arrays: one allocation-free entry per
  /// file, since nearly every chain has one file.
  private let pathFirst: [String: Int]
  private let pathNext: [Int]
  /// Lowercased file name -> the first file with it, in tie-break order; `nameNext` chains the others.
  private let nameFirst: [String: Int]
  private let nameNext: [Int]
  private let byAlias: [String: [Int]]

  /// A resolver over every file path in the repository (notes and attachments; relative, `/`-separated), and the
  /// aliases of the notes that have some (path -> aliases). Duplicates in `paths` count once.
  public init(paths: [String], aliases: [String: [String]] = [:]) {
    var unique: [String] = []
    var lowered: [String] = []
    unique.reserveCapacity(paths.count)
    lowered.reserveCapacity(paths.count)
    var pathFirst = [String: Int](minimumCapacity: paths.count)
    var nameFirst = [String: Int](minimumCapacity: paths.count)
    var pathGroups: [String: [Int]] = [:]
    var nameGroups: [String: [Int]] = [:]
    for given in paths {
      let path = given.lowercased()
      let index = unique.count
      if let first = pathFirst.updateValue(index, forKey: path) {
        pathFirst[path] = first
        // The same path twice (not just the same up to case) counts once.
        if unique[first] == given || pathGroups[path]?.contains(where: { unique[$0] == given }) == true { continue }
        pathGroups[path, default: [first]].append(index)
      }
      unique.append(given)
      lowered.append(path)
      let name = String(LinkPath.name(of: path[...]))
      if let first = nameFirst.updateValue(index, forKey: name) {
        nameFirst[name] = first
        nameGroups[name, default: [first]].append(index)
      }
    }
    self.paths = unique
    self.lowered = lowered
    notes = unique.map(LinkPath.isNote)
    let order: (Int, Int) -> Bool = { left, right in
      let leftLength = unique[left].utf8.count
      let rightLength = unique[right].utf8.count
      if leftLength != rightLength { return leftLength < rightLength }
      if lowered[left] != lowered[right] { return lowered[left].utf8.lexicographicallyPrecedes(lowered[right].utf8) }
      return unique[left].utf8.lexicographicallyPrecedes(unique[right].utf8)
    }
    var pathNext = Array(repeating: -1, count: unique.count)
    var nameNext = pathNext
    for (path, group) in pathGroups {
      let sorted = group.sorted(by: order)
      pathFirst[path] = sorted[0]
      for (index, next) in zip(sorted, sorted.dropFirst()) { pathNext[index] = next }
    }
    for (name, group) in nameGroups {
      let sorted = group.sorted(by: order)
      nameFirst[name] = sorted[0]
      for (index, next) in zip(sorted, sorted.dropFirst()) { nameNext[index] = next }
    }
    self.pathFirst = pathFirst
    self.pathNext = pathNext
    self.nameFirst = nameFirst
    self.nameNext = nameNext
    var byAlias: [String: [Int]] = [:]
    for (path, names) in aliases where !names.isEmpty {
      guard let note = Self.chain(pathFirst[path.lowercased()], pathNext).first(where: { unique[$0] == path }) else {
        continue
      }
      for name in Set(names.map { $0.lowercased() }) { byAlias[name, default: []].append(note) }
    }
    self.byAlias = byAlias.mapValues { $0.sorted(by: order) }
  }

  /// Whether `path` is one of the files (exactly as written).
  public func contains(_ path: String) -> Bool {
    Self.chain(pathFirst[path.lowercased()], pathNext).contains { paths[$0] == path }
  }

  /// What `link`, found in the note at `source`, points at.
  public func resolve(_ link: NoteLink, from source: String) -> LinkResolution {
    resolve(target: link.target, from: source)
  }

  /// What a link whose decoded path part is `target`, found in the note at `source`, points at.
  public func resolve(target: String, from source: String) -> LinkResolution {
    if target.isEmpty { return .note(source) }
    guard let match = match(target, from: source) else { return .unresolved }
    return resolution(match)
  }

  /// What a link whose path part is `target` points at when that is the same from every note, in O(1); nil when it
  /// depends on where the link is: a relative path, a link into the note itself, or a name several files share
  /// where no path from the root decides (a note's own folder may hold one of them). Checking every link of a
  /// repository resolves each such target once, not once per link.
  public func resolveFromAnywhere(target: String) -> LinkResolution? {
    guard let found = findFromAnywhere(target: target) else { return nil }
    guard case .file(let index, let isAmbiguous) = found else { return .unresolved }
    if !isAmbiguous { return notes[index] ? .note(paths[index]) : .attachment(paths[index]) }
    // The root path decided among several: the same answer as from a note at the root, with its other files.
    return resolve(target: target, from: "")
  }

  /// What a link reaches, as a position in ``paths``: a resolution without the strings of its answer, for a pass
  /// over every link of a repository (a million at 100 000 notes), which needs to know which file, not its name.
  public enum Found: Hashable, Sendable {
    /// `paths[index]`; ambiguous as ``LinkResolution/isAmbiguous`` (a tie-break chose among several files).
    case file(Int, isAmbiguous: Bool)
    case unresolved
  }

  /// ``resolve(target:from:)`` as a position in ``paths``. A link into the same note (an empty target) finds
  /// `source` when it is one of the files.
  public func find(target: String, from source: String) -> Found {
    if target.isEmpty {
      let index = Self.chain(pathFirst[source.lowercased()], pathNext).first { paths[$0] == source }
      return index.map { .file($0, isAmbiguous: false) } ?? .unresolved
    }
    guard let match = match(target, from: source) else { return .unresolved }
    return .file(match.index, isAmbiguous: !match.others.isEmpty)
  }

  /// ``resolveFromAnywhere(target:)`` as a position in ``paths``: nil when the answer depends on the linking note.
  public func findFromAnywhere(target: String) -> Found? {
    guard !target.isEmpty, !LinkPath.isRelative(target.drop { $0 == "/" }) else { return nil }
    // From the root the own-folder rule never applies; what is left holds from every folder when the root path
    // decided (it comes first everywhere), nothing matched (no file has the name), or one file has the name.
    guard let match = match(target, from: "") else { return .unresolved }
    if match.step == .vaultPath || match.others.isEmpty {
      return .file(match.index, isAmbiguous: !match.others.isEmpty)
    }
    return nil
  }

  /// Whether `paths[index]` is a note (a `.md` file, any case): what ``resolve(target:from:)`` answers `.note` for.
  public func isNote(at index: Int) -> Bool { notes[index] }

  private func resolution(_ match: Match) -> LinkResolution {
    let path = paths[match.index]
    let others = match.others.map { paths[$0] }
    return notes[match.index] ? .note(path, others: others) : .attachment(path, others: others)
  }

  /// The notes whose `aliases` include the link's target, ignoring case (a bare target only: an alias is a name, not
  /// a path). Obsidian resolves no link through them; they are mentions.
  public func aliasMatches(for link: NoteLink) -> [String] {
    guard !link.target.isEmpty, !link.target.utf8.contains(Bytes.slash) else { return [] }
    return (byAlias[link.target.lowercased()] ?? []).map { paths[$0] }
  }

  /// What a link to `path` written in the note at `source` must say to reach it unambiguously: the file name if no
  /// other file has it (without `.md` for a note), else the shortest tail of its path that only it ends with
  /// (`b/Note`), else its whole path from the root. Checked by resolving each candidate, so it holds under the rules
  /// above. A path not in the resolver gets its whole path.
  public func shortestUnambiguousName(for path: String, from source: String) -> String {
    let base = LinkPath.isNote(path) ? String(path.dropLast(3)) : path
    let components = base.split(separator: "/", omittingEmptySubsequences: false)
    for count in 1...max(1, components.count) {
      let form = components.suffix(count).joined(separator: "/")
      if let match = match(form, from: source), paths[match.index] == path, match.others.isEmpty { return form }
    }
    return base
  }

  // MARK: Name keys

  /// The key that partitions files and links for an index: a link can only ever resolve to a file with the same
  /// key, so a resolver built over just the files sharing a link's key answers that link exactly as one built over
  /// every file does (same file, same `others`). An index can then keep links by key and resolve the links to one
  /// file from the few files named like it, without knowing every path.
  ///
  /// The key of a file is its name, lowercased, in NFC, without any trailing `.md` (`Notes/Plan.MD` -> `plan`,
  /// `Saturn.png` -> `saturn.png`, `a.md.md` -> `a`). Why it holds, rule by rule: every rule looks a file up by a
  /// path whose last component is the target's last component (after `.` and `..` are resolved), either as written
  /// or with `.md` added, compared ignoring case — and stripping every `.md` maps both spellings to one key.
  public static func nameKey(path: String) -> String {
    fold(LinkPath.name(of: path[...]))
  }

  /// The key of a link's target (see ``nameKey(path:)``), found in the note at `source`: the key every file it can
  /// resolve to has. `""` for a link into the same note (`[[#Heading]]`) and for a target that can resolve to
  /// nothing (a folder, `x/`; a path climbing out of the repository).
  public static func nameKey(target: String, from source: String) -> String {
    var rest = Substring(target)
    while rest.utf8.first == Bytes.slash { rest = rest.dropFirst() }
    guard let last = rest.utf8.last, last != Bytes.slash else { return "" }
    if LinkPath.isRelative(rest) {
      guard let path = LinkPath.joined(LinkPath.directory(of: source), rest) else { return "" }
      return fold(LinkPath.name(of: path[...]))
    }
    if LinkPath.isNormalized(rest) { return fold(LinkPath.name(of: rest)) }
    guard let path = LinkPath.joined("", rest) else { return "" }
    return fold(LinkPath.name(of: path[...]))
  }

  /// A file name as a key: lowercased as the resolver compares, trailing `.md`s dropped, then NFC so that equal keys
  /// are equal bytes (the resolver's dictionaries compare canonically equivalent strings equal; a database does not).
  private static func fold(_ name: Substring) -> String {
    var key = name.lowercased()
    while key.utf8.count >= 3, key.hasSuffix(".md") { key.removeLast(3) }
    if key.utf8.allSatisfy({ $0 < 0x80 }) { return key }
    return key.precomposedStringWithCanonicalMapping
  }

  // MARK: Matching

  /// Which rule found a file. A target without folders naming the only file of its name is tagged `.name` even
  /// where an earlier rule would have found it: each gives that file, unambiguous, and only a target with folders
  /// cares whether it matched as a vault path (``LinkRewriter`` keeps such a link a vault path).
  enum Step: Equatable {
    case relative, vaultPath, ownFolder, name
  }

  struct Match {
    var index: Int
    var others: [Int]
    var step: Step
  }

  /// The file `target` names from `source`, with the rule that found it and the candidates passed over.
  func match(_ target: String, from source: String) -> Match? {
    var rest = Substring(target)
    var rootOnly = false
    while rest.utf8.first == Bytes.slash {
      rest = rest.dropFirst()
      rootOnly = true
    }
    // A folder is not a file.
    guard let last = rest.utf8.last, last != Bytes.slash else { return nil }
    if LinkPath.isRelative(rest) {
      guard let path = LinkPath.joined(LinkPath.directory(of: source), rest) else { return nil }
      let lowered = path.lowercased()
      for (key, lowerKey) in keys(path, lowered) {
        if let found = exact(lowerKey, written: key) {
          return Match(index: found.index, others: found.others, step: .relative)
        }
      }
      return nil
    }
    let path: String
    let folders: Bool
    if LinkPath.isNormalized(rest) {
      path = String(rest)
      folders = rest.utf8.contains(Bytes.slash)
    } else {
      guard let joined = LinkPath.joined("", rest) else { return nil }
      path = joined
      folders = joined.utf8.contains(Bytes.slash)
    }
    let lowered = path.lowercased()
    var folder: (written: Substring, lowered: String)?
    for (key, lowerKey) in keys(path, lowered) {
      // Steps 3–5 only ever find a file with the key's name. No such file: none can match; exactly one (and no
      // folders to match): whichever step finds it, it is that file, unambiguous — one lookup for the common link.
      if !folders {
        guard let first = nameFirst[lowerKey] else { continue }
        if !rootOnly, nameNext[first] < 0 {
          return Match(index: first, others: [], step: .name)
        }
      }
      if let found = exact(lowerKey, written: key) {
        return Match(index: found.index, others: found.others, step: .vaultPath)
      }
      if rootOnly { continue }
      if folder == nil {
        let written = LinkPath.directory(of: source)
        folder = (written, written.lowercased())
      }
      if let folder, !folder.written.isEmpty,
        let found = exact(folder.lowered + "/" + lowerKey, written: folder.written + "/" + key)
      {
        // Every file the name (or tail) could mean, case variants of this one included.
        let others = named(lowerKey, folders: folders).filter { $0 != found.index }
        return Match(index: found.index, others: others, step: .ownFolder)
      }
      if !folders, let first = nameFirst[lowerKey], nameNext[first] < 0 {
        return Match(index: first, others: [], step: .name)
      }
      let candidates = named(lowerKey, folders: folders)
      if let first = candidates.first {
        return Match(index: first, others: Array(candidates.dropFirst()), step: .name)
      }
    }
    return nil
  }

  /// The target as written first, then as a note: `Note` -> [`Note.md`]; `v1.2` -> [`v1.2`, `v1.2.md`]. Each key
  /// with its lowercased form. A sequence, not an array: every resolution goes through here, and an array would
  /// cost an allocation each time.
  private func keys(_ path: String, _ lowered: String) -> Keys {
    Keys(path: path, lowered: lowered, asWritten: LinkPath.hasExtension(lowered[...]))
  }

  struct Keys: Sequence, IteratorProtocol {
    let path: String
    let lowered: String
    let asWritten: Bool
    var position = 0

    init(path: String, lowered: String, asWritten: Bool) {
      self.path = path
      self.lowered = lowered
      self.asWritten = asWritten
    }

    mutating func next() -> (String, String)? {
      defer { position += 1 }
      if position == 0 && asWritten { return (path, lowered) }
      if position == 0 || (position == 1 && asWritten) { return (path + ".md", lowered + ".md") }
      return nil
    }
  }

  /// The file at exactly this path (ignoring case; the one whose case matches `written` wins), and the case variants.
  private func exact(_ lowered: String, written: @autoclosure () -> String) -> (index: Int, others: [Int])? {
    guard let first = pathFirst[lowered] else { return nil }
    if pathNext[first] < 0 { return (first, []) }
    let all = Self.chain(first, pathNext)
    let spelled = written()
    let chosen = all.first { paths[$0] == spelled } ?? first
    return (chosen, all.filter { $0 != chosen })
  }

  /// The files named like `key`'s last component, in tie-break order; with `folders`, those whose path ends with
  /// all of `key`, folder by folder.
  private func named(_ key: String, folders: Bool) -> [Int] {
    guard folders else { return Self.chain(nameFirst[key], nameNext) }
    let all = Self.chain(nameFirst[String(LinkPath.name(of: key[...]))], nameNext)
    let suffix = "/" + key
    return all.filter { lowered[$0] == key || lowered[$0].hasSuffix(suffix) }
  }

  private static func chain(_ first: Int?, _ next: [Int]) -> [Int] {
    guard var index = first else { return [] }
    var result = [index]
    while next[index] >= 0 {
      index = next[index]
      result.append(index)
    }
    return result
  }
}

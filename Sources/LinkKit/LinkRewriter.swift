import Foundation

/// One replacement a rewrite made: the bytes of a link's path part.
public struct LinkEdit: Equatable, Sendable {
  /// UTF-8 byte offsets in the original text of the bytes replaced (a link's `targetRange`).
  public var range: Range<Int>
  /// 1-based line of the link.
  public var line: Int
  /// The bytes replaced, as they were written (`Old%20name.md`).
  public var old: String
  /// What replaced them (`New%20name.md`).
  public var new: String

  /// An edit as given.
  public init(range: Range<Int>, line: Int, old: String, new: String) {
    self.range = range
    self.line = line
    self.old = old
    self.new = new
  }
}

/// What a rewrite did to one note's text.
public struct LinkRewrite: Equatable, Sendable {
  /// The text with the edits applied; every byte outside the edits' ranges is the original's.
  public var text: String
  /// The edits, in text order, not overlapping.
  public var edits: [LinkEdit]
  /// Links that no longer reach their file and cannot be written in their form to reach it — a wiki link to a name
  /// holding `|`, `#`, `[[` or `]]`, a front matter link to a name holding its own quote — left as they were.
  public var unwritable: [NoteLink]

  /// A result as given.
  public init(text: String, edits: [LinkEdit], unwritable: [NoteLink]) {
    self.text = text
    self.edits = edits
    self.unwritable = unwritable
  }
}

/// Rewrites the links of one note after files moved, keeping every link's form and every other byte.
public enum LinkRewriter {
  /// The note `text` (at `source`, moving to `newSource` if it moves itself; nil means `moves[source]`, else not
  /// moving) with each link that no longer reaches its file rewritten to reach it again.
  ///
  /// `moves` maps old paths to new ones; `before` resolves over the repository before the moves (and before any new
  /// file), `after` over it afterwards. A link is left alone when it was unresolved, or when — resolved with `after`
  /// from the note's new place — it still reaches the file it reached (at its new path if that file moved), is not
  /// ambiguous unless it already was, and a vault path (`[[Projects/X]]`) still matches as a vault path. Otherwise
  /// exactly its path part (`targetRange`) is replaced, in the form it had:
  /// - relative (`./x`, `../x`): the path from the note's (new) folder, `./` before it when it does not climb;
  /// - from the root (`/Projects/X.md`): the new path with its leading `/`;
  /// - a vault path with folders that matched exactly: the new vault path;
  /// - a path with folders found from the note's own folder (`plan.files/a.png`): the path from its new folder
  ///   while the file is still below it (else as a bare name);
  /// - a bare name, or a tail of a path: `LinkResolver.shortestUnambiguousName` — still bare if the name is unique,
  ///   else the shortest tail of the path that is;
  /// - `.md` written or not as before (its case kept) for a note; an attachment's extension always written.
  /// Each result is checked with `after`; one that does not reach the file unambiguously falls back to the whole
  /// path from the root. The shown text, the heading or block part, the embed marker and the link kind stay.
  /// Markdown destinations are percent-encoded as before: a folder or name whose text did not change keeps the
  /// bytes it was written with; new ones get spaces as `%20` (raw inside `<…>`), `%`, `#`, `|`, `<`, `>`, `\`,
  /// control characters and unbalanced parentheses escaped, and non-ASCII letters escaped only if the original
  /// escaped some.
  public static func rewrite(
    _ text: String, source: String, newSource: String? = nil, moves: [String: String], before: LinkResolver,
    after: LinkResolver
  ) -> LinkRewrite {
    let links = LinkScanner.links(in: text)
    let place = newSource ?? moves[source] ?? source
    var edits: [LinkEdit] = []
    var unwritable: [NoteLink] = []
    var original = text
    original.withUTF8 { bytes in
      for link in links where !link.target.isEmpty {
        guard let was = before.match(link.target, from: source) else { continue }
        let oldPath = before.paths[was.index]
        let expected = moves[oldPath] ?? oldPath
        if let now = after.match(link.target, from: place), after.paths[now.index] == expected,
          now.others.isEmpty || !was.others.isEmpty,
          !(was.step == .vaultPath && link.target.utf8.contains(Bytes.slash) && now.step != .vaultPath)
        {
          continue
        }
        let written = Bytes.string(bytes, link.targetRange)
        guard let target = newTarget(for: link, reaching: expected, from: place, was: was.step, after: after),
          let encoded = encode(target, for: link, written: written)
        else {
          unwritable.append(link)
          continue
        }
        if encoded != written {
          edits.append(LinkEdit(range: link.targetRange, line: link.line, old: written, new: encoded))
        }
      }
    }
    guard !edits.isEmpty else { return LinkRewrite(text: text, edits: [], unwritable: unwritable) }
    return LinkRewrite(text: apply(edits, to: Array(text.utf8)), edits: edits, unwritable: unwritable)
  }

  /// `utf8` with each edit's range replaced by its new bytes; `edits` in text order, not overlapping. Every other
  /// byte is kept as it is.
  public static func apply(_ edits: [LinkEdit], to utf8: [UInt8]) -> String {
    var result: [UInt8] = []
    result.reserveCapacity(utf8.count + edits.count * 16)
    var position = 0
    for edit in edits {
      result += utf8[position..<edit.range.lowerBound]
      result += edit.new.utf8
      position = edit.range.upperBound
    }
    result += utf8[position...]
    return String(decoding: result, as: UTF8.self)
  }

  /// The decoded path part that makes `link` reach `path` from `source`, in the link's form; nil if none does.
  private static func newTarget(
    for link: NoteLink, reaching path: String, from source: String, was step: LinkResolver.Step, after: LinkResolver
  ) -> String? {
    let target = link.target
    let isNote = LinkPath.isNote(path)
    // `.md` as the link wrote it (or not at all) for a note; an attachment's name is nothing without its extension.
    let writtenExtension =
      target.utf8.count >= 3 && target.lowercased().hasSuffix(".md") ? String(target.suffix(3)) : ""
    let base = isNote ? String(path.dropLast(3)) : path
    let finish: (String) -> String = { isNote ? $0 + writtenExtension : $0 }
    var candidate: String
    if LinkPath.isRelative(target[...]) {
      let relative = LinkPath.relative(from: LinkPath.directory(of: source), to: base)
      candidate = relative.hasPrefix("../") ? relative : "./" + relative
    } else if target.hasPrefix("/") {
      candidate = "/" + base
    } else if step == .vaultPath && target.utf8.contains(Bytes.slash) {
      candidate = base
    } else if step == .ownFolder && target.utf8.contains(Bytes.slash),
      case let relative = LinkPath.relative(from: LinkPath.directory(of: source), to: base), !relative.hasPrefix("../")
    {
      // A path down from the note's own folder (`plan.files/chart.png`: how nb links a note's attachments) stays
      // one while the file is still below that folder, rather than shrinking to a bare name.
      candidate = relative
    } else {
      candidate = after.shortestUnambiguousName(for: path, from: source)
    }
    for attempt in [finish(candidate), finish(base)] {
      if let match = after.match(attempt, from: source), after.paths[match.index] == path, match.others.isEmpty {
        return attempt
      }
    }
    return nil
  }

  /// `target` as the link's bytes must spell it; nil when its form cannot hold it.
  private static func encode(_ target: String, for link: NoteLink, written: String) -> String? {
    if link.isWiki {
      let forbidden = ["|", "#", "[[", "]]", "\n", "\r"]
      if forbidden.contains(where: { target.contains($0) }) || target.hasSuffix("]") || target.hasPrefix("[")
        || target.hasSuffix("\\") || target.first?.isWhitespace == true || target.last?.isWhitespace == true
      {
        return nil
      }
      if link.frontMatterQuote == Bytes.doubleQuote, target.contains("\"") || target.contains("\\") { return nil }
      if link.frontMatterQuote == Bytes.singleQuote, target.contains("'") { return nil }
      return target
    }
    return MarkdownDestination.encode(target, angle: link.angleDestination, like: written)
  }
}

/// Percent-encoding of Markdown link destinations.
enum MarkdownDestination {
  /// `path` encoded for a destination, reusing how `written` spelled each component that is unchanged.
  static func encode(_ path: String, angle: Bool, like written: String) -> String {
    var spelled: [String: String] = [:]
    var escapesNonASCII = false
    var writtenCopy = written
    writtenCopy.withUTF8 { bytes in
      var start = 0
      for index in 0...bytes.count where index == bytes.count || bytes[index] == Bytes.slash {
        let range = start..<index
        spelled[Bytes.decoded(bytes, range)] = Bytes.string(bytes, range)
        start = index + 1
      }
      var index = 0
      while index + 2 < bytes.count {
        if bytes[index] == Bytes.percent, let high = Bytes.hexValue(bytes[index + 1]), high >= 8,
          Bytes.hexValue(bytes[index + 2]) != nil
        {
          escapesNonASCII = true
        }
        index += 1
      }
    }
    let components = path.split(separator: "/", omittingEmptySubsequences: false)
    return components.map { component in
      if let same = spelled[String(component)] { return same }
      return escape(component, angle: angle, nonASCII: escapesNonASCII)
    }.joined(separator: "/")
  }

  private static func escape(_ component: Substring, angle: Bool, nonASCII: Bool) -> String {
    var balance = 0
    var balanced = true
    for byte in component.utf8 {
      if byte == Bytes.openParen { balance += 1 }
      if byte == Bytes.closeParen {
        balance -= 1
        if balance < 0 { balanced = false }
      }
    }
    if balance != 0 { balanced = false }
    var result: [UInt8] = []
    for byte in component.utf8 {
      let escape: Bool
      switch byte {
      case Bytes.space: escape = !angle
      case Bytes.percent, Bytes.hash, Bytes.pipe, Bytes.less, Bytes.greater, Bytes.backslash, 0x7F: escape = true
      case Bytes.openParen, Bytes.closeParen: escape = !angle && !balanced
      case 0..<0x20: escape = true
      case 0x80...: escape = nonASCII
      default: escape = false
      }
      if escape {
        let digits = Array("0123456789ABCDEF".utf8)
        result += [Bytes.percent, digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
      } else {
        result.append(byte)
      }
    }
    return String(decoding: result, as: UTF8.self)
  }
}

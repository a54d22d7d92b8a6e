import Foundation
import TextFormat

/// Finds the links in a note's text, in one pass over its UTF-8 bytes, following Obsidian's reading of them.
///
/// What is a link:
/// - Wiki links `[[target#H1#H2|shown]]`, `[[target#^block]]`, `[[#Heading]]` (same note), and embeds `![[…]]`
///   with the same grammar. The target ends at the first `|` or `#`; the first `]]` ends the link (a single `]`
///   does not: `[[a]b]]` names `a]b`); a `[[` before it, a line break or the end of the text means there was no
///   link. In a table the pipe is escaped, `[[Note\|shown]]`, and the backslash belongs to neither part. Spaces
///   around the target, each heading and the block id are dropped. `[[]]`, `[[|x]]` and `[[#]]` link nothing.
/// - Markdown links `[shown](dest)` and images `![alt](dest)`: CommonMark's inline link — balanced brackets in the
///   text, a destination that is `<…>` (spaces allowed) or has no spaces and balanced parentheses, an optional title.
///   The destination's path part (before the first `#`) is percent-decoded and backslash escapes are undone;
///   `[x](#Heading)` links into the same note. A destination with a URL scheme (`https:`, `mailto:`,
///   `obsidian:`), or starting with `//`, is not a note link; nor is an empty one.
/// - Front matter: only wiki links and embeds inside a quoted YAML value (`related: "[[X]]"`, `- '[[Y]]'`), as
///   Obsidian's properties require; an unquoted `[[X]]` is a YAML list in a list there, not a link.
///
/// What is not: anything in a fenced code block (three or more backticks or tildes, closed by a fence of the same
/// character at least as long; fences inside blockquotes, callouts and lists count) or an inline code span (a run of
/// backticks closed by the next run of the same length in the same paragraph), and brackets escaped with a
/// backslash (`\[\[`, `\!`). Not handled, and so scanned as text: indented code blocks, HTML blocks and comments,
/// `%%` comments, math, and reference-style links (`[x][ref]`).
public enum LinkScanner {
  /// Every link in `text`, in the order they start.
  public static func links(in text: String) -> [NoteLink] {
    var text = text
    return text.withUTF8 { bytes in
      var scanner = LinkByteScanner(bytes: bytes)
      scanner.scan()
      return scanner.finish()
    }
  }

  /// The headings and block ids `text` defines, which `[[Note#Heading]]` and `[[Note#^id]]` point at.
  ///
  /// Headings are ATX headings (`## Title`, up to 3 spaces before, closing `#`s dropped), outside code and front
  /// matter. A block id is `^id` of Latin letters, digits and dashes ending a line after a space (or right after an
  /// embed's `]]`), or alone on its line (for lists, quotes and tables).
  public static func anchors(in text: String) -> LinkAnchors {
    var text = text
    return text.withUTF8 { bytes in
      var anchors = LinkAnchors(headings: [], blocks: [])
      let body = FrontMatterSpan(bytes)?.bodyStart ?? 0
      BodyLines.walk(bytes, from: body) { line in
        if let heading = heading(bytes, line) { anchors.headings.append(heading) }
        if let block = blockID(bytes, line) { anchors.blocks.append(block) }
      } paragraph: { _ in
      }
      return anchors
    }
  }

  /// The `aliases` (or the deprecated `alias`) property of the front matter: a YAML list, block (`- Doggo`) or flow
  /// (`[Doggo, Woofer]`), or a single value; quotes removed. Obsidian does not resolve `[[alias]]` to the note, but
  /// an alias is another name the note is mentioned by.
  public static func aliases(in text: String) -> [String] {
    var text = text
    return text.withUTF8 { bytes in
      guard let span = FrontMatterSpan(bytes) else { return [] }
      var aliases: [String] = []
      var inList = false
      var position = span.contentStart
      while position < span.contentEnd, let line = Line(bytes, from: position) {
        position = line.next
        let content = Bytes.trimmed(bytes, line.start..<line.end)
        if content.isEmpty { continue }
        let indented = content.lowerBound > line.start
        if bytes[content.lowerBound] == Bytes.dash, content.count == 1 || Bytes.isBlank(bytes[content.lowerBound + 1]) {
          if inList { aliases.append(YAMLScalar.value(bytes, content.lowerBound + 1..<content.upperBound)) }
          continue
        }
        if indented { continue }
        inList = false
        let text = Bytes.string(bytes, content)
        guard let colon = text.firstIndex(of: ":") else { continue }
        let key = text[..<colon].trimmingWhitespaces()
        guard key == "aliases" || key == "alias" else { continue }
        let value = text[text.index(after: colon)...].trimmingWhitespaces()
        if value.isEmpty {
          inList = true
        } else if value.hasPrefix("[") {
          aliases += YAMLScalar.flowList(value)
        } else {
          aliases.append(YAMLScalar.unquoted(value))
        }
      }
      return aliases.filter { !$0.isEmpty }
    }
  }

  private static func heading(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Line) -> String? {
    var position = line.start
    while position < line.end, position - line.start < 3, bytes[position] == Bytes.space { position += 1 }
    var level = 0
    while position < line.end, bytes[position] == Bytes.hash { level += 1; position += 1 }
    guard (1...6).contains(level), position == line.end || Bytes.isBlank(bytes[position]) else { return nil }
    var content = Bytes.trimmed(bytes, position..<line.end)
    // A closing sequence of #s after a space is not part of the heading.
    var end = content.upperBound
    while end > content.lowerBound, bytes[end - 1] == Bytes.hash { end -= 1 }
    if end == content.lowerBound || Bytes.isBlank(bytes[end - 1]) {
      content = Bytes.trimmed(bytes, content.lowerBound..<end)
    }
    return Bytes.string(bytes, content)
  }

  private static func blockID(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Line) -> String? {
    let content = Bytes.trimmed(bytes, line.start..<line.end)
    var start = content.upperBound
    while start > content.lowerBound, LinkAnchors.isBlockIDByte(bytes[start - 1]) { start -= 1 }
    guard start < content.upperBound, start > content.lowerBound, bytes[start - 1] == Bytes.caret else { return nil }
    let caret = start - 1
    // After a space, or right after an embed (`![[chart.png]]^chart`, as the help vault writes it).
    guard caret == content.lowerBound || Bytes.isBlank(bytes[caret - 1]) || bytes[caret - 1] == Bytes.closeBracket
    else { return nil }
    return Bytes.string(bytes, start..<content.upperBound)
  }
}

/// The headings and block ids a note defines.
public struct LinkAnchors: Equatable, Sendable {
  /// Heading texts in order, as written (`Links are first-class citizens`).
  public var headings: [String]
  /// Block ids in order, without the caret (`37066d`).
  public var blocks: [String]

  /// Anchors as given.
  public init(headings: [String], blocks: [String]) {
    self.headings = headings
    self.blocks = blocks
  }

  /// Whether the heading chain or block `link` names exists here. A chain `#H1#H2` needs each heading after the one
  /// before it, in order; headings compare as Obsidian writes them into links: case-insensitively, with the
  /// characters a link cannot hold (and all other punctuation) dropped. A link naming neither is `true`. A PDF's
  /// `#page=3` or an image's `#interface` is no heading and is `false` here: ask this of notes only.
  public func contains(_ link: NoteLink) -> Bool {
    if let block = link.block {
      let wanted = block.lowercased()
      return blocks.contains { $0.lowercased() == wanted }
    }
    var next = 0
    for wanted in link.headings.map(Self.comparable) {
      guard let found = headings[next...].firstIndex(where: { Self.comparable($0) == wanted }) else { return false }
      next = found + 1
    }
    return true
  }

  /// Letters and digits only, lowercased, words joined by one space: Obsidian writes a heading into a link without
  /// the characters a link cannot hold, and the help vault links `### How large can it be?` as `#How large can it be`
  /// and ``### `hasTag()` `` as `#hasTag`.
  static func comparable(_ heading: String) -> String {
    let words = heading.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) })
    return words.joined(separator: " ")
  }

  static func isBlockIDByte(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == Bytes.dash
  }
}

/// The body's lines, fenced code told apart from text; text lines grouped into paragraphs (runs of non-blank lines
/// between blank lines and fences), the unit inline code spans and Markdown links cannot cross.
enum BodyLines {
  static func walk(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, line onLine: (Line) -> Void,
    paragraph onParagraph: (Range<Int>) -> Void
  ) {
    var position = start
    var paragraphStart = -1
    var fenceByte: UInt8 = 0
    var fenceLength = 0
    while let line = Line(bytes, from: position) {
      position = line.next
      // Blockquote and callout markers and indentation come before a fence: `> ```md` opens one.
      var content = line.start
      while content < line.end, Bytes.isBlank(bytes[content]) || bytes[content] == Bytes.greater { content += 1 }
      if fenceByte != 0 {
        if run(bytes, content, line.end, of: fenceByte) >= fenceLength,
          Bytes.trimmed(bytes, content + run(bytes, content, line.end, of: fenceByte)..<line.end).isEmpty
        {
          fenceByte = 0
        }
        continue
      }
      if content < line.end, bytes[content] == Bytes.backtick || bytes[content] == Bytes.tilde {
        let length = run(bytes, content, line.end, of: bytes[content])
        let infoHasBacktick =
          bytes[content] == Bytes.backtick
          && (content + length..<line.end).contains { bytes[$0] == Bytes.backtick }
        if length >= 3, !infoHasBacktick {
          if paragraphStart >= 0 { onParagraph(paragraphStart..<line.start) }
          paragraphStart = -1
          fenceByte = bytes[content]
          fenceLength = length
          continue
        }
      }
      if content == line.end {
        if paragraphStart >= 0 { onParagraph(paragraphStart..<line.start) }
        paragraphStart = -1
        continue
      }
      onLine(line)
      if paragraphStart < 0 { paragraphStart = line.start }
    }
    if paragraphStart >= 0 { onParagraph(paragraphStart..<bytes.count) }
  }

  @inline(__always) static func run(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, of byte: UInt8)
    -> Int
  {
    var position = start
    while position < end, bytes[position] == byte { position += 1 }
    return position - start
  }
}

/// The scanner's state over one text.
struct LinkByteScanner {
  let bytes: UnsafeBufferPointer<UInt8>
  var links: [NoteLink] = []
  private var sorted = true
  /// Per title quote, the position from which a title was found unclosed in the current paragraph.
  private var unclosedTitle: [UInt8: Int] = [:]

  init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  mutating func scan() {
    var body = 0
    if let span = FrontMatterSpan(bytes) {
      scanFrontMatter(span)
      body = span.bodyStart
    }
    var paragraphs: [Range<Int>] = []
    BodyLines.walk(bytes, from: body) { _ in
    } paragraph: {
      paragraphs.append($0)
    }
    for paragraph in paragraphs { scanParagraph(paragraph) }
  }

  /// The links, sorted, with their line numbers counted in one walk.
  mutating func finish() -> [NoteLink] {
    if !sorted { links.sort { $0.range.lowerBound < $1.range.lowerBound } }
    var line = 1
    var position = 0
    for index in links.indices {
      let start = links[index].range.lowerBound
      while position < start {
        if bytes[position] == Bytes.newline { line += 1 }
        position += 1
      }
      links[index].line = line
    }
    return links
  }

  private mutating func emit(_ link: NoteLink) {
    if let last = links.last, last.range.lowerBound > link.range.lowerBound { sorted = false }
    links.append(link)
  }

  // MARK: Front matter

  /// Wiki links inside quoted YAML values. A quote opens a value only where a YAML scalar may start (after `:`,
  /// `-`, `[`, `,`, `{` or at the line's start), so the apostrophe in `title: Don't` is text.
  private mutating func scanFrontMatter(_ span: FrontMatterSpan) {
    var position = span.contentStart
    while position < span.contentEnd, let line = Line(bytes, from: position) {
      position = line.next
      var index = line.start
      var previous: UInt8 = 0
      while index < line.end {
        let byte = bytes[index]
        if byte == Bytes.doubleQuote || byte == Bytes.singleQuote,
          previous == 0 || previous == Bytes.colon || previous == Bytes.dash || previous == Bytes.openBracket
            || previous == UInt8(ascii: ",") || previous == UInt8(ascii: "{")
        {
          let close = YAMLScalar.closingQuote(bytes, from: index + 1, end: line.end, quote: byte)
          scanQuoted(index + 1..<close, quote: byte)
          index = close + 1
          previous = byte
          continue
        }
        // A comment runs to the end of the line.
        if byte == Bytes.hash, index == line.start || Bytes.isBlank(bytes[index - 1]) { break }
        if !Bytes.isBlank(byte) { previous = byte }
        index += 1
      }
    }
  }

  private mutating func scanQuoted(_ region: Range<Int>, quote: UInt8) {
    var index = region.lowerBound
    while index + 1 < region.upperBound {
      if bytes[index] == Bytes.openBracket, bytes[index + 1] == Bytes.openBracket {
        let embed = index > region.lowerBound && bytes[index - 1] == Bytes.bang
        switch wiki(at: index, end: region.upperBound, embed: embed) {
        case .link(var link, let next):
          link.inFrontMatter = true
          link.frontMatterQuote = quote
          emit(link)
          index = next
        case .consumed(let next): index = next
        case .none: index += 1
        }
      } else {
        index += 1
      }
    }
  }

  // MARK: Paragraphs

  private enum Parse {
    case link(NoteLink, next: Int)
    /// Link syntax that links nothing (`[[]]`, `[x]()`); scanning goes on after it.
    case consumed(next: Int)
    case none
  }

  private struct Opener {
    var position: Int
    var image: Bool
  }

  private mutating func scanParagraph(_ paragraph: Range<Int>) {
    let end = paragraph.upperBound
    if !unclosedTitle.isEmpty { unclosedTitle.removeAll(keepingCapacity: true) }
    var codeRuns = CodeRuns()
    var openers: [Opener] = []
    var bang = -2
    var index = paragraph.lowerBound
    while index < end {
      let byte = bytes[index]
      switch byte {
      case Bytes.backslash:
        index += index + 1 < end && Bytes.isPunctuation(bytes[index + 1]) ? 2 : 1
      case Bytes.backtick:
        let length = BodyLines.run(bytes, index, end, of: Bytes.backtick)
        if let close = codeRuns.closer(bytes, paragraph, after: index + length, length: length) {
          index = close + length
        } else {
          index += length
        }
      case Bytes.bang:
        bang = index
        index += 1
      case Bytes.openBracket:
        let image = bang == index - 1
        if index + 1 < end, bytes[index + 1] == Bytes.openBracket {
          switch wiki(at: index, end: end, embed: image) {
          case .link(let link, let next):
            emit(link)
            index = next
            continue
          case .consumed(let next):
            index = next
            continue
          case .none: break
          }
        }
        openers.append(Opener(position: index, image: image))
        index += 1
      case Bytes.closeBracket:
        guard let opener = openers.popLast() else {
          index += 1
          continue
        }
        guard index + 1 < end, bytes[index + 1] == Bytes.openParen,
          let destination = destination(from: index + 2, end: end)
        else {
          index += 1
          continue
        }
        if let link = markdownLink(opener: opener, textEnd: index, destination) { emit(link) }
        // Links do not nest (CommonMark): the brackets still open around a link are text.
        if !opener.image { openers.removeAll(keepingCapacity: true) }
        index = destination.close + 1
      default:
        index += 1
      }
    }
  }

  // MARK: Wiki links

  /// A wiki link whose `[[` is at `start`; `embed` when a `!` comes right before it.
  private func wiki(at start: Int, end: Int, embed: Bool) -> Parse {
    let contentStart = start + 2
    // `[[[x]]]`: the innermost `[[` is the link.
    if contentStart < end, bytes[contentStart] == Bytes.openBracket { return .none }
    var index = contentStart
    var pipe = -1
    while index + 1 < end {
      let byte = bytes[index]
      if byte == Bytes.newline { return .none }
      if byte == Bytes.closeBracket, bytes[index + 1] == Bytes.closeBracket { break }
      if byte == Bytes.openBracket, bytes[index + 1] == Bytes.openBracket { return .none }
      if byte == Bytes.pipe, pipe < 0 { pipe = index }
      index += 1
    }
    guard index + 1 < end else { return .none }
    let contentEnd = index
    let next = contentEnd + 2
    var linkEnd = contentEnd
    var display: String?
    if pipe >= 0 {
      linkEnd = pipe
      // In a table the pipe is escaped: `[[Note\|shown]]`.
      if pipe > contentStart, bytes[pipe - 1] == Bytes.backslash { linkEnd = pipe - 1 }
      display = Bytes.string(bytes, pipe + 1..<contentEnd)
    }
    var pathEnd = linkEnd
    for position in contentStart..<linkEnd where bytes[position] == Bytes.hash {
      pathEnd = position
      break
    }
    let targetRange = Bytes.trimmed(bytes, contentStart..<pathEnd)
    var headings: [String] = []
    var block: String?
    if pathEnd < linkEnd { (headings, block) = subpath(pathEnd + 1..<linkEnd, decode: false) }
    guard !targetRange.isEmpty || !headings.isEmpty || block != nil else { return .consumed(next: next) }
    let target = Bytes.string(bytes, targetRange)
    var link = NoteLink(
      kind: embed ? .embed : .wiki, target: target, headings: headings, block: block, display: display, line: 0,
      range: (embed ? start - 1 : start)..<next,
      targetRange: targetRange.isEmpty ? pathEnd..<pathEnd : targetRange)
    link.inFrontMatter = false
    return .link(link, next: next)
  }

  /// `#H1#H2` as headings, `#^id` as a block id; empty parts dropped.
  private func subpath(_ range: Range<Int>, decode: Bool) -> ([String], String?) {
    let trimmed = Bytes.trimmed(bytes, range)
    if !trimmed.isEmpty, bytes[trimmed.lowerBound] == Bytes.caret {
      let id = Bytes.trimmed(bytes, trimmed.lowerBound + 1..<trimmed.upperBound)
      if id.isEmpty { return ([], nil) }
      return ([], decode ? Bytes.decoded(bytes, id) : Bytes.string(bytes, id))
    }
    var headings: [String] = []
    var partStart = range.lowerBound
    for position in range.lowerBound...range.upperBound
    where position == range.upperBound || bytes[position] == Bytes.hash {
      let part = Bytes.trimmed(bytes, partStart..<position)
      if !part.isEmpty { headings.append(decode ? Bytes.decoded(bytes, part) : Bytes.string(bytes, part)) }
      partStart = position + 1
    }
    return (headings, nil)
  }

  // MARK: Markdown links

  private struct Destination {
    /// The destination's bytes, inside `<…>` for an angle destination.
    var range: Range<Int>
    var angle: Bool
    /// The closing `)`.
    var close: Int
  }

  /// The `(destination "title")` part of an inline link, its `(` just before `start`.
  private mutating func destination(from start: Int, end: Int) -> Destination? {
    var index = start
    index = skipSpace(index, end)
    let range: Range<Int>
    let angle = index < end && bytes[index] == Bytes.less
    if angle {
      var close = index + 1
      while close < end {
        let byte = bytes[close]
        if byte == Bytes.newline || byte == Bytes.less { return nil }
        if byte == Bytes.backslash, close + 1 < end, Bytes.isPunctuation(bytes[close + 1]) {
          close += 2
          continue
        }
        if byte == Bytes.greater { break }
        close += 1
      }
      guard close < end else { return nil }
      range = index + 1..<close
      index = close + 1
    } else {
      var stop = index
      var depth = 0
      while stop < end {
        let byte = bytes[stop]
        if byte <= Bytes.space || byte == 0x7F { break }
        if byte == Bytes.backslash, stop + 1 < end, Bytes.isPunctuation(bytes[stop + 1]) {
          stop += 2
          continue
        }
        if byte == Bytes.openParen {
          // cmark's limit: deeper nesting is no destination, so a flood of `](` fails fast instead of rescanning.
          depth += 1
          if depth > 32 { return nil }
        }
        if byte == Bytes.closeParen {
          if depth == 0 { break }
          depth -= 1
        }
        stop += 1
      }
      guard depth == 0 else { return nil }
      range = index..<stop
      index = stop
    }
    index = skipSpace(index, end)
    guard index < end else { return nil }
    if bytes[index] == Bytes.closeParen { return Destination(range: range, angle: angle, close: index) }
    // A title needs space before it.
    guard index > range.upperBound + (angle ? 1 : 0) else { return nil }
    let open = bytes[index]
    let closing: UInt8
    switch open {
    case Bytes.doubleQuote, Bytes.singleQuote: closing = open
    case Bytes.openParen: closing = Bytes.closeParen
    default: return nil
    }
    // A title left open to the paragraph's end leaves every later one of its kind open too: remember where that
    // happened, so a paragraph full of `[x](a (` is not rescanned from each.
    if let failed = unclosedTitle[closing], failed <= index { return nil }
    var close = index + 1
    while close < end, bytes[close] != closing {
      close += bytes[close] == Bytes.backslash && close + 1 < end ? 2 : 1
    }
    guard close < end else {
      unclosedTitle[closing] = index
      return nil
    }
    index = skipSpace(close + 1, end)
    guard index < end, bytes[index] == Bytes.closeParen else { return nil }
    return Destination(range: range, angle: angle, close: index)
  }

  /// Spaces and tabs, and at most one line break (a destination or title may start on the next line).
  private func skipSpace(_ start: Int, _ end: Int) -> Int {
    var index = start
    var newlines = 0
    while index < end {
      let byte = bytes[index]
      if Bytes.isBlank(byte) || byte == Bytes.carriageReturn {
        index += 1
      } else if byte == Bytes.newline, newlines == 0 {
        newlines += 1
        index += 1
      } else {
        break
      }
    }
    return index
  }

  private func markdownLink(opener: Opener, textEnd: Int, _ destination: Destination) -> NoteLink? {
    let range = destination.range
    guard !range.isEmpty, !Self.isExternal(bytes, range) else { return nil }
    var pathEnd = range.upperBound
    for position in range where bytes[position] == Bytes.hash {
      pathEnd = position
      break
    }
    let pathRange = range.lowerBound..<pathEnd
    var headings: [String] = []
    var block: String?
    if pathEnd < range.upperBound { (headings, block) = subpath(pathEnd + 1..<range.upperBound, decode: true) }
    guard !pathRange.isEmpty || !headings.isEmpty || block != nil else { return nil }
    let textStart = opener.position + 1
    var link = NoteLink(
      kind: opener.image ? .image : .markdown, target: Bytes.decoded(bytes, pathRange), headings: headings,
      block: block, display: Bytes.string(bytes, textStart..<textEnd), line: 0,
      range: (opener.image ? opener.position - 1 : opener.position)..<destination.close + 1,
      targetRange: pathRange)
    link.angleDestination = destination.angle
    return link
  }

  /// A URL, not a file: a scheme (`https:`, `mailto:`, `obsidian:`, `file:`; a letter, then letters, digits, `+`,
  /// `-` or `.`, then `:`) before any `/`, `#` or `?`, or a network path `//host`.
  static func isExternal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
    if range.count >= 2, bytes[range.lowerBound] == Bytes.slash, bytes[range.lowerBound + 1] == Bytes.slash {
      return true
    }
    guard let first = range.first, isLetter(bytes[first]) else { return false }
    for position in range.dropFirst() {
      let byte = bytes[position]
      if byte == Bytes.colon { return true }
      guard
        isLetter(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "+") || byte == Bytes.dash
          || byte == Bytes.dot
      else { return false }
    }
    return false
  }

  @inline(__always) private static func isLetter(_ byte: UInt8) -> Bool {
    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }
}

/// The backtick runs of one paragraph, found the first time a code span is opened: a run of `n` backticks closes
/// the span the nearest earlier unclosed run of `n` opened (CommonMark), so the closer is the next run of exactly
/// `n` — looked up by length, never by scanning again, which keeps a paragraph of many backticks linear.
private struct CodeRuns {
  private var starts: [Int: [Int]]?

  mutating func closer(_ bytes: UnsafeBufferPointer<UInt8>, _ paragraph: Range<Int>, after position: Int, length: Int)
    -> Int?
  {
    if starts == nil {
      var found: [Int: [Int]] = [:]
      var index = paragraph.lowerBound
      while index < paragraph.upperBound {
        if bytes[index] == Bytes.backtick {
          let run = BodyLines.run(bytes, index, paragraph.upperBound, of: Bytes.backtick)
          found[run, default: []].append(index)
          index += run
        } else {
          index += 1
        }
      }
      starts = found
    }
    guard let candidates = starts?[length] else { return nil }
    // The first run of this length starting at or after `position`.
    var low = 0
    var high = candidates.count
    while low < high {
      let middle = (low + high) / 2
      if candidates[middle] < position { low = middle + 1 } else { high = middle }
    }
    return low < candidates.count ? candidates[low] : nil
  }
}

/// Just enough YAML for quoted values and alias lists.
enum YAMLScalar {
  /// The closing quote of a value opened before `start` (`""` escapes with a backslash, `''` by doubling); the
  /// line's end when it is not closed on the line.
  static func closingQuote(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int, quote: UInt8) -> Int {
    var index = start
    while index < end {
      let byte = bytes[index]
      if quote == Bytes.doubleQuote, byte == Bytes.backslash {
        index += 2
        continue
      }
      if byte == quote {
        if quote == Bytes.singleQuote, index + 1 < end, bytes[index + 1] == Bytes.singleQuote {
          index += 2
          continue
        }
        return index
      }
      index += 1
    }
    return end
  }

  static func value(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
    unquoted(Bytes.string(bytes, Bytes.trimmed(bytes, range)))
  }

  /// A scalar without its quotes (`"a \"b\""` -> `a "b"`, `'it''s'` -> `it's`), or a plain one without a trailing
  /// comment.
  static func unquoted(_ text: String) -> String {
    let value = text.trimmingWhitespaces()
    if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
      var result = ""
      var escaped = false
      for character in value.dropFirst().dropLast() {
        if escaped {
          result.append(character)
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else {
          result.append(character)
        }
      }
      return result
    }
    if value.count >= 2, value.hasPrefix("'"), value.hasSuffix("'") {
      return value.dropFirst().dropLast().replacingOccurrences(of: "''", with: "'")
    }
    if let comment = value.range(of: " #") { return value[..<comment.lowerBound].trimmingWhitespaces() }
    return value
  }

  /// `[a, "b, c", 'd']` -> `["a", "b, c", "d"]`.
  static func flowList(_ text: String) -> [String] {
    var inner = Substring(text.trimmingWhitespaces())
    if inner.hasPrefix("[") { inner = inner.dropFirst() }
    if let close = inner.lastIndex(of: "]") { inner = inner[..<close] }
    var items: [String] = []
    var current = ""
    var quote: Character?
    for character in inner {
      if let open = quote {
        if character == open { quote = nil }
        current.append(character)
      } else if character == "\"" || character == "'" {
        quote = character
        current.append(character)
      } else if character == "," {
        items.append(unquoted(current))
        current = ""
      } else {
        current.append(character)
      }
    }
    items.append(unquoted(current))
    return items.filter { !$0.isEmpty }
  }
}

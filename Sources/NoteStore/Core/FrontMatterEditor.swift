import Foundation
import Yams

/// The new value of a key, as lines of YAML text.
struct FMNewValue {
  /// Text after `key:` on the key's own line (empty when the value starts on the next line, e.g. a block list).
  var inline: String
  /// Further lines, without line breaks, already indented.
  var continuation: [String] = []
}

/// Where a new key goes when the block does not have it yet.
enum FMInsertPosition {
  case first
  case last
}

/// The lines a top-level key owns, and the parts of its key line that an edit keeps.
struct FMKeyExtent {
  /// First and last content line (inclusive) of the key and its value.
  var firstLine: Int
  var lastLine: Int
  /// Absolute offset just after the key's `:`.
  var colonEnd: Int
  /// Blanks between `:` and a value written on the key line (nil when the value starts on a later line).
  var separator: String?
  /// Blanks + `# comment` ending the key line, when the edit can keep it there.
  var trailingComment: String?
}

/// Line-level edits of a front matter block. Every edit is checked by parsing the result again: all other keys must
/// read back unchanged and the edited key must hold exactly the new value; otherwise the edit is refused with
/// `FrontMatterError.cannotEdit` rather than risking someone's data.
/// What a new value must read back as (``FMEditor/addingNewBlock(to:entries:)``).
enum FMExpected {
  case string(String)
  case strings([String])

  func matches(_ node: Node) -> Bool {
    switch self {
    case .string(let text):
      return node.scalar?.string == text
    case .strings(let items):
      guard let sequence = node.sequence, sequence.count == items.count else { return false }
      return zip(sequence, items).allSatisfy { $0.scalar?.string == $1 }
    }
  }

  /// ``matches(_:)`` for a value the simple reader (``FMSimpleBlock``) read: a scalar's text as written, a list's
  /// items.
  func matches(simple value: FMSimpleBlock.Value) -> Bool {
    switch (self, value) {
    case (.string(let text), .scalar(let written, _)): return written == text
    case (.strings(let items), .list(let written)): return written == items
    default: return false
    }
  }
}

enum FMEditor {
  /// Sets (or, with `newValue == nil`, removes) one top-level key.
  static func edit(
    _ text: String, key: String, newValue: FMNewValue?, insertAt position: FMInsertPosition = .last
  ) throws -> String {
    switch FMLayout.scan(text) {
    case .unterminated:
      throw FrontMatterError.unterminated(line: 1)
    case .none(let bomLength):
      guard let newValue else { return text }
      return try addingBlock(to: text, bomLength: bomLength, key: key, value: newValue)
    case .block(let block):
      if let newValue, let result = simpleReplacing(text, block: block, key: key, value: newValue) { return result }
      let parsed = try FMParsed.parse(block, typingScalars: false)
      return try edit(text, parsed: parsed, key: key, newValue: newValue, insertAt: position)
    }
  }

  /// ``edit(_:key:newValue:insertAt:)`` of a key a simple block (``FMSimpleBlock``) has, to a one-line value,
  /// without Yams: the key's line becomes `key: value`, exactly as the general path writes it, and the result is
  /// verified with the simple reader (every other key as it was, the key as the value alone reads). nil whenever
  /// that cannot be shown, and the general path decides.
  static func simpleReplacing(_ text: String, block: FMBlock, key: String, value: FMNewValue) -> String? {
    guard value.continuation.isEmpty, !value.inline.isEmpty, let old = FMSimpleBlock.values(block.content),
      let index = old.firstIndex(where: { $0.key == key })
    else { return nil }
    let base = block.contentStart
    guard let line = FMSimpleBlock.line(of: key, in: block),
      // A `#` inside a quoted value is left to the general path's comment rules.
      !block.content[(line.start - base)..<(line.contentEnd - base)].contains(UInt8(ascii: "#"))
    else { return nil }
    let lineEnding = line.end - line.contentEnd == 2 ? "\r\n" : "\n"
    let replacement = key + ": " + value.inline
    guard let expected = FMSimpleBlock.values(Array(replacement.utf8)), expected.count == 1 else { return nil }
    let result = splice(text, line.start, line.end, replacement + lineEnding)
    guard case .block(let edited) = FMLayout.scan(result), let new = FMSimpleBlock.values(edited.content),
      new.count == old.count
    else { return nil }
    for (position, (entry, was)) in zip(new, old).enumerated() {
      guard entry.key == was.key, entry.value == (position == index ? expected[0].value : was.value) else {
        return nil
      }
    }
    return result
  }

  static func edit(
    _ text: String, parsed: FMParsed, key: String, newValue: FMNewValue?, insertAt position: FMInsertPosition
  ) throws -> String {
    let keyLines = try editableKeyLines(parsed, key: key)
    guard let entryIndex = parsed.entries.firstIndex(where: { $0.key == key }) else {
      guard let newValue else { return text }
      return try inserting(text, parsed: parsed, keyLines: keyLines, key: key, value: newValue, at: position)
    }
    let extent = try extent(of: entryIndex, in: parsed, keyLines: keyLines)
    let line = parsed.block.lines[extent.firstLine]
    let lineEnding = line.end - line.contentEnd == 2 ? "\r\n" : "\n"
    let start = parsed.block.lines[extent.firstLine].start
    let end = parsed.block.lines[extent.lastLine].end
    let fileLine = parsed.block.fileLine(ofContentLine: extent.firstLine)
    guard let newValue else {
      let result = splice(text, start, end, "")
      try verify(result, old: parsed, key: key, expected: nil, line: fileLine)
      return result
    }
    let base = parsed.block.contentStart
    let keyPrefix = String(decoding: parsed.block.content[(start - base)..<(extent.colonEnd - base)], as: UTF8.self)
    // Keeping the key line's comment is best effort: when the result does not verify, retry without it.
    let attempts = extent.trailingComment == nil ? [false] : [true, false]
    var lastError: Error?
    for keepComment in attempts {
      var first = keyPrefix
      if !newValue.inline.isEmpty { first += (extent.separator ?? " ") + newValue.inline }
      if keepComment, let comment = extent.trailingComment { first += comment }
      let lines = [first] + newValue.continuation
      let replacement = lines.joined(separator: lineEnding) + lineEnding
      let result = splice(text, start, end, replacement)
      do {
        let expected = try expectedValue(replacement, key: key, line: fileLine)
        try verify(result, old: parsed, key: key, expected: expected, line: fileLine)
        return result
      } catch {
        lastError = error
      }
    }
    throw lastError ?? FrontMatterError.cannotEdit(key: key, line: fileLine, message: "edit failed")
  }

  // MARK: - Adding

  private static func addingBlock(to text: String, bomLength: Int, key: String, value: FMNewValue) throws -> String {
    let lineEnding = bodyLineEnding(text, bomLength: bomLength)
    let entryLines = keyLines(key: key, value: value, indent: "")
    _ = try expectedValue(entryLines.joined(separator: "\n"), key: key, line: 1)
    let lines = ["---"] + entryLines + ["---"]
    return splice(text, bomLength, bomLength, lines.joined(separator: lineEnding) + lineEnding)
  }

  /// A new block of `entries` (key and already-formatted one-line value, in order) put at the start of `text`,
  /// which must have no front matter: what adding them one by one (``edit(_:key:newValue:insertAt:)``, `id`
  /// first, the others last) writes, parsed once to verify instead of three times per key. `expected` holds what
  /// each value must read back as: a string, or a list of strings. nil when `text` has a block already (or an
  /// unclosed one): the caller edits key by key.
  static func addingNewBlock(
    to text: String, entries: [(key: String, value: String, expected: FMExpected)]
  ) throws -> String? {
    guard case .none(let bomLength) = FMLayout.scan(text), let firstKey = entries.first?.key else { return nil }
    let lineEnding = bodyLineEnding(text, bomLength: bomLength)
    let lines = entries.flatMap { keyLines(key: $0.key, value: FMNewValue(inline: $0.value), indent: "") }
    // What nb writes reads back through the simple reader, without Yams; anything it cannot vouch for goes to Yams.
    if let simple = FMSimpleBlock.values(Array(lines.joined(separator: "\n").utf8)), simple.count == entries.count,
      zip(simple, entries).allSatisfy({ $0.key == $1.key && $1.expected.matches(simple: $0.value) })
    {
      return splice(text, bomLength, bomLength, (["---"] + lines + ["---"]).joined(separator: lineEnding) + lineEnding)
    }
    let failure = FrontMatterError.cannotEdit(key: firstKey, line: 1, message: "the new value is not valid YAML")
    let root: Node?
    do {
      root = try Yams.compose(yaml: lines.joined(separator: "\n"), .basic, .default, .utf8)
    } catch {
      throw failure
    }
    guard let mapping = root?.mapping, mapping.count == entries.count else { throw failure }
    for ((key, value), entry) in zip(mapping, entries) {
      guard key.scalar?.string == entry.key, entry.expected.matches(value) else {
        throw FrontMatterError.cannotEdit(key: entry.key, line: 1, message: "the new value is not valid YAML")
      }
    }
    return splice(text, bomLength, bomLength, (["---"] + lines + ["---"]).joined(separator: lineEnding) + lineEnding)
  }

  /// The line ending a new block copies from the body, so that a CRLF file stays CRLF throughout.
  private static func bodyLineEnding(_ text: String, bomLength: Int) -> String {
    withContiguousUTF8(text) { bytes -> String in
      guard let newline = findByte(UInt8(ascii: "\n"), in: bytes, from: bomLength) else { return "\n" }
      return newline > bomLength && bytes[newline - 1] == UInt8(ascii: "\r") ? "\r\n" : "\n"
    }
  }

  private static func keyLines(key: String, value: FMNewValue, indent: String) -> [String] {
    let first = indent + YAMLScalar.format(key) + ":" + (value.inline.isEmpty ? "" : " " + value.inline)
    return [first] + value.continuation.map { indent + $0 }
  }

  private static func inserting(
    _ text: String, parsed: FMParsed, keyLines lines: [Int], key: String, value: FMNewValue,
    at position: FMInsertPosition
  ) throws -> String {
    let block = parsed.block
    // A mapping indented as a whole (legal YAML) gets the new key at the same indentation.
    var indent = ""
    if let firstKeyLine = lines.first, let entry = parsed.entries.first, let mark = entry.keyNode.mark {
      let keyOffset = parsed.contentOffset(of: mark) + block.contentStart
      indent = String(repeating: " ", count: keyOffset - block.lines[firstKeyLine].start)
    }
    let offset = position == .first ? block.contentStart : block.closeStart
    let fileLine = position == .first ? 2 : block.closingFileLine
    let newLines = keyLines(key: key, value: value, indent: indent)
    let replacement = newLines.joined(separator: block.lineEnding) + block.lineEnding
    let result = splice(text, offset, offset, replacement)
    let expected = try expectedValue(replacement, key: key, line: fileLine)
    try verify(result, old: parsed, key: key, expected: expected, line: fileLine, insertedAt: position)
    return result
  }

  // MARK: - Finding a key's lines

  /// The content line of every top-level key. Line-level editing needs a block mapping whose keys each start a
  /// line, in order; anything else (a flow mapping `{a: 1}`, `? complex` keys, keys that are aliases) is refused.
  static func editableKeyLines(_ parsed: FMParsed, key: String) throws -> [Int] {
    guard let root = parsed.root else { return [] }
    guard case .mapping(let mapping) = root else {
      throw FrontMatterError.notAMapping(line: parsed.fileLine(of: root.mark))
    }
    guard mapping.style != .flow else {
      throw FrontMatterError.cannotEdit(
        key: key, line: parsed.fileLine(of: root.mark), message: "front matter is a flow mapping ({...})")
    }
    var lines: [Int] = []
    let content = parsed.block.content
    for entry in parsed.entries {
      guard let mark = entry.keyNode.mark else {
        throw FrontMatterError.cannotEdit(key: key, line: 1, message: "cannot locate a key")
      }
      let offset = parsed.contentOffset(of: mark)
      let index = parsed.lineIndex(containing: offset)
      let refuse = FrontMatterError.cannotEdit(
        key: key, line: parsed.fileLine(of: mark), message: "a key does not start its own line")
      guard index < parsed.block.lines.count, lines.last.map({ $0 < index }) ?? true else { throw refuse }
      let lineStart = parsed.block.lines[index].start - parsed.block.contentStart
      guard content[lineStart..<offset].allSatisfy({ $0 == UInt8(ascii: " ") }) else { throw refuse }
      guard offset < content.count, content[offset] != UInt8(ascii: "?") else { throw refuse }
      lines.append(index)
    }
    return lines
  }

  static func extent(of entryIndex: Int, in parsed: FMParsed, keyLines: [Int]) throws -> FMKeyExtent {
    let block = parsed.block
    let content = block.content
    let base = block.contentStart
    let entry = parsed.entries[entryIndex]
    let keyLine = keyLines[entryIndex]
    let hardEnd = entryIndex + 1 < keyLines.count ? keyLines[entryIndex + 1] : block.lines.count
    let line = block.lines[keyLine]
    let keyOffset = parsed.contentOffset(of: entry.keyNode.mark!)
    guard let colon = YAMLLineScanner.mappingColon(content, from: keyOffset, to: line.contentEnd - base) else {
      throw FrontMatterError.cannotEdit(
        key: entry.key ?? "", line: block.fileLine(ofContentLine: keyLine), message: "cannot find the key's ':'")
    }
    let colonEnd = colon + 1

    // Where the value ends decides which lines belong to the key; trailing blank and comment lines stay put.
    var lastLine = lastContentLine(block, from: keyLine, before: hardEnd) { _ in true }
    let valueOffset = entry.value.mark.map { parsed.contentOffset(of: $0) }
    let valueLine = valueOffset.map { parsed.lineIndex(containing: $0) }
    let valueInRange = valueLine.map { $0 >= keyLine && $0 < hardEnd } ?? false
    switch entry.value {
    case .scalar(let scalar) where valueInRange && (scalar.style == .doubleQuoted || scalar.style == .singleQuoted):
      lastLine = tokenEndLine(parsed, from: valueOffset!, limitLine: hardEnd) ?? lastLine
    case .sequence(let sequence) where valueInRange && sequence.style == .flow:
      lastLine = tokenEndLine(parsed, from: valueOffset!, limitLine: hardEnd) ?? lastLine
    case .mapping(let mapping) where valueInRange && mapping.style == .flow:
      lastLine = tokenEndLine(parsed, from: valueOffset!, limitLine: hardEnd) ?? lastLine
    case .scalar(let scalar) where scalar.style == .literal || scalar.style == .folded:
      // Block scalar content is indented and may hold lines that look like comments.
      lastLine = lastContentLine(block, from: keyLine, before: hardEnd, commentsAreContent: true) { lineIndex in
        let first = content[block.lines[lineIndex].start - base]
        return first == UInt8(ascii: " ") || first == UInt8(ascii: "\t")
      }
    default:
      break
    }

    let lineEndRelative = line.contentEnd - base
    let comment = YAMLLineScanner.commentStart(content, from: colonEnd, to: lineEndRelative)
    let valueEndOnLine =
      comment.map { YAMLLineScanner.skipBlanksBackward(content, from: $0, downTo: colonEnd) }
      ?? lineEndRelative
    let valueText = content[colonEnd..<valueEndOnLine]
    let valueOnKeyLine = valueText.contains { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
    var separator: String?
    if valueOnKeyLine {
      let firstNonBlank = valueText.firstIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }!
      let blanks = content[colonEnd..<firstNonBlank]
      separator = blanks.isEmpty ? nil : String(decoding: blanks, as: UTF8.self)
    }
    var trailingComment: String?
    if comment != nil, lastLine == keyLine || !valueOnKeyLine {
      trailingComment = String(decoding: content[valueEndOnLine..<lineEndRelative], as: UTF8.self)
    }
    return FMKeyExtent(
      firstLine: keyLine, lastLine: lastLine, colonEnd: colonEnd + base, separator: separator,
      trailingComment: trailingComment)
  }

  /// The last line in `first..<end` that is not blank, not a comment (unless `commentsAreContent`), and passes
  /// `accept` (at least `first`).
  private static func lastContentLine(
    _ block: FMBlock, from first: Int, before end: Int, commentsAreContent: Bool = false, accept: (Int) -> Bool
  ) -> Int {
    var index = end - 1
    while index > first {
      let line = block.lines[index]
      var offset = line.start - block.contentStart
      let lineEnd = line.contentEnd - block.contentStart
      while offset < lineEnd, block.content[offset] == UInt8(ascii: " ") || block.content[offset] == UInt8(ascii: "\t")
      {
        offset += 1
      }
      if offset < lineEnd, commentsAreContent || block.content[offset] != UInt8(ascii: "#"), accept(index) {
        return index
      }
      index -= 1
    }
    return first
  }

  /// The line where a quoted scalar or flow collection starting at `offset` ends (nil when it cannot be found).
  private static func tokenEndLine(_ parsed: FMParsed, from offset: Int, limitLine: Int) -> Int? {
    let limit =
      limitLine < parsed.block.lines.count
      ? parsed.block.lines[limitLine].start - parsed.block.contentStart : parsed.block.content.count
    guard let end = YAMLLineScanner.tokenEnd(parsed.block.content, from: offset, limit: limit) else { return nil }
    return parsed.lineIndex(containing: end - 1)
  }

  // MARK: - Verifying

  /// The node `replacement` (a complete `key: value` entry) parses to on its own.
  private static func expectedValue(_ replacement: String, key: String, line: Int) throws -> Node {
    let root: Node?
    do {
      // Untyped, as the result is parsed to verify it: see `equal` for why that compares as strictly.
      root = try Yams.compose(yaml: replacement, .basic, .default, .utf8)
    } catch {
      throw FrontMatterError.cannotEdit(key: key, line: line, message: "the new value is not valid YAML")
    }
    guard let value = root?.mapping?.first?.value else {
      throw FrontMatterError.cannotEdit(key: key, line: line, message: "the new value is not valid YAML")
    }
    return value
  }

  private static func verify(
    _ result: String, old: FMParsed, key: String, expected: Node?, line: Int, insertedAt: FMInsertPosition? = nil
  ) throws {
    let failure = FrontMatterError.cannotEdit(
      key: key, line: line, message: "editing the lines would change other keys or the layout")
    guard case .block(let block) = FMLayout.scan(result), let parsed = try? FMParsed.parse(block, typingScalars: false)
    else {
      throw failure
    }
    // The edited key's own node is never compared (its text is the key), so none is made for it: making a Node
    // of a string starts Yams' default resolver, whose regular expressions cost more than the whole edit.
    var expectedEntries: [(String?, Node?, Node)] = old.entries.map { ($0.key, $0.keyNode, $0.value) }
    if let expected {
      let entry: (String?, Node?, Node) = (key, nil, expected)
      switch insertedAt {
      case .first: expectedEntries.insert(entry, at: 0)
      case .last: expectedEntries.append(entry)
      case nil:
        guard let index = expectedEntries.firstIndex(where: { $0.0 == key }) else { throw failure }
        expectedEntries[index].2 = expected
      }
    } else {
      expectedEntries.removeAll { $0.0 == key }
    }
    guard parsed.entries.count == expectedEntries.count else { throw failure }
    // Aliases make the composed tree a DAG that plain `==` would walk in full: a "billion laughs" block must not
    // hang an edit, so the comparison has a node budget and refuses the edit when it runs out.
    var budget = 1_000_000
    for (actual, wanted) in zip(parsed.entries, expectedEntries) {
      guard actual.key == wanted.0, equal(actual.value, wanted.2, budget: &budget) else { throw failure }
      if actual.key != key {
        guard let wantedKey = wanted.1, equal(actual.keyNode, wantedKey, budget: &budget) else { throw failure }
      }
    }
  }

  /// Structural equality, giving up (false) after `budget` nodes. Both sides are parsed without typing scalars
  /// (Yams' basic resolver), under which a scalar's tag is the one written (`!!int`) or `str`: with the style
  /// (plain or quoted) compared too, two scalars that compare equal also type the same under the default resolver,
  /// so this is at least as strict as comparing typed values, without starting that resolver.
  private static func equal(_ lhs: Node, _ rhs: Node, budget: inout Int) -> Bool {
    budget -= 1
    guard budget > 0 else { return false }
    switch (lhs, rhs) {
    case (.scalar(let left), .scalar(let right)):
      return left == right && left.style == right.style
    case (.sequence(let left), .sequence(let right)):
      guard left.count == right.count, lhs.tag == rhs.tag else { return false }
      return zip(left, right).allSatisfy { equal($0, $1, budget: &budget) }
    case (.mapping(let left), .mapping(let right)):
      guard left.count == right.count, lhs.tag == rhs.tag else { return false }
      return zip(left, right).allSatisfy {
        equal($0.key, $1.key, budget: &budget) && equal($0.value, $1.value, budget: &budget)
      }
    default:
      return lhs == rhs
    }
  }

  // MARK: - Text

  /// `text` with the bytes `start..<end` replaced; linear in the size of the text.
  static func splice(_ text: String, _ start: Int, _ end: Int, _ replacement: String) -> String {
    let startIndex = stringIndex(text, start)
    let endIndex = stringIndex(text, end)
    var result = String()
    result.reserveCapacity(text.utf8.count - (end - start) + replacement.utf8.count)
    result.append(contentsOf: text[..<startIndex])
    result.append(replacement)
    result.append(contentsOf: text[endIndex...])
    return result
  }
}

/// Just enough of YAML's lexical rules to find colons, comments and the ends of quoted or bracketed values in the
/// raw lines (Yams reports where nodes start, not where they end).
enum YAMLLineScanner {
  private static let space = UInt8(ascii: " ")
  private static let tab = UInt8(ascii: "\t")

  private static func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab }

  /// A quote opens a quoted scalar only where a token starts; `it's` in a plain scalar is not a quote.
  private static func startsToken(after byte: UInt8?) -> Bool {
    guard let byte else { return true }
    return isBlank(byte) || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: ",")
      || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
  }

  /// Offset just past the closing quote starting at `index`, or nil when it does not close before `limit`.
  private static func skipQuoted(_ bytes: [UInt8], at index: Int, limit: Int) -> Int? {
    let quote = bytes[index]
    var position = index + 1
    while position < limit {
      let byte = bytes[position]
      if quote == UInt8(ascii: "\"") && byte == UInt8(ascii: "\\") {
        position += 2
        continue
      }
      if byte == quote {
        if quote == UInt8(ascii: "'"), position + 1 < limit, bytes[position + 1] == quote {
          position += 2
          continue
        }
        return position + 1
      }
      position += 1
    }
    return nil
  }

  /// The first `:` followed by a blank or the end of the line, outside quotes.
  static func mappingColon(_ bytes: [UInt8], from start: Int, to end: Int) -> Int? {
    var position = start
    while position < end {
      let byte = bytes[position]
      let previous = position > start ? bytes[position - 1] : nil
      if (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")) && startsToken(after: previous) {
        guard let next = skipQuoted(bytes, at: position, limit: end) else { return nil }
        position = next
        continue
      }
      if byte == UInt8(ascii: ":") && (position + 1 == end || isBlank(bytes[position + 1])) { return position }
      position += 1
    }
    return nil
  }

  /// The `#` starting a comment in `start..<end` (nil when there is none, or a quote stays open past the line).
  static func commentStart(_ bytes: [UInt8], from start: Int, to end: Int) -> Int? {
    var position = start
    while position < end {
      let byte = bytes[position]
      let previous = position > 0 ? bytes[position - 1] : nil
      if (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")) && startsToken(after: previous) {
        guard let next = skipQuoted(bytes, at: position, limit: end) else { return nil }
        position = next
        continue
      }
      if byte == UInt8(ascii: "#"), let previous, isBlank(previous) { return position }
      position += 1
    }
    return nil
  }

  /// Moves back from `index` over blanks, not past `floor`.
  static func skipBlanksBackward(_ bytes: [UInt8], from index: Int, downTo floor: Int) -> Int {
    var position = index
    while position > floor, isBlank(bytes[position - 1]) { position -= 1 }
    return position
  }

  /// End (exclusive) of the quoted scalar or flow collection starting at `start` (after optional `&anchor` /
  /// `!tag` properties), or nil when it does not end before `limit`.
  static func tokenEnd(_ bytes: [UInt8], from start: Int, limit: Int) -> Int? {
    var position = start
    // Skip node properties, which Yams includes in the node's start mark.
    while position < limit, bytes[position] == UInt8(ascii: "&") || bytes[position] == UInt8(ascii: "!") {
      while position < limit, !isBlank(bytes[position]), bytes[position] != UInt8(ascii: "\n"),
        bytes[position] != UInt8(ascii: "\r")
      {
        position += 1
      }
      while position < limit,
        isBlank(bytes[position]) || bytes[position] == UInt8(ascii: "\n")
          || bytes[position] == UInt8(ascii: "\r")
      {
        position += 1
      }
    }
    guard position < limit else { return nil }
    let opener = bytes[position]
    if opener == UInt8(ascii: "\"") || opener == UInt8(ascii: "'") {
      return skipQuoted(bytes, at: position, limit: limit)
    }
    guard opener == UInt8(ascii: "[") || opener == UInt8(ascii: "{") else { return nil }
    var depth = 0
    while position < limit {
      let byte = bytes[position]
      let previous = position > 0 ? bytes[position - 1] : nil
      if (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")) && startsToken(after: previous) {
        guard let next = skipQuoted(bytes, at: position, limit: limit) else { return nil }
        position = next
        continue
      }
      if byte == UInt8(ascii: "#"), previous.map({ isBlank($0) || $0 == UInt8(ascii: "\n") }) ?? true {
        // A comment inside a multi-line flow collection runs to the end of its line.
        while position < limit, bytes[position] != UInt8(ascii: "\n") { position += 1 }
        continue
      }
      switch byte {
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        depth += 1
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        depth -= 1
        if depth == 0 { return position + 1 }
      default:
        break
      }
      position += 1
    }
    return nil
  }
}

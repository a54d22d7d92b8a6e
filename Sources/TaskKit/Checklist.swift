import Foundation

/// One Markdown checklist line (`- [ ] buy milk`): where it sits in the text and what it says.
public struct ChecklistItem: Equatable, Sendable {
  /// 1-based line number in the whole text given.
  public var line: Int
  /// UTF-8 offset of the line's first byte in the text.
  public var lineStart: Int
  /// UTF-8 offset just past the line's content (before `\r\n` / `\n`).
  public var lineEnd: Int
  /// Leading columns after any blockquote prefix (a tab counts to the next multiple of 4).
  public var indent: Int
  /// The list marker as written: `-`, `*`, `+`, `1.`, `12)`.
  public var marker: String
  /// The character between the brackets: `" "`, `"x"`, `"X"`, `"/"`, `"-"`, `">"`, ...
  public var check: Character
  /// UTF-8 offset of ``check`` in the text, so a toggle replaces exactly its bytes.
  public var checkOffset: Int
  /// What follows `"] "` up to the line end (may be empty).
  public var text: String
  /// Index in the returned array of the nearest enclosing checklist item; nil at top level.
  public var parent: Int?
  /// How many checklist items enclose this one: 0 at top level.
  public var depth: Int
  /// `" "` open, `x`/`X` done, `/` in progress, `-` cancelled, anything else `.other(String(check))`.
  public var status: TaskStatus

  /// An item with every value given.
  public init(
    line: Int, lineStart: Int, lineEnd: Int, indent: Int, marker: String, check: Character, checkOffset: Int,
    text: String, parent: Int?, depth: Int, status: TaskStatus
  ) {
    self.line = line
    self.lineStart = lineStart
    self.lineEnd = lineEnd
    self.indent = indent
    self.marker = marker
    self.check = check
    self.checkOffset = checkOffset
    self.text = text
    self.parent = parent
    self.depth = depth
    self.status = status
  }
}

/// A note's Markdown checklist: its subtasks.
public enum Checklist {
  /// Every checklist item in `text` from UTF-8 offset `bodyStart` on (where front matter ends; line numbers still
  /// count from the start of `text`; a line that starts before `bodyStart` is skipped).
  ///
  /// An item is a CommonMark list item — any indentation, marker `-`, `*`, `+`, or 1–9 digits followed by `.` or
  /// `)`, then one or more spaces or tabs — whose content is `[c]` alone or starts with `[c]` and a space or tab.
  /// `c` is exactly one Unicode scalar of printable text (a space, a letter, `/`, `-`, `>`, `✓`, ...); brackets,
  /// control and format characters, combining marks and whitespace other than the space are not, and `[✅️]` (an emoji
  /// with a variation selector) is two scalars, so it is not an item.
  ///
  /// Lines break at `\n`; a `\r` before it (or ending the text) is not part of the line. Skipped: lines inside
  /// fenced code blocks (three or more backticks or tildes; closed by a fence of the same character at least as long
  /// with nothing after it, or by the end of the blockquote it opened in; indented up to 3 spaces, or any amount
  /// inside a list, since a fence in a list item is indented with it) and lines after a `<!--` (outside a code span)
  /// left open on an earlier line, up to and including the line holding `-->`. Lines in a blockquote or callout
  /// (`> - [ ] x`) count: the `>` prefixes (each with one following space) are stripped and indentation is measured
  /// after them.
  ///
  /// Nesting: an item is the child of the nearest earlier list item still open with a smaller indent; plain list
  /// items (`- note`) take part, so `parent` is the nearest checklist item among the enclosing list items. A
  /// non-blank line at indent 0 that is not a list item, or a change of blockquote depth, ends all nesting.
  public static func items(in text: String, bodyStart: Int = 0) -> [ChecklistItem] {
    let bytes = Array(text.utf8)
    var scanner = ChecklistScanner(bytes: bytes)
    var items: [ChecklistItem] = []
    var lineNumber = 0
    var start = 0
    while start < bytes.count {
      var newline = start
      while newline < bytes.count, bytes[newline] != 0x0A { newline += 1 }
      var end = newline
      if end > start, bytes[end - 1] == 0x0D { end -= 1 }
      lineNumber += 1
      if start >= bodyStart,
        var item = scanner.line(start: start, end: end, number: lineNumber, itemCount: items.count)
      {
        item.parent = scanner.parentIndex
        item.depth = scanner.parentDepth
        items.append(item)
      }
      start = newline + 1
    }
    return items
  }

  /// `text` with `item`'s check character replaced by `check`: exactly that character's bytes change. `text` comes
  /// back unchanged when `item` does not describe it (its check is not at `checkOffset`) or when `check` is a line
  /// break or a bracket, which would turn the line into something else.
  public static func setting(_ item: ChecklistItem, check: Character, in text: String) -> String {
    guard !check.isNewline, check != "[", check != "]" else { return text }
    var bytes = Array(text.utf8)
    let old = Array(String(item.check).utf8)
    guard item.checkOffset >= 0, item.checkOffset <= bytes.count - old.count,
      Array(bytes[item.checkOffset..<(item.checkOffset + old.count)]) == old
    else { return text }
    bytes.replaceSubrange(item.checkOffset..<(item.checkOffset + old.count), with: Array(String(check).utf8))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The "n/m" summary: `done` counts items whose status is `.done`; `total` counts every item that is not
  /// `.cancelled` (a cancelled subtask is neither left to do nor done).
  public static func progress(_ items: [ChecklistItem]) -> (done: Int, total: Int) {
    var done = 0
    var total = 0
    for item in items where item.status != .cancelled {
      total += 1
      if item.status == .done { done += 1 }
    }
    return (done, total)
  }

  /// The status a check character stands for.
  static func status(for check: Character) -> TaskStatus {
    switch check {
    case " ": return .open
    case "x", "X": return .done
    case "/": return .inProgress
    case "-": return .cancelled
    default: return .other(String(check))
    }
  }
}

/// Line-by-line state: open fence, open comment, open list items.
private struct ChecklistScanner {
  struct Fence {
    var byte: UInt8
    var length: Int
    var quoteDepth: Int
    var maxCloseIndent: Int
  }

  struct Open {
    var indent: Int
    /// The nearest checklist item at or above this list item (itself when it is one), kept here so a deep list
    /// costs no walk up the stack.
    var nearest: Int?
    /// How many checklist items are at or above this list item.
    var checklistDepth: Int
  }

  let bytes: [UInt8]
  var fence: Fence?
  var inComment = false
  var open: [Open] = []
  var openQuoteDepth = 0
  var parentIndex: Int?
  var parentDepth = 0

  init(bytes: [UInt8]) { self.bytes = bytes }

  private static let space: UInt8 = 0x20
  private static let tab: UInt8 = 0x09

  mutating func line(start: Int, end: Int, number: Int, itemCount: Int) -> ChecklistItem? {
    if inComment {
      if find([0x2D, 0x2D, 0x3E], from: start, to: end) != nil { inComment = false }
      return nil
    }
    var position = start
    var quoteDepth = 0
    while true {
      var probe = position
      var spaces = 0
      while probe < end, bytes[probe] == Self.space, spaces < 3 {
        probe += 1
        spaces += 1
      }
      guard probe < end, bytes[probe] == UInt8(ascii: ">") else { break }
      probe += 1
      if probe < end, bytes[probe] == Self.space || bytes[probe] == Self.tab { probe += 1 }
      position = probe
      quoteDepth += 1
    }
    var content = position
    var indent = 0
    while content < end, bytes[content] == Self.space || bytes[content] == Self.tab {
      indent = bytes[content] == Self.tab ? (indent / 4 + 1) * 4 : indent + 1
      content += 1
    }
    if let current = fence {
      if quoteDepth < current.quoteDepth {
        fence = nil
      } else {
        if indent <= current.maxCloseIndent, closesFence(current, from: content, to: end) { fence = nil }
        return nil
      }
    }
    guard content < end else { return nil }
    if quoteDepth != openQuoteDepth {
      open = []
      openQuoteDepth = quoteDepth
    }
    if indent <= 3 || !open.isEmpty, let opened = opensFence(from: content, to: end) {
      fence = Fence(
        byte: opened.byte, length: opened.length, quoteDepth: quoteDepth, maxCloseIndent: max(3, indent + 3))
      if indent == 0 { open = [] }
      return nil
    }
    defer { noteComments(from: content, to: end) }
    guard let marker = listMarker(from: content, to: end) else {
      if indent == 0 { open = [] }
      return nil
    }
    while let last = open.last, last.indent >= indent { open.removeLast() }
    let enclosing = open.last
    guard let box = checkbox(from: marker.contentStart, to: end) else {
      open.append(Open(indent: indent, nearest: enclosing?.nearest, checklistDepth: enclosing?.checklistDepth ?? 0))
      return nil
    }
    parentIndex = enclosing?.nearest
    parentDepth = enclosing?.checklistDepth ?? 0
    open.append(Open(indent: indent, nearest: itemCount, checklistDepth: parentDepth + 1))
    let markerText = String(decoding: bytes[content..<marker.end], as: UTF8.self)
    let text = String(decoding: bytes[box.textStart..<end], as: UTF8.self)
    return ChecklistItem(
      line: number, lineStart: start, lineEnd: end, indent: indent, marker: markerText, check: box.check,
      checkOffset: box.checkOffset, text: text, parent: nil, depth: 0, status: Checklist.status(for: box.check))
  }

  /// Marks a comment left open at the end of the line, so the lines after it are skipped.
  private mutating func noteComments(from start: Int, to end: Int) {
    let backtick = UInt8(ascii: "`")
    var position = start
    while position < end {
      if bytes[position] == backtick {
        // `<!--` inside a code span is text, not a comment: skip to the span's closing run of as many backticks.
        var run = position
        while run < end, bytes[run] == backtick { run += 1 }
        let length = run - position
        var probe = run
        position = run
        while probe < end {
          guard bytes[probe] == backtick else {
            probe += 1
            continue
          }
          var closing = probe
          while closing < end, bytes[closing] == backtick { closing += 1 }
          if closing - probe == length {
            position = closing
            break
          }
          probe = closing
        }
        continue
      }
      if bytes[position] == UInt8(ascii: "<"),
        find([0x3C, 0x21, 0x2D, 0x2D], from: position, to: min(end, position + 4)) != nil
      {
        guard let close = find([0x2D, 0x2D, 0x3E], from: position + 4, to: end) else {
          inComment = true
          return
        }
        position = close + 3
        continue
      }
      position += 1
    }
  }

  private func find(_ needle: [UInt8], from start: Int, to end: Int) -> Int? {
    guard end - start >= needle.count else { return nil }
    var index = start
    while index <= end - needle.count {
      if bytes[index] == needle[0], Array(bytes[index..<(index + needle.count)]) == needle { return index }
      index += 1
    }
    return nil
  }

  private func opensFence(from start: Int, to end: Int) -> (byte: UInt8, length: Int)? {
    guard start < end, bytes[start] == UInt8(ascii: "`") || bytes[start] == UInt8(ascii: "~") else { return nil }
    let byte = bytes[start]
    var position = start
    while position < end, bytes[position] == byte { position += 1 }
    let length = position - start
    guard length >= 3 else { return nil }
    // A backtick fence's info string may not hold a backtick (that would be inline code).
    if byte == UInt8(ascii: "`"), bytes[position..<end].contains(byte) { return nil }
    return (byte, length)
  }

  private func closesFence(_ fence: Fence, from start: Int, to end: Int) -> Bool {
    var position = start
    while position < end, bytes[position] == fence.byte { position += 1 }
    guard position - start >= fence.length else { return false }
    return bytes[position..<end].allSatisfy { $0 == Self.space || $0 == Self.tab }
  }

  /// A list marker at `start`: where it ends and where the item's content starts.
  private func listMarker(from start: Int, to end: Int) -> (end: Int, contentStart: Int)? {
    var position = start
    let first = bytes[position]
    if first == UInt8(ascii: "-") || first == UInt8(ascii: "*") || first == UInt8(ascii: "+") {
      position += 1
    } else {
      while position < end, position - start < 10, (0x30...0x39).contains(bytes[position]) { position += 1 }
      let digits = position - start
      guard (1...9).contains(digits), position < end,
        bytes[position] == UInt8(ascii: ".") || bytes[position] == UInt8(ascii: ")")
      else { return nil }
      position += 1
    }
    let markerEnd = position
    guard position == end || bytes[position] == Self.space || bytes[position] == Self.tab else { return nil }
    while position < end, bytes[position] == Self.space || bytes[position] == Self.tab { position += 1 }
    return (markerEnd, position)
  }

  /// `[c]` at `start`, alone or followed by a space or tab.
  private func checkbox(from start: Int, to end: Int) -> (check: Character, checkOffset: Int, textStart: Int)? {
    guard start + 2 < end, bytes[start] == UInt8(ascii: "[") else { return nil }
    let lead = bytes[start + 1]
    let length: Int
    switch lead {
    case 0x00..<0x80: length = 1
    case 0xC0..<0xE0: length = 2
    case 0xE0..<0xF0: length = 3
    case 0xF0..<0xF8: length = 4
    default: return nil
    }
    let close = start + 1 + length
    guard close < end, bytes[close] == UInt8(ascii: "]") else { return nil }
    let after = close + 1
    guard after == end || bytes[after] == Self.space || bytes[after] == Self.tab else { return nil }
    let decoded = String(decoding: bytes[(start + 1)..<close], as: UTF8.self).unicodeScalars
    guard decoded.count == 1, let scalar = decoded.first, Self.isCheck(scalar) else { return nil }
    return (Character(scalar), start + 1, after == end ? end : after + 1)
  }

  private static func isCheck(_ scalar: Unicode.Scalar) -> Bool {
    if scalar == " " { return true }
    if scalar == "[" || scalar == "]" || scalar.properties.isWhitespace { return false }
    switch scalar.properties.generalCategory {
    case .control, .format, .surrogate, .privateUse, .unassigned, .nonspacingMark, .spacingMark, .enclosingMark,
      .lineSeparator, .paragraphSeparator, .spaceSeparator:
      return false
    default:
      return true
    }
  }
}

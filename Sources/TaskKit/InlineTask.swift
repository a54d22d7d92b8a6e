import Foundation
import TextFormat

/// A checklist line read as a task the way the Obsidian Tasks plugin reads it: `- [ ] Call Bob 📅 2026-12-01 ⏫`.
///
/// Both of the plugin's formats are read: emoji signifiers (`📅`/`📆`/`🗓` due, `⏳`/`⌛` scheduled, `🛫` start, `➕`
/// created, `✅` done, `❌` cancelled, `🔁` recurrence, `🔺⏫🔼🔽⏬` priority, `🆔`, `⛔`, `🏁`) and Dataview inline
/// fields (`[due:: 2026-12-01]` or `(due:: 2026-12-01)`; keys `due`, `scheduled`, `start`, `created`, `completion`,
/// `cancelled`, `priority`, `repeat`, `id`, `dependsOn`, `onCompletion`). A trailing block link (` ^block-id`) is not
/// part of the description and stays last.
///
/// nb is more forgiving than the plugin, which takes fields only from the end of the line: the whole line is searched,
/// so `📅 2026-12-01 call Bob` still has a due date, and the description is the text with every recognised field
/// taken out (the pieces left joined by one space). A signifier may be followed by U+FE0F and by any run of spaces,
/// tabs or no-break spaces before its value. When a field is given twice the first counts (as in the plugin, which
/// reads from the end and so ends with the leftmost). A signifier whose date does not read is reported in `problems`
/// and left in the description.
public struct InlineTask: Equatable, Sendable {
  /// The checklist line.
  public var item: ChecklistItem
  /// The text without fields and block link, trimmed; tags stay in it.
  public var description: String
  /// The item's status.
  public var status: TaskStatus
  /// highest → urgent, high → high, medium → normal, low and lowest → low, none → none.
  public var priority: TaskPriority
  /// The plugin's own priority name, `highest`, `high`, `medium`, `low` or `lowest`, so nothing is lost in mapping.
  public var obsidianPriority: String?
  /// `📅` / `[due::]`.
  public var due: Day?
  /// `⏳` / `[scheduled::]`.
  public var scheduled: Day?
  /// `🛫` / `[start::]`.
  public var start: Day?
  /// `➕` / `[created::]`.
  public var created: Day?
  /// `✅` / `[completion::]`.
  public var done: Day?
  /// `❌` / `[cancelled::]`.
  public var cancelled: Day?
  /// The rule text after `🔁` (or in `[repeat::]`) as written, e.g. `every week when done`.
  public var recurrence: String?
  /// `#tags` in the description, without `#`, in order.
  public var tags: [String]
  /// What could not be read, e.g. `📅 '2026-13-01' is not a date`.
  public var problems: [String]

  /// Reads `item`'s text.
  public init(_ item: ChecklistItem) {
    let scan = InlineTaskScan(item.text)
    self.item = item
    description = scan.description
    status = item.status
    obsidianPriority = scan.priority
    priority = scan.priority.map { TaskPriority(text: $0) } ?? .none
    due = scan.day(.due)
    scheduled = scan.day(.scheduled)
    start = scan.day(.start)
    created = scan.day(.created)
    done = scan.day(.done)
    cancelled = scan.day(.cancelled)
    recurrence = scan.recurrence
    tags = scan.tags
    problems = scan.problems
  }

  /// The changed line (content only, no line break) when the task is ticked done on `day`: the check becomes `x`, a
  /// cancelled date goes (as the plugin drops it), and ` ✅ YYYY-MM-DD` is added after the last field, before a
  /// trailing block link or trailing blanks; a line written with Dataview fields gets `  [completion:: YYYY-MM-DD]`
  /// (two spaces, as the plugin writes them). An existing done date is replaced in place. Every other byte is
  /// unchanged. `line` is read afresh, so this works on the line as it is now; a task already done, or a line that is
  /// not a checklist item, comes back unchanged.
  public func markingDone(on day: Day, line: String) -> String {
    guard let parsed = InlineTaskLine(line), parsed.item.status != .done else { return line }
    let removals = parsed.removals(of: [.cancelled])
    return parsed.applying([parsed.checkEdit("x")] + removals + [parsed.setting(.done, to: day, removals: removals)])
  }

  /// Un-ticking: the check becomes a space and the done date (and a cancelled date, as the plugin does) is removed
  /// with the blanks before it. A task already open comes back unchanged.
  public func markingOpen(line: String) -> String {
    guard let parsed = InlineTaskLine(line), parsed.item.status != .open else { return line }
    return parsed.applying([parsed.checkEdit(" ")] + parsed.removals(of: [.done, .cancelled]))
  }

  /// The line with the date fields given replaced in place: only the date text changes; a nil argument, or a field
  /// the line does not have, leaves the line as it is (nothing is added).
  public func withDates(due: Day?, scheduled: Day?, start: Day?, line: String) -> String {
    guard let parsed = InlineTaskLine(line) else { return line }
    return parsed.applying(parsed.dateReplacements(due: due, scheduled: scheduled, start: start))
  }

  /// Cancelling: the check becomes `-`, a done date goes, and ` ❌ YYYY-MM-DD` (`  [cancelled:: YYYY-MM-DD]` in
  /// Dataview form) is added where ``markingDone(on:line:)`` adds its date. A task already cancelled comes back
  /// unchanged.
  public func markingCancelled(on day: Day, line: String) -> String {
    guard let parsed = InlineTaskLine(line), parsed.item.status != .cancelled else { return line }
    let removals = parsed.removals(of: [.done])
    return parsed.applying(
      [parsed.checkEdit("-")] + removals + [parsed.setting(.cancelled, to: day, removals: removals)])
  }
}

/// Edits to inline task lines that produce more than one line.
public enum InlineTaskEdit {
  /// Completing a repeating inline task as the plugin does with its default settings: the lines that replace `line`,
  /// the new occurrence first (the plugin puts it above the completed one unless "next line" is chosen), then the
  /// completed line (``InlineTask/markingDone(on:line:)``). Both keep the line's indentation, blockquote and marker.
  ///
  /// The new occurrence is the same line with the check a space and its due, scheduled and start dates moved to
  /// `nextDates` (a nil date leaves that field as written); the done and cancelled dates, the block link, `🆔` and `⛔`
  /// go (a block link or id must stay unique), and so does the created date (the plugin sets none on a new
  /// occurrence unless asked to). `nextDates` nil (the series has ended) → only the done line. With `🏁 delete` the
  /// completed line is dropped, as the plugin does: the result may be just the new occurrence, or empty (delete the
  /// line). A task already done, or a line that is not a checklist item, gives `[line]`.
  public static func completingRepeat(
    _ task: InlineTask, line: String, on day: Day, nextDates: (due: Day?, scheduled: Day?, start: Day?)?
  ) -> [String] {
    guard let parsed = InlineTaskLine(line), parsed.item.status != .done else { return [line] }
    let doneLine = task.markingDone(on: day, line: line)
    let deletes = parsed.scan.onCompletion?.lowercased() == "delete"
    guard let nextDates else { return deletes ? [] : [doneLine] }
    var edits: [InlineTaskLineEdit] = []
    if parsed.item.check != " " { edits.append(parsed.checkEdit(" ")) }
    edits += parsed.removals(of: [.done, .cancelled, .created, .id, .dependsOn])
    if let blockLink = parsed.scan.blockLink {
      edits.append(InlineTaskLineEdit(range: parsed.lineRange(blockLink), replacement: ""))
    }
    edits += parsed.dateReplacements(due: nextDates.due, scheduled: nextDates.scheduled, start: nextDates.start)
    let nextLine = parsed.applying(edits)
    return deletes ? [nextLine] : [nextLine, doneLine]
  }
}

// MARK: - Reading

/// The kinds of field the plugin knows.
private enum InlineTaskFieldKind: Equatable, Sendable {
  case priority, due, scheduled, start, created, done, cancelled, recurrence, onCompletion, id, dependsOn

  var isDate: Bool { [.due, .scheduled, .start, .created, .done, .cancelled].contains(self) }

  init?(signifier: Unicode.Scalar) {
    switch signifier.value {
    case 0x1F53A, 0x23EB, 0x1F53C, 0x1F53D, 0x23EC: self = .priority
    case 0x1F4C5, 0x1F4C6, 0x1F5D3: self = .due
    case 0x23F3, 0x231B: self = .scheduled
    case 0x1F6EB: self = .start
    case 0x2795: self = .created
    case 0x2705: self = .done
    case 0x274C: self = .cancelled
    case 0x1F501: self = .recurrence
    case 0x1F3C1: self = .onCompletion
    case 0x1F194: self = .id
    case 0x26D4: self = .dependsOn
    default: return nil
    }
  }

  init?(dataviewKey: String) {
    switch dataviewKey {
    case "priority": self = .priority
    case "due": self = .due
    case "scheduled": self = .scheduled
    case "start": self = .start
    case "created": self = .created
    case "completion": self = .done
    case "cancelled": self = .cancelled
    case "repeat": self = .recurrence
    case "onCompletion": self = .onCompletion
    case "id": self = .id
    case "dependsOn": self = .dependsOn
    default: return nil
    }
  }

  var emoji: String {
    switch self {
    case .done: return "✅"
    case .cancelled: return "❌"
    default: return ""
    }
  }

  var dataviewKey: String {
    switch self {
    case .done: return "completion"
    case .cancelled: return "cancelled"
    default: return ""
    }
  }

  var name: String {
    switch self {
    case .priority: return "priority"
    case .due: return "due date"
    case .scheduled: return "scheduled date"
    case .start: return "start date"
    case .created: return "created date"
    case .done: return "done date"
    case .cancelled: return "cancelled date"
    case .recurrence: return "recurrence"
    case .onCompletion: return "on-completion action"
    case .id: return "id"
    case .dependsOn: return "depends-on list"
    }
  }
}

/// One recognised field; ranges are UTF-8 offsets in the text after the checkbox.
private struct InlineTaskField: Equatable, Sendable {
  var kind: InlineTaskFieldKind
  var range: Range<Int>
  /// The range to delete to take the field out: the field and the blanks before it (after it at the very start).
  var removal: Range<Int>
  /// The value's text (a date's ten characters).
  var value: Range<Int>
  var valueText: String
  var dataview: Bool
}

/// The fields, description and problems of the text after a checkbox.
private struct InlineTaskScan {
  private let scalars: [Unicode.Scalar]
  /// `offsets[i]` is the UTF-8 offset of `scalars[i]`; one extra entry for the end.
  private let offsets: [Int]
  /// Every recognised field, in line order.
  var fields: [InlineTaskField] = []
  /// The block link with its leading space, as UTF-8 offsets.
  var blockLink: Range<Int>?
  /// Where a new field goes: after the last non-blank before the block link.
  var insertionPoint = 0
  var description = ""
  var tags: [String] = []
  var problems: [String] = []

  init(_ text: String) {
    scalars = Array(text.unicodeScalars)
    var offsets: [Int] = []
    offsets.reserveCapacity(scalars.count + 1)
    var offset = 0
    for scalar in scalars {
      offsets.append(offset)
      offset += UTF8.width(scalar)
    }
    offsets.append(offset)
    self.offsets = offsets
    scan()
  }

  /// The first field of `kind`'s value.
  func value(_ kind: InlineTaskFieldKind) -> String? { fields.first { $0.kind == kind }?.valueText }

  func day(_ kind: InlineTaskFieldKind) -> Day? { value(kind).flatMap { Day(iso: $0) } }

  var priority: String? { value(.priority) }
  var recurrence: String? { value(.recurrence) }
  var onCompletion: String? { value(.onCompletion) }

  /// A line with Dataview fields and no emoji ones is written back in Dataview form.
  var usesDataview: Bool { fields.contains { $0.dataview } && !fields.contains { !$0.dataview } }

  private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
    scalar == " " || scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
  }

  private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
    scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
  }

  private func text(_ range: Range<Int>) -> String {
    var result = String.UnicodeScalarView()
    result.append(contentsOf: scalars[range])
    return String(result)
  }

  private mutating func scan() {
    var end = scalars.count
    while end > 0, Self.isBlank(scalars[end - 1]) { end -= 1 }
    var bodyEnd = end
    var idStart = end
    while idStart > 0, Self.isASCIIAlphanumeric(scalars[idStart - 1]) || scalars[idStart - 1] == "-" { idStart -= 1 }
    if idStart < end, idStart >= 2, scalars[idStart - 1] == "^", scalars[idStart - 2] == " " {
      blockLink = offsets[idStart - 2]..<offsets[end]
      bodyEnd = idStart - 2
    }
    var found: [Found] = []
    var index = 0
    while index < bodyEnd {
      if let field = emojiField(at: index, bodyEnd: bodyEnd) ?? dataviewField(at: index, bodyEnd: bodyEnd) {
        found.append(field)
        index = field.range.upperBound
      } else {
        index += 1
      }
    }
    var seen: [InlineTaskFieldKind] = []
    var pieces: [String] = []
    var cursor = 0
    for field in found {
      if seen.contains(field.kind) {
        problems.append("\(field.kind.name) given more than once; the first is used")
      }
      seen.append(field.kind)
      pieces.append(text(cursor..<field.range.lowerBound))
      cursor = field.range.upperBound
      var removalStart = field.range.lowerBound
      while removalStart > 0, Self.isBlank(scalars[removalStart - 1]) { removalStart -= 1 }
      var removalEnd = field.range.upperBound
      if removalStart == field.range.lowerBound {
        // A field first in the text takes the blanks after it instead, but only when text follows: blanks before a
        // block link or at the end were there before the field was added, and stay.
        var probe = removalEnd
        while probe < bodyEnd, Self.isBlank(scalars[probe]) { probe += 1 }
        if probe < bodyEnd { removalEnd = probe }
      }
      fields.append(
        InlineTaskField(
          kind: field.kind, range: offsets[field.range.lowerBound]..<offsets[field.range.upperBound],
          removal: offsets[removalStart]..<offsets[removalEnd],
          value: offsets[field.value.lowerBound]..<offsets[field.value.upperBound],
          valueText: field.name ?? text(field.value),
          dataview: field.dataview))
    }
    pieces.append(text(cursor..<bodyEnd))
    description = pieces.map { $0.trimmingWhitespaces() }.filter { !$0.isEmpty }.joined(separator: " ")
    var insertion = bodyEnd
    while insertion > 0, Self.isBlank(scalars[insertion - 1]) { insertion -= 1 }
    insertionPoint = offsets[insertion]
    tags = Self.tags(in: description)
  }

  /// A field found, in scalar indices.
  private struct Found {
    var kind: InlineTaskFieldKind
    var range: Range<Int>
    var value: Range<Int>
    var dataview: Bool
    /// The value when it is not the text at `value` (a priority signifier's name).
    var name: String?

    init(_ kind: InlineTaskFieldKind, _ range: Range<Int>, _ value: Range<Int>, _ dataview: Bool, name: String? = nil) {
      self.kind = kind
      self.range = range
      self.value = value
      self.dataview = dataview
      self.name = name
    }
  }

  private static let priorityNames: [UInt32: String] = [
    0x1F53A: "highest", 0x23EB: "high", 0x1F53C: "medium", 0x1F53D: "low", 0x23EC: "lowest",
  ]

  private mutating func emojiField(
    at index: Int, bodyEnd: Int
  ) -> Found? {
    guard let kind = InlineTaskFieldKind(signifier: scalars[index]) else { return nil }
    var after = index + 1
    if after < bodyEnd, scalars[after].value == 0xFE0F { after += 1 }
    var valueStart = after
    while valueStart < bodyEnd, Self.isBlank(scalars[valueStart]) { valueStart += 1 }
    let symbol = String(scalars[index])
    switch kind {
    case .priority:
      // The signifier is the value; `valueText` holds the plugin's name for it.
      return Found(kind, index..<after, index..<after, false, name: Self.priorityNames[scalars[index].value])
    case .due, .scheduled, .start, .created, .done, .cancelled:
      let dateEnd = valueStart + 10
      if dateEnd <= bodyEnd, Self.looksLikeDate(scalars[valueStart..<dateEnd]),
        dateEnd == bodyEnd || !Self.isASCIIAlphanumeric(scalars[dateEnd])
      {
        let written = text(valueStart..<dateEnd)
        guard Day(iso: written) != nil else {
          problems.append("\(symbol) '\(written)' is not a date")
          return nil
        }
        return Found(kind, index..<dateEnd, valueStart..<dateEnd, false)
      }
      var tokenEnd = valueStart
      while tokenEnd < bodyEnd, !Self.isBlank(scalars[tokenEnd]) { tokenEnd += 1 }
      problems.append(
        tokenEnd == valueStart ? "\(symbol) has no date" : "\(symbol) '\(text(valueStart..<tokenEnd))' is not a date")
      return nil
    case .dependsOn:
      // Ids joined by commas with optional spaces around them (`a1, b2`); a space not before a comma ends the list,
      // so text after it stays in the description.
      let idEnd = idRun(from: valueStart, bodyEnd: bodyEnd)
      guard idEnd > valueStart else { return nil }
      var valueEnd = idEnd
      while true {
        var probe = valueEnd
        while probe < bodyEnd, scalars[probe] == " " { probe += 1 }
        guard probe < bodyEnd, scalars[probe] == "," else { break }
        probe += 1
        while probe < bodyEnd, scalars[probe] == " " { probe += 1 }
        let next = idRun(from: probe, bodyEnd: bodyEnd)
        guard next > probe else { break }
        valueEnd = next
      }
      return Found(kind, index..<valueEnd, valueStart..<valueEnd, false)
    case .recurrence, .onCompletion, .id:
      var valueEnd = valueStart
      while valueEnd < bodyEnd, Self.allowed(scalars[valueEnd], in: kind) { valueEnd += 1 }
      while valueEnd > valueStart, scalars[valueEnd - 1] == " " { valueEnd -= 1 }
      guard valueEnd > valueStart else {
        if kind == .recurrence { problems.append("\(symbol) has no rule") }
        return nil
      }
      return Found(kind, index..<valueEnd, valueStart..<valueEnd, false)
    }
  }

  /// Where a run of task-id characters (`A-Z a-z 0-9 - _`) starting at `start` ends.
  private func idRun(from start: Int, bodyEnd: Int) -> Int {
    var end = start
    while end < bodyEnd, Self.allowed(scalars[end], in: .id) { end += 1 }
    return end
  }

  /// The characters the plugin accepts in each text value.
  private static func allowed(_ scalar: Unicode.Scalar, in kind: InlineTaskFieldKind) -> Bool {
    let alphanumeric = isASCIIAlphanumeric(scalar)
    switch kind {
    case .recurrence: return alphanumeric || scalar == "," || scalar == " " || scalar == "!"
    case .onCompletion: return alphanumeric && !("0"..."9").contains(scalar)
    case .id: return alphanumeric || scalar == "-" || scalar == "_"
    default: return false
    }
  }

  private static func looksLikeDate(_ slice: ArraySlice<Unicode.Scalar>) -> Bool {
    for (position, scalar) in zip(0..., slice) {
      if position == 4 || position == 7 {
        guard scalar == "-" else { return false }
      } else {
        guard scalar.isASCII, ("0"..."9").contains(scalar) else { return false }
      }
    }
    return true
  }

  private mutating func dataviewField(
    at index: Int, bodyEnd: Int
  ) -> Found? {
    let closer: Unicode.Scalar
    switch scalars[index] {
    case "[": closer = "]"
    case "(": closer = ")"
    default: return nil
    }
    var position = index + 1
    while position < bodyEnd, scalars[position] == " " { position += 1 }
    let keyStart = position
    while position < bodyEnd, scalars[position].isASCII, scalars[position].properties.isAlphabetic { position += 1 }
    guard position > keyStart, position + 1 < bodyEnd, scalars[position] == ":", scalars[position + 1] == ":",
      let kind = InlineTaskFieldKind(dataviewKey: text(keyStart..<position))
    else { return nil }
    let key = text(keyStart..<position)
    var valueStart = position + 2
    while valueStart < bodyEnd, Self.isBlank(scalars[valueStart]) { valueStart += 1 }
    var close = valueStart
    while close < bodyEnd, scalars[close] != closer, scalars[close] != "[", scalars[close] != "(" { close += 1 }
    guard close < bodyEnd, scalars[close] == closer else { return nil }
    var valueEnd = close
    while valueEnd > valueStart, Self.isBlank(scalars[valueEnd - 1]) { valueEnd -= 1 }
    let value = text(valueStart..<valueEnd)
    if kind.isDate, Day(iso: value) == nil {
      problems.append("\(key):: '\(value)' is not a date")
      return nil
    }
    if kind == .priority, !["highest", "high", "medium", "low", "lowest"].contains(value) {
      problems.append("\(key):: '\(value)' is not a priority")
      return nil
    }
    guard valueEnd > valueStart else { return nil }
    return Found(kind, index..<(close + 1), valueStart..<valueEnd, true)
  }

  /// `#tag` at the start or after a blank, up to a blank or one of the characters the plugin ends a tag at.
  static func tags(in text: String) -> [String] {
    let scalars = Array(text.unicodeScalars)
    let enders = Set(" !@#$%^&*(),.?\":{}|<>".unicodeScalars)
    var tags: [String] = []
    var index = 0
    while index < scalars.count {
      guard scalars[index] == "#", index == 0 || scalars[index - 1].properties.isWhitespace else {
        index += 1
        continue
      }
      var end = index + 1
      while end < scalars.count, !enders.contains(scalars[end]), !scalars[end].properties.isWhitespace { end += 1 }
      if end > index + 1 {
        var tag = String.UnicodeScalarView()
        tag.append(contentsOf: scalars[(index + 1)..<end])
        tags.append(String(tag))
      }
      index = max(end, index + 1)
    }
    return tags
  }
}

// MARK: - Writing

/// One replacement in a line, in UTF-8 offsets.
private struct InlineTaskLineEdit {
  var range: Range<Int>
  var replacement: String
}

/// A line read afresh for editing: its checklist item (offsets from the line's start) and its fields.
private struct InlineTaskLine {
  let line: String
  let item: ChecklistItem
  let scan: InlineTaskScan
  /// UTF-8 offset in the line where the text after the checkbox starts.
  let textStart: Int
  /// Whether a blank separates the checkbox from the text (false for `- [ ]` with nothing after it).
  let separated: Bool

  init?(_ line: String) {
    guard let item = Checklist.items(in: line).first(where: { $0.line == 1 }) else { return nil }
    self.line = line
    self.item = item
    scan = InlineTaskScan(item.text)
    textStart = item.lineEnd - item.text.utf8.count
    separated = textStart > item.checkOffset + String(item.check).utf8.count + 1
  }

  func lineRange(_ range: Range<Int>) -> Range<Int> { (range.lowerBound + textStart)..<(range.upperBound + textStart) }

  func checkEdit(_ check: Character) -> InlineTaskLineEdit {
    InlineTaskLineEdit(
      range: item.checkOffset..<(item.checkOffset + String(item.check).utf8.count), replacement: String(check))
  }

  /// Deletions taking out every field of the given kinds with the blanks before it.
  func removals(of kinds: [InlineTaskFieldKind]) -> [InlineTaskLineEdit] {
    scan.fields.filter { kinds.contains($0.kind) }.map {
      InlineTaskLineEdit(range: lineRange($0.removal), replacement: "")
    }
  }

  /// The first `kind` field's date replaced by `day`, or the field added after the last one. `removals` are the
  /// deletions made with it: when they leave nothing before the new field, it follows the checkbox's own blank.
  func setting(_ kind: InlineTaskFieldKind, to day: Day, removals: [InlineTaskLineEdit]) -> InlineTaskLineEdit {
    if let field = scan.fields.first(where: { $0.kind == kind }) {
      return InlineTaskLineEdit(range: lineRange(field.value), replacement: day.iso)
    }
    let field = scan.usesDataview ? "[\(kind.dataviewKey):: \(day.iso)]" : "\(kind.emoji) \(day.iso)"
    let at = scan.insertionPoint + textStart
    let before = InlineTaskLine.deleting(removals, from: Array(line.utf8)[textStart..<at], offset: textStart)
    let nothingBefore = before.allSatisfy { $0 == 0x20 || $0 == 0x09 }
    let lead = nothingBefore && separated ? "" : (scan.usesDataview ? "  " : " ")
    return InlineTaskLineEdit(range: at..<at, replacement: lead + field)
  }

  /// `bytes` (which start at `offset` in the line) without the parts `removals` delete.
  private static func deleting(_ removals: [InlineTaskLineEdit], from bytes: ArraySlice<UInt8>, offset: Int) -> [UInt8]
  {
    var kept: [UInt8] = []
    for (index, byte) in zip(offset..., bytes) where !removals.contains(where: { $0.range.contains(index) }) {
      kept.append(byte)
    }
    return kept
  }

  func dateReplacements(due: Day?, scheduled: Day?, start: Day?) -> [InlineTaskLineEdit] {
    var edits: [InlineTaskLineEdit] = []
    for (kind, day) in [(InlineTaskFieldKind.due, due), (.scheduled, scheduled), (.start, start)] {
      guard let day, let field = scan.fields.first(where: { $0.kind == kind }) else { continue }
      edits.append(InlineTaskLineEdit(range: lineRange(field.value), replacement: day.iso))
    }
    return edits
  }

  /// The line with `edits` made, in one pass from the start: the line's bytes are copied whole between edits, so
  /// overlapping edits (two deletions sharing a blank) cannot cut a character apart. At one offset an insertion goes
  /// before a deletion, so the inserted text survives.
  func applying(_ edits: [InlineTaskLineEdit]) -> String {
    let bytes = Array(line.utf8)
    let ordered = edits.filter { $0.range.lowerBound >= 0 && $0.range.upperBound <= bytes.count }.sorted {
      ($0.range.lowerBound, $0.range.upperBound) < ($1.range.lowerBound, $1.range.upperBound)
    }
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count + 32)
    var cursor = 0
    for edit in ordered {
      if edit.range.lowerBound > cursor { result += bytes[cursor..<edit.range.lowerBound] }
      result += Array(edit.replacement.utf8)
      cursor = max(cursor, edit.range.upperBound)
    }
    result += bytes[cursor...]
    return String(decoding: result, as: UTF8.self)
  }
}

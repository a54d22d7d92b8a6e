import Foundation
import TextFormat

/// One inbox decision: where an item was filed, and what nb had suggested.
public struct InboxDecision: Equatable, Sendable {
  /// When it was decided; the log keeps whole seconds.
  public var time: Date
  /// The item's note id.
  public var item: String
  /// The notebook nb suggested, or nil when it had no suggestion.
  public var suggested: String?
  /// The notebook the user filed the item into.
  public var chosen: String
  /// The suggestion's probability, or nil; the log keeps 3 decimals.
  public var confidence: Double?
  /// The device the decision was made on (so a merged log says who decided what).
  public var device: String

  /// A decision as given.
  public init(time: Date, item: String, suggested: String?, chosen: String, confidence: Double?, device: String) {
    self.time = time
    self.item = item
    self.suggested = suggested
    self.chosen = chosen
    self.confidence = confidence
    self.device = device
  }

  /// The JSON line, without "\n": the keys always in the order time, item, suggested, chosen, confidence, device,
  /// no spaces, so that the same decision is the same bytes on every device. `time` is RFC 3339 UTC in whole
  /// seconds (rounded down); `confidence` is clamped to [0, 1] and rounded to at most 3 decimals without trailing
  /// zeros (`0.73`, `1`), `null` when nil or not finite; strings escape `"`, `\` and control characters only.
  public var line: String {
    var text = "{\"time\":\"" + Self.timeText(time) + "\""
    text += ",\"item\":" + Self.quoted(item)
    text += ",\"suggested\":" + (suggested.map(Self.quoted) ?? "null")
    text += ",\"chosen\":" + Self.quoted(chosen)
    text += ",\"confidence\":" + Self.confidenceText(confidence)
    text += ",\"device\":" + Self.quoted(device) + "}"
    return text
  }

  /// Whether the user took the suggestion (`suggested == chosen`).
  public var accepted: Bool { suggested == chosen }

  static func timeText(_ date: Date) -> String {
    let seconds = CivilTime.wholeSeconds(date)
    let (year, month, day) = CivilTime.civil(fromDays: CivilTime.floorDiv(seconds, 86_400))
    let secondOfDay = Int(seconds - CivilTime.floorDiv(seconds, 86_400) * 86_400)
    let pad = CivilTime.pad
    return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
      + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2) + "Z"
  }

  static func confidenceText(_ confidence: Double?) -> String {
    guard let confidence, confidence.isFinite else { return "null" }
    let thousandths = Int((min(max(confidence, 0), 1) * 1000).rounded())
    var text = String(thousandths / 1000)
    var fraction = CivilTime.pad(thousandths % 1000, 3)
    while fraction.hasSuffix("0") { fraction.removeLast() }
    if !fraction.isEmpty { text += "." + fraction }
    return text
  }

  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        result += "\\u00" + (hex.count < 2 ? "0" + hex : hex)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}

/// `.nb/inbox/decisions.jsonl`: every inbox decision, one JSON object a line, sorted by (time, item, line text).
///
/// The file is only ever added to, and `merge` joins two devices' versions without conflicts. Lines nb cannot read
/// (a newer nb's format, a hand edit) are never rewritten or dropped: each travels with the readable line above it
/// (lines before the first readable line stay at the top), so when lines are sorted it keeps its neighbour.
public enum DecisionLog {
  /// Parses the file; a line that is not a decision is skipped with a warning "line N: …" (never rewritten).
  ///
  /// Blank lines are skipped without a warning; a trailing `\r` is ignored. Keys other than the six are ignored (a
  /// later nb may add some); `suggested` and `confidence` may be missing or null; `time` is any RFC 3339 form;
  /// `item` and `chosen` must not be empty; `confidence` must be in [0, 1].
  public static func parse(_ text: String) -> (decisions: [InboxDecision], warnings: [String]) {
    var decisions: [InboxDecision] = []
    var warnings: [String] = []
    for (index, line) in lines(text).enumerated() {
      switch read(line) {
      case .decision(let decision): decisions.append(decision)
      case .blank: break
      case .unreadable(let reason): warnings.append("line \(index + 1): \(reason)")
      }
    }
    return (decisions, warnings)
  }

  /// Appends one decision keeping the file sorted by (time, item, line text): returns the whole new text.
  ///
  /// The file is cut into groups, each a readable line with the unreadable lines below it (the head group: the
  /// unreadable lines before the first readable one), the new line is added as a group of its own, and the groups
  /// are sorted stably, the head first; so an unreadable line stays exactly below the line it was below. Appending a
  /// line the file already has changes nothing. The result ends with "\n".
  public static func appending(_ decision: InboxDecision, to text: String) -> String {
    let line = decision.line
    var groups = self.groups(lines(text))
    if groups.contains(where: { $0.lines.contains(line) }) { return render(groups) }
    groups.append(Group(key: key(of: decision, line: line), lines: [line]))
    return render(sort(groups))
  }

  /// The three-way merge two devices' versions need: the union of lines of ours and theirs (a line removed on one
  /// side since base stays removed), sorted as above, each line once. Never conflicts.
  ///
  /// Unreadable lines are grouped as in `appending`, ours' groups first; a group whose readable line both sides
  /// have gets the unreadable lines of both (ours' first). Lines compare as exact bytes.
  public static func merge(base: String?, ours: String, theirs: String) -> String {
    let baseLines = Set(lines(base ?? "").map { Array($0.utf8) })
    let ourLines = lines(ours)
    let theirLines = lines(theirs)
    let ourSet = Set(ourLines.map { Array($0.utf8) })
    let theirSet = Set(theirLines.map { Array($0.utf8) })
    func kept(_ line: String) -> Bool {
      let bytes = Array(line.utf8)
      // In base and gone from either side: that side removed it.
      return !(baseLines.contains(bytes) && (!ourSet.contains(bytes) || !theirSet.contains(bytes)))
    }
    var merged: [Group] = []
    var indexOfKey: [[UInt8]: Int] = [:]
    var seen = Set<[UInt8]>()
    for group in groups(ourLines) + groups(theirLines) {
      let lines = group.lines.filter(kept)
      let target: Int
      if group.key != nil, let first = group.lines.first, kept(first) {
        let bytes = Array(first.utf8)
        if let existing = indexOfKey[bytes] {
          target = existing
        } else {
          merged.append(Group(key: group.key, lines: []))
          target = merged.count - 1
          indexOfKey[bytes] = target
        }
      } else if group.key == nil, let head = merged.firstIndex(where: { $0.key == nil }) {
        target = head
      } else {
        // The head group, or an unreadable line whose readable line was removed: it stays where its group sorts.
        merged.append(Group(key: group.key, lines: []))
        target = merged.count - 1
      }
      for line in lines where seen.insert(Array(line.utf8)).inserted {
        merged[target].lines.append(line)
      }
    }
    return render(sort(merged.filter { !$0.lines.isEmpty }))
  }

  /// For training: per item, only the decision that won — the one whose `chosen` matches where the item is now
  /// (`currentNotebook(item)` from the caller; nil when unknown: the latest decision counts).
  ///
  /// When the item is known to be in a notebook no decision chose (moved by hand since), it has no decision. Of
  /// several matching decisions the latest wins (ties by the line text). The result is sorted by (time, item).
  public static func effective(
    _ decisions: [InboxDecision], currentNotebook: (String) -> String?
  ) -> [InboxDecision] {
    var latest: [String: (decision: InboxDecision, key: SortKey)] = [:]
    for decision in decisions {
      let current = currentNotebook(decision.item)
      if let current, decision.chosen != current { continue }
      let key = key(of: decision, line: decision.line)
      if let existing = latest[decision.item], !(existing.key < key) { continue }
      latest[decision.item] = (decision, key)
    }
    return latest.values.sorted { $0.key < $1.key }.map(\.decision)
  }

  // MARK: - Lines and groups

  /// A line's sort key: whole seconds, then item and line text as bytes.
  struct SortKey: Comparable {
    var seconds: Int64
    var item: [UInt8]
    var line: [UInt8]

    static func < (left: SortKey, right: SortKey) -> Bool {
      if left.seconds != right.seconds { return left.seconds < right.seconds }
      if left.item != right.item { return left.item.lexicographicallyPrecedes(right.item) }
      return left.line.lexicographicallyPrecedes(right.line)
    }
  }

  struct Group {
    /// nil for the head group (unreadable lines before any readable one).
    var key: SortKey?
    var lines: [String]
  }

  enum Reading {
    case decision(InboxDecision)
    case blank
    case unreadable(String)
  }

  static func key(of decision: InboxDecision, line: String) -> SortKey {
    SortKey(seconds: CivilTime.wholeSeconds(decision.time), item: Array(decision.item.utf8), line: Array(line.utf8))
  }

  /// The file's lines, split on "\n" only (a final "\n" ends the last line rather than starting an empty one).
  /// Split as bytes: to `String`, "\r\n" is one character that is not "\n".
  static func lines(_ text: String) -> [String] {
    var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
      String(decoding: $0, as: UTF8.self)
    }
    if lines.last == "" { lines.removeLast() }
    return lines
  }

  static func groups(_ lines: [String]) -> [Group] {
    var groups: [Group] = []
    for line in lines {
      if case .decision(let decision) = read(line) {
        groups.append(Group(key: key(of: decision, line: line), lines: [line]))
      } else if groups.isEmpty {
        groups.append(Group(key: nil, lines: [line]))
      } else {
        groups[groups.count - 1].lines.append(line)
      }
    }
    return groups
  }

  /// Stable: groups with equal keys (only possible for a head group and removed lines' orphans) keep their order.
  static func sort(_ groups: [Group]) -> [Group] {
    groups.enumerated().sorted { left, right in
      switch (left.element.key, right.element.key) {
      case (nil, nil): return left.offset < right.offset
      case (nil, _): return true
      case (_, nil): return false
      case (let leftKey?, let rightKey?):
        if leftKey < rightKey { return true }
        if rightKey < leftKey { return false }
        return left.offset < right.offset
      }
    }.map(\.element)
  }

  static func render(_ groups: [Group]) -> String {
    let lines = groups.flatMap(\.lines)
    return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
  }

  /// The fields as JSON has them; Decodable makes missing and null optionals the same nil.
  private struct Fields: Decodable {
    var time: String
    var item: String
    var suggested: String?
    var chosen: String
    var confidence: Double?
    var device: String
  }

  static func read(_ rawLine: String) -> Reading {
    let line = rawLine.hasSuffix("\r") ? String(rawLine.dropLast()) : rawLine
    guard !line.allSatisfy({ $0 == " " || $0 == "\t" }) else { return .blank }
    guard line.first == "{" else { return .unreadable("not a JSON object") }
    let fields: Fields
    do {
      fields = try JSONDecoder().decode(Fields.self, from: Data(line.utf8))
    } catch DecodingError.keyNotFound(let key, _) {
      return .unreadable("no \"\(key.stringValue)\"")
    } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
      let key = context.codingPath.last?.stringValue ?? "value"
      return .unreadable("\"\(key)\" has the wrong type")
    } catch {
      return .unreadable("not a JSON object")
    }
    guard let time = RFC3339.parse(fields.time)?.date else { return .unreadable("\"time\" is not an RFC 3339 time") }
    guard !fields.item.isEmpty else { return .unreadable("\"item\" is empty") }
    guard !fields.chosen.isEmpty else { return .unreadable("\"chosen\" is empty") }
    if let confidence = fields.confidence, !(0...1).contains(confidence) {
      return .unreadable("\"confidence\" is not between 0 and 1")
    }
    return .decision(
      InboxDecision(
        time: time, item: fields.item, suggested: fields.suggested, chosen: fields.chosen,
        confidence: fields.confidence, device: fields.device))
  }
}

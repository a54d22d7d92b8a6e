import Foundation
import TextFormat

/// todo.txt (https://github.com/todotxt/todo.txt): one task a line.
///
/// A line is `x <completed> <created>` for a closed task (`x (A) …` is read too) or `(A) <created>` for an open one,
/// then the title, then `+project`, `@context` and `key:value` words. nb writes and reads these keys:
/// - `due:YYYY-MM-DD`, and `t:YYYY-MM-DD` (threshold: the scheduled day);
/// - `rec:` (the todo.txt recurrence add-on) for a plain FREQ/INTERVAL rule: `rec:2w` counts from completion,
///   `rec:+2w` from the due date (anchor `scheduled`); any other rule as `rrule:FREQ=…` (read back with anchor
///   `scheduled`; a completion anchor is not kept for such rules);
/// - `tag:name` for each tag (todo.txt has no tags; a `#word` would be taken back from titles such as "issue #12");
/// - `pri:A` for a closed task's priority (todo.txt drops `(A)` on completion; this convention keeps it);
/// - `status:in-progress`, and `status:cancelled` on an `x` line (todo.txt only knows done and not done); a
///   status nb does not know is written as `status:value` when the value is one word.
///
/// Not carried: id, details, location, reminders, complete instances, updated, and the time of due/scheduled (a
/// day is written). `created` is written as its UTC day and read back as that day's 00:00 UTC; a closed task
/// without a completion date loses its creation date (todo.txt allows a creation date only after one).
/// Projects lose `[[ ]]` (a link is written as its target) and their spaces become `-`; contexts and tags too.
/// A title's line breaks and runs of blanks become single spaces, and words in it that look like a project,
/// context, a key above or (at the start) a done marker, priority or date are read back as those.
public enum TodoTxt {
  /// What `parse` read.
  public struct ImportResult: Equatable, Sendable {
    /// One per non-blank line.
    public var tasks: [TaskItem]
    /// What was odd and how it was read, each starting `line N: `.
    public var warnings: [String]

    /// A result holding these values.
    public init(tasks: [TaskItem] = [], warnings: [String] = []) {
      self.tasks = tasks
      self.warnings = warnings
    }
  }

  // MARK: - Export

  /// One line per task (see the type's documentation), each ending with `\n`.
  public static func export(_ tasks: [TaskItem]) -> String {
    tasks.map { line($0) + "\n" }.joined()
  }

  private static func line(_ task: TaskItem) -> String {
    var words: [String] = []
    let closed = task.status.isClosed
    let createdDay = task.created.map { Day($0, in: utc).iso }
    let letter = priorityLetter(task.priority)
    if closed {
      words.append("x")
      if let completed = task.completed {
        words.append(completed.day.iso)
        if let createdDay { words.append(createdDay) }
      }
    } else {
      if let letter { words.append("(\(letter))") }
      if let createdDay { words.append(createdDay) }
    }
    words += blankSeparated(task.title)
    words += task.projects.compactMap { word("+", projectName($0)) }
    words += task.contexts.compactMap { word("@", $0.hasPrefix("@") ? String($0.dropFirst()) : $0) }
    words += task.tags.compactMap { word("tag:", $0.hasPrefix("#") ? String($0.dropFirst()) : $0) }
    if let due = task.due { words.append("due:" + due.day.iso) }
    if let scheduled = task.scheduled { words.append("t:" + scheduled.day.iso) }
    if let rule = task.recurrence.map(ICalendar.bareRule), !rule.isEmpty {
      if let plain = plainRule(rule) {
        words.append("rec:" + (task.recurrenceAnchor == .scheduled ? "+" : "") + "\(plain.interval)\(plain.unit)")
      } else if !rule.contains(where: \.isWhitespace) {
        words.append("rrule:" + rule)
      }
    }
    if closed, let letter { words.append("pri:\(letter)") }
    switch task.status {
    case .inProgress: words.append("status:in-progress")
    case .cancelled: words.append("status:cancelled")
    case .other(let value):
      if !value.isEmpty, !value.contains(where: \.isWhitespace) { words.append("status:" + value) }
    case .open, .done: break
    }
    // A line with nothing on it would be read as no task at all.
    return words.isEmpty ? "(untitled)" : words.joined(separator: " ")
  }

  private static func priorityLetter(_ priority: TaskPriority) -> Character? {
    switch priority {
    case .urgent: return "A"
    case .high: return "B"
    case .normal: return "C"
    case .low: return "D"
    case .none, .other: return nil
    }
  }

  /// The words of `text`, split at any blank or line break.
  private static func blankSeparated(_ text: String) -> [String] {
    text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
  }

  /// `prefix` + `name` with its blanks as `-`; nil when nothing is left.
  private static func word(_ prefix: String, _ name: String) -> String? {
    let joined = blankSeparated(name).joined(separator: "-")
    return joined.isEmpty ? nil : prefix + joined
  }

  /// A `[[Target|Alias]]` or `[[Target#Heading]]` link's target; anything else as written.
  private static func projectName(_ project: String) -> String {
    let trimmed = project.trimmingWhitespaces()
    guard trimmed.hasPrefix("[["), trimmed.hasSuffix("]]"), trimmed.count >= 4 else { return project }
    let inner = trimmed.dropFirst(2).dropLast(2)
    return String(inner.prefix { $0 != "|" && $0 != "#" })
  }

  /// The unit letter and interval of a rule that is only FREQ (DAILY to YEARLY) and an optional INTERVAL.
  private static func plainRule(_ rule: String) -> (unit: Character, interval: Int)? {
    var unit: Character?
    var interval: Int?
    for part in rule.split(separator: ";", omittingEmptySubsequences: false) {
      let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard pieces.count == 2 else { return nil }
      let value = pieces[1].uppercased()
      switch pieces[0].uppercased() {
      case "FREQ":
        guard unit == nil else { return nil }
        switch value {
        case "DAILY": unit = "d"
        case "WEEKLY": unit = "w"
        case "MONTHLY": unit = "m"
        case "YEARLY": unit = "y"
        default: return nil
        }
      case "INTERVAL":
        guard interval == nil, let number = Int(value), number > 0 else { return nil }
        interval = number
      default:
        return nil
      }
    }
    guard let unit else { return nil }
    return (unit, interval ?? 1)
  }

  // MARK: - Import

  /// Parses each non-blank line; (A)→urgent, (B)→high, (C)→normal, (D)…(Z)→low; `x` and dates; +project,
  /// @context, `due:`, `t:`, `rec:` (→ RRULE text and anchor), and nb's own keys (see the type's documentation).
  /// Unknown `key:value` words stay in the title as written. Never throws; odd lines become tasks with warnings.
  public static func parse(_ text: String) -> ImportResult {
    var result = ImportResult()
    var number = 0
    var text = Substring(text)
    if text.unicodeScalars.first == "\u{FEFF}" { text = Substring(text.unicodeScalars.dropFirst()) }
    for physical in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
      number += 1
      let words = Substring(physical).split(whereSeparator: { $0.isWhitespace })
      guard !words.isEmpty else { continue }
      var warnings: [String] = []
      result.tasks.append(task(words.map(String.init)) { warnings.append("line \(number): " + $0) })
      result.warnings += warnings
    }
    return result
  }

  private static func task(_ words: [String], warn: (String) -> Void) -> TaskItem {
    var task = TaskItem(title: "")
    var index = 0
    func nextDay() -> Day? {
      guard index < words.count else { return nil }
      if let day = Day(iso: words[index]) {
        index += 1
        return day
      }
      if looksLikeDate(words[index]) { warn("'\(words[index])' is not a valid date") }
      return nil
    }
    if words[0] == "x" {
      task.status = .done
      index = 1
    }
    // The format's own example puts a priority after the `x` too: `x (A) 2016-05-20 2016-04-30 measure space`.
    var priorityFromMarker = false
    if index < words.count, let priority = priority(marker: words[index]) {
      task.priority = priority
      priorityFromMarker = true
      index += 1
    }
    if task.status == .done {
      if let completed = nextDay() {
        task.completed = .day(completed)
        task.created = nextDay().map { $0.start(in: utc) }
      }
    } else {
      task.created = nextDay().map { $0.start(in: utc) }
    }
    var title: [String] = []
    var seenKeys: Set<String> = []
    for word in words[index...] {
      if word.count > 1, word.hasPrefix("+") {
        task.projects.append(String(word.dropFirst()))
        continue
      }
      if word.count > 1, word.hasPrefix("@") {
        task.contexts.append(String(word.dropFirst()))
        continue
      }
      guard let colon = word.firstIndex(of: ":"), colon != word.startIndex, word.index(after: colon) != word.endIndex
      else {
        title.append(word)
        continue
      }
      let key = word[..<colon].lowercased()
      let value = String(word[word.index(after: colon)...])
      let known = ["due", "t", "rec", "rrule", "pri", "tag", "status"]
      guard known.contains(key) else {
        title.append(word)
        continue
      }
      if key != "tag", seenKeys.contains(key) {
        warn("a second \(key): is kept in the title")
        title.append(word)
        continue
      }
      if apply(key: key, value: value, to: &task, priorityFromMarker: priorityFromMarker, warn: warn) {
        seenKeys.insert(key)
      } else {
        title.append(word)
      }
    }
    task.title = title.joined(separator: " ")
    if task.title.isEmpty {
      warn("no task text; titled (untitled)")
      task.title = "(untitled)"
    }
    return task
  }

  /// Reads one of nb's keys into `task`; false (after a warning) when the value is not what the key takes.
  private static func apply(
    key: String, value: String, to task: inout TaskItem, priorityFromMarker: Bool, warn: (String) -> Void
  ) -> Bool {
    switch key {
    case "due", "t":
      guard let day = Day(iso: value) else {
        warn("\(key):\(value) is not a date (YYYY-MM-DD); kept in the title")
        return false
      }
      if key == "due" { task.due = .day(day) } else { task.scheduled = .day(day) }
    case "rec":
      guard let recurrence = recurrence(value) else {
        warn("rec:\(value) is not a recurrence like 1w or +3d; kept in the title")
        return false
      }
      task.recurrence = recurrence.rule
      task.recurrenceAnchor = recurrence.anchor
    case "rrule":
      guard value.uppercased().contains("FREQ=") else {
        warn("rrule:\(value) has no FREQ; kept in the title")
        return false
      }
      task.recurrence = value
    case "pri":
      guard let letter = value.unicodeScalars.first, value.unicodeScalars.count == 1,
        let priority = priority(letter: letter)
      else {
        warn("pri:\(value) is not a letter A to Z; kept in the title")
        return false
      }
      if priorityFromMarker {
        warn("pri:\(value) is ignored: the line starts with a priority")
      } else {
        task.priority = priority
      }
    case "tag":
      task.tags.append(value)
    case "status":
      let status = TaskStatus(text: value)
      // `x` with a status that is not closed would contradict itself; the `x` wins.
      if task.status == .done, !status.isClosed {
        warn("status:\(value) on a done line is ignored")
      } else {
        task.status = status
      }
    default:
      return false
    }
    return true
  }

  /// `(A)` to `(Z)`: the todo.txt priority marker (uppercase only, as the format says).
  private static func priority(marker: String) -> TaskPriority? {
    let scalars = Array(marker.unicodeScalars)
    guard scalars.count == 3, scalars[0] == "(", scalars[2] == ")" else { return nil }
    return priority(letter: scalars[1])
  }

  private static func priority(letter: Unicode.Scalar) -> TaskPriority? {
    switch letter {
    case "A": return .urgent
    case "B": return .high
    case "C": return .normal
    case "D"..."Z": return .low
    default: return nil
    }
  }

  /// `[+]<n><d|w|m|y>` (n defaults to 1) as an RRULE and its anchor.
  private static func recurrence(_ value: String) -> (rule: String, anchor: RecurrenceAnchor)? {
    var scalars = Substring(value).unicodeScalars[...]
    var anchor = RecurrenceAnchor.completion
    if scalars.first == "+" {
      anchor = .scheduled
      scalars = scalars.dropFirst()
    }
    guard let unit = scalars.last else { return nil }
    let digits = scalars.dropLast()
    guard digits.count <= 6, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
    let interval = digits.isEmpty ? 1 : Int(String(String.UnicodeScalarView(digits))) ?? 0
    guard interval > 0 else { return nil }
    let frequency: String
    switch unit {
    case "d", "D": frequency = "DAILY"
    case "w", "W": frequency = "WEEKLY"
    case "m", "M": frequency = "MONTHLY"
    case "y", "Y": frequency = "YEARLY"
    default: return nil
    }
    return ("FREQ=" + frequency + (interval == 1 ? "" : ";INTERVAL=\(interval)"), anchor)
  }

  /// `dddd-dd-dd` whether or not the day exists: worth a warning when it does not.
  private static func looksLikeDate(_ word: String) -> Bool {
    let bytes = Array(word.utf8)
    guard bytes.count == 10 else { return false }
    return bytes.enumerated().allSatisfy { index, byte in
      index == 4 || index == 7 ? byte == UInt8(ascii: "-") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
  }
}

private let utc = TimeZone(secondsFromGMT: 0)!

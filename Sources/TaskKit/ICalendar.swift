import Foundation
import TextFormat

/// Why a text could not be read as iCalendar at all.
public struct ICalendarError: Error, Equatable, Sendable, CustomStringConvertible {
  /// One line saying what is wrong.
  public var description: String

  /// An error with `description` as its message.
  public init(_ description: String) { self.description = description }
}

/// RFC 5545 VTODO export and import.
///
/// Export writes one VTODO per task; everything nb keeps that iCalendar has no property for travels in `X-NB-`
/// properties, which other readers ignore. What `parse(export(tasks))` changes:
/// - a task without an `id` comes back with the UID it was given (`nb-` and its position, from 1);
/// - a date-time with a UTC offset comes back in UTC (`+01:00` 09:00 → `Z` 08:00), the same instant;
/// - `created`/`updated` lose fractions of a second;
/// - a status nb does not know (`.other`) is not written and comes back `.open` (`.done` if a completion date is
///   set); a priority nb does not know comes back `.none`;
/// - an empty title comes back `(untitled)`;
/// - the recurrence loses a leading `DTSTART:…;` or `RRULE:` part;
/// - a relative reminder whose text is not an iCalendar duration (`P1M`) is written from its seconds (`-P30D`);
/// - in text, `\r\n` and `\r` come back as `\n` and control characters other than tab are dropped; tags lose
///   surrounding blanks, and empty tags, contexts and projects are dropped.
public enum ICalendar {
  /// What `parse` read.
  public struct ImportResult: Equatable, Sendable {
    /// One per VTODO, in the order they appear.
    public var tasks: [TaskItem]
    /// Components that are not VTODOs, by name (`"VEVENT": 3`); nested ones count with the component around them.
    public var skipped: [String: Int]
    /// What was odd and how it was read, each starting `line N: `.
    public var warnings: [String]

    /// A result holding these values.
    public init(tasks: [TaskItem] = [], skipped: [String: Int] = [:], warnings: [String] = []) {
      self.tasks = tasks
      self.skipped = skipped
      self.warnings = warnings
    }
  }

  // MARK: - Export

  /// A VCALENDAR (VERSION:2.0, PRODID:-//nb//tasks//EN, CALSCALE:GREGORIAN) with one VTODO per task, CRLF line
  /// endings, lines folded at 75 octets.
  ///
  /// - UID is `task.id`, else `nb-` and the task's position in `tasks` counting from 1 (stable for one export; an
  ///   id would be stabler, and saved tasks have one).
  /// - DTSTAMP is `now` in UTC.
  /// - DUE and DTSTART (`scheduled`): a day as `;VALUE=DATE:20261201`, a date-time with an offset in UTC
  ///   (`20261201T080000Z`), a floating one floating (`20261201T090000`).
  /// - COMPLETED must be a UTC date-time: a day is written as its 00:00 UTC and a floating time as if it were UTC,
  ///   each marked with an `X-NB-VALUE=DATE` / `X-NB-VALUE=FLOATING` parameter (which other readers ignore) so
  ///   `parse` gives back the day or floating time. Absolute reminders (`TRIGGER;VALUE=DATE-TIME`) likewise.
  /// - CATEGORIES holds tags then contexts; `X-NB-CONTEXTS` repeats the contexts so they can be told apart again.
  /// - Relative reminders are relative to DUE (`TRIGGER;RELATED=END:-PT1H`, RFC 5545 §3.8.6.3: a VTODO's END is
  ///   its DUE), also on a task without a due date, where the RFC wants one and other readers may ignore them.
  public static func export(_ tasks: [TaskItem], now: Date) -> String {
    var writer = ContentWriter()
    writer.line("BEGIN:VCALENDAR")
    writer.line("VERSION:2.0")
    writer.line("PRODID:-//nb//tasks//EN")
    writer.line("CALSCALE:GREGORIAN")
    let stamp = utcText(now)
    for (index, task) in tasks.enumerated() {
      writeTodo(task, uid: task.id ?? "nb-\(index + 1)", stamp: stamp, into: &writer)
    }
    writer.line("END:VCALENDAR")
    return writer.text
  }

  private static func writeTodo(_ task: TaskItem, uid: String, stamp: String, into writer: inout ContentWriter) {
    writer.line("BEGIN:VTODO")
    writer.line("UID:" + escape(uid))
    writer.line("DTSTAMP:" + stamp)
    if let created = task.created { writer.line("CREATED:" + utcText(created)) }
    if let updated = task.updated { writer.line("LAST-MODIFIED:" + utcText(updated)) }
    writer.line("SUMMARY:" + escape(task.title))
    if let details = task.details { writer.line("DESCRIPTION:" + escape(details)) }
    if let location = task.location { writer.line("LOCATION:" + escape(location)) }
    switch task.status {
    case .open: writer.line("STATUS:NEEDS-ACTION")
    case .inProgress: writer.line("STATUS:IN-PROCESS")
    case .done: writer.line("STATUS:COMPLETED")
    case .cancelled: writer.line("STATUS:CANCELLED")
    case .other: break
    }
    switch task.priority {
    case .urgent: writer.line("PRIORITY:1")
    case .high: writer.line("PRIORITY:3")
    case .normal: writer.line("PRIORITY:5")
    case .low: writer.line("PRIORITY:7")
    case .none, .other: break
    }
    if let scheduled = task.scheduled { writer.line("DTSTART" + dateValue(scheduled)) }
    if let due = task.due { writer.line("DUE" + dateValue(due)) }
    if let completed = task.completed { writer.line("COMPLETED" + utcDateValue(completed)) }
    if let recurrence = task.recurrence.map(bareRule), !recurrence.isEmpty { writer.line("RRULE:" + recurrence) }
    if task.recurrenceAnchor == .completion { writer.line("X-NB-RECURRENCE-ANCHOR:COMPLETION") }
    if !task.completeInstances.isEmpty {
      writer.line("X-NB-COMPLETE-INSTANCES;VALUE=DATE:" + task.completeInstances.map(basicDay).joined(separator: ","))
    }
    let categories = task.tags + task.contexts
    if !categories.isEmpty { writer.line("CATEGORIES:" + categories.map(escape).joined(separator: ",")) }
    if !task.contexts.isEmpty { writer.line("X-NB-CONTEXTS:" + task.contexts.map(escape).joined(separator: ",")) }
    if !task.projects.isEmpty { writer.line("X-NB-PROJECTS:" + task.projects.map(escape).joined(separator: ",")) }
    for reminder in task.reminders {
      writer.line("BEGIN:VALARM")
      writer.line("ACTION:DISPLAY")
      // DISPLAY alarms must have a DESCRIPTION (RFC 5545 §3.6.6); the task's title is what a reminder shows.
      writer.line("DESCRIPTION:" + escape(task.title.isEmpty ? "Reminder" : task.title))
      switch reminder {
      case .relative(let text, let seconds):
        let asWritten = text == text.trimmingWhitespaces() && TriggerDuration.seconds(text) == seconds
        let duration = asWritten ? text : TriggerDuration.text(seconds: seconds)
        writer.line("TRIGGER;RELATED=END:" + duration)
      case .absolute(let date):
        writer.line("TRIGGER;VALUE=DATE-TIME" + utcDateValue(date))
      }
      writer.line("END:VALARM")
    }
    writer.line("END:VTODO")
  }

  /// `;VALUE=DATE:20261201`, `:20261201T080000Z` or `:20261201T090000`.
  private static func dateValue(_ date: TaskDate) -> String {
    switch date {
    case .day(let day):
      return ";VALUE=DATE:" + basicDay(day)
    case .dateTime(let day, let hour, let minute, let second, let offset):
      guard let offset else { return ":" + basicDateTime(day, hour, minute, second) }
      // Clamped so that no hour or offset, however absurd, can overflow: real ones are far inside these bounds.
      func bounded(_ value: Int) -> Int64 { Int64(min(max(value, -1_000_000_000), 1_000_000_000)) }
      let time = bounded(hour) * 3600 + bounded(minute) * 60 + bounded(second) - bounded(offset)
      return ":" + utcText(seconds: day.dayNumber * 86_400 + time)
    }
  }

  /// A value where RFC 5545 requires UTC, with the `X-NB-VALUE` parameter that keeps a day or floating time.
  private static func utcDateValue(_ date: TaskDate) -> String {
    switch date {
    case .day(let day):
      return ";X-NB-VALUE=DATE:" + basicDay(day) + "T000000Z"
    case .dateTime(let day, let hour, let minute, let second, nil):
      return ";X-NB-VALUE=FLOATING:" + basicDateTime(day, hour, minute, second) + "Z"
    case .dateTime:
      return dateValue(date)
    }
  }

  /// The rule without a leading `DTSTART:…;` (TaskNotes keeps the start in the rule; iCalendar has DTSTART) or
  /// `RRULE:`; control characters would break the content line and are dropped.
  static func bareRule(_ rule: String) -> String {
    var text = Substring(rule.trimmingWhitespacesAndNewlines())
    if text.uppercased().hasPrefix("DTSTART") {
      if let semicolon = text.firstIndex(of: ";") {
        text = text[text.index(after: semicolon)...]
      } else {
        text = ""
      }
    }
    if text.uppercased().hasPrefix("RRULE:") { text = text.dropFirst(6) }
    return String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
  }

  private static func basicDay(_ day: Day) -> String {
    CivilTime.pad(day.year, 4) + CivilTime.pad(day.month, 2) + CivilTime.pad(day.day, 2)
  }

  private static func basicDateTime(_ day: Day, _ hour: Int, _ minute: Int, _ second: Int) -> String {
    basicDay(day) + "T" + CivilTime.pad(hour, 2) + CivilTime.pad(minute, 2) + CivilTime.pad(second, 2)
  }

  private static func utcText(_ date: Date) -> String { utcText(seconds: CivilTime.wholeSeconds(date)) }

  private static func utcText(seconds: Int64) -> String {
    let day = Day(dayNumber: CivilTime.floorDiv(seconds, 86_400))
    let inDay = Int(seconds - day.dayNumber * 86_400)
    return basicDateTime(day, inDay / 3600, inDay % 3600 / 60, inDay % 60) + "Z"
  }

  /// TEXT escaping (RFC 5545 §3.3.11); any line break becomes `\n`, other control characters (not allowed in a
  /// content line) are dropped.
  static func escape(_ text: String) -> String {
    var result = String.UnicodeScalarView()
    var previousWasCR = false
    for scalar in text.unicodeScalars {
      defer { previousWasCR = scalar == "\r" }
      switch scalar {
      case "\\": result.append(contentsOf: "\\\\".unicodeScalars)
      case ";": result.append(contentsOf: "\\;".unicodeScalars)
      case ",": result.append(contentsOf: "\\,".unicodeScalars)
      case "\r": result.append(contentsOf: "\\n".unicodeScalars)
      case "\n": if !previousWasCR { result.append(contentsOf: "\\n".unicodeScalars) }
      case "\t": result.append(scalar)
      default: if scalar.value >= 0x20 && scalar.value != 0x7F { result.append(scalar) }
      }
    }
    return String(result)
  }

  // MARK: - Import

  /// Reads any iCalendar text: unfolds lines (CRLF or LF), parameters (quoted values), escapes, VTODOs (nested
  /// VALARMs read as reminders); every other component (VEVENT, VJOURNAL, VFREEBUSY, VTIMEZONE, X- components) is
  /// skipped and counted.
  ///
  /// DUE/DTSTART/COMPLETED with `TZID=Zone/Name` keep their wall-clock time with the offset that zone has then
  /// (`TimeZone(identifier:)`; VTIMEZONE blocks are not read, and an unknown TZID is read as floating, with a
  /// warning). A task without SUMMARY gets `(untitled)`. A TRIGGER related to START is made relative to DUE when
  /// the task has both (or absolute when it has only DTSTART); one in a task without DTSTART is taken as relative
  /// to DUE, which is what clients that write it mean. CREATED and LAST-MODIFIED written floating are read as UTC.
  /// Apple's location alarms (`X-APPLE-PROXIMITY`) are dropped with a warning. Malformed lines are warnings; throws
  /// only when there is no `BEGIN:VCALENDAR` at all.
  public static func parse(_ text: String) throws -> ImportResult {
    let lines = unfold(text)
    guard lines.contains(where: { $0.text.uppercased().hasPrefix("BEGIN:VCALENDAR") }) else {
      throw ICalendarError("not iCalendar: no BEGIN:VCALENDAR line")
    }
    var reader = Reader()
    for line in lines { reader.read(line) }
    reader.finish()
    return reader.result
  }

  /// Physical lines joined into content lines, each with the number of its first physical line.
  private static func unfold(_ text: String) -> [(number: Int, text: String)] {
    var result: [(number: Int, text: String)] = []
    var number = 0
    var text = Substring(text)
    if text.unicodeScalars.first == "\u{FEFF}" { text = Substring(text.unicodeScalars.dropFirst()) }
    // Splitting on scalars keeps "\r\n" (one Character) apart from a lone "\n" the same way.
    for physical in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
      number += 1
      var line = Substring(physical)
      if line.hasSuffix("\r") { line = line.dropLast() }
      if let first = line.unicodeScalars.first, first == " " || first == "\t", !result.isEmpty {
        // One scalar, not one Character: a fold may sit before a combining mark, which joins the blank's cluster.
        result[result.count - 1].text.unicodeScalars += line.unicodeScalars.dropFirst()
      } else if !line.isEmpty {
        result.append((number, String(line)))
      }
    }
    return result
  }

  /// A content line taken apart: `NAME;PARAM=value:value`.
  private struct ContentLine {
    var name: String
    var parameters: [String: [String]]
    var value: String
    var number: Int

    func parameter(_ name: String) -> String? { parameters[name]?.first }
  }

  private static func contentLine(_ text: String, number: Int) -> ContentLine? {
    let scalars = Array(text.unicodeScalars)
    var position = 0
    func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
      (scalar >= "A" && scalar <= "Z") || (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9")
        || scalar == "-" || scalar == "_"
    }
    func name() -> String {
      let start = position
      while position < scalars.count, isNameScalar(scalars[position]) { position += 1 }
      return String(String.UnicodeScalarView(scalars[start..<position])).uppercased()
    }
    let propertyName = name()
    guard !propertyName.isEmpty else { return nil }
    var parameters: [String: [String]] = [:]
    while position < scalars.count, scalars[position] == ";" {
      position += 1
      let parameterName = name()
      guard position < scalars.count, scalars[position] == "=" else { return nil }
      position += 1
      var values: [String] = []
      repeat {
        if position < scalars.count, scalars[position] == "," { position += 1 }
        var value = String.UnicodeScalarView()
        if position < scalars.count, scalars[position] == "\"" {
          position += 1
          while position < scalars.count, scalars[position] != "\"" {
            value.append(scalars[position])
            position += 1
          }
          guard position < scalars.count else { return nil }
          position += 1
        } else {
          while position < scalars.count, scalars[position] != ";", scalars[position] != ":",
            scalars[position] != ","
          {
            value.append(scalars[position])
            position += 1
          }
        }
        values.append(caretDecoded(String(value)))
      } while position < scalars.count && scalars[position] == ","
      if !parameterName.isEmpty { parameters[parameterName, default: []].append(contentsOf: values) }
    }
    guard position < scalars.count, scalars[position] == ":" else { return nil }
    let value = String(String.UnicodeScalarView(scalars[(position + 1)...]))
    return ContentLine(name: propertyName, parameters: parameters, value: value, number: number)
  }

  /// RFC 6868 parameter escapes: `^n` newline, `^^` caret, `^'` double quote.
  private static func caretDecoded(_ text: String) -> String {
    guard text.contains("^") else { return text }
    var result = ""
    var pendingCaret = false
    for character in text {
      if pendingCaret {
        pendingCaret = false
        switch character {
        case "n", "N": result.append("\n")
        case "^": result.append("^")
        case "'": result.append("\"")
        default: result.append("^"); result.append(character)
        }
      } else if character == "^" {
        pendingCaret = true
      } else {
        result.append(character)
      }
    }
    if pendingCaret { result.append("^") }
    return result
  }

  /// TEXT values split at unescaped commas and unescaped (`\n` newline, `\x` is `x`).
  static func unescapedList(_ text: String) -> [String] {
    var items: [String] = []
    var current = ""
    var escaping = false
    for character in text {
      if escaping {
        escaping = false
        current.append(character == "n" || character == "N" ? "\n" : character)
      } else if character == "\\" {
        escaping = true
      } else if character == "," {
        items.append(current)
        current = ""
      } else {
        current.append(character)
      }
    }
    if escaping { current.append("\\") }
    items.append(current)
    return items
  }

  static func unescape(_ text: String) -> String {
    var result = ""
    var escaping = false
    for character in text {
      if escaping {
        escaping = false
        result.append(character == "n" || character == "N" ? "\n" : character)
      } else if character == "\\" {
        escaping = true
      } else {
        result.append(character)
      }
    }
    if escaping { result.append("\\") }
    return result
  }

  /// A DATE or DATE-TIME value as written: `20261201`, `20261201T090000`, `20261201T090000Z`.
  private enum RawDate {
    case day(Day)
    case dateTime(Day, Int, Int, Int, utc: Bool)
  }

  private static func rawDate(_ text: String) -> RawDate? {
    let bytes = Array(text.trimmingWhitespaces().utf8)
    func number(_ range: Range<Int>) -> Int? {
      guard range.upperBound <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[range] {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard bytes.count >= 8, let year = number(0..<4), let month = number(4..<6), let dayOfMonth = number(6..<8),
      let day = Day(year: year, month: month, day: dayOfMonth)
    else { return nil }
    if bytes.count == 8 { return .day(day) }
    guard
      bytes.count == 15 || (bytes.count == 16 && (bytes[15] == UInt8(ascii: "Z") || bytes[15] == UInt8(ascii: "z"))),
      bytes[8] == UInt8(ascii: "T") || bytes[8] == UInt8(ascii: "t"),
      let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
      hour < 24, minute < 60, second <= 60
    else { return nil }
    // A leap second has no place in TaskDate; 23:59:60 is read as 23:59:59.
    return .dateTime(day, hour, minute, min(second, 59), utc: bytes.count == 16)
  }

  /// The zone a TZID names; old Mozilla-style ids (`/mozilla.org/20050126_1/Europe/Berlin`) by their tail.
  private static func timeZone(_ identifier: String) -> TimeZone? {
    if let zone = TimeZone(identifier: identifier) { return zone }
    var rest = Substring(identifier)
    while let slash = rest.firstIndex(of: "/") {
      rest = rest[rest.index(after: slash)...]
      if rest.contains("/"), let zone = TimeZone(identifier: String(rest)) { return zone }
    }
    return nil
  }

  /// Reads VTODOs line by line.
  private struct Reader {
    var result = ImportResult()
    /// Open components, outermost first.
    var stack: [String] = []
    /// Depth of `stack` at which a skipped component began.
    var skipDepth: Int?
    var todo: TodoBuilder?
    var alarm: [ContentLine]?
    var lastLine = 0

    mutating func warn(_ number: Int, _ message: String) {
      result.warnings.append("line \(number): " + message)
    }

    mutating func read(_ line: (number: Int, text: String)) {
      lastLine = line.number
      guard let content = contentLine(line.text, number: line.number) else {
        warn(line.number, "not a content line: '\(excerpt(line.text))'")
        return
      }
      if content.name == "BEGIN" {
        begin(content.value.trimmingWhitespaces().uppercased(), at: line.number)
      } else if content.name == "END" {
        end(content.value.trimmingWhitespaces().uppercased(), at: line.number)
      } else if skipDepth != nil {
        return
      } else if alarm != nil {
        alarm?.append(content)
      } else if todo != nil {
        todo?.properties.append(content)
      } else if stack.isEmpty {
        warn(line.number, "\(content.name) outside BEGIN:VCALENDAR is ignored")
      }
    }

    mutating func begin(_ name: String, at number: Int) {
      defer { stack.append(name) }
      guard skipDepth == nil else { return }
      switch (stack.last, name) {
      case (nil, "VCALENDAR"):
        return
      case ("VCALENDAR", "VTODO"):
        todo = TodoBuilder(start: number)
      case ("VTODO", "VALARM") where todo != nil:
        alarm = []
      case (nil, _):
        warn(number, "BEGIN:\(name) outside BEGIN:VCALENDAR is skipped")
        skipDepth = stack.count
        result.skipped[name, default: 0] += 1
      default:
        skipDepth = stack.count
        result.skipped[name, default: 0] += 1
      }
    }

    mutating func end(_ name: String, at number: Int) {
      guard let index = stack.lastIndex(of: name) else {
        warn(number, "END:\(name) without BEGIN:\(name) is ignored")
        return
      }
      if index != stack.count - 1 {
        warn(number, "END:\(name) closes \(stack[(index + 1)...].map { "BEGIN:" + $0 }.joined(separator: ", ")) too")
      }
      while stack.count > index { close() }
    }

    /// Pops the innermost component, finishing what it built.
    mutating func close() {
      guard let name = stack.popLast() else { return }
      if let depth = skipDepth {
        if stack.count == depth { skipDepth = nil }
        return
      }
      if name == "VALARM", let lines = alarm {
        alarm = nil
        todo?.alarms.append(lines)
      } else if name == "VTODO", let builder = todo {
        todo = nil
        var warnings: [String] = []
        result.tasks.append(builder.task(warnings: &warnings))
        result.warnings += warnings
      }
    }

    mutating func finish() {
      if !stack.isEmpty {
        warn(lastLine, "the text ends inside " + stack.map { "BEGIN:" + $0 }.joined(separator: ", "))
      }
      while !stack.isEmpty { close() }
    }
  }

  private static func excerpt(_ text: String) -> String {
    text.count > 40 ? String(text.prefix(40)) + "…" : text
  }

  /// The lines of one VTODO, turned into a task once it has ended.
  private struct TodoBuilder {
    var start: Int
    var properties: [ContentLine] = []
    var alarms: [[ContentLine]] = []

    func task(warnings: inout [String]) -> TaskItem {
      var task = TaskItem(title: "(untitled)")
      var statusSet = false
      var categories: [String] = []
      var contexts: [String]?
      var seen: Set<String> = []
      func warn(_ line: ContentLine, _ message: String) {
        warnings.append("line \(line.number): " + message)
      }
      for line in properties {
        let once = [
          "UID", "SUMMARY", "DESCRIPTION", "LOCATION", "STATUS", "PRIORITY", "DTSTART", "DUE", "COMPLETED",
          "CREATED", "LAST-MODIFIED", "RRULE",
        ]
        if once.contains(line.name) {
          guard seen.insert(line.name).inserted else {
            warn(line, "a second \(line.name) is ignored")
            continue
          }
        }
        switch line.name {
        case "UID":
          task.id = unescape(line.value)
        case "SUMMARY":
          let title = unescape(line.value)
          if !title.isEmpty { task.title = title }
        case "DESCRIPTION":
          task.details = unescape(line.value)
        case "LOCATION":
          task.location = unescape(line.value)
        case "STATUS":
          statusSet = true
          switch line.value.trimmingWhitespaces().uppercased() {
          case "NEEDS-ACTION": task.status = .open
          case "IN-PROCESS": task.status = .inProgress
          case "COMPLETED": task.status = .done
          case "CANCELLED": task.status = .cancelled
          default:
            warn(line, "STATUS '\(excerpt(line.value))' is not a VTODO status; kept as written")
            task.status = .other(line.value)
          }
        case "PRIORITY":
          switch Int(line.value.trimmingWhitespaces()) {
          case 0: task.priority = .none
          case 1: task.priority = .urgent
          case 2, 3, 4: task.priority = .high
          case 5: task.priority = .normal
          case 6, 7, 8, 9: task.priority = .low
          default: warn(line, "PRIORITY '\(excerpt(line.value))' is not 0 to 9")
          }
        case "DTSTART":
          task.scheduled = date(line, warnings: &warnings)
        case "DUE":
          task.due = date(line, warnings: &warnings)
        case "COMPLETED":
          task.completed = date(line, warnings: &warnings)
        case "CREATED":
          task.created = date(line, warnings: &warnings).map { $0.instant(in: utc) }
        case "LAST-MODIFIED":
          task.updated = date(line, warnings: &warnings).map { $0.instant(in: utc) }
        case "RRULE":
          let rule = line.value.trimmingWhitespaces()
          if !rule.isEmpty { task.recurrence = rule }
        case "X-NB-RECURRENCE-ANCHOR":
          guard let anchor = RecurrenceAnchor(rawValue: line.value.trimmingWhitespaces().lowercased())
          else {
            warn(line, "X-NB-RECURRENCE-ANCHOR '\(excerpt(line.value))' is not SCHEDULED or COMPLETION")
            continue
          }
          task.recurrenceAnchor = anchor
        case "X-NB-COMPLETE-INSTANCES":
          for item in line.value.split(separator: ",") {
            let text = item.trimmingWhitespaces()
            if case .day(let day)? = rawDate(text) {
              task.completeInstances.append(day)
            } else if let day = Day(iso: text) {
              task.completeInstances.append(day)
            } else {
              warn(line, "X-NB-COMPLETE-INSTANCES '\(excerpt(text))' is not a date")
            }
          }
        case "CATEGORIES":
          categories += unescapedList(line.value).map { $0.trimmingWhitespaces() }.filter {
            !$0.isEmpty
          }
        case "X-NB-CONTEXTS":
          contexts = (contexts ?? []) + unescapedList(line.value).filter { !$0.isEmpty }
        case "X-NB-PROJECTS":
          task.projects += unescapedList(line.value).filter { !$0.isEmpty }
        default:
          break
        }
      }
      if !statusSet, task.completed != nil { task.status = .done }
      if let contexts {
        // Categories are tags then contexts; each context takes its copy out of the categories.
        var remaining = categories
        for context in contexts {
          if let index = remaining.lastIndex(of: context.trimmingWhitespaces()) {
            remaining.remove(at: index)
          }
        }
        task.tags = remaining
        task.contexts = contexts
      } else {
        task.tags = categories
      }
      for lines in alarms {
        if let reminder = reminder(lines, task: task, warnings: &warnings) { task.reminders.append(reminder) }
      }
      return task
    }

    func date(_ line: ContentLine, warnings: inout [String]) -> TaskDate? {
      guard let raw = rawDate(line.value) else {
        warnings.append("line \(line.number): \(line.name) '\(excerpt(line.value))' is not a date")
        return nil
      }
      switch raw {
      case .day(let day):
        return .day(day)
      case .dateTime(let day, let hour, let minute, let second, let utc):
        switch line.parameter("X-NB-VALUE")?.uppercased() {
        case "DATE": return .day(day)
        case "FLOATING": return .dateTime(day, hour: hour, minute: minute, second: second, offsetSeconds: nil)
        default: break
        }
        if utc { return .dateTime(day, hour: hour, minute: minute, second: second, offsetSeconds: 0) }
        guard let identifier = line.parameter("TZID") else {
          return .dateTime(day, hour: hour, minute: minute, second: second, offsetSeconds: nil)
        }
        guard let zone = timeZone(identifier) else {
          warnings.append(
            "line \(line.number): TZID '\(excerpt(identifier))' is not a known time zone; read as floating")
          return .dateTime(day, hour: hour, minute: minute, second: second, offsetSeconds: nil)
        }
        // Through the instant, so a time a DST jump skips comes out as the wall-clock time that exists.
        let instant = LocalTime.instant(day: day, hour: hour, minute: minute, second: second, in: zone)
        return TaskDate.wallClock(instant, offset: zone.secondsFromGMT(for: instant))
      }
    }

    func reminder(_ lines: [ContentLine], task: TaskItem, warnings: inout [String]) -> Reminder? {
      guard let trigger = lines.first(where: { $0.name == "TRIGGER" }) else {
        if let first = lines.first {
          warnings.append("line \(first.number): a VALARM without TRIGGER is ignored")
        }
        return nil
      }
      if lines.contains(where: { $0.name == "X-APPLE-PROXIMITY" }) {
        // Apple writes location alarms with a placeholder 1976 TRIGGER; the place is not a time nb can keep.
        warnings.append("line \(trigger.number): a location-based VALARM is ignored")
        return nil
      }
      if trigger.parameter("VALUE")?.uppercased() == "DATE-TIME" || rawDate(trigger.value) != nil {
        guard let date = date(trigger, warnings: &warnings) else { return nil }
        return .absolute(date)
      }
      let text = trigger.value.trimmingWhitespaces()
      guard let seconds = TriggerDuration.seconds(text) else {
        warnings.append("line \(trigger.number): TRIGGER '\(excerpt(trigger.value))' is not a duration")
        return nil
      }
      guard trigger.parameter("RELATED")?.uppercased() != "END", let start = task.scheduled else {
        return .relative(text: text, seconds: seconds)
      }
      // Relative to DTSTART: re-anchor on DUE when there is one, else fix the instant.
      let startSeconds = CivilTime.wholeSeconds(start.instant(in: utc))
      guard let due = task.due else {
        let (sum, overflow) = startSeconds.addingReportingOverflow(Int64(seconds))
        guard !overflow else { return nil }
        return .absolute(TaskDate.at(seconds: sum, like: start))
      }
      let shift = startSeconds - CivilTime.wholeSeconds(due.instant(in: utc))
      let (total, overflow) = Int64(seconds).addingReportingOverflow(shift)
      guard !overflow, let moved = Int(exactly: total) else { return nil }
      if moved == seconds { return .relative(text: text, seconds: seconds) }
      return .relative(text: TriggerDuration.text(seconds: moved), seconds: moved)
    }
  }
}

private let utc = TimeZone(secondsFromGMT: 0)!

extension TaskDate {
  /// The wall-clock time of `instant` at UTC offset `seconds`.
  fileprivate static func wallClock(_ instant: Date, offset: Int) -> TaskDate {
    let wall = CivilTime.wholeSeconds(instant) + Int64(offset)
    let day = Day(dayNumber: CivilTime.floorDiv(wall, 86_400))
    let inDay = Int(wall - day.dayNumber * 86_400)
    return .dateTime(day, hour: inDay / 3600, minute: inDay % 3600 / 60, second: inDay % 60, offsetSeconds: offset)
  }

  /// `seconds` since 1970 read as UTC, written like `template`: a day, floating, or with `template`'s offset.
  fileprivate static func at(seconds: Int64, like template: TaskDate) -> TaskDate {
    switch template {
    case .dateTime(_, _, _, _, let offset?):
      return wallClock(Date(timeIntervalSince1970: TimeInterval(seconds)), offset: offset)
    default:
      guard
        case .dateTime(let day, let hour, let minute, let second, _) = wallClock(
          Date(timeIntervalSince1970: TimeInterval(seconds)), offset: 0)
      else { return template }
      return .dateTime(day, hour: hour, minute: minute, second: second, offsetSeconds: nil)
    }
  }
}

/// The RFC 5545 `dur-value` subset TRIGGER uses: `[+-]P[nW]` or `[+-]P[nD][T[nH][nM][nS]]`.
enum TriggerDuration {
  /// The signed length in seconds, or nil when `text` is not such a duration (or too long to count).
  static func seconds(_ text: String) -> Int? {
    var scalars = Substring(text.trimmingWhitespaces()).unicodeScalars[...]
    var sign = 1
    if scalars.first == "-" {
      sign = -1
      scalars = scalars.dropFirst()
    } else if scalars.first == "+" {
      scalars = scalars.dropFirst()
    }
    guard scalars.first == "P" || scalars.first == "p" else { return nil }
    scalars = scalars.dropFirst()
    var total = 0
    var inTime = false
    var sawNumber = false
    var number: Int?
    var lastUnitRank = 0
    for scalar in scalars {
      if scalar >= "0" && scalar <= "9" {
        let (times, overflow1) = (number ?? 0).multipliedReportingOverflow(by: 10)
        let (value, overflow2) = times.addingReportingOverflow(Int(scalar.value - 48))
        guard !overflow1, !overflow2, value < 1_000_000_000 else { return nil }
        number = value
        continue
      }
      let upper = Character(scalar).uppercased()
      if upper == "T" {
        guard !inTime, number == nil else { return nil }
        inTime = true
        continue
      }
      let unit: (seconds: Int, rank: Int, time: Bool)
      switch upper {
      case "W": unit = (604_800, 1, false)
      case "D": unit = (86_400, 2, false)
      case "H": unit = (3600, 3, true)
      case "M": unit = (60, 4, true)
      case "S": unit = (1, 5, true)
      default: return nil
      }
      guard let value = number, unit.time == inTime, unit.rank > lastUnitRank else { return nil }
      lastUnitRank = unit.rank
      total += value * unit.seconds
      number = nil
      sawNumber = true
    }
    guard sawNumber, number == nil, !(inTime && lastUnitRank < 3) else { return nil }
    return sign * total
  }

  /// The shortest `dur-value` for `seconds`: weeks when whole, else days and a time part (`-P1DT2H0M5S`).
  static func text(seconds: Int) -> String {
    let sign = seconds < 0 ? "-" : ""
    let magnitude = seconds.magnitude
    if magnitude == 0 { return "PT0S" }
    if magnitude % 604_800 == 0 { return sign + "P\(magnitude / 604_800)W" }
    let days = magnitude / 86_400
    let hours = magnitude % 86_400 / 3600
    let minutes = magnitude % 3600 / 60
    let secs = magnitude % 60
    var text = sign + "P"
    if days > 0 { text += "\(days)D" }
    guard hours + minutes + secs > 0 else { return text }
    text += "T"
    // The grammar has hour [minute [second]] and minute [second]: a 0M bridges an hour and seconds.
    if hours > 0 { text += "\(hours)H" }
    if minutes > 0 || (hours > 0 && secs > 0) { text += "\(minutes)M" }
    if secs > 0 { text += "\(secs)S" }
    return text
  }
}

/// Content lines folded at 75 octets (never inside a UTF-8 sequence) and ended with CRLF.
private struct ContentWriter {
  var text = ""

  mutating func line(_ line: String) {
    var octets = 0
    for scalar in line.unicodeScalars {
      let width = UTF8.width(scalar)
      if octets + width > 75 {
        text += "\r\n "
        octets = 1
      }
      text.unicodeScalars.append(scalar)
      octets += width
    }
    text += "\r\n"
  }
}

import Foundation
import TextFormat

/// A repeat rule nb could not read.
public struct RecurrenceError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The rule as given.
  public var text: String
  /// What is wrong with it.
  public var message: String
  /// One line: `invalid repeat 'FREQ=FORTNIGHTLY': unknown FREQ; use DAILY, WEEKLY, MONTHLY or YEARLY`.
  public var description: String

  /// The error `message` about `text`.
  public init(text: String, message: String) {
    self.text = text
    self.message = message
    // A rule read from an iCalendar file may span lines; the description stays on one.
    let shown = text.split(whereSeparator: \.isNewline).joined(separator: " ")
    description = "invalid repeat '\(shown)': \(message)"
  }
}

/// An RFC 5545 recurrence rule (RRULE) for a repeating task, by whole days: times of day belong to the task's dates.
///
/// Occurrences follow RFC 5545, with two exceptions for days of the month that exist only in some months:
/// - A day the rule names explicitly (`BYMONTHDAY=31`, `BYMONTH=2;BYMONTHDAY=29`) is skipped in a period where it
///   does not exist, as RFC 5545 says: `BYMONTHDAY=31` skips the 30-day months.
/// - A day only implied by the series start (`FREQ=MONTHLY` from Jan 31, `FREQ=YEARLY` from Feb 29) is clamped to
///   the period's last day, as task apps do: Jan 31 → Feb 28 → Mar 31 (each month aims for the start's day again,
///   not the clamped one), Feb 29 → Feb 28 in common years, Feb 29 in leap years.
/// The series start always counts as the first occurrence (RFC 5545), even when the rule would not produce it.
public struct Recurrence: Hashable, Sendable, CustomStringConvertible {
  /// How often the rule repeats (`FREQ`); HOURLY and finer are not supported.
  public enum Frequency: String, Sendable {
    /// Every day (or every `interval` days).
    case daily = "DAILY"
    /// Every week; weeks start on Monday.
    case weekly = "WEEKLY"
    /// Every month.
    case monthly = "MONTHLY"
    /// Every year.
    case yearly = "YEARLY"
  }

  /// A `BYDAY` entry: a weekday, with an ordinal in MONTHLY/YEARLY rules (`1MO` first Monday, `-1FR` last Friday).
  public struct WeekdayNumber: Hashable, Sendable {
    /// Nil: every such weekday of the period.
    public var ordinal: Int?
    /// ISO weekday: 1 is Monday, 7 is Sunday.
    public var weekday: Int

    /// The entry for `weekday` (1 Monday … 7 Sunday), the `ordinal`th in the period when given.
    public init(ordinal: Int? = nil, weekday: Int) {
      self.ordinal = ordinal
      self.weekday = weekday
    }
  }

  /// `FREQ`.
  public var frequency: Frequency
  /// Every how many periods; at least 1.
  public var interval: Int
  /// `BYDAY`.
  public var byDay: [WeekdayNumber]
  /// `BYMONTHDAY`: 1...31, or -31...-1 counting from the month's end.
  public var byMonthDay: [Int]
  /// `BYMONTH`: 1...12.
  public var byMonth: [Int]
  /// `BYSETPOS`: which of each period's occurrences to keep (1 first, -1 last).
  public var bySetPos: [Int]
  /// `COUNT`: how many occurrences the series has, counted from its start.
  public var count: Int?
  /// `UNTIL`: the last day an occurrence may fall on.
  public var until: Day?
  /// `DTSTART`, when the text carries one (TaskNotes writes `DTSTART:20250101;FREQ=...`).
  public var start: Day?

  /// A rule from its parts.
  public init(
    frequency: Frequency, interval: Int = 1, byDay: [WeekdayNumber] = [], byMonthDay: [Int] = [],
    byMonth: [Int] = [], bySetPos: [Int] = [], count: Int? = nil, until: Day? = nil, start: Day? = nil
  ) {
    self.frequency = frequency
    self.interval = interval
    self.byDay = byDay
    self.byMonthDay = byMonthDay
    self.byMonth = byMonth
    self.bySetPos = bySetPos
    self.count = count
    self.until = until
    self.start = start
  }

  static let weekdayCodes = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
  static let weekdayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
  static let monthNames = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December",
  ]

  // MARK: - Reading an RRULE

  /// Parses an RRULE: optional `RRULE:` prefix, optional `DTSTART:YYYYMMDD[THHMMSS[Z]];` prefix, parts in any order,
  /// case-insensitive keys/values; unknown or unsupported parts (BYHOUR, BYWEEKNO, FREQ=HOURLY/MINUTELY/SECONDLY)
  /// are errors with a message. `WKST` is accepted and ignored (weeks here always start on Monday).
  public init(rrule text: String) throws {
    func fail(_ message: String) -> RecurrenceError { RecurrenceError(text: text, message: message) }
    var frequency: Frequency?
    var interval = 1
    var byDay: [WeekdayNumber] = []
    var byMonthDay: [Int] = []
    var byMonth: [Int] = []
    var bySetPos: [Int] = []
    var count: Int?
    var until: Day?
    var start: Day?
    var seen: Set<String> = []
    // iCalendar puts DTSTART and RRULE on separate lines; TaskNotes joins them with `;`. A DTSTART line's
    // parameters (`DTSTART;TZID=Europe/Berlin:20250101T090000`) are dropped: only the day matters here.
    let lines = text.split(whereSeparator: \.isNewline).map { line -> Substring in
      let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
      guard trimmed.uppercased().hasPrefix("DTSTART;"), let colon = trimmed.firstIndex(of: ":") else { return line }
      return "DTSTART:" + trimmed[trimmed.index(after: colon)...]
    }
    let parts = lines.flatMap { $0.split(separator: ";") }
    for rawPart in parts {
      var part = rawPart.trimmingWhitespaces().uppercased()
      if part.isEmpty { continue }
      if part.hasPrefix("RRULE:") { part.removeFirst(6) }
      if part.hasPrefix("DTSTART:") {
        guard !seen.contains("DTSTART") else { throw fail("DTSTART is given twice") }
        seen.insert("DTSTART")
        guard let day = Self.basicDay(part.dropFirst(8)) else {
          throw fail("DTSTART must be YYYYMMDD or YYYYMMDDTHHMMSS")
        }
        start = day
        continue
      }
      guard let equals = part.firstIndex(of: "=") else { throw fail("'\(part)' is not NAME=VALUE") }
      let key = String(part[..<equals])
      let value = String(part[part.index(after: equals)...])
      guard !seen.contains(key) else { throw fail("\(key) is given twice") }
      seen.insert(key)
      guard !value.isEmpty else { throw fail("\(key) has no value") }
      let list = value.split(separator: ",", omittingEmptySubsequences: false).map {
        $0.trimmingWhitespaces()
      }
      func integers(_ range: ClosedRange<Int>, nonZero: Bool) throws -> [Int] {
        try list.map { item in
          guard let number = Self.integer(item), range.contains(number), !nonZero || number != 0 else {
            throw fail(
              "\(key) value '\(item)' is not a whole number in \(range.lowerBound)...\(range.upperBound)"
                + (nonZero ? " other than 0" : ""))
          }
          return number
        }
      }
      switch key {
      case "FREQ":
        switch value {
        case "DAILY": frequency = .daily
        case "WEEKLY": frequency = .weekly
        case "MONTHLY": frequency = .monthly
        case "YEARLY": frequency = .yearly
        case "HOURLY", "MINUTELY", "SECONDLY": throw fail("FREQ=\(value) is not supported; tasks repeat by days")
        default: throw fail("unknown FREQ; use DAILY, WEEKLY, MONTHLY or YEARLY")
        }
      case "INTERVAL":
        guard let number = Self.integer(value), number >= 1 else { throw fail("INTERVAL must be a whole number >= 1") }
        interval = number
      case "COUNT":
        guard let number = Self.integer(value), number >= 1 else { throw fail("COUNT must be a whole number >= 1") }
        count = number
      case "UNTIL":
        guard let day = Self.basicDay(Substring(value)) else {
          throw fail("UNTIL must be YYYYMMDD or YYYYMMDDTHHMMSS[Z]")
        }
        until = day
      case "BYDAY":
        byDay = try list.map { item in
          guard let entry = Self.weekdayNumber(item) else {
            throw fail("BYDAY value '\(item)' is not a weekday (MO...SU, optionally after an ordinal such as 1 or -1)")
          }
          return entry
        }
      case "BYMONTHDAY": byMonthDay = try integers(-31...31, nonZero: true)
      case "BYMONTH": byMonth = try integers(1...12, nonZero: true)
      case "BYSETPOS": bySetPos = try integers(-366...366, nonZero: true)
      case "WKST":
        guard Self.weekdayCodes.contains(value) else { throw fail("WKST must be one of MO, TU, WE, TH, FR, SA, SU") }
      case "BYHOUR", "BYMINUTE", "BYSECOND", "BYWEEKNO", "BYYEARDAY", "BYEASTER", "RSCALE", "SKIP":
        throw fail("\(key) is not supported")
      default:
        throw fail("unknown part \(key)")
      }
    }
    guard let frequency else { throw fail("FREQ is missing") }
    if count != nil, until != nil { throw fail("COUNT and UNTIL cannot both be given") }
    if frequency == .daily || frequency == .weekly, byDay.contains(where: { $0.ordinal != nil }) {
      throw fail("BYDAY ordinals such as 1MO need FREQ=MONTHLY or YEARLY")
    }
    if frequency == .weekly, !byMonthDay.isEmpty { throw fail("BYMONTHDAY cannot be used with FREQ=WEEKLY") }
    if !bySetPos.isEmpty, byDay.isEmpty, byMonthDay.isEmpty, byMonth.isEmpty {
      throw fail("BYSETPOS needs BYDAY, BYMONTHDAY or BYMONTH")
    }
    self.init(
      frequency: frequency, interval: interval, byDay: byDay, byMonthDay: byMonthDay, byMonth: byMonth,
      bySetPos: bySetPos, count: count, until: until, start: start)
  }

  /// A decimal integer with an optional sign, at most nine digits (larger means nothing to a calendar).
  static func integer(_ text: some StringProtocol) -> Int? {
    var digits = Substring(text)
    var sign = 1
    if digits.first == "+" || digits.first == "-" {
      sign = digits.first == "-" ? -1 : 1
      digits = digits.dropFirst()
    }
    guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(digits)
    else { return nil }
    return sign * value
  }

  /// `YYYYMMDD`, optionally followed by `THHMMSS` and `Z` (the time is dropped: rules here step by days).
  static func basicDay(_ text: Substring) -> Day? {
    guard text.count >= 8 else { return nil }
    let date = text.prefix(8)
    let rest = text.dropFirst(8)
    guard date.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
    if !rest.isEmpty {
      var time = rest
      if time.last == "Z" { time = time.dropLast() }
      guard time.count == 7, time.first == "T", time.dropFirst().allSatisfy({ ("0"..."9").contains($0) }) else {
        return nil
      }
    }
    guard let year = Int(date.prefix(4)), let month = Int(date.dropFirst(4).prefix(2)), let day = Int(date.suffix(2))
    else { return nil }
    return Day(year: year, month: month, day: day)
  }

  /// `MO`, `1MO`, `+2TU`, `-1FR`.
  static func weekdayNumber(_ text: String) -> WeekdayNumber? {
    guard text.count >= 2, let weekday = weekdayCodes.firstIndex(of: String(text.suffix(2))) else { return nil }
    let prefix = text.dropLast(2)
    if prefix.isEmpty { return WeekdayNumber(weekday: weekday + 1) }
    guard let ordinal = integer(prefix), (-53...53).contains(ordinal), ordinal != 0 else { return nil }
    return WeekdayNumber(ordinal: ordinal, weekday: weekday + 1)
  }

  // MARK: - Writing

  /// The canonical RRULE, without DTSTART: FREQ first, then INTERVAL (only when > 1), BYMONTH, BYMONTHDAY, BYDAY,
  /// BYSETPOS, COUNT, UNTIL (`YYYYMMDD`), e.g. `FREQ=WEEKLY;INTERVAL=2;BYDAY=MO`. Lists keep their order.
  public var rrule: String {
    var parts = ["FREQ=" + frequency.rawValue]
    if interval > 1 { parts.append("INTERVAL=\(interval)") }
    if !byMonth.isEmpty { parts.append("BYMONTH=" + byMonth.map(String.init).joined(separator: ",")) }
    if !byMonthDay.isEmpty { parts.append("BYMONTHDAY=" + byMonthDay.map(String.init).joined(separator: ",")) }
    if !byDay.isEmpty { parts.append("BYDAY=" + byDay.map(Self.code).joined(separator: ",")) }
    if !bySetPos.isEmpty { parts.append("BYSETPOS=" + bySetPos.map(String.init).joined(separator: ",")) }
    if let count { parts.append("COUNT=\(count)") }
    if let until {
      parts.append(
        "UNTIL=" + CivilTime.pad(until.year, 4) + CivilTime.pad(until.month, 2) + CivilTime.pad(until.day, 2))
    }
    return parts.joined(separator: ";")
  }

  /// The canonical RRULE.
  public var description: String { rrule }

  static func code(_ entry: WeekdayNumber) -> String {
    let code = (1...7).contains(entry.weekday) ? weekdayCodes[entry.weekday - 1] : "MO"
    return (entry.ordinal.map(String.init) ?? "") + code
  }

  /// Human text that `parse(userText:)` reads back to the same rule (DTSTART aside): "every 2 weeks on Monday",
  /// "every day", "every weekday", "every month on the last Friday". A rule the phrases cannot say (COUNT, UNTIL,
  /// most BYSETPOS) is given as its RRULE, which `parse(userText:)` reads too.
  public var summary: String { humanText ?? rrule }

  private var humanText: String? {
    guard count == nil, until == nil, interval >= 1 else { return nil }
    guard byDay.allSatisfy({ (1...7).contains($0.weekday) }) else { return nil }
    let plainDays = byDay.allSatisfy { $0.ordinal == nil }
    let dayNames = byDay.map { Self.weekdayNames[$0.weekday - 1] }
    func every(_ unit: String) -> String { interval == 1 ? "every \(unit)" : "every \(interval) \(unit)s" }
    func list(_ items: [String]) -> String {
      guard items.count > 1 else { return items.first ?? "" }
      return items.dropLast().joined(separator: ", ") + " and " + (items.last ?? "")
    }
    func ordinalWeekday(_ entry: WeekdayNumber) -> String? {
      guard let ordinal = entry.ordinal, (1...53).contains(ordinal) || ordinal == -1 else { return nil }
      return "the " + Self.ordinalText(ordinal) + " " + Self.weekdayNames[entry.weekday - 1]
    }
    switch frequency {
    case .daily:
      guard byDay.isEmpty, byMonthDay.isEmpty, byMonth.isEmpty, bySetPos.isEmpty else { return nil }
      return every("day")
    case .weekly:
      guard byMonthDay.isEmpty, byMonth.isEmpty, bySetPos.isEmpty, plainDays else { return nil }
      if byDay.isEmpty { return every("week") }
      let weekdays = byDay.map(\.weekday)
      if interval == 1, weekdays == [1, 2, 3, 4, 5] { return "every weekday" }
      if interval == 1, weekdays == [6, 7] { return "every weekend" }
      return every("week") + " on " + list(dayNames)
    case .monthly:
      guard byMonth.isEmpty else { return nil }
      if byDay.isEmpty, byMonthDay.isEmpty, bySetPos.isEmpty { return every("month") }
      if byDay.isEmpty, bySetPos.isEmpty, byMonthDay.allSatisfy({ (1...31).contains($0) || $0 == -1 }) {
        return every("month") + " on " + list(byMonthDay.map { "the " + Self.ordinalText($0) })
      }
      if byMonthDay.isEmpty, bySetPos.isEmpty, !plainDays {
        let phrases = byDay.compactMap(ordinalWeekday)
        guard phrases.count == byDay.count else { return nil }
        return every("month") + " on " + list(phrases)
      }
      if byMonthDay.isEmpty, byDay.map(\.weekday) == [1, 2, 3, 4, 5], plainDays, bySetPos.count == 1,
        let position = bySetPos.first, position > 0 || position == -1
      {
        return every("month") + " on the " + Self.ordinalText(position) + " weekday"
      }
      return nil
    case .yearly:
      if byDay.isEmpty, byMonthDay.isEmpty, byMonth.isEmpty, bySetPos.isEmpty { return every("year") }
      guard byMonth.count == 1, let month = byMonth.first, (1...12).contains(month), bySetPos.isEmpty else {
        return nil
      }
      let monthName = Self.monthNames[month - 1]
      if byDay.isEmpty, byMonthDay.count == 1, let day = byMonthDay.first, (1...31).contains(day) {
        return every("year") + " on \(monthName) \(day)"
      }
      if byMonthDay.isEmpty, byDay.count == 1, let entry = byDay.first, let phrase = ordinalWeekday(entry) {
        return every("year") + " on " + phrase + " of " + monthName
      }
      return nil
    }
  }

  /// `1st`, `2nd`, `3rd`, `11th`, `22nd`; -1 is `last`.
  static func ordinalText(_ number: Int) -> String {
    if number == -1 { return "last" }
    let suffix: String
    switch (number % 100, number % 10) {
    case (11...13, _): suffix = "th"
    case (_, 1): suffix = "st"
    case (_, 2): suffix = "nd"
    case (_, 3): suffix = "rd"
    default: suffix = "th"
    }
    return "\(number)\(suffix)"
  }

  // MARK: - Reading what a person types

  /// What a person types: an RRULE, or `daily`, `weekly`, `monthly`, `yearly`, `weekdays`, `every day`,
  /// `every 3 days`, `every 2 weeks`, `every month`, `every year`, `every weekday` (MO–FR), `every weekend`,
  /// `every monday`, `every mon, wed and fri`, `every week on Monday`, `every week on Tuesday, Friday`,
  /// `every 2 weeks on monday`, `every month on the 15th`, `every month on the last` (BYMONTHDAY=-1),
  /// `every month on the last friday` (BYDAY=-1FR), `every month on the 2nd tuesday`, `every month on the last
  /// weekday`, `every year on december 25` / `every january 1`, `every year on the 4th thursday of november`, and
  /// Obsidian Tasks' `🔁` text ("every week", "every 2 days", "every month on the 1st", "every 3 months on the
  /// 15th"), optionally followed by "when done". Returns the rule and the anchor ("when done" → .completion, else
  /// nil meaning "not said").
  public static func parse(userText: String) throws -> (rule: Recurrence, anchor: RecurrenceAnchor?) {
    var text = userText.trimmingWhitespacesAndNewlines()
    if text.hasPrefix("🔁") { text = String(text.dropFirst()).trimmingWhitespaces() }
    var anchor: RecurrenceAnchor?
    var words = text.lowercased().split(whereSeparator: { $0.isWhitespace || $0 == "," }).map(String.init)
    if words.count >= 2, words[words.count - 2] == "when", words[words.count - 1] == "done" {
      anchor = .completion
      words.removeLast(2)
    }
    let upper = text.uppercased()
    if upper.hasPrefix("FREQ=") || upper.hasPrefix("RRULE:") || upper.hasPrefix("DTSTART") {
      var rruleText = text
      if anchor != nil, let range = rruleText.range(of: "when done", options: [.caseInsensitive, .backwards]) {
        rruleText = String(rruleText[..<range.lowerBound]).trimmingWhitespaces()
      }
      return (try Recurrence(rrule: rruleText), anchor)
    }
    guard let rule = phraseRule(words) else {
      throw RecurrenceError(
        text: userText,
        message: "not a repeat nb reads; try 'every day', 'every 2 weeks on monday', 'every month on the 15th', "
          + "'every year on december 25' or an RRULE such as FREQ=WEEKLY;BYDAY=MO")
    }
    return (rule, anchor)
  }

  /// A rule from lower-case words (commas already gone), or nil.
  private static func phraseRule(_ words: [String]) -> Recurrence? {
    switch words {
    case ["daily"]: return Recurrence(frequency: .daily)
    case ["weekly"]: return Recurrence(frequency: .weekly)
    case ["monthly"]: return Recurrence(frequency: .monthly)
    case ["yearly"], ["annually"]: return Recurrence(frequency: .yearly)
    case ["weekdays"]: return Recurrence(frequency: .weekly, byDay: (1...5).map { WeekdayNumber(weekday: $0) })
    case ["weekends"]: return Recurrence(frequency: .weekly, byDay: (6...7).map { WeekdayNumber(weekday: $0) })
    default: break
    }
    guard words.first == "every", words.count >= 2 else { return nil }
    var rest = words.dropFirst()
    var interval = 1
    var explicitInterval = false
    if let first = rest.first, let number = integer(first), first.allSatisfy({ ("0"..."9").contains($0) }) {
      guard number >= 1 else { return nil }
      interval = number
      explicitInterval = true
      rest = rest.dropFirst()
    } else if rest.first == "other" {
      interval = 2
      explicitInterval = true
      rest = rest.dropFirst()
    }
    guard let unit = rest.first else { return nil }
    rest = rest.dropFirst()
    var rule: Recurrence
    // "every 3 days" wants a plural, "every day" a singular; either is accepted, as people type both.
    switch unit {
    case "day", "days": rule = Recurrence(frequency: .daily)
    case "week", "weeks": rule = Recurrence(frequency: .weekly)
    case "month", "months": rule = Recurrence(frequency: .monthly)
    case "year", "years": rule = Recurrence(frequency: .yearly)
    case "weekday", "weekdays":
      guard !explicitInterval, rest.isEmpty else { return nil }
      return Recurrence(frequency: .weekly, byDay: (1...5).map { WeekdayNumber(weekday: $0) })
    case "weekend", "weekends":
      guard !explicitInterval, rest.isEmpty else { return nil }
      return Recurrence(frequency: .weekly, byDay: (6...7).map { WeekdayNumber(weekday: $0) })
    default:
      // "every monday", "every mon, wed and fri": weekly on those days; "every january 1": yearly.
      if weekdayNumber(plural: unit) != nil {
        rule = Recurrence(frequency: .weekly)
        rest = words.dropFirst(explicitInterval ? 2 : 1)
      } else if monthNumber(unit) != nil {
        rule = Recurrence(frequency: .yearly)
        rest = words.dropFirst(explicitInterval ? 2 : 1)
      } else {
        return nil
      }
    }
    rule.interval = interval
    guard fill(&rule, from: Array(rest)) else { return nil }
    return rule
  }

  /// Reads "on the 2nd tuesday", "on monday and friday", "on december 25", "the last weekday", "in january on the
  /// 1st" into `rule`'s BY* parts; false when a word does not fit the rule's frequency.
  private static func fill(_ rule: inout Recurrence, from words: [String]) -> Bool {
    var index = 0
    var sawWeekdayWord = false
    while index < words.count {
      let word = words[index]
      index += 1
      switch word {
      case "on", "the", "and", "of", "in", "&": continue
      default: break
      }
      if let weekday = weekdayNumber(plural: word) {
        rule.byDay.append(WeekdayNumber(weekday: weekday))
        continue
      }
      if let month = monthNumber(word) {
        rule.byMonth.append(month)
        continue
      }
      if let ordinal = ordinalNumber(word) {
        // An ordinal names a weekday, a weekday of the month (BYSETPOS), or a day of the month.
        let next = index < words.count ? words[index] : nil
        if let next, let weekday = weekdayNumber(plural: next) {
          guard ordinal <= 53 else { return false }
          rule.byDay.append(WeekdayNumber(ordinal: ordinal, weekday: weekday))
          index += 1
        } else if next == "weekday" {
          guard !sawWeekdayWord else { return false }
          sawWeekdayWord = true
          rule.byDay.append(contentsOf: (1...5).map { WeekdayNumber(weekday: $0) })
          rule.bySetPos.append(ordinal)
          index += 1
        } else {
          guard (-31...31).contains(ordinal) else { return false }
          rule.byMonthDay.append(ordinal)
          if next == "day" { index += 1 }
        }
        continue
      }
      return false
    }
    switch rule.frequency {
    case .daily:
      return rule.byDay.isEmpty && rule.byMonthDay.isEmpty && rule.byMonth.isEmpty && rule.bySetPos.isEmpty
    case .weekly:
      return rule.byMonthDay.isEmpty && rule.byMonth.isEmpty && rule.bySetPos.isEmpty
        && rule.byDay.allSatisfy { $0.ordinal == nil }
    case .monthly:
      return rule.byMonth.isEmpty
    case .yearly:
      // "every year on the 15th" alone would mean the 15th of every month; say which month.
      return rule.byMonth.count <= 1 && (!rule.byMonth.isEmpty || (rule.byDay.isEmpty && rule.byMonthDay.isEmpty))
    }
  }

  /// `monday`, `mon`, `mondays`.
  private static func weekdayNumber(plural word: String) -> Int? {
    if let weekday = DateArgument.weekday(named: word) { return weekday }
    guard word.hasSuffix("s") else { return nil }
    return DateArgument.weekday(named: String(word.dropLast()))
  }

  /// `january`, `jan`, `sept`.
  private static func monthNumber(_ word: String) -> Int? {
    if word == "sept" { return 9 }
    for (index, name) in monthNames.enumerated() {
      let lower = name.lowercased()
      if word == lower || (word.count == 3 && lower.hasPrefix(word)) { return index + 1 }
    }
    return nil
  }

  /// `1st`, `22nd`, `15th`, `15`, `first` … `fifth`, `last`.
  private static func ordinalNumber(_ word: String) -> Int? {
    switch word {
    case "first": return 1
    case "second": return 2
    case "third": return 3
    case "fourth": return 4
    case "fifth": return 5
    case "last": return -1
    default: break
    }
    var digits = Substring(word)
    if ["st", "nd", "rd", "th"].contains(where: { word.hasSuffix($0) }) { digits = digits.dropLast(2) }
    guard !digits.isEmpty, digits.count <= 2, digits.allSatisfy({ ("0"..."9").contains($0) }), let number = Int(digits),
      number >= 1
    else { return nil }
    return number
  }
}

// MARK: - Occurrences

extension Recurrence {
  /// The first occurrence strictly after `day`, for a series whose first occurrence is `seriesStart` (DTSTART: gives
  /// the implied weekday/month-day/month when BY* parts are absent, and where COUNT counts from). Nil when COUNT or
  /// UNTIL ended the series, or when the rule produces no further day at all (`BYMONTH=2;BYMONTHDAY=31`).
  ///
  /// Periods (years, months, weeks, days) are visited one at a time, never day by day through longer periods. The
  /// Gregorian calendar repeats every 400 years, so a rule that yields nothing in 400 years' worth of periods never
  /// will; that bounds the search. Counting COUNT from a start more than a few million periods back gives nil.
  public func next(after day: Day, seriesStart: Day) -> Day? {
    if let count, count < 1 { return nil }
    // Intervals beyond what the parser accepts would overflow the period arithmetic: treat as no repeat at all.
    guard interval <= 1_000_000_000 else { return day < seriesStart ? seriesStart : nil }
    if day < seriesStart {
      if let until, seriesStart > until { return nil }
      return seriesStart
    }
    let expansion = Expansion(rule: self, start: seriesStart)
    // A daily rule's set is one day, which BYSETPOS keeps only as its first or last.
    if frequency == .daily, !expansion.bySetPos.isEmpty, !expansion.bySetPos.contains(1),
      !expansion.bySetPos.contains(-1)
    {
      return nil
    }
    let dayNumber = day.dayNumber
    let untilNumber = until?.dayNumber
    let cycle: Int64
    switch frequency {
    case .yearly: cycle = 400
    case .monthly: cycle = 4800
    case .weekly: cycle = 20_871
    case .daily: cycle = 146_097
    }
    guard let count else {
      // Without COUNT nothing before `day` matters: start at the period holding it.
      let interval = Int64(expansion.interval)
      let firstPeriod = CivilTime.floorDiv(expansion.periodIndex(of: dayNumber), interval) * interval
      return expansion.scan(from: firstPeriod, maxSteps: cycle + 1, untilNumber: untilNumber) { day in
        day > dayNumber ? .stop(day) : .goOn
      }
    }
    // COUNT counts from the start, which is occurrence 1 whether or not the rule produces it.
    var seen = 1
    guard seen < count else { return nil }
    let stepsToDay = expansion.periodIndex(of: dayNumber) / Int64(expansion.interval)
    guard stepsToDay < 5_000_000 else { return nil }
    return expansion.scan(from: 0, maxSteps: stepsToDay + cycle + 1, untilNumber: untilNumber) { day in
      guard day > expansion.startNumber else { return .goOn }
      if day > dayNumber { return .stop(day) }
      seen += 1
      return seen >= count ? .stop(nil) : .goOn
    }
  }
}

/// A rule's values made safe to compute with (out-of-range entries dropped), bound to a series start.
private struct Expansion {
  enum Verdict {
    case goOn
    case stop(Int64?)
  }

  let frequency: Recurrence.Frequency
  let interval: Int
  let byDay: [Recurrence.WeekdayNumber]
  let byMonthDay: [Int]
  let byMonth: Set<Int>
  let byMonthList: [Int]
  let bySetPos: [Int]
  let start: Day
  let startNumber: Int64
  let startMonday: Int64

  init(rule: Recurrence, start: Day) {
    frequency = rule.frequency
    interval = max(1, rule.interval)
    byDay = rule.byDay.filter { (1...7).contains($0.weekday) && ($0.ordinal.map { (-53...53).contains($0) } ?? true) }
      .map { $0.ordinal == 0 ? Recurrence.WeekdayNumber(weekday: $0.weekday) : $0 }
    byMonthDay = rule.byMonthDay.filter { (-31...31).contains($0) && $0 != 0 }
    byMonthList = rule.byMonth.filter { (1...12).contains($0) }
    byMonth = Set(byMonthList)
    bySetPos = rule.bySetPos.filter { (-366...366).contains($0) && $0 != 0 }
    self.start = start
    startNumber = start.dayNumber
    startMonday = startNumber - Int64(start.weekday - 1)
  }

  /// Which period (year, month, week or day, counted from the start's) holds the day numbered `dayNumber`.
  func periodIndex(of dayNumber: Int64) -> Int64 {
    let civil = CivilTime.civil(fromDays: dayNumber)
    switch frequency {
    case .yearly: return Int64(civil.year - start.year)
    case .monthly: return Int64((civil.year - start.year) * 12 + civil.month - start.month)
    case .weekly: return CivilTime.floorDiv(dayNumber - startMonday, 7)
    case .daily: return dayNumber - startNumber
    }
  }

  /// Visits the occurrences (not before the start) of periods `first`, `first + interval`, … in order, for at most
  /// `maxSteps` periods, until `visit` stops; an occurrence after `untilNumber` ends the series.
  func scan(from first: Int64, maxSteps: Int64, untilNumber: Int64?, visit: (Int64) -> Verdict) -> Day? {
    var period = first
    var steps: Int64 = 0
    let step = Int64(interval)
    while steps < maxSteps {
      steps += 1
      let (periodStart, days) = occurrences(inPeriod: period)
      if let untilNumber, periodStart > untilNumber { return nil }
      for day in days where day >= startNumber {
        if let untilNumber, day > untilNumber { return nil }
        switch visit(day) {
        case .goOn: continue
        case .stop(let found): return found.map { Day(dayNumber: $0) }
        }
      }
      if frequency == .daily, !byMonth.isEmpty, !byMonth.contains(CivilTime.civil(fromDays: periodStart).month) {
        // A daily rule limited to some months: jump to the first period of the next month rather than test each day.
        let civil = CivilTime.civil(fromDays: periodStart)
        let nextMonth =
          civil.month == 12
          ? CivilTime.days(year: civil.year + 1, month: 1, day: 1)
          : CivilTime.days(year: civil.year, month: civil.month + 1, day: 1)
        let ahead = nextMonth - startNumber
        period = max(period + step, (ahead + step - 1) / step * step)
      } else {
        period += step
      }
    }
    return nil
  }

  /// The first day of period `index` and its occurrences, sorted, BYSETPOS applied.
  func occurrences(inPeriod index: Int64) -> (start: Int64, days: [Int64]) {
    switch frequency {
    case .yearly:
      let year = start.year + Int(index)
      return (CivilTime.days(year: year, month: 1, day: 1), selected(yearDays(year)))
    case .monthly:
      let monthIndex = Int64(start.year) * 12 + Int64(start.month - 1) + index
      let year = Int(CivilTime.floorDiv(monthIndex, 12))
      let month = Int(monthIndex - Int64(year) * 12) + 1
      return (CivilTime.days(year: year, month: month, day: 1), selected(monthDays(year: year, month: month)))
    case .weekly:
      let monday = startMonday + index * 7
      let weekdays = byDay.isEmpty ? [start.weekday] : byDay.map(\.weekday)
      let days = weekdays.map { monday + Int64($0 - 1) }.filter { monthAllowed($0) && monthDayAllowed($0) }
      return (monday, selected(days))
    case .daily:
      let day = startNumber + index
      let weekday = Int(((day + 3) % 7 + 7) % 7) + 1
      let matches =
        monthAllowed(day) && monthDayAllowed(day)
        && (byDay.isEmpty || byDay.contains { $0.weekday == weekday })
      // Each day is its own set: BYSETPOS keeps it only as the first or last of one.
      let kept = bySetPos.isEmpty || bySetPos.contains(1) || bySetPos.contains(-1)
      return (day, matches && kept ? [day] : [])
    }
  }

  private func yearDays(_ year: Int) -> [Int64] {
    if byDay.isEmpty, byMonthDay.isEmpty {
      // Month and day implied by the start: clamped (Feb 29 → Feb 28 in common years).
      return (byMonthList.isEmpty ? [start.month] : byMonthList).map { month in
        CivilTime.days(year: year, month: month, day: min(start.day, CivilTime.daysInMonth(year: year, month: month)))
      }
    }
    if !byDay.isEmpty {
      var days: [Int64] = []
      if byMonthList.isEmpty {
        days = weekdays(
          from: CivilTime.days(year: year, month: 1, day: 1), to: CivilTime.days(year: year, month: 12, day: 31))
      } else {
        for month in byMonthList {
          days += weekdays(
            from: CivilTime.days(year: year, month: month, day: 1),
            to: CivilTime.days(year: year, month: month, day: CivilTime.daysInMonth(year: year, month: month)))
        }
      }
      return days.filter(monthDayAllowed)
    }
    return (byMonthList.isEmpty ? Array(1...12) : byMonthList).flatMap { explicitMonthDays(year: year, month: $0) }
  }

  private func monthDays(year: Int, month: Int) -> [Int64] {
    guard byMonth.isEmpty || byMonth.contains(month) else { return [] }
    let length = CivilTime.daysInMonth(year: year, month: month)
    if byDay.isEmpty, byMonthDay.isEmpty {
      // Day implied by the start: clamped, and each month aims for the start's day again.
      return [CivilTime.days(year: year, month: month, day: min(start.day, length))]
    }
    if !byDay.isEmpty {
      let first = CivilTime.days(year: year, month: month, day: 1)
      return weekdays(from: first, to: first + Int64(length - 1)).filter(monthDayAllowed)
    }
    return explicitMonthDays(year: year, month: month)
  }

  /// BYMONTHDAY's days in a month; a day the month lacks (the 31st of April) is skipped, as RFC 5545 says.
  private func explicitMonthDays(year: Int, month: Int) -> [Int64] {
    let length = CivilTime.daysInMonth(year: year, month: month)
    return byMonthDay.compactMap { value in
      let day = value > 0 ? value : length + 1 + value
      guard (1...length).contains(day) else { return nil }
      return CivilTime.days(year: year, month: month, day: day)
    }
  }

  /// BYDAY's days between two day numbers (inclusive): every such weekday, or the nth (from the end when negative).
  private func weekdays(from first: Int64, to last: Int64) -> [Int64] {
    func weekday(_ day: Int64) -> Int { Int(((day + 3) % 7 + 7) % 7) + 1 }
    var days: [Int64] = []
    for entry in byDay {
      let firstMatch = first + Int64((entry.weekday - weekday(first) + 7) % 7)
      let lastMatch = last - Int64((weekday(last) - entry.weekday + 7) % 7)
      switch entry.ordinal {
      case nil:
        days += stride(from: firstMatch, through: last, by: 7)
      case let ordinal? where ordinal > 0:
        let day = firstMatch + Int64(ordinal - 1) * 7
        if day <= last { days.append(day) }
      case let ordinal?:
        let day = lastMatch - Int64(-ordinal - 1) * 7
        if day >= first { days.append(day) }
      }
    }
    return days
  }

  private func monthAllowed(_ day: Int64) -> Bool {
    byMonth.isEmpty || byMonth.contains(CivilTime.civil(fromDays: day).month)
  }

  private func monthDayAllowed(_ day: Int64) -> Bool {
    guard !byMonthDay.isEmpty else { return true }
    let civil = CivilTime.civil(fromDays: day)
    let length = CivilTime.daysInMonth(year: civil.year, month: civil.month)
    return byMonthDay.contains(civil.day) || byMonthDay.contains(civil.day - length - 1)
  }

  /// Sorted, without repeats, and only the BYSETPOS positions when given.
  private func selected(_ days: [Int64]) -> [Int64] {
    let sorted = Array(Set(days)).sorted()
    guard !bySetPos.isEmpty else { return sorted }
    let picked = bySetPos.compactMap { position -> Int64? in
      let index = position > 0 ? position - 1 : sorted.count + position
      return sorted.indices.contains(index) ? sorted[index] : nil
    }
    return Array(Set(picked)).sorted()
  }
}

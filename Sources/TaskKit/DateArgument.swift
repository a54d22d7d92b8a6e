import Foundation
import TextFormat

/// A date argument nb could not read.
public struct DateArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The argument as typed.
  public var argument: String
  /// One line naming the argument and listing the forms nb reads.
  public var description: String

  /// The error for `argument`.
  public init(argument: String) {
    self.argument = argument
    // An argument pasted with a line break must not break the one-line message.
    let shown = argument.split(whereSeparator: \.isNewline).joined(separator: " ")
    description = "unrecognised date '\(shown)'; use \(DateArgument.acceptedForms)"
  }
}

/// What a user types for a date on the command line: `2026-12-01`, `tomorrow`, `fri 9:00`, `+2w`.
public enum DateArgument {
  /// The accepted forms, for help text and errors.
  public static let acceptedForms =
    "YYYY-MM-DD, YYYY-MM-DDTHH:MM, today, tomorrow, yesterday, a weekday (mon, friday: the next one), +3d, +2w, "
    + "+1m, +1y, -30d, a time (9:00, 17:30, 9am, 5:30pm) alone or after a day (fri 9:00, tomorrow 17:30)"

  /// Parses a date argument, relative to `now` in `timeZone`. Case-insensitive, surrounding blanks ignored.
  ///
  /// A day alone gives `.day`; a time (alone: today) gives `.dateTime` with the offset `timeZone` has at that
  /// wall-clock time. A weekday names the next such day strictly after today (`tue` on a Tuesday is a week away);
  /// `+1m` and `+1y` move by calendar months and years, clamped to the month's end (Jan 31 +1m is Feb 28 or 29).
  /// A time a DST jump skips (02:30 on a spring-forward night) gets the offset from before the jump, so it names the
  /// instant after the jump that `LocalTime.instant` picks (03:30 summer time) rather than one an hour earlier.
  public static func parse(_ text: String, now: Date, timeZone: TimeZone) throws -> TaskDate {
    let trimmed = text.trimmingWhitespacesAndNewlines()
    // ISO forms first: TaskDate reads `2026-12-01`, `2026-12-01T09:00`, `2026-12-01 09:00:30+01:00`.
    if let date = TaskDate(text: trimmed) {
      switch date {
      case .day:
        return date
      case .dateTime(let day, let hour, let minute, let second, let offset):
        if offset != nil { return date }
        return dateTime(day, hour: hour, minute: minute, second: second, in: timeZone)
      }
    }
    var words = trimmed.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
    // `9 am` is `9am`.
    if words.count >= 2, ["am", "pm"].contains(words[words.count - 1]) {
      let suffix = words.removeLast()
      words[words.count - 1] += suffix
    }
    let today = Day(now, in: timeZone)
    guard let last = words.last else { throw DateArgumentError(argument: text) }
    if let time = parseTime(last) {
      let dayWords = words.dropLast()
      let day: Day?
      if dayWords.isEmpty {
        day = today
      } else if dayWords.count == 1, let iso = Day(iso: dayWords[dayWords.startIndex]) {
        day = iso
      } else {
        day = parseDay(Array(dayWords), today: today)
      }
      guard let day else { throw DateArgumentError(argument: text) }
      return dateTime(day, hour: time.hour, minute: time.minute, second: 0, in: timeZone)
    }
    guard let day = parseDay(words, today: today) else { throw DateArgumentError(argument: text) }
    return .day(day)
  }

  /// `day` at a wall-clock time in `timeZone`, with the offset that makes it the instant `LocalTime.instant` picks.
  private static func dateTime(_ day: Day, hour: Int, minute: Int, second: Int, in timeZone: TimeZone) -> TaskDate {
    let offset = LocalTime.offset(day: day, hour: hour, minute: minute, second: second, in: timeZone)
    return .dateTime(day, hour: hour, minute: minute, second: second, offsetSeconds: offset)
  }

  /// The ISO weekday (1 Monday … 7 Sunday) a name or abbreviation means, lower case.
  static func weekday(named name: String) -> Int? {
    switch name {
    case "mon", "monday": return 1
    case "tue", "tues", "tuesday": return 2
    case "wed", "weds", "wednesday": return 3
    case "thu", "thur", "thurs", "thursday": return 4
    case "fri", "friday": return 5
    case "sat", "saturday": return 6
    case "sun", "sunday": return 7
    default: return nil
    }
  }

  /// A day form in lower-case words: `today`, `tomorrow`, `yesterday`, a weekday, `next` weekday, `+3d`, an ISO day.
  private static func parseDay(_ words: [String], today: Day) -> Day? {
    if words.count == 2, words[0] == "next", let weekday = weekday(named: words[1]) {
      return nextWeekday(weekday, after: today)
    }
    guard words.count == 1 else { return nil }
    let word = words[0]
    switch word {
    case "today": return today
    case "tomorrow": return today.adding(days: 1)
    case "yesterday": return today.adding(days: -1)
    default: break
    }
    if let weekday = weekday(named: word) { return nextWeekday(weekday, after: today) }
    if let day = Day(iso: word) { return day }
    return parseOffset(word, from: today)
  }

  /// The first day after `day` (never `day` itself) that falls on `weekday`.
  private static func nextWeekday(_ weekday: Int, after day: Day) -> Day {
    let ahead = (weekday - day.weekday + 7) % 7
    return day.adding(days: ahead == 0 ? 7 : ahead)
  }

  /// `+3d`, `-2w`, `1m`, `+1y`: a signed count (no sign is +) and a unit.
  private static func parseOffset(_ word: String, from today: Day) -> Day? {
    var body = Substring(word)
    var sign = 1
    if body.first == "+" || body.first == "-" {
      sign = body.first == "-" ? -1 : 1
      body = body.dropFirst()
    }
    guard let unit = body.last else { return nil }
    let digits = body.dropLast()
    // Six digits reach far enough (a million days is 2 700 years) and keep every sum below overflow.
    guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ ("0"..."9").contains($0) }), let count = Int(digits)
    else { return nil }
    let amount = sign * count
    switch unit {
    case "d": return today.adding(days: amount)
    case "w": return today.adding(days: amount * 7)
    case "m": return adding(months: amount, to: today)
    case "y": return adding(months: amount * 12, to: today)
    default: return nil
    }
  }

  /// `day` moved by calendar months, its day of month clamped to the target month's length.
  static func adding(months: Int, to day: Day) -> Day? {
    let index = day.year * 12 + (day.month - 1) + months
    let year = Int(CivilTime.floorDiv(Int64(index), 12))
    let month = index - year * 12 + 1
    return Day(year: year, month: month, day: min(day.day, CivilTime.daysInMonth(year: year, month: month)))
  }

  /// `9:00`, `17:30`, `9am`, `9:15pm`, `12am` (midnight), `12pm` (noon); nil for anything else or an impossible time.
  private static func parseTime(_ word: String) -> (hour: Int, minute: Int)? {
    var body = Substring(word)
    var meridiem: String?
    if body.hasSuffix("am") || body.hasSuffix("pm") {
      meridiem = String(body.suffix(2))
      body = body.dropLast(2)
    }
    let pieces = body.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...2).contains(pieces.count), (meridiem != nil || pieces.count == 2) else { return nil }
    func number(_ piece: Substring, maxDigits: Int) -> Int? {
      guard !piece.isEmpty, piece.count <= maxDigits, piece.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
      return Int(piece)
    }
    guard let hour = number(pieces[0], maxDigits: 2) else { return nil }
    var minute = 0
    if pieces.count == 2 {
      guard pieces[1].count == 2, let value = number(pieces[1], maxDigits: 2), value < 60 else { return nil }
      minute = value
    }
    if let meridiem {
      guard (1...12).contains(hour) else { return nil }
      return (hour % 12 + (meridiem == "pm" ? 12 : 0), minute)
    }
    guard hour < 24 else { return nil }
    return (hour, minute)
  }
}

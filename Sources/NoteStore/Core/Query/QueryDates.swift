import Foundation
import TextFormat

/// Reads the condition after `created:` or `updated:` into a ``DateRange``.
///
/// Day arithmetic goes through a Gregorian `Calendar` in the query's time zone, so a day is the local day even when it
/// is 23 or 25 hours long.
struct QueryDateParser {
  /// A date as written: a whole local day or an exact instant.
  enum Point: Equatable {
    /// From `start` up to (not including) `next`, the start of the following day.
    case day(start: Date, next: Date)
    /// An exact moment, from a date-time.
    case instant(Date)
  }

  private enum Comparison: String, CaseIterable {
    // Two-character operators first so `>=` is not read as `>` and `=…`.
    case greaterOrEqual = ">="
    case lessOrEqual = "<="
    case greater = ">"
    case less = "<"
    case equal = "="
  }

  private let lazyCalendar: LazyCalendar
  private let now: Date
  private var calendar: Calendar { lazyCalendar.value }

  /// A parser whose relative dates (`today`, `-7d`) count from `now` in `timeZone`. The zone is asked for, and the
  /// calendar made, when a date is first read: most queries have none (`nb list work`), and finding the process's
  /// zone and making a calendar in it costs such a listing more than parsing its query.
  init(now: Date, timeZone: @escaping @autoclosure () -> TimeZone) {
    lazyCalendar = LazyCalendar {
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = timeZone()
      return calendar
    }
    self.now = now
  }

  /// A calendar made the first time it is asked for.
  private final class LazyCalendar {
    private let make: () -> Calendar
    lazy var value: Calendar = make()
    init(_ make: @escaping () -> Calendar) { self.make = make }
  }

  /// The date forms, for error messages.
  static let forms =
    "YYYY-MM-DD, a date-time like 2026-01-01T10:00:00Z, today, yesterday, tomorrow, or -7d, -2w, -3m, -1y"

  /// The range `value` names; `column` is where `value` starts in the query, for errors.
  func range(_ value: String, column: Int) throws(QueryError) -> DateRange {
    let comparison = Comparison.allCases.first { value.hasPrefix($0.rawValue) }
    let operand = String(value.dropFirst(comparison?.rawValue.count ?? 0))
    let operandColumn = column + (comparison?.rawValue.count ?? 0)
    if let split = operand.range(of: "..") {
      guard comparison == nil else {
        throw QueryError(
          query: "", column: column, length: value.count,
          message: "use either a comparison (>2026-01-01) or a range (2026-01-01..2026-02-01), not both")
      }
      return try between(
        String(operand[..<split.lowerBound]), String(operand[split.upperBound...]), column: operandColumn)
    }
    guard !operand.isEmpty else {
      throw QueryError(
        query: "", column: column, length: value.count,
        message: "a date is missing after '\(value)'; use \(Self.forms)")
    }
    let point = try self.point(operand, column: operandColumn)
    switch (comparison ?? .equal, point) {
    case (.equal, .day(let start, let next)): return DateRange(lower: start, upper: next)
    case (.equal, .instant(let instant)): return DateRange(lower: instant, upper: instant, upperInclusive: true)
    case (.greater, .day(_, let next)): return DateRange(lower: next)
    case (.greater, .instant(let instant)): return DateRange(lower: instant, lowerInclusive: false)
    case (.greaterOrEqual, .day(let start, _)), (.greaterOrEqual, .instant(let start)): return DateRange(lower: start)
    case (.less, .day(let start, _)), (.less, .instant(let start)): return DateRange(upper: start)
    case (.lessOrEqual, .day(_, let next)): return DateRange(upper: next)
    case (.lessOrEqual, .instant(let instant)): return DateRange(upper: instant, upperInclusive: true)
    }
  }

  /// `first..last`, both included; either side may be empty (open).
  private func between(_ first: String, _ last: String, column: Int) throws(QueryError) -> DateRange {
    let length = first.count + 2 + last.count
    guard !first.isEmpty || !last.isEmpty else {
      throw QueryError(
        query: "", column: column, length: length,
        message: "a range needs a date on at least one side of '..', as in 2026-01-01..2026-02-01")
    }
    var range = DateRange()
    switch first.isEmpty ? nil : try point(first, column: column) {
    case .day(let start, _), .instant(let start): range.lower = start
    case nil: break
    }
    switch last.isEmpty ? nil : try point(last, column: column + first.count + 2) {
    case .day(_, let next): range.upper = next
    case .instant(let instant):
      range.upper = instant
      range.upperInclusive = true
    case nil: break
    }
    if let lower = range.lower, let upper = range.upper,
      lower > upper || (lower == upper && !(range.lowerInclusive && range.upperInclusive))
    {
      throw QueryError(
        query: "", column: column, length: length,
        message: "this range ends before it starts; put the earlier date first, as in 2026-01-01..2026-03-01")
    }
    return range
  }

  /// One date: a day (`2026-01-31`, `today`, `-2w`) or an instant (`2026-01-31T10:00:00Z`).
  func point(_ text: String, column: Int) throws(QueryError) -> Point {
    let malformed = { (message: String) in
      QueryError(query: "", column: column, length: text.count, message: message)
    }
    switch text.lowercased() {
    case "today": return day(containing: now)
    case "yesterday": return day(containing: now, adding: .day, -1)
    case "tomorrow": return day(containing: now, adding: .day, 1)
    default: break
    }
    let characters = Array(text)
    if let ago = relative(characters) {
      return day(containing: now, adding: ago.component, -ago.count)
    }
    guard characters.count >= 10, Self.isDateShaped(characters[0..<10]) else {
      throw malformed("malformed date '\(text)'; use \(Self.forms)")
    }
    guard characters.count > 10 else {
      let year = Self.number(characters[0..<4])
      let month = Self.number(characters[5..<7])
      let day = Self.number(characters[8..<10])
      guard year >= 1, (1...12).contains(month), (1...CivilTime.daysInMonth(year: year, month: month)).contains(day),
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day))
      else {
        throw malformed("no such date '\(text)'; use YYYY-MM-DD with a real month and day")
      }
      return self.day(containing: date)
    }
    guard let parsed = RFC3339.parse(text), "Tt ".contains(characters[10]) else {
      throw malformed(
        "malformed date-time '\(text)'; use RFC 3339, as in 2026-01-01T10:00:00Z or 2026-01-01T10:00+01:00")
    }
    // A time zone follows the time as Z, +hh:mm or -hh:mm; without one the time is local, as a person reads it.
    guard !characters[11...].contains(where: { "Zz+-".contains($0) }) else { return .instant(parsed.date) }
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(secondsFromGMT: 0)!
    var fields = utc.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: parsed.date)
    fields.timeZone = calendar.timeZone
    guard let local = calendar.date(from: fields) else {
      throw malformed("malformed date-time '\(text)'; use RFC 3339, as in 2026-01-01T10:00:00Z")
    }
    return .instant(local)
  }

  /// `-7d`, `-2w`, `-3m`, `-1y` as a calendar component and a count, or nil.
  private func relative(_ characters: [Character]) -> (component: Calendar.Component, count: Int)? {
    // Up to 6 digits keeps the count far from overflow while allowing any plausible past.
    guard characters.count >= 3, characters.count <= 8, characters.first == "-",
      characters.dropFirst().dropLast().allSatisfy({ $0.isASCII && $0.isNumber })
    else { return nil }
    let count = Self.number(characters.dropFirst().dropLast())
    switch characters.last?.lowercased() {
    case "d": return (.day, count)
    case "w": return (.day, count * 7)
    case "m": return (.month, count)
    case "y": return (.year, count)
    default: return nil
    }
  }

  /// The local day holding `date`, moved by `count` of `component` when given.
  private func day(containing date: Date, adding component: Calendar.Component? = nil, _ count: Int = 0) -> Point {
    var start = calendar.startOfDay(for: date)
    if let component, let moved = calendar.date(byAdding: component, value: count, to: start) {
      start = calendar.startOfDay(for: moved)
    }
    // Adding a day keeps the wall-clock time; startOfDay then copes with a day whose midnight does not exist.
    let next = calendar.date(byAdding: .day, value: 1, to: start).map { calendar.startOfDay(for: $0) }
    return .day(start: start, next: next ?? start.addingTimeInterval(86_400))
  }

  private static func isDateShaped(_ characters: ArraySlice<Character>) -> Bool {
    characters.indices.allSatisfy { index in
      let offset = index - characters.startIndex
      return offset == 4 || offset == 7
        ? characters[index] == "-" : characters[index].isASCII && characters[index].isNumber
    }
  }

  private static func number<C: Collection>(_ digits: C) -> Int where C.Element == Character {
    digits.reduce(0) { $0 * 10 + ($1.wholeNumberValue ?? 0) }
  }
}

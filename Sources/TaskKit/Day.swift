import Foundation
import TextFormat

/// A calendar day with no time zone (`2026-12-01`): what a task's `due` names when it has no time.
public struct Day: Hashable, Comparable, Sendable, CustomStringConvertible {
  public let year: Int
  public let month: Int
  public let day: Int

  /// The day, when `month` and `day` exist in `year` (February 30 does not).
  public init?(year: Int, month: Int, day: Int) {
    guard (1...12).contains(month), (1...CivilTime.daysInMonth(year: year, month: month)).contains(day) else {
      return nil
    }
    self.year = year
    self.month = month
    self.day = day
  }

  /// The day numbered `dayNumber` (days since 1970-01-01); clamped to about ±12 billion years.
  public init(dayNumber: Int64) {
    // The civil algorithm overflows near Int64's ends; no note names a day that far out, and a trap is worse.
    let civil = CivilTime.civil(fromDays: min(max(dayNumber, -Day.dayNumberLimit), Day.dayNumberLimit))
    self.year = civil.year
    self.month = civil.month
    self.day = civil.day
  }

  /// Exactly `YYYY-MM-DD`; nil for anything else.
  public init?(iso text: some StringProtocol) {
    let bytes = Array(text.utf8)
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in bytes[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
    self.init(year: year, month: month, day: day)
  }

  /// The day `date` falls on in `timeZone`.
  public init(_ date: Date, in timeZone: TimeZone) {
    let local = CivilTime.wholeSeconds(date) + Int64(timeZone.secondsFromGMT(for: date))
    self.init(dayNumber: CivilTime.floorDiv(local, 86_400))
  }

  /// Days since 1970-01-01.
  public var dayNumber: Int64 { CivilTime.days(year: year, month: month, day: day) }

  /// `YYYY-MM-DD`.
  public var iso: String { CivilTime.pad(year, 4) + "-" + CivilTime.pad(month, 2) + "-" + CivilTime.pad(day, 2) }

  public var description: String { iso }

  /// The day `days` later (earlier when negative).
  public func adding(days: Int) -> Day {
    let (sum, overflow) = dayNumber.addingReportingOverflow(Int64(days))
    return Day(dayNumber: overflow ? (days < 0 ? Int64.min : Int64.max) : sum)
  }

  /// The largest day number `init(dayNumber:)` keeps (its negation the smallest).
  static let dayNumberLimit: Int64 = 1 << 42

  /// ISO weekday: 1 is Monday, 7 is Sunday.
  public var weekday: Int { Int(((dayNumber + 3) % 7 + 7) % 7) + 1 }

  /// The instant this day starts in `timeZone` (its first existing local second, should a DST jump skip midnight).
  public func start(in timeZone: TimeZone) -> Date {
    LocalTime.instant(day: self, hour: 0, minute: 0, second: 0, in: timeZone)
  }

  public static func < (lhs: Day, rhs: Day) -> Bool { lhs.dayNumber < rhs.dayNumber }
}

/// Wall-clock time in a zone to instants and back, without Calendar (whose defaults vary by device).
public enum LocalTime {
  /// The instant at which clocks in `timeZone` show `day` `hour:minute:second`. A time a DST jump skips (02:30 on a
  /// spring-forward night) is taken with the offset from before the jump, so it lands after the jump (03:30), as
  /// calendar apps do; a time that occurs twice takes the first.
  public static func instant(day: Day, hour: Int, minute: Int, second: Int, in timeZone: TimeZone) -> Date {
    let wall = day.dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    // Try the offsets in force a day before and after: one of them is right for any real zone.
    let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall - 86_400)))
    let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall + 86_400)))
    for offset in [before, after] {
      let candidate = Date(timeIntervalSince1970: TimeInterval(wall - Int64(offset)))
      if timeZone.secondsFromGMT(for: candidate) == offset { return candidate }
    }
    return Date(timeIntervalSince1970: TimeInterval(wall - Int64(before)))
  }

  /// The UTC offset to write with `day` `hour:minute:second` so that it names the instant `instant(...)` picks: the
  /// zone's offset then, except for a time a DST jump skips, which keeps the offset from before the jump (02:30+01:00
  /// is 03:30+02:00; the zone's offset after the jump would name 01:30, an hour before the jump).
  static func offset(day: Day, hour: Int, minute: Int, second: Int, in timeZone: TimeZone) -> Int {
    let wall = day.dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    let moment = instant(day: day, hour: hour, minute: minute, second: second, in: timeZone)
    return Int(wall - CivilTime.wholeSeconds(moment))
  }
}

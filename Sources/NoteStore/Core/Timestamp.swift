import Foundation

/// An instant with the UTC offset it was written with (RFC 3339).
///
/// Equality, hashing and ordering look at the instant only (`date`), never at `offsetSeconds`: the format compares
/// instants in UTC, so `10:00+01:00` and `09:00+00:00` are the same moment and must never count as a tie-break.
/// Compare `rfc3339` when the written offset matters.
public struct Timestamp: Equatable, Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The instant.
  public var date: Date
  /// The UTC offset the instant is shown in, in seconds east of UTC.
  public var offsetSeconds: Int

  /// An instant shown with the given UTC offset.
  public init(date: Date, offsetSeconds: Int) {
    self.date = date
    self.offsetSeconds = offsetSeconds
  }

  /// An instant shown with the offset `timeZone` has at that instant (daylight saving time included).
  public init(date: Date, timeZone: TimeZone) {
    self.init(date: date, offsetSeconds: timeZone.secondsFromGMT(for: date))
  }

  /// Parses an RFC 3339 timestamp as people and tools write it in front matter.
  ///
  /// Accepted: `YYYY-MM-DD` (midnight UTC); `YYYY-MM-DD` + `T`/`t`/spaces + `hh:mm[:ss[.fraction]]` + an optional
  /// zone `Z`/`z`/`±hh:mm`/`±hhmm`/`±hh` (spaces before the zone allowed, as in YAML's timestamp type). A date-time
  /// without a zone is taken as UTC so that it has one deterministic meaning on every device. Out-of-range fields
  /// (month 13, February 30, hour 24, offset hour 24) and any trailing text are rejected.
  public init?(rfc3339 text: String) {
    guard let parsed = TimestampParser.parse(Array(text.utf8)) else { return nil }
    self = parsed
  }

  /// The RFC 3339 text, e.g. `2026-11-22T10:15:03+01:00`: whole seconds (fractions are dropped, not rounded, so the
  /// text never names a later second than the instant) and always a numeric offset (`+00:00`, never `Z`).
  ///
  /// An offset that is not a whole number of minutes is shown truncated to minutes, and the wall time is computed
  /// with that shown offset, so the text still names the same instant.
  public var rfc3339: String {
    let offsetMinutes = offsetSeconds / 60
    let seconds = Timestamp.wholeSeconds(date) + Int64(offsetMinutes * 60)
    let days = Timestamp.floorDiv(seconds, 86_400)
    let secondOfDay = Int(seconds - days * 86_400)
    let (year, month, day) = Timestamp.civil(fromDays: days)
    let sign = offsetMinutes < 0 ? "-" : "+"
    let absMinutes = abs(offsetMinutes)
    if (0...9999).contains(year) && absMinutes < 100 * 60 {
      // Listings format two of these per note: bytes into a fixed buffer, not a dozen string concatenations.
      var bytes = [UInt8](repeating: 0, count: 25)
      func put(_ value: Int, _ width: Int, at start: Int) {
        var v = value
        for i in stride(from: start + width - 1, through: start, by: -1) {
          bytes[i] = UInt8(ascii: "0") + UInt8(v % 10)
          v /= 10
        }
      }
      put(year, 4, at: 0)
      put(month, 2, at: 5)
      put(day, 2, at: 8)
      put(secondOfDay / 3600, 2, at: 11)
      put(secondOfDay / 60 % 60, 2, at: 14)
      put(secondOfDay % 60, 2, at: 17)
      put(absMinutes / 60, 2, at: 20)
      put(absMinutes % 60, 2, at: 23)
      for (index, character) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (22, ":")] {
        bytes[index] = UInt8(ascii: Unicode.Scalar(character)!)
      }
      bytes[19] = offsetMinutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
      return String(decoding: bytes, as: UTF8.self)
    }
    return Timestamp.pad(year, 4) + "-" + Timestamp.pad(month, 2) + "-" + Timestamp.pad(day, 2) + "T"
      + Timestamp.pad(secondOfDay / 3600, 2) + ":" + Timestamp.pad(secondOfDay / 60 % 60, 2) + ":"
      + Timestamp.pad(secondOfDay % 60, 2) + sign + Timestamp.pad(absMinutes / 60, 2) + ":"
      + Timestamp.pad(absMinutes % 60, 2)
  }

  /// The RFC 3339 text (`rfc3339`).
  public var description: String { rfc3339 }

  /// The monotonic rule for `updated`: max(now, previous + 1 s), truncated to whole seconds, in now's offset.
  ///
  /// The result is always strictly later than `previous`, even when the device clock runs behind the note's last
  /// writer, so `updated` never goes backwards and every save is distinguishable in conflict resolution.
  public static func nextUpdated(previous: Timestamp?, now: Timestamp) -> Timestamp {
    var seconds = wholeSeconds(now.date)
    if let previous {
      seconds = max(seconds, wholeSeconds(previous.date) + 1)
    }
    return Timestamp(date: Date(timeIntervalSince1970: TimeInterval(seconds)), offsetSeconds: now.offsetSeconds)
  }

  /// Instants are equal when they are the same moment, whatever offset each is shown in.
  public static func == (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.date == rhs.date
  }

  /// Hashes the instant only, consistent with `==`.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(date)
  }

  /// Orders by instant (UTC).
  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.date < rhs.date
  }

  // MARK: - Calendar arithmetic
  // Proleptic Gregorian day arithmetic (H. Hinnant's civil algorithms) keeps formatting and parsing independent of
  // Calendar/DateFormatter, whose locale and time zone defaults vary between devices.

  static func wholeSeconds(_ date: Date) -> Int64 {
    let interval = date.timeIntervalSince1970.rounded(.down)
    // Dates outside Int64 range or NaN cannot come from a note; clamp rather than trap.
    guard interval.isFinite else { return 0 }
    return Int64(max(min(interval, 9.0e15), -9.0e15))
  }

  static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
  }

  static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
    let shifted = days + 719_468
    let era = floorDiv(shifted, 146_097)
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return (Int(year), Int(month), Int(day))
  }

  static func days(year: Int, month: Int, day: Int) -> Int64 {
    let adjustedYear = Int64(month <= 2 ? year - 1 : year)
    let era = floorDiv(adjustedYear, 400)
    let yearOfEra = adjustedYear - era * 400
    let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
    let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  static func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2:
      let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
      return leap ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// `value` in decimal with leading zeros up to `width` digits (sign before them).
  static func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(abs(value))
    let padded = digits.count < width ? String(repeating: "0", count: width - digits.count) + digits : digits
    return value < 0 ? "-" + padded : padded
  }
}

/// A strict byte-level parser for the timestamp forms `Timestamp.init?(rfc3339:)` documents.
private struct TimestampParser {
  let bytes: [UInt8]
  var position = 0

  static func parse(_ bytes: [UInt8]) -> Timestamp? {
    var parser = TimestampParser(bytes: bytes)
    return parser.parseTimestamp()
  }

  private var atEnd: Bool { position == bytes.count }

  private mutating func digits(_ count: Int) -> Int? {
    guard position + count <= bytes.count else { return nil }
    var value = 0
    for offset in 0..<count {
      let byte = bytes[position + offset]
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    position += count
    return value
  }

  private mutating func consume(_ ascii: Unicode.Scalar) -> Bool {
    guard position < bytes.count, bytes[position] == UInt8(ascii: ascii) else { return false }
    position += 1
    return true
  }

  private mutating func skipBlanks() -> Bool {
    let start = position
    while position < bytes.count, bytes[position] == UInt8(ascii: " ") || bytes[position] == UInt8(ascii: "\t") {
      position += 1
    }
    return position > start
  }

  mutating func parseTimestamp() -> Timestamp? {
    guard let year = digits(4), consume("-"), let month = digits(2), consume("-"), let day = digits(2) else {
      return nil
    }
    guard (1...12).contains(month), (1...Timestamp.daysInMonth(year: year, month: month)).contains(day) else {
      return nil
    }
    let dayNumber = Timestamp.days(year: year, month: month, day: day)
    if atEnd {
      return Timestamp(date: Date(timeIntervalSince1970: TimeInterval(dayNumber * 86_400)), offsetSeconds: 0)
    }
    guard consume("T") || consume("t") || skipBlanks() else { return nil }
    guard let hour = digits(2), consume(":"), let minute = digits(2), hour < 24, minute < 60 else { return nil }
    var second = 0
    var fraction = 0.0
    if consume(":") {
      guard let parsedSecond = digits(2), parsedSecond <= 60 else { return nil }
      second = parsedSecond
      if consume(".") {
        var scale = 0.1
        let start = position
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
          fraction += Double(bytes[position] - UInt8(ascii: "0")) * scale
          scale /= 10
          position += 1
        }
        guard position > start else { return nil }
      }
    }
    _ = skipBlanks()
    var offset = 0
    if consume("Z") || consume("z") {
      offset = 0
    } else if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
      let negative = bytes[position] == UInt8(ascii: "-")
      position += 1
      guard let offsetHours = digits(2), offsetHours < 24 else { return nil }
      var offsetMinutes = 0
      if !atEnd {
        _ = consume(":")
        guard let parsedMinutes = digits(2), parsedMinutes < 60 else { return nil }
        offsetMinutes = parsedMinutes
      }
      offset = (offsetHours * 3600 + offsetMinutes * 60) * (negative ? -1 : 1)
    } else if !atEnd {
      return nil
    }
    guard atEnd else { return nil }
    let local = dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    let utc = TimeInterval(local - Int64(offset)) + fraction
    return Timestamp(date: Date(timeIntervalSince1970: utc), offsetSeconds: offset)
  }
}

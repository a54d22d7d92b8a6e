import Foundation

// Small text helpers the ink code needs. InkKit depends on Foundation only, so these are InkKit's own copies of what
// NoteStore has for notes (Timestamp's RFC 3339 parser and civil-day arithmetic, NoteID's UUID formatting,
// CommitMessage's counts); they must accept and produce exactly the same text.

/// Instants in ink files: `t0` is parsed as RFC 3339 (the forms `Timestamp.init?(rfc3339:)` accepts in NoteStore) and
/// written as UTC with milliseconds.
enum InkInstant {
  /// The instant `text` names, or nil: `YYYY-MM-DD` (midnight UTC); `YYYY-MM-DD` + `T`/`t`/spaces +
  /// `hh:mm[:ss[.fraction]]` + an optional zone `Z`/`z`/`±hh:mm`/`±hhmm`/`±hh` (spaces before the zone allowed). A
  /// date-time without a zone is UTC. Out-of-range fields and any trailing text are rejected.
  static func parse(_ text: String) -> Date? {
    var parser = InstantParser(bytes: Array(text.utf8))
    return parser.parse()
  }

  /// `2026-11-22T09:07:01.250Z`: UTC, milliseconds, as FORMAT.md's example.
  static func format(_ date: Date) -> String {
    let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
    let days = floorDiv(millis, 86_400_000)
    let msOfDay = Int(millis - days * 86_400_000)
    let (year, month, day) = civil(fromDays: days)
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(msOfDay / 3_600_000, 2)):"
      + "\(pad(msOfDay / 60_000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))Z"
  }

  // MARK: - Calendar arithmetic (proleptic Gregorian, H. Hinnant's civil algorithms)

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

/// A strict byte-level parser for the forms `InkInstant.parse` documents.
private struct InstantParser {
  let bytes: [UInt8]
  var position = 0

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

  mutating func parse() -> Date? {
    guard let year = digits(4), consume("-"), let month = digits(2), consume("-"), let day = digits(2) else {
      return nil
    }
    guard (1...12).contains(month), (1...InkInstant.daysInMonth(year: year, month: month)).contains(day) else {
      return nil
    }
    let dayNumber = InkInstant.days(year: year, month: month, day: day)
    if atEnd {
      return Date(timeIntervalSince1970: TimeInterval(dayNumber * 86_400))
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
    return Date(timeIntervalSince1970: TimeInterval(local - Int64(offset)) + fraction)
  }
}

extension InkID {
  /// 16 bytes as a lower-case UUID, `8-4-4-4-12` hex digits.
  static func format(_ bytes: [UInt8]) -> String {
    let hex = bytes.map { byte in
      let digits = String(byte, radix: 16)
      return digits.count >= 2 ? digits : "0" + digits
    }.joined()
    let parts = [
      hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
      hex.dropFirst(20),
    ]
    return parts.joined(separator: "-")
  }
}

extension InkSummary {
  /// "1 stroke", "3 strokes".
  static func count(_ n: Int, _ noun: String) -> String {
    "\(n) \(noun)\(n == 1 ? "" : "s")"
  }
}

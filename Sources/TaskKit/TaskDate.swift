import Foundation
import TextFormat

/// A task's date as a file writes it: a day (`2026-12-01`), or a day and a time, with a UTC offset
/// (`2026-12-01T09:00:00+01:00`) or without one (`2026-12-01T09:00`, TaskNotes' form: the reader's local time).
public enum TaskDate: Hashable, Sendable, CustomStringConvertible {
  case day(Day)
  /// `offsetSeconds` nil: a floating local time.
  case dateTime(Day, hour: Int, minute: Int, second: Int, offsetSeconds: Int?)

  /// Reads `YYYY-MM-DD`, or `YYYY-MM-DD` `T`/space `hh:mm[:ss[.fraction]]` with an optional `Z`/`±hh:mm`/`±hhmm`
  /// (a fraction is dropped); surrounding blanks allowed. Nil for anything else.
  public init?(text: some StringProtocol) {
    let trimmed = String(text).trimmingWhitespaces()
    if let day = Day(iso: trimmed) {
      self = .day(day)
      return
    }
    let bytes = Array(trimmed.utf8)
    guard bytes.count >= 16, let day = Day(iso: trimmed.prefix(10)),
      bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " ")
    else { return nil }
    var position = 11
    func digits(_ count: Int) -> Int? {
      guard position + count <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[position..<(position + count)] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      position += count
      return value
    }
    func consume(_ ascii: Unicode.Scalar) -> Bool {
      guard position < bytes.count, bytes[position] == UInt8(ascii: ascii) else { return false }
      position += 1
      return true
    }
    guard let hour = digits(2), consume(":"), let minute = digits(2), hour < 24, minute < 60 else { return nil }
    var second = 0
    if consume(":") {
      guard let value = digits(2), value < 60 else { return nil }
      second = value
      if consume(".") {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
          position += 1
        }
        guard position > start else { return nil }
      }
    }
    while position < bytes.count, bytes[position] == UInt8(ascii: " ") { position += 1 }
    var offset: Int?
    if position < bytes.count {
      if consume("Z") || consume("z") {
        offset = 0
      } else {
        let sign: Int
        if consume("+") {
          sign = 1
        } else if consume("-") {
          sign = -1
        } else {
          return nil
        }
        guard let offsetHour = digits(2), offsetHour < 24 else { return nil }
        var offsetMinute = 0
        if consume(":") {
          guard let value = digits(2) else { return nil }
          offsetMinute = value
        } else if let value = digits(2) {
          offsetMinute = value
        }
        guard offsetMinute < 60 else { return nil }
        offset = sign * (offsetHour * 3600 + offsetMinute * 60)
      }
    }
    guard position == bytes.count else { return nil }
    self = .dateTime(day, hour: hour, minute: minute, second: second, offsetSeconds: offset)
  }

  /// The day as written (a date-time's own calendar day, in its own offset).
  public var day: Day {
    switch self {
    case .day(let day): return day
    case .dateTime(let day, _, _, _, _): return day
    }
  }

  /// Whether a time of day is given.
  public var hasTime: Bool {
    if case .dateTime = self { return true }
    return false
  }

  /// The instant: a day is its start in `timeZone`; a date-time with an offset is exact; a floating one is read in
  /// `timeZone`.
  public func instant(in timeZone: TimeZone) -> Date {
    switch self {
    case .day(let day):
      return day.start(in: timeZone)
    case .dateTime(let day, let hour, let minute, let second, let offset):
      guard let offset else {
        return LocalTime.instant(day: day, hour: hour, minute: minute, second: second, in: timeZone)
      }
      let wall = day.dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + second)
      return Date(timeIntervalSince1970: TimeInterval(wall - Int64(offset)))
    }
  }

  /// The text a file holds: `2026-12-01`, `2026-12-01T09:00:00+01:00` (`Z` for UTC), or `2026-12-01T09:00:00`.
  public var text: String {
    switch self {
    case .day(let day):
      return day.iso
    case .dateTime(let day, let hour, let minute, let second, let offset):
      var text = day.iso + "T" + CivilTime.pad(hour, 2) + ":" + CivilTime.pad(minute, 2) + ":" + CivilTime.pad(second, 2)
      if let offset {
        if offset == 0 {
          text += "Z"
        } else {
          let magnitude = abs(offset)
          text += (offset < 0 ? "-" : "+") + CivilTime.pad(magnitude / 3600, 2) + ":"
            + CivilTime.pad(magnitude % 3600 / 60, 2)
        }
      }
      return text
    }
  }

  public var description: String { text }

  /// The same wall-clock time on `newDay`; a date-time with an offset gets the offset `timeZone` has then (a due
  /// time of 09:00 stays 09:00 across a DST change). A time the DST jump skips on `newDay` keeps the offset from
  /// before the jump, naming the instant after it (02:30+01:00, which is 03:30 summer time).
  public func moved(to newDay: Day, in timeZone: TimeZone) -> TaskDate {
    switch self {
    case .day:
      return .day(newDay)
    case .dateTime(_, let hour, let minute, let second, let offset):
      guard offset != nil else {
        return .dateTime(newDay, hour: hour, minute: minute, second: second, offsetSeconds: nil)
      }
      let newOffset = LocalTime.offset(day: newDay, hour: hour, minute: minute, second: second, in: timeZone)
      return .dateTime(newDay, hour: hour, minute: minute, second: second, offsetSeconds: newOffset)
    }
  }
}

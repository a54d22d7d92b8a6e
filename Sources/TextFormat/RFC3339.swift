import Foundation

/// RFC 3339 timestamps as people and tools write them: note front matter and ink files read them with this one
/// parser, so both accept exactly the same text.
package enum RFC3339 {
  /// The instant `text` names and the UTC offset it was written with, or nil.
  ///
  /// Accepted: `YYYY-MM-DD` (midnight UTC); `YYYY-MM-DD` + `T`/`t`/spaces + `hh:mm[:ss[.fraction]]` + an optional
  /// zone `Z`/`z`/`±hh:mm`/`±hhmm`/`±hh` (spaces before the zone allowed, as in YAML's timestamp type). A date-time
  /// without a zone is taken as UTC so that it has one deterministic meaning on every device. Out-of-range fields
  /// (month 13, February 30, hour 24, offset hour 24) and any trailing text are rejected.
  package static func parse(_ text: String) -> (date: Date, offsetSeconds: Int)? {
    var parser = Parser(bytes: Array(text.utf8))
    return parser.parse()
  }
}

/// A strict byte-level parser for the forms `RFC3339.parse` documents.
private struct Parser {
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

  mutating func parse() -> (date: Date, offsetSeconds: Int)? {
    guard let year = digits(4), consume("-"), let month = digits(2), consume("-"), let day = digits(2) else {
      return nil
    }
    guard (1...12).contains(month), (1...CivilTime.daysInMonth(year: year, month: month)).contains(day) else {
      return nil
    }
    let dayNumber = CivilTime.days(year: year, month: month, day: day)
    if atEnd {
      return (Date(timeIntervalSince1970: TimeInterval(dayNumber * 86_400)), 0)
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
    return (Date(timeIntervalSince1970: utc), offset)
  }
}

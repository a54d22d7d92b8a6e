import Foundation

/// One channel of an InkML `<traceFormat>`, with what it takes to turn its values into nb's units.
struct InkMLChannel: Sendable {
  /// What nb does with a channel's values.
  enum Role: Sendable { case x, y, time, force, width, azimuth, altitude, other }

  var name: String
  var role: Role
  /// The `units` attribute as written (nil when absent).
  var units: String?
  /// Multiplies a decoded value into points, seconds or radians (1 for force and unused channels).
  var scale: Double
  /// `orientation="-ve"`: the axis grows the other way.
  var negated: Bool
  var minimum: Double?
  var maximum: Double?
  /// The value of an intermittent channel a point leaves out, in the channel's own units.
  var defaultValue: Double

  /// A channel; fails with a message when its units cannot be converted for the role nb gives it.
  init(name: String, units: String?, orientation: String?, minimum: Double?, maximum: Double?, defaultValue: Double?)
    throws(InkMLTraceError)
  {
    self.name = name
    self.units = units
    self.negated = orientation == "-ve"
    self.minimum = minimum
    self.maximum = maximum
    self.defaultValue = defaultValue ?? 0
    switch name {
    case "X": role = .x
    case "Y": role = .y
    case "T": role = .time
    case "F": role = .force
    case "W": role = .width
    case "OA": role = .azimuth
    case "OE": role = .altitude
    default: role = .other
    }
    switch role {
    case .x, .y, .width:
      guard let factor = InkMLUnits.points(per: units) else {
        throw InkMLTraceError("channel \(name) has units '\(units ?? "")', not a length nb knows")
      }
      scale = factor
    case .time:
      guard let factor = InkMLUnits.seconds(per: units) else {
        throw InkMLTraceError("channel T has units '\(units ?? "")', not a time nb knows (s, ms)")
      }
      scale = factor
    case .azimuth, .altitude:
      guard let factor = InkMLUnits.radians(per: units) else {
        throw InkMLTraceError("channel \(name) has units '\(units ?? "")', not an angle nb knows (deg, rad)")
      }
      scale = factor
    case .force, .other:
      scale = 1
    }
  }
}

/// The channels of a trace: the regular ones every point gives, then the intermittent ones a point may leave out.
struct InkMLTraceFormat: Sendable {
  var regular: [InkMLChannel]
  var intermittent: [InkMLChannel]

  var all: [InkMLChannel] { regular + intermittent }

  /// InkML's default format when a file names none: X and Y in unspecified units (read as points).
  static let standard = InkMLTraceFormat(
    regular: [
      try! InkMLChannel(name: "X", units: nil, orientation: nil, minimum: nil, maximum: nil, defaultValue: nil),
      try! InkMLChannel(name: "Y", units: nil, orientation: nil, minimum: nil, maximum: nil, defaultValue: nil),
    ], intermittent: [])
}

/// A problem inside a trace's text or a format; the reader adds the XML line and the trace.
struct InkMLTraceError: Error {
  var message: String
  init(_ message: String) { self.message = message }
}

/// Conversions of InkML unit names into nb's units.
///
/// A channel without units is read as already in nb's unit (points, milliseconds for time as most capture software
/// writes it, degrees for angles): the file gives no way to know better, and that keeps unit-less files usable.
enum InkMLUnits {
  /// Points per one `units`; nil for a name that is not a length.
  static func points(per units: String?) -> Double? {
    switch units?.lowercased() {
    case nil, "", "dev", "pt": 1
    case "in": 72
    case "cm": 72 / 2.54
    case "mm": 72 / 25.4
    case "m": 7200 / 2.54
    case "px": 0.75  // CSS pixels, 96 to the inch
    case "pc": 12
    case "himetric": 72 / 2540  // 0.01 mm
    default: nil
    }
  }

  /// Seconds per one `units`; nil for a name that is not a time.
  static func seconds(per units: String?) -> Double? {
    switch units?.lowercased() {
    case nil, "", "ms": 0.001
    case "s": 1
    case "us", "µs": 0.000_001
    case "min": 60
    default: nil
    }
  }

  /// Radians per one `units`; nil for a name that is not an angle.
  static func radians(per units: String?) -> Double? {
    switch units?.lowercased() {
    case nil, "", "deg": Double.pi / 180
    case "rad": 1
    default: nil
    }
  }
}

/// Decodes the text of a `<trace>`: comma-separated points of whitespace-separated values, each optionally prefixed
/// with `!` (explicit), `'` (first difference) or `"` (second difference), per InkML 1.0 §3.2.1.
enum InkMLTraceDecoder {
  private enum Mode { case explicit, first, second }

  /// The decoded values, one column per channel of `format` (regular then intermittent), in the file's units (the
  /// caller converts). `limit` bounds the number of points.
  static func decode(_ text: [UInt8], channelCount: Int, regularCount: Int, defaults: [Double], limit: Int)
    throws(InkMLTraceError) -> [[Double]]
  {
    var columns = [[Double]](repeating: [], count: channelCount)
    // Reserved only for the regular channels, and never more than the text could hold (each value takes at least
    // two bytes), so a hostile trace cannot make the reservation itself exhaust memory.
    let commas = min(limit, text.reduce(1) { $1 == UInt8(ascii: ",") ? $0 + 1 : $0 })
    let estimate = min(commas, text.count / max(2 * regularCount, 1) + 1)
    for index in columns.indices.prefix(regularCount) { columns[index].reserveCapacity(estimate) }
    // A prefix changes how the channel's later values are read until another prefix, so the state is per channel.
    var modes = [Mode](repeating: .explicit, count: channelCount)
    var last = [Double](repeating: 0, count: channelCount)
    var velocity = [Double](repeating: 0, count: channelCount)
    var hasLast = [Bool](repeating: false, count: channelCount)

    var index = 0
    var valueIndex = 0
    var points = 0

    func finishPoint() throws(InkMLTraceError) {
      if valueIndex < regularCount {
        throw InkMLTraceError(
          "point \(points + 1) has \(valueIndex) value\(valueIndex == 1 ? "" : "s") but its format has "
            + "\(regularCount) regular channel\(regularCount == 1 ? "" : "s")")
      }
      // An intermittent channel a point leaves out takes its default.
      while valueIndex < channelCount {
        columns[valueIndex].append(defaults[valueIndex])
        valueIndex += 1
      }
      points += 1
      if points > limit { throw InkMLTraceError("the trace has more than \(limit) points") }
      valueIndex = 0
    }

    func store(_ raw: Double, mode prefix: Mode?) throws(InkMLTraceError) {
      guard valueIndex < channelCount else {
        throw InkMLTraceError(
          "point \(points + 1) has more values than its format's \(channelCount) channel\(channelCount == 1 ? "" : "s")"
        )
      }
      let channel = valueIndex
      if let prefix { modes[channel] = prefix }
      let previous = hasLast[channel] ? last[channel] : 0
      let value: Double
      switch modes[channel] {
      case .explicit:
        value = raw
        velocity[channel] = hasLast[channel] ? raw - previous : 0
      case .first:
        value = previous + raw
        velocity[channel] = raw
      case .second:
        velocity[channel] += raw
        value = previous + velocity[channel]
      }
      guard value.isFinite else { throw InkMLTraceError("point \(points + 1) has a value out of range") }
      last[channel] = value
      hasLast[channel] = true
      columns[channel].append(value)
      valueIndex += 1
    }

    func repeatLast() throws(InkMLTraceError) {
      guard valueIndex < channelCount else {
        throw InkMLTraceError(
          "point \(points + 1) has more values than its format's \(channelCount) channel\(channelCount == 1 ? "" : "s")"
        )
      }
      let channel = valueIndex
      let value = hasLast[channel] ? last[channel] : defaults[channel]
      velocity[channel] = 0
      last[channel] = value
      hasLast[channel] = true
      columns[channel].append(value)
      valueIndex += 1
    }

    let count = text.count
    while true {
      while index < count, isSpace(text[index]) { index += 1 }
      if index == count { break }
      let byte = text[index]
      if byte == UInt8(ascii: ",") {
        if valueIndex == 0 { throw InkMLTraceError("point \(points + 1) is empty") }
        try finishPoint()
        index += 1
        continue
      }
      var prefix: Mode?
      switch byte {
      case UInt8(ascii: "!"): prefix = .explicit
      case UInt8(ascii: "'"): prefix = .first
      case UInt8(ascii: "\""): prefix = .second
      default: break
      }
      if prefix != nil {
        index += 1
        while index < count, isSpace(text[index]) { index += 1 }
      } else if byte == UInt8(ascii: "T") || byte == UInt8(ascii: "F") {
        // Boolean channels (switches): true is 1.
        index += 1
        try store(byte == UInt8(ascii: "T") ? 1 : 0, mode: .explicit)
        continue
      } else if byte == UInt8(ascii: "*") || byte == UInt8(ascii: "?") {
        // "*" (unchanged) and "?" (unknown) both keep the channel where it was: the least surprising stand-in.
        index += 1
        try repeatLast()
        continue
      }
      let start = index
      guard let number = scanNumber(text, &index) else {
        throw InkMLTraceError("point \(points + 1) has '\(token(text, from: start))' where a number belongs")
      }
      // A number ends where a separator or the next value's sign or prefix begins; anything else glued to it is junk.
      if index < count {
        let next = text[index]
        let boundary =
          isSpace(next) || next == UInt8(ascii: ",") || next == UInt8(ascii: "-") || next == UInt8(ascii: "+")
          || next == UInt8(ascii: "!") || next == UInt8(ascii: "'") || next == UInt8(ascii: "\"")
          || next == UInt8(ascii: ".")
        if !boundary {
          throw InkMLTraceError("point \(points + 1) has '\(token(text, from: start))' where a number belongs")
        }
      }
      try store(number, mode: prefix)
    }
    if valueIndex > 0 { try finishPoint() }
    return columns
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// The text from `start` to the next separator, shortened, for an error message.
  private static func token(_ text: [UInt8], from start: Int) -> String {
    var end = start
    while end < text.count, !isSpace(text[end]), text[end] != UInt8(ascii: ","), end - start < 24 { end += 1 }
    return String(decoding: text[start..<max(end, min(start + 1, text.count))], as: UTF8.self)
  }

  /// `("-" | "+")? wsp* (decimal | double | "#" hex)`; nil (index unspecified) when there is no number.
  private static func scanNumber(_ text: [UInt8], _ index: inout Int) -> Double? {
    let count = text.count
    var negative = false
    if index < count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
      negative = text[index] == UInt8(ascii: "-")
      index += 1
      while index < count, isSpace(text[index]) { index += 1 }
    }
    guard index < count else { return nil }
    if text[index] == UInt8(ascii: "#") {
      index += 1
      var value: Double = 0
      var digits = 0
      while index < count, let digit = hexDigit(text[index]) {
        value = value * 16 + Double(digit)
        digits += 1
        index += 1
      }
      return digits == 0 ? nil : (negative ? -value : value)
    }
    let start = index
    var mantissa: UInt64 = 0
    var significant = 0
    var exponent = 0
    var digits = 0
    var exact = true
    while index < count, let digit = decimalDigit(text[index]) {
      accumulate(digit, &mantissa, &significant, &exact)
      if !exact { exponent += 1 }
      digits += 1
      index += 1
    }
    if index < count, text[index] == UInt8(ascii: ".") {
      index += 1
      while index < count, let digit = decimalDigit(text[index]) {
        accumulate(digit, &mantissa, &significant, &exact)
        if exact { exponent -= 1 }
        digits += 1
        index += 1
      }
    }
    guard digits > 0 else { return nil }
    if index + 1 < count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
      var probe = index + 1
      var exponentNegative = false
      if text[probe] == UInt8(ascii: "-") || text[probe] == UInt8(ascii: "+") {
        exponentNegative = text[probe] == UInt8(ascii: "-")
        probe += 1
      }
      var value = 0
      var exponentDigits = 0
      while probe < count, let digit = decimalDigit(text[probe]) {
        value = min(value * 10 + digit, 100_000)
        exponentDigits += 1
        probe += 1
      }
      if exponentDigits > 0 {
        exponent += exponentNegative ? -value : value
        index = probe
        exact = exact && abs(exponent) <= 22
      }
    }
    var result: Double
    // Fast and correctly rounded while the mantissa and the power of ten are both exact doubles.
    if exact, mantissa < 1 << 53, abs(exponent) <= 22 {
      let power = powersOfTen[abs(exponent)]
      result = exponent < 0 ? Double(mantissa) / power : Double(mantissa) * power
    } else {
      guard let parsed = Double(String(decoding: text[start..<index], as: UTF8.self)) else { return nil }
      result = parsed
    }
    return negative ? -result : result
  }

  private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

  private static func accumulate(_ digit: Int, _ mantissa: inout UInt64, _ significant: inout Int, _ exact: inout Bool)
  {
    if mantissa == 0 && digit == 0 { return }
    if significant < 19 {
      mantissa = mantissa * 10 + UInt64(digit)
      significant += 1
    } else {
      exact = false
    }
  }

  private static func decimalDigit(_ byte: UInt8) -> Int? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
  }

  private static func hexDigit(_ byte: UInt8) -> Int? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
    default: nil
    }
  }
}

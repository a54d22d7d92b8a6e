import Foundation

/// An ISO 8601 duration as reminders write it (`-PT1H`, `PT15M`, `-P1D`, `-P1DT2H30M`, `P1W`): RFC 5545's
/// `dur-value`, with no years or months (they have no fixed length).
public struct ISODuration: Hashable, Sendable, CustomStringConvertible {
  /// Before (a reminder ahead of the due date) rather than after.
  public var negative: Bool
  /// `nW`: stands alone in text RFC 5545 reads.
  public var weeks: Int
  /// `nD`.
  public var days: Int
  /// `nH`.
  public var hours: Int
  /// `nM` after the `T`.
  public var minutes: Int
  /// `nS`.
  public var seconds: Int

  /// Reads `[+|-]P` followed by `nW` alone, or `nD` and/or `T` with `nH`, `nM`, `nS` in that order (at least one
  /// part, and at least one after a `T`). Letters may be lower case; no blanks. Nil for anything else (`P`, `PT`,
  /// `1H`, `-PT`, `P1Y`, `PT1.5H`).
  public init?(text: String) {
    var scalars = Array(text.uppercased().unicodeScalars)[...]
    var negative = false
    if scalars.first == "+" || scalars.first == "-" {
      negative = scalars.first == "-"
      scalars = scalars.dropFirst()
    }
    guard scalars.first == "P" else { return nil }
    scalars = scalars.dropFirst()
    // Each part is digits then a designator; the designators allowed next shrink as we go, which enforces order.
    var parts: [Unicode.Scalar: Int] = [:]
    var inTime = false
    var allowed: [Unicode.Scalar] = ["W", "D", "T"]
    var partsAfterT = 0
    while let first = scalars.first {
      if first == "T" {
        guard allowed.contains("T") else { return nil }
        inTime = true
        allowed = ["H", "M", "S"]
        scalars = scalars.dropFirst()
        continue
      }
      var value = 0
      var digitCount = 0
      while let digit = scalars.first, ("0"..."9").contains(digit), let number = Int(String(digit)) {
        // Twelve digits keep every total (weeks at 604 800 s) far inside Int.
        guard digitCount < 12 else { return nil }
        value = value * 10 + number
        digitCount += 1
        scalars = scalars.dropFirst()
      }
      guard digitCount > 0, let designator = scalars.first, let index = allowed.firstIndex(of: designator) else {
        return nil
      }
      scalars = scalars.dropFirst()
      parts[designator] = value
      if inTime { partsAfterT += 1 }
      switch designator {
      case "W": allowed = []  // RFC 5545: weeks stand alone.
      case "D": allowed = ["T"]
      default: allowed = Array(allowed[(index + 1)...])
      }
    }
    guard !parts.isEmpty, !inTime || partsAfterT > 0 else { return nil }
    self.negative = negative
    weeks = parts["W"] ?? 0
    days = parts["D"] ?? 0
    hours = parts["H"] ?? 0
    minutes = parts["M"] ?? 0
    seconds = parts["S"] ?? 0
  }

  /// The duration of `seconds` seconds (negative: before), in days, hours, minutes and seconds; never weeks.
  public init(seconds: Int) {
    negative = seconds < 0
    // magnitude, not abs(): abs(Int.min) traps.
    let magnitude = seconds.magnitude
    weeks = 0
    days = Int(magnitude / 86_400)
    hours = Int(magnitude % 86_400 / 3600)
    minutes = Int(magnitude % 3600 / 60)
    self.seconds = Int(magnitude % 60)
  }

  /// The signed length in seconds, a day counting 86 400 s (a reminder is an offset, not a calendar step).
  /// Saturates at Int's bounds rather than overflow, should the fields be set to absurd values.
  public var totalSeconds: Int {
    var total = 0
    for (value, unit) in [(weeks, 604_800), (days, 86_400), (hours, 3600), (minutes, 60), (seconds, 1)] {
      let (product, productOverflow) = value.multipliedReportingOverflow(by: unit)
      let (sum, sumOverflow) = total.addingReportingOverflow(product)
      if productOverflow || sumOverflow { return (value < 0) != negative ? Int.min : Int.max }
      total = sum
    }
    if negative {
      let (negated, overflow) = (0).subtractingReportingOverflow(total)
      return overflow ? Int.max : negated
    }
    return total
  }

  /// The canonical spelling: upper case, no `+`, parts that are zero left out, `PT0S` for nothing. The parts are
  /// written as held (`PT90M` stays `PT90M`: `P1D` and `PT24H` differ across a DST change for some readers); weeks
  /// combined with other parts become days, as RFC 5545 lets weeks stand only alone.
  public var text: String {
    guard weeks >= 0, days >= 0, hours >= 0, minutes >= 0, seconds >= 0 else {
      return ISODuration(seconds: totalSeconds).text
    }
    var weeks = weeks
    var days = days
    // Comparisons, not sums: the fields are public and a sum could overflow.
    let hasTime = hours > 0 || minutes > 0 || seconds > 0
    if weeks > 0, days > 0 || hasTime {
      let (combined, overflow) = weeks.multipliedReportingOverflow(by: 7)
      guard !overflow, combined <= Int.max - days else { return ISODuration(seconds: totalSeconds).text }
      days += combined
      weeks = 0
    }
    if weeks == 0, days == 0, !hasTime { return "PT0S" }
    var text = negative ? "-P" : "P"
    if weeks > 0 { text += "\(weeks)W" }
    if days > 0 { text += "\(days)D" }
    if hasTime {
      text += "T"
      if hours > 0 { text += "\(hours)H" }
      if minutes > 0 { text += "\(minutes)M" }
      if seconds > 0 { text += "\(seconds)S" }
    }
    return text
  }

  /// The canonical text.
  public var description: String { text }
}

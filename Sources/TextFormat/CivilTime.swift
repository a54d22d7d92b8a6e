import Foundation

/// Proleptic Gregorian day arithmetic (H. Hinnant's civil algorithms), shared by every date nb writes or reads in
/// its files: it keeps formatting and parsing independent of Calendar/DateFormatter, whose locale and time zone
/// defaults vary between devices.
package enum CivilTime {
  /// Seconds since 1970, rounded down; clamped for instants no file can hold.
  package static func wholeSeconds(_ date: Date) -> Int64 {
    let interval = date.timeIntervalSince1970.rounded(.down)
    // Dates outside Int64 range or NaN cannot come from a note; clamp rather than trap.
    guard interval.isFinite else { return 0 }
    return Int64(max(min(interval, 9.0e15), -9.0e15))
  }

  /// Division rounding towards negative infinity (days before 1970 stay on the right day).
  package static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
  }

  /// The calendar date of a day number (days since 1970-01-01).
  package static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
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

  /// The day number (days since 1970-01-01) of a calendar date.
  package static func days(year: Int, month: Int, day: Int) -> Int64 {
    let adjustedYear = Int64(month <= 2 ? year - 1 : year)
    let era = floorDiv(adjustedYear, 400)
    let yearOfEra = adjustedYear - era * 400
    let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
    let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// How many days `month` of `year` has.
  package static func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2:
      let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
      return leap ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// `value` in decimal with leading zeros up to `width` digits (sign before them).
  package static func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(abs(value))
    let padded = digits.count < width ? String(repeating: "0", count: width - digits.count) + digits : digits
    return value < 0 ? "-" + padded : padded
  }
}

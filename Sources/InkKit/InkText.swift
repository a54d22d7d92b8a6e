import Foundation
import TextFormat

/// Instants in ink files: `t0` is parsed as RFC 3339 (the forms `Timestamp.init?(rfc3339:)` accepts in NoteStore) and
/// written as UTC with milliseconds.
enum InkInstant {
  /// The instant `text` names, or nil (the forms ``RFC3339`` documents).
  static func parse(_ text: String) -> Date? {
    RFC3339.parse(text)?.date
  }

  /// `2026-11-22T09:07:01.250Z`: UTC, milliseconds, as FORMAT.md's example.
  static func format(_ date: Date) -> String {
    let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
    let days = CivilTime.floorDiv(millis, 86_400_000)
    let msOfDay = Int(millis - days * 86_400_000)
    let (year, month, day) = CivilTime.civil(fromDays: days)
    let pad = CivilTime.pad
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(msOfDay / 3_600_000, 2)):"
      + "\(pad(msOfDay / 60_000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))Z"
  }
}

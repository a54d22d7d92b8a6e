import Foundation
import TextFormat

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
    guard let parsed = RFC3339.parse(text) else { return nil }
    self.init(date: parsed.date, offsetSeconds: parsed.offsetSeconds)
  }

  /// The RFC 3339 text, e.g. `2026-11-22T10:15:03+01:00`: whole seconds (fractions are dropped, not rounded, so the
  /// text never names a later second than the instant) and always a numeric offset (`+00:00`, never `Z`).
  ///
  /// An offset that is not a whole number of minutes is shown truncated to minutes, and the wall time is computed
  /// with that shown offset, so the text still names the same instant.
  public var rfc3339: String {
    let offsetMinutes = offsetSeconds / 60
    let seconds = CivilTime.wholeSeconds(date) + Int64(offsetMinutes * 60)
    let days = CivilTime.floorDiv(seconds, 86_400)
    let secondOfDay = Int(seconds - days * 86_400)
    let (year, month, day) = CivilTime.civil(fromDays: days)
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
    return CivilTime.pad(year, 4) + "-" + CivilTime.pad(month, 2) + "-" + CivilTime.pad(day, 2) + "T"
      + CivilTime.pad(secondOfDay / 3600, 2) + ":" + CivilTime.pad(secondOfDay / 60 % 60, 2) + ":"
      + CivilTime.pad(secondOfDay % 60, 2) + sign + CivilTime.pad(absMinutes / 60, 2) + ":"
      + CivilTime.pad(absMinutes % 60, 2)
  }

  /// The RFC 3339 text (`rfc3339`).
  public var description: String { rfc3339 }

  /// The monotonic rule for `updated`: max(now, previous + 1 s), truncated to whole seconds, in now's offset.
  ///
  /// The result is always strictly later than `previous`, even when the device clock runs behind the note's last
  /// writer, so `updated` never goes backwards and every save is distinguishable in conflict resolution.
  public static func nextUpdated(previous: Timestamp?, now: Timestamp) -> Timestamp {
    var seconds = CivilTime.wholeSeconds(now.date)
    if let previous {
      seconds = max(seconds, CivilTime.wholeSeconds(previous.date) + 1)
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
}

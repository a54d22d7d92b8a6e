import Foundation
import TextFormat

/// Which sync backups (`refs/nb/backup/<yyyyMMddTHHmmssZ>-<short id>`) have outlived `backup_days`.
///
/// The time is read from the reference's name — what sync wrote when it made the backup — not from the reflog,
/// which `git gc` expires and a clone does not have.
enum BackupRetention {
  /// The namespace sync keeps its backups in.
  static let prefix = "refs/nb/backup/"

  /// The names among `references` whose time is more than `days` days before `now`. With `days` 0 nothing
  /// expires; a name without a readable time is never expired (nb did not write it, so it is not nb's to delete).
  static func expired(_ references: [String], now: Date, days: Int) -> [String] {
    guard days > 0 else { return [] }
    let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
    return references.filter { name in
      guard let time = time(of: name) else { return false }
      return time < cutoff
    }.sorted()
  }

  /// The UTC time in a backup reference's name.
  static func time(of reference: String) -> Date? {
    guard reference.hasPrefix(prefix) else { return nil }
    let stamp = Array(reference.dropFirst(prefix.count).utf8.prefix(16))
    // yyyyMMdd T HHmmss Z
    guard stamp.count == 16, stamp[8] == UInt8(ascii: "T"), stamp[15] == UInt8(ascii: "Z") else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in stamp[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), let hour = number(9..<11),
      let minute = number(11..<13), let second = number(13..<15)
    else { return nil }
    // The same civil-day arithmetic that wrote the name (SyncPolicy.compactUTC), not a Calendar with its defaults.
    guard (1...12).contains(month), (1...CivilTime.daysInMonth(year: year, month: month)).contains(day), hour < 24,
      minute < 60, second < 60
    else { return nil }
    let seconds =
      CivilTime.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }
}

import Foundation
import TextFormat

/// Note identities: lower-case random UUIDs (version 4). Two devices mint them offline without coordinating, and
/// — unlike time-ordered UUIDs, whose first digits are shared by every note made in the same minute — a short
/// prefix of one is enough to name a note on the command line.
enum NoteID {
  /// A new version-4 UUID, its 122 random bits drawn from `random`.
  static func make<R: RandomNumberGenerator>(using random: inout R) -> String {
    var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
    bytes[6] = 0x40 | (bytes[6] & 0x0f)
    bytes[8] = 0x80 | (bytes[8] & 0x3f)
    return UUIDText.format(bytes)
  }

  /// A new id from the system's random source: two 64-bit draws (each a getrandom call), not one per byte as
  /// ``make(using:)`` draws them (which a seeded generator's callers rely on staying as it is); adopting thousands
  /// of notes made 16 system calls per id.
  static func make() -> String {
    var generator = SystemRandomNumberGenerator()
    let high = generator.next() as UInt64
    let low = generator.next() as UInt64
    var bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> (8 * UInt64($0))) }
    bytes += (0..<8).map { UInt8(truncatingIfNeeded: low >> (8 * UInt64($0))) }
    bytes[6] = 0x40 | (bytes[6] & 0x0f)
    bytes[8] = 0x80 | (bytes[8] & 0x3f)
    return UUIDText.format(bytes)
  }

  /// Whether `text` has the shape of a UUID (any version), case-insensitive.
  static func isWellFormed(_ text: String) -> Bool {
    let groups = text.split(separator: "-", omittingEmptySubsequences: false)
    return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}

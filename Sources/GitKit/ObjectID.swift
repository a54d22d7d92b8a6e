import CLibGit2

/// A git object name (SHA-1), held as 40 lower-case hex digits.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible, Comparable {
  /// 40 lower-case hex digits.
  public let hex: String

  /// Parses 40 hex digits (either case); nil for anything else, including abbreviations.
  public init?(hex: String) {
    let utf8 = hex.utf8
    guard utf8.count == 40,
      utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) })
    else { return nil }
    self.hex = hex.lowercased()
  }

  init(_ oid: git_oid) {
    var copy = oid
    // git_oid_tostr writes 40 digits plus the terminator.
    var buffer = [CChar](repeating: 0, count: 41)
    git_oid_tostr(&buffer, buffer.count, &copy)
    self.hex = String(cString: buffer)
  }

  init(_ pointer: UnsafePointer<git_oid>) {
    self.init(pointer.pointee)
  }

  /// The id of 20 raw bytes (as the index and pack files hold them).
  init<Bytes: Collection<UInt8>>(raw bytes: Bytes) {
    self.hex = lowercaseHex(bytes)
  }

  /// The C value; the hex string was validated on construction, so parsing cannot fail.
  var oid: git_oid {
    var oid = git_oid()
    _ = hex.withCString { git_oid_fromstrn(&oid, $0, 40) }
    return oid
  }

  /// The first seven digits, as `git log --oneline` shows them.
  public var short: String { String(hex.prefix(7)) }

  /// The hex digits.
  public var description: String { hex }

  /// Orders by hex digits, which is the same as byte order of the raw id.
  public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool { lhs.hex < rhs.hex }
}

/// Bytes as lower-case hex digits. `String(format: "%02x")` would do, but its first call sets up Foundation's
/// formatting (a locale, CFString) for a millisecond of `nb status`'s run.
func lowercaseHex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
  let digits: [UInt8] = Array("0123456789abcdef".utf8)
  var out: [UInt8] = []
  out.reserveCapacity(bytes.count * 2)
  for byte in bytes {
    out.append(digits[Int(byte >> 4)])
    out.append(digits[Int(byte & 0x0F)])
  }
  return String(decoding: out, as: UTF8.self)
}

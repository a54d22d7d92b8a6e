/// UUIDs as nb writes them (note ids, stroke ids): lower case, `8-4-4-4-12` hex digits.
package enum UUIDText {
  /// 16 bytes as a lower-case UUID.
  package static func format(_ bytes: [UInt8]) -> String {
    let hex = bytes.map { byte in
      let digits = String(byte, radix: 16)
      return digits.count >= 2 ? digits : "0" + digits
    }.joined()
    let parts = [
      hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
      hex.dropFirst(20),
    ]
    return parts.joined(separator: "-")
  }
}

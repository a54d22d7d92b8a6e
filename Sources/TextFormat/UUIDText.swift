/// UUIDs as nb writes them (note ids, stroke ids): lower case, `8-4-4-4-12` hex digits.
package enum UUIDText {
  /// 16 bytes as a lower-case UUID.
  package static func format(_ bytes: [UInt8]) -> String {
    // Bytes straight into UTF-8: joining strings of digits asked the runtime for two generic conformances, each a
    // scan of every conformance record in the binary, at every note made.
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2 + 4)
    for (index, byte) in bytes.enumerated() {
      if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}

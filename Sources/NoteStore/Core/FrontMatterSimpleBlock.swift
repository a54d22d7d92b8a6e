/// The front matter nb itself writes, read without a YAML parser: one `key: value` line per key, each value plain,
/// quoted without escapes, or a flow list of plain words. A sync matches and orders thousands of note versions by
/// their `id` and `updated` (``FrontMatter/readIdentity(_:)``), and Yams took most of a large merge's policy time
/// to read them.
///
/// Only a block this reader is sure of gets an answer: anything else (comments, nested or multi-line values,
/// anchors, tags, escapes, a repeated key, characters YAML treats specially) is nil, and Yams reads it, with its
/// errors. Where it answers, it answers what Yams does (a property test holds it to that).
enum FMSimpleBlock {
  /// One value as Yams gives it: a scalar's text as written (quotes removed), and whether it was plain (only a
  /// plain scalar can be null); or a flow list's items, all plain.
  enum Value: Equatable {
    case scalar(String, plain: Bool)
    case list([String])

    /// The text ``FrontMatter`` reads from a scalar: nil for YAML's null forms and for a list.
    var text: String? {
      guard case .scalar(let string, let plain) = self else { return nil }
      return plain && FMSimpleBlock.isNull(string) ? nil : string
    }

    /// A list's items as ``FrontMatter`` reads them, null forms left out; nil for a scalar.
    var items: [String]? {
      guard case .list(let items) = self else { return nil }
      return items.filter { !FMSimpleBlock.isNull($0) }
    }
  }

  /// Whether an untagged plain scalar is null in YAML's core schema (`~`, `null`, `Null`, `NULL` or nothing); the
  /// Yams side (``Yams/Node/Scalar/isNull``) asks this too.
  static func isNull(_ plain: String) -> Bool { ["", "~", "null", "Null", "NULL"].contains(plain) }

  /// Each key's value, in order; nil when the block is not simple.
  static func values(_ content: [UInt8]) -> [(key: String, value: Value)]? {
    var result: [(key: String, value: Value)] = []
    // An array, not a Set: front matter has a few keys, and the first Set of byte slices in a process makes the
    // runtime scan every conformance record in the binary.
    var keys: [ArraySlice<UInt8>] = []
    var start = 0
    let count = content.count
    while start < count {
      var end = start
      while end < count, content[end] != 0x0A { end += 1 }
      var lineEnd = end
      if lineEnd > start, content[lineEnd - 1] == 0x0D { lineEnd -= 1 }
      let line = content[start..<lineEnd]
      start = end + 1
      if line.isEmpty { continue }
      guard let colon = line.firstIndex(of: 0x3A), isKey(line[line.startIndex..<colon]) else { return nil }
      let key = line[line.startIndex..<colon]
      guard !keys.contains(key) else { return nil }
      keys.append(key)
      let rest = line[(colon + 1)...]
      let value: Value
      if rest.isEmpty {
        value = .scalar("", plain: true)
      } else {
        guard rest.first == 0x20, let parsed = Self.value(rest.dropFirst()) else { return nil }
        value = parsed
      }
      result.append((String(decoding: key, as: UTF8.self), value))
    }
    return result
  }

  /// The line of `key` in a block ``values(_:)`` read (where each key is the start of its own line).
  static func line(of key: String, in block: FMBlock) -> FMLine? {
    let prefix = Array(key.utf8) + [UInt8(ascii: ":")]
    return block.lines.first { line in
      block.content[(line.start - block.contentStart)..<(line.contentEnd - block.contentStart)].starts(with: prefix)
    }
  }

  /// `[A-Za-z_][A-Za-z0-9_-]*`: no key YAML reads as anything but that string.
  private static func isKey(_ bytes: ArraySlice<UInt8>) -> Bool {
    guard let first = bytes.first, isLetter(first) || first == 0x5F else { return false }
    return bytes.allSatisfy { isLetter($0) || isDigit($0) || $0 == 0x5F || $0 == 0x2D }
  }

  private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
  private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

  /// The value after `key: `; nil when it is not one of the simple forms.
  private static func value(_ raw: ArraySlice<UInt8>) -> Value? {
    var text = raw
    while text.last == 0x20 { text = text.dropLast() }
    guard let first = text.first else { return .scalar("", plain: true) }
    switch first {
    case 0x22, 0x27:  // "…" or '…', no escapes, no quote inside
      guard text.count >= 2, text.last == first, isPrintable(text.dropFirst().dropLast()),
        !text.dropFirst().dropLast().contains(where: { $0 == first || $0 == 0x5C })
      else { return nil }
      return .scalar(String(decoding: text.dropFirst().dropLast(), as: UTF8.self), plain: false)
    case 0x5B:  // [a, b]
      guard text.last == 0x5D else { return nil }
      let inner = text.dropFirst().dropLast()
      if inner.allSatisfy({ $0 == 0x20 }) { return .list([]) }
      var items: [String] = []
      for item in inner.split(separator: 0x2C, omittingEmptySubsequences: false) {
        var word = item
        while word.first == 0x20 { word = word.dropFirst() }
        while word.last == 0x20 { word = word.dropLast() }
        guard let head = word.first, isLetter(head) || isDigit(head) || head == 0x5F,
          word.allSatisfy({ isLetter($0) || isDigit($0) || $0 == 0x5F || $0 == 0x2D || $0 == 0x2E || $0 == 0x2F })
        else { return nil }
        items.append(String(decoding: word, as: UTF8.self))
      }
      return .list(items)
    default:
      // A space first would be one more blank after the colon: YAML drops it, and nb's editor keeps it.
      guard first != 0x20, isPlain(text) else { return nil }
      return .scalar(String(decoding: text, as: UTF8.self), plain: true)
    }
  }

  /// A plain scalar on one line: not starting with an indicator, no `: ` or ` #` inside, no `:` at the end.
  private static func isPlain(_ text: ArraySlice<UInt8>) -> Bool {
    guard let first = text.first, let last = text.last, isPrintable(text) else { return false }
    // - ? : , [ ] { } # & * ! | > ' " % @ `
    let indicators: [UInt8] = [
      0x2D, 0x3F, 0x3A, 0x2C, 0x5B, 0x5D, 0x7B, 0x7D, 0x23, 0x26, 0x2A, 0x21, 0x7C, 0x3E, 0x27, 0x22, 0x25, 0x40, 0x60,
    ]
    guard !indicators.contains(first), last != 0x3A else { return false }
    var previous: UInt8 = 0
    for byte in text {
      if previous == 0x3A && byte == 0x20 { return false }
      if previous == 0x20 && byte == 0x23 { return false }
      previous = byte
    }
    return true
  }

  /// No control characters, and none of the non-ASCII characters YAML treats as breaks, byte-order marks or
  /// non-printable (C1 controls, U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF).
  private static func isPrintable(_ text: ArraySlice<UInt8>) -> Bool {
    var index = text.startIndex
    while index < text.endIndex {
      let byte = text[index]
      if byte < 0x20 || byte == 0x7F { return false }
      if byte == 0xC2, index + 1 < text.endIndex, (0x80...0x9F).contains(text[index + 1]) { return false }
      if byte == 0xE2, index + 2 < text.endIndex, text[index + 1] == 0x80, [0xA8, 0xA9].contains(text[index + 2]) {
        return false
      }
      if byte == 0xEF, index + 2 < text.endIndex,
        (text[index + 1] == 0xBB && text[index + 2] == 0xBF)
          || (text[index + 1] == 0xBF && [0xBE, 0xBF].contains(text[index + 2]))
      {
        return false
      }
      index += 1
    }
    return true
  }
}

import Foundation

/// What is wrong within one line of an ink file (the reader adds the file and line).
struct InkSyntaxError: Error {
  var message: String
}

/// A strict scanner for the JSON of one ink line.
///
/// Hand-written rather than `JSONSerialization`: a page of handwriting is hundreds of thousands of integers, which a
/// general decoder boxes one by one, and the errors must say which key of which record is wrong. Anything that is not
/// valid JSON is rejected; values of unknown keys are validated and kept as their exact text.
struct InkJSONScanner {
  let base: UnsafePointer<UInt8>
  var position: Int
  let end: Int

  init(base: UnsafePointer<UInt8>, start: Int, end: Int) {
    self.base = base
    self.position = start
    self.end = end
  }

  var atEnd: Bool { position >= end }

  @inline(__always) func peek() -> UInt8? { position < end ? base[position] : nil }

  @inline(__always) mutating func skipSpace() {
    while position < end {
      let byte = base[position]
      guard byte == 0x20 || byte == 0x09 || byte == 0x0d || byte == 0x0a else { return }
      position += 1
    }
  }

  mutating func expect(_ ascii: UInt8, _ what: String) throws {
    skipSpace()
    guard position < end, base[position] == ascii else { throw InkSyntaxError(message: "expected \(what)") }
    position += 1
  }

  /// Reads `{`, then calls `field` for each key until `}`; rejects a key given twice.
  mutating func object(_ field: (inout InkJSONScanner, String) throws -> Void) throws {
    try expect(UInt8(ascii: "{"), "'{' (each line is one JSON object)")
    skipSpace()
    if peek() == UInt8(ascii: "}") {
      position += 1
      return
    }
    var seen = Set<String>()
    while true {
      skipSpace()
      guard peek() == UInt8(ascii: "\"") else { throw InkSyntaxError(message: "expected a key in double quotes") }
      let key = try string()
      guard seen.insert(key).inserted else { throw InkSyntaxError(message: "key \"\(key)\" appears twice") }
      try expect(UInt8(ascii: ":"), "':' after key \"\(key)\"")
      skipSpace()
      try field(&self, key)
      skipSpace()
      guard let byte = peek() else { throw InkSyntaxError(message: "unterminated object (missing '}')") }
      position += 1
      if byte == UInt8(ascii: "}") { return }
      guard byte == UInt8(ascii: ",") else { throw InkSyntaxError(message: "expected ',' or '}' after \"\(key)\"") }
    }
  }

  /// The string value of `key` in the object that starts here, reading only as far as that key (in canonical files
  /// the first); nil when the object has no such key. Errors in values before it are reported.
  mutating func firstString(forKey wanted: String) throws -> String? {
    try expect(UInt8(ascii: "{"), "'{' (each line is one JSON object)")
    skipSpace()
    if peek() == UInt8(ascii: "}") { return nil }
    while true {
      skipSpace()
      guard peek() == UInt8(ascii: "\"") else { throw InkSyntaxError(message: "expected a key in double quotes") }
      let key = try string()
      try expect(UInt8(ascii: ":"), "':' after key \"\(key)\"")
      skipSpace()
      if key == wanted { return try string() }
      try skipValue(key, depth: 0)
      skipSpace()
      guard let byte = peek() else { throw InkSyntaxError(message: "unterminated object (missing '}')") }
      position += 1
      if byte == UInt8(ascii: "}") { return nil }
      guard byte == UInt8(ascii: ",") else { throw InkSyntaxError(message: "expected ',' or '}' after \"\(key)\"") }
    }
  }

  mutating func string() throws -> String {
    skipSpace()
    guard peek() == UInt8(ascii: "\"") else { throw InkSyntaxError(message: "expected a string") }
    position += 1
    let start = position
    var simple = true
    while position < end {
      let byte = base[position]
      if byte == UInt8(ascii: "\"") {
        if simple {
          let text = String(decoding: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
          position += 1
          return text
        }
        break
      }
      if byte == UInt8(ascii: "\\") { simple = false }
      if byte < 0x20 { throw InkSyntaxError(message: "control character in a string") }
      position += byte == UInt8(ascii: "\\") ? 2 : 1
    }
    guard position < end else { throw InkSyntaxError(message: "unterminated string") }
    // Rare path: decode escapes.
    var bytes: [UInt8] = []
    var index = start
    while index < position {
      let byte = base[index]
      guard byte == UInt8(ascii: "\\") else {
        bytes.append(byte)
        index += 1
        continue
      }
      let escaped = base[index + 1]
      index += 2
      switch escaped {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escaped)
      case UInt8(ascii: "b"): bytes.append(0x08)
      case UInt8(ascii: "f"): bytes.append(0x0c)
      case UInt8(ascii: "n"): bytes.append(0x0a)
      case UInt8(ascii: "r"): bytes.append(0x0d)
      case UInt8(ascii: "t"): bytes.append(0x09)
      case UInt8(ascii: "u"):
        var code = try hex4(at: index)
        index += 4
        if (0xD800..<0xDC00).contains(code), index + 6 <= position, base[index] == UInt8(ascii: "\\"),
          base[index + 1] == UInt8(ascii: "u")
        {
          let low = try hex4(at: index + 2)
          if (0xDC00..<0xE000).contains(low) {
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            index += 6
          }
        }
        let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
        bytes.append(contentsOf: Array(String(Character(scalar)).utf8))
      default: throw InkSyntaxError(message: "invalid escape '\\\(Character(Unicode.Scalar(escaped)))' in a string")
      }
    }
    position += 1
    return String(decoding: bytes, as: UTF8.self)
  }

  private func hex4(at index: Int) throws -> UInt32 {
    guard index + 4 <= end else { throw InkSyntaxError(message: "truncated \\u escape") }
    var value: UInt32 = 0
    for offset in 0..<4 {
      let byte = base[index + offset]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw InkSyntaxError(message: "invalid \\u escape")
      }
      value = value << 4 | digit
    }
    return value
  }

  /// An integer; a fraction, exponent, NaN or infinity is an error that names `key`.
  @inline(__always) mutating func integer(_ key: String) throws -> Int64 {
    var negative = false
    if position < end, base[position] == UInt8(ascii: "-") {
      negative = true
      position += 1
    }
    let start = position
    var value: Int64 = 0
    while position < end {
      let digit = base[position] &- UInt8(ascii: "0")
      guard digit < 10 else { break }
      let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(Int64(digit))
      guard !overflow1, !overflow2 else { throw InkSyntaxError(message: "number in \"\(key)\" is too large") }
      value = sum
      position += 1
    }
    if position == start || (position < end && (base[position] == UInt8(ascii: ".") || base[position] | 0x20 == 0x65)) {
      throw InkSyntaxError(message: nonInteger(key, from: negative ? start - 1 : start))
    }
    if position - start > 1 && base[start] == UInt8(ascii: "0") {
      throw InkSyntaxError(message: "number in \"\(key)\" has a leading zero")
    }
    return negative ? -value : value
  }

  private func nonInteger(_ key: String, from start: Int) -> String {
    var stop = start
    while stop < end, stop - start < 24,
      ![UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(base[stop])
    {
      stop += 1
    }
    let token = String(decoding: UnsafeBufferPointer(start: base + start, count: stop - start), as: UTF8.self)
    if token.isEmpty { return "expected an integer in \"\(key)\"" }
    let lowered = token.lowercased()
    if lowered.hasPrefix("nan") || lowered.hasPrefix("inf") || lowered.hasPrefix("-inf") {
      return "\"\(key)\" holds \(token), which is not a number; values are integers"
    }
    return "\"\(key)\" holds \(token), which is not an integer; values are integers scaled by the header's q"
  }

  /// `[i, i, ...]` as deltas, summed into absolute values; at most `limit` of them.
  mutating func deltaArray(_ key: String, limit: Int) throws -> [Int64] {
    try expect(UInt8(ascii: "["), "an array in \"\(key)\"")
    var values: [Int64] = []
    skipSpace()
    if peek() == UInt8(ascii: "]") {
      position += 1
      return values
    }
    var running: Int64 = 0
    while true {
      skipSpace()
      let delta = try integer(key)
      let (sum, overflow) = running.addingReportingOverflow(delta)
      guard !overflow else { throw InkSyntaxError(message: "values in \"\(key)\" add up beyond 64 bits") }
      running = sum
      // A Double holds every integer up to 2^53 exactly; beyond, reading and writing back would change the value.
      guard running.magnitude <= 1 << 53 else {
        throw InkSyntaxError(message: "values in \"\(key)\" go beyond ±2^53, more than any drawing needs")
      }
      values.append(running)
      guard values.count <= limit else {
        throw InkSyntaxError(message: "\"\(key)\" has more than \(limit) points, the most one stroke may have")
      }
      skipSpace()
      guard let byte = peek() else { throw InkSyntaxError(message: "unterminated array in \"\(key)\"") }
      position += 1
      if byte == UInt8(ascii: "]") { return values }
      guard byte == UInt8(ascii: ",") else { throw InkSyntaxError(message: "expected ',' or ']' in \"\(key)\"") }
    }
  }

  /// `[i, i, ...]` as plain integers.
  mutating func integerArray(_ key: String) throws -> [Int64] {
    try expect(UInt8(ascii: "["), "an array in \"\(key)\"")
    var values: [Int64] = []
    skipSpace()
    if peek() == UInt8(ascii: "]") {
      position += 1
      return values
    }
    while true {
      skipSpace()
      values.append(try integer(key))
      skipSpace()
      guard let byte = peek() else { throw InkSyntaxError(message: "unterminated array in \"\(key)\"") }
      position += 1
      if byte == UInt8(ascii: "]") { return values }
      guard byte == UInt8(ascii: ",") else { throw InkSyntaxError(message: "expected ',' or ']' in \"\(key)\"") }
    }
  }

  /// Skips any JSON value, validating it, and returns its exact text.
  mutating func rawValue(_ key: String) throws -> String {
    skipSpace()
    let start = position
    try skipValue(key, depth: 0)
    return String(decoding: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
  }

  private mutating func skipValue(_ key: String, depth: Int) throws {
    guard depth < 64 else { throw InkSyntaxError(message: "\"\(key)\" is nested too deeply") }
    skipSpace()
    guard let byte = peek() else { throw InkSyntaxError(message: "missing value for \"\(key)\"") }
    switch byte {
    case UInt8(ascii: "\""): _ = try string()
    case UInt8(ascii: "{"):
      try object { scanner, _ in try scanner.skipValue(key, depth: depth + 1) }
    case UInt8(ascii: "["):
      position += 1
      skipSpace()
      if peek() == UInt8(ascii: "]") {
        position += 1
        return
      }
      while true {
        try skipValue(key, depth: depth + 1)
        skipSpace()
        guard let next = peek() else { throw InkSyntaxError(message: "unterminated array in \"\(key)\"") }
        position += 1
        if next == UInt8(ascii: "]") { return }
        guard next == UInt8(ascii: ",") else { throw InkSyntaxError(message: "expected ',' or ']' in \"\(key)\"") }
      }
    case UInt8(ascii: "t"): try literal("true", key)
    case UInt8(ascii: "f"): try literal("false", key)
    case UInt8(ascii: "n"): try literal("null", key)
    default:
      // Numbers in unknown keys may have fractions: they are someone else's data, kept as written. JSON's number
      // grammar, checked byte by byte: -? int frac? exp?
      if peek() == UInt8(ascii: "-") { position += 1 }
      func digits() -> Int {
        let start = position
        while let next = peek(), next &- UInt8(ascii: "0") < 10 { position += 1 }
        return position - start
      }
      let notANumber = InkSyntaxError(message: "\"\(key)\" holds something that is not a JSON value")
      let integerStart = position
      let integerDigits = digits()
      guard integerDigits > 0, integerDigits == 1 || base[integerStart] != UInt8(ascii: "0") else { throw notANumber }
      if peek() == UInt8(ascii: ".") {
        position += 1
        guard digits() > 0 else { throw notANumber }
      }
      if let next = peek(), next | 0x20 == 0x65 {
        position += 1
        if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
        guard digits() > 0 else { throw notANumber }
      }
    }
  }

  private mutating func literal(_ word: String, _ key: String) throws {
    for byte in word.utf8 {
      guard peek() == byte else { throw InkSyntaxError(message: "\"\(key)\" holds something that is not a JSON value") }
      position += 1
    }
  }
}

// Foundation's `trimmingCharacters(in: .whitespaces)` goes through NSString on Linux: it bridges the string, scans
// UTF-16 and decodes the result back, and the first call makes the runtime look up four generic conformances by
// scanning every conformance record in the binary (about 10 000). That was 6 % of an `nb show`. These trim the same
// characters, as Unicode scalars, without leaving Swift.

extension Unicode.Scalar {
  /// Whether `CharacterSet.whitespaces` holds this scalar: the tab, the space separators (general category Zs) and,
  /// as in Core Foundation, the zero width space (U+200B).
  package var isFoundationWhitespace: Bool {
    switch value {
    case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: return true
    default: return false
    }
  }

  /// Whether `CharacterSet.whitespacesAndNewlines` holds this scalar: the whitespaces, and line feed through
  /// carriage return, next line (U+0085) and the line and paragraph separators.
  package var isFoundationWhitespaceOrNewline: Bool {
    switch value {
    case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
    default: return isFoundationWhitespace
    }
  }
}

extension String {
  /// The string without the whitespace (``Swift/Unicode/Scalar/isFoundationWhitespace``) at either end: what
  /// `trimmingCharacters(in: .whitespaces)` gives.
  package func trimmingWhitespaces() -> String {
    self[...].trimmingWhitespaces()
  }

  /// The string without whitespace or line breaks at either end: what
  /// `trimmingCharacters(in: .whitespacesAndNewlines)` gives.
  package func trimmingWhitespacesAndNewlines() -> String {
    self[...].trimmingWhitespacesAndNewlines()
  }
}

extension Substring {
  /// The substring without the whitespace at either end, as a string: what `trimmingCharacters(in: .whitespaces)`
  /// gives.
  package func trimmingWhitespaces() -> String {
    trimmingScalars { $0.isFoundationWhitespace }
  }

  /// The substring without whitespace or line breaks at either end, as a string: what
  /// `trimmingCharacters(in: .whitespacesAndNewlines)` gives.
  package func trimmingWhitespacesAndNewlines() -> String {
    trimmingScalars { $0.isFoundationWhitespaceOrNewline }
  }

  /// The substring without the Unicode scalars `trims` names at either end, as a string: what
  /// `trimmingCharacters(in:)` gives for a character set holding exactly those scalars.
  package func trimmingScalars(_ trims: (Unicode.Scalar) -> Bool) -> String {
    guard let first = unicodeScalars.firstIndex(where: { !trims($0) }),
      let last = unicodeScalars.lastIndex(where: { !trims($0) })
    else { return "" }
    return String(unicodeScalars[first...last])
  }
}

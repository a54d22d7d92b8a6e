import Foundation
import Yams

/// Formats strings as YAML scalar text for the front matter lines nb writes.
enum YAMLScalar {
  /// A YAML plain scalar when that reads back as the same string, else a double-quoted one with escapes.
  ///
  /// Quoting is conservative: anything another YAML reader (1.1 or 1.2) could take as a non-string (`yes`, `on`,
  /// `~`, `0x1F`, `1e3`, `2026-11-22`, `12:30`) or misparse (leading indicators, `": "`, `" #"`, a trailing `:`,
  /// control characters, line breaks, leading or trailing blanks) is double-quoted.
  static func format(_ string: String) -> String {
    isPlainSafe(string, inFlow: false) ? string : doubleQuoted(string)
  }

  /// `[a, b]` with each element formatted for a flow context (where `,` `[` `]` `{` `}` also force quotes).
  static func flowList(_ items: [String]) -> String {
    "[" + items.map { isPlainSafe($0, inFlow: true) ? $0 : doubleQuoted($0) }.joined(separator: ", ") + "]"
  }

  /// A double-quoted scalar; every character YAML would not keep literally inside double quotes is escaped.
  static func doubleQuoted(_ string: String) -> String {
    var out = "\""
    for scalar in string.unicodeScalars {
      switch scalar.value {
      case 0x22: out += "\\\""
      case 0x5C: out += "\\\\"
      case 0x00: out += "\\0"
      case 0x07: out += "\\a"
      case 0x08: out += "\\b"
      case 0x09: out += "\\t"
      case 0x0A: out += "\\n"
      case 0x0B: out += "\\v"
      case 0x0C: out += "\\f"
      case 0x0D: out += "\\r"
      case 0x1B: out += "\\e"
      case 0x85: out += "\\N"
      case 0x2028: out += "\\L"
      case 0x2029: out += "\\P"
      case 0x01...0x1F, 0x7F...0x9F: out += "\\x" + hex(scalar.value, width: 2)
      case 0xFEFF, 0xFFFE, 0xFFFF: out += "\\u" + hex(scalar.value, width: 4)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  private static func hex(_ value: UInt32, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }

  /// Words YAML 1.1 readers (and some 1.2 ones) take as booleans or null in any letter case.
  private static let reservedWords: Set<String> = [
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~",
  ]

  // Switches, not sets of scalars: a `Set<Unicode.Scalar>` makes the runtime scan every conformance record in the
  // binary for `Unicode.Scalar: Hashable`, a tenth of a millisecond of every `nb add`.
  private static func isIndicator(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "-", "?", ":", ",", "[", "]", "{", "}", "#", "&", "*", "!", "|", ">", "'", "\"", "%", "@", "`": return true
    default: return false
    }
  }

  private static func isFlowIndicator(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case ",", "[", "]", "{", "}": return true
    default: return false
    }
  }

  static func isPlainSafe(_ string: String, inFlow: Bool) -> Bool {
    let scalars = Array(string.unicodeScalars)
    guard let first = scalars.first, let last = scalars.last else { return false }
    if isIndicator(first) || isBlank(first) || isBlank(last) || last == ":" { return false }
    if reservedWords.contains(string.lowercased()) || string.hasPrefix("...") { return false }
    for (index, scalar) in scalars.enumerated() {
      if !isPrintableInPlain(scalar) { return false }
      if inFlow && isFlowIndicator(scalar) { return false }
      let next = index + 1 < scalars.count ? scalars[index + 1] : nil
      if scalar == ":", let next, isBlank(next) { return false }
      if scalar == "#", index > 0, isBlank(scalars[index - 1]) { return false }
    }
    if looksNumeric(scalars) { return false }
    // Past the checks above, only text opening with one of these can match a rule of Yams' default resolver other
    // than str (null, bool, int, float, timestamp, merge `<<`, value `=`: each of their patterns begins with a sign,
    // a digit, `.`, `<`, `=` or `~`, or is a reserved word). The resolver compiles every rule's regular expression on
    // first use, a millisecond of `nb add`, so a title or id that cannot be anything but a string never asks it.
    guard isResolverOpener(first) else { return true }
    // The resolver of the library nb itself reads with has the final word on what stays a string.
    return Resolver.default.resolveTag(of: Node(string)) == .str
  }

  private static func isResolverOpener(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "+", "-", ".", "<", "=", "~", "0"..."9": return true
    default: return false
    }
  }

  /// Number-like text (`1.5`, `+3`, `.5`, `0o17`, `1_000`) is quoted even where one resolver or another would keep
  /// it a string: other tools reading the note may use a different schema.
  private static func looksNumeric(_ scalars: [Unicode.Scalar]) -> Bool {
    guard !scalars.contains(where: isBlank) else { return false }
    let first = scalars[0]
    if isDigit(first) { return true }
    if first == "+" || first == "." || first == "-", scalars.count > 1, isDigit(scalars[1]) { return true }
    return false
  }

  private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
    ("0"..."9").contains(scalar)
  }

  private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
    scalar == " " || scalar == "\t"
  }

  /// YAML's printable set minus tab and every line break (NEL, LS, PS included), which plain scalars cannot carry.
  private static func isPrintableInPlain(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x20...0x7E: return true
    case 0xA0...0xD7FF: return scalar.value != 0x2028 && scalar.value != 0x2029
    case 0xE000...0xFFFD: return scalar.value != 0xFEFF
    case 0x10000...0x10FFFF: return true
    default: return false
    }
  }
}

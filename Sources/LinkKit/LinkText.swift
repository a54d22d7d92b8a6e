import Foundation

/// Byte-level helpers shared by the scanner, the resolver and the rewriter. Everything works on UTF-8 bytes: the
/// characters that matter to link syntax are all ASCII, and a multi-byte sequence never contains an ASCII byte.
enum Bytes {
  static let newline = UInt8(ascii: "\n")
  static let carriageReturn = UInt8(ascii: "\r")
  static let space = UInt8(ascii: " ")
  static let tab = UInt8(ascii: "\t")
  static let backslash = UInt8(ascii: "\\")
  static let backtick = UInt8(ascii: "`")
  static let tilde = UInt8(ascii: "~")
  static let openBracket = UInt8(ascii: "[")
  static let closeBracket = UInt8(ascii: "]")
  static let openParen = UInt8(ascii: "(")
  static let closeParen = UInt8(ascii: ")")
  static let bang = UInt8(ascii: "!")
  static let pipe = UInt8(ascii: "|")
  static let hash = UInt8(ascii: "#")
  static let caret = UInt8(ascii: "^")
  static let less = UInt8(ascii: "<")
  static let greater = UInt8(ascii: ">")
  static let percent = UInt8(ascii: "%")
  static let doubleQuote = UInt8(ascii: "\"")
  static let singleQuote = UInt8(ascii: "'")
  static let dash = UInt8(ascii: "-")
  static let dot = UInt8(ascii: ".")
  static let slash = UInt8(ascii: "/")
  static let colon = UInt8(ascii: ":")

  /// CommonMark's escapable characters: any ASCII punctuation.
  @inline(__always) static func isPunctuation(_ byte: UInt8) -> Bool {
    (0x21...0x2F).contains(byte) || (0x3A...0x40).contains(byte) || (0x5B...0x60).contains(byte)
      || (0x7B...0x7E).contains(byte)
  }

  @inline(__always) static func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab }

  @inline(__always) static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: return byte - 0x30
    case 0x41...0x46: return byte - 0x41 + 10
    case 0x61...0x66: return byte - 0x61 + 10
    default: return nil
    }
  }

  /// The bytes as a string; invalid UTF-8 (never produced by slicing a valid string at ASCII bytes) is repaired.
  static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  /// `range` without leading and trailing spaces and tabs.
  static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
    var lower = range.lowerBound
    var upper = range.upperBound
    while lower < upper, isBlank(bytes[lower]) { lower += 1 }
    while upper > lower, isBlank(bytes[upper - 1]) { upper -= 1 }
    return lower..<upper
  }

  /// A Markdown destination's text: backslash escapes of punctuation undone, then `%XX` decoded. A decoded byte
  /// sequence that is not UTF-8 (`%FF`) leaves the text as written, so the link still names something.
  static func decoded(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
    var plain = true
    for index in range where bytes[index] == percent || bytes[index] == backslash {
      plain = false
      break
    }
    if plain { return string(bytes, range) }
    var unescaped: [UInt8] = []
    var decoded: [UInt8] = []
    unescaped.reserveCapacity(range.count)
    decoded.reserveCapacity(range.count)
    var escapedHigh = false
    var index = range.lowerBound
    // Backslash escapes first (`\%41` is a literal `%41`, which then decodes), in one pass: a `%` that came from
    // an escape still decodes, as it would after two passes.
    while index < range.upperBound {
      var byte = bytes[index]
      if byte == backslash, index + 1 < range.upperBound, isPunctuation(bytes[index + 1]) {
        index += 1
        byte = bytes[index]
      }
      unescaped.append(byte)
      index += 1
    }
    index = 0
    while index < unescaped.count {
      let byte = unescaped[index]
      if byte == percent, index + 2 < unescaped.count, let high = hexValue(unescaped[index + 1]),
        let low = hexValue(unescaped[index + 2])
      {
        let value = high << 4 | low
        if value >= 0x80 { escapedHigh = true }
        decoded.append(value)
        index += 3
      } else {
        decoded.append(byte)
        index += 1
      }
    }
    let text = String(decoding: decoded, as: UTF8.self)
    // Only an escaped byte can make it invalid; then the repaired string differs from the bytes.
    if escapedHigh, !text.utf8.elementsEqual(decoded) { return String(decoding: unescaped, as: UTF8.self) }
    return text
  }
}

/// Where a note's YAML front matter is: the `---` line at the very top (after an optional byte order mark) up to
/// the next line that is `---` or `...`. Without that closing line there is no front matter: the text is all body.
struct FrontMatterSpan {
  /// First byte of the first line inside the fences.
  var contentStart: Int
  /// First byte of the closing fence line.
  var contentEnd: Int
  /// First byte after the closing fence line.
  var bodyStart: Int

  init?(_ bytes: UnsafeBufferPointer<UInt8>) {
    var start = 0
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
    guard let first = Line(bytes, from: start), Self.isFence(bytes, first, closing: false) else { return nil }
    var position = first.next
    while let line = Line(bytes, from: position) {
      if Self.isFence(bytes, line, closing: true) {
        contentStart = first.next
        contentEnd = line.start
        bodyStart = line.next
        return
      }
      position = line.next
    }
    return nil
  }

  private static func isFence(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Line, closing: Bool) -> Bool {
    let content = Bytes.trimmed(bytes, line.start..<line.end)
    guard content.count == 3, content.lowerBound == line.start else { return false }
    let byte = bytes[content.lowerBound]
    guard byte == Bytes.dash || (closing && byte == Bytes.dot) else { return false }
    return bytes[content.lowerBound + 1] == byte && bytes[content.lowerBound + 2] == byte
  }
}

/// One line: its bytes without the line break, and where the next line starts.
struct Line {
  var start: Int
  /// Just past the content (before `\r\n` or `\n`).
  var end: Int
  /// First byte of the next line (the text's length after the last line).
  var next: Int

  init?(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) {
    guard start < bytes.count else { return nil }
    var newline = start
    while newline < bytes.count, bytes[newline] != Bytes.newline { newline += 1 }
    var end = newline
    if end > start, bytes[end - 1] == Bytes.carriageReturn { end -= 1 }
    self.start = start
    self.end = end
    self.next = newline < bytes.count ? newline + 1 : newline
  }
}

/// Paths inside the repository: relative, `/`-separated, compared case-insensitively as Obsidian does. Slashes and
/// dots are found in the UTF-8 bytes: walking `Character`s would break graphemes for nothing.
enum LinkPath {
  /// The folder holding `path` (`""` at the root).
  static func directory(of path: String) -> Substring {
    guard let slash = path.utf8.lastIndex(of: Bytes.slash) else { return "" }
    return path[..<slash]
  }

  /// The last component: the file name with its extension.
  static func name(of path: Substring) -> Substring {
    guard let slash = path.utf8.lastIndex(of: Bytes.slash) else { return path }
    return path[path.utf8.index(after: slash)...]
  }

  /// Whether the last component has an extension: a `.` that neither starts nor ends it (`.gitignore` has none).
  static func hasExtension(_ path: Substring) -> Bool {
    let utf8 = path.utf8
    var index = utf8.endIndex
    var sawOther = false
    while index > utf8.startIndex {
      let previous = utf8.index(before: index)
      let byte = utf8[previous]
      if byte == Bytes.slash { return false }
      if byte == Bytes.dot {
        // Not the name's first byte, and something after it.
        return sawOther && previous > utf8.startIndex && utf8[utf8.index(before: previous)] != Bytes.slash
      }
      sawOther = true
      index = previous
    }
    return false
  }

  /// Whether the file is a note: its name ends with `.md`, in any case.
  static func isNote(_ path: String) -> Bool {
    let utf8 = path.utf8
    guard utf8.count >= 3 else { return false }
    var index = utf8.index(utf8.endIndex, offsetBy: -3)
    guard utf8[index] == Bytes.dot else { return false }
    index = utf8.index(after: index)
    guard utf8[index] | 0x20 == UInt8(ascii: "m") else { return false }
    return utf8[utf8.index(after: index)] | 0x20 == UInt8(ascii: "d")
  }

  /// Whether a target is written relative to the note: `.`, `..`, `./…`, `../…`.
  static func isRelative(_ target: Substring) -> Bool {
    let utf8 = target.utf8
    var index = utf8.startIndex
    var dots = 0
    while index < utf8.endIndex, utf8[index] == Bytes.dot, dots < 3 {
      dots += 1
      index = utf8.index(after: index)
    }
    guard dots == 1 || dots == 2 else { return false }
    return index == utf8.endIndex || utf8[index] == Bytes.slash
  }

  /// Whether `path` is already normalized: no empty, `.` or `..` component (so the common link needs no split).
  static func isNormalized(_ path: Substring) -> Bool {
    var length = 0
    var dots = 0
    for byte in path.utf8 {
      if byte == Bytes.slash {
        if length == 0 || dots == length && length <= 2 { return false }
        length = 0
        dots = 0
      } else {
        length += 1
        if byte == Bytes.dot { dots += 1 }
      }
    }
    return !(length == 0 || dots == length && length <= 2)
  }

  /// `target`, written relative to the folder `directory` (`./x`, `../a/x`; `""` for a path from the root), as a
  /// path from the root: empty and `.` components dropped, `..` taking the component before it away. Nil when `..`
  /// climbs above the root or nothing is left. Byte by byte, as the file system separates components (checking
  /// every link of a repository joins each relative link here: splitting strings into arrays of characters was a
  /// fifth of that pass).
  static func joined(_ directory: Substring, _ target: Substring) -> String? {
    var path: [UInt8] = []
    path.reserveCapacity(directory.utf8.count + target.utf8.count + 1)
    var climbedOut = false
    func add(_ component: Substring.UTF8View) {
      let count = component.count
      if count == 0 || count == 1 && component.first == Bytes.dot { return }
      if count == 2 && component.first == Bytes.dot && component.last == Bytes.dot {
        if let slash = path.lastIndex(of: Bytes.slash) {
          path.removeSubrange(slash...)
        } else if path.isEmpty {
          climbedOut = true
        } else {
          path.removeAll(keepingCapacity: true)
        }
        return
      }
      if !path.isEmpty { path.append(Bytes.slash) }
      path.append(contentsOf: component)
    }
    func addComponents(of part: Substring.UTF8View) {
      var start = part.startIndex
      var index = start
      while index < part.endIndex {
        if part[index] == Bytes.slash {
          add(part[start..<index])
          start = part.index(after: index)
        }
        index = part.index(after: index)
      }
      add(part[start..<index])
    }
    addComponents(of: directory.utf8)
    addComponents(of: target.utf8)
    return climbedOut || path.isEmpty ? nil : String(decoding: path, as: UTF8.self)
  }

  /// The path from folder `directory` to `path` (`../Other/Note.md`): as many `..` as folders to leave, then the
  /// rest of `path`. Folders compare exactly, as the files are named.
  static func relative(from directory: Substring, to path: String) -> String {
    let from = directory.split(separator: "/")
    let to = path.split(separator: "/")
    var common = 0
    while common < from.count, common < to.count - 1, from[common] == to[common] { common += 1 }
    let ups = Array(repeating: "..", count: from.count - common)
    return (ups + to[common...].map(String.init)).joined(separator: "/")
  }
}

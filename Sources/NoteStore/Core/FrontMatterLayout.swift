import Foundation
import Yams

// Everything here works on UTF-8 byte offsets into the whole file text. Notes can be tens of megabytes; integer
// offsets over contiguous UTF-8 keep every scan linear, and `memchr` skips through the body without visiting each
// byte in Swift code.

/// One physical line, as byte offsets into the whole text.
struct FMLine: Equatable {
  /// First byte of the line.
  var start: Int
  /// End of the line's content, before its `\r\n` or `\n`.
  var contentEnd: Int
  /// After the line break (equal to `contentEnd` for a last line without one).
  var end: Int
}

/// A terminated front matter block.
struct FMBlock {
  /// Offset of the opening `---` (after a BOM).
  var openStart: Int
  /// First byte after the opening line.
  var contentStart: Int
  /// First byte of the closing `---` / `...` line.
  var closeStart: Int
  /// First byte after the closing line: where the body starts.
  var bodyStart: Int
  /// The lines between the delimiters.
  var lines: [FMLine]
  /// The opening line's break, which new lines in the block copy.
  var lineEnding: String
  /// The block's bytes from `contentStart` to `closeStart`.
  var content: [UInt8]

  /// 1-based line number in the whole file of content line `index` (the opening `---` is line 1).
  func fileLine(ofContentLine index: Int) -> Int { index + 2 }

  /// 1-based line number of the closing delimiter.
  var closingFileLine: Int { lines.count + 2 }
}

/// Where a file's front matter is, if it has one.
enum FMLayout {
  /// No front matter; the body starts after the BOM (if any).
  case none(bomLength: Int)
  /// A terminated block.
  case block(FMBlock)
  /// An opening `---` without a closing delimiter.
  case unterminated

  /// Finds the front matter layout. Linear in the size of the block; the body is never visited.
  static func scan(_ text: String) -> FMLayout {
    withContiguousUTF8(text) { scan(bytes: $0) }
  }

  static func scan(bytes: UnsafeBufferPointer<UInt8>) -> FMLayout {
    let bomLength =
      bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    let opening = nextLine(bytes, from: bomLength)
    guard isDelimiter(bytes, opening, allowDots: false) else { return .none(bomLength: bomLength) }
    guard opening.end > opening.contentEnd else { return .unterminated }
    let lineEnding = opening.end - opening.contentEnd == 2 ? "\r\n" : "\n"
    var lines: [FMLine] = []
    var position = opening.end
    while position < bytes.count {
      let line = nextLine(bytes, from: position)
      if isDelimiter(bytes, line, allowDots: true) {
        let content = Array(bytes[opening.end..<line.start])
        return .block(
          FMBlock(
            openStart: bomLength, contentStart: opening.end, closeStart: line.start, bodyStart: line.end,
            lines: lines, lineEnding: lineEnding, content: content))
      }
      lines.append(line)
      position = line.end
    }
    return .unterminated
  }

  /// The line starting at `start`.
  static func nextLine(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> FMLine {
    let newline = findByte(UInt8(ascii: "\n"), in: bytes, from: start) ?? bytes.count
    let end = newline < bytes.count ? newline + 1 : newline
    var contentEnd = newline
    if contentEnd > start, bytes[contentEnd - 1] == UInt8(ascii: "\r") { contentEnd -= 1 }
    return FMLine(start: start, contentEnd: contentEnd, end: end)
  }

  /// `---` (or `...` when allowed) followed only by blanks.
  static func isDelimiter(_ bytes: UnsafeBufferPointer<UInt8>, _ line: FMLine, allowDots: Bool) -> Bool {
    guard line.contentEnd - line.start >= 3 else { return false }
    let first = bytes[line.start]
    guard first == UInt8(ascii: "-") || (allowDots && first == UInt8(ascii: ".")) else { return false }
    guard bytes[line.start + 1] == first, bytes[line.start + 2] == first else { return false }
    var index = line.start + 3
    while index < line.contentEnd {
      guard bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") else { return false }
      index += 1
    }
    return true
  }
}

/// Runs `body` over the text's UTF-8 bytes without copying native strings.
func withContiguousUTF8<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
  var text = text
  return try text.withUTF8 { try body($0) }
}

/// Offset of the first `byte` at or after `start`, via `memchr` so that long bodies are skipped at memory speed.
func findByte(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
  guard start < bytes.count, let base = bytes.baseAddress else { return nil }
  guard let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
  return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
}

/// A `String.Index` for a UTF-8 offset on a scalar boundary (O(1) for native strings).
func stringIndex(_ text: String, _ offset: Int) -> String.Index {
  text.utf8.index(text.utf8.startIndex, offsetBy: offset)
}

/// One top-level key/value pair of a parsed front matter mapping.
struct FMEntry {
  /// The key's scalar text (nil for a non-scalar key).
  var key: String?
  var keyNode: Node
  var value: Node
}

/// A front matter block parsed by Yams, plus the position mapping between Yams marks and the block's lines.
struct FMParsed {
  var block: FMBlock
  /// nil for an empty block (no content or only comments).
  var root: Node?
  var entries: [FMEntry]
  /// Start offsets (relative to the block content) of the lines as libyaml counts them. libyaml also breaks lines
  /// at a lone CR, NEL, LS and PS, which nb's own line splitting (LF only) does not.
  var yamlLineStarts: [Int]

  /// The entry for a top-level key.
  func entry(_ key: String) -> FMEntry? { entries.first { $0.key == key } }

  /// Parses a block. Throws `FrontMatterError.malformed` / `.notAMapping` with file line numbers.
  ///
  /// With `typingScalars: false`, for reading values as written (``FrontMatter/readIndexed(_:withFields:)``): Yams'
  /// default resolver compiles a dozen regular expressions when first used (ICU's regex start-up alone costs more
  /// than reading a note), only to type scalars, which reading never does but to tell null (``Node/Scalar/isNull``)
  /// and to tell keys apart. Without it, keys equal as text but not as typed (`1:` and `"1":`) are duplicates; only
  /// then is the block parsed again with the default resolver, whose verdict stands.
  static func parse(_ block: FMBlock, typingScalars: Bool = true) throws -> FMParsed {
    let starts = yamlLineStarts(block.content)
    var parsed = FMParsed(block: block, root: nil, entries: [], yamlLineStarts: starts)
    let yaml = String(decoding: block.content, as: UTF8.self)
    let root: Node?
    do {
      // The encoding named: Yams' default looks it up in the whole process environment on every call, which cost
      // more than parsing a note's block (a sync parses thousands).
      root = try Yams.compose(yaml: yaml, typingScalars ? .default : .basic, .default, .utf8)
    } catch YamlError.duplicatedKeysInMapping where !typingScalars {
      return try parse(block)
    } catch let error as YamlError {
      throw parsed.frontMatterError(for: error, yaml: yaml)
    }
    parsed.root = root
    guard let root else { return parsed }
    guard case .mapping(let mapping) = root else {
      throw FrontMatterError.notAMapping(line: parsed.fileLine(of: root.mark))
    }
    parsed.entries = mapping.map { pair in
      FMEntry(key: pair.key.scalar?.string, keyNode: pair.key, value: pair.value)
    }
    return parsed
  }

  static func yamlLineStarts(_ content: [UInt8]) -> [Int] {
    var starts = [0]
    var index = 0
    let count = content.count
    while index < count {
      let byte = content[index]
      if byte == 0x0A {
        starts.append(index + 1)
      } else if byte == 0x0D {
        if index + 1 < count, content[index + 1] == 0x0A { index += 1 }
        starts.append(index + 1)
      } else if byte == 0xC2, index + 1 < count, content[index + 1] == 0x85 {
        index += 1
        starts.append(index + 1)
      } else if byte == 0xE2, index + 2 < count, content[index + 1] == 0x80,
        content[index + 2] == 0xA8 || content[index + 2] == 0xA9
      {
        index += 2
        starts.append(index + 1)
      }
      index += 1
    }
    return starts
  }

  /// Offset (relative to the block content) of a libyaml line/column position.
  func contentOffset(yamlLine: Int, column: Int) -> Int {
    let lineIndex = min(max(yamlLine - 1, 0), yamlLineStarts.count - 1)
    var offset = yamlLineStarts[lineIndex]
    // libyaml counts columns in characters (Unicode scalars): skip UTF-8 continuation bytes.
    var remaining = max(column - 1, 0)
    let content = block.content
    while remaining > 0, offset < content.count {
      offset += 1
      while offset < content.count, content[offset] & 0xC0 == 0x80 { offset += 1 }
      remaining -= 1
    }
    return offset
  }

  /// Offset (relative to the block content) of a node's mark.
  func contentOffset(of mark: Mark) -> Int {
    contentOffset(yamlLine: mark.line, column: mark.column)
  }

  /// Index of the content line holding a content-relative offset (`lines.count` past the end).
  func lineIndex(containing offset: Int) -> Int {
    let absolute = offset + block.contentStart
    var low = 0
    var high = block.lines.count
    while low < high {
      let mid = (low + high) / 2
      if block.lines[mid].end <= absolute { low = mid + 1 } else { high = mid }
    }
    return low
  }

  /// 1-based file line of a mark (the opening line when the mark is unknown).
  func fileLine(of mark: Mark?) -> Int {
    guard let mark else { return 1 }
    return min(block.fileLine(ofContentLine: lineIndex(containing: contentOffset(of: mark))), block.closingFileLine)
  }

  /// File line and column of a libyaml mark; the column is only kept when libyaml's line is nb's line.
  private func fileLineAndColumn(_ mark: Mark) -> (line: Int, column: Int?) {
    let offset = contentOffset(of: mark)
    let index = lineIndex(containing: offset)
    let line = min(block.fileLine(ofContentLine: index), block.closingFileLine)
    let lineStart = index < block.lines.count ? block.lines[index].start - block.contentStart : block.content.count
    let yamlStart = yamlLineStarts[min(max(mark.line - 1, 0), yamlLineStarts.count - 1)]
    return (line, yamlStart == lineStart ? mark.column : nil)
  }

  func frontMatterError(for error: YamlError, yaml: String) -> FrontMatterError {
    func message(_ problem: String, _ context: YamlError.Context?) -> String {
      guard let context, !context.text.isEmpty else { return problem }
      return "\(problem) (\(context.text))"
    }
    switch error {
    case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      let position = fileLineAndColumn(mark)
      return .malformed(line: position.line, column: position.column, message: message(problem, context))
    case .duplicatedKeysInMapping(let duplicates, let context):
      let position = fileLineAndColumn(context.mark)
      let names = duplicates.map { "'\($0)'" }.joined(separator: ", ")
      return .malformed(line: position.line, column: position.column, message: "duplicate key \(names)")
    case .reader(let problem, let offset, _, _):
      // Yams reports reader offsets in Characters of the YAML text.
      var line = 1
      if let offset {
        let end = yaml.index(yaml.startIndex, offsetBy: offset, limitedBy: yaml.endIndex) ?? yaml.endIndex
        let byteOffset = yaml.utf8.distance(from: yaml.utf8.startIndex, to: end)
        line = min(block.fileLine(ofContentLine: lineIndex(containing: byteOffset)), block.closingFileLine)
      }
      return .malformed(line: line, column: nil, message: problem)
    default:
      return .malformed(line: 1, column: nil, message: String(describing: error))
    }
  }
}

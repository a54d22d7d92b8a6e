import Foundation

/// Finds the first ATX level-1 heading of a Markdown body, CommonMark style, in one linear pass.
enum MarkdownHeading {
  /// Text of the first `# Heading` line at or after byte `start`, skipping fenced code blocks (``` and ~~~).
  ///
  /// Up to three spaces may indent the heading (four make it code); the closing `#` run and surrounding blanks are
  /// dropped; an empty heading (`#` alone) is skipped. A BOM at `start` is ignored.
  static func firstLevelOne(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> String? {
    firstLevelOneRange(in: bytes, from: start).map {
      String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self)
    }
  }

  /// The byte range of the text ``firstLevelOne(in:from:)`` returns, so a rename can replace exactly those bytes.
  static func firstLevelOneRange(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Range<Int>? {
    var position = start
    if bytes.count - position >= 3, bytes[position] == 0xEF, bytes[position + 1] == 0xBB,
      bytes[position + 2] == 0xBF
    {
      position += 3
    }
    var fence: (byte: UInt8, length: Int)?
    while position < bytes.count {
      let line = FMLayout.nextLine(bytes, from: position)
      position = line.end
      var index = line.start
      while index < line.contentEnd, index - line.start < 4, bytes[index] == UInt8(ascii: " ") { index += 1 }
      guard index - line.start < 4, index < line.contentEnd else { continue }
      let first = bytes[index]
      if first == UInt8(ascii: "`") || first == UInt8(ascii: "~") {
        var runEnd = index
        while runEnd < line.contentEnd, bytes[runEnd] == first { runEnd += 1 }
        let length = runEnd - index
        if let open = fence {
          let restBlank = (runEnd..<line.contentEnd).allSatisfy { isBlank(bytes[$0]) }
          if first == open.byte, length >= open.length, restBlank { fence = nil }
        } else if length >= 3 {
          // A backtick fence's info string may not contain backticks (then it is inline code, not a fence).
          let info = runEnd..<line.contentEnd
          if first == UInt8(ascii: "~") || !info.contains(where: { bytes[$0] == UInt8(ascii: "`") }) {
            fence = (first, length)
          }
        }
        continue
      }
      guard fence == nil, first == UInt8(ascii: "#") else { continue }
      let afterHash = index + 1
      guard afterHash == line.contentEnd || isBlank(bytes[afterHash]) else { continue }
      if let text = headingRange(bytes, from: afterHash, to: line.contentEnd) { return text }
    }
    return nil
  }

  private static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

  private static func headingRange(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Range<Int>? {
    var low = start
    var high = end
    while low < high, isBlank(bytes[low]) { low += 1 }
    while high > low, isBlank(bytes[high - 1]) { high -= 1 }
    // A closing sequence is a run of `#` preceded by a blank (or making up the whole content).
    var hashes = high
    while hashes > low, bytes[hashes - 1] == UInt8(ascii: "#") { hashes -= 1 }
    if hashes < high, hashes == low || isBlank(bytes[hashes - 1]) {
      high = hashes
      while high > low, isBlank(bytes[high - 1]) { high -= 1 }
    }
    guard low < high else { return nil }
    return low..<high
  }
}

import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// The text kept around a link (its line, cut and trimmed) is what trimming with Foundation gives, whatever blanks
/// (ASCII or not) and line endings the line has: the byte-level trimming only skips Foundation where that cannot
/// change the result.
final class LinkContextTests: XCTestCase {
  /// The context as it was computed with Foundation's trimming alone.
  private func reference(_ text: String, _ range: Range<Int>) -> String {
    let bytes = Array(text.utf8)
    var start = range.lowerBound
    let floor = max(0, range.lowerBound - NoteIndex.contextBytes)
    while start > floor, bytes[start - 1] != 0x0A { start -= 1 }
    let cutBefore = start > 0 && bytes[start - 1] != 0x0A
    let linkEnd = min(range.upperBound, range.lowerBound + NoteIndex.contextLinkBytes)
    var end = linkEnd
    if linkEnd == range.upperBound {
      let ceiling = min(bytes.count, range.upperBound + NoteIndex.contextBytes)
      while end < ceiling, bytes[end] != 0x0A { end += 1 }
    }
    let cutAfter = end < bytes.count && bytes[end] != 0x0A
    while start < range.lowerBound, bytes[start] & 0xC0 == 0x80 { start += 1 }
    while end > linkEnd, end < bytes.count, bytes[end] & 0xC0 == 0x80 { end -= 1 }
    if end == linkEnd { while end > range.lowerBound, end < bytes.count, bytes[end] & 0xC0 == 0x80 { end -= 1 } }
    var line = String(decoding: bytes[start..<end], as: UTF8.self)
    if line.hasSuffix("\r") { line.removeLast() }
    line = line.trimmingCharacters(in: .whitespaces)
    return (cutBefore ? "…" : "") + line + (cutAfter ? "…" : "")
  }

  func testTrimmingAgreesWithFoundation() {
    var random = SplitMix64(seed: 11)
    let pieces = [" ", "  ", "\t", "\u{00A0}", "\u{3000}", "\u{2009}", "word", "é", "日本", "\r", "\n", "x\r\n"]
    for _ in 0..<3_000 {
      var before = ""
      var after = ""
      for _ in 0..<Int(random.next() % 8) { before += pieces[Int(random.next() % UInt64(pieces.count))] }
      for _ in 0..<Int(random.next() % 8) { after += pieces[Int(random.next() % UInt64(pieces.count))] }
      if random.next() % 5 == 0 { before = String(repeating: "long ", count: 30) + before }
      let link = random.next() % 7 == 0 ? "[[" + String(repeating: "y", count: 300) + "]]" : "[[x]]"
      let text = before + link + after
      let start = before.utf8.count
      let range = start..<(start + link.utf8.count)
      let got = Array(text.utf8).withUnsafeBufferPointer { NoteIndex.context($0, range) }
      XCTAssertEqual(got, reference(text, range), text.debugDescription)
    }
  }
}

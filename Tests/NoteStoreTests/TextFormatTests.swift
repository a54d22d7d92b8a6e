import Foundation
import TextFormat
import XCTest

/// TextFormat's trimming, padding and UUID text replace Foundation's on the hot paths; Foundation is the oracle.
final class TextFormatTests: XCTestCase {
  func testUUIDTextIsFoundationsInLowerCase() {
    var generator = SystemRandomNumberGenerator()
    for round in 0..<2_000 {
      var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
      if round == 0 { bytes = Array(repeating: 0, count: 16) }
      if round == 1 { bytes = Array(repeating: 0xFF, count: 16) }
      let uuid = UUID(
        uuid: (
          bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
          bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
      XCTAssertEqual(UUIDText.format(bytes), uuid.uuidString.lowercased())
    }
  }

  func testTheScalarsTrimmedAreFoundationsOwn() {
    var checked = 0
    for value in UInt32(0)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      XCTAssertEqual(
        scalar.isFoundationWhitespace, CharacterSet.whitespaces.contains(scalar), "U+\(String(value, radix: 16))")
      XCTAssertEqual(
        scalar.isFoundationWhitespaceOrNewline, CharacterSet.whitespacesAndNewlines.contains(scalar),
        "U+\(String(value, radix: 16))")
      checked += 1
    }
    XCTAssertEqual(checked, 0x110000 - 0x800)
  }

  func testTrimmedStringsEqualFoundations() {
    // Blanks of both kinds, line breaks, letters, a combining mark (which must not be trimmed with the blank
    // before it), an emoji with a modifier, and text that is not ASCII.
    let pieces = [
      " ", "\t", "\n", "\r\n", "\u{85}", "\u{A0}", "\u{2003}", "\u{2028}", "\u{3000}", "\u{200B}", "a", "é", "e\u{301}",
      "\u{301}", "👍🏽", "x y", "日本", "-", "",
    ]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<5_000 {
      let count = Int.random(in: 0...8, using: &generator)
      let text = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
      XCTAssertEqual(text.trimmingWhitespaces(), text.trimmingCharacters(in: .whitespaces), text.debugDescription)
      XCTAssertEqual(
        text.trimmingWhitespacesAndNewlines(), text.trimmingCharacters(in: .whitespacesAndNewlines),
        text.debugDescription)
      let cut = text.dropFirst(count % 2)
      XCTAssertEqual(cut.trimmingWhitespaces(), cut.trimmingCharacters(in: .whitespaces), cut.debugDescription)
      XCTAssertEqual(
        cut.trimmingWhitespacesAndNewlines(), cut.trimmingCharacters(in: .whitespacesAndNewlines),
        cut.debugDescription)
    }
  }

  func testPaddedStringsEqualFoundations() {
    // Lengths around each string's own, and pieces of one, two and four UTF-16 units (a cut may split a pair).
    let pieces = ["a", " ", "é", "e\u{301}", "日", "👍🏽", "-", "\t", ""]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<5_000 {
      let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
        pieces.randomElement(using: &generator)!
      }.joined()
      let length = max(0, text.utf16.count + Int.random(in: -3...3, using: &generator))
      XCTAssertEqual(
        text.paddedWithSpaces(toLength: length), text.padding(toLength: length, withPad: " ", startingAt: 0),
        "\(text.debugDescription) to \(length)")
    }
  }
}

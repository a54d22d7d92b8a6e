import XCTest

@testable import NoteStore

final class SlugTests: XCTestCase {
  /// Compares scalar by scalar: `String ==` treats NFC and NFD as equal, which would hide a missing normalisation.
  private func assertScalars(_ actual: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(
      actual.unicodeScalars.map(\.value), expected.unicodeScalars.map(\.value),
      "\(actual.debugDescription) vs \(expected.debugDescription)", file: file, line: line)
  }

  func testASCIIPunctuationRunsBecomeOneHyphen() {
    XCTAssertEqual(Slug.make("Hello, World!"), "hello-world")
    XCTAssertEqual(Slug.make("Q3   planning -- draft (v2)"), "q3-planning-draft-v2")
    XCTAssertEqual(Slug.make("v1.2.3 release"), "v1-2-3-release")
    XCTAssertEqual(Slug.make("snake_case title"), "snake_case-title")
    XCTAssertEqual(Slug.make("Tab\tand\nnewline\u{7F}end"), "tab-and-newline-end")
  }

  func testPathCharactersNeverSurvive() {
    XCTAssertEqual(Slug.make("a / b \\ c"), "a-b-c")
    XCTAssertEqual(Slug.make("../../etc/passwd"), "etc-passwd")
    XCTAssertEqual(Slug.make("C:\\Windows"), "c-windows")
  }

  func testLeadingAndTrailingDotsAndHyphensTrimmed() {
    XCTAssertEqual(Slug.make(".hidden"), "hidden")
    XCTAssertEqual(Slug.make("...dots..."), "dots")
    XCTAssertEqual(Slug.make("--x--"), "x")
    XCTAssertEqual(Slug.make("_private_"), "_private_")
  }

  func testEmptyBecomesUntitled() {
    XCTAssertEqual(Slug.make(""), "untitled")
    XCTAssertEqual(Slug.make("   "), "untitled")
    XCTAssertEqual(Slug.make("!!! ... ???"), "untitled")
    XCTAssertEqual(Slug.make("🎉🎉"), "untitled")
  }

  func testUnicodeLettersKeptAndLowerCased() {
    assertScalars(Slug.make("Café Crème"), "caf\u{E9}-cr\u{E8}me")
    assertScalars(Slug.make("Straße"), "stra\u{DF}e")
    XCTAssertEqual(Slug.make("Привет, Мир"), "привет-мир")
    XCTAssertEqual(Slug.make("日本語のノート"), "日本語のノート")
    XCTAssertEqual(Slug.make("会议 记录"), "会议-记录")
    XCTAssertEqual(Slug.make("عربي ٣"), "عربي-٣")
  }

  func testEmojiAndSymbolsAreSeparators() {
    XCTAssertEqual(Slug.make("🚀 Launch 🎉 party"), "launch-party")
    XCTAssertEqual(Slug.make("x² + 1 = €5"), "x-1-5")
  }

  func testDecomposedInputComesOutComposed() {
    // "Cafe" + COMBINING ACUTE ACCENT: NFD as macOS file dialogs and some keyboards produce it.
    assertScalars(Slug.make("Cafe\u{301}"), "caf\u{E9}")
    // Hangul jamo compose into one syllable under NFC.
    assertScalars(Slug.make("\u{1112}\u{1161}\u{11AB}"), "\u{D55C}")
    // Lower-casing İ yields i + COMBINING DOT ABOVE, which has no composed form and must stay attached.
    assertScalars(Slug.make("İstanbul"), "i\u{307}stanbul")
  }

  func testOrphanCombiningMarksDropped() {
    assertScalars(Slug.make("\u{301}abc"), "abc")
    assertScalars(Slug.make("a -\u{301} b"), "a-b")
  }

  func testLengthCutOnCharacterBoundaryWithoutTrailingHyphen() {
    XCTAssertEqual(Slug.make(String(repeating: "a", count: 100)), String(repeating: "a", count: 80))
    // Character 80 is the separator: the cut must not leave it dangling.
    let title = String(repeating: "a", count: 79) + " bcd"
    XCTAssertEqual(Slug.make(title), String(repeating: "a", count: 79))
    // 100 decomposed "é": 80 characters, each composed to one 2-byte scalar.
    assertScalars(Slug.make(String(repeating: "e\u{301}", count: 100)), String(repeating: "\u{E9}", count: 80))
  }

  func testLengthCutKeepsMarksWithTheirBase() {
    // é + COMBINING CIRCUMFLEX is one character of 4 UTF-8 bytes; the 160-byte cap allows 40 of them.
    let slug = Slug.make(String(repeating: "e\u{301}\u{302}", count: 100))
    XCTAssertEqual(slug.count, 40)
    XCTAssertTrue(slug.allSatisfy { $0.unicodeScalars.map(\.value) == [0xE9, 0x302] })
  }

  func testByteCapForMultiByteScripts() {
    // 3 bytes per CJK character: 53 fit in 160 bytes, 54 would not.
    let slug = Slug.make(String(repeating: "日", count: 100))
    XCTAssertEqual(slug, String(repeating: "日", count: 53))
    XCTAssertLessThanOrEqual(slug.utf8.count, Slug.maxBytes)
  }

  func testUniqueAppendsCounter() {
    XCTAssertEqual(Slug.unique("note") { _ in false }, "note")
    let taken: Set = ["note", "note-2", "note-3"]
    XCTAssertEqual(Slug.unique("note") { taken.contains($0) }, "note-4")
    XCTAssertEqual(Slug.unique("x") { $0 == "x" }, "x-2")
  }
}

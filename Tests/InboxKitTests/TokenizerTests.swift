import InboxKit
import XCTest

final class TokenizerTests: XCTestCase {
  func testLowercasesFoldsAndSplits() {
    XCTAssertEqual(InboxText.words("Café au lait, NAÏVE Straße!"), ["cafe", "au", "lait", "naive", "strasse"])
    XCTAssertEqual(InboxText.words("e-mail x2 v2.1 ＡＢＣ"), ["mail", "x2", "v2", "abc"])
  }

  func testDropsStopwordsSingleLettersAndNumbers() {
    XCTAssertEqual(
      InboxText.words("Call the dentist at 10:30 on 2026-11-24 about a bridge"), ["call", "dentist", "bridge"])
  }

  func testURLsBecomeHostWords() {
    XCTAssertEqual(
      InboxText.words("see https://www.dentist-bridge.co.uk/book?id=123abc now"), ["see", "dentist", "bridge"])
    XCTAssertEqual(
      InboxText.words("[docs](https://docs.github.com/en/actions) and <https://user:pw@git.example.org:8080/x>"),
      ["docs", "docs", "github", "git", "example"])
    XCTAssertEqual(InboxText.words("www.python.org/downloads"), ["python"])
  }

  func testMarkdownAndHTMLNoise() {
    let text = "# Groceries\n- [ ] **milk** &amp; _eggs_<br/>\n<div class=\"x\">bread</div>\n> quote `code`\n"
    XCTAssertEqual(InboxText.words(text), ["groceries", "milk", "eggs", "bread", "quote", "code"])
    XCTAssertEqual(InboxText.words("apples < pears and kiwi >figs"), ["apples", "pears", "kiwi", "figs"])
  }

  func testFrontMatterKeepsOnlyDescribingValues() {
    let text = """
      ---
      id: 01J9ZQ4K7Y
      created: 2026-11-24T10:00:00Z
      title: Tax return
      tags:
        - finance
        - paperwork
      status: inbox
      ---
      Send receipts
      """
    XCTAssertEqual(InboxText.words(text), ["tax", "return", "finance", "paperwork", "send", "receipts"])
    XCTAssertEqual(
      InboxText.words("\u{FEFF}---\r\ntitle: Tax\r\nid: abc\r\n---\r\nbody text"), ["tax", "body", "text"])
    // No closing fence: it was never front matter.
    XCTAssertEqual(InboxText.words("---\nkey: value"), ["key", "value"])
  }

  func testFeaturesAreUnigramsThenBigrams() {
    XCTAssertEqual(
      InboxText.features("Dentist: the bridge fitting"),
      ["dentist", "bridge", "fitting", "dentist bridge", "bridge fitting"])
    XCTAssertEqual(InboxText.features("dentist"), ["dentist"])
    XCTAssertEqual(InboxText.features(""), [])
  }

  func testGarbageNeverTraps() {
    XCTAssertEqual(InboxText.words(""), [])
    XCTAssertEqual(InboxText.words("<"), [])
    XCTAssertEqual(InboxText.words("&"), [])
    XCTAssertEqual(InboxText.words("https://"), [])
    XCTAssertEqual(InboxText.words("---"), [])
    XCTAssertEqual(InboxText.words(String(repeating: "a", count: 41) + " ok"), ["ok"])
    let binary = String(decoding: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) }, as: UTF8.self)
    XCTAssertTrue(InboxText.features(binary).allSatisfy { !$0.isEmpty })
    XCTAssertEqual(InboxText.words("東京 टेस्ट"), ["東京", "टेस्ट"])
  }

  func testTenMegabytes() {
    let line = "Meeting notes for the project launch https://example.com/x review budget\n"
    let text = String(repeating: line, count: 10_000_000 / line.utf8.count)
    let start = Date()
    let words = InboxText.words(text)
    XCTAssertEqual(words.count, 7 * (10_000_000 / line.utf8.count))
    XCTAssertEqual(Array(words.prefix(7)), ["meeting", "notes", "project", "launch", "example", "review", "budget"])
    print("10 MB tokenized in", Date().timeIntervalSince(start), "s")
  }
}

import TaskKit
import XCTest

final class ChecklistTests: XCTestCase {
  func testReadsItemsWithOffsets() {
    let text = "# Title\n- [ ] one\n- [x] two\n  - [/] three\n"
    XCTAssertEqual(
      Checklist.items(in: text),
      [
        ChecklistItem(
          line: 2, lineStart: 8, lineEnd: 17, indent: 0, marker: "-", check: " ", checkOffset: 11, text: "one",
          parent: nil, depth: 0, status: .open),
        ChecklistItem(
          line: 3, lineStart: 18, lineEnd: 27, indent: 0, marker: "-", check: "x", checkOffset: 21, text: "two",
          parent: nil, depth: 0, status: .done),
        ChecklistItem(
          line: 4, lineStart: 28, lineEnd: 41, indent: 2, marker: "-", check: "/", checkOffset: 33, text: "three",
          parent: 1, depth: 1, status: .inProgress),
      ])
  }

  func testCRLFLineEndsBeforeTheCarriageReturn() {
    let items = Checklist.items(in: "- [ ] a\r\n- [X] b\r\n")
    XCTAssertEqual(items.map(\.lineStart), [0, 9])
    XCTAssertEqual(items.map(\.lineEnd), [7, 16])
    XCTAssertEqual(items.map(\.checkOffset), [3, 12])
    XCTAssertEqual(items.map(\.text), ["a", "b"])
    XCTAssertEqual(items.map(\.status), [.open, .done])
  }

  func testMarkersAndWhatIsNotAnItem() {
    let text = """
      * [ ] star
      + [ ] plus
      1. [ ] one
      12) [x] twelve
      1234567890. [ ] ten digits
      -[ ] no space
      - [] empty brackets
      - [ ]x glued
      - [ ]
      - [ab] two characters
      -\t[-]\ttabbed
      \t- [>] deferred
      - [ ]  two spaces
      """
    let items = Checklist.items(in: text)
    XCTAssertEqual(items.map(\.line), [1, 2, 3, 4, 9, 11, 12, 13])
    XCTAssertEqual(items.map(\.marker), ["*", "+", "1.", "12)", "-", "-", "-", "-"])
    XCTAssertEqual(items.map(\.text), ["star", "plus", "one", "twelve", "", "tabbed", "deferred", " two spaces"])
    XCTAssertEqual(items.map(\.indent), [0, 0, 0, 0, 0, 0, 4, 0])
    XCTAssertEqual(items.map(\.status), [.open, .open, .open, .done, .open, .cancelled, .other(">"), .open])
  }

  func testOddInputNeverTraps() {
    for text in [
      "", "\n", "\n\n\r\n", "- [", "- [ ", "- [x", "-", "1.", "12", "[ ]", "- [\u{301}] x", "\r", "> ", ">",
      "```", "~~~\n", "<!--", "-->", "- [\t] tab", "- [\u{00A0}] nbsp", "- [x\u{301}] accent",
    ] {
      XCTAssertEqual(Checklist.items(in: text), [], text.debugDescription)
    }
    // "- [\xFF] a\n- [ ] \xC3": a byte that is never UTF-8, and a sequence cut short at the end.
    let bytes: [UInt8] = [0x2D, 0x20, 0x5B, 0xFF, 0x5D, 0x20, 0x61, 0x0A, 0x2D, 0x20, 0x5B, 0x20, 0x5D, 0x20, 0xC3]
    let repaired = String(decoding: bytes, as: UTF8.self)
    let items = Checklist.items(in: repaired)
    XCTAssertEqual(items.map(\.check), ["\u{FFFD}", " "])
    XCTAssertEqual(items.map(\.text), ["a", "\u{FFFD}"])
    XCTAssertEqual(items.map(\.checkOffset), [3, 13])
  }

  func testNonASCIICheckIsOneScalar() {
    let items = Checklist.items(in: "- [✓] z\n- [x] after")
    XCTAssertEqual(items.map(\.check), ["✓", "x"])
    XCTAssertEqual(items.map(\.status), [.other("✓"), .done])
    XCTAssertEqual(items.map(\.checkOffset), [3, 13])
    XCTAssertEqual(items.map(\.lineEnd), [9, 21])
  }

  func testFencedCodeIsSkipped() {
    let text = """
      - [ ] before
      ```md
      - [ ] in code
      ```
      ~~~~
      - [ ] tilde
      ~~~
      - [ ] still code
      ~~~~
      - [ ] after
      - [ ] list
        ```
        - [ ] code in a list item
        ```
      - [ ] after list code
      Paragraph
          ```
      - [ ] indented four at top level is not a fence
      ``` a ` b
      - [ ] a backtick info string is not a fence
      > ```
      > - [ ] quoted code
      - [ ] the quote ended the fence
      ```
      - [ ] unclosed fence runs to the end
      """
    XCTAssertEqual(
      Checklist.items(in: text).map(\.text),
      [
        "before", "after", "list", "after list code", "indented four at top level is not a fence",
        "a backtick info string is not a fence", "the quote ended the fence",
      ])
  }

  func testHTMLCommentsAreSkipped() {
    let text = """
      - [ ] a
      <!--
      - [ ] hidden
      -->
      - [ ] b
      <!-- one line -->
      - [ ] c
      - [ ] d <!-- open
      - [ ] hidden too
      end -->
      - [ ] e <!-- x --> <!-- y -->
      - [ ] f
      - [ ] write `<!--` and ``a ` <!-- b`` in code
      - [ ] g
      - [ ] unclosed ` <!-- x
      - [ ] hidden by it
      -->
      - [ ] h
      """
    XCTAssertEqual(
      Checklist.items(in: text).map(\.text),
      [
        "a", "b", "c", "d <!-- open", "e <!-- x --> <!-- y -->", "f", "write `<!--` and ``a ` <!-- b`` in code", "g",
        "unclosed ` <!-- x", "h",
      ])
  }

  func testBlockquotesAndCalloutsCount() {
    let text = "> - [ ] quoted\n> > - [x] deeper\n>- [ ] tight\n> [!note]\n> - [ ] in callout\n>   - [ ] child\n"
    let items = Checklist.items(in: text)
    XCTAssertEqual(items.map(\.text), ["quoted", "deeper", "tight", "in callout", "child"])
    XCTAssertEqual(items.map(\.indent), [0, 0, 0, 0, 2])
    XCTAssertEqual(items.map(\.parent), [nil, nil, nil, nil, 3])
    XCTAssertEqual(items.map(\.checkOffset), [5, 22, 36, 60, 81])
  }

  func testNesting() {
    let text = """
      - [ ] A
        - [ ] A1
          - [ ] A1a
        - [ ] A2
      - plain
        - [ ] P1
      1. [ ] B
         continuation
         - [ ] B1

        - [ ] B2
      Paragraph
        - [ ] C
      - [ ] D
        - note
          - [ ] D1
      """
    let items = Checklist.items(in: text)
    XCTAssertEqual(items.map(\.text), ["A", "A1", "A1a", "A2", "P1", "B", "B1", "B2", "C", "D", "D1"])
    XCTAssertEqual(items.map(\.parent), [nil, 0, 1, 0, nil, nil, 5, 5, nil, nil, 9])
    XCTAssertEqual(items.map(\.depth), [0, 1, 2, 1, 0, 0, 1, 1, 0, 0, 1])
  }

  func testBodyStartSkipsFrontMatterButKeepsLineNumbers() {
    let text = "---\n- [ ] fm\n---\n- [ ] body\n"
    XCTAssertEqual(
      Checklist.items(in: text, bodyStart: 17),
      [
        ChecklistItem(
          line: 4, lineStart: 17, lineEnd: 27, indent: 0, marker: "-", check: " ", checkOffset: 20, text: "body",
          parent: nil, depth: 0, status: .open)
      ])
    XCTAssertEqual(Checklist.items(in: text, bodyStart: 1000), [])
    XCTAssertEqual(Checklist.items(in: text, bodyStart: -5).count, 2)
  }

  func testTenThousandLines() {
    var text = ""
    for index in 0..<10_000 {
      text += String(repeating: " ", count: index % 3 * 2) + "- [\(index % 2 == 0 ? " " : "x")] task \(index)\r\n"
    }
    let items = Checklist.items(in: text)
    XCTAssertEqual(items.count, 10_000)
    XCTAssertEqual(items.last?.line, 10_000)
    XCTAssertEqual(items.last?.text, "task 9999")
    XCTAssertEqual(items.last?.parent, nil)
    XCTAssertEqual(items[9998].parent, 9997)
    XCTAssertEqual(items[9998].depth, 2)
    XCTAssertEqual(Checklist.progress(items).done, 5_000)
    let deep = (0..<2_000).map { String(repeating: " ", count: $0) + "- [ ] d" }.joined(separator: "\n")
    XCTAssertEqual(Checklist.items(in: deep).last?.depth, 1_999)
  }

  func testSettingChangesOnlyTheCheck() {
    let text = "- [ ] a\r\n  - [x] b\r\n"
    let items = Checklist.items(in: text)
    XCTAssertEqual(Checklist.setting(items[1], check: " ", in: text), "- [ ] a\r\n  - [ ] b\r\n")
    XCTAssertEqual(Checklist.setting(items[0], check: "x", in: text), "- [x] a\r\n  - [x] b\r\n")
    let unicode = "- [✓] z\n"
    let item = Checklist.items(in: unicode)[0]
    XCTAssertEqual(Checklist.setting(item, check: "x", in: unicode), "- [x] z\n")
    XCTAssertEqual(Checklist.setting(items[0], check: "✓", in: text), "- [✓] a\r\n  - [x] b\r\n")
  }

  func testSettingRefusesStaleItemsAndLineBreaks() {
    let text = "- [ ] a\n"
    let item = Checklist.items(in: text)[0]
    XCTAssertEqual(Checklist.setting(item, check: "\n", in: text), text)
    XCTAssertEqual(Checklist.setting(item, check: "]", in: text), text)
    XCTAssertEqual(Checklist.setting(item, check: "x", in: "- [x] a\n"), "- [x] a\n")
    XCTAssertEqual(Checklist.setting(item, check: "x", in: ""), "")
    var far = item
    far.checkOffset = 99
    XCTAssertEqual(Checklist.setting(far, check: "x", in: text), text)
  }

  func testProgress() {
    let items = Checklist.items(in: "- [ ] a\n- [x] b\n- [X] c\n- [-] d\n- [/] e\n- [?] f\n")
    XCTAssertTrue(Checklist.progress(items) == (done: 2, total: 5))
    XCTAssertTrue(Checklist.progress([]) == (done: 0, total: 0))
  }

  /// Texts built from awkward pieces: nothing traps and every item's offsets point at what it says.
  func testMixedPiecesKeepTheirOffsets() {
    let pieces = [
      "- ", "* ", "1. ", "12) ", "[ ] ", "[x]", "[✓] ", "[", "]", " ", "  ", "\t", "> ", "```", "~~~", "<!--", "-->",
      "`", "\n", "\r\n", "\r", "text", "é", "\u{FFFD}", "\u{301}", "#", "---\n",
    ]
    var seed: UInt64 = 42
    func next(_ bound: Int) -> Int {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((seed >> 33) % UInt64(bound))
    }
    for _ in 0..<3_000 {
      let text = (0..<next(30)).map { _ in pieces[next(pieces.count)] }.joined()
      let bytes = Array(text.utf8)
      let bodyStart = next(3)
      let items = Checklist.items(in: text, bodyStart: bodyStart)
      for (index, item) in items.enumerated() {
        let check = Array(String(item.check).utf8)
        XCTAssertTrue(item.lineStart <= item.checkOffset && item.checkOffset + check.count < item.lineEnd, text)
        XCTAssertEqual(Array(bytes[item.checkOffset..<(item.checkOffset + check.count)]), check, text)
        XCTAssertEqual(
          String(decoding: bytes[(item.lineEnd - item.text.utf8.count)..<item.lineEnd], as: UTF8.self), item.text)
        XCTAssertFalse(item.text.contains("\n"), text)
        if let parent = item.parent {
          XCTAssertLessThan(parent, index, text)
          XCTAssertEqual(items[parent].depth + 1, item.depth, text)
        } else {
          XCTAssertEqual(item.depth, 0, text)
        }
        let ticked = Checklist.items(in: Checklist.setting(item, check: "x", in: text), bodyStart: bodyStart)
        XCTAssertTrue(ticked.contains { $0.checkOffset == item.checkOffset && $0.check == "x" }, text)
      }
    }
  }
}

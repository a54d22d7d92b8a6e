import LinkKit
import XCTest

/// What is not a link: code, escapes; and front matter, where only quoted values count.
final class NotLinksTests: XCTestCase {
  func testFencedCode() {
    let text = """
      before [[A]]
      ```md
      [[Inside fence]] ![[img.png]] [x](y.md)
      ```
      ~~~~
      [[Tilde fence]]
      ```
      still inside: a shorter or other fence does not close it
      ~~~~
      after [[B]]
      """
    XCTAssertEqual(LinkScanner.links(in: text).map(\.target), ["A", "B"])
  }

  func testFencesInCalloutsAndLists() {
    let text = """
      > [!example] Try it
      > ```md
      > [[Quoted fence]]
      > ```
      > then [[C]]

      - item
          ```
          [[Listed fence]]
          ```
      - [[D]]
      """
    XCTAssertEqual(LinkScanner.links(in: text).map(\.target), ["C", "D"])
  }

  func testUnclosedFenceRunsToTheEnd() {
    XCTAssertEqual(LinkScanner.links(in: "[[A]]\n```\n[[B]]\n[[C]]").map(\.target), ["A"])
  }

  func testBacktickLineWithInfoBackticksIsNotAFence() {
    XCTAssertEqual(LinkScanner.links(in: "```a``` [[A]]").map(\.target), ["A"])
  }

  func testInlineCode() {
    let text = """
      Type `[[Note]]` or ``[[Two `ticks` inside]]`` or `[x](y.md)`; but [[Real]] counts.

      An unmatched ` backtick is text: [[Also real]].

      A span can `cross
      [[lines]]` within a paragraph.

      But not a blank line: `open

      [[After blank]] `
      """
    XCTAssertEqual(LinkScanner.links(in: text).map(\.target), ["Real", "Also real", "After blank"])
  }

  func testEscapedBrackets() {
    let text = #"Type \[\[Wikilinks\]\] to start; \[[half]] and \[text](x.md) are not links; [[Yes]]"#
    XCTAssertEqual(LinkScanner.links(in: text).map(\.target), ["Yes"])
    // An escaped backslash does not escape the bracket.
    XCTAssertEqual(LinkScanner.links(in: #"\\[[Yes]]"#).map(\.target), ["Yes"])
    // An escaped backtick opens no code span.
    XCTAssertEqual(LinkScanner.links(in: #"\`[[Yes]]`"#).map(\.target), ["Yes"])
  }

  func testFrontMatterCountsQuotedLinks() {
    let text = """
      ---
      title: Launch review
      related: "[[Launch plan]]"
      sources:
        - "[[Mission report.pdf#page=2]]"
        - '[[Budget|the budget]]'
      mixed: ["[[A]]", '[[B]]']
      unquoted: [[Not a link]]
      note: Don't [[count]] this
      cover: "![[cover.png]]"
      ---
      Body [[Body link]]
      """
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(
      links.map(\.target), ["Launch plan", "Mission report.pdf", "Budget", "A", "B", "cover.png", "Body link"])
    XCTAssertEqual(links.map(\.inFrontMatter), [true, true, true, true, true, true, false])
    XCTAssertEqual(links.map(\.line), [3, 5, 6, 7, 7, 10, 12])
    XCTAssertEqual(links[1].headings, ["page=2"])
    XCTAssertEqual(links[2].display, "the budget")
    XCTAssertEqual(links[5].kind, .embed)
    XCTAssertEqual(bytes(text, links[0].range), "[[Launch plan]]")
  }

  func testFrontMatterCommentsAndUnclosedFrontMatter() {
    let text = "---\nkey: x # \"[[Commented]]\"\n---\n"
    XCTAssertEqual(LinkScanner.links(in: text).count, 0)
    // No closing fence: it was never front matter, the links are body links.
    let body = LinkScanner.links(in: "---\nrelated: [[X]]\n")
    XCTAssertEqual(body.map(\.target), ["X"])
    XCTAssertEqual(body.map(\.inFrontMatter), [false])
    // A byte order mark before the fence, and CRLF lines.
    let crlf = LinkScanner.links(in: "\u{FEFF}---\r\nup: \"[[Parent]]\"\r\n---\r\n[[Child]]\r\n")
    XCTAssertEqual(crlf.map(\.target), ["Parent", "Child"])
    XCTAssertEqual(crlf.map(\.inFrontMatter), [true, false])
  }

  func testHorizontalRuleLaterIsNotFrontMatter() {
    let text = "# Title\n---\nrelated: [[X]]\n---\n"
    XCTAssertEqual(LinkScanner.links(in: text).map(\.inFrontMatter), [false])
  }
}

import LinkKit
import XCTest

/// Markdown links and images, as Obsidian reads them when Wikilinks are off.
final class MarkdownLinkTests: XCTestCase {
  func testPercentEncodedDestination() {
    let text = "[Kepler's laws](Kepler's%20laws.md)"
    let link = LinkScanner.links(in: text)[0]
    XCTAssertEqual(link.kind, .markdown)
    XCTAssertEqual(link.target, "Kepler's laws.md")
    XCTAssertEqual(link.display, "Kepler's laws")
    // The target's bytes are what was written, still encoded: what a rename replaces.
    XCTAssertEqual(bytes(text, link.targetRange), "Kepler's%20laws.md")
    XCTAssertEqual(bytes(text, link.range), text)
  }

  func testExtensionlessAndAngleDestinations() {
    let text = "[a](Kepler's%20laws) [b](<Kepler's laws.md>) [c](<Kepler's laws>)"
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(links.map(\.target), ["Kepler's laws", "Kepler's laws.md", "Kepler's laws"])
    XCTAssertEqual(bytes(text, links[1].targetRange), "Kepler's laws.md")
    let resolver = LinkResolver(paths: ["Kepler's laws.md"])
    XCTAssertEqual(Set(links.map { resolver.resolve($0, from: "x.md") }), [.note("Kepler's laws.md")])
  }

  func testFolderPathAndHeading() {
    let text = "[risks](Projects/Apollo/Launch%20plan.md#Open%20risks)"
    let link = LinkScanner.links(in: text)[0]
    XCTAssertEqual(link.target, "Projects/Apollo/Launch plan.md")
    XCTAssertEqual(link.headings, ["Open risks"])
    XCTAssertEqual(bytes(text, link.targetRange), "Projects/Apollo/Launch%20plan.md")
    XCTAssertEqual(LinkScanner.links(in: "[q](Reading%20list.md#^b7e9)")[0].block, "b7e9")
    let same = LinkScanner.links(in: "[up](#Open%20questions)")[0]
    XCTAssertEqual(same.target, "")
    XCTAssertEqual(same.headings, ["Open questions"])
  }

  func testImages() {
    let text = "![Saturn at opposition](Attachments/Saturn%202024.png) and ![](chart.svg)"
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(links.map(\.kind), [.image, .image])
    XCTAssertEqual(links.map(\.target), ["Attachments/Saturn 2024.png", "chart.svg"])
    XCTAssertEqual(links.map(\.display), ["Saturn at opposition", ""])
    XCTAssertEqual(bytes(text, links[0].range), "![Saturn at opposition](Attachments/Saturn%202024.png)")
  }

  func testExternalURLsAreNotNoteLinks() {
    let text = """
      [site](https://example.org/a%20b) [mail](mailto:someone@example.org) [app](obsidian://open?vault=V&file=N)
      [net](//cdn.example.org/x.png) ![w](https://example.org/Saturn.jpg) <https://example.org>
      [file](file:///tmp/x.md) [local](notes/x.md)
      """
    XCTAssertEqual(LinkScanner.links(in: text).map(\.target), ["notes/x.md"])
  }

  func testTitlesAndBalancedParentheses() {
    let text = """
      [a](Note.md "a title") [b](Note.md 'single') [c](Note.md (paren)) [d](Moon_(natural_satellite).md)
      """
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(links.map(\.target), ["Note.md", "Note.md", "Note.md", "Moon_(natural_satellite).md"])
    // Unbalanced, or a space without a title: not a link.
    XCTAssertEqual(LinkScanner.links(in: "[x](a(b.md) [y](two words.md) [z]() [w](#)").count, 0)
  }

  func testBackslashEscapesInDestination() {
    let link = LinkScanner.links(in: "[x](Odd\\(name.md)")[0]
    XCTAssertEqual(link.target, "Odd(name.md")
  }

  func testLinkedImageAndNesting() {
    let text = "[![cover](cover.png)](Book.md)"
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(links.map(\.kind), [.markdown, .image])
    XCTAssertEqual(links.map(\.target), ["Book.md", "cover.png"])
    XCTAssertEqual(links.map(\.range.lowerBound), [0, 1])
    // Links do not nest: the outer brackets are text.
    XCTAssertEqual(LinkScanner.links(in: "[a [b](B.md) c](C.md)").map(\.target), ["B.md"])
  }

  func testTextAcrossLinesAndDestinationOnNextLine() {
    let links = LinkScanner.links(in: "[a long\nshown text](Note.md)\n[x](\nOther.md)")
    XCTAssertEqual(links.map(\.target), ["Note.md", "Other.md"])
    XCTAssertEqual(links.map(\.line), [1, 3])
  }

  func testBracketsThatAreNotLinks() {
    let text = "- [ ] task [x] done [^1] footnote\n> [!note] callout\n[just brackets] (and parens)\n[^1]: a"
    XCTAssertEqual(LinkScanner.links(in: text).count, 0)
  }

  func testBadPercentEscapesStayAsWritten() {
    XCTAssertEqual(LinkScanner.links(in: "[x](100%25%20done.md)")[0].target, "100% done.md")
    XCTAssertEqual(LinkScanner.links(in: "[x](50%.md)")[0].target, "50%.md")
    XCTAssertEqual(LinkScanner.links(in: "[x](bad%FF.md)")[0].target, "bad%FF.md")
    XCTAssertEqual(LinkScanner.links(in: "[x](Caf%C3%A9.md)")[0].target, "Café.md")
  }
}

import LinkKit
import XCTest

/// The bytes of `range` in `text`.
func bytes(_ text: String, _ range: Range<Int>) -> String {
  String(decoding: Array(text.utf8)[range], as: UTF8.self)
}

/// Wiki links and embeds, rule by rule ("Internal links", "Embed files", "Link to blocks" in the help vault).
final class WikiLinkTests: XCTestCase {
  func testNoteAndNoteDotMdAreOneTarget() {
    let text = "See [[Orbital mechanics]] and [[Orbital mechanics.md]]."
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(links.map(\.target), ["Orbital mechanics", "Orbital mechanics.md"])
    XCTAssertEqual(links.map(\.kind), [.wiki, .wiki])
    XCTAssertEqual(bytes(text, links[0].range), "[[Orbital mechanics]]")
    XCTAssertEqual(bytes(text, links[1].targetRange), "Orbital mechanics.md")
    // Both reach the same file.
    let resolver = LinkResolver(paths: ["Physics/Orbital mechanics.md"])
    XCTAssertEqual(
      links.map { resolver.resolve($0, from: "Index.md") },
      Array(repeating: .note("Physics/Orbital mechanics.md"), count: 2))
  }

  func testWholeLinkAndTargetRanges() {
    let text = "ab [[Kepler]] cd"
    let link = LinkScanner.links(in: text)[0]
    XCTAssertEqual(
      link,
      NoteLink(kind: .wiki, target: "Kepler", line: 1, range: 3..<13, targetRange: 5..<11))
  }

  func testDisplayText() {
    let link = LinkScanner.links(in: "[[Kepler's laws|the three laws]]")[0]
    XCTAssertEqual(link.target, "Kepler's laws")
    XCTAssertEqual(link.display, "the three laws")
    XCTAssertNil(LinkScanner.links(in: "[[Kepler's laws]]")[0].display)
    // An empty display is still a display.
    XCTAssertEqual(LinkScanner.links(in: "[[Kepler|]]")[0].display, "")
  }

  func testHeadingAndChainedHeadings() {
    let one = LinkScanner.links(in: "[[Kepler's laws#Second law]]")[0]
    XCTAssertEqual(one.target, "Kepler's laws")
    XCTAssertEqual(one.headings, ["Second law"])
    XCTAssertNil(one.block)
    let chain = LinkScanner.links(in: "[[Field guide#Birds#Corvids#Ravens|ravens]]")[0]
    XCTAssertEqual(chain.target, "Field guide")
    XCTAssertEqual(chain.headings, ["Birds", "Corvids", "Ravens"])
    XCTAssertEqual(chain.display, "ravens")
  }

  func testBlockReference() {
    let text = "[[2024-03-09#^a1b2c3]] and [[Reading list#^quote-of-the-week|quote]]"
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(links.map(\.target), ["2024-03-09", "Reading list"])
    XCTAssertEqual(links.map(\.block), ["a1b2c3", "quote-of-the-week"])
    XCTAssertEqual(links.map(\.headings), [[], []])
    XCTAssertEqual(links[1].display, "quote")
  }

  func testSameNoteHeading() {
    let text = "Jump to [[#Open questions]] or [[#Open questions|below]]."
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(links.map(\.target), ["", ""])
    XCTAssertEqual(links.map(\.headings), [["Open questions"], ["Open questions"]])
    // The empty target sits where the path would be, just before the `#`.
    XCTAssertEqual(links[0].targetRange, 10..<10)
    XCTAssertEqual(LinkResolver(paths: ["a/Note.md"]).resolve(links[0], from: "a/Note.md"), .note("a/Note.md"))
  }

  func testEmbedsShareTheGrammar() {
    let text = """
      ![[Kepler's laws]]
      ![[Kepler's laws#Third law|the third]]
      ![[Reading list#^b7e9]]
      ![[Saturn.jpg|320x200]]
      ![[Saturn.jpg|320]]
      ![[Mission report.pdf#page=7]]
      ![[Mission report.pdf#height=500]]
      """
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(links.map(\.kind), Array(repeating: .embed, count: 7))
    XCTAssertEqual(
      links.map(\.target),
      [
        "Kepler's laws", "Kepler's laws", "Reading list", "Saturn.jpg", "Saturn.jpg", "Mission report.pdf",
        "Mission report.pdf",
      ])
    XCTAssertEqual(links.map(\.display), [nil, "the third", nil, "320x200", "320", nil, nil])
    XCTAssertEqual(links[2].block, "b7e9")
    XCTAssertEqual(links[5].headings, ["page=7"])
    XCTAssertEqual(links[6].headings, ["height=500"])
    XCTAssertEqual(links.map(\.line), Array(1...7))
    // The embed's range starts at its `!`.
    XCTAssertEqual(bytes(text, links[0].range), "![[Kepler's laws]]")
    XCTAssertEqual(bytes(text, links[0].targetRange), "Kepler's laws")
  }

  func testEscapedPipeInTables() {
    let text = """
      | Topic | Link |
      | --- | --- |
      | Orbits | [[Kepler's laws\\|laws]] |
      | Photo | ![[Saturn.jpg\\|100]] |
      | Deep | [[Kepler's laws#Third law\\|third]] |
      """
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(links.map(\.target), ["Kepler's laws", "Saturn.jpg", "Kepler's laws"])
    XCTAssertEqual(links.map(\.display), ["laws", "100", "third"])
    XCTAssertEqual(links[2].headings, ["Third law"])
    // The backslash belongs to neither part: the target's bytes stop before it.
    XCTAssertEqual(bytes(text, links[0].targetRange), "Kepler's laws")
    XCTAssertEqual(links.map(\.line), [3, 4, 5])
  }

  func testSpacesAroundPartsAreDropped() {
    let link = LinkScanner.links(in: "[[  Kepler's laws  # Second law |  shown ]]")[0]
    XCTAssertEqual(link.target, "Kepler's laws")
    XCTAssertEqual(link.headings, ["Second law"])
    XCTAssertEqual(link.display, "  shown ")
  }

  func testSingleClosingBracketDoesNotEndTheLink() {
    XCTAssertEqual(LinkScanner.links(in: "[[Odd]name]]").map(\.target), ["Odd]name"])
    XCTAssertEqual(LinkScanner.links(in: "[[a]]]").map(\.target), ["a"])
  }

  func testEmptyLinksLinkNothing() {
    XCTAssertEqual(LinkScanner.links(in: "[[]] [[|x]] [[#]] [[ ]] ![[]]").count, 0)
  }

  func testLinkInsideALineAndSeveralOnALine() {
    let text = "x [[A]] y [[B|b]] z ![[C.png]]\nsecond [[D]]"
    let links = LinkScanner.links(in: text)
    XCTAssertEqual(links.map(\.target), ["A", "B", "C.png", "D"])
    XCTAssertEqual(links.map(\.line), [1, 1, 1, 2])
  }

  func testPathsFromTheRoot() {
    let link = LinkScanner.links(in: "[[Projects/Apollo/Launch plan#Risks|risks]]")[0]
    XCTAssertEqual(link.target, "Projects/Apollo/Launch plan")
    XCTAssertEqual(link.headings, ["Risks"])
  }

  func testBangWithoutBracketsAndEscapedBang() {
    XCTAssertEqual(LinkScanner.links(in: "Wow! [[A]]")[0].kind, .wiki)
    // `\!` is a literal bang: the link is not an embed.
    let link = LinkScanner.links(in: "\\![[A]]")[0]
    XCTAssertEqual(link.kind, .wiki)
    XCTAssertEqual(link.range, 2..<7)
  }

  func testMultiByteTextKeepsByteOffsets() {
    let text = "Café ☕️ [[Größe|🚀]] ok"
    let link = LinkScanner.links(in: text)[0]
    XCTAssertEqual(link.target, "Größe")
    XCTAssertEqual(link.display, "🚀")
    XCTAssertEqual(bytes(text, link.range), "[[Größe|🚀]]")
    XCTAssertEqual(bytes(text, link.targetRange), "Größe")
  }
}

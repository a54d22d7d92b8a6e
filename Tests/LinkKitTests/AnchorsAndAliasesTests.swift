import LinkKit
import XCTest

/// What `#Heading` and `#^id` point at, and aliases ("Link to blocks", "Aliases", "Properties").
final class AnchorsAndAliasesTests: XCTestCase {
  let note = """
    ---
    aliases: [not a heading]
    ---
    # Field guide
    Birds seen this spring. ^intro

    ## Birds
    ### Corvids ###
    Ravens are larger than crows. ^ravens-1
    > Quoted observation

    ^quote-2

    - magpie
    - jay ^jay
    ```
    # Not a heading ^not-a-block
    ```
    ![[chart.png]]^chart
    #hashtag is not a heading; neither is a^b
    ## What is a rook?
    """

  func testHeadingsAndBlocks() {
    let anchors = LinkScanner.anchors(in: note)
    XCTAssertEqual(anchors.headings, ["Field guide", "Birds", "Corvids", "What is a rook?"])
    XCTAssertEqual(anchors.blocks, ["intro", "ravens-1", "quote-2", "jay", "chart"])
  }

  func testLinksToAnchors() {
    let anchors = LinkScanner.anchors(in: note)
    func has(_ text: String) -> Bool { anchors.contains(LinkScanner.links(in: text)[0]) }
    XCTAssertTrue(has("[[Guide#Birds]]"))
    XCTAssertTrue(has("[[Guide#birds#CORVIDS]]"))
    XCTAssertTrue(has("[[Guide#Field guide#Corvids]]"))
    XCTAssertFalse(has("[[Guide#Corvids#Birds]]"))  // a chain goes down, in order
    XCTAssertFalse(has("[[Guide#Owls]]"))
    XCTAssertTrue(has("[[Guide#What is a rook]]"))  // punctuation a link drops
    XCTAssertTrue(has("[[Guide#^ravens-1]]"))
    XCTAssertTrue(has("[[Guide#^JAY]]"))
    XCTAssertFalse(has("[[Guide#^not-a-block]]"))
    XCTAssertTrue(has("[[Guide]]"))
  }

  func testAliases() {
    XCTAssertEqual(
      LinkScanner.aliases(in: "---\naliases:\n  - Doggo\n  - \"Woof: er\"\n  - 'Yap''per'\n---\n"),
      ["Doggo", "Woof: er", "Yap'per"])
    XCTAssertEqual(
      LinkScanner.aliases(in: "---\naliases: [AI, \"ML, DL\", 'NN']\ntags: [x]\n---\n"), ["AI", "ML, DL", "NN"])
    XCTAssertEqual(
      LinkScanner.aliases(in: "---\nalias: Artificial intelligence # old key\n---\n"), ["Artificial intelligence"])
    XCTAssertEqual(LinkScanner.aliases(in: "---\naliases:\n- A\n- B\ntags:\n- t\n---\n"), ["A", "B"])
    XCTAssertEqual(LinkScanner.aliases(in: "aliases: [A]\n"), [])
  }

  func testAnAliasResolvesNoLinkButIsAMention() {
    let resolver = LinkResolver(
      paths: ["AI/Artificial intelligence.md", "Index.md"],
      aliases: ["AI/Artificial intelligence.md": ["AI", "Machine minds"]])
    let bare = LinkScanner.links(in: "[[ai]]")[0]
    XCTAssertEqual(resolver.resolve(bare, from: "Index.md"), .unresolved)
    XCTAssertEqual(resolver.aliasMatches(for: bare), ["AI/Artificial intelligence.md"])
    // The way Obsidian writes an alias link: the name, the alias shown.
    let written = LinkScanner.links(in: "[[Artificial intelligence|AI]]")[0]
    XCTAssertEqual(resolver.resolve(written, from: "Index.md"), .note("AI/Artificial intelligence.md"))
    XCTAssertEqual(resolver.aliasMatches(for: LinkScanner.links(in: "[[Nobody]]")[0]), [])
  }
}

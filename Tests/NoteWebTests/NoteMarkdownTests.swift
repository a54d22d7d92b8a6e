import LinkKit
import NoteWeb
import XCTest

/// Links rewritten to this server's pages before cmark-gfm renders a body.
final class NoteMarkdownTests: XCTestCase {
  private func rewrite(_ text: String, bodyStart: Int = 0, _ targets: [Int: NoteMarkdown.Target]) -> String {
    NoteMarkdown.body(of: text, bodyStart: bodyStart, links: LinkScanner.links(in: text), targets: targets)
  }

  func testWikiLinksBecomeLinksToTheResolvedNote() {
    let note = NoteMarkdown.Target(path: "work/Road map.md", isNote: true)
    XCTAssertEqual(rewrite("See [[Road map]].", [0: note]), "See [Road map](/note/work/Road%20map.md).")
    XCTAssertEqual(rewrite("See [[Road map|the plan]].", [0: note]), "See [the plan](/note/work/Road%20map.md).")
    XCTAssertEqual(
      rewrite("[[Road map#Goals]]", [0: note]), "[Road map\\#Goals](/note/work/Road%20map.md#goals)")
  }

  func testAHeadingLinkLandsOnTheHeadingsID() throws {
    let note = NoteMarkdown.Target(path: "plan.md", isNote: true)
    XCTAssertEqual(
      rewrite("[[plan#Next steps: Q3 & after|see]]", [0: note]), "[see](/note/plan.md#next-steps-q3--after)")
    XCTAssertEqual(
      rewrite("[[plan#Goals#Über-Ziele]]", [0: note]), "[plan\\#Goals\\#Über\\-Ziele](/note/plan.md#%C3%BCber-ziele)")
    XCTAssertEqual(rewrite("[[#Goals]]", [:]), "[\\#Goals](#goals)", "a heading of the same note")
    XCTAssertEqual(rewrite("[[plan#^block1]]", [0: note]), "[plan\\#\\^block1](/note/plan.md)", "a block: the note")

    // The page: the same ids on the headings, whatever inline markup they hold; repeats numbered.
    let html = NoteMarkdown.addingHeadingIDs(
      to: try Markdown.html("# Plan\n## Next steps: *Q3* & after\n## Goals\n## Goals\n<h2>raw</h2>\n`<h3>x</h3>`\n"))
    XCTAssertTrue(html.contains(#"<h1 id="plan">Plan</h1>"#), html)
    XCTAssertTrue(html.contains(#"<h2 id="next-steps-q3--after">Next steps: <em>Q3</em> &amp; after</h2>"#), html)
    XCTAssertTrue(html.contains(#"<h2 id="goals">Goals</h2>"#) && html.contains(#"<h2 id="goals-1">Goals</h2>"#), html)
    XCTAssertFalse(html.contains(#"id="raw""#) || html.contains(#"id="x""#), "raw HTML and code are not headings")
  }

  func testUnresolvedWikiLinksSearchForTheirName() {
    XCTAssertEqual(
      rewrite("[[Nowhere]]", [:]), #"[Nowhere](/search?q=%22Nowhere%22 "not found")"#)
  }

  func testImageEmbedsShowAndOtherFilesLink() {
    let image = NoteMarkdown.Target(path: "a/photo one.png", isNote: false)
    XCTAssertEqual(rewrite("![[photo one.png|100]]", [0: image]), "![photo one\\.png](/file/a/photo%20one.png)")
    let svg = NoteMarkdown.Target(path: "a/x.svg", isNote: false)
    XCTAssertEqual(rewrite("![[x.svg]]", [0: svg]), "[x\\.svg](/file/a/x.svg)", "an SVG is never shown inline")
  }

  func testMarkdownLinksKeepTheirTextAndGetThePagesAddress() {
    let note = NoteMarkdown.Target(path: "work/Some note.md", isNote: true)
    XCTAssertEqual(rewrite("[x](Some%20note.md)", [0: note]), "[x](/note/work/Some%20note.md)")
    XCTAssertEqual(rewrite("[x](<Some note.md>)", [0: note]), "[x](</note/work/Some%20note.md>)")
    XCTAssertEqual(rewrite("[x](Some%20note.md)", [:]), "[x](Some%20note.md)", "unresolved: left as written")
  }

  func testDisplayTextCannotOpenMarkupOrHTML() {
    let note = NoteMarkdown.Target(path: "a.md", isNote: true)
    let text = rewrite("[[a|<script>alert(1)</script>](javascript:x)]]", [0: note])
    XCTAssertTrue(text.hasSuffix("(/note/a.md)"), text)
    let html = (try? Markdown.html(text)) ?? ""
    XCTAssertFalse(html.contains("<script"), html)
    XCTAssertFalse(html.contains("href=\"javascript"), html)
  }

  func testCodeAndFrontMatterAreLeftAlone() {
    let text = "---\nrelated: \"[[a]]\"\n---\n`[[a]]` and [[a]]\n"
    let start = "---\nrelated: \"[[a]]\"\n---\n".utf8.count
    let note = NoteMarkdown.Target(path: "a.md", isNote: true)
    XCTAssertEqual(rewrite(text, bodyStart: start, [0: note, 1: note]), "`[[a]]` and [a](/note/a.md)\n")
  }
}

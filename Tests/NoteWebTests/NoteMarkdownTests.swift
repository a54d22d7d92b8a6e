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
      rewrite("[[Road map#Goals]]", [0: note]), "[Road map\\#Goals](/note/work/Road%20map.md)")
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

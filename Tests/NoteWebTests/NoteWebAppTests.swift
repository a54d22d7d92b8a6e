import Foundation
import NBTestSupport
import NoteStore
import XCTest

@testable import NoteWeb

/// The app's pages over a real repository, in process (no socket): what each page shows, and that nothing a note
/// holds becomes markup.
final class NoteWebAppTests: XCTestCase {
  private var temp: TemporaryDirectory!
  private var notes: NoteRepository!
  private var app: NoteWebApp!

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "nb-web-app")
    notes = try NoteRepository.initialize(at: temp.url.appendingPathComponent("notes"))
    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c"))
  }

  private func get(_ target: String) -> (status: Int, html: String, response: WebResponse) {
    let response = app.respond(
      to: WebRequest(method: "GET", target: target, headers: [("Host", "127.0.0.1:8642"), ("X-NB-Token", "t")]))
    return (response.status, String(decoding: response.body, as: UTF8.self), response)
  }

  private func add(_ title: String, _ notebook: String? = nil, tags: [String] = [], _ content: String) throws -> Note {
    try notes.createNote(NoteDraft(title: title, notebook: notebook, tags: tags, content: content))
  }

  func testHomeShowsNotebooksWithCountsAndRecentNotes() throws {
    _ = try add("Roadmap", "work", tags: ["planning"], "plan")
    _ = try add("Ideas", "work/later", "x")
    let page = get("/")
    XCTAssertEqual(page.status, 200)
    XCTAssertTrue(page.html.contains(#"<a href="/notebook/work">work</a> <span class="count""#), page.html)
    XCTAssertTrue(page.html.contains(">1 / 2</span>"), "work: 1 note, 2 with later")
    XCTAssertTrue(page.html.contains(#"href="/note/work/roadmap.md">Roadmap</a>"#), page.html)
    XCTAssertTrue(page.html.contains(#"href="/search?q=tag%3Aplanning">#planning</a>"#), page.html)
  }

  func testNotebookPageListsItsOwnNotesSortedAndPaged() throws {
    for index in 1...3 { _ = try add("Note \(index)", "work", "x") }
    _ = try add("Deeper", "work/sub", "x")
    app.pageSize = 2
    let first = get("/notebook/work?sort=title")
    XCTAssertEqual(first.status, 200)
    XCTAssertTrue(first.html.contains("Note 1") && first.html.contains("Note 2"), first.html)
    XCTAssertFalse(first.html.contains("Note 3"))
    XCTAssertFalse(first.html.contains(">Deeper<"), "a child notebook's note")
    XCTAssertTrue(first.html.contains(#"href="/notebook/work/sub">sub</a>"#))
    XCTAssertTrue(first.html.contains(#"rel="next" href="/notebook/work?sort=title&amp;page=2""#), first.html)
    let second = get("/notebook/work?sort=title&page=2")
    XCTAssertTrue(second.html.contains("Note 3") && !second.html.contains("Note 1"), second.html)
    XCTAssertEqual(get("/notebook/nowhere").status, 404)
    XCTAssertEqual(get("/notebook/.git").status, 403)
  }

  func testNotePageRendersMarkdownLinksBacklinksAndChips() throws {
    _ = try add("Goals", "work", "The goals.")
    let roadmap = try add(
      "Roadmap", "work", tags: ["planning"], "# Plan\n\nSee [[Goals]] and [[Missing]].\n\n| a |\n|---|\n| 1 |\n")
    _ = try add("Standup", nil, "About [[Roadmap]] today")
    let page = get("/note/" + roadmap.path)
    XCTAssertEqual(page.status, 200, page.html)
    XCTAssertTrue(page.html.contains("<h1>Plan</h1>"), page.html)
    XCTAssertTrue(page.html.contains(#"<a href="/note/work/goals.md">Goals</a>"#), page.html)
    XCTAssertTrue(page.html.contains(#"href="/search?q=%22Missing%22" title="not found">Missing</a>"#), page.html)
    XCTAssertTrue(page.html.contains("<table>"))
    XCTAssertTrue(page.html.contains(#"href="/search?q=tag%3Aplanning">#planning</a>"#))
    XCTAssertTrue(page.html.contains(#"<a href="/note/inbox/standup.md">Standup</a>"#), "backlink: \(page.html)")
    XCTAssertEqual(get("/note/work/nothing.md").status, 404)
  }

  func testNothingANoteHoldsBecomesActive() throws {
    // Written as another app would: a title nb add refuses (it has "/") and a tag full of markup.
    let path = "attack.md"
    try Data(
      """
      ---
      title: "</title><script>alert(1)</script>"
      tags: ['x"><script>alert(2)</script>']
      ---
      <script>alert(3)</script>
      <img src=x onerror=alert(4)>
      [x](javascript:alert(5))
      [[Goals|<script>alert(6)</script>]]
      """.utf8
    ).write(to: notes.root.appendingPathComponent(path))
    let attack = try notes.resolve(path)
    let page = get("/note/" + WebPath.encoded(attack.path))
    XCTAssertEqual(page.status, 200, page.html)
    let scripts = page.html.components(separatedBy: "<script").count - 1
    XCTAssertEqual(scripts, 1, "only the page's own script tag: \(page.html)")
    XCTAssertTrue(page.html.contains(#"<script src="/assets/app.js" defer></script>"#))
    XCTAssertFalse(page.html.contains("<img src=\"x\""))
    XCTAssertFalse(page.html.lowercased().contains("onerror=alert"), page.html)
    XCTAssertFalse(page.html.lowercased().contains("javascript:"), page.html)
    XCTAssertTrue(page.html.contains("&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; · nb</title>"), page.html)
    let home = get("/")
    XCTAssertEqual(home.html.components(separatedBy: "<script").count - 1, 1, home.html)
  }

  func testSearchShowsSnippetsAndSaysWhatIsWrongWithAQuery() throws {
    _ = try add("Roadmap", "work", "the quarterly plan <b>bold</b>")
    _ = try add("Other", nil, "nothing here")
    let page = get("/search?q=quarterly")
    XCTAssertEqual(page.status, 200)
    XCTAssertTrue(page.html.contains("Roadmap") && !page.html.contains(">Other<"), page.html)
    XCTAssertTrue(page.html.contains("<mark>quarterly</mark>"), page.html)
    XCTAssertFalse(page.html.contains("<b>bold"), page.html)
    let bad = get("/search?q=foo%3A")
    XCTAssertEqual(bad.status, 400)
    XCTAssertTrue(bad.html.contains("unknown filter"), bad.html)
  }

  func testFilesAreServedSafely() throws {
    let note = try add("Roadmap", nil, "x")
    let folder = notes.attachmentFolder(of: note)
    try FileManager.default.createDirectory(
      at: notes.root.appendingPathComponent(folder), withIntermediateDirectories: true)
    try Data("<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>".utf8).write(
      to: notes.root.appendingPathComponent(folder + "/x.svg"))
    try Data([0x89, 0x50, 0x4E, 0x47]).write(to: notes.root.appendingPathComponent(folder + "/p.png"))
    let svg = get("/file/" + WebPath.encoded(folder + "/x.svg")).response
    XCTAssertEqual(svg.status, 200)
    XCTAssertEqual(svg.header("Content-Type"), "application/octet-stream")
    XCTAssertTrue(svg.header("Content-Disposition")?.hasPrefix("attachment;") == true)
    XCTAssertTrue(svg.header("Content-Security-Policy")?.contains("sandbox") == true)
    let png = get("/file/" + WebPath.encoded(folder + "/p.png")).response
    XCTAssertEqual(png.header("Content-Type"), "image/png")
    XCTAssertEqual(get("/file/.git/config").status, 403)
    XCTAssertEqual(get("/file/..%2f..%2fetc%2fpasswd").status, 403)
    XCTAssertEqual(get("/note/..%2f..%2fetc%2fpasswd").status, 403)
    XCTAssertEqual(get("/note/%2e%2e/%2e%2e/etc/passwd").status, 403)
  }

  func testAssetsAndUnknownAddresses() {
    XCTAssertEqual(get("/assets/style.css").response.header("Content-Type"), "text/css; charset=utf-8")
    XCTAssertEqual(get("/assets/app.js").response.header("Content-Type"), "text/javascript; charset=utf-8")
    XCTAssertEqual(get("/assets/base.html").status, 404, "templates are not assets")
    let missing = get("/nowhere").response
    XCTAssertEqual(missing.status, 404)
    XCTAssertEqual(missing.header("X-Content-Type-Options"), "nosniff", "error pages carry the headers too")
  }
}

import Foundation
import InkKit
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

  /// A form posted as a browser posts it: the session cookie, this server's Origin, the page's CSRF token.
  private func post(_ target: String, _ fields: [(String, String)]) -> WebResponse {
    let body = (fields + [("csrf", "c")]).map { "\(WebPath.queryValue($0.0))=\(WebPath.queryValue($0.1))" }
      .joined(separator: "&")
    return app.respond(
      to: WebRequest(
        method: "POST", target: target,
        headers: [
          ("Host", "127.0.0.1:8642"), ("Cookie", "nb_token_8642=t"), ("Origin", "http://127.0.0.1:8642"),
          ("Content-Type", "application/x-www-form-urlencoded"),
        ], body: Data(body.utf8)))
  }

  /// The form's hidden version field on an edit page.
  private func version(in html: String) throws -> String {
    let marker = #"name="version" value=""#
    let start = try XCTUnwrap(html.range(of: marker)).upperBound
    return String(html[start...].prefix { $0 != "\"" })
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
    XCTAssertTrue(first.html.contains(#"<a href="/notebook/work?sort=created">created</a>"#), first.html)
    XCTAssertTrue(first.html.contains("<strong>title</strong>"), first.html)
    let second = get("/notebook/work?sort=title&page=2")
    XCTAssertTrue(second.html.contains("Note 3") && !second.html.contains("Note 1"), second.html)
    XCTAssertEqual(get("/notebook/nowhere").status, 404)
    // The top level: notes outside any notebook, and every notebook as a child.
    try Data("---\ntitle: Loose\n---\nx\n".utf8).write(to: notes.root.appendingPathComponent("loose.md"))
    let top = get("/notebook/")
    XCTAssertEqual(top.status, 200, top.html)
    XCTAssertTrue(top.html.contains(">Loose</a>") && !top.html.contains(">Note 1</a>"), top.html)
    XCTAssertTrue(top.html.contains(#"href="/notebook/work">work</a>"#), top.html)
    XCTAssertEqual(get("/notebook/.git").status, 403)
  }

  func testNotebooksAndTagsWithQuotesInTheirNamesAreFound() throws {
    // Written as another app would: a folder name with quotes, spaces and parentheses, a tag with a quote.
    for (folder, title) in [(#"say "hi" (now)"#, "Inside"), (#"say "hi" (now)/deeper"#, "Deeper"), ("say", "Other")] {
      try FileManager.default.createDirectory(
        at: notes.root.appendingPathComponent(folder), withIntermediateDirectories: true)
      try Data("---\ntitle: \(title)\ntags: ['a \"b']\n---\nx\n".utf8).write(
        to: notes.root.appendingPathComponent(folder + "/" + title.lowercased() + ".md"))
    }
    let page = get("/notebook/" + WebPath.encoded(#"say "hi" (now)"#))
    XCTAssertEqual(page.status, 200, page.html)
    XCTAssertTrue(page.html.contains(">Inside</a>"), page.html)
    XCTAssertFalse(page.html.contains(">Deeper</a>") || page.html.contains(">Other</a>"), page.html)
    let tag = get("/search?q=" + WebPath.queryValue(#"tag:"a ""b""#))
    XCTAssertEqual(tag.status, 200, tag.html)
    XCTAssertTrue(tag.html.contains(">Inside</a>") && tag.html.contains(">Other</a>"), tag.html)
    XCTAssertTrue(get("/note/say/other.md").html.contains(#"href="/search?q=tag%3A%22a%20%22%22b%22">#a &quot;b</a>"#))
  }

  func testNotePageRendersMarkdownLinksBacklinksAndChips() throws {
    _ = try add("Goals", "work", "The goals.")
    let roadmap = try add(
      "Roadmap", "work", tags: ["planning"], "# Plan\n\nSee [[Goals]] and [[Missing]].\n\n| a |\n|---|\n| 1 |\n")
    _ = try add("Standup", nil, "About [[Roadmap]] today")
    let page = get("/note/" + roadmap.path)
    XCTAssertEqual(page.status, 200, page.html)
    XCTAssertTrue(page.html.contains(#"<h1 id="plan">Plan</h1>"#), page.html)
    XCTAssertTrue(page.html.contains(#"<a href="/note/work/goals.md">Goals</a>"#), page.html)
    XCTAssertTrue(page.html.contains(#"href="/search?q=%22Missing%22" title="not found">Missing</a>"#), page.html)
    XCTAssertTrue(page.html.contains("<table>"))
    XCTAssertTrue(page.html.contains(#"href="/search?q=tag%3Aplanning">#planning</a>"#))
    XCTAssertTrue(page.html.contains(#"<a href="/note/inbox/standup.md">Standup</a>"#), "backlink: \(page.html)")
    XCTAssertEqual(get("/note/work/nothing.md").status, 404)
  }

  func testALinkToAHeadingLandsOnIt() throws {
    let plan = try add("Plan", "work", "intro\n\n## Next steps\n\nship it\n")
    let source = try add("Review", "work", "See [[Plan#Next steps]].\n")
    let review = get("/note/" + source.path).html
    XCTAssertTrue(review.contains(#"<a href="/note/work/plan.md#next-steps">Plan#Next steps</a>"#), review)
    XCTAssertTrue(get("/note/" + plan.path).html.contains(#"<h2 id="next-steps">Next steps</h2>"#))
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
    XCTAssertFalse(page.html.contains("<img"), page.html)
    XCTAssertFalse(page.html.lowercased().contains("href=\"javascript:"), page.html)
    // The raw HTML is the note's text, shown as text (the `<img …>` line opens an HTML block that runs to the end).
    XCTAssertTrue(page.html.contains("&lt;img src=x onerror=alert(4)&gt;"), page.html)
    XCTAssertFalse(page.html.lowercased().contains("onerror=alert(4)>"), page.html)
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
    // Streamed by the server from the file, not read into the answer.
    XCTAssertEqual(png.file?.path, notes.root.appendingPathComponent(folder + "/p.png").path)
    XCTAssertEqual(png.header("Content-Length"), "4")
    XCTAssertEqual(png.body, Data())
    app.fileLimit = 3
    let big = get("/file/" + WebPath.encoded(folder + "/p.png"))
    XCTAssertEqual(big.status, 413)
    XCTAssertNil(big.response.file)
    XCTAssertTrue(big.html.contains("is 4 bytes, more than this server sends (3)"), big.html)
    app.fileLimit = 1 << 30
    XCTAssertEqual(get("/file/.git/config").status, 403)
    XCTAssertEqual(get("/file/..%2f..%2fetc%2fpasswd").status, 403)
    XCTAssertEqual(get("/note/..%2f..%2fetc%2fpasswd").status, 403)
    XCTAssertEqual(get("/note/%2e%2e/%2e%2e/etc/passwd").status, 403)
  }

  func testInkPagesShowAsNbsOwnSVG() throws {
    let note = try add("Sketch", nil, "drawing below")
    try notes.editInk(of: note, subject: "ink") { drawing in
      try drawing.add(
        InkStroke(
          id: "one", ink: .pencil, color: InkColor(hex: "3366ffff")!, channels: [.force],
          points: [InkPoint(x: 1, y: 10, force: 0.5), InkPoint(x: 40, y: 12, force: 0.75)]))
    }
    let page = get("/note/" + note.path)
    let source = "/ink/\(note.path)?page=0"
    // The sidecar's fingerprint in the address: a live refresh after new ink loads the new image.
    let version = app.inkVersion(of: note)
    XCTAssertTrue(
      page.html.contains(#"<img src="\#(source)&amp;v=\#(version)" alt="Handwriting, page 1">"#), page.html)
    let svg = get(source).response
    XCTAssertEqual(svg.status, 200)
    XCTAssertEqual(svg.header("Content-Type"), "image/svg+xml")
    XCTAssertEqual(svg.body, try InkSVG.renderData(try XCTUnwrap(try notes.ink(of: note))), "what nb ink render draws")
    XCTAssertEqual(get("/ink/\(note.path)?page=1").status, 404)
    XCTAssertEqual(get("/ink/inbox/none.md").status, 404)
    // Lists show a note with ink with a thumbnail of its first page; a note without ink has none.
    _ = try add("Plain", nil, "no drawing")
    for list in [get("/").html, get("/notebook/inbox").html] {
      XCTAssertTrue(list.contains(#"<img class="thumb" src="\#(source)" alt="" loading="lazy">"#), list)
      XCTAssertEqual(list.components(separatedBy: #"class="thumb""#).count - 1, 1, list)
    }
  }

  func testEditingSavesAsNbEditDoesOverTheLoadedVersionOnly() throws {
    let note = try add("Roadmap", "work", "first <b>draft</b>\n")
    let form = get("/edit/" + note.path)
    XCTAssertEqual(form.status, 200)
    XCTAssertTrue(form.html.contains("first &lt;b&gt;draft&lt;/b&gt;\n</textarea>"), form.html)
    XCTAssertTrue(form.html.contains(#"<input type="hidden" name="csrf" value="c">"#), form.html)
    XCTAssertTrue(get("/note/" + note.path).html.contains(#"<a href="/edit/work/roadmap.md">Edit</a>"#))
    let loaded = try version(in: form.html)
    let text = try notes.text(of: note)

    // A browser sends CRLF; the file keeps its LF.
    let edited = text.replacingOccurrences(of: "first", with: "second").replacingOccurrences(of: "\n", with: "\r\n")
    let saved = post("/edit/" + note.path, [("text", edited), ("version", loaded)])
    XCTAssertEqual(saved.status, 303, String(decoding: saved.body, as: UTF8.self))
    XCTAssertEqual(saved.header("Location"), "/note/work/roadmap.md?saved=1")
    let now = try notes.text(of: note)
    XCTAssertTrue(now.contains("second <b>draft</b>\n") && !now.contains("\r"), now)
    XCTAssertEqual(try notes.history(of: note).first?.commit.subject, "nb: edit work/roadmap.md")

    // The same form again: the file changed since it was loaded, so nothing is written and both texts show.
    let stale = post("/edit/" + note.path, [("text", "third\n"), ("version", loaded)])
    XCTAssertEqual(stale.status, 409)
    let page = String(decoding: stale.body, as: UTF8.self)
    XCTAssertTrue(page.contains("third\n</textarea>"), "the text typed is kept: \(page)")
    XCTAssertTrue(page.contains("second &lt;b&gt;draft&lt;/b&gt;"), "the file now: \(page)")
    XCTAssertEqual(try notes.text(of: note), now)
    XCTAssertEqual(try version(in: page), try notes.version(of: note), "saving again goes over what was shown")

    // Front matter that does not parse: refused, the text kept.
    let broken = post(
      "/edit/" + note.path, [("text", "---\ntitle: [\n---\nx\n"), ("version", try notes.version(of: note))])
    XCTAssertEqual(broken.status, 422)
    XCTAssertTrue(String(decoding: broken.body, as: UTF8.self).contains("title: [\nx\n</textarea>") == false)
    XCTAssertTrue(String(decoding: broken.body, as: UTF8.self).contains("title: [\n---\nx\n</textarea>"))
    XCTAssertEqual(try notes.text(of: note), now)
  }

  /// The form's hidden base field (the text it was loaded with, base64) on an edit page.
  private func base(in html: String) throws -> String {
    let marker = #"name="base" value=""#
    let start = try XCTUnwrap(html.range(of: marker)).upperBound
    return String(html[start...].prefix { $0 != "\"" })
  }

  func testAStaleSaveIsMergedWithTheChangesMadeMeanwhile() throws {
    let note = try add("Roadmap", "work", tags: ["plan"], "one\ntwo\nthree\nfour\n")
    let git = try GitCLI(workTree: notes.root, home: try temp.directory("home"))
    let form = get("/edit/" + note.path).html
    let loaded = try version(in: form)
    let loadedBase = try base(in: form)
    let text = try notes.text(of: note)
    XCTAssertEqual(Data(base64Encoded: loadedBase), Data(text.utf8), "the base is the text shown")

    // Meanwhile another editor changes the first line and adds a tag (committed, as nb edit would).
    let elsewhere = text.replacingOccurrences(of: "one\n", with: "ONE\n")
      .replacingOccurrences(of: "tags: [plan]", with: "tags: [plan, later]")
    XCTAssertNotEqual(elsewhere, text.replacingOccurrences(of: "one\n", with: "ONE\n"), "the tag line is there")
    try Data(elsewhere.utf8).write(to: notes.root.appendingPathComponent(note.path))
    try notes.save()
    let commits = try git.logSubjects().count

    // The form, typed in before that: the last line and a front matter key of its own.
    let typed = text.replacingOccurrences(of: "four\n", with: "FOUR\n")
      .replacingOccurrences(of: "title: Roadmap\n", with: "title: Roadmap\nstatus: draft\n")
    XCTAssertNotEqual(typed, text.replacingOccurrences(of: "four\n", with: "FOUR\n"), "the title line is there")
    let saved = post("/edit/" + note.path, [("text", typed), ("version", loaded), ("base", loadedBase)])
    XCTAssertEqual(saved.status, 303, String(decoding: saved.body, as: UTF8.self))
    XCTAssertEqual(saved.header("Location"), "/note/work/roadmap.md?saved=merged")
    XCTAssertEqual(try git.logSubjects().count, commits + 1, "one commit")
    XCTAssertEqual(try git.logSubjects().first, "nb: edit work/roadmap.md")
    XCTAssertEqual(try git.statusPorcelain(), "")
    let committed = try git.show("HEAD", path: note.path)
    XCTAssertTrue(committed.hasSuffix("ONE\ntwo\nthree\nFOUR\n"), committed)
    XCTAssertTrue(committed.contains("status: draft\n"), committed)
    XCTAssertTrue(committed.contains("tags: [plan, later]"), committed)
    XCTAssertNotEqual(
      try NoteRepository.open(at: notes.root).resolve(note.path).updated, note.updated, "updated stamped")
    XCTAssertTrue(get("/note/work/roadmap.md?saved=merged").html.contains(#"data-draft-saved="work/roadmap.md""#))

    // Both changed the same line: refused, nothing written, the text typed kept and the file shown.
    let now = try notes.text(of: note)
    let clash = text.replacingOccurrences(of: "one\n", with: "uno\n")
    let refused = post("/edit/" + note.path, [("text", clash), ("version", loaded), ("base", loadedBase)])
    XCTAssertEqual(refused.status, 409)
    let page = String(decoding: refused.body, as: UTF8.self)
    XCTAssertTrue(page.contains("uno\ntwo"), "the text typed is kept: \(page)")
    XCTAssertTrue(page.contains("ONE\ntwo"), "the file now: \(page)")
    XCTAssertTrue(page.contains(#"data-unsaved="1""#), page)
    XCTAssertEqual(try version(in: page), try notes.version(of: note), "saving again goes over what was shown")
    XCTAssertEqual(Data(base64Encoded: try base(in: page)), Data(now.utf8))
    XCTAssertEqual(try git.show("HEAD", path: note.path), now)
    XCTAssertEqual(try git.logSubjects().count, commits + 1, "nothing committed")
    XCTAssertEqual(try git.statusPorcelain(), "")

    // A base that is not the loaded version's text: refused with the text kept.
    let forged = post(
      "/edit/" + note.path, [("text", clash), ("version", loaded), ("base", Data("x".utf8).base64EncodedString())])
    XCTAssertEqual(forged.status, 422)
    XCTAssertEqual(try notes.text(of: note), now)
  }

  func testReadOnlyHasNoEditing() throws {
    let note = try add("Roadmap", "work", "x\n")
    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c", readOnly: true))
    XCTAssertEqual(get("/edit/" + note.path).status, 403)
    XCTAssertFalse(get("/note/" + note.path).html.contains(">Edit</a>"))
    XCTAssertEqual(post("/edit/" + note.path, [("text", "y"), ("version", try notes.version(of: note))]).status, 403)
    XCTAssertEqual(try notes.text(of: note).hasSuffix("x\n"), true)
  }

  func testTheEventStreamIsAPageLikeAnyOther() throws {
    let stream = get("/events").response
    XCTAssertEqual(stream.status, 200)
    XCTAssertTrue(stream.isEventStream)
    XCTAssertEqual(stream.header("Content-Type"), "text/event-stream; charset=utf-8")
    XCTAssertEqual(stream.header("Cache-Control"), "no-store")
    XCTAssertEqual(stream.header("X-Content-Type-Options"), "nosniff")
    let anonymous = app.respond(to: WebRequest(method: "GET", target: "/events", headers: [("Host", "127.0.0.1:8642")]))
    XCTAssertEqual(anonymous.status, 401)
    XCTAssertFalse(anonymous.isEventStream)
    let elsewhere = app.respond(
      to: WebRequest(method: "GET", target: "/events", headers: [("Host", "evil.example"), ("X-NB-Token", "t")]))
    XCTAssertEqual(elsewhere.status, 403)
    XCTAssertFalse(elsewhere.isEventStream)
    XCTAssertFalse(get("/note/x.md").response.isEventStream)
  }

  func testAnOpenEditFormKnowsItsFileForTheLiveNotice() throws {
    let note = try add("Roadmap", "work", "x\n")
    let form = get("/edit/" + note.path).html
    XCTAssertTrue(
      form.contains(#"<form class="edit" method="post" action="/edit/work/roadmap.md" data-path="work/roadmap.md">"#),
      form)
    XCTAssertTrue(form.contains(#"id="changed-on-disk" role="alert" hidden>"#), form)
  }

  func testShortcutsAreListedWithoutTheScriptToo() throws {
    let page = get("/shortcuts")
    XCTAssertEqual(page.status, 200)
    XCTAssertTrue(page.html.contains("<dt><kbd>g</kbd> <kbd>t</kbd></dt><dd>Tasks</dd>"), page.html)
    let home = get("/").html
    XCTAssertTrue(home.contains(#"<a href="/shortcuts">Keyboard shortcuts</a>"#), home)
    XCTAssertTrue(home.contains(#"<aside class="shortcuts" id="shortcuts" role="dialog""#), "the script's list")
    XCTAssertTrue(home.contains(#"aria-label="Keyboard shortcuts" hidden>"#), "hidden until ? is pressed")
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

import Foundation
import NBTestSupport
import NoteStore
import XCTest

@testable import NoteWeb

/// The home page's sync state and Sync button, and pinned searches, over a real clone of a bare remote that the
/// git CLI made; the git CLI says what reached the remote.
final class HomePageTests: XCTestCase {
  private var temp: TemporaryDirectory!
  private var notes: NoteRepository!
  private var app: NoteWebApp!
  private var git: GitCLI!
  private var bare: GitCLI!

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "nb-web-home")
    notes = try NoteRepository.initialize(at: temp.url.appendingPathComponent("notes"))
    let home = try temp.directory("home")
    git = try GitCLI(workTree: notes.root, home: home)
    let remote = temp.url.appendingPathComponent("remote.git")
    bare = try GitCLI(workTree: remote, home: home)
    try git.run("init", "--bare", "-q", "--initial-branch=main", remote.path)
    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c"))
  }

  private func get(_ target: String) -> (status: Int, html: String) { PageRequests(app: app).get(target) }

  private func post(_ target: String, _ fields: [(String, String)]) -> (status: Int, html: String, location: String?) {
    PageRequests(app: app).post(target, fields)
  }

  func testTheNotebookTreeShowsEachNotebookAtItsDepthWithItsCounts() throws {
    for (title, notebook) in [("A", "home"), ("B", "work")] {
      _ = try notes.createNote(NoteDraft(title: title, notebook: notebook))
    }
    // A folder made by hand (nb would slug the name), with what HTML and URLs must escape.
    let odd = try temp.directory(#"notes/work/q1 <plans> & "more""#)
    for name in ["C", "D"] { try Data("# \(name)\n".utf8).write(to: odd.appendingPathComponent("\(name).md")) }
    let page = get("/")
    XCTAssertEqual(page.status, 200)
    let start = try XCTUnwrap(page.html.range(of: #"<ul class="tree">"#), page.html).lowerBound
    let end = try XCTUnwrap(page.html.range(of: "</ul>", range: start..<page.html.endIndex)).upperBound
    XCTAssertEqual(
      String(page.html[start..<end]),
      """
      <ul class="tree">
          <li class="depth-0"><a href="/notebook/home">home</a> <span class="count" title="notes here / with the notebooks below">1</span></li>
          <li class="depth-0"><a href="/notebook/work">work</a> <span class="count" title="notes here / with the notebooks below">1 / 3</span></li>
          <li class="depth-1"><a href="/notebook/work/q1%20%3Cplans%3E%20%26%20%22more%22">q1 &lt;plans&gt; &amp; &quot;more&quot;</a> <span class="count" title="notes here / with the notebooks below">2</span></li>
        </ul>
      """)
  }

  /// The HTML of the home page's sync section.
  private func syncSection(_ html: String) throws -> String {
    let start = try XCTUnwrap(html.range(of: #"<section class="sync" id="sync">"#), html).upperBound
    let end = html.range(of: "</section>", range: start..<html.endIndex)?.lowerBound ?? html.endIndex
    return String(html[start..<end])
  }

  private func remoteSubjects() throws -> [String] {
    try bare.run("log", "--format=%s", "main").split(separator: "\n").map(String.init)
  }

  func testHomeShowsBranchAheadBehindAndTheSyncButtonPushes() throws {
    _ = try notes.createNote(NoteDraft(title: "Roadmap", content: "plan\n"))
    try git.run("remote", "add", "origin", bare.workTree.path)
    try git.run("push", "-q", "-u", "origin", "main")
    let ideas = try notes.createNote(NoteDraft(title: "Ideas", content: "more\n"))

    var sync = try syncSection(get("/").html)
    XCTAssertTrue(sync.contains("On branch <strong>main</strong>"), sync)
    XCTAssertTrue(sync.contains("Tracking origin/main: "), sync)
    XCTAssertTrue(sync.contains(#"<span class="ahead">1 ahead</span>, <span class="behind">0 behind</span>"#), sync)
    XCTAssertTrue(sync.contains("Last sync: never on this device"), sync)
    XCTAssertTrue(sync.contains("No conflicts."), sync)
    XCTAssertTrue(sync.contains(#"<form method="post" action="/sync">"#), sync)
    XCTAssertFalse(try remoteSubjects().contains("nb: add \(ideas.path)"))

    let synced = post("/sync", [])
    XCTAssertEqual(synced.status, 303, synced.html)
    XCTAssertEqual(synced.location, "/#sync")
    XCTAssertEqual(try remoteSubjects().first, "nb: add \(ideas.path)", "pushed")
    XCTAssertEqual(try bare.revParse("main"), try git.revParse("HEAD"))
    sync = try syncSection(get("/").html)
    XCTAssertTrue(sync.contains("Synced with origin/main at "), sync)
    XCTAssertTrue(sync.contains(": sent 1 commit</p>"), sync)
    XCTAssertTrue(sync.contains("Tracking origin/main: up to date"), sync)
    XCTAssertTrue(sync.contains("Last sync: <time>"), sync)

    // Another clone pushes; after a fetch this one is behind.
    let tablet = try GitCLI(workTree: temp.url.appendingPathComponent("tablet"), home: git.home)
    try git.run("clone", "-q", bare.workTree.path, tablet.workTree.path)
    try Data("from the tablet\n".utf8).write(to: tablet.workTree.appendingPathComponent("tablet.md"))
    try tablet.run("add", "tablet.md")
    try tablet.run("commit", "-q", "-m", "tablet")
    try tablet.run("push", "-q", "origin", "main")
    try git.run("fetch", "-q", "origin")
    sync = try syncSection(get("/").html)
    XCTAssertTrue(sync.contains(#"<span class="ahead">0 ahead</span>, <span class="behind">1 behind</span>"#), sync)
  }

  func testASyncWithoutARemoteSaysSoAndChangesNothing() throws {
    _ = try notes.createNote(NoteDraft(title: "Roadmap", content: "plan\n"))
    let commits = try git.logSubjects()
    XCTAssertTrue(try syncSection(get("/").html).contains("No remote named origin"))
    let refused = post("/sync", [])
    XCTAssertEqual(refused.status, 409)
    let sync = try syncSection(refused.html)
    XCTAssertTrue(sync.contains("Not synced: no remote named &#39;origin&#39;: add one with &#39;nb remote add"), sync)
    XCTAssertEqual(try git.logSubjects(), commits)
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertEqual(get("/sync").status, 303, "fetched again, the page is home")
  }

  func testReadOnlyHasNoSyncButtonAndRefusesASync() throws {
    _ = try notes.createNote(NoteDraft(title: "Roadmap", content: "plan\n"))
    try git.run("remote", "add", "origin", bare.workTree.path)
    try git.run("push", "-q", "-u", "origin", "main")
    _ = try notes.createNote(NoteDraft(title: "Ideas", content: "more\n"))
    let remote = try remoteSubjects()
    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c", readOnly: true))
    XCTAssertFalse(try syncSection(get("/").html).contains(#"action="/sync""#))
    XCTAssertEqual(post("/sync", []).status, 403)
    XCTAssertEqual(try remoteSubjects(), remote)
  }

  func testConflictCopiesAreListed() throws {
    let original = try notes.createNote(NoteDraft(title: "Roadmap", content: "plan\n"))
    let copy = try notes.createNote(NoteDraft(title: "Roadmap (laptop)", content: "other plan\n"))
    let text = try notes.text(of: copy)
    let marked = text.replacingOccurrences(
      of: "title: Roadmap (laptop)\n", with: "title: Roadmap (laptop)\nconflict_of: \(try XCTUnwrap(original.id))\n")
    XCTAssertNotEqual(marked, text)
    try Data(marked.utf8).write(to: notes.root.appendingPathComponent(copy.path))
    try notes.save()
    let sync = try syncSection(get("/").html)
    XCTAssertTrue(sync.contains(#"<a href="/note/\#(copy.path)">Roadmap (laptop)</a>"#), sync)
    XCTAssertFalse(sync.contains("No conflicts."), sync)
  }

  func testAPinnedSearchIsOnTheHomePageOfThisDeviceOnly() throws {
    _ = try notes.createNote(NoteDraft(title: "Roadmap", tags: ["plan"], content: "plan\n"))
    let commits = try git.logSubjects()
    XCTAssertTrue(get("/search?q=tag%3Aplan").html.contains("Pin this search to the home page"))
    let pinned = post("/pin", [("q", "tag:plan"), ("from", "search")])
    XCTAssertEqual(pinned.status, 303)
    XCTAssertEqual(pinned.location, "/search?q=tag%3Aplan")
    XCTAssertEqual(post("/pin", [("q", "tag:plan")]).status, 303, "pinned twice is pinned once")
    XCTAssertEqual(post("/pin", [("q", "  ")]).status, 400)
    let file = notes.root.appendingPathComponent(".git/nb/pinned-searches")
    XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "tag:plan\n")
    XCTAssertEqual(try git.logSubjects(), commits, "a device's pins are not committed")
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertTrue(get("/").html.contains(#"<a href="/search?q=tag%3Aplan">tag:plan</a>"#))
    XCTAssertTrue(get("/search?q=tag%3Aplan").html.contains("Unpin this search"))
    XCTAssertEqual(post("/unpin", [("q", "tag:plan")]).location, "/")
    XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "")
    XCTAssertFalse(get("/").html.contains("Pinned searches"))
  }
}

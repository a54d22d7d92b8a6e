import Foundation
import NBTestSupport
import NoteStore
import XCTest

@testable import NoteWeb

/// The history page over a real repository, in process, with the git CLI as the oracle of what the commits hold.
final class HistoryPageTests: XCTestCase {
  private var temp: TemporaryDirectory!
  private var notes: NoteRepository!
  private var app: NoteWebApp!
  private var git: GitCLI!

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "nb-web-history")
    notes = try NoteRepository.initialize(at: temp.url.appendingPathComponent("notes"))
    notes.device = "tablet"
    git = try GitCLI(workTree: notes.root, home: try temp.directory("home"))
    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c"))
  }

  private func get(_ target: String) -> (status: Int, html: String) { PageRequests(app: app).get(target) }

  private func post(_ target: String, _ fields: [(String, String)]) -> (status: Int, html: String, location: String?) {
    PageRequests(app: app).post(target, fields)
  }

  /// A note with three versions and a move: created in work, edited, moved to archive, edited again.
  private func makeHistory() throws -> (note: Note, commits: [String]) {
    var note = try notes.createNote(
      NoteDraft(title: "Roadmap", notebook: "work", content: "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"))
    var text = try notes.text(of: note)
    _ = try notes.save(
      text: text.replacingOccurrences(of: "two\n", with: "TWO\nTWO and a half\n"), to: note,
      over: try notes.version(of: note))
    note = try notes.resolve(note.path)
    note = try notes.move(note, to: "archive")
    text = try notes.text(of: note)
    _ = try notes.save(
      text: text.replacingOccurrences(of: "seven\n", with: ""), to: note, over: try notes.version(of: note))
    note = try notes.resolve(note.path)
    let commits = try git.run("log", "--format=%H", "--follow", "--", note.path).split(separator: "\n").map(String.init)
    return (note, commits)
  }

  /// The `-` and `+` lines of `git diff` (headers left out), and its numstat.
  private func gitDiff(_ from: String, _ to: String) throws -> (lines: [String], added: Int, removed: Int) {
    let patch = try git.run(arguments: [
      "diff", "--no-color", "-M", from, to, "--", "work/roadmap.md", "archive/roadmap.md",
    ])
    let lines = patch.split(separator: "\n").map(String.init).filter {
      ($0.hasPrefix("+") || $0.hasPrefix("-") || $0.hasPrefix("@@")) && !$0.hasPrefix("+++") && !$0.hasPrefix("---")
    }.map { line in
      // git adds the nearest line above that starts with a letter after a hunk's range; the page does not.
      guard line.hasPrefix("@@"),
        let end = line.range(of: " @@", range: line.index(line.startIndex, offsetBy: 2)..<line.endIndex)
      else { return line }
      return String(line[..<end.upperBound])
    }
    return (lines, lines.filter { $0.hasPrefix("+") }.count, lines.filter { $0.hasPrefix("-") }.count)
  }

  /// The diff section's lines as the page shows them (entities decoded back).
  private func diffLines(_ html: String) throws -> [String] {
    let start = try XCTUnwrap(html.range(of: "<pre>")).upperBound
    let end = try XCTUnwrap(html.range(of: "</pre>", range: start..<html.endIndex)).lowerBound
    return html[start..<end].split(separator: "\n").map {
      $0.replacingOccurrences(of: #"<span class="[a-z]+">"#, with: "", options: .regularExpression)
        .replacingOccurrences(of: "</span>", with: "").replacingOccurrences(of: "&gt;", with: ">")
        .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&quot;", with: "\"")
        .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }.filter { !$0.hasPrefix(" ") }
  }

  func testTheHistoryFollowsTheMoveWithAuthorDeviceAndTime() throws {
    let (note, commits) = try makeHistory()
    XCTAssertEqual(commits.count, 4, "git's own --follow")
    let page = get("/history/" + note.path)
    XCTAssertEqual(page.status, 200, page.html)
    for commit in commits {
      XCTAssertTrue(page.html.contains("<code>\(commit.prefix(8))</code>"), "\(commit): \(page.html)")
    }
    // Newest first, as git log lists them.
    let positions = commits.map { page.html.range(of: "<code>\($0.prefix(8))</code>")!.lowerBound }
    XCTAssertEqual(positions, positions.sorted())
    let author = try git.run("log", "-1", "--format=%an &lt;%ae&gt;", commits[0]).trimmingCharacters(in: .newlines)
    XCTAssertTrue(page.html.contains(author + " · device tablet"), page.html)
    XCTAssertTrue(page.html.contains("renamed archive/roadmap.md (from work/roadmap.md)"), page.html)
    let date = try git.run("log", "-1", "--format=%aI", commits[0]).trimmingCharacters(in: .newlines)
    XCTAssertTrue(page.html.contains(#"<time datetime="\#(date)">"#), "\(date): \(page.html)")
    XCTAssertTrue(get("/note/" + note.path).html.contains(#"<a href="/history/archive/roadmap.md">History</a>"#))
  }

  func testDiffsAgreeWithGit() throws {
    let (note, commits) = try makeHistory()
    // The edit before the move, against the version before it.
    let edit = commits[2]
    let page = get("/history/\(note.path)?commit=\(edit)&against=previous")
    XCTAssertEqual(page.status, 200, page.html)
    let oracle = try gitDiff(commits[3], edit)
    XCTAssertGreaterThan(oracle.added, 0, "git sees the edit")
    XCTAssertEqual(try diffLines(page.html), oracle.lines, page.html)
    XCTAssertTrue(page.html.contains("+\(oracle.added) −\(oracle.removed)</span>"), page.html)
    // The first version against the file now, across the move.
    let first = commits[3]
    let now = get("/history/\(note.path)?commit=\(first)&against=current")
    XCTAssertEqual(now.status, 200, now.html)
    let whole = try gitDiff(first, "HEAD")
    XCTAssertGreaterThan(whole.removed, 0, "git sees the edits")
    XCTAssertEqual(try diffLines(now.html), whole.lines, now.html)
    // The first version against the one before: everything added.
    let created = get("/history/\(note.path)?commit=\(first)")
    let text = try git.show(first, path: "work/roadmap.md")
    XCTAssertTrue(created.html.contains("+\(LineDiff.split(text).count) −0</span>"), created.html)

    XCTAssertEqual(get("/history/\(note.path)?commit=\(String(repeating: "0", count: 40))").status, 404)
    XCTAssertEqual(get("/history/\(note.path)?commit=\(edit)&against=sideways").status, 400)
    XCTAssertEqual(get("/history/archive/none.md").status, 404)
  }

  func testRestoringAVersionIsOneNewCommit() throws {
    let (note, commits) = try makeHistory()
    let id = try XCTUnwrap(note.id)
    let page = get("/history/" + note.path)
    let version = try notes.version(of: note)
    XCTAssertTrue(page.html.contains(#"<input type="hidden" name="version" value="\#(version)">"#), page.html)
    let before = try git.logSubjects()

    let restored = post("/restore/" + note.path, [("commit", commits[2]), ("version", version)])
    XCTAssertEqual(restored.status, 303, restored.html)
    XCTAssertEqual(restored.location, "/note/archive/roadmap.md")
    XCTAssertEqual(try git.logSubjects(), ["nb: restore archive/roadmap.md from \(commits[2].prefix(8))"] + before)
    XCTAssertEqual(try git.statusPorcelain(), "")
    let text = try notes.text(of: try notes.resolve(note.path))
    let old = try git.show(commits[2], path: "work/roadmap.md")
    XCTAssertEqual(
      String(text[NoteRepository.bodyStart(in: text)...]), String(old[NoteRepository.bodyStart(in: old)...]),
      "that version's body")
    XCTAssertEqual(try notes.resolve(note.path).id, id, "the note keeps its id")

    // The page was loaded before that restore: its version is stale now, nothing changes.
    let stale = post("/restore/" + note.path, [("commit", commits[3]), ("version", version)])
    XCTAssertEqual(stale.status, 409, stale.html)
    XCTAssertTrue(stale.html.contains("nothing was restored"), stale.html)
    XCTAssertEqual(try git.logSubjects().count, before.count + 1)

    let current = try notes.version(of: note)
    XCTAssertEqual(
      post("/restore/" + note.path, [("commit", String(repeating: "a", count: 40)), ("version", current)]).status, 404)
    XCTAssertEqual(post("/restore/" + note.path, [("version", current)]).status, 400)
    XCTAssertEqual(post("/restore/archive/none.md", [("commit", commits[0]), ("version", current)]).status, 404)
    XCTAssertEqual(try git.logSubjects().count, before.count + 1, "no bad request committed anything")
  }

  func testReadOnlyShowsHistoryButRestoresNothing() throws {
    let (note, commits) = try makeHistory()
    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c", readOnly: true))
    let page = get("/history/" + note.path)
    XCTAssertEqual(page.status, 200)
    XCTAssertFalse(page.html.contains("Restore this version"), page.html)
    let refused = post("/restore/" + note.path, [("commit", commits[2]), ("version", try notes.version(of: note))])
    XCTAssertEqual(refused.status, 403)
    XCTAssertEqual(try git.logSubjects().count, commits.count + 1, "the init commit and the note's four")
  }
}

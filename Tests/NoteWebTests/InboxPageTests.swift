import Foundation
import NBTestSupport
import NoteStore
import XCTest

@testable import NoteWeb

/// The inbox page and the capture box every page carries, over a real repository, in process, at a fixed time;
/// the git CLI says what was committed.
final class InboxPageTests: XCTestCase {
  private var temp: TemporaryDirectory!
  private var notes: NoteRepository!
  private var app: NoteWebApp!
  private var git: GitCLI!

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "nb-web-inbox")
    notes = try NoteRepository.initialize(at: temp.url.appendingPathComponent("notes"))
    notes.timeZone = TimeZone(identifier: "UTC")!
    let now = ISO8601DateFormatter().date(from: "2026-03-10T12:00:00Z")!
    notes.clock = { now }
    git = try GitCLI(workTree: notes.root, home: try temp.directory("home"))
    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c"))
  }

  private func get(_ target: String) -> (status: Int, html: String) { PageRequests(app: app).get(target) }

  private func post(_ target: String, _ fields: [(String, String)]) -> (status: Int, html: String, location: String?) {
    PageRequests(app: app).post(target, fields)
  }

  private func makeNotebooks() throws {
    for (title, text) in [("Dentist", "dentist teeth bridge appointment"), ("Doctor", "doctor appointment blood")] {
      _ = try notes.createNote(NoteDraft(title: title, notebook: "health", content: text))
    }
    for (title, text) in [("Standup", "meeting agenda team sprint"), ("Review", "sprint review meeting team")] {
      _ = try notes.createNote(NoteDraft(title: title, notebook: "work", content: text))
    }
  }

  func testCaptureFromAnyPageThenFileWithOneClickOrACorrection() throws {
    try makeNotebooks()
    XCTAssertTrue(get("/").html.contains(#"<form class="capture" action="/capture" method="post">"#))
    let commits = try git.logSubjects().count
    let captured = post("/capture", [("text", "call the dentist about the bridge")])
    XCTAssertEqual(captured.status, 303, captured.html)
    XCTAssertEqual(captured.location, "/inbox#inbox%2Fcall-the-dentist-about-the-bridge.md")
    XCTAssertEqual(try git.logSubjects().count, commits + 1)
    _ = post("/capture", [("text", "team meeting agenda for the sprint")])
    let items = try notes.inboxItems()
    XCTAssertEqual(items.count, 2)

    let page = get("/inbox")
    XCTAssertEqual(page.status, 200, page.html)
    XCTAssertTrue(page.html.contains("2 waiting"), page.html)
    // What the library advises is what the page shows.
    for (item, advice) in zip(items, try notes.advice(for: items)) {
      XCTAssertTrue(page.html.contains(">\(item.title)</a>"), page.html)
      let suggestion = try XCTUnwrap(advice.suggestion, "\(item.title): \(advice)")
      let percent = "\(Int((suggestion.confidence * 100).rounded()))%"
      XCTAssertTrue(page.html.contains("Suggested: <strong>\(suggestion.notebook)</strong> \(percent)"), page.html)
      XCTAssertTrue(page.html.contains("<button type=\"submit\">File in \(suggestion.notebook)</button>"), page.html)
    }

    // One click: the suggestion taken, recorded as accepted.
    let dentist = "inbox/call-the-dentist-about-the-bridge.md"
    let accepted = post("/inbox/file", [("item", dentist), ("notebook", "health")])
    XCTAssertEqual(accepted.status, 303, accepted.html)
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: notes.root.appendingPathComponent("health/call-the-dentist-about-the-bridge.md").path))
    // A correction: another notebook than suggested, recorded as such.
    let meeting = "inbox/team-meeting-agenda-for-the-sprint.md"
    let corrected = post("/inbox/file", [("item", meeting), ("notebook", "health")])
    XCTAssertEqual(corrected.status, 303, corrected.html)
    let log = try String(contentsOf: notes.root.appendingPathComponent(".nb/inbox/decisions.jsonl"), encoding: .utf8)
    let lines = log.split(separator: "\n")
    XCTAssertEqual(lines.count, 2, log)
    // The log is ordered by time, then item: find each item's line by its id.
    func decision(_ path: String) throws -> Substring {
      let id = try XCTUnwrap(items.first { $0.path == path }?.id)
      return try XCTUnwrap(lines.first { $0.contains(#""item":"\#(id)""#) }, log)
    }
    let accept = try decision(dentist)
    XCTAssertTrue(accept.contains(#""chosen":"health""#) && accept.contains(#""suggested":"health""#), log)
    let correction = try decision(meeting)
    XCTAssertTrue(correction.contains(#""chosen":"health""#) && correction.contains(#""suggested":"work""#), log)
    XCTAssertEqual(try git.logSubjects().count, commits + 4)
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertTrue(get("/inbox").html.contains("Nothing waits in the inbox."))
  }

  func testReadOnlyHasNoCaptureBoxAndFilesNothing() throws {
    try makeNotebooks()
    XCTAssertEqual(post("/capture", [("text", "call the dentist")]).status, 303)
    let commits = try git.logSubjects().count
    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c", readOnly: true))
    XCTAssertFalse(get("/").html.contains(#"action="/capture""#))
    let page = get("/inbox")
    XCTAssertEqual(page.status, 200)
    XCTAssertTrue(page.html.contains(">call the dentist</a>"), page.html)
    XCTAssertFalse(page.html.contains(#"action="/inbox/file""#), page.html)
    XCTAssertEqual(post("/capture", [("text", "more")]).status, 403)
    XCTAssertEqual(post("/inbox/file", [("item", "inbox/call-the-dentist.md"), ("notebook", "health")]).status, 403)
    XCTAssertEqual(try git.logSubjects().count, commits)
  }

  func testBadCapturesAndFilingsChangeNothing() throws {
    try makeNotebooks()
    let commits = try git.logSubjects().count
    let empty = post("/capture", [("text", "  \r\n ")])
    XCTAssertEqual(empty.status, 400)
    XCTAssertTrue(empty.html.contains("Nothing to capture: the box is empty"), empty.html)
    XCTAssertEqual(post("/capture", []).status, 400)
    XCTAssertEqual(post("/capture", [("text", "a\u{0}b")]).status, 400)
    XCTAssertEqual(try git.logSubjects().count, commits)

    XCTAssertEqual(post("/capture", [("text", "call the dentist")]).status, 303)
    let item = "inbox/call-the-dentist.md"
    let nowhere = post("/inbox/file", [("item", item), ("notebook", "nowhere")])
    XCTAssertEqual(nowhere.status, 400)
    XCTAssertTrue(
      nowhere.html.contains("Not filed: no notebook &#39;nowhere&#39;")
        || nowhere.html.contains("Not filed: no notebook"), nowhere.html)
    XCTAssertEqual(post("/inbox/file", [("item", "inbox/none.md"), ("notebook", "work")]).status, 404)
    XCTAssertEqual(
      post("/inbox/file", [("item", "work/standup.md"), ("notebook", "health")]).status, 400, "not an inbox item")
    XCTAssertEqual(post("/inbox/file", [("item", "../x.md"), ("notebook", "health")]).status, 403)
    XCTAssertEqual(post("/inbox/file", [("notebook", "health")]).status, 400)
    XCTAssertEqual(try git.logSubjects().count, commits + 1, "only the capture")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: notes.root.appendingPathComponent(".nb/inbox/decisions.jsonl").path))
  }
}

import Foundation
import InkKit
import NBTestSupport
import NoteStore
import XCTest

@testable import NoteWeb

/// The Draw page and its save route over a real repository, in process: what the page shows, what a request
/// writes (the sidecar read back with InkKit), and what is committed (the git CLI as the oracle).
final class DrawPageTests: XCTestCase {
  private var temp: TemporaryDirectory!
  private var notes: NoteRepository!
  private var app: NoteWebApp!
  private var git: GitCLI!

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "nb-web-draw")
    notes = try NoteRepository.initialize(at: temp.url.appendingPathComponent("notes"))
    git = try GitCLI(workTree: notes.root, home: try temp.directory("home"))
    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c"))
  }

  private func get(_ target: String) -> (status: Int, html: String) { PageRequests(app: app).get(target) }

  /// A JSON POST as the page's script sends it: cookie, Origin, the CSRF token in a header (each can be left out).
  private func post(
    _ target: String, _ body: String, csrf: String? = "c", origin: String? = "http://127.0.0.1:8642",
    type: String = "application/json"
  ) -> (status: Int, json: [String: Any], text: String) {
    var headers: [(name: String, value: String)] = [
      ("Host", "127.0.0.1:8642"), ("Cookie", "nb_token_8642=t"), ("Content-Type", type),
    ]
    if let origin { headers.append(("Origin", origin)) }
    if let csrf { headers.append(("X-NB-CSRF", csrf)) }
    let response = app.respond(to: WebRequest(method: "POST", target: target, headers: headers, body: Data(body.utf8)))
    let json = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
    return (response.status, json, String(decoding: response.body, as: UTF8.self))
  }

  private func post(_ target: String, object: [String: Any]) throws -> (status: Int, json: [String: Any], text: String)
  {
    post(target, String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
  }

  private func add(_ title: String, _ content: String = "x") throws -> Note {
    try notes.createNote(NoteDraft(title: title, notebook: "work", content: content))
  }

  private func sidecar(_ note: Note) -> URL { notes.root.appendingPathComponent(notes.inkPath(of: note)) }

  /// The sidecar as InkKit reads it from disk.
  private func drawing(_ note: Note) throws -> InkDocument {
    try InkCodec.parse(try Data(contentsOf: sidecar(note)))
  }

  /// A pen stroke as the script sends one: force and tilt per point, a nib from the palette.
  private func penStroke(_ id: String, y: Double = 40, nib: Double = 2) -> [String: Any] {
    [
      "id": id, "ink": "pen", "color": "1f5fd1ff", "nib": nib, "created": 1_764_352_000_123,
      "points": [
        ["x": 10, "y": y, "t": 0, "f": 0.5, "az": 0.3, "al": 1.2],
        ["x": 20.5, "y": y + 1, "t": 0.016, "f": 1.0, "az": 0.31, "al": 1.1],
        ["x": 31.25, "y": y + 2, "t": 0.033, "f": 1.5, "az": 0.32, "al": 1.0],
      ],
    ]
  }

  private func head() throws -> String { try git.revParse("HEAD") }

  func testTheDrawPageShowsThePageAsNbInkRenderDrawsItWithACanvasAndThePalette() throws {
    let note = try add("Sketch")
    try notes.editInk(of: note, subject: "ink") { drawing in
      try drawing.addPage(id: "p1", width: 600, height: 800, background: "dots")
      try drawing.add(InkStroke(id: "s1", page: "p1", points: [InkPoint(x: 1, y: 10), InkPoint(x: 40, y: 12)]))
    }
    let page = get("/draw/" + note.path)
    XCTAssertEqual(page.status, 200, page.html)
    XCTAssertTrue(page.html.contains(#"<script src="/assets/draw.js" defer></script>"#), page.html)
    XCTAssertTrue(page.html.contains(#"data-frame="0 0 600 800""#), page.html)
    XCTAssertTrue(page.html.contains(#"data-page-id="p1""#), page.html)
    XCTAssertTrue(page.html.contains(#"data-ink-path="work/sketch.ink.jsonl""#), page.html)
    XCTAssertTrue(page.html.contains(#"data-csrf="c""#), page.html)
    XCTAssertTrue(page.html.contains(#"<canvas width="600" height="800""#), page.html)
    let version = try XCTUnwrap(page.html.range(of: #"data-version=""#)).upperBound
    let fingerprint = String(page.html[version...].prefix { $0 != "\"" })
    XCTAssertEqual(fingerprint.count, 16)
    XCTAssertTrue(
      page.html.contains(#"<img src="/ink/work/sketch.md?page=0&amp;v=\#(fingerprint)" alt="Handwriting, page 1""#),
      page.html)
    // Without JavaScript: the rendering, and a word on why there is no drawing.
    XCTAssertTrue(page.html.contains("<noscript><p class=\"warning\">Drawing needs JavaScript"), page.html)
    XCTAssertTrue(page.html.contains(#"<div class="toolbar" id="draw-tools" hidden>"#), page.html)
    for swatch in InkPalette.colors {
      XCTAssertTrue(page.html.contains(#"data-color="\#(swatch.color.hex)""#), swatch.name)
    }
    XCTAssertTrue(page.html.contains(#"data-ink="highlighter""#) && page.html.contains(#"data-width="16""#))
    XCTAssertTrue(page.html.contains(#"<form class="add-page" method="post" action="/draw/work/sketch.md">"#))
    // The image the page shows is exactly nb ink render's.
    let svg = app.respond(
      to: WebRequest(
        method: "GET", target: "/ink/work/sketch.md?page=0&v=\(fingerprint)",
        headers: [("Host", "127.0.0.1:8642"), ("X-NB-Token", "t")]))
    XCTAssertEqual(svg.body, try InkSVG.renderData(try drawing(note), page: .page("p1")))
    // The script's view: frame and strokes.
    let json = get("/draw/\(note.path)?page=0&format=json")
    XCTAssertEqual(json.status, 200)
    let data = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.html.utf8)) as? [String: Any])
    XCTAssertEqual(data["page"] as? String, "p1")
    XCTAssertEqual(data["frame"] as? [Double], [0, 0, 600, 800])
    XCTAssertEqual((data["strokes"] as? [[String: Any]])?.map { $0["id"] as? String }, ["s1"])
    XCTAssertEqual(get("/draw/\(note.path)?page=1").status, 404)
    XCTAssertEqual(get("/draw/work/nothing.md").status, 404)

    // The note page links here, and its image address changes with the sidecar, so a live refresh shows new ink.
    let notePage = get("/note/" + note.path).html
    XCTAssertTrue(notePage.contains(#"<a href="/draw/work/sketch.md">Draw</a>"#), notePage)
    XCTAssertTrue(notePage.contains(#"<a href="/draw/work/sketch.md?page=0">Draw on page 1</a>"#), notePage)
    XCTAssertTrue(notePage.contains("?page=0&amp;v=\(fingerprint)\""), notePage)
  }

  func testANoteWithoutInkShowsABlankPageAndItsFirstStrokeCreatesTheSidecarWithAPage() throws {
    let note = try add("Empty")
    let page = get("/draw/" + note.path)
    XCTAssertEqual(page.status, 200, page.html)
    XCTAssertTrue(page.html.contains(#"data-blank="true""#), page.html)
    XCTAssertTrue(page.html.contains(#"data-page-id="""#), page.html)
    XCTAssertTrue(page.html.contains(#"data-frame="0 0 768 1024""#), page.html)
    XCTAssertFalse(page.html.contains("<img src=\"/ink/"), "nothing to render yet")
    XCTAssertFalse(FileManager.default.fileExists(atPath: sidecar(note).path))

    let commits = try git.logSubjects().count
    let saved = try post("/draw/" + note.path, object: ["page": NSNull(), "strokes": [penStroke("a1")]])
    XCTAssertEqual(saved.status, 200, saved.text)
    let pageID = try XCTUnwrap(saved.json["page"] as? String)
    XCTAssertEqual(saved.json["added"] as? [String], ["a1"])
    let document = try drawing(note)
    XCTAssertEqual(document.pages.map(\.id), [pageID])
    XCTAssertEqual(document.pages.first.map { [$0.width, $0.height] }, [768, 1024])
    XCTAssertEqual(document.stroke(id: "a1")?.page, pageID)
    XCTAssertEqual(try git.logSubjects().count, commits + 1)
    XCTAssertEqual(try git.statusPorcelain(), "")
    // Page 0 is now that page.
    XCTAssertTrue(get("/draw/" + note.path).html.contains(#"data-page-id="\#(pageID)""#))
  }

  func testABurstIsAppendedWithItsPressureAndTiltInOneCommit() throws {
    let note = try add("Sketch")
    try notes.editInk(of: note, subject: "ink") { drawing in
      try drawing.addPage(id: "p1", width: 600, height: 800)
      try drawing.add(InkStroke(id: "old", page: "p1", points: [InkPoint(x: 1, y: 1), InkPoint(x: 5, y: 5)]))
    }
    let before = try Data(contentsOf: sidecar(note))
    let commits = try git.logSubjects().count
    let saved = try post(
      "/draw/" + note.path,
      object: ["page": "p1", "strokes": [penStroke("b1"), penStroke("b2", y: 90, nib: 8)]])
    XCTAssertEqual(saved.status, 200, saved.text)
    XCTAssertEqual(saved.json["added"] as? [String], ["b1", "b2"])
    XCTAssertEqual(saved.json["page"] as? String, "p1")
    XCTAssertEqual(saved.json["version"] as? String, app.inkVersion(of: try notes.resolve(note.path)))

    // Exactly one commit, the note stamped with it, nothing left uncommitted.
    XCTAssertEqual(try git.logSubjects().count, commits + 1)
    XCTAssertEqual(try git.logSubjects().first, "nb: draw work/sketch.md: 2 strokes")
    XCTAssertEqual(
      try git.run("diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"), "work/sketch.ink.jsonl\nwork/sketch.md\n"
    )
    XCTAssertEqual(try git.statusPorcelain(), "")

    // The sidecar: the old stroke's record byte for byte, the new strokes on top with their channels.
    let after = try Data(contentsOf: sidecar(note))
    let oldLine = try XCTUnwrap(String(decoding: before, as: UTF8.self).split(separator: "\n").last)
    XCTAssertTrue(String(decoding: after, as: UTF8.self).contains(oldLine + "\n"))
    let document = try drawing(note)
    XCTAssertEqual(document.strokes(onPage: "p1").map(\.id), ["old", "b1", "b2"])
    let b1 = try XCTUnwrap(document.stroke(id: "b1"))
    XCTAssertEqual(b1.ink, .pen)
    XCTAssertEqual(b1.color.hex, "1f5fd1ff")
    XCTAssertEqual(b1.created.map { ($0.timeIntervalSince1970 * 1000).rounded() }, 1_764_352_000_123)
    XCTAssertEqual(b1.channels, [.time, .force, .azimuth, .altitude, .width, .height])
    XCTAssertEqual(b1.points.map(\.x), [10, 20.5, 31.25])
    XCTAssertEqual(b1.points.map(\.y), [40, 41, 42])
    XCTAssertEqual(b1.points.map(\.time), [0, 0.016, 0.033])
    XCTAssertEqual(b1.points.map(\.force), [0.5, 1, 1.5])
    XCTAssertEqual(b1.points.map(\.azimuth), [0.3, 0.31, 0.32])
    XCTAssertEqual(b1.points.map(\.altitude), [1.2, 1.1, 1])
    // The nib's width thinned and thickened by the force as the renderer does it.
    XCTAssertEqual(b1.points.map(\.width), [1.5, 2, 2.5])
    XCTAssertEqual(try XCTUnwrap(document.stroke(id: "b2")).points.map(\.width), [6, 8, 10])

    // Sent again (an answer that never arrived): nothing added twice, nothing committed.
    let again = try post(
      "/draw/" + note.path, object: ["page": "p1", "strokes": [penStroke("b1"), penStroke("b2", y: 90, nib: 8)]])
    XCTAssertEqual(again.status, 200, again.text)
    XCTAssertEqual(again.json["added"] as? [String], [])
    XCTAssertEqual(again.json["present"] as? [String], ["b1", "b2"])
    XCTAssertEqual(try git.logSubjects().count, commits + 1)
    XCTAssertEqual(try Data(contentsOf: sidecar(note)), after)
  }

  func testErasingRemovesStrokesInOneCommitAndAMissingIDIsReportedNotFatal() throws {
    let note = try add("Sketch")
    _ = try post("/draw/" + note.path, object: ["page": NSNull(), "strokes": [penStroke("a"), penStroke("b", y: 80)]])
    let commits = try git.logSubjects().count
    let erased = try post("/draw/" + note.path, object: ["erase": ["a", "gone"]])
    XCTAssertEqual(erased.status, 200, erased.text)
    XCTAssertEqual(erased.json["erased"] as? [String], ["a"])
    XCTAssertEqual(erased.json["missing"] as? [String], ["gone"])
    XCTAssertEqual(try drawing(note).strokes.map(\.id), ["b"])
    XCTAssertEqual(try git.logSubjects().count, commits + 1)
    XCTAssertEqual(try git.logSubjects().first, "nb: draw work/sketch.md: 1 erased")
    // Undoing that erase in the browser adds the stroke back as the page's JSON gave it, under a new id.
    let json = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(get("/draw/\(note.path)?format=json").html.utf8)) as? [String: Any])
    var copy = try XCTUnwrap((json["strokes"] as? [[String: Any]])?.first)
    let original = try XCTUnwrap(try drawing(note).stroke(id: "b"))
    copy["id"] = "b-again"
    let page = try XCTUnwrap(json["page"] as? String)
    let restored = try post("/draw/" + note.path, object: ["page": page, "strokes": [copy], "erase": ["b"]])
    XCTAssertEqual(restored.status, 200, restored.text)
    let back = try XCTUnwrap(try drawing(note).stroke(id: "b-again"))
    XCTAssertEqual(back.points, original.points)
    XCTAssertEqual(back.channels, original.channels)
    XCTAssertEqual(back.color, original.color)
    XCTAssertEqual(back.created, original.created)
  }

  func testAddingAPageIsAFormThatWorksWithoutJavaScript() throws {
    let note = try add("Sketch")
    _ = try post("/draw/" + note.path, object: ["page": NSNull(), "strokes": [penStroke("a")]])
    let added = PageRequests(app: app).post("/draw/" + note.path, [("action", "add-page")])
    XCTAssertEqual(added.status, 303, added.html)
    XCTAssertEqual(added.location, "/draw/work/sketch.md?page=1")
    let document = try drawing(note)
    XCTAssertEqual(document.orderedPages.count, 2)
    XCTAssertEqual(document.orderedPages.map(\.width), [768, 768])
    XCTAssertEqual(try git.logSubjects().first, "nb: draw work/sketch.md: add a page")
    let second = get("/draw/work/sketch.md?page=1")
    XCTAssertEqual(second.status, 200)
    XCTAssertTrue(second.html.contains(#"data-page-id="\#(document.orderedPages[1].id)""#), second.html)
    XCTAssertTrue(second.html.contains("page 2 of 2"), second.html)
  }

  func testBadRequestsAreOneLineRefusalsThatChangeNothing() throws {
    let note = try add("Sketch")
    _ = try post("/draw/" + note.path, object: ["page": NSNull(), "strokes": [penStroke("a")]])
    let bytes = try Data(contentsOf: sidecar(note))
    let commit = try head()
    let page = try XCTUnwrap(try drawing(note).pages.first?.id)
    func stroke(_ change: (inout [String: Any]) -> Void) -> String {
      var object = penStroke("n1")
      change(&object)
      let body: [String: Any] = ["page": page, "strokes": [object]]
      return String(decoding: try! JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }
    let cases: [(String, Int, String)] = [
      ("{not json", 400, "The body is not JSON"),
      ("[1,2]", 400, "The body must be a JSON object"),
      ("{}", 400, "Nothing to save"),
      (#"{"strokes": 3}"#, 400, "strokes and erase must be arrays"),
      (#"{"pages": []}"#, 400, "Unknown field pages"),
      (#"{"page": "nope", "strokes": [{"id": "z", "points": [{"x": 1, "y": 2}]}]}"#, 404, "no page nope"),
      (#"{"erase": [5]}"#, 400, "erase[0] is no stroke id"),
      (stroke { $0["id"] = "a b" }, 400, "strokes[0]: id must be"),
      (stroke { $0["color"] = "blue" }, 400, "strokes[0]: color must be"),
      (stroke { $0["points"] = [] as [Any] }, 400, "strokes[0]: points must be a list"),
      (stroke { $0["points"] = [["x": 1, "y": 2], ["x": 2]] }, 400, "strokes[0]: points[1] must have the channels"),
      (stroke { $0["points"] = [["x": 1e9, "y": 2]] }, 400, "strokes[0]: points[0].x is 1000000000.0, outside"),
      (stroke { $0["points"] = [["x": 1, "y": "2"]] }, 400, "strokes[0]: points[0].y must be a number"),
      (stroke { $0["points"] = [["x": true, "y": 2]] }, 400, "strokes[0]: points[0].x must be a number"),
      (stroke { $0["points"] = [["x": 1, "y": 2, "pressure": 1]] }, 400, "unknown channel pressure"),
      (stroke { $0["nib"] = 0 }, 400, "strokes[0]: nib is 0.0, outside"),
      (stroke { $0["ink"] = "<b>" }, 400, "strokes[0]: ink must be a tool name"),
      (stroke { $0["bogus"] = 1 }, 400, "strokes[0]: unknown field bogus"),
      (stroke { $0["points"] = [["x": 1, "y": 2, "w": 3]] }, 400, "give a nib or points with w and h, not both"),
      (
        #"{"page": "\#(page)", "strokes": [{"id": "d", "points": [{"x": 1, "y": 2}]}, {"id": "d", "points": [{"x": 1, "y": 2}]}]}"#,
        400, "same id"
      ),
    ]
    for (body, status, message) in cases {
      let answer = post("/draw/" + note.path, body)
      XCTAssertEqual(answer.status, status, "\(body): \(answer.text)")
      let error = answer.json["error"] as? String ?? ""
      XCTAssertTrue(error.contains(message), "\(body): \(error)")
      XCTAssertFalse(error.contains("\n"), error)
    }
    XCTAssertEqual(post("/draw/" + note.path, "{}", type: "text/plain").status, 415)
    XCTAssertEqual(post("/draw/work/none.md", stroke { _ in }).status, 404)
    XCTAssertEqual(try Data(contentsOf: sidecar(note)), bytes)
    XCTAssertEqual(try head(), commit)
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testASidecarNbCannotReadIsNeverDrawnOver() throws {
    let note = try add("Sketch")
    _ = try post("/draw/" + note.path, object: ["page": NSNull(), "strokes": [penStroke("a")]])
    var broken = try Data(contentsOf: sidecar(note))
    broken.append(contentsOf: Array(#"{"k":"s","id":"x","x":[1,2],"y":[1]}"#.utf8) + [0x0a])
    try broken.write(to: sidecar(note))
    _ = try git.run("commit", "-qam", "a broken sidecar from elsewhere")
    let commit = try head()
    let page = get("/draw/" + note.path)
    XCTAssertEqual(page.status, 422, page.html)
    XCTAssertTrue(page.html.contains("Drawing is off for this note"), page.html)
    XCTAssertFalse(page.html.contains("<canvas"), page.html)
    let refused = try post("/draw/" + note.path, object: ["page": NSNull(), "strokes": [penStroke("b")]])
    XCTAssertEqual(refused.status, 422, refused.text)
    XCTAssertTrue((refused.json["error"] as? String)?.contains("sketch.ink.jsonl") == true, refused.text)
    XCTAssertEqual(try Data(contentsOf: sidecar(note)), broken)
    XCTAssertEqual(try head(), commit)
  }

  func testWritesNeedTheCSRFTokenAndOriginAndReadOnlyHasNoDrawing() throws {
    let note = try add("Sketch")
    let body = String(
      decoding: try JSONSerialization.data(withJSONObject: ["page": NSNull(), "strokes": [penStroke("a")]]),
      as: UTF8.self)
    XCTAssertEqual(post("/draw/" + note.path, body, csrf: nil).status, 403)
    XCTAssertEqual(post("/draw/" + note.path, body, csrf: "wrong").status, 403)
    XCTAssertEqual(post("/draw/" + note.path, body, origin: nil).status, 403)
    XCTAssertEqual(post("/draw/" + note.path, body, origin: "http://evil.example").status, 403)
    XCTAssertFalse(FileManager.default.fileExists(atPath: sidecar(note).path))

    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c", readOnly: true))
    XCTAssertEqual(get("/draw/" + note.path).status, 403)
    XCTAssertEqual(post("/draw/" + note.path, body).status, 403)
    XCTAssertEqual(PageRequests(app: app).post("/draw/" + note.path, [("action", "add-page")]).status, 403)
    XCTAssertFalse(get("/note/" + note.path).html.contains(">Draw</a>"))
    XCTAssertFalse(FileManager.default.fileExists(atPath: sidecar(note).path))
  }

  func testErasedStrokesCanBeHiddenFromTheImageBeforeTheyAreSaved() throws {
    let note = try add("Sketch")
    _ = try post("/draw/" + note.path, object: ["page": NSNull(), "strokes": [penStroke("a"), penStroke("b", y: 90)]])
    let svg = get("/ink/\(note.path)?page=0&hide=a").html
    XCTAssertFalse(svg.contains(#"data-id="a""#), svg)
    XCTAssertTrue(svg.contains(#"data-id="b""#), svg)
    XCTAssertTrue(get("/ink/\(note.path)?page=0").html.contains(#"data-id="a""#))
  }
}

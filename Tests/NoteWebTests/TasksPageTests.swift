import Foundation
import NBTestSupport
import NoteStore
import TaskKit
import XCTest

@testable import NoteWeb

/// The tasks page over a real repository, in process, at a fixed time; the git CLI says what was committed.
final class TasksPageTests: XCTestCase {
  private var temp: TemporaryDirectory!
  private var notes: NoteRepository!
  private var app: NoteWebApp!
  private var git: GitCLI!

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "nb-web-tasks")
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

  private func day(_ text: String) -> TaskDate { TaskDate(text: text)! }

  /// The HTML of one section of the tasks page.
  private func section(_ id: String, in html: String) throws -> String {
    let start = try XCTUnwrap(html.range(of: #"<section class="tasks" id="\#(id)">"#), id).upperBound
    let end = html.range(of: "</section>", range: start..<html.endIndex)?.lowerBound ?? html.endIndex
    return String(html[start..<end])
  }

  private func makeTasks() throws {
    _ = try notes.createTask(TaskDraft(title: "File taxes", notebook: "work", due: day("2026-03-08")))
    _ = try notes.createTask(TaskDraft(title: "Call mum", notebook: "home", priority: .high, due: day("2026-03-10")))
    _ = try notes.createTask(
      TaskDraft(title: "Water plants", notebook: "home", due: day("2026-03-10"), recurrence: "FREQ=DAILY"))
    _ = try notes.createTask(TaskDraft(title: "Ship beta", notebook: "work", due: day("2026-03-13")))
    _ = try notes.createTask(TaskDraft(title: "Learn piano", notebook: "home"))
    _ = try notes.createTask(TaskDraft(title: "Old thing", notebook: "work", status: .done, due: day("2026-03-01")))
  }

  func testTheTasksPageListsTodayOverdueUpcomingAndNoDateByProject() throws {
    try makeTasks()
    let page = get("/tasks")
    XCTAssertEqual(page.status, 200, page.html)
    let overdue = try section("overdue", in: page.html)
    XCTAssertTrue(overdue.contains(#"<h2>Overdue <span class="count">1</span></h2>"#), overdue)
    XCTAssertTrue(try section("no-date", in: page.html).contains(#"No date <span class="count">1</span>"#))
    XCTAssertTrue(try section("today", in: page.html).contains(#"Today <span class="count">2</span>"#))
    XCTAssertTrue(
      overdue.contains(">File taxes</a>") && overdue.contains(#"href="/tasks?project=work">work</a>"#), overdue)
    XCTAssertFalse(overdue.contains("Call mum") || overdue.contains("Ship beta"), overdue)
    let today = try section("today", in: page.html)
    XCTAssertTrue(today.contains(">Call mum</a>") && today.contains(">Water plants</a>"), today)
    XCTAssertTrue(today.contains("due 2026-03-10 · high"), today)
    XCTAssertTrue(today.contains("due 2026-03-10 · repeats"), today)
    XCTAssertFalse(today.contains("File taxes") || today.contains("Ship beta"), today)
    let upcoming = try section("upcoming", in: page.html)
    XCTAssertTrue(upcoming.contains(">Ship beta</a>"), upcoming)
    XCTAssertFalse(upcoming.contains("Call mum") || upcoming.contains("Water plants"), upcoming)
    let noDate = try section("no-date", in: page.html)
    XCTAssertTrue(noDate.contains(">Learn piano</a>") && !noDate.contains("Ship beta"), noDate)
    XCTAssertFalse(page.html.contains("Old thing"), "done tasks are not listed")

    let home = get("/tasks?project=home")
    XCTAssertTrue(home.html.contains("Call mum") && home.html.contains("Learn piano"), home.html)
    XCTAssertFalse(home.html.contains("File taxes") || home.html.contains("Ship beta"), home.html)
  }

  func testTickingATaskIsOneCommitAndARepeatingOneMovesOn() throws {
    try makeTasks()
    let commits = try git.logSubjects().count
    let water = try notes.resolveTask("home/water-plants.md")
    let done = post("/tasks/done", [("task", water.selector), ("title", "Water plants"), ("project", "home")])
    XCTAssertEqual(done.status, 303, done.html)
    XCTAssertEqual(done.location, "/tasks?project=home")
    XCTAssertEqual(try git.logSubjects().count, commits + 1)
    XCTAssertEqual(try git.statusPorcelain(), "")
    let after = try notes.resolveTask("home/water-plants.md")
    XCTAssertEqual(after.task.due, day("2026-03-11"), "the next occurrence")
    XCTAssertEqual(after.task.status, .open)
    let page = get("/tasks")
    XCTAssertFalse(try section("today", in: page.html).contains("Water plants"), page.html)
    XCTAssertTrue(try section("upcoming", in: page.html).contains("due 2026-03-11"), page.html)

    let mum = try notes.resolveTask("home/call-mum.md")
    XCTAssertEqual(post("/tasks/done", [("task", mum.selector), ("title", "Call mum")]).status, 303)
    XCTAssertEqual(try notes.resolveTask("home/call-mum.md").task.status, .done)
    XCTAssertEqual(try git.logSubjects().count, commits + 2)
  }

  func testTickingASubtaskIsWhatTheCLIDoes() throws {
    let note = try notes.createTask(
      TaskDraft(title: "Pack", notebook: "home", due: day("2026-03-10"), subtasks: ["passport", "charger", "tickets"]))
    let task = try notes.resolveTask(note.path)
    let page = get("/tasks")
    let today = try section("today", in: page.html)
    XCTAssertTrue(today.contains(#"<ul class="subtasks">"#), today)
    for text in ["passport", "charger", "tickets"] {
      XCTAssertTrue(today.contains(#"<span class="subtask">\#(text)</span>"#), today)
    }
    XCTAssertTrue(today.contains(#"name="subtask" value="2">"#) && today.contains(#"name="text" value="charger">"#))

    // The CLI on a clone, at the same instant, is the oracle for the bytes.
    let clone = temp.url.appendingPathComponent("clone")
    try git.run("clone", "-q", notes.root.path, clone.path)
    let cli = try ProcessRunner.run(
      try NBBinary.url(), arguments: ["--dir", clone.path, "task", "done", task.selector, "--subtask", "2"],
      environment: [
        "NB_NOW": "2026-03-10T12:00:00Z", "TZ": "UTC", "HOME": git.home.path, "PATH": "/usr/bin:/bin",
        "XDG_CONFIG_HOME": git.home.appendingPathComponent(".config").path,
      ], timeout: 60)
    XCTAssertEqual(cli.status, 0, cli.stderr)

    let commits = try git.logSubjects().count
    let ticked = post(
      "/tasks/subtask",
      [("task", task.selector), ("title", "Pack"), ("subtask", "2"), ("text", "charger"), ("project", "home")])
    XCTAssertEqual(ticked.status, 303, ticked.html)
    XCTAssertEqual(ticked.location, "/tasks?project=home")
    XCTAssertEqual(try git.logSubjects().count, commits + 1, "one commit")
    XCTAssertEqual(try git.statusPorcelain(), "")
    let web = try Data(contentsOf: notes.root.appendingPathComponent(task.note.path))
    XCTAssertEqual(
      String(decoding: web, as: UTF8.self),
      String(decoding: try Data(contentsOf: clone.appendingPathComponent(task.note.path)), as: UTF8.self))
    XCTAssertTrue(String(decoding: web, as: UTF8.self).contains("- [x] charger"))
    let after = try section("today", in: get("/tasks").html)
    XCTAssertTrue(after.contains(#"<li class="depth-0 closed">"#), after)
    XCTAssertFalse(after.contains(#"name="text" value="charger">"#), "no tick form for a ticked line")

    // Ticked already, or the line is another now: nothing ticked.
    let again = post(
      "/tasks/subtask", [("task", task.selector), ("title", "Pack"), ("subtask", "2"), ("text", "charger")])
    XCTAssertEqual(again.status, 409, again.html)
    let moved = post(
      "/tasks/subtask", [("task", task.selector), ("title", "Pack"), ("subtask", "1"), ("text", "tickets")])
    XCTAssertEqual(moved.status, 409, moved.html)
    XCTAssertTrue(moved.html.contains("Nothing was ticked"), moved.html)
    XCTAssertEqual(post("/tasks/subtask", [("task", task.selector), ("title", "Pack")]).status, 400)
    XCTAssertEqual(try git.logSubjects().count, commits + 1)
  }

  func testATaskThatChangedOrIsGoneIsNotTicked() throws {
    try makeTasks()
    let commits = try git.logSubjects().count
    let stale = post("/tasks/done", [("task", "home/call-mum.md"), ("title", "Call dad")])
    XCTAssertEqual(stale.status, 409)
    XCTAssertTrue(
      stale.html.contains("Nothing was ticked: home/call-mum.md is no longer &quot;Call dad&quot;"), stale.html)
    let gone = post("/tasks/done", [("task", "home/nothing.md"), ("title", "x")])
    XCTAssertEqual(gone.status, 409, gone.html)
    XCTAssertTrue(gone.html.contains("Nothing was ticked"), gone.html)
    XCTAssertEqual(post("/tasks/done", [("title", "Call mum")]).status, 400)
    let closed = post("/tasks/done", [("task", "work/old-thing.md"), ("title", "Old thing")])
    XCTAssertEqual(closed.status, 409, closed.html)
    XCTAssertEqual(try git.logSubjects().count, commits, "nothing committed")
    app = NoteWebApp(repository: notes, security: WebSecurity(port: 8642, token: "t", csrfToken: "c", readOnly: true))
    XCTAssertEqual(post("/tasks/done", [("task", "home/call-mum.md"), ("title", "Call mum")]).status, 403)
    XCTAssertFalse(get("/tasks").html.contains(#"action="/tasks/done""#))
    XCTAssertEqual(try git.logSubjects().count, commits)
  }
}

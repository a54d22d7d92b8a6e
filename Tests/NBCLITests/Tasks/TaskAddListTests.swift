import Foundation
import NBTestSupport
import XCTest

/// `nb task add` writes TaskNotes' properties; `nb task list` answers every view from the index at a fixed time.
final class TaskAddListTests: TaskTestCase {
  func testAddWritesTaskNotesPropertiesAndSubtasksInOneCommit() throws {
    try makeRepository()
    let before = try commitCount()
    let out = try task(
      "task", "add", "Ship the beta", "--project", "work", "--priority", "high", "--due", "fri", "--remind",
      "thu 9:00", "--repeat", "weekly", "--subtask", "write notes", "--subtask", "tag release"
    ).stdout
    XCTAssertTrue(out.hasPrefix("work/ship-the-beta.md "), out)
    let id = String(out.split(separator: " ")[1].dropLast())
    try assertOneCommit(since: before, subject: "nb: add work/ship-the-beta.md", noteIDs: [id], files: [
      "A\twork/.notebook.yaml", "A\twork/ship-the-beta.md",
    ])
    XCTAssertEqual(
      try text("work/ship-the-beta.md"),
      """
      ---
      id: \(id)
      title: Ship the beta
      created: 2026-11-24T10:00:00+01:00
      updated: 2026-11-24T10:00:00+01:00
      status: open
      priority: high
      due: 2026-11-27
      recurrence: DTSTART:20261127;FREQ=WEEKLY
      recurrence_anchor: scheduled
      reminders:
        - id: rem1
          type: absolute
          absoluteTime: 2026-11-26T09:00:00+01:00
      ---
      - [ ] write notes
      - [ ] tag release

      """)
    let listed = try listed()
    XCTAssertEqual(listed.count, 1)
    let entry = listed[0]
    XCTAssertEqual(entry["title"] as? String, "Ship the beta")
    XCTAssertEqual(entry["due"] as? String, "2026-11-27")
    XCTAssertEqual(entry["priority"] as? String, "high")
    XCTAssertEqual(entry["recurrence"] as? String, "DTSTART:20261127;FREQ=WEEKLY")
    XCTAssertEqual(entry["reminders"] as? [String], ["2026-11-26T09:00:00+01:00"])
    XCTAssertEqual(entry["subtasks"] as? [String: Int], ["done": 0, "total": 2])
    XCTAssertEqual(entry["notebook"] as? String, "work")
    XCTAssertEqual(entry["overdue"] as? Bool, false)
    // Every documented key is present, null or not.
    XCTAssertEqual(
      Set(entry.keys),
      [
        "selector", "path", "line", "id", "title", "notebook", "status", "priority", "due", "scheduled", "completed",
        "overdue", "recurrence", "recurrence_anchor", "complete_instances", "reminders", "contexts", "projects",
        "tags", "location", "subtasks", "inline", "created", "updated", "warnings",
      ])
  }

  func testRepeatAnchorAndOffsetReminder() throws {
    try makeRepository()
    try task("task", "add", "Water plants", "--repeat", "every 3 days", "--anchor", "completion")
    XCTAssertEqual(try frontMatter("recurrence", in: "inbox/water-plants.md"), "FREQ=DAILY;INTERVAL=3")
    XCTAssertEqual(try frontMatter("recurrence_anchor", in: "inbox/water-plants.md"), "completion")
    try task("task", "add", "Call", "--due", "tomorrow 17:30", "--remind", "-1h")
    XCTAssertEqual(try frontMatter("due", in: "inbox/call.md"), "2026-11-25T17:30:00+01:00")
    XCTAssert(try text("inbox/call.md").contains("    type: relative\n    relatedTo: due\n    offset: \"-PT1H\"\n"))
  }

  /// The views at Tuesday 10:00: each task lands in exactly the views its due date puts it in.
  func testViewsAtAFixedTime() throws {
    try makeRepository()
    try task("task", "add", "Overdue report", "--due", "2026-11-20")
    try task("task", "add", "Due today", "--due", "today")
    try task("task", "add", "Due tonight", "--due", "today 18:00")
    try task("task", "add", "This morning", "--due", "today 9:00")
    try task("task", "add", "Friday", "--due", "fri")
    try task("task", "add", "Next month", "--due", "2026-12-30")
    try task("task", "add", "Someday")
    try task("task", "add", "Finished", "--due", "2026-11-01")
    try task("task", "done", "Finished")
    try addNote("Errands", content: "- [ ] buy milk 📅 2026-11-23\n- [ ] call mom ⏳ 2026-11-25\n- [x] old ✅ 2026-11-02\n")

    XCTAssertEqual(
      try titles(),
      [
        "Overdue report", "buy milk", "This morning", "Due today", "Due tonight", "Friday", "Next month", "call mom",
        "Someday",
      ])
    XCTAssertEqual(try titles("--today"), ["This morning", "Due today", "Due tonight"])
    XCTAssertEqual(try titles("--overdue"), ["Overdue report", "buy milk", "This morning"])
    XCTAssertEqual(try titles("--upcoming", "7d"), ["This morning", "Due today", "Due tonight", "Friday"])
    XCTAssertEqual(try titles("--no-due"), ["call mom", "Someday"])
    XCTAssertEqual(try titles("--done"), ["Finished", "old"])
    XCTAssertEqual(try titles("--done", "--since", "-7d"), ["Finished"])
    XCTAssertEqual(try titles("--no-inline", "--overdue"), ["Overdue report", "This morning"])
    let overdue = try listed("--overdue")
    XCTAssertEqual(overdue.map { $0["overdue"] as? Bool }, [true, true, true])
    XCTAssertEqual(overdue[1]["selector"] as? String, "inbox/errands.md:7")
    XCTAssertEqual(overdue[1]["inline"] as? Bool, true)
    // A task due today with no time is not overdue until the day is over.
    XCTAssertEqual(try listed("--today").map { $0["overdue"] as? Bool }, [true, false, false])
  }

  func testFiltersAndSorts() throws {
    try makeRepository()
    try task("task", "add", "Beta notes", "--project", "work", "--priority", "low", "--due", "2026-11-30")
    try task("task", "add", "Beta release", "--project", "work/launch", "--priority", "urgent", "--due", "2026-12-05")
    try task("task", "add", "Alpha", "--project", "work", "--priority", "high", "--tags", "x")
    try task("task", "add", "Groceries", "--project", "home", "--priority", "high", "--context", "@shop")
    XCTAssertEqual(try titles("--project", "work", "--sort", "priority"), ["Beta release", "Alpha", "Beta notes"])
    XCTAssertEqual(try titles("--project", "work/launch"), ["Beta release"])
    XCTAssertEqual(try titles("--priority", "high", "--sort", "title"), ["Alpha", "Groceries"])
    XCTAssertEqual(try titles("--tag", "x"), ["Alpha"])
    XCTAssertEqual(try titles("--context", "shop"), ["Groceries"])
    XCTAssertEqual(try titles("--search", "beta", "--sort", "title"), ["Beta notes", "Beta release"])
    XCTAssertEqual(try titles("--sort", "title", "--reverse"), ["Groceries", "Beta release", "Beta notes", "Alpha"])
    XCTAssertEqual(try titles("--sort", "due"), ["Beta notes", "Beta release", "Alpha", "Groceries"])
    XCTAssertEqual(try titles("--limit", "1", "--sort", "title"), ["Alpha"])
  }

  func testArchivedProjectsAreHiddenUnlessAsked() throws {
    try makeRepository()
    try task("task", "add", "Old thing", "--project", "attic")
    try task("task", "add", "Current", "--project", "work")
    try write("attic/.notebook.yaml", try text("attic/.notebook.yaml") + "archived: true\ncolor: \"#888888\"\n")
    try gitCommitAll()
    XCTAssertEqual(try titles(), ["Current"])
    XCTAssertEqual(try titles("--archived", "--sort", "title"), ["Current", "Old thing"])
    XCTAssertEqual(try titles("--project", "attic"), ["Old thing"])
  }

  func testHumanListShowsBoxDueAndSubtasks() throws {
    try makeRepository()
    try task("task", "add", "Ship", "--due", "2026-11-20", "--priority", "urgent", "--subtask", "a", "--subtask", "b")
    let out = try task("task", "list").stdout
    XCTAssertEqual(out, "[ ]  2026-11-20        !!!  Ship  inbox/ship.md  0/2  overdue\n")
  }

  func testListingReadsNoteFilesOnlyThroughTheIndex() throws {
    try makeRepository()
    try task("task", "add", "Indexed", "--due", "today")
    XCTAssertEqual(try titles("--today"), ["Indexed"])
    // An edit made in an editor (not committed) shows at once: the index notices the changed file.
    let path = "inbox/indexed.md"
    try write(path, try text(path).replacingOccurrences(of: "due: 2026-11-24", with: "due: 2026-11-20"))
    XCTAssertEqual(try titles("--overdue"), ["Indexed"])
    XCTAssertEqual(try titles("--today"), [])
  }

  /// Every form of date argument, through the built nb, at Tuesday 2026-11-24 10:00 in Berlin (expected values
  /// worked out from a calendar).
  func testEveryDateForm() throws {
    try makeRepository()
    let cases: [(String, String)] = [
      ("2026-12-01", "2026-12-01"),
      ("2026-12-01T09:00", "2026-12-01T09:00:00+01:00"),
      ("2026-07-01 09:00", "2026-07-01T09:00:00+02:00"),
      ("2026-12-01T09:00:00Z", "2026-12-01T09:00:00Z"),
      ("today", "2026-11-24"),
      ("tomorrow", "2026-11-25"),
      ("yesterday", "2026-11-23"),
      ("fri", "2026-11-27"),
      ("tuesday", "2026-12-01"),
      ("+3d", "2026-11-27"),
      ("+2w", "2026-12-08"),
      ("+1m", "2026-12-24"),
      ("-30d", "2026-10-25"),
      ("9:00", "2026-11-24T09:00:00+01:00"),
      ("17:30", "2026-11-24T17:30:00+01:00"),
      ("5pm", "2026-11-24T17:00:00+01:00"),
      ("fri 9:00", "2026-11-27T09:00:00+01:00"),
      ("tomorrow 17:30", "2026-11-25T17:30:00+01:00"),
    ]
    for (index, (argument, expected)) in cases.enumerated() {
      let out = try task("task", "add", "Date \(index)", "--due", argument).stdout
      let path = String(out.split(separator: " ")[0])
      XCTAssertEqual(try frontMatter("due", in: path), expected, "--due \(argument)")
    }
  }

  func testSortByCreatedAndUpdated() throws {
    try makeRepository()
    try nbSucceeds("task", "add", "First", env: ["NB_NOW": "2026-11-20T10:00:00+01:00", "TZ": "Europe/Berlin"])
    try nbSucceeds("task", "add", "Second", env: ["NB_NOW": "2026-11-21T10:00:00+01:00", "TZ": "Europe/Berlin"])
    try nbSucceeds("task", "edit", "first", "--priority", "low", env: ["NB_NOW": "2026-11-22T10:00:00+01:00", "TZ": "Europe/Berlin"])
    XCTAssertEqual(try titles("--sort", "created"), ["Second", "First"])
    XCTAssertEqual(try titles("--sort", "updated"), ["First", "Second"])
    XCTAssertEqual(try titles("--sort", "updated", "--reverse"), ["Second", "First"])
  }
}

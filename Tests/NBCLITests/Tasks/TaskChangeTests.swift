import Foundation
import NBTestSupport
import XCTest

/// `nb task done/reopen/start/cancel/edit`: each is one commit that changes only the keys or the line it owns.
final class TaskChangeTests: TaskTestCase {
  func testDoneStampsCompletedDateAndReopenRemovesIt() throws {
    try makeRepository()
    try task("task", "add", "Report", "--due", "2026-11-30")
    let path = "inbox/report.md"
    let original = try text(path)
    let id = try XCTUnwrap(try frontMatter("id", in: path))
    var before = try commitCount()
    XCTAssertEqual(try task("task", "done", "report").stdout, "done inbox/report.md\n")
    try assertOneCommit(since: before, subject: "nb: task done inbox/report.md", noteIDs: [id], files: ["M\t\(path)"])
    let done = try text(path)
    XCTAssertEqual(try frontMatter("status", in: path), "done")
    XCTAssertEqual(try frontMatter("completedDate", in: path), "2026-11-24")
    // Only status changed in place and completedDate was added (updated is stamped later in the same second + 1).
    XCTAssertEqual(
      done,
      original.replacingOccurrences(of: "status: open", with: "status: done")
        .replacingOccurrences(of: "updated: 2026-11-24T10:00:00+01:00", with: "updated: 2026-11-24T10:00:01+01:00")
        .replacingOccurrences(of: "due: 2026-11-30\n", with: "due: 2026-11-30\ncompletedDate: 2026-11-24\n"))
    XCTAssertEqual(try titles(), [])

    before = try commitCount()
    try task("task", "reopen", path)
    try assertOneCommit(since: before, subject: "nb: task open inbox/report.md", noteIDs: [id], files: ["M\t\(path)"])
    XCTAssertEqual(try frontMatter("status", in: path), "open")
    XCTAssertNil(try frontMatter("completedDate", in: path))
    try task("task", "start", path)
    XCTAssertEqual(try frontMatter("status", in: path), "in-progress")
    try task("task", "cancel", path)
    XCTAssertEqual(try frontMatter("status", in: path), "cancelled")
    XCTAssertEqual(try titles("--all"), ["Report"])
  }

  func testSubtasksByNumberAndText() throws {
    try makeRepository()
    try task("task", "add", "Ship", "--subtask", "write notes", "--subtask", "tag release")
    let path = "inbox/ship.md"
    let before = try text(path)
    XCTAssertEqual(try task("task", "done", "ship", "--subtask", "2").stdout, "ticked subtask of inbox/ship.md: 1/2\n")
    let after = try text(path)
    XCTAssertEqual(
      changedLines(before, after).map(\.1).filter { !$0.hasPrefix("updated:") }, ["- [x] tag release"])
    try task("task", "done", "ship", "--subtask", "write")
    XCTAssertEqual(try listed()[0]["subtasks"] as? [String: Int], ["done": 2, "total": 2])
    try task("task", "reopen", "ship", "--subtask", "1")
    XCTAssertEqual(try listed()[0]["subtasks"] as? [String: Int], ["done": 1, "total": 2])
    // The task itself is still open: ticking subtasks never completes it.
    XCTAssertEqual(try frontMatter("status", in: path), "open")
  }

  func testEditChangesOnlyTheGivenKeys() throws {
    try makeRepository()
    try task("task", "add", "Plan", "--due", "2026-11-25", "--priority", "high", "--remind", "-1h")
    let path = "inbox/plan.md"
    try write(path, try text(path).replacingOccurrences(of: "status: open\n", with: "status: open\nowner: ana # me\n"))
    try gitCommitAll()
    try task("task", "edit", "plan", "--due", "+3d", "--priority", "low", "--clear", "reminders")
    let text = try text(path)
    XCTAssertEqual(try frontMatter("due", in: path), "2026-11-27")
    XCTAssertEqual(try frontMatter("priority", in: path), "low")
    XCTAssertFalse(text.contains("reminders"), text)
    XCTAssertTrue(text.contains("owner: ana # me\n"), "a key nb does not own must stay byte for byte")
    let nothing = try attempt("task", "edit", "plan")
    XCTAssertNotEqual(nothing.status, 0)
    XCTAssertTrue(nothing.stderr.contains("nothing to change"), nothing.stderr)
  }

  func testCompletingARepeatingTaskMovesItToTheNextOccurrence() throws {
    try makeRepository()
    try task("task", "add", "Review", "--due", "2026-11-23", "--repeat", "weekly", "--remind", "2026-11-23T09:00")
    let path = "inbox/review.md"
    let out = try task("task", "done", "review").stdout
    XCTAssertEqual(out, "done inbox/review.md; next due 2026-11-30\n")
    XCTAssertEqual(try frontMatter("status", in: path), "open")
    XCTAssertEqual(try frontMatter("due", in: path), "2026-11-30")
    XCTAssertEqual(try frontMatter("complete_instances", in: path), "[\"2026-11-24\"]")
    let written = try text(path)
    XCTAssertTrue(written.contains("absoluteTime: 2026-11-30T09:00:00+01:00\n"), written)
    XCTAssertNil(try frontMatter("completedDate", in: path))
  }

  func testCompletionAnchorCountsFromTheDayItWasDone() throws {
    try makeRepository()
    try task("task", "add", "Water plants", "--due", "2026-11-10", "--repeat", "every 3 days", "--anchor", "completion")
    try task("task", "done", "water")
    XCTAssertEqual(try frontMatter("due", in: "inbox/water-plants.md"), "2026-11-27")
  }

  func testRepeatKeepsTheWallClockAcrossDST() throws {
    try makeRepository()
    // 2026-10-20 09:00 is summer time (+02:00) in Berlin; a week after the change (25 Oct) it is +01:00.
    try task("task", "add", "Standup", "--due", "2026-10-20T09:00:00+02:00", "--repeat", "weekly")
    try task("task", "done", "standup")
    XCTAssertEqual(try frontMatter("due", in: "inbox/standup.md"), "2026-10-27T09:00:00+01:00")
  }

  /// A monthly task from the 31st takes each shorter month's last day and comes back to the 31st (no drift: the rule
  /// carries its start); a yearly one from 29 February takes the 28th, then the 29th again in a leap year.
  func testMonthEndsAndLeapDays() throws {
    try makeRepository()
    try task("task", "add", "Rent", "--due", "2027-01-31", "--repeat", "monthly")
    XCTAssertEqual(try frontMatter("recurrence", in: "inbox/rent.md"), "DTSTART:20270131;FREQ=MONTHLY")
    var dues: [String] = []
    for _ in 0..<3 {
      try task("task", "done", "rent")
      dues.append(try frontMatter("due", in: "inbox/rent.md") ?? "")
    }
    XCTAssertEqual(dues, ["2027-02-28", "2027-03-31", "2027-04-30"])
    try task("task", "add", "Leap", "--due", "2028-02-29", "--repeat", "yearly")
    dues = []
    for _ in 0..<4 {
      try task("task", "done", "leap")
      dues.append(try frontMatter("due", in: "inbox/leap.md") ?? "")
    }
    XCTAssertEqual(dues, ["2029-02-28", "2030-02-28", "2031-02-28", "2032-02-29"])
    XCTAssertEqual(
      try frontMatter("complete_instances", in: "inbox/leap.md"), "[\"2026-11-24\"]",
      "completing on the same day records the day once")
  }

  func testASeriesThatEndsBecomesDone() throws {
    try makeRepository()
    try task("task", "add", "Course", "--due", "2026-11-23", "--repeat", "FREQ=WEEKLY;COUNT=2")
    XCTAssertEqual(try task("task", "done", "course").stdout, "done inbox/course.md; next due 2026-11-30\n")
    XCTAssertEqual(try task("task", "done", "course").stdout, "done inbox/course.md\n")
    XCTAssertEqual(try frontMatter("status", in: "inbox/course.md"), "done")
  }

  /// A TaskNotes note keeps its own spelling: `dateModified` is stamped in place, no `updated` is added.
  func testATaskNotesNoteKeepsItsDateKeys() throws {
    try makeRepository()
    let original = """
      ---
      title: "Complete documentation"
      status: "in-progress"
      due: "2024-01-20"
      priority: "high"
      contexts: ["work"]
      dateCreated: "2024-01-15T10:30:00Z"
      dateModified: "2024-01-16T14:20:00Z"
      ---
      Notes.

      """
    try write("tasks/docs.md", original)
    try gitCommitAll()
    let listed = try listed()
    XCTAssertEqual(listed.map { $0["created"] as? String }, ["2024-01-15T10:30:00+00:00"])
    XCTAssertEqual(listed.map { $0["overdue"] as? Bool }, [true])
    try task("task", "done", "tasks/docs.md")
    let after = try text("tasks/docs.md")
    XCTAssertTrue(after.contains("status: \"done\"\n") || after.contains("status: done\n"), after)
    XCTAssertTrue(after.contains("dateModified: \"2026-11-24T10:00:00+01:00\"\n"), after)
    XCTAssertTrue(after.contains("completedDate: 2026-11-24\n"), after)
    XCTAssertFalse(after.contains("\nupdated:"), after)
    XCTAssertTrue(after.contains("dateCreated: \"2024-01-15T10:30:00Z\"\n"), after)
  }
}

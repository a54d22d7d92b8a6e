import Foundation
import TaskKit
import XCTest

@testable import NoteStore

/// The pure edits a task change makes, without disk or git: every expected text below was written by hand.
final class TaskTextTests: XCTestCase {
  private let berlin = TimeZone(identifier: "Europe/Berlin")!
  private let tuesday = Day(iso: "2026-11-24")!

  private let repeating = """
    ---
    title: Review # weekly
    status: open
    due: 2026-11-23
    recurrence: DTSTART:20261123;FREQ=WEEKLY
    owner: ana
    ---
    - [ ] read
    """

  private func task(_ text: String) throws -> TaskItem {
    let body = FrontMatter.body(of: text)
    let (metadata, _, fields) = try FrontMatter.readIndexed(text)
    let rows = NoteTasks.rows(
      text: text, bodyStart: text.utf8.count - body.utf8.count, title: metadata.title ?? "", tags: [],
      taskFields: fields)
    return try XCTUnwrap(rows.first).task
  }

  func testCompletingARepeatingTaskAdvancesInPlace() throws {
    let result = try TaskText.completing(try task(repeating), text: repeating, on: tuesday, timeZone: berlin)
    XCTAssertEqual(
      result.text,
      """
      ---
      title: Review # weekly
      status: open
      due: 2026-11-30
      recurrence: DTSTART:20261123;FREQ=WEEKLY
      owner: ana
      complete_instances: ["2026-11-24"]
      ---
      - [ ] read
      """)
    XCTAssertEqual(result.advance?.due, .day(Day(iso: "2026-11-30")!))
  }

  func testCompletingATaskThatDoesNotRepeat() throws {
    let text = "---\nstatus: in-progress\ncompleted: 2020-01-01\n---\nbody\n"
    let result = try TaskText.completing(try task(text), text: text, on: tuesday, timeZone: berlin)
    // The user's spelling of the completion key is the one edited.
    XCTAssertEqual(result.text, "---\nstatus: done\ncompleted: 2026-11-24\n---\nbody\n")
    XCTAssertNil(result.advance)
    XCTAssertEqual(
      try TaskText.settingStatus(.open, on: tuesday, in: result.text), "---\nstatus: open\n---\nbody\n")
  }

  func testEditSetsAndClearsOnlyTheNamedKeys() throws {
    let text = """
      ---
      status: open
      priority: high
      reminders:
        - id: rem1
          type: relative
          relatedTo: due
          offset: -PT1H
      contexts: [home]
      ---

      """
    var edit = TaskEdit(priority: .low, due: .day(Day(iso: "2026-12-01")!), clear: [.reminders])
    edit.contexts = ["office", "@phone"]
    XCTAssertEqual(
      try TaskText.applying(edit, to: text, existing: [.relative(text: "-PT1H", seconds: -3600)]),
      """
      ---
      status: open
      priority: low
      contexts: [office, "@phone"]
      due: 2026-12-01
      ---

      """)
  }

  func testRowsOfATaskNoteAndOfAnOrdinaryNote() throws {
    let note = "---\ntitle: Ship\nstatus: open\ndue: nope\n---\n- [x] a\n- [ ] b\n- [-] c\n"
    let rows = NoteTasks.rows(
      text: note, bodyStart: note.utf8.count - FrontMatter.body(of: note).utf8.count, title: "Ship", tags: ["x"],
      taskFields: try FrontMatter.readIndexed(note).taskFields)
    XCTAssertEqual(rows.count, 1)
    XCTAssertEqual(rows[0].line, 0)
    XCTAssertEqual(rows[0].subtasksDone, 1)
    XCTAssertEqual(rows[0].subtasksTotal, 2)
    XCTAssertEqual(rows[0].task.tags, ["x"])
    XCTAssertEqual(rows[0].warnings, ["line 4: due 'nope' is not a date"])

    let plain = "# Day\n\n- [ ] call 📅 2026-11-25\n  - [x] sub ✅ 2026-11-20\n"
    let inline = NoteTasks.rows(text: plain, bodyStart: 0, title: "Day", tags: [], taskFields: nil)
    XCTAssertEqual(inline.map(\.line), [3, 4])
    XCTAssertEqual(inline.map(\.task.title), ["call", "sub"])
    XCTAssertEqual(inline[0].task.due, .day(Day(iso: "2026-11-25")!))
    XCTAssertEqual(inline[1].task.status, .done)
    XCTAssertEqual(inline[1].task.completed, .day(Day(iso: "2026-11-20")!))
  }

  func testReplacingALineKeepsItsLineEndingAndRemovingItDropsIt() throws {
    let text = "a\r\n- [ ] x\r\nb\r\n"
    let item = try XCTUnwrap(Checklist.items(in: text).first)
    XCTAssertEqual(TaskText.replacingLine(of: item, in: text, with: ["- [ ] y", "- [x] x"]), "a\r\n- [ ] y\r\n- [x] x\r\nb\r\n")
    XCTAssertEqual(TaskText.replacingLine(of: item, in: text, with: []), "a\r\nb\r\n")
  }

  func testAnchoredRuleGetsItsStartOnce() {
    XCTAssertEqual(NoteTasks.anchoredRule("FREQ=MONTHLY", start: Day(iso: "2027-01-31")), "DTSTART:20270131;FREQ=MONTHLY")
    XCTAssertEqual(NoteTasks.anchoredRule("DTSTART:20200101;FREQ=DAILY", start: tuesday), "DTSTART:20200101;FREQ=DAILY")
    XCTAssertEqual(NoteTasks.anchoredRule("FREQ=DAILY", start: nil), "FREQ=DAILY")
  }
}

import Foundation
import NBTestSupport
import XCTest

@testable import TaskKit

private func day(_ year: Int, _ month: Int, _ dayOfMonth: Int) -> Day {
  Day(year: year, month: month, day: dayOfMonth)!
}

/// Midnight UTC of a day, from epoch seconds computed with Python's datetime.
private func utcMidnight(_ seconds: TimeInterval) -> Date { Date(timeIntervalSince1970: seconds) }

private let nov1 = utcMidnight(1_793_491_200)  // 2026-11-01T00:00:00Z
private let nov1Morning = Date(timeIntervalSince1970: 1_793_521_800)  // 2026-11-01T08:30:00Z

final class TodoTxtExportTests: XCTestCase {
  func testEachFeature() {
    let tasks = [
      TaskItem(title: "Thank Mom for the meatballs", priority: .urgent, contexts: ["phone"]),
      TaskItem(title: "Schedule Goodwill pickup", priority: .high, contexts: ["phone"], projects: ["GarageSale"]),
      TaskItem(
        title: "Write  report\nnow", status: .inProgress, priority: .normal,
        due: .dateTime(day(2026, 12, 1), hour: 9, minute: 0, second: 0, offsetSeconds: 3600),
        scheduled: .day(day(2026, 11, 30)), created: nov1Morning, recurrence: "FREQ=WEEKLY;INTERVAL=2",
        recurrenceAnchor: .scheduled, contexts: ["@office", "deep work"],
        projects: ["[[Q4 Plans|plans]]", "work/reports", "[[Note#Heading]]", " "], tags: ["#writing", "long form"]),
      TaskItem(
        title: "Call Mom", status: .done, priority: .low,
        completed: .dateTime(day(2026, 12, 2), hour: 18, minute: 0, second: 0, offsetSeconds: -18_000),
        created: nov1Morning, recurrence: "FREQ=DAILY", recurrenceAnchor: .completion),
      TaskItem(title: "Old", status: .cancelled, created: nov1Morning),
      TaskItem(title: "Gym", recurrence: "DTSTART:20260101T000000Z;FREQ=WEEKLY;BYDAY=MO,WE"),
      TaskItem(title: "Spaced", status: .other("on hold"), recurrence: "FREQ=WEEKLY; BYDAY=MO"),
      TaskItem(title: "Wait", status: .other("waiting"), priority: .other("p1"), recurrence: "RRULE:FREQ=YEARLY"),
      TaskItem(title: ""),
      TaskItem(title: "Monthly", recurrence: "INTERVAL=3;FREQ=MONTHLY", recurrenceAnchor: .completion),
    ]
    XCTAssertEqual(
      TodoTxt.export(tasks),
      """
      (A) Thank Mom for the meatballs @phone
      (B) Schedule Goodwill pickup +GarageSale @phone
      (C) 2026-11-01 Write report now +Q4-Plans +work/reports +Note @office @deep-work tag:writing tag:long-form \
      due:2026-12-01 t:2026-11-30 rec:+2w status:in-progress
      x 2026-12-02 2026-11-01 Call Mom rec:1d pri:D
      x Old status:cancelled
      Gym rrule:FREQ=WEEKLY;BYDAY=MO,WE
      Spaced
      Wait rec:+1y status:waiting
      (untitled)
      Monthly rec:3m

      """)
  }

  func testEmpty() {
    XCTAssertEqual(TodoTxt.export([]), "")
  }
}

final class TodoTxtParseTests: XCTestCase {
  private func parse(_ line: String) -> TaskItem? {
    let result = TodoTxt.parse(line)
    XCTAssertEqual(result.warnings, [], line)
    XCTAssertEqual(result.tasks.count, 1, line)
    return result.tasks.first
  }

  /// The examples of https://github.com/todotxt/todo.txt's README, with what each is said to mean.
  func testTheFormatsOwnExamples() {
    XCTAssertEqual(parse("(A) Call Mom"), TaskItem(title: "Call Mom", priority: .urgent))
    XCTAssertEqual(
      parse("Really gotta call Mom (A) @phone @someday"),
      TaskItem(title: "Really gotta call Mom (A)", contexts: ["phone", "someday"]))
    XCTAssertEqual(parse("(b) Get back to the boss"), TaskItem(title: "(b) Get back to the boss"))
    XCTAssertEqual(parse("(B)->Submit TPS report"), TaskItem(title: "(B)->Submit TPS report"))
    XCTAssertEqual(
      parse("2011-03-02 Document +TodoTxt task format"),
      TaskItem(title: "Document task format", created: utcMidnight(1_299_024_000), projects: ["TodoTxt"]))
    XCTAssertEqual(
      parse("(A) 2011-03-02 Call Mom"),
      TaskItem(title: "Call Mom", priority: .urgent, created: utcMidnight(1_299_024_000)))
    XCTAssertEqual(parse("(A) Call Mom 2011-03-02"), TaskItem(title: "Call Mom 2011-03-02", priority: .urgent))
    XCTAssertEqual(
      parse("(A) Call Mom +Family +PeaceLoveAndHappiness @iphone @phone"),
      TaskItem(
        title: "Call Mom", priority: .urgent, contexts: ["iphone", "phone"],
        projects: ["Family", "PeaceLoveAndHappiness"]))
    XCTAssertEqual(
      parse("Email SoAndSo at soandso@example.com"), TaskItem(title: "Email SoAndSo at soandso@example.com"))
    XCTAssertEqual(parse("Learn how to add 2+2"), TaskItem(title: "Learn how to add 2+2"))
    XCTAssertEqual(
      parse("x 2011-03-03 Call Mom"), TaskItem(title: "Call Mom", status: .done, completed: .day(day(2011, 3, 3))))
    XCTAssertEqual(parse("xylophone lesson"), TaskItem(title: "xylophone lesson"))
    XCTAssertEqual(parse("X 2012-01-01 Make resolutions"), TaskItem(title: "X 2012-01-01 Make resolutions"))
    XCTAssertEqual(parse("(A) x Find ticket prices"), TaskItem(title: "x Find ticket prices", priority: .urgent))
    XCTAssertEqual(
      parse("x 2011-03-02 2011-03-01 Review Tim's pull request +TodoTxtTouch @github"),
      TaskItem(
        title: "Review Tim's pull request", status: .done, completed: .day(day(2011, 3, 2)),
        created: utcMidnight(1_298_937_600), contexts: ["github"], projects: ["TodoTxtTouch"]))
    XCTAssertEqual(
      parse("x (A) 2016-05-20 2016-04-30 measure space for +chapelShelving @chapel due:2016-05-30"),
      TaskItem(
        title: "measure space for", status: .done, priority: .urgent, due: .day(day(2016, 5, 30)),
        completed: .day(day(2016, 5, 20)), created: utcMidnight(1_461_974_400), contexts: ["chapel"],
        projects: ["chapelShelving"]))
  }

  func testKeysAndPriorities() {
    XCTAssertEqual(
      parse("(D) water plants rec:3d t:2026-12-01 due:2026-12-04 tag:home url:https://x.org/a:b"),
      TaskItem(
        title: "water plants url:https://x.org/a:b", priority: .low, due: .day(day(2026, 12, 4)),
        scheduled: .day(day(2026, 12, 1)), recurrence: "FREQ=DAILY;INTERVAL=3", recurrenceAnchor: .completion,
        tags: ["home"]))
    XCTAssertEqual(parse("(Z) a rec:+w"), TaskItem(title: "a", priority: .low, recurrence: "FREQ=WEEKLY"))
    XCTAssertEqual(parse("(C) b rec:+1y"), TaskItem(title: "b", priority: .normal, recurrence: "FREQ=YEARLY"))
    XCTAssertEqual(
      parse("c rec:12m"), TaskItem(title: "c", recurrence: "FREQ=MONTHLY;INTERVAL=12", recurrenceAnchor: .completion))
    XCTAssertEqual(
      parse("d rrule:FREQ=WEEKLY;BYDAY=MO pri:B status:in-progress"),
      TaskItem(title: "d", status: .inProgress, priority: .high, recurrence: "FREQ=WEEKLY;BYDAY=MO"))
    XCTAssertEqual(
      parse("x 2026-01-02 e status:cancelled"),
      TaskItem(title: "e", status: .cancelled, completed: .day(day(2026, 1, 2))))
    XCTAssertEqual(parse("f status:waiting"), TaskItem(title: "f", status: .other("waiting")))
    XCTAssertEqual(parse("  g\t+ @  : key: :v  \r"), TaskItem(title: "g + @ : key: :v"))
  }

  func testBlankLinesAndLineEndings() {
    let result = TodoTxt.parse("\u{FEFF}a\r\n\r\n   \nb\n\n")
    XCTAssertEqual(result, TodoTxt.ImportResult(tasks: [TaskItem(title: "a"), TaskItem(title: "b")], warnings: []))
  }

  func testWarnings() {
    let text = """
      first
      x 2026-13-01 foo due:tomorrow rec:0w pri:AA t:2026-02-30 due:2026-01-01 due:2026-01-02 status:open rec:b
      (A) +only @these pri:B
      2026-02-30 leading
      x
      """
    let result = TodoTxt.parse(text)
    XCTAssertEqual(
      result.warnings,
      [
        "line 2: '2026-13-01' is not a valid date",
        "line 2: due:tomorrow is not a date (YYYY-MM-DD); kept in the title",
        "line 2: rec:0w is not a recurrence like 1w or +3d; kept in the title",
        "line 2: pri:AA is not a letter A to Z; kept in the title",
        "line 2: t:2026-02-30 is not a date (YYYY-MM-DD); kept in the title",
        "line 2: a second due: is kept in the title",
        "line 2: status:open on a done line is ignored",
        "line 2: rec:b is not a recurrence like 1w or +3d; kept in the title",
        "line 3: pri:B is ignored: the line starts with a priority",
        "line 3: no task text; titled (untitled)",
        "line 4: '2026-02-30' is not a valid date",
        "line 5: no task text; titled (untitled)",
      ])
    XCTAssertEqual(
      result.tasks,
      [
        TaskItem(title: "first"),
        TaskItem(
          title: "2026-13-01 foo due:tomorrow rec:0w pri:AA t:2026-02-30 due:2026-01-02 rec:b", status: .done,
          due: .day(day(2026, 1, 1))),
        TaskItem(title: "(untitled)", priority: .urgent, contexts: ["these"], projects: ["only"]),
        TaskItem(title: "2026-02-30 leading"),
        TaskItem(title: "(untitled)", status: .done),
      ])
  }
}

final class TodoTxtRoundTripTests: XCTestCase {
  func testRoundTripOfWhatTodoTxtCarries() {
    let tasks = [
      TaskItem(
        title: "Write report", status: .inProgress, priority: .normal, due: .day(day(2026, 12, 1)),
        scheduled: .day(day(2026, 11, 30)), created: nov1, recurrence: "FREQ=WEEKLY;INTERVAL=2",
        contexts: ["office", "deep-work"], projects: ["Q4-Plans", "work/reports"], tags: ["writing", "ünï"]),
      TaskItem(
        title: "Call Mom", status: .done, priority: .urgent, completed: .day(day(2026, 12, 2)), created: nov1,
        recurrence: "FREQ=DAILY", recurrenceAnchor: .completion),
      TaskItem(title: "Old 😀", status: .cancelled, completed: .day(day(2026, 1, 1))),
      TaskItem(title: "Gym", recurrence: "FREQ=WEEKLY;BYDAY=MO,WE"),
      TaskItem(title: "Wait", status: .other("waiting"), priority: .high),
      TaskItem(title: "(untitled)", priority: .low),
    ]
    XCTAssertEqual(TodoTxt.parse(TodoTxt.export(tasks)), TodoTxt.ImportResult(tasks: tasks, warnings: []))
  }

  func testGarbageNeverTraps() {
    var random = SplitMix64(seed: 0x70D0)
    let pieces = [
      "x", "x ", "(A)", "(", ")", "(Z) ", " ", "\t", "\n", "\r\n", "\r", "+", "@", ":", "due:", "t:", "rec:", "rec:+",
      "rrule:", "pri:", "status:", "tag:", "2026-12-01", "2026-13-45", "0000-00-00", "9999999", "w", "d", "b",
      "FREQ=", "é", "😀", "\u{301}", "\u{0}", "\u{FEFF}", "-", "999999999999999999999",
    ]
    for _ in 0..<5000 {
      var text = ""
      for _ in 0..<Int.random(in: 0...40, using: &random) { text += pieces.randomElement(using: &random)! }
      let result = TodoTxt.parse(text)
      // Whatever was read is written and read again without a trap.
      _ = TodoTxt.parse(TodoTxt.export(result.tasks))
    }
  }
}

import Foundation
import NBTestSupport
import XCTest

/// `nb task export/import` (iCalendar checked by an independent parser, Python's `icalendar`; todo.txt) and
/// `nb reminders`.
final class TaskExchangeTests: TaskTestCase {
  /// Parses an .ics file with Python's `icalendar` package (Debian: python3-icalendar) and returns, per VTODO, the
  /// properties the test compares, as the parser decoded them.
  private func independentlyParsed(_ file: URL, file source: StaticString = #filePath, line: UInt = #line) throws
    -> [[String: String]]
  {
    let script = """
      import json, sys
      import icalendar
      cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
      out = []
      for todo in cal.walk('VTODO'):
          item = {}
          for key in ['UID', 'SUMMARY', 'STATUS', 'PRIORITY', 'LOCATION', 'DESCRIPTION']:
              if key in todo:
                  item[key] = str(todo[key])
          if 'RRULE' in todo:
              item['RRULE'] = todo['RRULE'].to_ical().decode()
          if 'DUE' in todo:
              item['DUE'] = todo.decoded('DUE').isoformat()
          if 'CATEGORIES' in todo:
              cats = todo['CATEGORIES']
              cats = cats if isinstance(cats, list) else [cats]
              item['CATEGORIES'] = ','.join(c for cat in cats for c in cat.cats)
          item['ALARMS'] = str(len(todo.walk('VALARM')))
          out.append(item)
      print(json.dumps(out))
      """
    let result = try ProcessRunner.run(
      // Debian's python3, where python3-icalendar installs (a python3 earlier on PATH may lack it).
      "/usr/bin/python3", arguments: ["-c", script, file.path], environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
    XCTAssertEqual(
      result.status, 0, "python3 icalendar could not parse the export (install python3-icalendar): \(result.stderr)",
      file: source, line: line)
    return try XCTUnwrap(
      try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: String]], file: source, line: line)
  }

  func testICalendarExportParsesWithAnIndependentParser() throws {
    try makeRepository()
    try task(
      "task", "add", "Ship the beta", "--project", "work", "--priority", "high", "--due", "fri", "--repeat",
      "every week on monday", "--remind", "-1h", "--tags", "release,q4", "--context", "office", "--location",
      "Room 4; floor 2", "--content", "Notes, with a comma\nand a second line")
    try task("task", "add", "Call at five", "--due", "tomorrow 17:00")
    try task("task", "add", "Finished", "--priority", "low")
    try task("task", "done", "finished")
    let export = temp.file("tasks.ics")
    try task("task", "export", "--ics", "--output", export.path)
    let raw = try String(contentsOf: export, encoding: .utf8)
    XCTAssertTrue(raw.hasPrefix("BEGIN:VCALENDAR\r\n"), raw)
    for line in raw.components(separatedBy: "\r\n") {
      XCTAssertLessThanOrEqual(line.utf8.count, 75, "unfolded line: \(line)")
    }
    let todos = try independentlyParsed(export).sorted { ($0["SUMMARY"] ?? "") < ($1["SUMMARY"] ?? "") }
    XCTAssertEqual(todos.map { $0["SUMMARY"] }, ["Call at five", "Finished", "Ship the beta"])
    XCTAssertEqual(todos[0]["DUE"], "2026-11-25T16:00:00+00:00")
    XCTAssertEqual(todos[1]["STATUS"], "COMPLETED")
    XCTAssertEqual(todos[1]["PRIORITY"], "7")
    let ship = todos[2]
    XCTAssertEqual(ship["DUE"], "2026-11-27")
    XCTAssertEqual(ship["PRIORITY"], "3")
    XCTAssertEqual(ship["STATUS"], "NEEDS-ACTION")
    XCTAssertEqual(ship["RRULE"], "FREQ=WEEKLY;BYDAY=MO")
    XCTAssertEqual(ship["LOCATION"], "Room 4; floor 2")
    XCTAssertEqual(ship["DESCRIPTION"], "Notes, with a comma\nand a second line")
    XCTAssertEqual(Set((ship["CATEGORIES"] ?? "").split(separator: ",").map(String.init)), ["release", "q4", "office"])
    XCTAssertEqual(ship["ALARMS"], "1")
    XCTAssertEqual(ship["UID"], try frontMatter("id", in: "work/ship-the-beta.md"))
  }

  func testICalendarRoundTripsThroughImport() throws {
    try makeRepository()
    try task("task", "add", "Ship", "--priority", "urgent", "--due", "2026-12-01", "--repeat", "monthly", "--remind", "-PT30M")
    try task("task", "add", "Call", "--due", "2026-11-25T17:00:00+01:00", "--context", "phone")
    let first = temp.file("first.ics")
    try task("task", "export", "--output", first.path)
    // Importing into the same repository adds nothing: each UID is already a note's id.
    XCTAssertEqual(try task("task", "import", first.path).stdout, "imported 0 tasks, skipped 2 already present\n")

    let other = temp.file("other")
    try nbSucceeds("init", other.path)
    let imported = try nb(arguments: ["task", "import", first.path, "--project", "imported"], env: clock.merging(["NB_DIR": other.path]) { _, b in b })
    XCTAssertEqual(imported.status, 0, imported.stderr)
    XCTAssertEqual(imported.stdout, "imported 2 tasks\n")
    let second = temp.file("second.ics")
    let exported = try nb(arguments: ["task", "export", "--output", second.path], env: clock.merging(["NB_DIR": other.path]) { _, b in b })
    XCTAssertEqual(exported.status, 0, exported.stderr)
    func fields(_ file: URL) throws -> [[String: String]] {
      try independentlyParsed(file).map { $0.filter { $0.key != "UID" } }.sorted { ($0["SUMMARY"] ?? "") < ($1["SUMMARY"] ?? "") }
    }
    XCTAssertEqual(try fields(second), try fields(first))
  }

  func testImportSkipsOtherComponentsWithACount() throws {
    try makeRepository()
    let ics = temp.file("mixed.ics")
    try """
      BEGIN:VCALENDAR\r
      VERSION:2.0\r
      PRODID:-//test//EN\r
      BEGIN:VEVENT\r
      UID:e1\r
      SUMMARY:A meeting\r
      DTSTART:20261201T090000Z\r
      END:VEVENT\r
      BEGIN:VJOURNAL\r
      UID:j1\r
      END:VJOURNAL\r
      BEGIN:VTODO\r
      UID:t1\r
      SUMMARY:Buy stamps\r
      DUE;VALUE=DATE:20261203\r
      PRIORITY:1\r
      END:VTODO\r
      END:VCALENDAR\r

      """.write(to: ics, atomically: true, encoding: .utf8)
    let before = try commitCount()
    XCTAssertEqual(
      try task("task", "import", ics.path).stdout,
      "imported 1 task; skipped 2 other components (1 VEVENT, 1 VJOURNAL)\n")
    XCTAssertEqual(try commitCount(), before + 1)
    let listed = try listed()
    XCTAssertEqual(listed.map { $0["title"] as? String }, ["Buy stamps"])
    XCTAssertEqual(listed[0]["due"] as? String, "2026-12-03")
    XCTAssertEqual(listed[0]["priority"] as? String, "urgent")
  }

  func testTodoTxtExportAndImport() throws {
    try makeRepository()
    try task("task", "add", "Call the plumber", "--priority", "high", "--due", "2026-11-30", "--project", "home", "--context", "phone")
    let out = try task("task", "export", "--todotxt").stdout
    XCTAssertEqual(out.split(separator: "\n").count, 1)
    let fields = Set(out.trimmingCharacters(in: .newlines).split(separator: " ").map(String.init))
    XCTAssertTrue(fields.isSuperset(of: ["(B)", "Call", "the", "plumber", "@phone", "due:2026-11-30"]), out)

    let todo = temp.file("todo.txt")
    try "(A) Thank Mom for the meatballs @phone due:2026-11-26\nx 2026-11-20 2026-11-01 Pay rent +home\n"
      .write(to: todo, atomically: true, encoding: .utf8)
    XCTAssertEqual(try task("task", "import", todo.path, "--project", "life").stdout, "imported 2 tasks\n")
    let all = try listed("--all", "--project", "life", "--sort", "title")
    XCTAssertEqual(all.map { $0["title"] as? String }, ["Pay rent", "Thank Mom for the meatballs"])
    XCTAssertEqual(all[0]["status"] as? String, "done")
    XCTAssertEqual(all[0]["completed"] as? String, "2026-11-20")
    XCTAssertEqual(all[1]["priority"] as? String, "urgent")
    XCTAssertEqual(all[1]["due"] as? String, "2026-11-26")
    XCTAssertEqual(all[1]["contexts"] as? [String], ["phone"])
  }

  func testRemindersDueNow() throws {
    try makeRepository()
    // Due at 10:30; reminded an hour before: 09:30, which has passed at 10:00.
    try task("task", "add", "Standup", "--due", "today 10:30", "--remind", "-1h")
    try task("task", "add", "Later", "--due", "today 18:00", "--remind", "-1h")
    try task("task", "add", "Absolute", "--remind", "today 9:45")
    try task("task", "add", "Yesterday's", "--remind", "yesterday 9:00")
    let due = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: try task("reminders", "--json").stdoutData) as? [[String: Any]])
    XCTAssertEqual(due.map { $0["at"] as? String }, ["2026-11-24T09:30:00+01:00", "2026-11-24T09:45:00+01:00"])
    XCTAssertEqual(due.map { ($0["task"] as? [String: Any])?["title"] as? String }, ["Standup", "Absolute"])
    XCTAssertEqual(try task("reminders", "--since", "-20m").stdout.split(separator: "\n").count, 1)
    XCTAssertEqual(try task("reminders", "--since", "-2d").stdout.split(separator: "\n").count, 3)
    try task("task", "done", "standup")
    XCTAssertEqual(try task("reminders", "--json").stdout.contains("Standup"), false)
  }
}

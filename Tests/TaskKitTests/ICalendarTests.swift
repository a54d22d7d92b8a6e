import Foundation
import NBTestSupport
import XCTest

@testable import TaskKit

private func day(_ year: Int, _ month: Int, _ dayOfMonth: Int) -> Day {
  Day(year: year, month: month, day: dayOfMonth)!
}

private func time(_ d: Day, _ hour: Int, _ minute: Int, _ second: Int = 0, offset: Int?) -> TaskDate {
  .dateTime(d, hour: hour, minute: minute, second: second, offsetSeconds: offset)
}

/// Epoch seconds below were computed with Python's datetime, not with the code under test.
private let now = Date(timeIntervalSince1970: 1_795_514_400)  // 2026-11-24T10:00:00Z

/// CRLF-joined lines, ending with CRLF: the expected texts are written one line per string.
private func crlf(_ lines: [String]) -> String { lines.map { $0 + "\r\n" }.joined() }

final class ICalendarExportTests: XCTestCase {
  func testMinimalTask() {
    let task = TaskItem(id: "a1", title: "Buy milk", priority: .high, due: .day(day(2026, 12, 1)))
    XCTAssertEqual(
      ICalendar.export([task], now: now),
      crlf([
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//nb//tasks//EN", "CALSCALE:GREGORIAN",
        "BEGIN:VTODO", "UID:a1", "DTSTAMP:20261124T100000Z", "SUMMARY:Buy milk", "STATUS:NEEDS-ACTION",
        "PRIORITY:3", "DUE;VALUE=DATE:20261201", "END:VTODO",
        "END:VCALENDAR",
      ]))
  }

  func testEmptyCalendar() {
    XCTAssertEqual(
      ICalendar.export([], now: now),
      crlf(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//nb//tasks//EN", "CALSCALE:GREGORIAN", "END:VCALENDAR"]))
  }

  static let fullTask = TaskItem(
    title: "Report; draft, v2\\final\nsecond line", status: .done, priority: .urgent,
    due: time(day(2026, 12, 1), 9, 0, offset: 3600), scheduled: time(day(2026, 11, 30), 9, 0, offset: nil),
    completed: .day(day(2026, 12, 2)), created: Date(timeIntervalSince1970: 1_793_521_800),
    updated: Date(timeIntervalSince1970: 1_793_620_800), recurrence: "DTSTART:20261201T090000Z;FREQ=WEEKLY;BYDAY=TU",
    recurrenceAnchor: .completion, completeInstances: [day(2026, 11, 24), day(2026, 12, 1)],
    reminders: [.relative(text: "-PT1H", seconds: -3600), .absolute(time(day(2026, 12, 1), 7, 30, offset: 3600))],
    contexts: ["home"], projects: ["[[Q4, plans]]", "work/reports"], tags: ["writing"], location: "Office 3",
    details: "Line 1\r\nLine 2")

  func testEveryField() {
    let other = TaskItem(id: "o", title: "Odd", status: .other("waiting"), priority: .other("p9"))
    XCTAssertEqual(
      ICalendar.export([other, Self.fullTask], now: now),
      crlf([
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//nb//tasks//EN", "CALSCALE:GREGORIAN",
        "BEGIN:VTODO", "UID:o", "DTSTAMP:20261124T100000Z", "SUMMARY:Odd", "END:VTODO",
        "BEGIN:VTODO",
        "UID:nb-2",
        "DTSTAMP:20261124T100000Z",
        "CREATED:20261101T083000Z",
        "LAST-MODIFIED:20261102T120000Z",
        "SUMMARY:Report\\; draft\\, v2\\\\final\\nsecond line",
        "DESCRIPTION:Line 1\\nLine 2",
        "LOCATION:Office 3",
        "STATUS:COMPLETED",
        "PRIORITY:1",
        "DTSTART:20261130T090000",
        "DUE:20261201T080000Z",
        "COMPLETED;X-NB-VALUE=DATE:20261202T000000Z",
        "RRULE:FREQ=WEEKLY;BYDAY=TU",
        "X-NB-RECURRENCE-ANCHOR:COMPLETION",
        "X-NB-COMPLETE-INSTANCES;VALUE=DATE:20261124,20261201",
        "CATEGORIES:writing,home",
        "X-NB-CONTEXTS:home",
        "X-NB-PROJECTS:[[Q4\\, plans]],work/reports",
        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Report\\; draft\\, v2\\\\final\\nsecond line",
        "TRIGGER;RELATED=END:-PT1H", "END:VALARM",
        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Report\\; draft\\, v2\\\\final\\nsecond line",
        "TRIGGER;VALUE=DATE-TIME:20261201T063000Z", "END:VALARM",
        "END:VTODO",
        "END:VCALENDAR",
      ]))
  }

  func testStatusesPrioritiesAndFloatingCompletion() {
    let tasks = [
      TaskItem(id: "1", title: "a", status: .inProgress, priority: .normal),
      TaskItem(id: "2", title: "b", status: .cancelled, priority: .low),
      TaskItem(id: "3", title: "c", status: .done, completed: time(day(2026, 1, 2), 3, 4, 5, offset: nil)),
      TaskItem(id: "4", title: "d", completed: time(day(2026, 1, 2), 0, 30, offset: -3600)),
      TaskItem(
        id: "5", title: "e",
        reminders: [
          .relative(text: "P1M", seconds: -5400), .relative(text: "PT0S", seconds: 0),
          .absolute(.day(day(2026, 1, 3))), .relative(text: "-P2W", seconds: -1_209_600),
          .relative(text: "x", seconds: 3605),
        ]),
    ]
    let lines = ICalendar.export(tasks, now: now).components(separatedBy: "\r\n")
    XCTAssertEqual(
      lines.filter { $0.hasPrefix("STATUS") },
      [
        "STATUS:IN-PROCESS", "STATUS:CANCELLED", "STATUS:COMPLETED",
        "STATUS:NEEDS-ACTION", "STATUS:NEEDS-ACTION",
      ])
    XCTAssertEqual(lines.filter { $0.hasPrefix("PRIORITY") }, ["PRIORITY:5", "PRIORITY:7"])
    XCTAssertEqual(
      lines.filter { $0.hasPrefix("COMPLETED") },
      ["COMPLETED;X-NB-VALUE=FLOATING:20260102T030405Z", "COMPLETED:20260102T013000Z"])
    XCTAssertEqual(
      lines.filter { $0.hasPrefix("TRIGGER") },
      [
        "TRIGGER;RELATED=END:-PT1H30M", "TRIGGER;RELATED=END:PT0S",
        "TRIGGER;VALUE=DATE-TIME;X-NB-VALUE=DATE:20260103T000000Z", "TRIGGER;RELATED=END:-P2W",
        "TRIGGER;RELATED=END:PT1H0M5S",
      ])
  }

  func testFoldingASCII() {
    let title = String(repeating: "a", count: 100)
    let text = ICalendar.export([TaskItem(id: "f", title: title)], now: now)
    XCTAssertTrue(
      text.contains(
        "\r\nSUMMARY:" + String(repeating: "a", count: 67) + "\r\n " + String(repeating: "a", count: 33)
          + "\r\n"))
  }

  func testFoldingKeepsUTF8SequencesWhole() {
    // 8 octets of "SUMMARY:" + 33 two-octet é = 74; the 34th would make 76.
    let accents = ICalendar.export([TaskItem(id: "f", title: String(repeating: "é", count: 40))], now: now)
    XCTAssertTrue(
      accents.contains(
        "\r\nSUMMARY:" + String(repeating: "é", count: 33) + "\r\n " + String(repeating: "é", count: 7)
          + "\r\n"))
    // 8 + 65 = 73 octets; the four-octet emoji would make 77, so it starts the next line.
    let emoji = ICalendar.export([TaskItem(id: "f", title: String(repeating: "a", count: 65) + "😀b")], now: now)
    XCTAssertTrue(emoji.contains("\r\nSUMMARY:" + String(repeating: "a", count: 65) + "\r\n 😀b\r\n"))
    for text in [accents, emoji] {
      for line in text.components(separatedBy: "\r\n") { XCTAssertLessThanOrEqual(line.utf8.count, 75) }
    }
  }

  func testControlCharactersAreDropped() {
    let text = ICalendar.export([TaskItem(id: "c", title: "a\u{0}b\u{7F}c\td\re")], now: now)
    XCTAssertTrue(text.contains("\r\nSUMMARY:abc\td\\ne\r\n"))
  }
}

final class ICalendarImportTests: XCTestCase {
  func testThunderbirdStyle() throws {
    let text = crlf([
      "BEGIN:VCALENDAR",
      "PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN",
      "VERSION:2.0",
      "BEGIN:VTIMEZONE",
      "TZID:Europe/Berlin",
      "X-LIC-LOCATION:Europe/Berlin",
      "BEGIN:DAYLIGHT",
      "TZOFFSETFROM:+0100",
      "TZOFFSETTO:+0200",
      "TZNAME:CEST",
      "DTSTART:19700329T020000",
      "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3",
      "END:DAYLIGHT",
      "BEGIN:STANDARD",
      "TZOFFSETFROM:+0200",
      "TZOFFSETTO:+0100",
      "TZNAME:CET",
      "DTSTART:19701025T030000",
      "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
      "END:STANDARD",
      "END:VTIMEZONE",
      "BEGIN:VTODO",
      "CREATED:20261120T101500Z",
      "LAST-MODIFIED:20261121T080000Z",
      "DTSTAMP:20261121T080000Z",
      "UID:7d0b5a3e-1c2f-4f7a-9a59-2f1c5e0c1a11",
      "SUMMARY:Steuererklärung abgeben",
      "PRIORITY:1",
      "STATUS:IN-PROCESS",
      "PERCENT-COMPLETE:40",
      "X-MOZ-GENERATION:3",
      "DTSTART;TZID=Europe/Berlin:20261201T090000",
      "DUE;TZID=/mozilla.org/20050126_1/Europe/Berlin:20261215T170000",
      "DESCRIPTION:Belege sammeln\\, Formular ausfüllen",
      "BEGIN:VALARM",
      "ACTION:DISPLAY",
      "TRIGGER;VALUE=DURATION:-PT15M",
      "DESCRIPTION:Default Mozilla Description",
      "END:VALARM",
      "END:VTODO",
      "END:VCALENDAR",
    ])
    let result = try ICalendar.parse(text)
    XCTAssertEqual(result.skipped, ["VTIMEZONE": 1])
    XCTAssertEqual(result.warnings, [])
    // The alarm is relative to DTSTART (RFC 5545's default); DTSTART is 14 days 8 hours before DUE, so it is
    // 15 minutes + 14 days 8 hours before DUE: 900 + 1_209_600 + 28_800 = 1_239_300 seconds.
    XCTAssertEqual(
      result.tasks,
      [
        TaskItem(
          id: "7d0b5a3e-1c2f-4f7a-9a59-2f1c5e0c1a11", title: "Steuererklärung abgeben", status: .inProgress,
          priority: .urgent, due: time(day(2026, 12, 15), 17, 0, offset: 3600),
          scheduled: time(day(2026, 12, 1), 9, 0, offset: 3600), created: Date(timeIntervalSince1970: 1_795_169_700),
          updated: Date(timeIntervalSince1970: 1_795_248_000),
          reminders: [.relative(text: "-P14DT8H15M", seconds: -1_239_300)],
          details: "Belege sammeln, Formular ausfüllen")
      ])
  }

  func testAppleRemindersStyle() throws {
    // LF line endings and a folded line, as a file saved on a Mac might have.
    let text = """
      BEGIN:VCALENDAR
      VERSION:2.0
      PRODID:-//Apple Inc.//iOS 17.0//EN
      CALSCALE:GREGORIAN
      BEGIN:VTODO
      COMPLETED:20261102T143012Z
      CREATED:20261030T091500Z
      DTSTAMP:20261102T143012Z
      LAST-MODIFIED:20261102T143012Z
      PERCENT-COMPLETE:100
      PRIORITY:9
      STATUS:COMPLETED
      SUMMARY:Call the plumber about the kitchen sink that has been dripping sin
       ce Tuesday
      UID:B4E7A1C2-35D7-4C5E-9E3B-6F1D2A7C8E90
      X-APPLE-SORT-ORDER:689123456
      DUE;VALUE=DATE:20261101
      DTSTART;VALUE=DATE:20261101
      BEGIN:VALARM
      ACTION:DISPLAY
      DESCRIPTION:Reminder
      TRIGGER;VALUE=DATE-TIME:20261101T080000Z
      UID:0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9
      X-WR-ALARMUID:0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9
      END:VALARM
      BEGIN:VALARM
      ACTION:DISPLAY
      DESCRIPTION:Reminder
      TRIGGER;VALUE=DATE-TIME:19760401T005545Z
      X-APPLE-PROXIMITY:ARRIVE
      X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-APPLE-RADIUS=70;X-TITLE="Home;
        1 Infinite Loop":geo:37.33,-122.03
      END:VALARM
      END:VTODO
      BEGIN:VTODO
      UID:second
      SUMMARY:Child
      RELATED-TO;RELTYPE=PARENT:B4E7A1C2-35D7-4C5E-9E3B-6F1D2A7C8E90
      END:VTODO
      BEGIN:VEVENT
      UID:ev
      SUMMARY:Not a task
      BEGIN:VALARM
      TRIGGER:-PT5M
      END:VALARM
      END:VEVENT
      END:VCALENDAR

      """
    let result = try ICalendar.parse(text)
    XCTAssertEqual(result.skipped, ["VEVENT": 1])
    XCTAssertEqual(result.warnings, ["line 29: a location-based VALARM is ignored"])
    XCTAssertEqual(
      result.tasks,
      [
        TaskItem(
          id: "B4E7A1C2-35D7-4C5E-9E3B-6F1D2A7C8E90",
          title: "Call the plumber about the kitchen sink that has been dripping since Tuesday", status: .done,
          priority: .low, due: .day(day(2026, 11, 1)), scheduled: .day(day(2026, 11, 1)),
          completed: time(day(2026, 11, 2), 14, 30, 12, offset: 0), created: Date(timeIntervalSince1970: 1_793_351_700),
          updated: Date(timeIntervalSince1970: 1_793_629_812),
          reminders: [.absolute(time(day(2026, 11, 1), 8, 0, offset: 0))]),
        TaskItem(id: "second", title: "Child"),
      ])
  }

  func testNextcloudStyle() throws {
    let text = crlf([
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "PRODID:-//Nextcloud Tasks v0.15.0",
      "BEGIN:VTODO",
      "UID:3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
      "CREATED:20261105T120000",
      "LAST-MODIFIED:20261105T121500",
      "DTSTAMP:20261105T121500",
      "SUMMARY:Write the quarterly report",
      "PRIORITY:5",
      "STATUS:NEEDS-ACTION",
      "CATEGORIES:Work,Writing",
      "CATEGORIES:Q4",
      "RELATED-TO;RELTYPE=PARENT:a1b2c3",
      "DUE;TZID=\"America/New_York\":20261210T170000",
      "X-OC-HIDESUBTASKS:0",
      "CLASS:PUBLIC",
      "DESCRIPTION:Outline:\\n- numbers\\n- highlights\\; risks",
      "  \\, folding continues here",
      "RRULE:FREQ=MONTHLY;BYMONTHDAY=10",
      "BEGIN:VALARM",
      "ACTION:AUDIO",
      "TRIGGER;RELATED=END:-P1D",
      "END:VALARM",
      "END:VTODO",
      "BEGIN:VJOURNAL",
      "UID:j",
      "END:VJOURNAL",
      "BEGIN:X-NEXTCLOUD-THING",
      "END:X-NEXTCLOUD-THING",
      "BEGIN:VJOURNAL",
      "END:VJOURNAL",
      "END:VCALENDAR",
    ])
    let result = try ICalendar.parse(text)
    XCTAssertEqual(result.skipped, ["VJOURNAL": 2, "X-NEXTCLOUD-THING": 1])
    XCTAssertEqual(result.warnings, [])
    XCTAssertEqual(
      result.tasks,
      [
        TaskItem(
          id: "3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", title: "Write the quarterly report", priority: .normal,
          due: time(day(2026, 12, 10), 17, 0, offset: -5 * 3600), created: Date(timeIntervalSince1970: 1_793_880_000),
          updated: Date(timeIntervalSince1970: 1_793_880_900), recurrence: "FREQ=MONTHLY;BYMONTHDAY=10",
          reminders: [.relative(text: "-P1D", seconds: -86_400)], tags: ["Work", "Writing", "Q4"],
          details: "Outline:\n- numbers\n- highlights; risks , folding continues here")
      ])
  }

  func testWarnings() throws {
    let text = crlf([
      "BEGIN:VCALENDAR",
      "BEGIN:VTODO",
      "DUE:xyz",
      "DTSTART;TZID=W. Europe Standard Time:20261210T170000",
      "PRIORITY:high",
      "STATUS:WAITING",
      "this line has no colon",
      "SUMMARY:",
      "SUMMARY:second",
      "BEGIN:VALARM",
      "TRIGGER:soon",
      "END:VALARM",
      "BEGIN:VALARM",
      "ACTION:DISPLAY",
      "END:VALARM",
      "END:VTODO",
      "END:VEVENT",
      "BEGIN:VTODO",
      "SUMMARY:unfinished",
    ])
    let result = try ICalendar.parse(text)
    XCTAssertEqual(
      result.warnings,
      [
        // Read as they come; a task's own warnings when its VTODO ends (line 16).
        "line 7: not a content line: 'this line has no colon'",
        "line 3: DUE 'xyz' is not a date",
        "line 4: TZID 'W. Europe Standard Time' is not a known time zone; read as floating",
        "line 5: PRIORITY 'high' is not 0 to 9",
        "line 6: STATUS 'WAITING' is not a VTODO status; kept as written",
        "line 9: a second SUMMARY is ignored",
        "line 11: TRIGGER 'soon' is not a duration",
        "line 14: a VALARM without TRIGGER is ignored",
        "line 17: END:VEVENT without BEGIN:VEVENT is ignored",
        "line 19: the text ends inside BEGIN:VCALENDAR, BEGIN:VTODO",
      ])
    XCTAssertEqual(
      result.tasks,
      [
        TaskItem(
          title: "(untitled)", status: .other("WAITING"), scheduled: time(day(2026, 12, 10), 17, 0, offset: nil)),
        TaskItem(title: "unfinished"),
      ])
  }

  func testFoldBeforeACombiningMarkKeepsTheMark() throws {
    let text =
      "\u{FEFF}BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nSUMMARY:Cafe\r\n \u{301} \u{1F44D}\r\n \u{1F3FD}\r\nEND:VTODO\r\n"
    let title = try ICalendar.parse(text).tasks.first?.title
    XCTAssertEqual(title.map { Array($0.unicodeScalars) }, Array("Cafe\u{301} \u{1F44D}\u{1F3FD}".unicodeScalars))
  }

  func testNotICalendarThrows() {
    for text in ["", "hello", "BEGIN:VTODO\nEND:VTODO", "\u{0}\u{FFFF}"] {
      XCTAssertThrowsError(try ICalendar.parse(text)) { error in
        XCTAssertEqual(error as? ICalendarError, ICalendarError("not iCalendar: no BEGIN:VCALENDAR line"))
      }
    }
  }

  func testParametersQuotedAndCaretEscaped() throws {
    let text = crlf([
      "BEGIN:VCALENDAR", "BEGIN:VTODO",
      "SUMMARY;LANGUAGE=en;X-A=\"a;b:c\",plain;X-B=^^x^n:Title: with colon",
      "LOCATION;ALTREP=\"cid:x\":Room 1",
      "END:VTODO", "END:VCALENDAR",
    ])
    let result = try ICalendar.parse(text)
    XCTAssertEqual(result.tasks, [TaskItem(title: "Title: with colon", location: "Room 1")])
  }

  func testTriggerRelatedToStartWithoutDue() throws {
    let text = crlf([
      "BEGIN:VCALENDAR", "BEGIN:VTODO", "SUMMARY:s", "DTSTART:20261201T090000Z",
      "BEGIN:VALARM", "TRIGGER:-PT30M", "END:VALARM",
      "END:VTODO", "BEGIN:VTODO", "SUMMARY:t", "DUE;VALUE=DATE:20261201",
      "BEGIN:VALARM", "TRIGGER:-PT30M", "END:VALARM",
      "END:VTODO", "END:VCALENDAR",
    ])
    let result = try ICalendar.parse(text)
    XCTAssertEqual(
      result.tasks.map(\.reminders),
      [
        [.absolute(time(day(2026, 12, 1), 8, 30, offset: 0))],
        [.relative(text: "-PT30M", seconds: -1800)],
      ])
  }

  func testDSTGapInTZID() throws {
    // 2026-03-29 02:30 does not exist in Berlin (clocks jump from 02:00 to 03:00): it is read as 03:30 +02:00.
    let text = crlf([
      "BEGIN:VCALENDAR", "BEGIN:VTODO", "DUE;TZID=Europe/Berlin:20260329T023000", "END:VTODO", "END:VCALENDAR",
    ])
    XCTAssertEqual(try ICalendar.parse(text).tasks.first?.due, time(day(2026, 3, 29), 3, 30, offset: 7200))
  }

  func testDurations() {
    let cases: [(String, Int?)] = [
      ("-PT1H", -3600), ("PT15M", 900), ("+P1D", 86_400), ("P2W", 1_209_600), ("-P1DT2H3M4S", -93_784),
      ("PT1H30S", 3630), ("P", nil), ("PT", nil), ("P1H", nil), ("PT1D", nil), ("P1M", nil), ("1H", nil),
      ("PT1M1H", nil), ("P99999999999999999999D", nil), ("", nil), ("-", nil), ("P1DT", nil),
    ]
    for (text, seconds) in cases { XCTAssertEqual(TriggerDuration.seconds(text), seconds, text) }
  }
}

final class ICalendarRoundTripTests: XCTestCase {
  func testRoundTripKeepsWhatICalendarCarries() throws {
    var full = ICalendarExportTests.fullTask
    full.id = "full"
    // Documented changes, written as parse gives them back.
    let tasks = [
      full,
      TaskItem(id: "plain", title: "Plain"),
      TaskItem(
        id: "x", title: "Ünïcødé 😀 " + String(repeating: "long text ", count: 30), status: .cancelled,
        priority: .low, due: time(day(2027, 2, 28), 23, 59, 59, offset: 0), scheduled: .day(day(2027, 1, 1)),
        completed: time(day(2027, 3, 1), 1, 2, 3, offset: nil), recurrence: "FREQ=DAILY;COUNT=3",
        reminders: [.absolute(time(day(2027, 1, 1), 6, 0, offset: nil)), .relative(text: "PT0S", seconds: 0)],
        contexts: ["a,b", "c;d"], projects: ["p\\q"], tags: ["t\nu", "a,b"], location: "", details: ""),
    ]
    let back = try ICalendar.parse(ICalendar.export(tasks, now: now))
    XCTAssertEqual(back.warnings, [])
    XCTAssertEqual(back.skipped, [:])
    var expected = tasks
    expected[0].due = time(day(2026, 12, 1), 8, 0, offset: 0)
    expected[0].recurrence = "FREQ=WEEKLY;BYDAY=TU"
    expected[0].reminders[1] = .absolute(time(day(2026, 12, 1), 6, 30, offset: 0))
    expected[0].details = "Line 1\nLine 2"
    XCTAssertEqual(back.tasks, expected)
  }

  func testDocumentedChanges() throws {
    let tasks = [
      TaskItem(title: "", status: .other("waiting"), priority: .other("p"), created: Date(timeIntervalSince1970: 1.75)),
      TaskItem(title: "t", status: .other("waiting"), completed: .day(day(2026, 1, 1))),
    ]
    let back = try ICalendar.parse(ICalendar.export(tasks, now: now)).tasks
    XCTAssertEqual(
      back,
      [
        TaskItem(id: "nb-1", title: "(untitled)", created: Date(timeIntervalSince1970: 1)),
        TaskItem(id: "nb-2", title: "t", status: .done, completed: .day(day(2026, 1, 1))),
      ])
  }
}

final class ICalendarGarbageTests: XCTestCase {
  func testGarbageNeverTraps() {
    var random = SplitMix64(seed: 0x1CA1)
    let pieces = [
      "BEGIN:", "END:", "VCALENDAR", "VTODO", "VALARM", "VEVENT", "\r\n", "\n", "\r", " ", "\t", ";", ":", ",", "=",
      "\"", "\\", "^", "DUE", "DTSTART", "TZID=", "Europe/Berlin", "VALUE=DATE", "20261201", "T", "Z", "999999999",
      "TRIGGER", "RELATED=START", "-P", "PT", "1H", "99999999999W", "SUMMARY", "é", "😀", "\u{0}", "X-NB-VALUE=DATE",
      "CATEGORIES", "X-NB-CONTEXTS", "RRULE", "PRIORITY", "-1", "STATUS", "COMPLETED", "X-NB-COMPLETE-INSTANCES",
      "X-NB-RECURRENCE-ANCHOR", "completion", "00000000T000000", "99991231T235960Z", "X-APPLE-PROXIMITY",
    ]
    for _ in 0..<3000 {
      var text = "BEGIN:VCALENDAR\r\n"
      for _ in 0..<Int.random(in: 0...60, using: &random) { text += pieces.randomElement(using: &random)! }
      _ = try? ICalendar.parse(text)
    }
    // Cut and damaged copies of a real export.
    let export = Array(ICalendar.export([ICalendarExportTests.fullTask], now: now).unicodeScalars)
    for _ in 0..<2000 {
      var scalars = export
      for _ in 0..<Int.random(in: 1...5, using: &random) {
        let index = Int.random(in: 0..<scalars.count, using: &random)
        if Bool.random(using: &random) {
          scalars.remove(at: index)
        } else {
          scalars[index] = [";", ":", ",", "\\", "\"", "\n", " ", "0"].randomElement(using: &random)!
        }
      }
      let cut = Int.random(in: 0...scalars.count, using: &random)
      _ = try? ICalendar.parse(String(String.UnicodeScalarView(scalars[..<cut])))
    }
  }

  func testExportOfExtremeValuesNeverTraps() throws {
    let extreme = TaskItem(
      id: "", title: String(repeating: "\u{0}\r\n\\;,", count: 50), due: .day(Day(dayNumber: -1_000_000)),
      scheduled: time(Day(dayNumber: 3_000_000), 23, 59, 59, offset: -86_399), created: Date.distantFuture,
      updated: Date(timeIntervalSince1970: .nan), recurrence: "DTSTART:x", completeInstances: [Day(dayNumber: 0)],
      reminders: [.relative(text: "", seconds: Int.min), .relative(text: "", seconds: Int.max)])
    let absurd = TaskItem(
      title: "t", due: .dateTime(Day(dayNumber: .max), hour: .max, minute: .min, second: 0, offsetSeconds: .max),
      scheduled: .dateTime(Day(dayNumber: .min), hour: .min, minute: 0, second: .max, offsetSeconds: .min),
      completed: .day(Day(dayNumber: .max).adding(days: .max)),
      completeInstances: [Day(dayNumber: .min).adding(days: .min)],
      reminders: [.absolute(.dateTime(Day(dayNumber: .max), hour: .max, minute: 0, second: 0, offsetSeconds: nil))])
    let text = ICalendar.export([extreme, absurd], now: Date(timeIntervalSince1970: -.infinity))
    XCTAssertNoThrow(try ICalendar.parse(text))
    XCTAssertNoThrow(TodoTxt.parse(TodoTxt.export([extreme, absurd])))
  }
}

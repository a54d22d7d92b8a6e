import TaskKit
import XCTest

// Weekdays and offsets checked with `date`: 2026-11-24 is a Tuesday; Berlin is +02:00 until 2026-10-25 03:00 and
// from 2026-03-29 02:00, +01:00 otherwise (`TZ=Europe/Berlin date -d '2026-10-27 09:00' +%z` is +0100).
final class TaskSeriesTests: XCTestCase {
  let berlin = TimeZone(identifier: "Europe/Berlin")!
  let utc = TimeZone(identifier: "UTC")!

  func date(_ text: String) -> TaskDate { TaskDate(text: text)! }
  func day(_ iso: String) -> Day { Day(iso: iso)! }
  func rule(_ text: String) throws -> Recurrence { try Recurrence(rrule: text) }

  func testWeeklyDateTimeAcrossTheAutumnDSTChangeKeepsTheWallClock() throws {
    let advance = try XCTUnwrap(
      TaskSeries.advance(
        due: date("2026-10-20T09:00:00+02:00"), scheduled: date("2026-10-19T08:00:00+02:00"),
        reminders: [.absolute(date("2026-10-20T08:30:00+02:00")), .relative(text: "-PT1H", seconds: -3600)],
        rule: try rule("FREQ=WEEKLY"), anchor: .scheduled, completedOn: day("2026-10-20"), timeZone: berlin))
    XCTAssertEqual(advance.due, date("2026-10-27T09:00:00+01:00"))
    XCTAssertEqual(advance.scheduled, date("2026-10-26T08:00:00+01:00"))
    XCTAssertEqual(
      advance.reminders,
      [.absolute(date("2026-10-27T08:30:00+01:00")), .relative(text: "-PT1H", seconds: -3600)])
    XCTAssertEqual(advance.dayShift, 7)
  }

  func testWeeklyDateTimeAcrossTheSpringDSTChange() throws {
    let advance = try XCTUnwrap(
      TaskSeries.advance(
        due: date("2026-03-22T09:00:00+01:00"), scheduled: nil, reminders: [], rule: try rule("FREQ=WEEKLY;BYDAY=SU"),
        anchor: .scheduled, completedOn: day("2026-03-22"), timeZone: berlin))
    XCTAssertEqual(
      advance, SeriesAdvance(due: date("2026-03-29T09:00:00+02:00"), scheduled: nil, reminders: [], dayShift: 7))
  }

  func testFloatingTimesStayFloating() throws {
    let advance = try XCTUnwrap(
      TaskSeries.advance(
        due: date("2026-10-24T09:00"), scheduled: nil, reminders: [], rule: try rule("FREQ=DAILY"), anchor: .scheduled,
        completedOn: day("2026-10-24"), timeZone: berlin))
    XCTAssertEqual(advance.due, date("2026-10-25T09:00"))
  }

  func testMonthEndMonthly() throws {
    let implied = try XCTUnwrap(
      TaskSeries.advance(
        due: .day(day("2026-01-31")), scheduled: nil, reminders: [], rule: try rule("FREQ=MONTHLY"), anchor: .scheduled,
        completedOn: day("2026-01-31"), timeZone: utc))
    XCTAssertEqual(implied.due, .day(day("2026-02-28")))
    XCTAssertEqual(implied.dayShift, 28)
    // With DTSTART the 31st is remembered: February's 28th goes on to March 31.
    let remembered = try XCTUnwrap(
      TaskSeries.advance(
        due: .day(day("2026-02-28")), scheduled: nil, reminders: [], rule: try rule("DTSTART:20260131;FREQ=MONTHLY"),
        anchor: .scheduled, completedOn: day("2026-02-28"), timeZone: utc))
    XCTAssertEqual(remembered.due, .day(day("2026-03-31")))
    XCTAssertEqual(remembered.dayShift, 31)
    let lastDay = try XCTUnwrap(
      TaskSeries.advance(
        due: .day(day("2026-02-28")), scheduled: .day(day("2026-02-27")), reminders: [],
        rule: try rule("FREQ=MONTHLY;BYMONTHDAY=-1"), anchor: .scheduled, completedOn: day("2026-03-01"), timeZone: utc)
    )
    XCTAssertEqual(lastDay.due, .day(day("2026-03-31")))
    XCTAssertEqual(lastDay.scheduled, .day(day("2026-03-30")))
  }

  func testCompletionAnchorEveryThreeDays() throws {
    let (every3, anchor) = try Recurrence.parse(userText: "every 3 days when done")
    XCTAssertEqual(anchor, .completion)
    let late = try XCTUnwrap(
      TaskSeries.advance(
        due: .day(day("2026-11-20")), scheduled: .day(day("2026-11-19")), reminders: [], rule: every3,
        anchor: .completion, completedOn: day("2026-11-24"), timeZone: utc))
    XCTAssertEqual(
      late, SeriesAdvance(due: .day(day("2026-11-27")), scheduled: .day(day("2026-11-26")), reminders: [], dayShift: 7))
    // Completed early: the dates move back to 3 days after completion.
    let early = try XCTUnwrap(
      TaskSeries.advance(
        due: .day(day("2026-12-10")), scheduled: nil, reminders: [], rule: every3, anchor: .completion,
        completedOn: day("2026-12-01"), timeZone: utc))
    XCTAssertEqual(early.due, .day(day("2026-12-04")))
    XCTAssertEqual(early.dayShift, -6)
  }

  func testCompletionAnchorWithFixedWeekdaysTakesTheFirstMatchingDay() throws {
    // Completed on Tuesday 2026-11-24: the next Monday is 2026-11-30.
    let advance = try XCTUnwrap(
      TaskSeries.advance(
        due: .day(day("2026-11-16")), scheduled: nil, reminders: [], rule: try rule("FREQ=WEEKLY;BYDAY=MO"),
        anchor: .completion, completedOn: day("2026-11-24"), timeZone: utc))
    XCTAssertEqual(advance.due, .day(day("2026-11-30")))
    let monthly = try XCTUnwrap(
      TaskSeries.advance(
        due: .day(day("2026-11-15")), scheduled: nil, reminders: [], rule: try rule("FREQ=MONTHLY;BYMONTHDAY=15"),
        anchor: .completion, completedOn: day("2026-11-10"), timeZone: utc))
    XCTAssertEqual(monthly.due, .day(day("2026-11-15")))
    XCTAssertEqual(monthly.dayShift, 0)
  }

  func testLateCompletionTakesExactlyOneStep() throws {
    let advance = try XCTUnwrap(
      TaskSeries.advance(
        due: .day(day("2026-11-03")), scheduled: nil, reminders: [], rule: try rule("FREQ=WEEKLY"), anchor: .scheduled,
        completedOn: day("2026-11-24"), timeZone: utc))
    XCTAssertEqual(advance.due, .day(day("2026-11-10")))
  }

  func testScheduledIsPrimaryWithoutDue() throws {
    let advance = try XCTUnwrap(
      TaskSeries.advance(
        due: nil, scheduled: date("2026-11-24T09:00:00Z"), reminders: [.absolute(date("2026-11-24T08:00:00Z"))],
        rule: try rule("FREQ=DAILY;INTERVAL=2"), anchor: .scheduled, completedOn: day("2026-11-24"), timeZone: utc))
    XCTAssertEqual(
      advance,
      SeriesAdvance(
        due: nil, scheduled: date("2026-11-26T09:00:00Z"), reminders: [.absolute(date("2026-11-26T08:00:00Z"))],
        dayShift: 2))
  }

  func testWithoutDatesBothAnchorsCountFromCompletion() throws {
    for anchor in RecurrenceAnchor.allCases {
      let advance = try XCTUnwrap(
        TaskSeries.advance(
          due: nil, scheduled: nil, reminders: [.relative(text: "PT0S", seconds: 0)],
          rule: try rule("FREQ=DAILY;INTERVAL=3"),
          anchor: anchor, completedOn: day("2026-11-24"), timeZone: utc))
      XCTAssertEqual(
        advance,
        SeriesAdvance(
          due: .day(day("2026-11-27")), scheduled: nil, reminders: [.relative(text: "PT0S", seconds: 0)], dayShift: 3))
    }
  }

  func testACountEndedSeriesGivesNil() throws {
    // Occurrences 2026-11-24, 2026-12-01, 2026-12-08.
    let three = try rule("DTSTART:20261124;FREQ=WEEKLY;COUNT=3")
    let second = TaskSeries.advance(
      due: .day(day("2026-12-01")), scheduled: nil, reminders: [], rule: three, anchor: .scheduled,
      completedOn: day("2026-12-01"), timeZone: utc)
    XCTAssertEqual(second?.due, .day(day("2026-12-08")))
    XCTAssertNil(
      TaskSeries.advance(
        due: .day(day("2026-12-08")), scheduled: nil, reminders: [], rule: three, anchor: .scheduled,
        completedOn: day("2026-12-08"), timeZone: utc))
    XCTAssertNil(
      TaskSeries.advance(
        due: .day(day("2026-11-24")), scheduled: nil, reminders: [], rule: try rule("FREQ=DAILY;COUNT=1"),
        anchor: .scheduled, completedOn: day("2026-11-24"), timeZone: utc))
    XCTAssertNil(
      TaskSeries.advance(
        due: .day(day("2026-11-30")), scheduled: nil, reminders: [], rule: try rule("FREQ=WEEKLY;UNTIL=20261206"),
        anchor: .scheduled, completedOn: day("2026-11-30"), timeZone: utc))
  }
}

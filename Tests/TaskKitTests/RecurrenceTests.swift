import NBTestSupport
import TaskKit
import XCTest

// Occurrences were worked out with python3's dateutil.rrule (an independent RFC 5545 implementation), e.g.
// `list(rrulestr("FREQ=MONTHLY;BYDAY=-1FR", dtstart=datetime(2026,11,27))[:4])`; the month-end clamping nb does for
// days only implied by the start (which dateutil skips instead) was worked out by hand from a calendar.
final class RecurrenceTests: XCTestCase {
  func day(_ iso: String) -> Day { Day(iso: iso)! }

  func rule(_ text: String) throws -> Recurrence { try Recurrence(rrule: text) }

  /// The first `count` occurrences after the start, each found with next(after: previous).
  func occurrences(_ text: String, from start: String, _ count: Int) throws -> [String] {
    let rule = try rule(text)
    var result: [String] = []
    var current = day(start)
    for _ in 0..<count {
      guard let next = rule.next(after: current, seriesStart: day(start)) else { break }
      result.append(next.iso)
      current = next
    }
    return result
  }

  // MARK: Reading RRULEs

  func testReadsEveryPart() throws {
    let parsed = try rule(
      "RRULE:freq=monthly;interval=2;bymonth=1,7;bymonthday=1,-1;byday=1MO,-1fr,+2TU;bysetpos=1,-1;count=5")
    XCTAssertEqual(parsed.frequency, .monthly)
    XCTAssertEqual(parsed.interval, 2)
    XCTAssertEqual(parsed.byMonth, [1, 7])
    XCTAssertEqual(parsed.byMonthDay, [1, -1])
    XCTAssertEqual(
      parsed.byDay,
      [
        Recurrence.WeekdayNumber(ordinal: 1, weekday: 1), Recurrence.WeekdayNumber(ordinal: -1, weekday: 5),
        Recurrence.WeekdayNumber(ordinal: 2, weekday: 2),
      ])
    XCTAssertEqual(parsed.bySetPos, [1, -1])
    XCTAssertEqual(parsed.count, 5)
    XCTAssertNil(parsed.until)
    XCTAssertNil(parsed.start)
  }

  func testReadsDTSTARTAndUNTIL() throws {
    XCTAssertEqual(try rule("DTSTART:20250101;FREQ=DAILY").start, day("2025-01-01"))
    XCTAssertEqual(try rule("DTSTART:20250101T090000Z;RRULE:FREQ=WEEKLY").start, day("2025-01-01"))
    XCTAssertEqual(try rule("DTSTART:20250101T090000\nRRULE:FREQ=WEEKLY;BYDAY=WE").start, day("2025-01-01"))
    let ics = try rule("DTSTART;TZID=Europe/Berlin:20250102T090000\r\nRRULE:FREQ=WEEKLY;BYDAY=TH")
    XCTAssertEqual(ics.start, day("2025-01-02"))
    XCTAssertEqual(ics.rrule, "FREQ=WEEKLY;BYDAY=TH")
    XCTAssertEqual(try rule("FREQ=DAILY;UNTIL=20261231").until, day("2026-12-31"))
    XCTAssertEqual(try rule("UNTIL=20261231T235959Z;FREQ=DAILY").until, day("2026-12-31"))
    XCTAssertEqual(try rule("FREQ=WEEKLY;WKST=SU;BYDAY=MO"), try rule("FREQ=WEEKLY;BYDAY=MO"))
    XCTAssertEqual(try rule(" FREQ=WEEKLY; BYDAY=MO, we ").byDay.map(\.weekday), [1, 3])
  }

  func testCanonicalText() throws {
    XCTAssertEqual(try rule("BYDAY=MO;INTERVAL=2;FREQ=WEEKLY").rrule, "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO")
    XCTAssertEqual(try rule("FREQ=DAILY;INTERVAL=1").rrule, "FREQ=DAILY")
    XCTAssertEqual(
      try rule("count=3;bysetpos=-1;byday=mo,tu;bymonthday=1;bymonth=2;freq=yearly").rrule,
      "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=1;BYDAY=MO,TU;BYSETPOS=-1;COUNT=3")
    XCTAssertEqual(
      try rule("DTSTART:20250101;FREQ=MONTHLY;UNTIL=20261231T000000Z").rrule, "FREQ=MONTHLY;UNTIL=20261231")
    XCTAssertEqual(try rule("FREQ=MONTHLY;BYDAY=-1FR").description, "FREQ=MONTHLY;BYDAY=-1FR")
    for text in [
      "FREQ=DAILY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO", "FREQ=MONTHLY;BYMONTHDAY=-1", "FREQ=MONTHLY;BYDAY=2TU",
      "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25", "FREQ=DAILY;COUNT=4",
      "FREQ=WEEKLY;UNTIL=20270101",
    ] {
      XCTAssertEqual(try rule(text).rrule, text)
      XCTAssertEqual(try rule(try rule(text).rrule), try rule(text))
    }
  }

  func testInvalidRulesNameTheRule() {
    let cases: [(String, String)] = [
      ("FREQ=FORTNIGHTLY", "invalid repeat 'FREQ=FORTNIGHTLY': unknown FREQ; use DAILY, WEEKLY, MONTHLY or YEARLY"),
      ("FREQ=HOURLY", "invalid repeat 'FREQ=HOURLY': FREQ=HOURLY is not supported; tasks repeat by days"),
      ("FREQ=DAILY;BYHOUR=9", "invalid repeat 'FREQ=DAILY;BYHOUR=9': BYHOUR is not supported"),
      ("FREQ=YEARLY;BYWEEKNO=20", "invalid repeat 'FREQ=YEARLY;BYWEEKNO=20': BYWEEKNO is not supported"),
      ("INTERVAL=2", "invalid repeat 'INTERVAL=2': FREQ is missing"),
      ("", "invalid repeat '': FREQ is missing"),
      ("FREQ=DAILY;INTERVAL=0", "invalid repeat 'FREQ=DAILY;INTERVAL=0': INTERVAL must be a whole number >= 1"),
      ("FREQ=DAILY;COUNT=x", "invalid repeat 'FREQ=DAILY;COUNT=x': COUNT must be a whole number >= 1"),
      ("FREQ=DAILY;FREQ=WEEKLY", "invalid repeat 'FREQ=DAILY;FREQ=WEEKLY': FREQ is given twice"),
      ("FREQ=DAILY;FOO=1", "invalid repeat 'FREQ=DAILY;FOO=1': unknown part FOO"),
      ("FREQ=DAILY;BYDAY", "invalid repeat 'FREQ=DAILY;BYDAY': 'BYDAY' is not NAME=VALUE"),
      ("FREQ=DAILY;BYDAY=", "invalid repeat 'FREQ=DAILY;BYDAY=': BYDAY has no value"),
      (
        "FREQ=WEEKLY;BYDAY=XX",
        "invalid repeat 'FREQ=WEEKLY;BYDAY=XX': BYDAY value 'XX' is not a weekday (MO...SU, optionally after an "
          + "ordinal such as 1 or -1)"
      ),
      (
        "FREQ=WEEKLY;BYDAY=1MO",
        "invalid repeat 'FREQ=WEEKLY;BYDAY=1MO': BYDAY ordinals such as 1MO need FREQ=MONTHLY or YEARLY"
      ),
      (
        "FREQ=MONTHLY;BYDAY=0MO",
        "invalid repeat 'FREQ=MONTHLY;BYDAY=0MO': BYDAY value '0MO' is not a weekday (MO...SU, optionally after an "
          + "ordinal such as 1 or -1)"
      ),
      (
        "FREQ=MONTHLY;BYMONTHDAY=32",
        "invalid repeat 'FREQ=MONTHLY;BYMONTHDAY=32': BYMONTHDAY value '32' is not a whole number in -31...31 "
          + "other than 0"
      ),
      (
        "FREQ=YEARLY;BYMONTH=13",
        "invalid repeat 'FREQ=YEARLY;BYMONTH=13': BYMONTH value '13' is not a whole number in 1...12 other than 0"
      ),
      (
        "FREQ=WEEKLY;BYMONTHDAY=1",
        "invalid repeat 'FREQ=WEEKLY;BYMONTHDAY=1': BYMONTHDAY cannot be used with FREQ=WEEKLY"
      ),
      (
        "FREQ=MONTHLY;BYSETPOS=1",
        "invalid repeat 'FREQ=MONTHLY;BYSETPOS=1': BYSETPOS needs BYDAY, BYMONTHDAY or BYMONTH"
      ),
      (
        "FREQ=DAILY;COUNT=2;UNTIL=20270101",
        "invalid repeat 'FREQ=DAILY;COUNT=2;UNTIL=20270101': COUNT and UNTIL cannot both be given"
      ),
      (
        "FREQ=DAILY;UNTIL=20270230",
        "invalid repeat 'FREQ=DAILY;UNTIL=20270230': UNTIL must be YYYYMMDD or YYYYMMDDTHHMMSS[Z]"
      ),
      (
        "DTSTART:2025;FREQ=DAILY",
        "invalid repeat 'DTSTART:2025;FREQ=DAILY': DTSTART must be YYYYMMDD or YYYYMMDDTHHMMSS"
      ),
      ("FREQ=DAILY;WKST=XY", "invalid repeat 'FREQ=DAILY;WKST=XY': WKST must be one of MO, TU, WE, TH, FR, SA, SU"),
    ]
    XCTAssertEqual(
      RecurrenceError(text: "DTSTART:20250101\r\nRRULE:FREQ=X", message: "m").description,
      "invalid repeat 'DTSTART:20250101 RRULE:FREQ=X': m")
    for (text, description) in cases {
      XCTAssertThrowsError(try rule(text), text) { error in
        XCTAssertEqual((error as? RecurrenceError)?.text, text)
        XCTAssertEqual((error as? RecurrenceError)?.description, description)
      }
    }
  }

  // MARK: What people type

  func parse(_ text: String) throws -> Recurrence {
    let parsed = try Recurrence.parse(userText: text)
    XCTAssertNil(parsed.anchor, text)
    return parsed.rule
  }

  func testSingleWordForms() throws {
    XCTAssertEqual(try parse("daily").rrule, "FREQ=DAILY")
    XCTAssertEqual(try parse("Weekly").rrule, "FREQ=WEEKLY")
    XCTAssertEqual(try parse("monthly").rrule, "FREQ=MONTHLY")
    XCTAssertEqual(try parse("yearly").rrule, "FREQ=YEARLY")
    XCTAssertEqual(try parse("weekdays").rrule, "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
  }

  func testEveryUnit() throws {
    XCTAssertEqual(try parse("every day").rrule, "FREQ=DAILY")
    XCTAssertEqual(try parse("every 3 days").rrule, "FREQ=DAILY;INTERVAL=3")
    XCTAssertEqual(try parse("every week").rrule, "FREQ=WEEKLY")
    XCTAssertEqual(try parse("every 2 weeks").rrule, "FREQ=WEEKLY;INTERVAL=2")
    XCTAssertEqual(try parse("every month").rrule, "FREQ=MONTHLY")
    XCTAssertEqual(try parse("every 3 months").rrule, "FREQ=MONTHLY;INTERVAL=3")
    XCTAssertEqual(try parse("every year").rrule, "FREQ=YEARLY")
    XCTAssertEqual(try parse("every 2 years").rrule, "FREQ=YEARLY;INTERVAL=2")
    XCTAssertEqual(try parse("  Every   Day ").rrule, "FREQ=DAILY")
  }

  func testWeekdaysAndWeekends() throws {
    XCTAssertEqual(try parse("every weekday").rrule, "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
    XCTAssertEqual(try parse("every weekend").rrule, "FREQ=WEEKLY;BYDAY=SA,SU")
  }

  func testEveryNamedWeekday() throws {
    XCTAssertEqual(try parse("every monday").rrule, "FREQ=WEEKLY;BYDAY=MO")
    XCTAssertEqual(try parse("every mon, wed and fri").rrule, "FREQ=WEEKLY;BYDAY=MO,WE,FR")
    XCTAssertEqual(try parse("every Tuesday and Thursday").rrule, "FREQ=WEEKLY;BYDAY=TU,TH")
  }

  func testEveryWeekOn() throws {
    XCTAssertEqual(try parse("every week on Monday").rrule, "FREQ=WEEKLY;BYDAY=MO")
    XCTAssertEqual(try parse("every week on Tuesday, Friday").rrule, "FREQ=WEEKLY;BYDAY=TU,FR")
    XCTAssertEqual(try parse("every 2 weeks on monday").rrule, "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO")
    XCTAssertEqual(try parse("every week on Sunday").rrule, "FREQ=WEEKLY;BYDAY=SU")
  }

  func testEveryMonthOn() throws {
    XCTAssertEqual(try parse("every month on the 15th").rrule, "FREQ=MONTHLY;BYMONTHDAY=15")
    XCTAssertEqual(try parse("every month on the 1st").rrule, "FREQ=MONTHLY;BYMONTHDAY=1")
    XCTAssertEqual(try parse("every month on the 1st and 15th").rrule, "FREQ=MONTHLY;BYMONTHDAY=1,15")
    XCTAssertEqual(try parse("every month on the last").rrule, "FREQ=MONTHLY;BYMONTHDAY=-1")
    XCTAssertEqual(try parse("every month on the last day").rrule, "FREQ=MONTHLY;BYMONTHDAY=-1")
    XCTAssertEqual(try parse("every month on the last friday").rrule, "FREQ=MONTHLY;BYDAY=-1FR")
    XCTAssertEqual(try parse("every month on the 2nd tuesday").rrule, "FREQ=MONTHLY;BYDAY=2TU")
    XCTAssertEqual(try parse("every month on the first monday").rrule, "FREQ=MONTHLY;BYDAY=1MO")
    XCTAssertEqual(try parse("every month on the last weekday").rrule, "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1")
    XCTAssertEqual(try parse("every 3 months on the 15th").rrule, "FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=15")
  }

  func testEveryYearOn() throws {
    XCTAssertEqual(try parse("every year on december 25").rrule, "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25")
    XCTAssertEqual(try parse("every january 1").rrule, "FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1")
    XCTAssertEqual(try parse("every Jan 1st").rrule, "FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1")
    XCTAssertEqual(try parse("every year on the 4th thursday of november").rrule, "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH")
  }

  func testObsidianTasksText() throws {
    XCTAssertEqual(try parse("every week").rrule, "FREQ=WEEKLY")
    XCTAssertEqual(try parse("every 2 days").rrule, "FREQ=DAILY;INTERVAL=2")
    XCTAssertEqual(try parse("every month on the 1st").rrule, "FREQ=MONTHLY;BYMONTHDAY=1")
    XCTAssertEqual(try parse("every year").rrule, "FREQ=YEARLY")
    XCTAssertEqual(try parse("🔁 every 3 months on the 15th").rrule, "FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=15")
  }

  func testWhenDoneAnchorsOnCompletion() throws {
    let parsed = try Recurrence.parse(userText: "every 3 days when done")
    XCTAssertEqual(parsed.rule.rrule, "FREQ=DAILY;INTERVAL=3")
    XCTAssertEqual(parsed.anchor, .completion)
    XCTAssertEqual(try Recurrence.parse(userText: "every week on Monday When Done").anchor, .completion)
    XCTAssertEqual(try Recurrence.parse(userText: "daily when done").rule.rrule, "FREQ=DAILY")
    let rrule = try Recurrence.parse(userText: "FREQ=WEEKLY;BYDAY=MO when done")
    XCTAssertEqual(rrule.rule.rrule, "FREQ=WEEKLY;BYDAY=MO")
    XCTAssertEqual(rrule.anchor, .completion)
  }

  func testRRULEsAreReadToo() throws {
    XCTAssertEqual(try parse("FREQ=WEEKLY;BYDAY=MO"), try rule("FREQ=WEEKLY;BYDAY=MO"))
    XCTAssertEqual(try parse("rrule:freq=daily").rrule, "FREQ=DAILY")
    XCTAssertEqual(try parse("DTSTART:20250101;FREQ=DAILY").start, day("2025-01-01"))
    XCTAssertThrowsError(try parse("FREQ=FORTNIGHTLY")) { error in
      XCTAssertEqual((error as? RecurrenceError)?.message, "unknown FREQ; use DAILY, WEEKLY, MONTHLY or YEARLY")
    }
  }

  func testUnreadableTextIsAnErrorNamingIt() {
    for text in [
      "", "every", "sometimes", "every 0 days", "every fortnight", "every 2 weekdays", "every day on monday",
      "every week on the 1st", "every week on the 2nd monday", "every year on the 15th", "every month in january",
      "every month on the 32nd", "every monday on the 1st", "when done", "every 1234567890 days",
      "every month on the 54th tuesday",
    ] {
      XCTAssertThrowsError(try Recurrence.parse(userText: text), "'\(text)'") { error in
        XCTAssertEqual((error as? RecurrenceError)?.text, text)
        XCTAssertTrue((error as? RecurrenceError)?.description.hasPrefix("invalid repeat '\(text)': ") ?? false)
      }
    }
  }

  // MARK: Summaries

  func testSummaries() throws {
    let expected: [(String, String)] = [
      ("FREQ=DAILY", "every day"),
      ("FREQ=DAILY;INTERVAL=3", "every 3 days"),
      ("FREQ=WEEKLY", "every week"),
      ("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO", "every 2 weeks on Monday"),
      ("FREQ=WEEKLY;BYDAY=MO,WE,FR", "every week on Monday, Wednesday and Friday"),
      ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "every weekday"),
      ("FREQ=WEEKLY;BYDAY=SA,SU", "every weekend"),
      (
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR",
        "every 2 weeks on Monday, Tuesday, Wednesday, Thursday and Friday"
      ),
      ("FREQ=MONTHLY", "every month"),
      ("FREQ=MONTHLY;BYMONTHDAY=15", "every month on the 15th"),
      ("FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=1,22", "every 3 months on the 1st and the 22nd"),
      ("FREQ=MONTHLY;BYMONTHDAY=-1", "every month on the last"),
      ("FREQ=MONTHLY;BYDAY=-1FR", "every month on the last Friday"),
      ("FREQ=MONTHLY;BYDAY=2TU", "every month on the 2nd Tuesday"),
      ("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "every month on the last weekday"),
      ("FREQ=YEARLY", "every year"),
      ("FREQ=YEARLY;INTERVAL=2;BYMONTH=12;BYMONTHDAY=25", "every 2 years on December 25"),
      ("FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", "every year on the 4th Thursday of November"),
      ("FREQ=DAILY;COUNT=5", "FREQ=DAILY;COUNT=5"),
      ("FREQ=WEEKLY;UNTIL=20270101", "FREQ=WEEKLY;UNTIL=20270101"),
      ("FREQ=MONTHLY;BYMONTHDAY=-2", "FREQ=MONTHLY;BYMONTHDAY=-2"),
      ("FREQ=MONTHLY;BYDAY=TU", "FREQ=MONTHLY;BYDAY=TU"),
      ("FREQ=DAILY;BYMONTH=2", "FREQ=DAILY;BYMONTH=2"),
    ]
    for (text, summary) in expected {
      let original = try rule(text)
      XCTAssertEqual(original.summary, summary, text)
      XCTAssertEqual(try Recurrence.parse(userText: original.summary).rule, original, text)
    }
  }

  // MARK: Occurrences

  func testDaily() throws {
    XCTAssertEqual(try occurrences("FREQ=DAILY", from: "2026-11-24", 2), ["2026-11-25", "2026-11-26"])
    XCTAssertEqual(
      try occurrences("FREQ=DAILY;INTERVAL=3", from: "2026-11-24", 3), ["2026-11-27", "2026-11-30", "2026-12-03"])
    XCTAssertEqual(
      try occurrences("FREQ=DAILY;BYMONTH=2", from: "2026-11-24", 3), ["2027-02-01", "2027-02-02", "2027-02-03"])
    XCTAssertEqual(
      try occurrences("FREQ=DAILY;INTERVAL=2;BYDAY=SA", from: "2026-11-24", 3),
      ["2026-11-28", "2026-12-12", "2026-12-26"])
    // A date far past the start: the next day in step with the start (2000-01-01 plus multiples of 7).
    XCTAssertEqual(
      try rule("FREQ=DAILY;INTERVAL=7").next(after: day("2026-11-24"), seriesStart: day("2000-01-01")),
      day("2026-11-28"))
  }

  func testWeekly() throws {
    XCTAssertEqual(try occurrences("FREQ=WEEKLY", from: "2026-11-24", 2), ["2026-12-01", "2026-12-08"])
    XCTAssertEqual(
      try occurrences("FREQ=WEEKLY;BYDAY=MO,WE,FR", from: "2026-11-24", 5),
      ["2026-11-25", "2026-11-27", "2026-11-30", "2026-12-02", "2026-12-04"])
    // Weeks start on Monday and are counted from the start's week: the Thursday of the start's week comes first.
    XCTAssertEqual(
      try occurrences("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", from: "2026-11-25", 6),
      ["2026-11-26", "2026-12-07", "2026-12-10", "2026-12-21", "2026-12-24", "2027-01-04"])
    XCTAssertEqual(
      try occurrences("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO", from: "2026-11-25", 2), ["2026-12-07", "2026-12-21"])
    XCTAssertEqual(try occurrences("FREQ=WEEKLY;BYMONTH=12", from: "2026-11-24", 2), ["2026-12-01", "2026-12-08"])
    XCTAssertEqual(
      try rule("FREQ=WEEKLY;BYDAY=MO").next(after: day("2030-01-01"), seriesStart: day("2026-11-30")), day("2030-01-07")
    )
    XCTAssertEqual(
      try rule("FREQ=WEEKLY;INTERVAL=3;BYDAY=SU").next(after: day("2026-11-24"), seriesStart: day("2026-01-04")),
      day("2026-12-06"))
  }

  func testMonthly() throws {
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=15", from: "2026-11-15", 3),
      ["2027-02-15", "2027-05-15", "2027-08-15"])
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=15", from: "2026-11-20", 2), ["2027-01-15", "2027-03-15"])
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;BYMONTH=1,7;BYMONTHDAY=1", from: "2026-11-24", 3),
      ["2027-01-01", "2027-07-01", "2028-01-01"])
    XCTAssertEqual(try occurrences("FREQ=MONTHLY", from: "2026-11-24", 3), ["2026-12-24", "2027-01-24", "2027-02-24"])
  }

  func testExplicitMonthDaysTheMonthLacksAreSkipped() throws {
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;BYMONTHDAY=31", from: "2026-01-31", 5),
      ["2026-03-31", "2026-05-31", "2026-07-31", "2026-08-31", "2026-10-31"])
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;BYMONTHDAY=30", from: "2026-01-30", 3), ["2026-03-30", "2026-04-30", "2026-05-30"])
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;BYMONTHDAY=-1", from: "2026-01-31", 3), ["2026-02-28", "2026-03-31", "2026-04-30"])
    XCTAssertEqual(try occurrences("FREQ=MONTHLY;BYMONTHDAY=-1", from: "2028-01-31", 1), ["2028-02-29"])
    // 2100 is not a leap year (divisible by 100, not 400): the next Feb 29 after 2096 is 2104.
    XCTAssertEqual(
      try occurrences("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", from: "2096-02-29", 2), ["2104-02-29", "2108-02-29"])
  }

  func testImpliedMonthDaysAreClampedToTheMonthsEnd() throws {
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY", from: "2026-01-31", 5),
      ["2026-02-28", "2026-03-31", "2026-04-30", "2026-05-31", "2026-06-30"])
    XCTAssertEqual(try occurrences("FREQ=MONTHLY", from: "2028-01-31", 2), ["2028-02-29", "2028-03-31"])
    XCTAssertEqual(try occurrences("FREQ=MONTHLY", from: "2026-01-30", 2), ["2026-02-28", "2026-03-30"])
    XCTAssertEqual(try occurrences("FREQ=MONTHLY;INTERVAL=2", from: "2026-12-31", 2), ["2027-02-28", "2027-04-30"])
    XCTAssertEqual(try occurrences("FREQ=YEARLY;BYMONTH=4,5", from: "2026-01-31", 2), ["2026-04-30", "2026-05-31"])
  }

  func testYearlyFromFebruary29() throws {
    XCTAssertEqual(
      try occurrences("FREQ=YEARLY", from: "2028-02-29", 4), ["2029-02-28", "2030-02-28", "2031-02-28", "2032-02-29"])
    // 2100 is not a leap year; 2000 is (divisible by 400).
    XCTAssertEqual(try occurrences("FREQ=YEARLY;INTERVAL=4", from: "2096-02-29", 2), ["2100-02-28", "2104-02-29"])
    XCTAssertEqual(try occurrences("FREQ=YEARLY;INTERVAL=4", from: "1996-02-29", 2), ["2000-02-29", "2004-02-29"])
    XCTAssertEqual(try occurrences("FREQ=YEARLY;INTERVAL=2", from: "2026-03-15", 2), ["2028-03-15", "2030-03-15"])
  }

  func testOrdinalWeekdays() throws {
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;BYDAY=2TU", from: "2026-11-10", 3), ["2026-12-08", "2027-01-12", "2027-02-09"])
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;BYDAY=-1FR", from: "2026-11-27", 3), ["2026-12-25", "2027-01-29", "2027-02-26"])
    XCTAssertEqual(
      try occurrences("FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", from: "2026-11-26", 3),
      ["2027-11-25", "2028-11-23", "2029-11-22"])
    XCTAssertEqual(try occurrences("FREQ=YEARLY;BYDAY=20MO", from: "2026-05-18", 2), ["2027-05-17", "2028-05-15"])
    XCTAssertEqual(
      try occurrences("FREQ=YEARLY;BYMONTH=1,7;BYDAY=1MO", from: "2026-11-24", 3),
      ["2027-01-04", "2027-07-05", "2028-01-03"])
    // Friday the 13th: BYDAY and BYMONTHDAY both limit.
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", from: "2026-11-13", 3),
      ["2027-08-13", "2028-10-13", "2029-04-13"])
    XCTAssertEqual(
      try rule("FREQ=MONTHLY;BYDAY=-1FR").next(after: day("2026-11-27"), seriesStart: day("1990-01-26")),
      day("2026-12-25"))
  }

  func testBySetPos() throws {
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", from: "2026-11-30", 4),
      ["2026-12-31", "2027-01-29", "2027-02-26", "2027-03-31"])
    XCTAssertEqual(
      try occurrences("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1,-1", from: "2026-12-01", 3),
      ["2026-12-31", "2027-01-01", "2027-01-29"])
  }

  func testCountEndsTheSeries() throws {
    let weekly = try rule("FREQ=WEEKLY;COUNT=3;BYDAY=TU")
    let start = day("2026-11-24")
    XCTAssertEqual(weekly.next(after: start, seriesStart: start), day("2026-12-01"))
    XCTAssertEqual(weekly.next(after: day("2026-12-01"), seriesStart: start), day("2026-12-08"))
    XCTAssertNil(weekly.next(after: day("2026-12-08"), seriesStart: start))
    XCTAssertNil(weekly.next(after: day("2027-06-01"), seriesStart: start))
    XCTAssertNil(try rule("FREQ=DAILY;COUNT=1").next(after: start, seriesStart: start))
    // The start is the first occurrence even when the rule would not produce it (a Wednesday for Mondays).
    let unsynced = try rule("FREQ=WEEKLY;COUNT=2;BYDAY=MO")
    XCTAssertEqual(unsynced.next(after: day("2026-11-25"), seriesStart: day("2026-11-25")), day("2026-11-30"))
    XCTAssertNil(unsynced.next(after: day("2026-11-30"), seriesStart: day("2026-11-25")))
    // dateutil: the 10 000th day from 2000-01-01 is 2027-05-18.
    let long = try rule("FREQ=DAILY;COUNT=10000")
    XCTAssertEqual(long.next(after: day("2026-11-24"), seriesStart: day("2000-01-01")), day("2026-11-25"))
    XCTAssertEqual(long.next(after: day("2027-05-17"), seriesStart: day("2000-01-01")), day("2027-05-18"))
    XCTAssertNil(long.next(after: day("2027-05-18"), seriesStart: day("2000-01-01")))
  }

  func testUntilEndsTheSeries() throws {
    let daily = try rule("FREQ=DAILY;UNTIL=20261127")
    let start = day("2026-11-24")
    XCTAssertEqual(daily.next(after: day("2026-11-26"), seriesStart: start), day("2026-11-27"))
    XCTAssertNil(daily.next(after: day("2026-11-27"), seriesStart: start))
    XCTAssertNil(try rule("FREQ=MONTHLY;UNTIL=20261231").next(after: day("2026-12-24"), seriesStart: start))
  }

  func testADayBeforeTheStartGivesTheStart() throws {
    XCTAssertEqual(
      try rule("FREQ=WEEKLY;BYDAY=MO").next(after: day("2026-11-01"), seriesStart: day("2026-11-25")), day("2026-11-25")
    )
    XCTAssertNil(try rule("FREQ=DAILY;UNTIL=20261101").next(after: day("2026-10-01"), seriesStart: day("2026-11-25")))
  }

  func testRulesThatNeverMatchEndQuickly() throws {
    let start = Date()
    XCTAssertNil(
      try rule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31").next(after: day("2026-11-24"), seriesStart: day("2026-11-24")))
    XCTAssertNil(
      try rule("FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=30").next(after: day("2026-11-24"), seriesStart: day("2026-11-24")))
    XCTAssertNil(
      try rule("FREQ=WEEKLY;BYMONTH=2;BYDAY=MO;BYSETPOS=3").next(
        after: day("2026-11-24"), seriesStart: day("2026-11-24")))
    XCTAssertNil(
      try rule("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31").next(after: day("2026-11-24"), seriesStart: day("2026-11-24")))
    XCTAssertNil(
      try rule("FREQ=DAILY;BYMONTHDAY=31;BYDAY=MO;BYSETPOS=2").next(
        after: day("2026-11-24"), seriesStart: day("2026-11-24")))
    XCTAssertNil(
      try rule("FREQ=MONTHLY;COUNT=5;BYMONTHDAY=31;BYMONTH=4").next(
        after: day("2026-11-24"), seriesStart: day("2026-11-24")))
    XCTAssertLessThan(Date().timeIntervalSince(start), 5)
  }

  func testValuesSetByHandDoNotTrap() {
    var odd = Recurrence(frequency: .monthly, interval: 0, byDay: [.init(ordinal: 0, weekday: 9)], byMonthDay: [0, 99])
    odd.byMonth = [13]
    odd.bySetPos = [0]
    _ = odd.next(after: day("2026-11-24"), seriesStart: day("2026-11-24"))
    _ = odd.rrule
    _ = odd.summary
    odd.interval = Int.max
    XCTAssertNil(odd.next(after: day("2026-11-24"), seriesStart: day("2026-11-24")))
    XCTAssertNil(Recurrence(frequency: .daily, count: 0).next(after: day("2026-11-24"), seriesStart: day("2026-11-24")))
  }

  /// Random rules (seeded) whose every day is named explicitly or by a start day that exists in every month, so
  /// nb's clamping does not apply, and whose start is an occurrence where COUNT or UNTIL ends them (dateutil does not
  /// count an unsynchronised start): "rule|seriesStart|after|next", worked out by python3's dateutil `rrule.after`.
  /// Yearly rules mixing plain and ordinal BYDAY entries (`SU,2TU`) were left out: dateutil yields nothing for them.
  func testAgreesWithDateutilOnRandomRules() throws {
    let cases = [
      "FREQ=WEEKLY;BYDAY=SU,SA,TU|2002-04-19|2002-04-24|2002-04-27",
      "FREQ=WEEKLY;INTERVAL=12;BYDAY=MO,TU,TH;BYMONTH=12|2019-05-10|2019-05-11|2020-12-14",
      "FREQ=MONTHLY;INTERVAL=7;BYMONTHDAY=29|2019-08-14|2019-08-14|2019-08-29",
      "FREQ=MONTHLY;BYMONTHDAY=9,-2;COUNT=1|2010-01-30|2010-01-30|nil",
      "FREQ=DAILY|2015-12-10|2015-12-15|2015-12-16",
      "FREQ=YEARLY;BYDAY=3SU,1TU;BYMONTH=4,12;COUNT=3|2034-04-16|2034-05-26|2034-12-05",
      "FREQ=YEARLY;INTERVAL=2;BYDAY=-2FR,1MO;BYMONTH=8,3;COUNT=12|2025-03-03|2025-03-08|2025-03-21",
      "FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=6,1;COUNT=9|1999-01-06|1999-01-07|1999-06-01",
      "FREQ=WEEKLY;BYDAY=MO,TU,SU;BYMONTH=6;UNTIL=20170323|2016-06-05|2016-06-10|2016-06-12",
      "FREQ=WEEKLY;BYDAY=TH|2011-03-15|2011-03-16|2011-03-17",
      "FREQ=DAILY;INTERVAL=2|2010-02-24|2011-03-31|2011-04-02",
      "FREQ=DAILY;BYMONTHDAY=7;COUNT=11|2013-04-07|2013-05-17|2013-06-07",
      "FREQ=WEEKLY;BYDAY=SA|2033-12-07|2033-12-07|2033-12-10",
      "FREQ=DAILY;INTERVAL=7;BYDAY=SA,MO|2009-06-04|2009-06-04|nil",
      "FREQ=DAILY;INTERVAL=3;BYMONTHDAY=10|2000-11-25|2000-11-26|2000-12-10",
      "FREQ=YEARLY;BYMONTHDAY=9,22;COUNT=10|2025-02-09|2025-02-10|2025-02-22",
      "FREQ=DAILY;COUNT=11|2008-10-04|2008-10-05|2008-10-06",
      "FREQ=DAILY;INTERVAL=4;BYMONTH=9|2017-05-14|2018-06-18|2018-09-02",
      "FREQ=DAILY;INTERVAL=7;BYMONTH=6|2011-11-25|2011-11-25|2012-06-01",
      "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=27|1996-08-30|1996-08-30|1997-08-27",
      "FREQ=YEARLY;BYDAY=3TH,-10FR,-2FR;UNTIL=20060924|2005-10-28|2005-10-29|2005-12-23",
      "FREQ=WEEKLY;INTERVAL=2|2029-11-14|2029-12-24|2029-12-26",
      "FREQ=DAILY;INTERVAL=12;BYDAY=TH,WE|2003-01-19|2003-01-20|2003-02-12",
      "FREQ=MONTHLY|2033-01-06|2033-02-15|2033-03-06",
      "FREQ=DAILY;INTERVAL=4;BYDAY=WE,SU|2030-12-30|2032-02-03|2032-02-11",
      "FREQ=YEARLY;BYDAY=5TH,4SA,-1TH;BYMONTH=12,10|2032-10-01|2032-10-06|2032-10-23",
      "FREQ=YEARLY;INTERVAL=4;BYMONTHDAY=20,11;COUNT=10|2010-04-11|2010-04-16|2010-04-20",
      "FREQ=DAILY;COUNT=3|2029-02-05|2030-03-12|nil",
      "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=5,21|2025-08-03|2025-08-04|2025-08-05",
      "FREQ=DAILY;COUNT=4|2006-03-04|2006-04-13|nil",
      "FREQ=YEARLY;BYDAY=20SA;BYSETPOS=1,-1;UNTIL=20240107|2022-05-14|2023-06-18|nil",
      "FREQ=MONTHLY;INTERVAL=7;BYDAY=TU;UNTIL=19970323|1996-12-10|1996-12-15|1996-12-17",
      "FREQ=DAILY;INTERVAL=7;COUNT=1|2005-07-30|2005-07-30|nil",
      "FREQ=YEARLY;BYMONTH=6;BYMONTHDAY=1|2032-06-10|2040-08-27|2041-06-01",
      "FREQ=MONTHLY;BYDAY=4FR,1FR|2026-11-04|2026-11-09|2026-11-27",
      "FREQ=WEEKLY;BYDAY=TH,SA,MO|2015-03-31|2015-04-01|2015-04-02",
      "FREQ=DAILY;BYDAY=WE,SA;UNTIL=20100715|2009-05-13|2009-05-14|2009-05-16",
      "FREQ=WEEKLY;INTERVAL=12;BYDAY=TH,FR;BYSETPOS=1;UNTIL=20000116|1998-04-30|1998-04-30|1998-07-23",
      "FREQ=MONTHLY;BYDAY=2TU,1WE|2034-07-09|2035-08-13|2035-08-14",
      "FREQ=DAILY;UNTIL=20030615|2003-04-11|2003-04-12|2003-04-13",
      "FREQ=MONTHLY;INTERVAL=4;BYDAY=2FR,3TU;BYSETPOS=1,-1;UNTIL=20111015|2010-10-08|2010-10-13|2010-10-19",
      "FREQ=DAILY;INTERVAL=7|2006-08-29|2014-11-15|2014-11-18",
      "FREQ=YEARLY;INTERVAL=12;BYMONTHDAY=27;BYMONTH=4,1|2008-05-05|2016-07-22|2020-01-27",
      "FREQ=YEARLY;BYMONTH=5;BYMONTHDAY=18|2019-06-18|2019-06-18|2020-05-18",
      "FREQ=WEEKLY;BYDAY=TH,FR;BYMONTH=4|2012-03-02|2012-03-02|2012-04-05",
      "FREQ=DAILY;INTERVAL=4;BYMONTHDAY=21|1999-01-12|2007-03-31|2007-07-21",
      "FREQ=YEARLY;BYMONTHDAY=9,-31;BYMONTH=4,4|2019-03-10|2019-04-19|2020-04-09",
      "FREQ=YEARLY;INTERVAL=3;BYMONTH=6,2;BYMONTHDAY=17|2011-06-15|2011-07-25|2014-02-17",
      "FREQ=YEARLY;BYMONTHDAY=21,7;BYMONTH=2,5|2006-05-24|2007-06-28|2008-02-07",
      "FREQ=WEEKLY;BYDAY=FR,TU|2011-04-18|2011-05-28|2011-05-31",
      "FREQ=YEARLY;BYMONTHDAY=26,7|2023-03-26|2023-03-26|2023-04-07",
      "FREQ=DAILY|2008-11-07|2008-11-07|2008-11-08",
      "FREQ=DAILY;INTERVAL=2|2003-11-26|2003-11-26|2003-11-28",
      "FREQ=DAILY;INTERVAL=12|2013-01-22|2014-02-26|2014-03-06",
      "FREQ=YEARLY;BYMONTHDAY=31,2|2008-08-08|2008-08-08|2008-08-31",
      "FREQ=YEARLY;BYMONTH=8,8;BYMONTHDAY=22;COUNT=9|2009-08-22|2009-08-22|2010-08-22",
      "FREQ=MONTHLY;BYDAY=4SA;UNTIL=20250120|2023-10-28|2023-12-07|2023-12-23",
      "FREQ=DAILY|2000-01-05|2001-02-08|2001-02-09",
      "FREQ=MONTHLY;BYMONTHDAY=19|2021-08-17|2021-09-26|2021-10-19",
      "FREQ=DAILY;INTERVAL=7;UNTIL=20340927|2032-09-27|2032-10-02|2032-10-04",
      "FREQ=MONTHLY|2014-04-26|2022-07-13|2022-07-26",
      "FREQ=WEEKLY;BYDAY=TH,MO;COUNT=12|2029-08-09|2030-09-13|nil",
      "FREQ=MONTHLY;BYDAY=5SA,3SU|2001-03-11|2001-03-16|2001-03-18",
      "FREQ=DAILY|1999-04-26|1999-04-27|1999-04-28",
      "FREQ=MONTHLY;BYMONTHDAY=8|2032-11-13|2033-12-18|2034-01-08",
      "FREQ=DAILY;INTERVAL=4;UNTIL=20300825|2029-03-29|2037-06-15|nil",
      "FREQ=WEEKLY|2012-01-08|2013-02-11|2013-02-17",
      "FREQ=DAILY;INTERVAL=2|2001-12-30|2010-03-18|2010-03-20",
      "FREQ=WEEKLY;INTERVAL=5;BYDAY=SU|2015-03-18|2015-03-18|2015-03-22",
      "FREQ=MONTHLY;BYMONTHDAY=2,1;COUNT=2|2005-11-01|2005-12-11|nil",
      "FREQ=YEARLY;BYMONTH=8;BYMONTHDAY=18|2029-07-18|2037-10-04|2038-08-18",
      "FREQ=DAILY;INTERVAL=5|2027-05-29|2027-06-03|2027-06-08",
      "FREQ=WEEKLY;BYDAY=MO,SU,SA;UNTIL=20010212|2000-03-27|2000-05-06|2000-05-07",
      "FREQ=YEARLY;BYMONTHDAY=6,14;BYMONTH=1|2024-05-24|2024-05-24|2025-01-06",
      "FREQ=DAILY;COUNT=5|2034-12-23|2036-01-27|nil",
      "FREQ=WEEKLY;BYDAY=MO|1996-10-17|1996-10-17|1996-10-21",
      "FREQ=MONTHLY;BYMONTHDAY=4;UNTIL=20291013|2028-06-04|2028-06-04|2028-07-04",
      "FREQ=YEARLY;INTERVAL=12;BYDAY=-2SU;BYSETPOS=1;BYMONTH=7;UNTIL=20010428|2011-07-24|2011-07-24|nil",
      "FREQ=DAILY;INTERVAL=2|2018-07-09|2018-07-14|2018-07-15",
      "FREQ=WEEKLY;INTERVAL=3;BYDAY=SU,WE,MO|2017-12-13|2026-03-01|2026-03-02",
      "FREQ=WEEKLY;BYDAY=WE,TU,TH;BYSETPOS=1;COUNT=6|2015-08-11|2015-09-20|nil",
      "FREQ=MONTHLY;INTERVAL=3|2010-12-26|2019-03-14|2019-03-26",
      "FREQ=MONTHLY|2022-02-10|2030-04-29|2030-05-10",
      "FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=24,14;UNTIL=20020921|2001-05-24|2001-05-25|2001-10-14",
      "FREQ=WEEKLY;COUNT=4|2004-11-24|2005-01-03|nil",
      "FREQ=MONTHLY;BYDAY=4FR,4FR;UNTIL=20080519|2008-03-28|2016-06-14|nil",
      "FREQ=WEEKLY;INTERVAL=5;BYDAY=SA,WE|1998-10-12|1998-11-21|1998-12-23",
      "FREQ=MONTHLY;INTERVAL=2;UNTIL=20060208|2004-06-21|2004-06-22|2004-08-21",
      "FREQ=DAILY;INTERVAL=3;BYMONTHDAY=19|2026-06-11|2034-08-28|2035-01-19",
      "FREQ=YEARLY;INTERVAL=4;BYMONTH=11,6;BYMONTHDAY=17;UNTIL=20091012|2008-11-17|2008-11-18|nil",
      "FREQ=YEARLY;INTERVAL=12;BYDAY=4SA,5SA|2024-09-27|2024-09-27|2036-01-26",
      "FREQ=MONTHLY;BYMONTHDAY=-31,18|1996-06-20|1996-06-20|1996-07-01",
      "FREQ=WEEKLY;INTERVAL=3;BYDAY=WE,TH;BYSETPOS=1;BYMONTH=12;UNTIL=20061119|2005-12-14|2006-01-23|nil",
      "FREQ=MONTHLY;INTERVAL=2;BYDAY=3MO,2FR|2014-05-19|2014-06-28|2014-07-11",
      "FREQ=WEEKLY;BYDAY=TU,SU;BYSETPOS=-1;BYMONTH=8|2017-10-23|2017-10-24|2018-08-05",
      "FREQ=DAILY;COUNT=6|2027-12-10|2036-02-26|nil",
      "FREQ=MONTHLY;INTERVAL=7;BYMONTHDAY=18,13|2011-08-02|2011-08-02|2011-08-13",
      "FREQ=MONTHLY;BYMONTHDAY=14|2004-05-30|2004-06-04|2004-06-14",
      "FREQ=MONTHLY;BYDAY=-1SU;COUNT=10|2013-03-31|2013-05-10|2013-05-26",
      "FREQ=YEARLY;BYMONTH=11;BYMONTHDAY=14|2010-04-28|2010-04-28|2010-11-14",
      "FREQ=DAILY;INTERVAL=4|2024-05-06|2032-07-23|2032-07-27",
      "FREQ=YEARLY;BYDAY=3FR,10TH;COUNT=6|2031-01-17|2032-02-21|2032-03-04",
      "FREQ=YEARLY;INTERVAL=7;BYMONTHDAY=14|2017-12-18|2017-12-23|2024-01-14",
      "FREQ=YEARLY;BYMONTHDAY=19,19;BYMONTH=4,8;UNTIL=20121107|2011-08-19|2011-09-28|2012-04-19",
      "FREQ=DAILY;BYMONTH=7|2003-01-19|2003-02-28|2003-07-01",
      "FREQ=YEARLY;BYDAY=5SA,5TH,1FR;BYMONTH=6|2030-03-07|2030-03-07|2030-06-07",
      "FREQ=WEEKLY;INTERVAL=2|2018-07-03|2018-07-04|2018-07-17",
      "FREQ=DAILY;INTERVAL=5;BYMONTH=3|2004-05-02|2004-05-02|2005-03-03",
      "FREQ=YEARLY;BYMONTHDAY=6,20|2003-06-04|2011-08-21|2011-09-06",
      "FREQ=YEARLY;BYDAY=5TH,-2TU|2002-03-16|2002-03-17|2002-12-24",
      "FREQ=DAILY;BYMONTHDAY=30|1996-08-09|1996-09-18|1996-09-30",
      "FREQ=YEARLY;BYDAY=3SA,4SA,-10TU;BYSETPOS=-1;BYMONTH=9;UNTIL=20010411|2000-09-23|2000-09-23|nil",
      "FREQ=YEARLY;INTERVAL=3;BYMONTH=7;BYMONTHDAY=2|2015-08-10|2015-08-15|2018-07-02",
      "FREQ=DAILY;UNTIL=20190104|2018-09-25|2018-09-30|2018-10-01",
      "FREQ=DAILY;COUNT=11|2021-01-15|2021-01-15|2021-01-16",
      "FREQ=WEEKLY;BYDAY=SU,MO|2003-03-17|2003-03-18|2003-03-23",
      "FREQ=WEEKLY;BYDAY=TU;COUNT=10|2027-10-26|2027-10-27|2027-11-02",
      "FREQ=WEEKLY|2028-04-18|2029-05-23|2029-05-29",
      "FREQ=DAILY;BYMONTHDAY=21|2020-03-01|2020-03-02|2020-03-21",
      "FREQ=DAILY;BYDAY=TU,WE|2033-08-24|2041-11-10|2041-11-12",
      "FREQ=MONTHLY;BYDAY=-2WE|1999-06-11|1999-06-16|1999-06-23",
      "FREQ=WEEKLY;INTERVAL=3|2019-04-05|2027-06-22|2027-06-25",
      "FREQ=WEEKLY;INTERVAL=12;BYDAY=SA,TU,SU|2016-08-05|2024-10-22|2024-11-12",
      "FREQ=DAILY;INTERVAL=3|2021-11-24|2021-11-29|2021-11-30",
      "FREQ=DAILY;BYMONTHDAY=12;UNTIL=20230611|2022-06-12|2022-06-13|2022-07-12",
      "FREQ=YEARLY;BYMONTHDAY=2;BYMONTH=3,5|2021-01-20|2021-01-21|2021-03-02",
      "FREQ=DAILY;INTERVAL=12|2025-10-09|2033-12-26|2034-01-07",
      "FREQ=YEARLY;INTERVAL=5;BYMONTHDAY=5;BYMONTH=3,4;COUNT=2|2029-03-05|2037-05-22|nil",
      "FREQ=YEARLY;INTERVAL=5;BYMONTH=4,3;BYMONTHDAY=25|2012-09-20|2012-09-21|2017-03-25",
      "FREQ=YEARLY;INTERVAL=4;BYDAY=3WE,4TH,20SU|2000-02-03|2000-02-03|2000-05-14",
      "FREQ=YEARLY;INTERVAL=3;BYMONTHDAY=2,30;BYMONTH=1,10;COUNT=10|2019-10-02|2020-11-05|2022-01-02",
      "FREQ=YEARLY;INTERVAL=4;BYDAY=-1TH,10MO;BYMONTH=4,1;UNTIL=20271221|2030-01-31|2030-01-31|nil",
      "FREQ=DAILY;INTERVAL=3;BYDAY=MO,FR|2008-09-06|2008-09-07|2008-09-12",
      "FREQ=DAILY;INTERVAL=3;UNTIL=19971030|1997-06-26|1997-08-05|1997-08-07",
      "FREQ=WEEKLY;INTERVAL=3;BYDAY=FR,SU|2011-04-13|2011-05-23|2011-05-27",
      "FREQ=WEEKLY;COUNT=4|2020-02-04|2020-02-09|2020-02-11",
      "FREQ=YEARLY;BYDAY=-1TH,-1TU;BYMONTH=7,1;UNTIL=20111216|2010-01-26|2010-01-26|2010-01-28",
      "FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=1;UNTIL=20211022|2019-09-01|2019-10-11|2019-11-01",
      "FREQ=YEARLY;INTERVAL=12;BYDAY=4MO;BYSETPOS=-1;BYMONTH=1|2033-07-21|2033-07-21|2045-01-23",
      "FREQ=DAILY;INTERVAL=2;UNTIL=19990413|1998-03-16|1998-03-21|1998-03-22",
      "FREQ=DAILY;INTERVAL=2;BYDAY=SA,FR;COUNT=2|2024-02-03|2025-03-09|nil",
      "FREQ=DAILY;INTERVAL=12;BYMONTH=2|2007-03-01|2007-04-10|2008-02-12",
      "FREQ=MONTHLY;INTERVAL=3;BYDAY=4WE,-2SU|2005-11-25|2005-11-25|2006-02-19",
      "FREQ=DAILY;INTERVAL=7|1995-05-22|1995-05-22|1995-05-29",
      "FREQ=MONTHLY;INTERVAL=4|2019-01-23|2019-01-23|2019-05-23",
      "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE|2003-07-17|2003-07-18|2003-07-28",
      "FREQ=YEARLY;BYMONTHDAY=26,15;BYMONTH=4,11;UNTIL=20350524|2034-04-15|2035-05-20|nil",
      "FREQ=DAILY;INTERVAL=7;BYMONTHDAY=25;UNTIL=20101022|2009-10-25|2009-10-26|2010-04-25",
      "FREQ=DAILY;BYDAY=SU,FR|1995-07-07|1995-08-16|1995-08-18",
      "FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=16,27|2005-02-09|2005-02-09|2005-02-16",
      "FREQ=YEARLY;INTERVAL=12;BYDAY=3TH;BYMONTH=6,9|2018-11-25|2018-11-25|2030-06-20",
      "FREQ=MONTHLY;INTERVAL=5|2003-06-16|2003-06-16|2003-11-16",
      "FREQ=DAILY|2016-09-28|2016-09-28|2016-09-29",
      "FREQ=DAILY;COUNT=4|2008-04-09|2008-05-19|nil",
      "FREQ=YEARLY;BYMONTHDAY=19,24;UNTIL=20170417|2015-05-19|2015-05-24|2015-06-19",
      "FREQ=MONTHLY;BYDAY=-2TU;COUNT=2|2020-09-22|2020-09-27|2020-10-20",
      "FREQ=DAILY;INTERVAL=5;BYMONTH=7|2013-11-25|2014-01-04|2014-07-03",
    ]
    for line in cases {
      let fields = line.split(separator: "|").map(String.init)
      let parsed = try rule(fields[0])
      let next = parsed.next(after: day(fields[2]), seriesStart: day(fields[1]))
      XCTAssertEqual(next?.iso ?? "nil", fields[3], line)
    }
  }

  func testRandomTextNeverTraps() {
    var random = SplitMix64(seed: 5545)
    let alphabet = Array(
      "FREQ=DAILYWEEKLYMONTHLYBYDAYMONTHSETPOSCOUNTUNTIL;,:-+0123456789 every on the last day weekTHMOFR")
    for _ in 0..<3000 {
      let text = String(
        (0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
      if let parsed = try? Recurrence.parse(userText: text) {
        _ = parsed.rule.summary
        _ = parsed.rule.next(after: day("2026-11-24"), seriesStart: day("2026-01-31"))
      }
    }
  }
}

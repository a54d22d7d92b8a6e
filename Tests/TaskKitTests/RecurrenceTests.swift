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
}

import NBTestSupport
import TaskKit
import XCTest

// Expected values worked out with `date` (GNU coreutils): 2026-11-24 is a Tuesday; `date -u -d
// 2026-11-24T15:00:00Z +%s` is 1795532400; Berlin is +01:00 in winter, +02:00 from 2026-03-29 02:00 to
// 2026-10-25 03:00; New York is -05:00 in winter, -04:00 until 2026-11-01 02:00.
final class DateArgumentTests: XCTestCase {
  /// 2026-11-24T15:00:00Z, a Tuesday in all three zones (10:00 in New York, 16:00 in Berlin).
  let now = Date(timeIntervalSince1970: 1_795_532_400)
  let utc = TimeZone(identifier: "UTC")!
  let berlin = TimeZone(identifier: "Europe/Berlin")!
  let newYork = TimeZone(identifier: "America/New_York")!

  func day(_ iso: String) -> TaskDate { .day(Day(iso: iso)!) }

  func at(_ iso: String, _ hour: Int, _ minute: Int, _ offset: Int, second: Int = 0) -> TaskDate {
    .dateTime(Day(iso: iso)!, hour: hour, minute: minute, second: second, offsetSeconds: offset)
  }

  func parse(_ text: String, _ zone: TimeZone? = nil, now: Date? = nil) throws -> TaskDate {
    try DateArgument.parse(text, now: now ?? self.now, timeZone: zone ?? utc)
  }

  func testISODay() throws {
    XCTAssertEqual(try parse("2026-12-01"), day("2026-12-01"))
    XCTAssertEqual(try parse("  2026-12-01 \n"), day("2026-12-01"))
    XCTAssertEqual(try parse("2028-02-29", berlin), day("2028-02-29"))
  }

  func testISODateTimeTakesTheZonesOffset() throws {
    XCTAssertEqual(try parse("2026-12-01T09:00"), at("2026-12-01", 9, 0, 0))
    XCTAssertEqual(try parse("2026-12-01 09:00", berlin), at("2026-12-01", 9, 0, 3600))
    XCTAssertEqual(try parse("2026-07-01t09:00", berlin), at("2026-07-01", 9, 0, 7200))
    XCTAssertEqual(try parse("2026-12-01T09:00:30", newYork), at("2026-12-01", 9, 0, -18_000, second: 30))
    XCTAssertEqual(try parse("2026-10-31T09:00", newYork), at("2026-10-31", 9, 0, -14_400))
  }

  func testISODateTimeKeepsATypedOffset() throws {
    XCTAssertEqual(try parse("2026-12-01T09:00Z", berlin), at("2026-12-01", 9, 0, 0))
    XCTAssertEqual(try parse("2026-12-01T09:00:00+01:00", newYork), at("2026-12-01", 9, 0, 3600))
    XCTAssertEqual(try parse("2026-12-01 09:00-05:00"), at("2026-12-01", 9, 0, -18_000))
  }

  func testTodayTomorrowYesterday() throws {
    XCTAssertEqual(try parse("today"), day("2026-11-24"))
    XCTAssertEqual(try parse("Tomorrow", berlin), day("2026-11-25"))
    XCTAssertEqual(try parse(" YESTERDAY ", newYork), day("2026-11-23"))
  }

  func testTodayIsTheZonesDay() throws {
    // 03:00 UTC is still Monday 22:00 in New York, already Tuesday 04:00 in Berlin.
    let early = Date(timeIntervalSince1970: 1_795_489_200)
    XCTAssertEqual(try parse("today", newYork, now: early), day("2026-11-23"))
    XCTAssertEqual(try parse("today", berlin, now: early), day("2026-11-24"))
    XCTAssertEqual(try parse("tue", newYork, now: early), day("2026-11-24"))
  }

  func testWeekdaysAreTheNextOneStrictlyAfterToday() throws {
    // Today is Tuesday 2026-11-24.
    let expected: [(String, String)] = [
      ("mon", "2026-11-30"), ("monday", "2026-11-30"),
      ("tue", "2026-12-01"), ("tues", "2026-12-01"), ("tuesday", "2026-12-01"),
      ("wed", "2026-11-25"), ("wednesday", "2026-11-25"),
      ("thu", "2026-11-26"), ("thur", "2026-11-26"), ("thurs", "2026-11-26"), ("thursday", "2026-11-26"),
      ("fri", "2026-11-27"), ("Friday", "2026-11-27"),
      ("sat", "2026-11-28"), ("saturday", "2026-11-28"),
      ("sun", "2026-11-29"), ("SUNDAY", "2026-11-29"),
    ]
    for (text, iso) in expected {
      XCTAssertEqual(try parse(text, berlin), day(iso), text)
    }
  }

  func testNextWeekdayIsTheSameAsTheWeekday() throws {
    XCTAssertEqual(try parse("next fri"), day("2026-11-27"))
    XCTAssertEqual(try parse("next  Tuesday"), day("2026-12-01"))
    XCTAssertEqual(try parse("next mon 9:00"), at("2026-11-30", 9, 0, 0))
  }

  func testDayOffsets() throws {
    XCTAssertEqual(try parse("+3d"), day("2026-11-27"))
    XCTAssertEqual(try parse("3d"), day("2026-11-27"))
    XCTAssertEqual(try parse("+100d"), day("2027-03-04"))
    XCTAssertEqual(try parse("-30d"), day("2026-10-25"))
    XCTAssertEqual(try parse("+0d"), day("2026-11-24"))
  }

  func testWeekOffsets() throws {
    XCTAssertEqual(try parse("+2w"), day("2026-12-08"))
    XCTAssertEqual(try parse("2W"), day("2026-12-08"))
    XCTAssertEqual(try parse("-1w"), day("2026-11-17"))
  }

  func testMonthOffsetsClampToTheMonthsEnd() throws {
    XCTAssertEqual(try parse("+1m"), day("2026-12-24"))
    XCTAssertEqual(try parse("+2m"), day("2027-01-24"))
    XCTAssertEqual(try parse("-11m"), day("2025-12-24"))
    // 2027-01-31T12:00Z (1801396800): +1m is Feb 28 (2027 is not a leap year); from 2028-01-31 (1832932800) Feb 29.
    XCTAssertEqual(try parse("+1m", now: Date(timeIntervalSince1970: 1_801_396_800)), day("2027-02-28"))
    XCTAssertEqual(try parse("+1m", now: Date(timeIntervalSince1970: 1_832_932_800)), day("2028-02-29"))
    XCTAssertEqual(try parse("-1m", now: Date(timeIntervalSince1970: 1_801_396_800)), day("2026-12-31"))
  }

  func testYearOffsets() throws {
    XCTAssertEqual(try parse("+1y"), day("2027-11-24"))
    XCTAssertEqual(try parse("-2y"), day("2024-11-24"))
    // From 2028-02-29 a year on is 2029-02-28.
    XCTAssertEqual(try parse("+1y", now: Date(timeIntervalSince1970: 1_835_438_400)), day("2029-02-28"))
  }

  func testTimesAloneAreToday() throws {
    XCTAssertEqual(try parse("9:00"), at("2026-11-24", 9, 0, 0))
    XCTAssertEqual(try parse("17:30", berlin), at("2026-11-24", 17, 30, 3600))
    XCTAssertEqual(try parse("09:05", newYork), at("2026-11-24", 9, 5, -18_000))
    XCTAssertEqual(try parse("9am"), at("2026-11-24", 9, 0, 0))
    XCTAssertEqual(try parse("9 AM"), at("2026-11-24", 9, 0, 0))
    XCTAssertEqual(try parse("9:15pm"), at("2026-11-24", 21, 15, 0))
    XCTAssertEqual(try parse("5:30PM"), at("2026-11-24", 17, 30, 0))
    XCTAssertEqual(try parse("12am"), at("2026-11-24", 0, 0, 0))
    XCTAssertEqual(try parse("12pm"), at("2026-11-24", 12, 0, 0))
    XCTAssertEqual(try parse("12:30am"), at("2026-11-24", 0, 30, 0))
    XCTAssertEqual(try parse("0:00"), at("2026-11-24", 0, 0, 0))
  }

  func testTimesAfterADay() throws {
    XCTAssertEqual(try parse("fri 9:00", berlin), at("2026-11-27", 9, 0, 3600))
    XCTAssertEqual(try parse("tomorrow 17:30", newYork), at("2026-11-25", 17, 30, -18_000))
    XCTAssertEqual(try parse("2026-12-01 9am", berlin), at("2026-12-01", 9, 0, 3600))
    XCTAssertEqual(try parse("2026-07-01 9:30", berlin), at("2026-07-01", 9, 30, 7200))
    XCTAssertEqual(try parse("+2d 8:00"), at("2026-11-26", 8, 0, 0))
    XCTAssertEqual(try parse("today 5:30 pm"), at("2026-11-24", 17, 30, 0))
    XCTAssertEqual(try parse("yesterday 23:59"), at("2026-11-23", 23, 59, 0))
  }

  func testDSTChangeDaysInBerlin() throws {
    // 2026-03-29: clocks jump from 02:00 to 03:00.
    XCTAssertEqual(try parse("2026-03-29 1:30", berlin), at("2026-03-29", 1, 30, 3600))
    XCTAssertEqual(try parse("2026-03-29 9:00", berlin), at("2026-03-29", 9, 0, 7200))
    XCTAssertEqual(try parse("2026-03-29T09:00", berlin), at("2026-03-29", 9, 0, 7200))
    // 02:30 does not exist that night; it is taken as 03:30 summer time, written 02:30+01:00 (01:30Z).
    let skipped = try parse("2026-03-29 2:30", berlin)
    XCTAssertEqual(skipped, at("2026-03-29", 2, 30, 3600))
    XCTAssertEqual(skipped.instant(in: berlin).timeIntervalSince1970, 1_774_747_800)
    // 2026-03-28T12:00Z, a Saturday: tomorrow at 9 is summer time.
    XCTAssertEqual(
      try parse("tomorrow 9:00", berlin, now: Date(timeIntervalSince1970: 1_774_699_200)),
      at("2026-03-29", 9, 0, 7200))
    // 2026-10-25: 03:00 goes back to 02:00; 02:30 happens twice and the first (summer time) is taken.
    XCTAssertEqual(try parse("2026-10-25 2:30", berlin), at("2026-10-25", 2, 30, 7200))
    XCTAssertEqual(try parse("2026-10-25 9:00", berlin), at("2026-10-25", 9, 0, 3600))
    // 2026-10-24T12:00Z, a Saturday.
    XCTAssertEqual(
      try parse("sun 9am", berlin, now: Date(timeIntervalSince1970: 1_792_843_200)),
      at("2026-10-25", 9, 0, 3600))
    XCTAssertEqual(
      try parse("today 9am", berlin, now: Date(timeIntervalSince1970: 1_792_843_200)),
      at("2026-10-24", 9, 0, 7200))
  }

  func testInvalidArgumentsAreErrors() {
    for text in [
      "", "   ", "2026-02-30", "2026-13-01", "25:00", "24:00", "9:60", "13pm", "0am", "9:5", "xyz", "fri fri",
      "next", "next week", "+d", "+3x", "3", "+1234567d", "tomorrow 25:00", "2026-02-30 9:00", "2026-12-01T25:00",
      "9:00 fri", "monday tuesday", "+-3d",
    ] {
      XCTAssertThrowsError(try parse(text), "'\(text)'") { error in
        XCTAssertEqual(error as? DateArgumentError, DateArgumentError(argument: text))
      }
    }
  }

  func testTheErrorNamesTheArgumentAndTheForms() {
    XCTAssertEqual(
      DateArgumentError(argument: "xyz").description,
      "unrecognised date 'xyz'; use YYYY-MM-DD, YYYY-MM-DDTHH:MM, today, tomorrow, yesterday, a weekday (mon, "
        + "friday: the next one), +3d, +2w, +1m, +1y, -30d, a time (9:00, 17:30, 9am, 5:30pm) alone or after a day "
        + "(fri 9:00, tomorrow 17:30)")
    XCTAssertFalse(DateArgument.acceptedForms.contains("\n"))
    XCTAssertFalse(DateArgumentError(argument: "fri\n9").description.contains("\n"))
  }

  func testRandomTextNeverTraps() {
    var random = SplitMix64(seed: 8601)
    let alphabet = Array("0123456789-+:T Zamp dwmy todaytomorrowfrinextsun")
    for _ in 0..<3000 {
      let text = String(
        (0..<Int.random(in: 0...20, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
      for zone in [utc, berlin, newYork] {
        _ = try? DateArgument.parse(text, now: now, timeZone: zone)
      }
    }
  }
}

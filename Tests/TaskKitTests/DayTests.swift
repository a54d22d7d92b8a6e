import TaskKit
import XCTest

final class DayTests: XCTestCase {
  func testWeekdayOfKnownDays() {
    // 2026-11-24 is a Tuesday; 1970-01-01 a Thursday; 2000-02-29 a Tuesday.
    XCTAssertEqual(Day(iso: "2026-11-24")?.weekday, 2)
    XCTAssertEqual(Day(iso: "1970-01-01")?.weekday, 4)
    XCTAssertEqual(Day(iso: "2000-02-29")?.weekday, 2)
    XCTAssertEqual(Day(iso: "1969-12-28")?.weekday, 7)
  }

  func testTaskDateReadsAndWritesEveryForm() throws {
    XCTAssertEqual(TaskDate(text: "2026-12-01")?.text, "2026-12-01")
    XCTAssertEqual(TaskDate(text: "2026-12-01T09:00")?.text, "2026-12-01T09:00:00")
    XCTAssertEqual(TaskDate(text: "2026-12-01T09:00:00+01:00")?.text, "2026-12-01T09:00:00+01:00")
    XCTAssertEqual(TaskDate(text: "2026-12-01 09:00:00.5Z")?.text, "2026-12-01T09:00:00Z")
    XCTAssertNil(TaskDate(text: "2026-02-30"))
    XCTAssertNil(TaskDate(text: "next week"))
    let instant = try XCTUnwrap(TaskDate(text: "2026-12-01T09:00:00+01:00")).instant(in: TimeZone(identifier: "UTC")!)
    XCTAssertEqual(instant.timeIntervalSince1970, 1_796_112_000)
  }

  func testMovingAcrossDSTKeepsTheWallClock() throws {
    let berlin = try XCTUnwrap(TimeZone(identifier: "Europe/Berlin"))
    let summer = try XCTUnwrap(TaskDate(text: "2026-10-20T09:00:00+02:00"))
    XCTAssertEqual(summer.moved(to: Day(iso: "2026-10-27")!, in: berlin).text, "2026-10-27T09:00:00+01:00")
  }

  func testMovingOntoASkippedTimeNamesTheInstantAfterTheJump() throws {
    let berlin = try XCTUnwrap(TimeZone(identifier: "Europe/Berlin"))
    let night = try XCTUnwrap(TaskDate(text: "2026-03-28T02:30:00+01:00"))
    // 2026-03-29 02:30 does not exist in Berlin; +01:00 makes it 01:30Z (`date -u -d 2026-03-29T01:30Z +%s`),
    // which Berlin shows as 03:30 summer time.
    let moved = night.moved(to: Day(iso: "2026-03-29")!, in: berlin)
    XCTAssertEqual(moved.text, "2026-03-29T02:30:00+01:00")
    XCTAssertEqual(moved.instant(in: berlin).timeIntervalSince1970, 1_774_747_800)
    XCTAssertEqual(moved.moved(to: Day(iso: "2026-03-30")!, in: berlin).text, "2026-03-30T02:30:00+02:00")
  }
}

import Foundation
import NBTestSupport
import TextFormat
import XCTest

@testable import NoteStore

final class TimestampTests: XCTestCase {
  /// Foundation's ISO 8601 parser is the oracle for instants (independent of the code under test).
  private func instant(_ iso: String, fractional: Bool = false) -> Date {
    let formatter = ISO8601DateFormatter()
    if fractional { formatter.formatOptions.insert(.withFractionalSeconds) }
    return formatter.date(from: iso)!
  }

  func testParsesOffsetsAndKeepsThem() throws {
    let plus = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22T10:15:03+01:00"))
    XCTAssertEqual(plus.date, instant("2026-11-22T09:15:03Z"))
    XCTAssertEqual(plus.offsetSeconds, 3600)
    let minus = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22T01:15:03-05:30"))
    XCTAssertEqual(minus.date, instant("2026-11-22T06:45:03Z"))
    XCTAssertEqual(minus.offsetSeconds, -(5 * 3600 + 30 * 60))
    let zulu = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22T10:15:03Z"))
    XCTAssertEqual(zulu.date, instant("2026-11-22T10:15:03Z"))
    XCTAssertEqual(zulu.offsetSeconds, 0)
    XCTAssertEqual(Timestamp(rfc3339: "2026-11-22t10:15:03z")?.date, instant("2026-11-22T10:15:03Z"))
  }

  func testWellKnownEpochs() {
    XCTAssertEqual(Timestamp(rfc3339: "1970-01-01T00:00:00Z")?.date.timeIntervalSince1970, 0)
    XCTAssertEqual(Timestamp(rfc3339: "2000-01-01T00:00:00Z")?.date.timeIntervalSince1970, 946_684_800)
    XCTAssertEqual(Timestamp(rfc3339: "1969-12-31T23:59:59Z")?.date.timeIntervalSince1970, -1)
    // 2000-02-29 exists (divisible by 400); 1900-02-29 does not (divisible by 100).
    XCTAssertEqual(Timestamp(rfc3339: "2000-02-29")?.date.timeIntervalSince1970, 951_782_400)
    XCTAssertNil(Timestamp(rfc3339: "1900-02-29"))
  }

  func testSpaceSeparatorFractionsAndBareDates() throws {
    let spaced = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22 10:15:03+01:00"))
    XCTAssertEqual(spaced.date, instant("2026-11-22T09:15:03Z"))
    let fraction = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22T10:15:03.250+01:00"))
    XCTAssertEqual(
      fraction.date.timeIntervalSince1970, instant("2026-11-22T09:15:03.250Z", fractional: true).timeIntervalSince1970,
      accuracy: 0.0005)
    let bare = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22"))
    XCTAssertEqual(bare.date, instant("2026-11-22T00:00:00Z"))
    XCTAssertEqual(bare.offsetSeconds, 0)
    // YAML 1.1 style: blanks before the zone, compact offset.
    XCTAssertEqual(Timestamp(rfc3339: "2026-11-22 10:15:03 +0100")?.date, instant("2026-11-22T09:15:03Z"))
    // A date-time without a zone is documented as UTC.
    XCTAssertEqual(Timestamp(rfc3339: "2026-11-22T10:15:03")?.date, instant("2026-11-22T10:15:03Z"))
  }

  func testRejectsGarbage() {
    let garbage = [
      "", "now", "2026", "2026-11", "2026-1-22", "2026-13-01", "2026-11-31", "2026-11-00", "2026-11-22T25:00:00Z",
      "2026-11-22T10:60:00Z", "2026-11-22T10:15:61Z", "2026-11-22T10:15:03+24:00", "2026-11-22T10:15:03+01:60",
      "2026-11-22T10:15:03+1", "2026-11-22T10:15:03Zjunk", "2026-11-22T10:15:03.Z", " 2026-11-22", "2026-11-22 ",
      "2026-11-22X10:15:03Z", "2026-11-22T10", "２０２６-11-22", "2026-11-22T10:15:03+01:00:00",
    ]
    for text in garbage {
      XCTAssertNil(Timestamp(rfc3339: text), "accepted \(text.debugDescription)")
    }
  }

  func testFormatsWithSecondsAndNumericOffset() {
    let date = instant("2026-11-22T09:15:03Z")
    XCTAssertEqual(Timestamp(date: date, offsetSeconds: 3600).rfc3339, "2026-11-22T10:15:03+01:00")
    XCTAssertEqual(Timestamp(date: date, offsetSeconds: 0).rfc3339, "2026-11-22T09:15:03+00:00")
    XCTAssertEqual(Timestamp(date: date, offsetSeconds: -34_200).rfc3339, "2026-11-21T23:45:03-09:30")
    // Fractions are truncated, never rounded up into the next second.
    let late = Date(timeIntervalSince1970: date.timeIntervalSince1970 + 0.999)
    XCTAssertEqual(Timestamp(date: late, offsetSeconds: 0).rfc3339, "2026-11-22T09:15:03+00:00")
    // Before 1970: floor, not truncation toward zero.
    XCTAssertEqual(
      Timestamp(date: Date(timeIntervalSince1970: -0.5), offsetSeconds: 0).rfc3339, "1969-12-31T23:59:59+00:00")
    XCTAssertEqual(Timestamp(date: date, offsetSeconds: 3600).description, "2026-11-22T10:15:03+01:00")
  }

  func testTimeZoneInitUsesOffsetAtThatDate() throws {
    let berlin = try XCTUnwrap(TimeZone(identifier: "Europe/Berlin"))
    let winter = Timestamp(date: instant("2026-01-15T12:00:00Z"), timeZone: berlin)
    let summer = Timestamp(date: instant("2026-07-15T12:00:00Z"), timeZone: berlin)
    XCTAssertEqual(winter.offsetSeconds, 3600)
    XCTAssertEqual(summer.offsetSeconds, 7200)
    XCTAssertEqual(summer.rfc3339, "2026-07-15T14:00:00+02:00")
  }

  func testRoundTripOverManyInstants() {
    var generator = SplitMix64(seed: 42)
    for _ in 0..<2000 {
      let seconds = Double(Int64(generator.next() % 8_000_000_000) - 2_000_000_000)
      let offset = (Int(generator.next() % 57) - 28) * 30 * 60
      let stamp = Timestamp(date: Date(timeIntervalSince1970: seconds), offsetSeconds: offset)
      let text = stamp.rfc3339
      let back = Timestamp(rfc3339: text)
      XCTAssertEqual(back?.date, stamp.date, text)
      XCTAssertEqual(back?.offsetSeconds, offset, text)
      // Foundation agrees on the instant the text names.
      XCTAssertEqual(ISO8601DateFormatter().date(from: text), stamp.date, text)
    }
  }

  func testEqualityAndOrderAreByInstant() throws {
    let a = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22T10:00:00+01:00"))
    let b = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22T09:00:00Z"))
    let later = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22T09:30:00+00:00"))
    XCTAssertEqual(a, b)
    XCTAssertEqual(a.hashValue, b.hashValue)
    XCTAssertFalse(a < b)
    XCTAssertFalse(b < a)
    // Text order would say "10:00" > "09:30"; instant order says otherwise.
    XCTAssertLessThan(a, later)
  }

  func testNextUpdatedIsMonotonic() throws {
    let now = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22T10:15:03.700+01:00"))
    // No previous: now, truncated.
    XCTAssertEqual(Timestamp.nextUpdated(previous: nil, now: now).rfc3339, "2026-11-22T10:15:03+01:00")
    // Previous well before now: now.
    let old = try XCTUnwrap(Timestamp(rfc3339: "2026-11-20T08:00:00Z"))
    XCTAssertEqual(Timestamp.nextUpdated(previous: old, now: now).rfc3339, "2026-11-22T10:15:03+01:00")
    // Previous equal to now (same second): one second later.
    let same = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22T09:15:03Z"))
    XCTAssertEqual(Timestamp.nextUpdated(previous: same, now: now).rfc3339, "2026-11-22T10:15:04+01:00")
    // Previous in the future (clock skew): previous + 1 s, shown in now's offset.
    let future = try XCTUnwrap(Timestamp(rfc3339: "2026-11-22T12:00:00.900-02:00"))
    XCTAssertEqual(Timestamp.nextUpdated(previous: future, now: now).rfc3339, "2026-11-22T15:00:01+01:00")
    XCTAssertGreaterThan(Timestamp.nextUpdated(previous: future, now: now), future)
  }
}

/// A repository whose zone nobody set stamps notes with libc's offset for the process (`TZ`): it must be the offset
/// Foundation's zone database gives for that zone, DST and odd offsets included.
final class LocalOffsetTests: XCTestCase {
  func testLibcOffsetIsFoundations() throws {
    let saved = getenv("TZ").map { String(cString: $0) }
    defer {
      if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
      tzset()
    }
    let zones = [
      "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham",
      "America/St_Johns", "Europe/Dublin", "Africa/Casablanca",
    ]
    for name in zones {
      setenv("TZ", name, 1)
      tzset()
      let zone = try XCTUnwrap(TimeZone(identifier: name), name)
      // Every ~week and 1 h, from 2020 to 2030: each DST change is passed on both sides.
      for seconds in stride(from: 1_577_836_800.0, to: 1_893_456_000, by: 7 * 86_400 + 3_600) {
        XCTAssertEqual(
          LocalOffset.seconds(at: seconds), zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)),
          "\(name) at \(seconds)")
      }
    }
  }
}

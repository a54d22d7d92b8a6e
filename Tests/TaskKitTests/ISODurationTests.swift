import NBTestSupport
import TaskKit
import XCTest

final class ISODurationTests: XCTestCase {
  func testReadsReminderOffsets() throws {
    let hourBefore = try XCTUnwrap(ISODuration(text: "-PT1H"))
    XCTAssertEqual([hourBefore.negative ? 1 : 0, hourBefore.hours], [1, 1])
    XCTAssertEqual(hourBefore.totalSeconds, -3600)
    XCTAssertEqual(ISODuration(text: "PT15M")?.totalSeconds, 900)
    XCTAssertEqual(ISODuration(text: "-P1D")?.totalSeconds, -86_400)
    // 1 day, 2 hours, 30 minutes: 86 400 + 7 200 + 1 800.
    XCTAssertEqual(ISODuration(text: "-P1DT2H30M")?.totalSeconds, -95_400)
    XCTAssertEqual(ISODuration(text: "P1W")?.totalSeconds, 604_800)
    XCTAssertEqual(ISODuration(text: "+PT30S")?.totalSeconds, 30)
    XCTAssertEqual(ISODuration(text: "PT1H1M1S")?.totalSeconds, 3661)
    XCTAssertEqual(ISODuration(text: "-pt5m")?.totalSeconds, -300)
    XCTAssertEqual(ISODuration(text: "P0D")?.totalSeconds, 0)
  }

  func testKeepsTheFields() throws {
    let duration = try XCTUnwrap(ISODuration(text: "-P2DT3H4M5S"))
    XCTAssertTrue(duration.negative)
    XCTAssertEqual(
      [duration.weeks, duration.days, duration.hours, duration.minutes, duration.seconds], [0, 2, 3, 4, 5])
    XCTAssertEqual(ISODuration(text: "P3W")?.weeks, 3)
  }

  func testRejectsAnythingElse() {
    for text in [
      "", "P", "PT", "-PT", "+P", "1H", "PT1", "P1H", "PT1D", "P1Y", "P1M", "P1DT", "PT1.5H", "PT1H30", " PT1H",
      "PT1H ", "--PT1H", "P1W2D", "P1WT1H", "PT1M1H", "PT1S1M", "P1D1D", "PT-1H", "P T1H", "PT1H1H", "P1234567890123D",
      "PT١H", "-P+1D", "PTH",
    ] {
      XCTAssertNil(ISODuration(text: text), text)
    }
  }

  func testCanonicalText() {
    XCTAssertEqual(ISODuration(text: "-PT1H")?.text, "-PT1H")
    XCTAssertEqual(ISODuration(text: "+p1d")?.text, "P1D")
    XCTAssertEqual(ISODuration(text: "-P1DT2H30M")?.text, "-P1DT2H30M")
    XCTAssertEqual(ISODuration(text: "P1W")?.text, "P1W")
    XCTAssertEqual(ISODuration(text: "PT0H15M")?.text, "PT15M")
    XCTAssertEqual(ISODuration(text: "PT90M")?.text, "PT90M")
    XCTAssertEqual(ISODuration(text: "-PT0S")?.text, "PT0S")
    XCTAssertEqual(ISODuration(text: "P0D")?.text, "PT0S")
    XCTAssertEqual(ISODuration(text: "P1W")?.description, "P1W")
  }

  func testTextOfFieldsSetByHand() throws {
    var duration = try XCTUnwrap(ISODuration(text: "P1W"))
    duration.hours = 2
    // Weeks may not sit beside other parts: 1 week is 7 days.
    XCTAssertEqual(duration.text, "P7DT2H")
    duration = ISODuration(seconds: 0)
    duration.minutes = -90
    XCTAssertEqual(duration.text, "-PT1H30M")
    duration.weeks = Int.max
    duration.minutes = 0
    XCTAssertEqual(duration.totalSeconds, Int.max)
    duration.negative = true
    XCTAssertEqual(duration.totalSeconds, Int.min)
    XCTAssertFalse(duration.text.isEmpty)
  }

  func testFromSeconds() {
    XCTAssertEqual(ISODuration(seconds: -3600).text, "-PT1H")
    XCTAssertEqual(ISODuration(seconds: 900).text, "PT15M")
    XCTAssertEqual(ISODuration(seconds: -95_400).text, "-P1DT2H30M")
    XCTAssertEqual(ISODuration(seconds: 604_800).text, "P7D")
    XCTAssertEqual(ISODuration(seconds: 90_061).text, "P1DT1H1M1S")
    XCTAssertEqual(ISODuration(seconds: 0).text, "PT0S")
    XCTAssertEqual(ISODuration(seconds: -1).totalSeconds, -1)
    XCTAssertEqual(ISODuration(seconds: Int.min).negative, true)
    XCTAssertEqual(ISODuration(seconds: Int.max).totalSeconds, Int.max)
  }

  func testRoundTripOfSeconds() {
    for seconds in [-1_000_000, -86_400, -3601, -60, -1, 0, 1, 59, 3600, 86_399, 86_401, 31_536_000] {
      XCTAssertEqual(ISODuration(text: ISODuration(seconds: seconds).text)?.totalSeconds, seconds)
    }
  }

  func testRandomTextNeverTraps() {
    var random = SplitMix64(seed: 5545)
    let alphabet = Array("PTWDHMS+-0123456789")
    for _ in 0..<5000 {
      let text = String(
        (0..<Int.random(in: 0...30, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
      if let duration = ISODuration(text: text) {
        XCTAssertEqual(ISODuration(text: duration.text)?.totalSeconds, duration.totalSeconds, text)
      }
    }
  }
}

import InboxKit
import XCTest

final class InboxStatsTests: XCTestCase {
  func testCountsPerChosenNotebookWithinTheWindow() {
    let now = Date(timeIntervalSince1970: 1_795_514_400)
    func decision(_ daysAgo: Double, _ suggested: String?, _ chosen: String) -> InboxDecision {
      InboxDecision(
        time: now.addingTimeInterval(-daysAgo * 86_400), item: "i", suggested: suggested, chosen: chosen,
        confidence: nil, device: "d")
    }
    let decisions = [
      decision(1, "work", "work"),
      decision(2, "home", "work"),
      decision(3, nil, "work"),
      decision(6.5, "home", "home"),
      decision(7, "work", "home"),  // exactly 7 days ago: in
      decision(7.01, "home", "home"),  // just outside
      decision(-0.5, nil, "Zed"),  // a clock ahead: counted
      decision(30, "work", "archive"),
    ]
    XCTAssertEqual(
      InboxStats.compute(decisions, now: now, days: 7),
      [
        NotebookStats(notebook: "Zed", accepted: 0, corrected: 0, noSuggestion: 1),
        NotebookStats(notebook: "home", accepted: 1, corrected: 1, noSuggestion: 0),
        NotebookStats(notebook: "work", accepted: 1, corrected: 1, noSuggestion: 1),
      ])
    XCTAssertEqual(InboxStats.compute(decisions, now: now, days: 0).map(\.notebook), ["Zed"])
    XCTAssertEqual(InboxStats.compute(decisions, now: now, days: -5).map(\.notebook), ["Zed"])
    XCTAssertEqual(InboxStats.compute(decisions, now: now, days: Int.max).count, 4)
    XCTAssertEqual(InboxStats.compute([], now: now, days: 7), [])
  }
}

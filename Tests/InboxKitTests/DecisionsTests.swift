import XCTest

@testable import InboxKit

final class DecisionsTests: XCTestCase {
  /// 2026-11-24T10:00:00Z, worked out as days since 1970 (20,781) × 86,400 + 10 h.
  static let t0 = Date(timeIntervalSince1970: 1_795_514_400)

  static func decision(
    _ minutes: Double, _ item: String, _ suggested: String?, _ chosen: String, _ confidence: Double? = nil,
    device: String = "laptop"
  ) -> InboxDecision {
    InboxDecision(
      time: t0.addingTimeInterval(minutes * 60), item: item, suggested: suggested, chosen: chosen,
      confidence: confidence, device: device)
  }

  func testLineIsByteStable() {
    XCTAssertEqual(
      Self.decision(0, "01J9ZQ", "work", "home", 0.73).line,
      #"{"time":"2026-11-24T10:00:00Z","item":"01J9ZQ","suggested":"work","chosen":"home","confidence":0.73,"#
        + #""device":"laptop"}"#)
    XCTAssertEqual(
      Self.decision(0.5 / 60, "a", nil, "home", nil, device: "phone").line,
      #"{"time":"2026-11-24T10:00:00Z","item":"a","suggested":null,"chosen":"home","confidence":null,"#
        + #""device":"phone"}"#)
    let confidences: [Double] = [1, 0, 0.5, 0.1234, 0.9996, 2, -1, .nan, 0.0005]
    XCTAssertEqual(
      confidences.map { Self.decision(0, "a", "x", "x", $0).line.components(separatedBy: "\"confidence\":")[1] },
      ["1,", "0,", "0.5,", "0.123,", "1,", "1,", "0,", "null,", "0.001,"].map { $0 + #""device":"laptop"}"# })
    XCTAssertEqual(
      Self.decision(0, "q\"\\\n\u{1}é", "x", "x").line,
      #"{"time":"2026-11-24T10:00:00Z","item":"q\"\\\n\u0001é","suggested":"x","chosen":"x","confidence":null,"#
        + #""device":"laptop"}"#)
    // Before 1970 the day still rounds down.
    XCTAssertTrue(
      InboxDecision(
        time: Date(timeIntervalSince1970: -1), item: "a", suggested: nil, chosen: "b", confidence: nil,
        device: "d"
      ).line.hasPrefix(#"{"time":"1969-12-31T23:59:59Z""#))
    XCTAssertTrue(Self.decision(0, "a", "x", "x").accepted)
    XCTAssertFalse(Self.decision(0, "a", nil, "x").accepted)
  }

  func testParseRoundTripsAndWarns() {
    let first = Self.decision(0, "a", "work", "home", 0.25)
    let second = Self.decision(5, "b", nil, "work")
    let text = [
      first.line,
      "",
      "not json",
      #"{"time":"yesterday","item":"c","chosen":"x","device":"d"}"#,
      #"{"time":"2026-11-24T10:00:00Z","item":"c","device":"d"}"#,
      #"{"time":"2026-11-24T10:00:00Z","item":"c","chosen":7,"device":"d"}"#,
      #"{"time":"2026-11-24T10:00:00Z","item":"","chosen":"x","device":"d"}"#,
      #"{"time":"2026-11-24T10:00:00Z","item":"c","chosen":"x","confidence":1.5,"device":"d"}"#,
      #"{"time":"2026-11-24T10:00:00Z","item":"c","chosen":"x","confidence":0.5,"device":"d""#,
      second.line + "\r",
      #"{"time":"2026-11-24T11:00:00+01:00","item":"d","chosen":"x","device":"d","later":[1]}"#,
    ].joined(separator: "\n")
    let (decisions, warnings) = DecisionLog.parse(text)
    XCTAssertEqual(
      decisions,
      [
        first, second,
        InboxDecision(time: Self.t0, item: "d", suggested: nil, chosen: "x", confidence: nil, device: "d"),
      ])
    XCTAssertEqual(
      warnings,
      [
        "line 3: not a JSON object",
        "line 4: \"time\" is not an RFC 3339 time",
        "line 5: no \"chosen\"",
        "line 6: \"chosen\" has the wrong type",
        "line 7: \"item\" is empty",
        "line 8: \"confidence\" is not between 0 and 1",
        "line 9: not a JSON object",
      ])
    XCTAssertTrue(DecisionLog.parse("").decisions.isEmpty)
    let binary = String(decoding: (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 131) }, as: UTF8.self)
    XCTAssertTrue(DecisionLog.parse(binary).decisions.isEmpty)
  }

  func testAppendingKeepsTheFileSorted() {
    let a = Self.decision(0, "a", "work", "home").line
    let b = Self.decision(10, "b", nil, "work").line
    let c = Self.decision(10, "c", "home", "home").line
    var text = DecisionLog.appending(Self.decision(10, "c", "home", "home"), to: "")
    XCTAssertEqual(text, c + "\n")
    text = DecisionLog.appending(Self.decision(0, "a", "work", "home"), to: text)
    text = DecisionLog.appending(Self.decision(10, "b", nil, "work"), to: text)
    XCTAssertEqual(text, [a, b, c].map { $0 + "\n" }.joined())
    // The same decision twice is one line.
    XCTAssertEqual(DecisionLog.appending(Self.decision(10, "b", nil, "work"), to: text), text)
    // No final newline: one is added.
    XCTAssertEqual(DecisionLog.appending(Self.decision(10, "c", "home", "home"), to: a), a + "\n" + c + "\n")
  }

  func testUnreadableLinesStayBelowTheirNeighbour() {
    let a = Self.decision(0, "a", "work", "home").line
    let c = Self.decision(20, "c", "home", "home").line
    let text = ["# header", a, "{future format}", c, "trailing junk"].joined(separator: "\n") + "\n"
    let b = Self.decision(10, "b", nil, "work")
    XCTAssertEqual(
      DecisionLog.appending(b, to: text),
      ["# header", a, "{future format}", b.line, c, "trailing junk"].joined(separator: "\n") + "\n")
    let early = Self.decision(-10, "z", nil, "work")
    XCTAssertEqual(
      DecisionLog.appending(early, to: text),
      ["# header", early.line, a, "{future format}", c, "trailing junk"].joined(separator: "\n") + "\n")
  }

  func testMergeIsTheUnionWithoutConflicts() {
    let a = Self.decision(0, "a", "work", "home").line
    let b = Self.decision(10, "b", nil, "work", device: "laptop").line
    let c = Self.decision(12, "c", "home", "home", 0.9, device: "phone").line
    let d = Self.decision(15, "d", "home", "work", device: "laptop").line
    let base = a + "\n"
    let ours = [a, b, d].map { $0 + "\n" }.joined()
    let theirs = [a, c].map { $0 + "\n" }.joined()
    let merged = [a, b, c, d].map { $0 + "\n" }.joined()
    XCTAssertEqual(DecisionLog.merge(base: base, ours: ours, theirs: theirs), merged)
    XCTAssertEqual(DecisionLog.merge(base: base, ours: theirs, theirs: ours), merged)
    XCTAssertEqual(DecisionLog.merge(base: nil, ours: ours, theirs: theirs), merged)
    // Both sides appended the same line: once.
    XCTAssertEqual(DecisionLog.merge(base: base, ours: ours, theirs: ours), ours)
    // A line one side removed since base stays removed; a line never in base that one side has is kept.
    XCTAssertEqual(
      DecisionLog.merge(base: ours, ours: [a, d].map { $0 + "\n" }.joined(), theirs: ours + c + "\n"),
      [a, c, d].map { $0 + "\n" }.joined())
    XCTAssertEqual(DecisionLog.merge(base: nil, ours: "", theirs: ""), "")
  }

  func testMergeOfRandomHistoriesIsTheSetAlgebraSortedAndSymmetric() {
    var generator = SplitMix64(seed: 2026)
    func random(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
    let pool = (0..<60).map { index in
      Self.decision(
        Double(random(20)), "item\(random(8))", ["work", "home", nil][random(3)], ["work", "home"][random(2)],
        Double(random(1001)) / 1000, device: ["laptop", "phone"][random(2)]
      ).line
    }
    for _ in 0..<200 {
      let base = Set(pool.filter { _ in random(3) == 0 })
      let ours = base.filter { _ in random(5) != 0 }.union(pool.filter { _ in random(6) == 0 })
      let theirs = base.filter { _ in random(5) != 0 }.union(pool.filter { _ in random(6) == 0 })
      func text(_ lines: Set<String>) -> String {
        // Each side's file in its own (shuffled) order: the merge sorts anyway.
        var ordered = Array(lines)
        Evaluation.shuffle(&ordered, using: &generator)
        return ordered.map { $0 + "\n" }.joined()
      }
      let expected = ours.intersection(theirs).union(ours.subtracting(base)).union(theirs.subtracting(base))
      let merged = DecisionLog.merge(base: text(base), ours: text(ours), theirs: text(theirs))
      let lines = DecisionLog.lines(merged)
      XCTAssertEqual(Set(lines), expected)
      XCTAssertEqual(lines.count, expected.count)
      let keys = DecisionLog.parse(merged).decisions.map { DecisionLog.key(of: $0, line: $0.line) }
      XCTAssertEqual(keys, keys.sorted())
      XCTAssertEqual(DecisionLog.merge(base: text(base), ours: text(theirs), theirs: text(ours)), merged)
      XCTAssertEqual(DecisionLog.merge(base: merged, ours: merged, theirs: merged), merged)
    }
  }

  func testMergeKeepsUnreadableLinesWithTheirNeighbours() {
    let a = Self.decision(0, "a", "work", "home").line
    let b = Self.decision(10, "b", nil, "work").line
    let c = Self.decision(12, "c", "home", "home").line
    let ours = ["# mine", a, "ours-after-a", b].joined(separator: "\n") + "\n"
    let theirs = ["# theirs", a, "theirs-after-a", c, "theirs-after-c"].joined(separator: "\n") + "\n"
    XCTAssertEqual(
      DecisionLog.merge(base: a + "\n", ours: ours, theirs: theirs),
      ["# mine", "# theirs", a, "ours-after-a", "theirs-after-a", b, c, "theirs-after-c"]
        .joined(separator: "\n") + "\n")
  }

  func testEffectiveDecisionPerItem() {
    let first = Self.decision(0, "a", "work", "home")
    let second = Self.decision(10, "a", "home", "work")
    let other = Self.decision(5, "b", nil, "health")
    let all = [second, other, first]
    XCTAssertEqual(DecisionLog.effective(all) { _ in nil }, [other, second])
    XCTAssertEqual(DecisionLog.effective(all) { $0 == "a" ? "home" : nil }, [first, other])
    XCTAssertEqual(DecisionLog.effective(all) { $0 == "a" ? "archive" : "health" }, [other])
    XCTAssertEqual(DecisionLog.effective([]) { _ in nil }, [])
  }
}

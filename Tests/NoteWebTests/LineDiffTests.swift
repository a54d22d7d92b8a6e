import Foundation
import NBTestSupport
import XCTest

@testable import NoteWeb

/// The history page's line diff against `git diff` on the same two texts.
final class LineDiffTests: XCTestCase {
  func testASmallEditReadsAsGitShowsIt() {
    let diff = LineDiff(from: "a\nb\nc\nd\n", to: "a\nB\nc\nd\ne\n", context: 1)
    XCTAssertEqual(
      diff.lines.map { "\($0.kind.rawValue) \($0.text)" },
      ["hunk @@ -1,4 +1,5 @@", "context a", "removed b", "added B", "context c", "context d", "added e"])
    XCTAssertEqual(diff.added, 2)
    XCTAssertEqual(diff.removed, 1)
    XCTAssertEqual(LineDiff(from: "same\n", to: "same\n").lines, [])
    XCTAssertEqual(LineDiff(from: "", to: "x\ny\n").lines.first?.text, "@@ -0,0 +1,2 @@")
    XCTAssertEqual(LineDiff(from: "x\n", to: "").lines.first?.text, "@@ -1 +0,0 @@")
  }

  func testUnrelatedLargeTextsAreShownRemovedAndAddedWhole() {
    // 30 000 lines each, no line in common: more edits than the diff looks through.
    let old = (0..<30_000).map { "old \($0)\n" }.joined()
    let new = (0..<30_000).map { "new \($0)\n" }.joined()
    let started = Date()
    let diff = LineDiff(from: "same\n" + old + "end\n", to: "same\n" + new + "end\n")
    XCTAssertLessThan(Date().timeIntervalSince(started), 20, "no quadratic walk")
    XCTAssertEqual(diff.removed, 30_000)
    XCTAssertEqual(diff.added, 30_000)
    XCTAssertEqual(diff.lines.first?.text, "@@ -1,30002 +1,30002 @@")
    XCTAssertEqual(diff.lines[1], LineDiff.Line(kind: .context, text: "same"))
    XCTAssertEqual(diff.lines[2], LineDiff.Line(kind: .removed, text: "old 0"))
    XCTAssertEqual(diff.lines[30_002], LineDiff.Line(kind: .added, text: "new 0"))
    XCTAssertEqual(diff.lines.last, LineDiff.Line(kind: .context, text: "end"))
    // A small edit in a large text is still the shortest.
    let edited = LineDiff(from: old, to: old.replacingOccurrences(of: "old 15000\n", with: "changed\n"))
    XCTAssertEqual([edited.added, edited.removed], [1, 1])
  }

  /// Texts whose lines are all different, so there is one shortest diff: exactly git's hunks and lines.
  func testDistinctLinesReadExactlyAsGitDiff() throws {
    let temp = try TemporaryDirectory(prefix: "nb-line-diff")
    let git = try GitCLI(workTree: temp.url, home: try temp.directory("home"))
    let old = (1...40).map { "line \($0)\n" }.joined()
    var lines = (1...40).map { "line \($0)\n" }
    lines[2] = "line three\n"
    lines.remove(at: 20)
    lines.insert("new line\n", at: 30)
    lines.append("last\n")
    let new = lines.joined()
    try Data(old.utf8).write(to: temp.url.appendingPathComponent("a"))
    try Data(new.utf8).write(to: temp.url.appendingPathComponent("b"))
    let patch = try git.result(["diff", "--no-index", "--no-color", "a", "b"]).stdout
    let expected = patch.split(separator: "\n").drop { !$0.hasPrefix("@@") }.map { line -> String in
      // git adds the nearest line above that starts with a letter after a hunk's range; the page does not.
      guard line.hasPrefix("@@"),
        let end = line.range(of: " @@", range: line.index(line.startIndex, offsetBy: 2)..<line.endIndex)
      else { return String(line) }
      return String(line[..<end.upperBound])
    }
    let ours = LineDiff(from: old, to: new).lines.map { line -> String in
      switch line.kind {
      case .hunk: line.text
      case .added: "+" + line.text
      case .removed: "-" + line.text
      case .context: " " + line.text
      }
    }
    XCTAssertEqual(ours, Array(expected), patch)
  }

  /// Seeded random pairs of texts with many repeated lines: the counts equal `git diff --numstat --minimal`'s
  /// (which lines an equally short diff names may differ: git also slides changes to read better).
  func testRandomTextsAgreeWithGit() throws {
    let temp = try TemporaryDirectory(prefix: "nb-line-diff")
    let git = try GitCLI(workTree: temp.url, home: try temp.directory("home"))
    var random = SplitMix64(seed: 17)
    let words = ["alpha", "beta", "gamma", "delta", "", "epsilon"]
    for round in 0..<60 {
      let old = (0..<Int.random(in: 0...25, using: &random)).map { _ in words.randomElement(using: &random)! }
      var new = old
      for _ in 0..<Int.random(in: 0...6, using: &random) {
        switch Int.random(in: 0...2, using: &random) {
        case 0 where !new.isEmpty: new.remove(at: Int.random(in: 0..<new.count, using: &random))
        case 1: new.insert(words.randomElement(using: &random)!, at: Int.random(in: 0...new.count, using: &random))
        default:
          if !new.isEmpty { new[Int.random(in: 0..<new.count, using: &random)] = words.randomElement(using: &random)! }
        }
      }
      let a = old.map { $0 + "\n" }.joined()
      let b = new.map { $0 + "\n" }.joined()
      try Data(a.utf8).write(to: temp.url.appendingPathComponent("a"))
      try Data(b.utf8).write(to: temp.url.appendingPathComponent("b"))
      let diff = LineDiff(from: a, to: b)
      let numstat = try git.result(["diff", "--no-index", "--minimal", "--numstat", "a", "b"]).stdout
      let counts = numstat.split(separator: "\t").prefix(2).compactMap { Int($0) }
      XCTAssertEqual(counts.isEmpty ? [0, 0] : counts, [diff.added, diff.removed], "round \(round): \(old) → \(new)")
    }
  }
}

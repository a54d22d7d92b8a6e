import XCTest

@testable import NoteStore

/// Classic diff3 cases; every expected text is written by hand from the inputs.
final class MergeTextTests: XCTestCase {
  func testNonOverlappingEditsMerge() {
    let base = "a\nb\nc\nd\ne\n"
    let ours = "A\nb\nc\nd\ne\n"
    let theirs = "a\nb\nc\nd\nE\n"
    XCTAssertEqual(TextMerge.merge(base: base, ours: ours, theirs: theirs), .clean("A\nb\nc\nd\nE\n"))
    XCTAssertEqual(TextMerge.merge(base: base, ours: theirs, theirs: ours), .clean("A\nb\nc\nd\nE\n"))
  }

  func testSameEditOnBothSidesIsTakenOnce() {
    let base = "one\ntwo\nthree\n"
    let both = "one\n2\nthree\n"
    XCTAssertEqual(TextMerge.merge(base: base, ours: both, theirs: both), .clean(both))
    // The same change plus an unrelated one on a single side.
    XCTAssertEqual(
      TextMerge.merge(base: base, ours: "one\n2\nthree\n", theirs: "one\n2\nthree\nfour\n"),
      .clean("one\n2\nthree\nfour\n"))
  }

  func testOverlappingEditsConflict() {
    let base = "a\nb\nc\n"
    XCTAssertEqual(TextMerge.merge(base: base, ours: "a\nB1\nc\n", theirs: "a\nB2\nc\n"), .conflict)
    // A deletion against an edit of the same line.
    XCTAssertEqual(TextMerge.merge(base: base, ours: "a\nc\n", theirs: "a\nB2\nc\n"), .conflict)
  }

  func testInsertionsAtTheSamePlace() {
    let base = "a\nb\n"
    XCTAssertEqual(TextMerge.merge(base: base, ours: "a\nx\nb\n", theirs: "a\ny\nb\n"), .conflict)
    XCTAssertEqual(TextMerge.merge(base: base, ours: "a\nx\nb\n", theirs: "a\nx\nb\n"), .clean("a\nx\nb\n"))
    // Insertions at different places merge, each where its side put it.
    XCTAssertEqual(
      TextMerge.merge(base: "a\nb\nc\n", ours: "x\na\nb\nc\n", theirs: "a\nb\nc\ny\n"), .clean("x\na\nb\nc\ny\n"))
  }

  func testCRLFIsPreserved() {
    let base = "a\r\nb\r\nc\r\nd\r\n"
    let ours = "A\r\nb\r\nc\r\nd\r\n"
    let theirs = "a\r\nb\r\nc\r\nD\r\n"
    XCTAssertEqual(TextMerge.merge(base: base, ours: ours, theirs: theirs), .clean("A\r\nb\r\nc\r\nD\r\n"))
    // Mixed endings: each line keeps the break its contributor wrote.
    XCTAssertEqual(
      TextMerge.merge(base: "a\nb\nc\nd\n", ours: "a\r\nb\nc\nd\n", theirs: "a\nb\nc\nd2\n"),
      .clean("a\r\nb\nc\nd2\n"))
  }

  func testLastLineWithoutBreak() {
    XCTAssertEqual(
      TextMerge.merge(base: "a\nb\nc", ours: "A\nb\nc", theirs: "a\nb\nc\nd"), .clean("A\nb\nc\nd"))
  }

  func testEmptyBase() {
    XCTAssertEqual(TextMerge.merge(base: "", ours: "x\n", theirs: "y\n"), .conflict)
    XCTAssertEqual(TextMerge.merge(base: "", ours: "x\n", theirs: "x\n"), .clean("x\n"))
    XCTAssertEqual(TextMerge.merge(base: "", ours: "", theirs: "y\n"), .clean("y\n"))
  }

  func testDeletionsOnBothSidesOfDifferentLines() {
    XCTAssertEqual(TextMerge.merge(base: "a\nb\nc\nd\n", ours: "b\nc\nd\n", theirs: "a\nb\nc\n"), .clean("b\nc\n"))
  }

  func testAdjacentEditsConflictAsInGit() {
    // git's merge treats edits of neighbouring lines as one conflict too (checked with `git merge-file`).
    XCTAssertEqual(TextMerge.merge(base: "a\nb\nc\n", ours: "A\nb\nc\n", theirs: "a\nB\nc\n"), .conflict)
  }

  func testLineDiffMatchesALongestCommonSubsequence() {
    let old = Array("ABCABBA").map(String.init)
    let new = Array("CBABAC").map(String.init)
    let matches = LineDiff.matches(old, new)
    // The LCS of these classic Myers inputs has length 4.
    XCTAssertEqual(matches.compactMap { $0 }.count, 4)
    var last = -1
    for (i, j) in matches.enumerated() {
      guard let j else { continue }
      XCTAssertEqual(old[i], new[j])
      XCTAssertGreaterThan(j, last)
      last = j
    }
  }

  func testLargeNoteWithFewEditsIsFast() {
    let lines = (0..<20_000).map { "line \($0)\n" }
    let base = lines.joined()
    var ours = lines
    ours[100] = "ours\n"
    var theirs = lines
    theirs[19_000] = "theirs\n"
    var expected = lines
    expected[100] = "ours\n"
    expected[19_000] = "theirs\n"
    let start = Date()
    XCTAssertEqual(
      TextMerge.merge(base: base, ours: ours.joined(), theirs: theirs.joined()), .clean(expected.joined()))
    XCTAssertLessThan(Date().timeIntervalSince(start), 5)
  }

  func testBeyondTheEditDistanceLimitTheMergeIsStillCorrect() {
    // Every other line changed on our side: far more differing lines than the diff searches.
    let count = 2 * LineDiff.maxEditDistance + 10
    let lines = (0..<count).map { "line \($0)\n" }
    var ours = lines
    for index in stride(from: 0, to: count - 1, by: 2) { ours[index] = "changed \(index)\n" }
    let theirs = lines + ["appended\n"]
    XCTAssertEqual(
      TextMerge.merge(base: lines.joined(), ours: ours.joined(), theirs: theirs.joined()),
      .clean(ours.joined() + "appended\n"))
    // A change by theirs inside the region ours rewrote is reported, not guessed.
    var inside = lines
    inside[count / 2 + 1] = "theirs\n"
    XCTAssertEqual(TextMerge.merge(base: lines.joined(), ours: ours.joined(), theirs: inside.joined()), .conflict)
  }
}

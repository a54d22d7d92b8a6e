import Foundation
import XCTest

@testable import NoteStore

/// `NoteFileMerge` (what `nb merge-driver note` runs) and the marked text merge under it; every expected text is
/// written by hand from the inputs, markers in git's default style.
final class MergeNoteFileTests: XCTestCase {
  private func merge(_ base: String, _ ours: String, _ theirs: String, markers: ConflictMarkers = ConflictMarkers())
    -> NoteFileMerge.Outcome
  {
    NoteFileMerge.merge(base: Data(base.utf8), ours: Data(ours.utf8), theirs: Data(theirs.utf8), markers: markers)
  }

  private func note(tags: String, updated: String, body: String) -> String {
    "---\nid: n1\ntitle: Plan\nupdated: \(updated)\ntags: \(tags)\n---\n\(body)"
  }

  func testTagEditAndStampedBodyEditMergeWithTheLaterStamp() {
    let base = note(tags: "[work]", updated: "2024-05-01T10:00:00+00:00", body: "one\ntwo\nthree\n")
    let ours = note(tags: "[work]", updated: "2024-05-02T10:00:00+00:00", body: "one\ntwo, revised\nthree\n")
    let theirs = note(tags: "[work, urgent]", updated: "2024-05-01T10:00:00+00:00", body: "one\ntwo\nthree\n")
    let expected = note(
      tags: "[work, urgent]", updated: "2024-05-02T10:00:00+00:00", body: "one\ntwo, revised\nthree\n")
    XCTAssertEqual(merge(base, ours, theirs), .merged(Data(expected.utf8)))
    // The same from the other side: the later stamp wins whichever side holds it.
    XCTAssertEqual(merge(base, theirs, ours), .merged(Data(expected.utf8)))
  }

  func testBothStampsChangedTakeTheLaterOne() {
    let base = note(tags: "[a]", updated: "2024-05-01T10:00:00+00:00", body: "one\ntwo\nthree\n")
    let ours = note(tags: "[a]", updated: "2024-05-03T10:00:00+00:00", body: "ONE\ntwo\nthree\n")
    let theirs = note(tags: "[a]", updated: "2024-05-02T10:00:00+00:00", body: "one\ntwo\nTHREE\n")
    let expected = note(tags: "[a]", updated: "2024-05-03T10:00:00+00:00", body: "ONE\ntwo\nTHREE\n")
    XCTAssertEqual(merge(base, ours, theirs), .merged(Data(expected.utf8)))
    XCTAssertEqual(merge(base, theirs, ours), .merged(Data(expected.utf8)))
  }

  func testSameBodyLineMarksOnlyThatLineAndStillMergesTheFrontMatter() {
    let base = note(tags: "[a]", updated: "2024-05-01T10:00:00+00:00", body: "one\ntwo\nthree\n")
    let ours = note(tags: "[a]", updated: "2024-05-03T10:00:00+00:00", body: "one\ntwo (A)\nthree\n")
    let theirs = note(tags: "[a, b]", updated: "2024-05-02T10:00:00+00:00", body: "one\ntwo (B)\nthree\n")
    let expected = note(
      tags: "[a, b]", updated: "2024-05-03T10:00:00+00:00",
      body: "one\n<<<<<<< ours\ntwo (A)\n=======\ntwo (B)\n>>>>>>> theirs\nthree\n")
    XCTAssertEqual(merge(base, ours, theirs), .conflicted(Data(expected.utf8), reason: "body"))
  }

  func testSameKeyChangedOnBothSidesMarksTheWholeFileLineByLine() {
    let base = "---\ntitle: Plan\n---\nbody\n"
    let ours = "---\ntitle: Plan A\n---\nbody\n"
    let theirs = "---\ntitle: Plan B\n---\nbody\n"
    let expected = "---\n<<<<<<<<< mine\ntitle: Plan A\n=========\ntitle: Plan B\n>>>>>>>>> yours\n---\nbody\n"
    XCTAssertEqual(
      merge(base, ours, theirs, markers: ConflictMarkers(size: 9, oursLabel: "mine", theirsLabel: "yours")),
      .conflicted(Data(expected.utf8), reason: "front matter key 'title'"))
  }

  func testUnparseableFrontMatterFallsBackToALineMerge() {
    // An unterminated block: NoteMerge refuses it, the plain line merge still combines distant edits...
    let base = "---\ntitle: x\none\ntwo\nthree\n"
    XCTAssertEqual(
      merge(base, "---\ntitle: x\nONE\ntwo\nthree\n", "---\ntitle: x\none\ntwo\nTHREE\n"),
      .merged(Data("---\ntitle: x\nONE\ntwo\nTHREE\n".utf8)))
    // ...and keeps both sides of a clash.
    guard
      case .conflicted(let data, _) = merge(
        base, "---\ntitle: y\none\ntwo\nthree\n", "---\ntitle: z\none\ntwo\nthree\n")
    else { return XCTFail("expected a conflict") }
    XCTAssertEqual(
      String(decoding: data, as: UTF8.self),
      "---\n<<<<<<< ours\ntitle: y\n=======\ntitle: z\n>>>>>>> theirs\none\ntwo\nthree\n")
  }

  func testNotUTF8IsMergedByteForByte() {
    let base = Data("caf\u{E9}\nmid\nend\n".unicodeScalars.map { UInt8($0.value) })  // ISO 8859-1 é
    let ours = Data("caf\u{E9} ours\nmid\nend\n".unicodeScalars.map { UInt8($0.value) })
    let theirs = Data("caf\u{E9}\nmid\nend \u{FF}\n".unicodeScalars.map { UInt8($0.value) })
    XCTAssertNil(String(validating: ours, as: UTF8.self), "the scenario must not be UTF-8")
    XCTAssertEqual(
      NoteFileMerge.merge(base: base, ours: ours, theirs: theirs),
      .merged(Data("caf\u{E9} ours\nmid\nend \u{FF}\n".unicodeScalars.map { UInt8($0.value) })))
    let clash = Data("caf\u{E9} theirs\nmid\nend\n".unicodeScalars.map { UInt8($0.value) })
    let expected =
      Data("<<<<<<< ".utf8) + Data("\u{E9}".utf8)
      + Data("\ncaf\u{E9} ours\n=======\ncaf\u{E9} theirs\n".unicodeScalars.map { UInt8($0.value) })
      + Data(">>>>>>> theirs\nmid\nend\n".utf8)
    // A label outside ASCII is written as UTF-8 even in a file that is not.
    XCTAssertEqual(
      NoteFileMerge.merge(base: base, ours: ours, theirs: clash, markers: ConflictMarkers(oursLabel: "\u{E9}")),
      .conflicted(expected, reason: "not UTF-8 text"))
  }

  func testMarkersFollowCRLFAndCloseALastLineWithoutBreak() {
    let marked = TextMerge.mergeMarkingConflicts(
      base: "a\r\nb", ours: "a\r\nB1", theirs: "a\r\nB2", markers: ConflictMarkers())
    XCTAssertEqual(marked.text, "a\r\n<<<<<<< ours\r\nB1\r\n=======\r\nB2\r\n>>>>>>> theirs\r\n")
    XCTAssertEqual(marked.conflicts, 1)
  }

  func testLinesBothSidesAddedAroundAClashStayOutsideTheMarkers() {
    let marked = TextMerge.mergeMarkingConflicts(
      base: "a\nb\nc\n", ours: "a\nsame\nB1\ntail\nc\n", theirs: "a\nsame\nB2\ntail\nc\n", markers: ConflictMarkers())
    XCTAssertEqual(marked.text, "a\nsame\n<<<<<<< ours\nB1\n=======\nB2\n>>>>>>> theirs\ntail\nc\n")
  }

  func testTwoClashesAreCountedAndCleanChunksBetweenThemMerged() {
    let marked = TextMerge.mergeMarkingConflicts(
      base: "1\n2\n3\n4\n5\n", ours: "1a\n2\n3a\n4\n5a\n", theirs: "1b\n2\n3\n4\n5b\n", markers: ConflictMarkers())
    XCTAssertEqual(
      marked.text,
      "<<<<<<< ours\n1a\n=======\n1b\n>>>>>>> theirs\n2\n3a\n4\n<<<<<<< ours\n5a\n=======\n5b\n>>>>>>> theirs\n")
    XCTAssertEqual(marked.conflicts, 2)
  }
}

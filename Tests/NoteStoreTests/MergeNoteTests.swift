import XCTest

@testable import NoteStore

/// Note-level merges: front matter key by key, body by lines. Expected texts are written by hand.
final class MergeNoteTests: XCTestCase {
  private let base = """
    ---
    id: 11111111-1111-4111-8111-111111111111
    title: Plan   # the working title
    created: 2026-11-01T09:00:00+01:00
    updated: 2026-11-20T10:00:00+01:00
    tags: [work, q3]
    status: draft
    ---
    # Plan

    first
    second
    third

    """

  func testDifferentKeysAndBodyLinesMerge() {
    let ours = base.replacingOccurrences(of: "status: draft", with: "status: review")
      .replacingOccurrences(of: "first\n", with: "first (ours)\n")
      .replacingOccurrences(of: "updated: 2026-11-20T10:00:00+01:00", with: "updated: 2026-11-21T10:00:00+01:00")
    let theirs = base.replacingOccurrences(of: "title: Plan   # the working title", with: "title: \"Plan B\"")
      .replacingOccurrences(of: "third\n", with: "third (theirs)\n")
      .replacingOccurrences(of: "updated: 2026-11-20T10:00:00+01:00", with: "updated: 2026-11-22T08:30:00Z")
    let expected = """
      ---
      id: 11111111-1111-4111-8111-111111111111
      title: "Plan B"
      created: 2026-11-01T09:00:00+01:00
      updated: 2026-11-22T08:30:00Z
      tags: [work, q3]
      status: review
      ---
      # Plan

      first (ours)
      second
      third (theirs)

      """
    XCTAssertEqual(NoteMerge.merge(base: base, ours: ours, theirs: theirs), .clean(expected))
  }

  func testSameKeyChangedDifferentlyConflicts() {
    let ours = base.replacingOccurrences(of: "status: draft", with: "status: review")
    let theirs = base.replacingOccurrences(of: "status: draft", with: "status: done")
    XCTAssertEqual(
      NoteMerge.merge(base: base, ours: ours, theirs: theirs), .conflict(reason: "front matter key 'status'"))
  }

  func testSameBodyLinesChangedDifferentlyConflicts() {
    let ours = base.replacingOccurrences(of: "second\n", with: "2nd\n")
    let theirs = base.replacingOccurrences(of: "second\n", with: "zweite\n")
    XCTAssertEqual(NoteMerge.merge(base: base, ours: ours, theirs: theirs), .conflict(reason: "body"))
  }

  func testTagsAreSetsAdditionsAndRemovalsFromBoth() {
    // Ours removes q3 and adds home; theirs adds urgent. Result: ours' order, then theirs' new tag.
    let ours = base.replacingOccurrences(of: "tags: [work, q3]", with: "tags: [work, home]")
    let theirs = base.replacingOccurrences(of: "tags: [work, q3]", with: "tags: [work, q3, urgent]")
    let expected = base.replacingOccurrences(of: "tags: [work, q3]", with: "tags: [work, home, urgent]")
    XCTAssertEqual(NoteMerge.merge(base: base, ours: ours, theirs: theirs), .clean(expected))
  }

  func testCreatedTakesTheEarlierAndUpdatedTheLaterInstant() {
    // Instants compare in UTC: theirs' created 07:30Z is before ours' 09:00+01:00 (08:00Z).
    let ours = base.replacingOccurrences(
      of: "updated: 2026-11-20T10:00:00+01:00", with: "updated: 2026-11-21T12:00:00+01:00"
    ).replacingOccurrences(of: "first\n", with: "first!\n")
    let theirs = base.replacingOccurrences(
      of: "created: 2026-11-01T09:00:00+01:00", with: "created: 2026-11-01T07:30:00Z"
    ).replacingOccurrences(of: "updated: 2026-11-20T10:00:00+01:00", with: "updated: 2026-11-21T10:30:00Z")
    // Ours' updated (11:00Z) is later than theirs' (10:30Z) and stays; theirs' created is earlier and is taken.
    let expected = base.replacingOccurrences(
      of: "created: 2026-11-01T09:00:00+01:00", with: "created: 2026-11-01T07:30:00Z"
    ).replacingOccurrences(of: "updated: 2026-11-20T10:00:00+01:00", with: "updated: 2026-11-21T12:00:00+01:00")
      .replacingOccurrences(of: "first\n", with: "first!\n")
    XCTAssertEqual(NoteMerge.merge(base: base, ours: ours, theirs: theirs), .clean(expected))
  }

  func testKeyAddedOnOneSideIsAddedAndRemovedOnOneSideIsRemoved() {
    let ours = base.replacingOccurrences(of: "status: draft\n", with: "status: draft\npriority: 2\n")
    let theirs = base.replacingOccurrences(of: "title: Plan   # the working title\n", with: "")
    let expected = """
      ---
      id: 11111111-1111-4111-8111-111111111111
      created: 2026-11-01T09:00:00+01:00
      updated: 2026-11-20T10:00:00+01:00
      tags: [work, q3]
      status: draft
      priority: 2
      ---
      # Plan

      first
      second
      third

      """
    XCTAssertEqual(NoteMerge.merge(base: base, ours: ours, theirs: theirs), .clean(expected))
    // The other way round, the added key is appended to ours' block as theirs wrote it: here the same place.
    XCTAssertEqual(NoteMerge.merge(base: base, ours: theirs, theirs: ours), .clean(expected))
  }

  func testBlockListValueTakenWithItsLines() {
    let ours = base.replacingOccurrences(of: "status: draft\n", with: "people:\n  - ann\n  - bob\nstatus: draft\n")
    let theirs = base.replacingOccurrences(of: "third\n", with: "third\nfourth\n")
    let expected = """
      ---
      id: 11111111-1111-4111-8111-111111111111
      title: Plan   # the working title
      created: 2026-11-01T09:00:00+01:00
      updated: 2026-11-20T10:00:00+01:00
      tags: [work, q3]
      status: draft
      people:
        - ann
        - bob
      ---
      # Plan

      first
      second
      third
      fourth

      """
    // Ours is the text edited, so `people` stays where ours wrote it when theirs is the side that is applied...
    XCTAssertEqual(
      NoteMerge.merge(base: base, ours: ours, theirs: theirs),
      .clean(ours.replacingOccurrences(of: "third\n", with: "third\nfourth\n")))
    // ...and is appended to the block when it comes from theirs.
    XCTAssertEqual(NoteMerge.merge(base: base, ours: theirs, theirs: ours), .clean(expected))
  }

  func testCRLFNoteMergesWithCRLFKept() {
    let crlfBase = base.replacingOccurrences(of: "\n", with: "\r\n")
    let ours = crlfBase.replacingOccurrences(of: "first\r\n", with: "one\r\n")
    let theirs = crlfBase.replacingOccurrences(of: "status: draft\r\n", with: "status: final\r\n")
    let expected = crlfBase.replacingOccurrences(of: "first\r\n", with: "one\r\n")
      .replacingOccurrences(of: "status: draft\r\n", with: "status: final\r\n")
    XCTAssertEqual(NoteMerge.merge(base: crlfBase, ours: ours, theirs: theirs), .clean(expected))
  }

  func testNoBaseMergesIdenticalFrontMatterButConflictsOnDifferentBodies() {
    let ours = "---\nid: x\n---\nalpha\n"
    let theirs = "---\nid: x\n---\nbeta\n"
    XCTAssertEqual(NoteMerge.merge(base: nil, ours: ours, theirs: theirs), .conflict(reason: "body"))
    XCTAssertEqual(NoteMerge.merge(base: nil, ours: ours, theirs: ours), .clean(ours))
  }

  func testUnterminatedFrontMatterConflictsRatherThanGuess() {
    let base = "---\na\nb\nc\n"
    XCTAssertEqual(
      NoteMerge.merge(base: base, ours: "---\nA\nb\nc\n", theirs: "---\na\nb\nC\n"),
      .conflict(reason: "front matter line 1: '---' is never closed by a '---' or '...' line"))
  }

  func testSetMerge() {
    XCTAssertEqual(NoteMerge.setMerge(base: ["a", "b"], ours: ["b", "c"], theirs: ["a", "b", "d"]), ["b", "c", "d"])
    XCTAssertEqual(NoteMerge.setMerge(base: [], ours: ["x"], theirs: ["x", "y"]), ["x", "y"])
    XCTAssertEqual(NoteMerge.setMerge(base: ["a"], ours: [], theirs: []), [])
  }
}

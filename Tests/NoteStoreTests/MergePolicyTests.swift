import InkKit
import NBTestSupport
import XCTest

@testable import NoteStore

/// One test per row of the conflict table in issue 3, plus the timestamp rules. Expected trees are written by hand.
final class MergePolicyTests: XCTestCase {
  private let now = Date(timeIntervalSince1970: 1_795_321_600)  // 2026-11-22T04:26:40Z
  private let id = "0a0a0a0a-0000-4000-8000-000000000001"
  private let other = "0b0b0b0b-0000-4000-8000-000000000002"

  // MARK: - Helpers

  private func note(_ id: String?, _ updated: String?, _ body: String, extra: String = "") -> String {
    var text = "---\n"
    if let id { text += "id: \(id)\n" }
    if let updated { text += "updated: \(updated)\n" }
    return text + extra + "---\n" + body
  }

  private func version(_ text: String, at time: TimeInterval = 0) -> FileVersion {
    FileVersion(bytes: Data(text.utf8), commitTime: Date(timeIntervalSince1970: 1_795_000_000 + time))
  }

  private func tree(_ pairs: [String: String], at time: TimeInterval = 0) -> [String: FileVersion] {
    pairs.mapValues { version($0, at: time) }
  }

  private func resolve(
    base: [String: FileVersion], ours: [String: FileVersion], theirs: [String: FileVersion],
    force: Bool = false, file: StaticString = #filePath, line: UInt = #line
  ) -> (tree: [String: String], report: SyncReport)? {
    switch SyncPolicy.resolve(base: base, ours: ours, theirs: theirs, device: "My Laptop", now: now, force: force) {
    case .needsForce(let reason):
      XCTFail("unexpected needsForce: \(reason)", file: file, line: line)
      return nil
    case .resolved(let tree, let report):
      return (tree.mapValues { String(decoding: $0, as: UTF8.self) }, report)
    }
  }

  /// The id written into a conflict copy: it must be a new well-formed id.
  private func copyID(_ text: String?, file: StaticString = #filePath, line: UInt = #line) -> String {
    guard let text, let id = try? FrontMatter.read(text).id else {
      XCTFail("no conflict copy", file: file, line: line)
      return ""
    }
    XCTAssertTrue(NoteID.isWellFormed(id), file: file, line: line)
    XCTAssertNotEqual(id, self.id, file: file, line: line)
    return id
  }

  // MARK: - Rows of the table

  func testChangedOnOneSideOnlyTakesThatSide() {
    let base = tree(["a.md": note(id, "2026-11-20T10:00:00Z", "one\n"), "b.md": note(other, nil, "two\n")])
    let ours = tree(["a.md": note(id, "2026-11-21T10:00:00Z", "one, edited\n"), "b.md": note(other, nil, "two\n")])
    let theirs = tree(["a.md": note(id, "2026-11-20T10:00:00Z", "one\n"), "b.md": note(other, nil, "2\n")])
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(
      result.tree,
      [
        "a.md": "---\nid: \(id)\nupdated: 2026-11-21T10:00:00Z\n---\none, edited\n",
        "b.md": "---\nid: \(other)\n---\n2\n",
      ])
    XCTAssertEqual(result.report, SyncReport())
  }

  func testBothChangedDifferentPartsMerge() {
    let base = tree(["n/a.md": note(id, "2026-11-20T10:00:00Z", "one\ntwo\nthree\n", extra: "tags: [x]\n")])
    let ours = tree(["n/a.md": note(id, "2026-11-21T10:00:00Z", "ONE\ntwo\nthree\n", extra: "tags: [x, y]\n")])
    let theirs = tree(["n/a.md": note(id, "2026-11-21T09:00:00Z", "one\ntwo\nTHREE\n", extra: "tags: [z]\n")])
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    // The tag list is rewritten by nb's tag editor, which quotes `y` (YAML 1.1 reads a plain `y` as a boolean).
    XCTAssertEqual(
      result.tree, ["n/a.md": "---\nid: \(id)\nupdated: 2026-11-21T10:00:00Z\ntags: [\"y\", z]\n---\nONE\ntwo\nTHREE\n"]
    )
    var report = SyncReport()
    report.merged = ["n/a.md"]
    XCTAssertEqual(result.report, report)
  }

  func testBothChangedSameLinesLaterUpdatedKeepsPathOtherBecomesConflictCopy() {
    let base = tree(["n/plan.md": note(id, "2026-11-20T10:00:00Z", "draft\n")])
    let ours = tree(["n/plan.md": note(id, "2026-11-21T10:00:00+02:00", "ours\n")])  // 08:00Z
    let theirs = tree(["n/plan.md": note(id, "2026-11-21T09:00:00Z", "theirs\n")])
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    let copyPath = "n/plan.conflict-20261121T080000Z-my-laptop.md"
    XCTAssertEqual(Set(result.tree.keys), ["n/plan.md", copyPath])
    XCTAssertEqual(result.tree["n/plan.md"], "---\nid: \(id)\nupdated: 2026-11-21T09:00:00Z\n---\ntheirs\n")
    let newID = copyID(result.tree[copyPath])
    XCTAssertEqual(
      result.tree[copyPath],
      "---\nid: \(newID)\nupdated: 2026-11-21T10:00:00+02:00\nconflict_of: \(id)\n---\nours\n")
    XCTAssertEqual(
      result.report.conflicts,
      [SyncConflict(path: "n/plan.md", winner: .theirs, loser: .ours, loserPath: copyPath, reason: "body")])
    // Deterministic: the same inputs give the same copy id.
    guard let again = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(again.tree, result.tree)
  }

  func testConflictCopyNameClashGetsASuffix() {
    let copyPath = "plan.conflict-20261121T080000Z-my-laptop.md"
    let existing = note(other, nil, "an older copy\n")
    let base = tree(["plan.md": note(id, "2026-11-20T10:00:00Z", "draft\n"), copyPath: existing])
    let ours = tree(["plan.md": note(id, "2026-11-21T08:00:00Z", "ours\n"), copyPath: existing])
    let theirs = tree(["plan.md": note(id, "2026-11-21T09:00:00Z", "theirs\n"), copyPath: existing])
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    let second = "plan.conflict-20261121T080000Z-my-laptop-2.md"
    XCTAssertEqual(Set(result.tree.keys), ["plan.md", copyPath, second])
    XCTAssertEqual(result.tree[copyPath], existing)
    let newID = copyID(result.tree[second])
    XCTAssertEqual(
      result.tree[second], "---\nid: \(newID)\nupdated: 2026-11-21T08:00:00Z\nconflict_of: \(id)\n---\nours\n")
  }

  func testEditedOnOneSideDeletedOnTheOtherIsResurrected() {
    let base = tree(["a.md": note(id, "2026-11-20T10:00:00Z", "one\n")])
    let edited = note(id, "2026-11-21T10:00:00Z", "one more\n")
    for (ours, theirs) in [(tree([:]), tree(["a.md": edited])), (tree(["a.md": edited]), tree([:]))] {
      guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
      XCTAssertEqual(result.tree, ["a.md": edited])
      var report = SyncReport()
      report.resurrected = ["a.md"]
      XCTAssertEqual(result.report, report)
    }
    // Deleted on one side and untouched on the other: deleted.
    guard let deleted = resolve(base: base, ours: tree([:]), theirs: base) else { return }
    XCTAssertEqual(deleted.tree, [:])
  }

  func testRenamedOnOneSideEditedOnTheOtherLandsAtTheNewPath() {
    let base = tree(["inbox/a.md": note(id, "2026-11-20T10:00:00Z", "one\n")])
    let ours = tree(["work/renamed.md": note(id, "2026-11-20T10:00:00Z", "one\n")])
    let theirs = tree(["inbox/a.md": note(id, "2026-11-21T10:00:00Z", "one, edited\n")])
    for (o, t) in [(ours, theirs), (theirs, ours)] {
      guard let result = resolve(base: base, ours: o, theirs: t) else { return }
      XCTAssertEqual(
        result.tree, ["work/renamed.md": "---\nid: \(id)\nupdated: 2026-11-21T10:00:00Z\n---\none, edited\n"])
      XCTAssertEqual(result.report, SyncReport())
    }
  }

  func testRenamedToDifferentPlacesOnBothSidesLaterUpdatedPicksThePath() {
    let base = tree(["a.md": note(id, "2026-11-20T10:00:00Z", "one\n")])
    let ours = tree(["x/first.md": note(id, "2026-11-21T10:00:00Z", "one\n")])
    let theirs = tree(["y/second.md": note(id, "2026-11-21T11:00:00Z", "one\n")])
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(result.tree, ["y/second.md": "---\nid: \(id)\nupdated: 2026-11-21T11:00:00Z\n---\none\n"])
    XCTAssertEqual(result.report.conflicts, [])
    // Ours later: ours' path.
    let laterOurs = tree(["x/first.md": note(id, "2026-11-21T12:00:00Z", "one\n")])
    guard let flipped = resolve(base: base, ours: laterOurs, theirs: theirs) else { return }
    XCTAssertEqual(flipped.tree, ["x/first.md": "---\nid: \(id)\nupdated: 2026-11-21T12:00:00Z\n---\none\n"])
  }

  func testBothAddedDifferentNotesAtTheSamePathKeepsBoth() {
    let ours = tree(["inbox/idea.md": note(id, "2026-11-21T10:00:00Z", "mine\n")])
    let theirs = tree(
      [
        "inbox/idea.md": note(other, "2026-11-21T11:00:00Z", "yours\n"),
        "inbox/idea.ink.jsonl": "{\"nbink\":1}\n",
      ])
    guard let result = resolve(base: [:], ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(
      result.tree,
      [
        "inbox/idea.md": "---\nid: \(id)\nupdated: 2026-11-21T10:00:00Z\n---\nmine\n",
        "inbox/idea-2.md": "---\nid: \(other)\nupdated: 2026-11-21T11:00:00Z\n---\nyours\n",
        "inbox/idea-2.ink.jsonl": "{\"nbink\":1}\n",
      ])
    XCTAssertEqual(result.report.conflicts, [])
    XCTAssertEqual(result.report.warnings.count, 1)
    // Notes without ids added at one path on both sides are kept the same way.
    guard
      let plain = resolve(
        base: [:], ours: tree(["n.md": "mine\n"]), theirs: tree(["n.md": "yours\n"]))
    else { return }
    XCTAssertEqual(plain.tree, ["n.md": "mine\n", "n-2.md": "yours\n"])
  }

  func testInkDrawnOnBothSidesMergesStrokeByStroke() {
    let header = #"{"nbink":1,"unit":"pt","q":{"xy":100,"t":1000,"wh":100,"o":1000,"f":1000,"ang":1000}}"# + "\n"
    func line(_ id: String, _ order: String, _ color: String = "000000ff") -> String {
      #"{"k":"s","id":""# + id + #"","ord":""# + order + #"","ink":"pen","rgba":""# + color
        + #"","tf":[1,0,0,1,0,0],"x":[100,5],"y":[200,-5]}"# + "\n"
    }
    let base = tree([
      "d/sketch.md": note(id, "2026-11-20T10:00:00Z", "ink\n"),
      "d/sketch.ink.jsonl": header + line("shared", "a") + line("recoloured", "a1"),
    ])
    // Ours (later) adds a stroke and recolours one; theirs erases the shared stroke, recolours the same one and adds.
    let ours = tree([
      "d/sketch.md": note(id, "2026-11-21T10:00:00Z", "ink\n"),
      "d/sketch.ink.jsonl": header + line("shared", "a") + line("recoloured", "a1", "ff0000ff") + line("mine", "b"),
    ])
    let theirs = tree([
      "d/sketch.md": note(id, "2026-11-21T09:00:00Z", "ink\n"),
      "d/sketch.ink.jsonl": header + line("recoloured", "a1", "00ff00ff") + line("yours", "c"),
    ])
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(Set(result.tree.keys), ["d/sketch.md", "d/sketch.ink.jsonl"])
    XCTAssertEqual(
      result.tree["d/sketch.ink.jsonl"],
      header + line("recoloured", "a1", "ff0000ff") + line("mine", "b") + line("yours", "c"))
    XCTAssertEqual(result.report.conflicts, [])
    // Merging the other way round gives the same drawing; the later side (now theirs) wins the recolouring.
    guard let flipped = resolve(base: base, ours: theirs, theirs: ours) else { return }
    XCTAssertEqual(flipped.tree["d/sketch.ink.jsonl"], result.tree["d/sketch.ink.jsonl"])
    // One side removed the whole sidecar, the other drew: what the other drew stays, erased strokes go.
    let removed = tree(["d/sketch.md": note(id, "2026-11-21T09:00:00Z", "ink\n")])
    guard let kept = resolve(base: base, ours: ours, theirs: removed) else { return }
    XCTAssertEqual(
      kept.tree["d/sketch.ink.jsonl"], header + line("recoloured", "a1", "ff0000ff") + line("mine", "b"))
    XCTAssertEqual(kept.report.conflicts, [])
  }

  /// Random drawing on two devices, resolved by the sync policy in both directions: the note's ink is the union of
  /// both devices' new strokes minus both devices' erasures, the same bytes either way, and no conflict copy.
  func testRandomConcurrentDrawingMergesStrokeByStrokeThroughThePolicy() throws {
    var random = SplitMix64(seed: 77)
    func stroke(_ name: String) -> InkStroke {
      InkStroke(
        id: name, order: "a", points: [InkPoint(x: Double.random(in: 0...100, using: &random).rounded(), y: 1)])
    }
    for round in 0..<150 {
      let shared = (0..<Int.random(in: 0...8, using: &random)).map { stroke("r\(round)-s\($0)") }
      var expected = Set(shared.map(\.id))
      func device(_ name: String, hour: Int) -> [String: FileVersion] {
        var drawing = InkDocument(strokes: shared)
        for step in 0..<Int.random(in: 0...6, using: &random) {
          if Bool.random(using: &random), let victim = drawing.strokes.randomElement(using: &random) {
            drawing.erase(id: victim.id)
            expected.remove(victim.id)
          } else {
            try! drawing.add(stroke("r\(round)-\(name)-\(step)"))
            expected.insert("r\(round)-\(name)-\(step)")
          }
        }
        return tree([
          "d/sketch.md": note(id, "2026-11-21T\(hour):00:00Z", "ink\n"),
          "d/sketch.ink.jsonl": String(decoding: InkCodec.serialize(drawing), as: UTF8.self),
        ])
      }
      let base = tree([
        "d/sketch.md": note(id, "2026-11-20T10:00:00Z", "ink\n"),
        "d/sketch.ink.jsonl": String(decoding: InkCodec.serialize(InkDocument(strokes: shared)), as: UTF8.self),
      ])
      let ours = device("ours", hour: 10)
      let theirs = device("theirs", hour: 11)
      guard let forward = resolve(base: base, ours: ours, theirs: theirs),
        let backward = resolve(base: base, ours: theirs, theirs: ours)
      else { return }
      let ink = forward.tree["d/sketch.ink.jsonl"].map { try? InkCodec.parse(Data($0.utf8)) } ?? InkDocument()
      XCTAssertEqual(Set(ink?.strokes.map(\.id) ?? []), expected, "round \(round)")
      XCTAssertEqual(forward.tree["d/sketch.ink.jsonl"], backward.tree["d/sketch.ink.jsonl"], "round \(round)")
      XCTAssertEqual(forward.report.conflicts, [], "round \(round)")
      XCTAssertEqual(Set(forward.tree.keys).subtracting(["d/sketch.md", "d/sketch.ink.jsonl"]), [], "round \(round)")
    }
  }

  func testUnreadableSidecarsTravelWithTheirNoteAndTheLoserIsCopied() {
    let inkBase = "{\"nbink\":1}\n"
    let inkOurs = inkBase + "{\"k\":\"s\",\"id\":\"a\"}\n"
    let inkTheirs = inkBase + "{\"k\":\"s\",\"id\":\"b\"}\n"
    let base = tree(["d/sketch.md": note(id, "2026-11-20T10:00:00Z", "ink\n"), "d/sketch.ink.jsonl": inkBase])
    let ours = tree(["d/sketch.md": note(id, "2026-11-21T10:00:00Z", "ink\n"), "d/sketch.ink.jsonl": inkOurs])
    let theirs = tree(["d/sketch.md": note(id, "2026-11-21T09:00:00Z", "ink\n"), "d/sketch.ink.jsonl": inkTheirs])
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    let copy = "d/sketch.conflict-20261121T090000Z-my-laptop"
    XCTAssertEqual(
      Set(result.tree.keys), ["d/sketch.md", "d/sketch.ink.jsonl", copy + ".md", copy + ".ink.jsonl"])
    XCTAssertEqual(result.tree["d/sketch.md"], "---\nid: \(id)\nupdated: 2026-11-21T10:00:00Z\n---\nink\n")
    XCTAssertEqual(result.tree["d/sketch.ink.jsonl"], inkOurs)
    XCTAssertEqual(result.tree[copy + ".ink.jsonl"], inkTheirs)
    let newID = copyID(result.tree[copy + ".md"])
    XCTAssertEqual(
      result.tree[copy + ".md"], "---\nid: \(newID)\nupdated: 2026-11-21T09:00:00Z\nconflict_of: \(id)\n---\nink\n")
    XCTAssertEqual(
      result.report.conflicts,
      [SyncConflict(path: "d/sketch.md", winner: .ours, loser: .theirs, loserPath: copy + ".md", reason: "ink sidecar")]
    )
    // A sidecar renamed with its note on one side and changed on the other follows the note.
    let moved = tree(["e/sketch.md": note(id, "2026-11-20T10:00:00Z", "ink\n"), "e/sketch.ink.jsonl": inkBase])
    guard let followed = resolve(base: base, ours: moved, theirs: theirs) else { return }
    XCTAssertEqual(
      followed.tree,
      ["e/sketch.md": "---\nid: \(id)\nupdated: 2026-11-21T09:00:00Z\n---\nink\n", "e/sketch.ink.jsonl": inkTheirs])
  }

  func testDeletingMoreThanFiftyNotesNeedsForce() {
    var base: [String: String] = [:]
    for index in 0..<51 { base["n\(index).md"] = "note \(index)\n" }
    let before = tree(base)
    let result = SyncPolicy.resolve(base: before, ours: before, theirs: [:], device: "d", now: now)
    XCTAssertEqual(result, .needsForce(reason: "the merge would delete 51 notes (more than 50)"))
    guard let forced = resolve(base: before, ours: before, theirs: [:], force: true) else { return }
    XCTAssertEqual(forced.tree, [:])
    // Fifty is allowed.
    let fifty = tree(base.filter { $0.key != "n0.md" })
    guard let allowed = resolve(base: fifty, ours: fifty, theirs: [:]) else { return }
    XCTAssertEqual(allowed.tree, [:])
  }

  func testDeletingAWholeNotebookNeedsForce() {
    let base = tree(["keep.md": "k\n", "work/a.md": "a\n", "work/b.md": "b\n", "work/.notebook.yaml": "created: x\n"])
    let theirs = tree(["keep.md": "k\n"])
    let result = SyncPolicy.resolve(base: base, ours: base, theirs: theirs, device: "d", now: now)
    XCTAssertEqual(result, .needsForce(reason: "the merge would delete the whole notebook 'work'"))
    // Deleting some of its notes is an ordinary merge.
    guard let some = resolve(base: base, ours: base, theirs: tree(["keep.md": "k\n", "work/a.md": "a\n"])) else {
      return
    }
    XCTAssertEqual(some.tree, ["keep.md": "k\n", "work/a.md": "a\n"])
  }

  // MARK: - Timestamps

  func testWithoutUpdatedTheCommitTimeDecides() {
    let base = tree(["a.md": note(id, nil, "base\n")])
    let ours = ["a.md": version(note(id, nil, "ours\n"), at: 200)]
    let theirs = ["a.md": version(note(id, nil, "theirs\n"), at: 100)]
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(result.tree["a.md"], "---\nid: \(id)\n---\nours\n")
    // Commit time 1_795_000_100 is 2026-11-18T11:08:20Z (`date -u -d @1795000100`); the loser's edit time names
    // the copy.
    let expectedTime = SyncPolicy.compactUTC(Date(timeIntervalSince1970: 1_795_000_100))
    XCTAssertEqual(expectedTime, "20261118T110820Z")
    XCTAssertEqual(result.report.conflicts.map(\.loserPath), ["a.conflict-20261118T110820Z-my-laptop.md"])
    XCTAssertEqual(result.report.conflicts.map(\.winner), [.ours])
  }

  func testMoreThanADayInTheFutureIsUntrustedAndTheRemoteKeepsThePath() {
    let base = tree(["a.md": note(id, "2026-11-20T10:00:00Z", "base\n")])
    // `now` is 2026-11-22T04:26:40Z; 2026-11-24 is more than a day ahead.
    let future = tree(["a.md": note(id, "2026-11-24T00:00:00Z", "future\n")])
    let past = tree(["a.md": note(id, "2026-11-21T00:00:00Z", "past\n")])
    guard let oursFuture = resolve(base: base, ours: future, theirs: past) else { return }
    XCTAssertEqual(oursFuture.tree["a.md"], "---\nid: \(id)\nupdated: 2026-11-21T00:00:00Z\n---\npast\n")
    XCTAssertEqual(oursFuture.report.conflicts.map(\.winner), [.theirs])
    guard let theirsFuture = resolve(base: base, ours: past, theirs: future) else { return }
    XCTAssertEqual(theirsFuture.tree["a.md"], "---\nid: \(id)\nupdated: 2026-11-24T00:00:00Z\n---\nfuture\n")
    // Less than a day ahead is trusted.
    let soon = tree(["a.md": note(id, "2026-11-22T20:00:00Z", "soon\n")])
    guard let trusted = resolve(base: base, ours: soon, theirs: past) else { return }
    XCTAssertEqual(trusted.tree["a.md"], "---\nid: \(id)\nupdated: 2026-11-22T20:00:00Z\n---\nsoon\n")
  }

  func testTiesGoToTheRemoteComparedAsUTCInstants() {
    let base = tree(["a.md": note(id, "2026-11-20T10:00:00Z", "base\n")])
    let ours = tree(["a.md": note(id, "2026-11-21T12:00:00+02:00", "ours\n")])
    let theirs = tree(["a.md": note(id, "2026-11-21T10:00:00Z", "theirs\n")])
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(result.tree["a.md"], "---\nid: \(id)\nupdated: 2026-11-21T10:00:00Z\n---\ntheirs\n")
    XCTAssertEqual(result.report.conflicts.map(\.loserPath), ["a.conflict-20261121T100000Z-my-laptop.md"])
  }

  /// A side that changed the note but kept the base's `updated` (plain git, an editor that does not stamp) is timed
  /// by its commit: the stale stamp is an older edit's.
  func testAChangeThatKeptTheBaseUpdatedIsTimedByItsCommitAndWinsWhenLater() {
    let base = tree(["n/plan.md": note(id, "2026-11-20T10:00:00Z", "draft\n")])
    // 2026-11-21T08:00:00Z is 1_795_248_000; the plain-git commit is three seconds later.
    let ours = [
      "n/plan.md": FileVersion(
        bytes: Data(note(id, "2026-11-21T08:00:00Z", "ours\n").utf8),
        commitTime: Date(timeIntervalSince1970: 1_795_248_000),
        author: "Laptop")
    ]
    let theirs = [
      "n/plan.md": FileVersion(
        bytes: Data(note(id, "2026-11-20T10:00:00Z", "theirs\n").utf8),
        commitTime: Date(timeIntervalSince1970: 1_795_248_003), author: "Bob Plain")
    ]
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(result.tree["n/plan.md"], "---\nid: \(id)\nupdated: 2026-11-20T10:00:00Z\n---\ntheirs\n")
    // The copy holds ours' words and is named after ours' own edit time and device, not the merging device.
    let copyPath = "n/plan.conflict-20261121T080000Z-laptop.md"
    XCTAssertEqual(Set(result.tree.keys), ["n/plan.md", copyPath])
    XCTAssertTrue(result.tree[copyPath]?.hasSuffix("---\nours\n") ?? false, result.tree[copyPath] ?? "no copy")
    XCTAssertEqual(
      result.report.conflicts,
      [SyncConflict(path: "n/plan.md", winner: .theirs, loser: .ours, loserPath: copyPath, reason: "body")])
  }

  func testAChangeThatKeptTheBaseUpdatedLosesWhenItsCommitIsEarlierAndItsCopyIsNamedAfterItsCommit() {
    let base = tree(["n/plan.md": note(id, "2026-11-20T10:00:00Z", "draft\n")])
    let ours = [
      "n/plan.md": FileVersion(
        bytes: Data(note(id, "2026-11-21T08:00:00Z", "ours\n").utf8),
        commitTime: Date(timeIntervalSince1970: 1_795_248_000), author: "Laptop")
    ]
    // Committed three seconds before ours' stamp (2026-11-21T07:59:57Z), by a plain-git author.
    let theirs = [
      "n/plan.md": FileVersion(
        bytes: Data(note(id, "2026-11-20T10:00:00Z", "theirs\n").utf8),
        commitTime: Date(timeIntervalSince1970: 1_795_247_997), author: "Bob Plain")
    ]
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(result.tree["n/plan.md"], "---\nid: \(id)\nupdated: 2026-11-21T08:00:00Z\n---\nours\n")
    let copyPath = "n/plan.conflict-20261121T075957Z-bob-plain.md"
    XCTAssertEqual(Set(result.tree.keys), ["n/plan.md", copyPath])
    XCTAssertTrue(result.tree[copyPath]?.hasSuffix("---\ntheirs\n") ?? false, result.tree[copyPath] ?? "no copy")
    XCTAssertEqual(result.report.conflicts.map(\.winner), [.ours])
  }

  /// The rule is about a kept stamp only: a side that wrote a new `updated` is timed by it, even when its commit came
  /// later (a save stamps when the note was edited, not when it was committed).
  func testANewUpdatedStillDecidesOverALaterCommit() {
    let base = tree(["a.md": note(id, "2026-11-20T10:00:00Z", "base\n")])
    let ours = [
      "a.md": FileVersion(
        bytes: Data(note(id, "2026-11-21T08:00:00Z", "ours\n").utf8),
        commitTime: Date(timeIntervalSince1970: 1_795_248_000 + 7_200))
    ]
    let theirs = [
      "a.md": FileVersion(
        bytes: Data(note(id, "2026-11-21T09:00:00Z", "theirs\n").utf8),
        commitTime: Date(timeIntervalSince1970: 1_795_248_000))
    ]
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(result.tree["a.md"], "---\nid: \(id)\nupdated: 2026-11-21T09:00:00Z\n---\ntheirs\n")
    XCTAssertEqual(result.report.conflicts.map(\.loserPath), ["a.conflict-20261121T080000Z-my-laptop.md"])
  }

  // MARK: - Other files

  func testOtherFilesMergeByBytesAndLaterCommitWinsWithoutACopy() {
    // As git does with binaries: the later change keeps the path and the other stays in history (the merge's other
    // parent), with no conflict copy next to an app's settings file.
    let base = tree([".nb/config.yaml": "format: 1\n", "img/a.png": "A"])
    let ours = [".nb/config.yaml": version("format: 1\nx: 1\n", at: 300), "img/a.png": version("A")]
    let theirs = [".nb/config.yaml": version("format: 1\nx: 2\n", at: 100), "img/a.png": version("B", at: 50)]
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(result.tree, [".nb/config.yaml": "format: 1\nx: 1\n", "img/a.png": "B"])
    XCTAssertEqual(result.report.conflicts, [])
    XCTAssertEqual(result.report.warnings.count, 1)
    XCTAssertTrue(result.report.warnings[0].hasPrefix("'.nb/config.yaml' changed on both devices"))
    XCTAssertTrue(result.report.warnings[0].contains("this device's"))
  }

  func testNotesMatchByPathWhenOneSideHasNoIDYet() {
    // Base has no id; ours' commit added one (as nb does when committing an outside edit); theirs edited the body.
    let base = tree(["a.md": "---\ntitle: A\n---\none\ntwo\n"])
    let ours = tree(["a.md": "---\nid: \(id)\ntitle: A\n---\none\ntwo\n"])
    let theirs = tree(["a.md": "---\ntitle: A\n---\none\ntwo\nthree\n"])
    guard let result = resolve(base: base, ours: ours, theirs: theirs) else { return }
    XCTAssertEqual(result.tree, ["a.md": "---\nid: \(id)\ntitle: A\n---\none\ntwo\nthree\n"])
    XCTAssertEqual(result.report.merged, ["a.md"])
  }
}

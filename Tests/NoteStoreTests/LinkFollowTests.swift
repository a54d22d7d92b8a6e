import XCTest

@testable import NoteStore

/// The rename-versus-new-link race, pure: `LinkFollow` on hand-written trees, then through `SyncPolicy.merge` with
/// notes matched by id. Every expected text is written out whole, so a byte changed outside a link's path fails.
final class LinkFollowTests: XCTestCase {
  private typealias Note = LinkFollow.Note
  private typealias Version = LinkFollow.Version
  private typealias Side = LinkFollow.Side

  // MARK: - LinkFollow.follow

  func testWeRenamedTheyLinkedTheOldName() {
    let text = "See [[Plan]] and [[Other]].\n"
    let result = LinkFollow.follow(
      merged: ["notes/Roadmap.md", "Other.md", "c.md"],
      ours: Side(paths: ["notes/Roadmap.md", "Other.md"], moves: [:]),
      theirs: Side(paths: ["notes/Plan.md", "Other.md", "c.md"], moves: ["notes/Plan.md": "notes/Roadmap.md"]),
      notes: [Note(path: "c.md", text: text, ours: nil, theirs: Version(path: "c.md", text: text))])
    XCTAssertEqual(result.texts, ["c.md": "See [[Roadmap]] and [[Other]].\n"])
    XCTAssertEqual(result.followed, [FollowedLink(path: "c.md", line: 1, old: "Plan", new: "Roadmap")])
  }

  func testTheyRenamedWeLinkedTheOldNameInAMarkdownLinkWithPercentEncoding() {
    let text = "---\ntitle: x\n---\nintro\n[the plan](Some%20plan.md#Goals) and ![](pics/a%20b.png)\n"
    let result = LinkFollow.follow(
      merged: ["Other plan.md", "pics/a b.png", "x.md"],
      ours: Side(paths: ["Some plan.md", "pics/a b.png", "x.md"], moves: ["Some plan.md": "Other plan.md"]),
      theirs: Side(paths: ["Other plan.md", "pics/a b.png"], moves: [:]),
      notes: [Note(path: "x.md", text: text, ours: Version(path: "x.md", text: text), theirs: nil)])
    XCTAssertEqual(
      result.texts, ["x.md": "---\ntitle: x\n---\nintro\n[the plan](Other%20plan.md#Goals) and ![](pics/a%20b.png)\n"])
    XCTAssertEqual(
      result.followed, [FollowedLink(path: "x.md", line: 5, old: "Some%20plan.md", new: "Other%20plan.md")])
  }

  func testAMoveToAnotherFolderRewritesOnlyTheLinksItBroke() {
    // A bare name still unique after the move still works and is left; a relative path and a root path break.
    let text = "[[Plan]] [a](./Plan.md) [b](/Plan.md) [[Plan|shown]]\n"
    let result = LinkFollow.follow(
      merged: ["archive/Plan.md", "x.md"],
      ours: Side(paths: ["archive/Plan.md"], moves: [:]),
      theirs: Side(paths: ["Plan.md", "x.md"], moves: ["Plan.md": "archive/Plan.md"]),
      notes: [Note(path: "x.md", text: text, ours: nil, theirs: Version(path: "x.md", text: text))])
    XCTAssertEqual(result.texts, ["x.md": "[[Plan]] [a](./archive/Plan.md) [b](/archive/Plan.md) [[Plan|shown]]\n"])
    XCTAssertEqual(result.followed.map(\.new), ["./archive/Plan.md", "/archive/Plan.md"])
  }

  func testANoteMovedHereAndEditedThereKeepsTheirRelativeLinksWorking() {
    // We moved a/N.md to b/N.md; they added a relative link to a neighbour in a/. The merged note sits in b/.
    let theirs = "old line\n[y](./Y.md) [[Y]]\n"
    let result = LinkFollow.follow(
      merged: ["b/N.md", "a/Y.md"],
      ours: Side(paths: ["b/N.md", "a/Y.md"], moves: [:]),
      theirs: Side(paths: ["a/N.md", "a/Y.md"], moves: ["a/N.md": "b/N.md"]),
      notes: [
        Note(
          path: "b/N.md", text: theirs, ours: Version(path: "b/N.md", text: "old line\n"),
          theirs: Version(path: "a/N.md", text: theirs))
      ])
    XCTAssertEqual(result.texts, ["b/N.md": "old line\n[y](../a/Y.md) [[Y]]\n"])
  }

  func testAnAmbiguousLinkFollowsTheFileItReachedOnItsSide() {
    // On their side [[Plan]] reached a/Plan.md by the tie-break; we renamed that file, so after the merge the bare
    // name would reach b/Plan.md — another note — unless followed.
    let text = "[[Plan]]\n"
    let result = LinkFollow.follow(
      merged: ["a/Roadmap.md", "b/Plan.md", "c.md"],
      ours: Side(paths: ["a/Roadmap.md", "b/Plan.md"], moves: [:]),
      theirs: Side(paths: ["a/Plan.md", "b/Plan.md", "c.md"], moves: ["a/Plan.md": "a/Roadmap.md"]),
      notes: [Note(path: "c.md", text: text, ours: nil, theirs: Version(path: "c.md", text: text))])
    XCTAssertEqual(result.texts, ["c.md": "[[Roadmap]]\n"])
  }

  func testALinkThatStillWorksForTheOtherSideIsLeft() {
    // They renamed A to C and made a new A; we edited a note that holds [[A]] on both sides. For them it still
    // reaches their A: its meaning must not change under them.
    let ours = "[[A]]\nour edit\n"
    let result = LinkFollow.follow(
      merged: ["A.md", "C.md", "n.md"],
      ours: Side(paths: ["A.md", "n.md"], moves: ["A.md": "C.md"]),
      theirs: Side(paths: ["A.md", "C.md", "n.md"], moves: [:]),
      notes: [
        Note(
          path: "n.md", text: ours, ours: Version(path: "n.md", text: ours),
          theirs: Version(path: "n.md", text: "[[A]]\n"))
      ])
    XCTAssertEqual(result, LinkFollow.Result())
  }

  func testUnresolvedDeletedAndUnwritableLinksAreLeft() {
    // [[Nowhere]] reached nothing; [[Gone]] reached a file the merge deleted; [[Plan]] reached a note now named
    // with a `|`, which a wiki link cannot hold.
    let text = "[[Nowhere]] [[Gone]] [[Plan]]\n"
    let result = LinkFollow.follow(
      merged: ["a|b.md", "x.md"],
      ours: Side(paths: ["a|b.md"], moves: [:]),
      theirs: Side(paths: ["Gone.md", "Plan.md", "x.md"], moves: ["Plan.md": "a|b.md"]),
      notes: [Note(path: "x.md", text: text, ours: nil, theirs: Version(path: "x.md", text: text))])
    XCTAssertEqual(result, LinkFollow.Result())
  }

  func testOnlyTheSideThatWroteALinkDecidesIt() {
    // The merged note holds our new [[Plan]] (a note not written yet on our side) and their new [[plan]] (the note
    // we renamed). Their side would resolve both to its Plan.md, but only the link it wrote is followed.
    let merged = "[[Plan]]\n[[plan]]\n"
    let result = LinkFollow.follow(
      merged: ["Roadmap.md", "n.md"],
      ours: Side(paths: ["Roadmap.md", "n.md"], moves: [:]),
      theirs: Side(paths: ["Plan.md", "n.md"], moves: ["Plan.md": "Roadmap.md"]),
      notes: [
        Note(
          path: "n.md", text: merged, ours: Version(path: "n.md", text: "[[Plan]]\n"),
          theirs: Version(path: "n.md", text: "[[plan]]\n"))
      ])
    XCTAssertEqual(result.texts, ["n.md": "[[Plan]]\n[[Roadmap]]\n"])
  }

  func testAFloodOfLinksInOneNoteIsFollowedInOnePass() {
    let text = String(repeating: "[[Plan]] ", count: 20_000) + "\n"
    let result = LinkFollow.follow(
      merged: ["Roadmap.md", "x.md"], ours: Side(paths: ["Roadmap.md"], moves: [:]),
      theirs: Side(paths: ["Plan.md", "x.md"], moves: ["Plan.md": "Roadmap.md"]),
      notes: [Note(path: "x.md", text: text, ours: nil, theirs: Version(path: "x.md", text: text))])
    XCTAssertEqual(result.texts["x.md"], String(repeating: "[[Roadmap]] ", count: 20_000) + "\n")
    XCTAssertEqual(result.followed.count, 20_000)
  }

  // MARK: - Through the sync policy

  private let now = Date(timeIntervalSince1970: 1_795_321_600)
  private let planID = "0a0a0a0a-0000-4000-8000-000000000001"
  private let otherID = "0b0b0b0b-0000-4000-8000-000000000002"
  private let newID = "0c0c0c0c-0000-4000-8000-000000000003"

  private func note(_ id: String, _ body: String) -> String { "---\nid: \(id)\n---\n" + body }

  private func tree(_ files: [String: String]) -> [String: FileVersion] {
    files.mapValues { text in
      // Stored contents, as a sync gives them: an attachment's move is found by its content id.
      let data = Data(text.utf8)
      return FileVersion(
        content: .stored(id: String(text.hashValue)) { data }, commitTime: Date(timeIntervalSince1970: 1_795_000_000))
    }
  }

  private func merge(_ base: [String: String], _ ours: [String: String], _ theirs: [String: String])
    -> (tree: [String: String], report: SyncReport)?
  {
    guard
      case .merged(let tree, let report) = SyncPolicy.merge(
        base: self.tree(base), ours: self.tree(ours), theirs: self.tree(theirs), device: "laptop", now: now)
    else { return nil }
    return (tree.mapValues { String(decoding: $0.data ?? Data(), as: UTF8.self) }, report)
  }

  func testTheMergeFollowsARenameByIDAndReportsIt() throws {
    let plan = note(planID, "the plan\n")
    let other = note(otherID, "untouched [[Plan]]\n")
    let base = ["work/Plan.md": plan, "other.md": other, "work/Plan.files/chart.png": "PNG"]
    // Ours renamed the note (and its attachment folder), rewriting our own links as nb's rename does.
    let ours = [
      "work/Roadmap.md": plan, "other.md": note(otherID, "untouched [[Roadmap]]\n"),
      "work/Roadmap.files/chart.png": "PNG",
    ]
    // Theirs wrote a new note linking the old names.
    let new = note(newID, "[[Plan#Goals|the plan]] ![](work/Plan.files/chart.png) [[other]]\n")
    let theirs = base.merging(["new.md": new]) { $1 }
    let result = try XCTUnwrap(merge(base, ours, theirs))
    XCTAssertEqual(
      result.tree["new.md"],
      note(newID, "[[Roadmap#Goals|the plan]] ![](work/Roadmap.files/chart.png) [[other]]\n"))
    XCTAssertEqual(result.tree["other.md"], note(otherID, "untouched [[Roadmap]]\n"))
    XCTAssertEqual(
      result.report.followedLinks,
      [
        FollowedLink(path: "new.md", line: 4, old: "Plan", new: "Roadmap"),
        FollowedLink(path: "new.md", line: 4, old: "work/Plan.files/chart.png", new: "work/Roadmap.files/chart.png"),
      ])
  }

  func testTheMergeFollowsTheirRenameInANoteBothSidesEdited() throws {
    let base = ["Plan.md": note(planID, "the plan\n"), "log.md": note(otherID, "one\ntwo\n")]
    let ours = ["Plan.md": note(planID, "the plan\n"), "log.md": note(otherID, "one\ntwo\nsee [[Plan]]\n")]
    let theirs = ["archive/Final plan.md": note(planID, "the plan\n"), "log.md": note(otherID, "ONE\ntwo\n")]
    let result = try XCTUnwrap(merge(base, ours, theirs))
    XCTAssertEqual(result.tree["log.md"], note(otherID, "ONE\ntwo\nsee [[Final plan]]\n"))
    XCTAssertEqual(result.report.merged, ["log.md"])
    XCTAssertEqual(result.report.followedLinks, [FollowedLink(path: "log.md", line: 6, old: "Plan", new: "Final plan")])
  }

  func testBothRenamedTheNoteTheLosingNameIsFollowed() throws {
    // Both devices renamed the note, each linking it by its own new name; the later rename keeps the path.
    let plan = note(planID, "the plan\n")
    let base = ["Plan.md": plan, "a.md": note(otherID, "a\n")]
    let ours = ["Ours.md": plan, "a.md": note(otherID, "a\n[[Ours]]\n")]
    let theirs = ["Theirs.md": plan, "b.md": note(newID, "[[Theirs]]\n"), "a.md": note(otherID, "a\n")]
    let result = try XCTUnwrap(merge(base, ours, theirs))
    let kept = try XCTUnwrap(result.tree.keys.first { $0 == "Ours.md" || $0 == "Theirs.md" })
    let name = String(kept.dropLast(3))
    XCTAssertNil(result.tree[kept == "Ours.md" ? "Theirs.md" : "Ours.md"])
    XCTAssertEqual(result.tree["a.md"], note(otherID, "a\n[[\(name)]]\n"))
    XCTAssertEqual(result.tree["b.md"], note(newID, "[[\(name)]]\n"))
    XCTAssertEqual(result.report.followedLinks.count, 1)
  }

  func testAMergeWithoutMovesChangesNothing() throws {
    let base = ["Plan.md": note(planID, "x\n")]
    let theirs = base.merging(["new.md": note(newID, "[[Plan]] [[Missing]]\n")]) { $1 }
    let ours = base.merging(["mine.md": note(otherID, "[[Plan]]\n")]) { $1 }
    let result = try XCTUnwrap(merge(base, ours, theirs))
    XCTAssertEqual(result.tree["new.md"], note(newID, "[[Plan]] [[Missing]]\n"))
    XCTAssertEqual(result.report.followedLinks, [])
  }
}

import LinkKit
import XCTest

/// Checks that `rewrite.text` is `original` with exactly `rewrite.edits` applied: every other byte identical, and
/// each edit's range held its `old` bytes.
func assertOnlyEditsChanged(
  _ original: String, _ rewrite: LinkRewrite, file: StaticString = #filePath, line: UInt = #line
) {
  let before = Array(original.utf8)
  let after = Array(rewrite.text.utf8)
  var expected: [UInt8] = []
  var position = 0
  for edit in rewrite.edits {
    XCTAssertGreaterThanOrEqual(
      edit.range.lowerBound, position, "edits overlap or are out of order", file: file, line: line)
    guard edit.range.lowerBound >= position, edit.range.upperBound <= before.count else { return }
    expected += before[position..<edit.range.lowerBound]
    XCTAssertEqual(String(decoding: before[edit.range], as: UTF8.self), edit.old, file: file, line: line)
    expected += Array(edit.new.utf8)
    position = edit.range.upperBound
  }
  expected += before[position...]
  XCTAssertEqual(after, expected, "bytes outside the edits changed", file: file, line: line)
}

/// Writing links: renames and moves keep every link's form and every other byte.
final class LinkRewriterTests: XCTestCase {
  /// Rewrites `text` (at `source`) for `moves` over `paths`, and checks the bytes outside the edits.
  func rewrite(
    _ text: String, at source: String, paths: [String], moves: [String: String], added: [String] = [],
    file: StaticString = #filePath, line: UInt = #line
  ) -> LinkRewrite {
    let before = LinkResolver(paths: paths)
    let after = LinkResolver(paths: paths.map { moves[$0] ?? $0 } + added)
    let result = LinkRewriter.rewrite(
      text, source: source, newSource: moves[source], moves: moves, before: before, after: after)
    assertOnlyEditsChanged(text, result, file: file, line: line)
    return result
  }

  func testRenameKeepsEveryWikiForm() {
    let text = """
      See [[Old name]], [[old name|shown text]], [[Old name#Part two#Detail]], ![[Old name#^b7e9]],
      [[Old name.md]], [[Old name.MD|x]] and in a table | [[Old name\\|cell]] |.
      Not [[Old named]] nor `[[Old name]]`.
      """
    let result = rewrite(
      text, at: "Index.md", paths: ["Index.md", "Notes/Old name.md", "Notes/Old named.md"],
      moves: ["Notes/Old name.md": "Notes/New name.md"])
    XCTAssertEqual(
      result.text,
      """
      See [[New name]], [[New name|shown text]], [[New name#Part two#Detail]], ![[New name#^b7e9]],
      [[New name.md]], [[New name.MD|x]] and in a table | [[New name\\|cell]] |.
      Not [[Old named]] nor `[[Old name]]`.
      """)
    XCTAssertEqual(result.edits.count, 7)
    XCTAssertEqual(result.edits.map(\.line), [1, 1, 1, 1, 2, 2, 2])
    XCTAssertEqual(result.edits[1].old, "old name")
    XCTAssertEqual(result.unwritable, [])
  }

  func testRenameKeepsEveryMarkdownForm() {
    let text = """
      [a](Old%20name.md) [b](<Old name.md>) [c](Old%20name) [d](Old%20name.md#Part%20two "title")
      [e](Research%20notes/Old%20name.md) ![f](Old%20name.md) [g](Research notes/x.md)
      """
    let paths = ["Index.md", "Research notes/Old name.md"]
    let result = rewrite(
      text, at: "Index.md", paths: paths, moves: ["Research notes/Old name.md": "Research notes/New name.md"])
    XCTAssertEqual(
      result.text,
      """
      [a](New%20name.md) [b](<New name.md>) [c](New%20name) [d](New%20name.md#Part%20two "title")
      [e](Research%20notes/New%20name.md) ![f](New%20name.md) [g](Research notes/x.md)
      """)
  }

  func testPercentEncodingOfUnchangedFoldersIsKept() {
    // A folder keeps the bytes it was written with; the renamed part is spelled as the link spelled its text:
    // non-ASCII escaped where the original escaped it, raw where it was raw.
    let paths = ["Caf\u{E9}/Old.md", "i.md", "x/Old.md"]
    let result = rewrite(
      "[y](Caf%C3%A9/Old.md) [z](Caf\u{E9}/Old.md)", at: "i.md", paths: paths,
      moves: ["Caf\u{E9}/Old.md": "Caf\u{E9}/Bient\u{F4}t pr\u{EA}t.md"])
    XCTAssertEqual(
      result.text, "[y](Caf%C3%A9/Bient%C3%B4t%20pr%C3%AAt.md) [z](Caf\u{E9}/Bient\u{F4}t%20pr\u{EA}t.md)")
  }

  func testMoveToAnotherFolder() {
    let paths = ["Index.md", "Projects/Apollo.md", "Projects/Plan.md"]
    let text = "[[Apollo]] [[Projects/Apollo|full]] [x](Projects/Apollo.md) [y](/Projects/Apollo.md) [[Plan]]"
    let result = rewrite(text, at: "Index.md", paths: paths, moves: ["Projects/Apollo.md": "Archive/2024/Apollo.md"])
    // A bare name stays bare while unique; a path from the root stays one.
    XCTAssertEqual(
      result.text,
      "[[Apollo]] [[Archive/2024/Apollo|full]] [x](Archive/2024/Apollo.md) [y](/Archive/2024/Apollo.md) [[Plan]]")
    // Even where the old path still matches as a tail (`Projects/Apollo` ends `Archive/Projects/Apollo`), a path
    // from the root is rewritten to the new one: it stays a path from the root.
    let deeper = rewrite(
      text, at: "Index.md", paths: paths, moves: ["Projects/Apollo.md": "Archive/Projects/Apollo.md"])
    XCTAssertEqual(
      deeper.text,
      "[[Apollo]] [[Archive/Projects/Apollo|full]] [x](Archive/Projects/Apollo.md) "
        + "[y](/Archive/Projects/Apollo.md) [[Plan]]"
    )
  }

  func testAPathFromTheNotesOwnFolderStaysOne() {
    // nb links a note's attachments as `plan.files/a%20b.png` (found from the note's folder); renaming the note
    // renames the folder, and the link must keep naming it from the note's folder, not become a bare name.
    let paths = ["work/plan.md", "work/plan.files/a b.png", "Index.md"]
    let moves = ["work/plan.md": "work/roadmap.md", "work/plan.files/a b.png": "work/roadmap.files/a b.png"]
    let own = rewrite(
      "[a b.png](plan.files/a%20b.png) ![[plan.files/a b.png|200]]", at: "work/plan.md", paths: paths, moves: moves)
    XCTAssertEqual(own.text, "[a b.png](roadmap.files/a%20b.png) ![[roadmap.files/a b.png|200]]")
    // Moved out of that folder, the file is no longer below the note: the shortest unambiguous name, as for any
    // other link found by name.
    let away = rewrite(
      "[x](plan.files/a%20b.png)", at: "work/plan.md", paths: paths + ["b/a b.png"],
      moves: ["work/plan.files/a b.png": "archive/a b.png"])
    XCTAssertEqual(away.text, "[x](archive/a%20b.png)")
  }

  func testBareNameBecomesTheShortestUnambiguousPath() {
    let paths = ["Index.md", "Drafts/Apollo.md", "Projects/Space/Gemini.md"]
    let text = "[[Apollo|the mission]] ![[Apollo#Crew]] [x](Apollo.md)"
    // Another note is renamed to Apollo: links to the first one must now say which.
    let result = rewrite(
      text, at: "Index.md", paths: paths, moves: ["Projects/Space/Gemini.md": "Projects/Space/Apollo.md"])
    XCTAssertEqual(result.text, "[[Drafts/Apollo|the mission]] ![[Drafts/Apollo#Crew]] [x](Drafts/Apollo.md)")
    // The shortest tail that is unique, not the whole path.
    let deep = ["Index.md", "Work/2024/Q3/Apollo.md", "Home/Gemini.md"]
    let tail = rewrite("[[Apollo]]", at: "Index.md", paths: deep, moves: ["Home/Gemini.md": "Home/Q4/Apollo.md"])
    XCTAssertEqual(tail.text, "[[Q3/Apollo]]")
  }

  func testNewNoteMakingBareLinksAmbiguousKeepsThemWhereTheyPointed() {
    let paths = ["Index.md", "Work/Plan.md", "Work/Standup.md"]
    let index = "[[Plan]] and [[Plan#Q3|q3]] and [x](Plan.md)"
    let result = rewrite(index, at: "Index.md", paths: paths, moves: [:], added: ["Home/Renovation/Plan.md"])
    XCTAssertEqual(result.text, "[[Work/Plan]] and [[Work/Plan#Q3|q3]] and [x](Work/Plan.md)")
    // From the note's own folder the bare name still wins the tie-break, but it is ambiguous now: rewritten too.
    let standup = rewrite("[[Plan]]", at: "Work/Standup.md", paths: paths, moves: [:], added: ["Home/Plan.md"])
    XCTAssertEqual(standup.text, "[[Work/Plan]]")
    // A new note at the root takes the bare name: the old links must say where they pointed.
    let root = rewrite("[[Plan]]", at: "Index.md", paths: paths, moves: [:], added: ["Plan.md"])
    XCTAssertEqual(root.text, "[[Work/Plan]]")
    // A new note elsewhere that makes no name ambiguous changes nothing.
    XCTAssertEqual(rewrite(index, at: "Index.md", paths: paths, moves: [:], added: ["Home/Budget.md"]).edits, [])
  }

  func testAlreadyAmbiguousLinksThatStillPointRightAreLeftAlone() {
    let paths = ["Sync/Security.md", "Publish/Security.md", "Sync/Overview.md", "Sync/Other.md"]
    let result = rewrite(
      "[[Security]]", at: "Sync/Overview.md", paths: paths, moves: ["Sync/Other.md": "Sync/Renamed.md"])
    XCTAssertEqual(result.edits, [])
  }

  func testRelativeLinksInsideTheMovedNote() {
    let paths = ["Guides/Sky/Saturn.md", "Guides/Moons.md", "Attachments/ring.png", "Guides/Sky/Titan.md"]
    let text = """
      [moons](../Moons.md) ![ring](../../Attachments/ring.png)
      [titan](./Titan.md) [self](./Saturn.md#Rings)
      [[../Moons|moons]] [[Moons]] [[#Rings]]
      """
    let result = rewrite(
      text, at: "Guides/Sky/Saturn.md", paths: paths, moves: ["Guides/Sky/Saturn.md": "Archive/Saturn.md"])
    XCTAssertEqual(
      result.text,
      """
      [moons](../Guides/Moons.md) ![ring](../Attachments/ring.png)
      [titan](../Guides/Sky/Titan.md) [self](./Saturn.md#Rings)
      [[../Guides/Moons|moons]] [[Moons]] [[#Rings]]
      """)
  }

  func testLinksToTheMovedNoteFromElsewhereAndItself() {
    let paths = ["Guides/Sky/Saturn.md", "Guides/Moons.md"]
    let moves = ["Guides/Sky/Saturn.md": "Archive/Planets/Saturn V.md"]
    let moons = rewrite(
      "[s](Sky/Saturn.md) [r](./Sky/Saturn.md) [[Saturn]]", at: "Guides/Moons.md", paths: paths, moves: moves)
    XCTAssertEqual(moons.text, "[s](Saturn%20V.md) [r](../Archive/Planets/Saturn%20V.md) [[Saturn V]]")
    let itself = rewrite("[[Saturn]] [me](Saturn.md) [[#Top]]", at: "Guides/Sky/Saturn.md", paths: paths, moves: moves)
    XCTAssertEqual(itself.text, "[[Saturn V]] [me](Saturn%20V.md) [[#Top]]")
  }

  func testFolderRenameMovesManyAtOnce() {
    let paths = ["Work/A.md", "Work/Sub/B.md", "Work/img.png", "Index.md"]
    let moves = ["Work/A.md": "Job/A.md", "Work/Sub/B.md": "Job/Sub/B.md", "Work/img.png": "Job/img.png"]
    let text = "[[Work/A]] [[Work/Sub/B|b]] ![[Work/img.png|200]] [x](Work/Sub/B.md) [[A]] ![i](img.png)"
    XCTAssertEqual(
      rewrite(text, at: "Index.md", paths: paths, moves: moves).text,
      "[[Job/A]] [[Job/Sub/B|b]] ![[Job/img.png|200]] [x](Job/Sub/B.md) [[A]] ![i](img.png)")
    // Inside the moved folder, relative links between moved notes still reach each other: nothing changes.
    let a = rewrite("[b](./Sub/B.md) [[Sub/B]] [i](img.png)", at: "Work/A.md", paths: paths, moves: moves)
    XCTAssertEqual(a.edits, [])
  }

  func testAttachmentRenameKeepsSizeAndPage() {
    let paths = ["Index.md", "Files/Report.pdf", "Files/Saturn.jpg"]
    let text = "![[Report.pdf#page=3]] ![[Saturn.jpg|100x145]] ![a](Files/Saturn.jpg) [[Report.pdf]]"
    let result = rewrite(
      text, at: "Index.md", paths: paths,
      moves: ["Files/Report.pdf": "Files/Annual report.pdf", "Files/Saturn.jpg": "Files/Saturn.png"])
    XCTAssertEqual(
      result.text, "![[Annual report.pdf#page=3]] ![[Saturn.png|100x145]] ![a](Files/Saturn.png) [[Annual report.pdf]]")
  }

  func testFrontMatterLinks() {
    let text = "---\nrelated: \"[[Old]]\"\nsee:\n  - '[[Old|o]]'\nplain: [[Old]]\n---\n[[Old]]\n"
    let result = rewrite(text, at: "i.md", paths: ["i.md", "Old.md"], moves: ["Old.md": "New.md"])
    XCTAssertEqual(result.text, "---\nrelated: \"[[New]]\"\nsee:\n  - '[[New|o]]'\nplain: [[Old]]\n---\n[[New]]\n")
    // A name a quoted value cannot hold as written is reported, not written.
    let quote = rewrite(
      "---\na: '[[Old]]'\n---\n", at: "i.md", paths: ["i.md", "Old.md"], moves: ["Old.md": "Rock 'n' roll.md"])
    XCTAssertEqual(quote.edits, [])
    XCTAssertEqual(quote.unwritable.map(\.target), ["Old"])
  }

  func testNamesAWikiLinkCannotHold() {
    let paths = ["i.md", "Old.md"]
    let text = "[[Old]] [x](Old.md) [y](<Old.md>)"
    for name in ["C# notes", "Either|or", "[draft] notes", "Odd]]name"] {
      let result = rewrite(text, at: "i.md", paths: paths, moves: ["Old.md": name + ".md"])
      XCTAssertEqual(result.unwritable.map(\.kind), [.wiki], name)
      let links = LinkScanner.links(in: result.text)
      let after = LinkResolver(paths: ["i.md", name + ".md"])
      XCTAssertEqual(
        links.dropFirst().map { after.resolve($0, from: "i.md") }, [.note(name + ".md"), .note(name + ".md")], name)
    }
    XCTAssertEqual(
      rewrite(text, at: "i.md", paths: paths, moves: ["Old.md": "C# 100% (v2.md"]).text,
      "[[Old]] [x](C%23%20100%25%20%28v2.md) [y](<C%23 100%25 (v2.md>)")
  }

  func testUnresolvedAndUnrelatedLinksAreUntouched() {
    let text = "[[Nowhere]] [[Kept]] [x](https://example.org/Old.md) ```[[Old]]``` [[Old#^id]]"
    let result = rewrite(text, at: "i.md", paths: ["i.md", "Kept.md", "Old.md"], moves: ["Old.md": "New.md"])
    XCTAssertEqual(result.text, "[[Nowhere]] [[Kept]] [x](https://example.org/Old.md) ```[[Old]]``` [[New#^id]]")
    XCTAssertEqual(result.edits.map(\.old), ["Old"])
    XCTAssertEqual(result.edits.map(\.range), [69..<72])
  }

  func testNoMovesNoEdits() {
    let text = "[[A]] [b](B.md) ![[c.png]]"
    let result = rewrite(text, at: "i.md", paths: ["i.md", "A.md", "B.md", "c.png"], moves: [:])
    XCTAssertEqual(result, LinkRewrite(text: text, edits: [], unwritable: []))
  }

  func testCRLFAndMultiByteBytesAroundEdits() {
    let text = "Zürich 🚀\r\n[[Old|Ölfeld]]\r\n[x](Old.md)\r\n"
    let result = rewrite(text, at: "i.md", paths: ["i.md", "Old.md"], moves: ["Old.md": "Ärger.md"])
    XCTAssertEqual(result.text, "Zürich 🚀\r\n[[Ärger|Ölfeld]]\r\n[x](Ärger.md)\r\n")
    XCTAssertEqual(result.edits.map(\.line), [2, 3])
  }
}

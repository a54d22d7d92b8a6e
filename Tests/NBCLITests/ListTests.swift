import Foundation
import NBTestSupport
import XCTest

/// `nb list`: which notes, in which order, with the filters; read-only (no commit, nothing changed).
final class ListTests: NBCLITestCase {
  /// inbox/alpha.md (#a), work/bravo.md (#a #b), work/projects/charlie.md (#b), added in that order.
  private func makeNotes() throws {
    try makeRepository()
    try nbSucceeds("add", "Zulu Alpha", "--tags", "a", "--content", "1")
    try nbSucceeds("add", "Bravo", "--notebook", "work", "--tags", "a,b", "--content", "2")
    try nbSucceeds("add", "Charlie", "--notebook", "work/projects", "--tags", "b", "--content", "3")
  }

  private func listedPaths(_ args: String...) throws -> [String] {
    try assertNoCommit { try jsonArray(arguments: ["list", "--json"] + args) }.compactMap { $0["path"] as? String }
  }

  func testListsEveryNoteInPathOrder() throws {
    try makeNotes()
    XCTAssertEqual(try listedPaths(), ["inbox/zulu-alpha.md", "work/bravo.md", "work/projects/charlie.md"])
    let text = try nbSucceeds("list").stdout
    let lines = text.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 3)
    XCTAssertTrue(
      lines[0].contains("Zulu Alpha") && lines[0].contains("inbox/zulu-alpha.md") && lines[0].contains("#a"))
    XCTAssertTrue(lines[1].contains("Bravo") && lines[1].contains("#a #b"))
    XCTAssertTrue(lines[2].contains("work/projects/charlie.md"))
  }

  func testNotebookAndRecursive() throws {
    try makeNotes()
    XCTAssertEqual(try listedPaths("work"), ["work/bravo.md"])
    XCTAssertEqual(try listedPaths("work", "--recursive"), ["work/bravo.md", "work/projects/charlie.md"])
    XCTAssertEqual(try listedPaths("inbox"), ["inbox/zulu-alpha.md"])
  }

  /// A notebook named alone is found by reading only the directories down to it: at every depth, with a trailing
  /// slash, and never for a path that is not a notebook (then --recursive is refused, nothing listed).
  func testNotebookListingAtEveryDepth() throws {
    try makeNotes()
    try nbSucceeds("add", "Delta", "--notebook", "work/projects/deep", "--content", "4")
    XCTAssertEqual(try listedPaths("work"), ["work/bravo.md"])
    XCTAssertEqual(try listedPaths("work/projects"), ["work/projects/charlie.md"])
    XCTAssertEqual(try listedPaths("work/projects/"), ["work/projects/charlie.md"])
    XCTAssertEqual(
      try listedPaths("work/projects", "--recursive"), ["work/projects/charlie.md", "work/projects/deep/delta.md"])
    XCTAssertEqual(try listedPaths("work/projects/deep"), ["work/projects/deep/delta.md"])
    try assertRefused(["list", "work/nowhere", "--recursive"], mentioning: ["--recursive"])
    try assertRefused(["list", ".git", "--recursive"], mentioning: ["--recursive"])
  }

  func testTagFilterSortReverseAndLimit() throws {
    try makeNotes()
    XCTAssertEqual(try listedPaths("--tag", "a"), ["inbox/zulu-alpha.md", "work/bravo.md"])
    XCTAssertEqual(try listedPaths("--tag", "#B"), ["work/bravo.md", "work/projects/charlie.md"], "# and case ignored")
    XCTAssertEqual(try listedPaths("--tag", "a", "--tag", "b"), ["work/bravo.md"], "every tag must match")
    XCTAssertEqual(
      try listedPaths("--sort", "title"), ["work/bravo.md", "work/projects/charlie.md", "inbox/zulu-alpha.md"])
    XCTAssertEqual(
      try listedPaths("--sort", "title", "--reverse"),
      ["inbox/zulu-alpha.md", "work/projects/charlie.md", "work/bravo.md"])
    XCTAssertEqual(try listedPaths("--limit", "2"), ["inbox/zulu-alpha.md", "work/bravo.md"])
    XCTAssertEqual(try listedPaths("--limit", "0"), [])
  }

  func testSortByUpdatedIsNewestFirst() throws {
    try makeNotes()
    // The edit stamps `updated` later than every other note's (monotonic: at least a second past its own).
    try nbSucceeds("edit", "inbox/zulu-alpha.md", "--append", "later")
    let notes = try assertNoCommit { try jsonArray("list", "--json", "--sort", "updated") }
    XCTAssertEqual(notes.first?["path"] as? String, "inbox/zulu-alpha.md")
    let dates = try notes.map { try assertRFC3339($0["updated"]) }
    XCTAssertEqual(dates, dates.sorted(by: >))
  }

  func testNotesWrittenOutsideNbAreListedToo() throws {
    try makeRepository()
    try write("inbox/loose.md", "# Loose Heading\n")
    try write("inbox/stem-only.md", "no heading\n")
    try write("inbox/not-a-note.txt", "ignored\n")
    let notes = try jsonArray("list", "--json")
    XCTAssertEqual(notes.compactMap { $0["path"] as? String }, ["inbox/loose.md", "inbox/stem-only.md"])
    XCTAssertEqual(notes.compactMap { $0["title"] as? String }, ["Loose Heading", "stem-only"])
  }
}

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

  /// A notebook listed alone is read from its directories, not through the index: every line, warning and JSON
  /// key must be what the index answers for the same notes (`notebook:` less its children), for notes committed
  /// or not, edited a moment after the last listing, broken, not UTF-8, with ink, beside an attachment folder or
  /// hidden, in an order the bytes of their names decide.
  func testANotebookListedAloneIsWhatTheIndexAnswers() throws {
    try makeRepository()
    let note = { (title: String, tags: String) in
      "---\ntitle: \(title)\ntags: [\(tags)]\ncreated: 2026-01-02T03:04:05Z\nupdated: 2026-02-03T04:05:06+02:00\n---\n"
    }
    try write("mix/Apple.md", note("Apple", "fruit, red"))
    try write("mix/apple.md", note("apple, lower", ""))
    try write("mix/\u{E9}clair.md", note("\u{C9}clair", "pastry"))
    try write("mix/Zeta.md", "# Zeta by heading\n")
    try write("mix/broken.md", "---\ntitle: [unclosed\n---\nbody\n")
    try write("mix/latin1.md", Data([0x63, 0x61, 0x66, 0xE9, 0x0A]))
    try write("mix/inked.md", note("Inked", "ink"))
    try write("mix/inked.ink.jsonl", "{}\n")
    try write("mix/lost.ink.jsonl", "{}\n")
    try write("mix/plan.md", note("Plan", ""))
    try write("mix/plan.files/inside.md", note("Inside an attachment folder", ""))
    try write("mix/.hidden/h.md", note("Hidden", ""))
    try write("mix/.dot.md", note("Dot", ""))
    try write("mix/sub/child.md", note("Child", "kid"))
    try write("mix/sub/deeper/d.md", note("Deeper", ""))
    try gitCommitAll()
    try write("mix/new.md", note("New, not committed", "fresh"))
    try write("mix/sub/new child.md", note("New child", ""))
    // Read from the directories: no index is opened, so none is built.
    let index = url(".git/nb/index")
    try? FileManager.default.removeItem(at: index)
    try nbSucceeds("list", "mix")
    try nbSucceeds("list", "mix/sub", "--recursive", "--json")
    XCTAssertFalse(FileManager.default.fileExists(atPath: index.path), "listing a notebook opened the index")

    func assertSame(_ label: String) throws {
      for (notebook, children) in [("mix", ["mix/sub"]), ("mix/sub", ["mix/sub/deeper"])] {
        for recursive in [false, true] {
          let query =
            "notebook:\"\(notebook)\"" + (recursive ? "" : children.map { " -notebook:\"\($0)\"" }.joined())
          for json in [false, true] {
            let format = json ? ["--json"] : []
            let alone = try nb(arguments: ["list", notebook] + (recursive ? ["-r"] : []) + format)
            let indexed = try nb(arguments: ["list", query] + format)
            let what = "\(label): \(notebook)\(recursive ? " -r" : "")\(json ? " --json" : "")"
            XCTAssertEqual([alone.status, indexed.status], [0, 0], what + alone.stderr + indexed.stderr)
            XCTAssertEqual(alone.stdout, indexed.stdout, what)
            XCTAssertEqual(alone.stderr, indexed.stderr, what)
            XCTAssertFalse(alone.stdout.contains("inside") || alone.stdout.contains("hidden"), what)
          }
        }
      }
      let paths = try jsonArray("list", "mix", "--json").compactMap { $0["path"] as? String }
      XCTAssertEqual(Array(paths.prefix(2)), ["mix/Apple.md", "mix/Zeta.md"], "upper case first, as bytes sort")
      XCTAssertEqual(paths.last, "mix/\u{E9}clair.md")
    }
    try assertSame("first listing")
    let inked = try jsonArray("list", "mix", "--json").filter { $0["has_ink"] as? Bool == true }
    XCTAssertEqual(inked.compactMap { $0["path"] as? String }, ["mix/inked.md"])
    // Edited within the second of the listing before: the listing cache must not answer for it.
    try write("mix/Apple.md", note("Apple, edited", "fruit, green"))
    try write("mix/sub/child.md", "---\ntitle: [now broken\n---\n")
    try FileManager.default.removeItem(at: url("mix/inked.ink.jsonl"))
    try assertSame("after edits")
    XCTAssertTrue(try nbSucceeds("list", "mix").stdout.contains("Apple, edited"))
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

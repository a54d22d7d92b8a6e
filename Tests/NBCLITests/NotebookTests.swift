import Foundation
import NBTestSupport
import XCTest

/// `nb notebook`: create, list, rename and delete notebooks, each change one commit.
final class NotebookTests: NBCLITestCase {
  func testCreateMakesTheDirectoriesWithSettingsInOneCommit() throws {
    try makeRepository()
    let before = try commitCount()
    let output = try nbSucceeds("notebook", "create", "work/archive").stdout
    XCTAssertEqual(output, "Created notebook work/archive\n")
    try assertOneCommit(
      since: before, subject: "nb: create notebook work/archive", noteIDs: [],
      files: ["A\twork/.notebook.yaml", "A\twork/archive/.notebook.yaml"])
    let settings = try text("work/archive/.notebook.yaml")
    XCTAssertTrue(settings.hasPrefix("created: ") && settings.hasSuffix("\n") && !settings.contains("title:"), settings)
    // A display name becomes a slug directory that keeps the typed name as its title.
    try nbSucceeds("notebook", "create", "Reading List")
    let titled = try text("reading-list/.notebook.yaml").split(separator: "\n")
    XCTAssertTrue(titled.contains("title: Reading List"), "\(titled)")
    let listed = try jsonArray("notebook", "list", "--json")
    let reading = try XCTUnwrap(listed.first { $0["path"] as? String == "reading-list" })
    XCTAssertEqual(reading["title"] as? String, "Reading List")
    try assertCleanAndSound()
  }

  func testListShowsNestingAndCounts() throws {
    try makeRepository()
    try nbSucceeds("add", "A", "--notebook", "work", "--content", "a")
    try nbSucceeds("add", "B", "--notebook", "work/projects", "--content", "b")
    try nbSucceeds("add", "C", "--notebook", "work/projects", "--content", "c")
    let lines = try assertNoCommit { try nbSucceeds("notebook", "list").stdout }.split(separator: "\n")
    XCTAssertEqual(lines, ["inbox/  0 notes", "work/  1 note", "  projects/  2 notes"])
    // `nb notebook` alone lists too.
    XCTAssertEqual(try nbSucceeds("notebook").stdout.split(separator: "\n"), lines)
  }

  func testRenameMovesEverythingInOneCommitAndKeepsIds() throws {
    try makeRepository()
    try nbSucceeds("add", "A", "--notebook", "work", "--content", "a")
    try nbSucceeds("add", "B", "--notebook", "work/projects", "--content", "b")
    let a = try noteJSON("work/a.md")
    let b = try noteJSON("work/projects/b.md")
    let bytes = try read("work/projects/b.md")
    let before = try commitCount()
    try nbSucceeds("notebook", "rename", "work", "archive/2026")
    try assertOneCommit(
      since: before, subject: "nb: rename notebook work -> archive/2026",
      noteIDs: [try string(a, "id"), try string(b, "id")],
      files: [
        "D\twork/.notebook.yaml", "D\twork/a.md", "D\twork/projects/.notebook.yaml", "D\twork/projects/b.md",
        "A\tarchive/.notebook.yaml", "A\tarchive/2026/.notebook.yaml", "A\tarchive/2026/a.md",
        "A\tarchive/2026/projects/.notebook.yaml", "A\tarchive/2026/projects/b.md",
      ])
    XCTAssertFalse(FileManager.default.fileExists(atPath: url("work").path))
    XCTAssertEqual(try read("archive/2026/projects/b.md"), bytes)
    XCTAssertEqual(try noteJSON(try string(b, "id"))["path"] as? String, "archive/2026/projects/b.md")
  }

  func testDeleteEmptyAndNonEmptyNotebooks() throws {
    try makeRepository()
    try nbSucceeds("notebook", "create", "empty")
    var before = try commitCount()
    try nbSucceeds("notebook", "delete", "empty")
    try assertOneCommit(
      since: before, subject: "nb: delete notebook empty (0 notes)", noteIDs: [], files: ["D\tempty/.notebook.yaml"])
    XCTAssertFalse(FileManager.default.fileExists(atPath: url("empty").path))

    try nbSucceeds("add", "A", "--notebook", "work", "--content", "a")
    try nbSucceeds("add", "B", "--notebook", "work/projects", "--content", "b")
    let ids = try ["work/a.md", "work/projects/b.md"].map { try string(try noteJSON($0), "id") }
    // Without a terminal there is no prompt: a notebook with notes needs --recursive, and nothing is touched.
    let refused = try assertNothingChanged { try nb("notebook", "delete", "work") }
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertTrue(refused.stderr.contains("--recursive"), refused.stderr)
    XCTAssertFalse(refused.stdout.contains("[y/N]"), "no prompt without a TTY")

    before = try commitCount()
    try nbSucceeds("notebook", "delete", "work", "--recursive")
    try assertOneCommit(
      since: before, subject: "nb: delete notebook work (2 notes)", noteIDs: ids,
      files: ["D\twork/.notebook.yaml", "D\twork/a.md", "D\twork/projects/.notebook.yaml", "D\twork/projects/b.md"])
    XCTAssertFalse(FileManager.default.fileExists(atPath: url("work").path))
  }
}

import Foundation
import NBTestSupport
import XCTest

/// Repository formats in both directions: a newer format is refused by every command; a format-1 repository works
/// as before, `nb migrate` shows and then makes the one change, and attachments work afterwards.
final class MigrateTests: NBCLITestCase {
  override func setUpWithError() throws {
    try super.setUpWithError()
    try makeRepository()
  }

  /// The config as an older nb wrote it, committed with git; plus a note with a directory `plan.files/` beside it
  /// holding a note of its own, made the way a person would make one by hand.
  func makeFormatOne() throws {
    try write(
      ".nb/config.yaml",
      "# nb repository settings, shared by every device that syncs this repository.\nformat: 1\ndefault_notebook: inbox\n")
    try write("work/plan.md", "---\nid: 11111111-1111-4111-8111-111111111111\ntitle: Plan\n---\nbody\n")
    try write("work/plan.files/old.md", "---\nid: 22222222-2222-4222-8222-222222222222\ntitle: Old\n---\nzebra\n")
    try write("work/plan.files/scan.pdf", "%PDF")
    try write("lonely.files/n.md", "---\ntitle: Lonely\n---\n")
    try gitCommitAll("format 1, by hand")
  }

  func testANewerFormatIsRefusedByEveryCommandWithTheUpgradeMessage() throws {
    let path = try addNote("Plan", content: "body")
    let file = temp.file("a.txt")
    try Data("a".utf8).write(to: file)
    try write(".nb/config.yaml", "format: 3\ndefault_notebook: inbox\n")
    try gitCommitAll("from a newer nb")
    let commands: [[String]] = [
      ["list"], ["show", path], ["add", "New"], ["edit", path, "--append", "x"], ["attach", path, file.path],
      ["migrate"], ["migrate", "--apply"], ["save"], ["status"], ["sync"], ["notebook", "list"], ["tag", "list"],
      ["search", "body"], ["move", path, "work"], ["delete", path], ["reindex"],
    ]
    for command in commands {
      let line = try assertRefused(command, mentioning: ["format 3", "this nb reads formats 1 and 2; upgrade nb"])
      XCTAssert(line.contains(".nb/config.yaml"), "names the file: \(line)")
    }
  }

  func testFormatOneWorksAsBeforeAndAttachIsRefusedWithTheWayOut() throws {
    try makeFormatOne()
    // As format 1 reads the tree, the directory is a notebook and its note a note.
    let notebooks = try jsonArray("notebook", "list", "--json").map { $0["path"] as? String }
    XCTAssertEqual(notebooks, ["inbox", "lonely.files", "work", "work/plan.files"])
    let notes = try jsonArray("list", "--json").map { $0["path"] as? String }
    XCTAssertEqual(notes, ["lonely.files/n.md", "work/plan.files/old.md", "work/plan.md"])
    try nbSucceeds("edit", "work/plan", "--append", "more")
    let file = temp.file("a.txt")
    try Data("a".utf8).write(to: file)
    try assertRefused(
      ["attach", "work/plan", file.path],
      mentioning: [
        "attachments need repository format 2",
        "run 'nb migrate' to see what changes, then 'nb migrate --apply' (upgrade nb on your other devices first)",
      ])
  }

  func testDryRunChangesNothingAndApplyMakesExactlyThatOneCommit() throws {
    try makeFormatOne()
    _ = try jsonArray("list", "--json")  // an index built as format 1 reads the tree
    let dry = try assertNothingChanged("nb migrate") { try nbSucceeds("migrate") }
    XCTAssert(dry.stdout.contains(".nb/config.yaml: format: 1 -> format: 2"), dry.stdout)
    XCTAssert(dry.stdout.contains("work/plan.files/ becomes the attachment folder of work/plan.md"), dry.stdout)
    XCTAssertFalse(dry.stdout.contains("lonely.files"), "no note beside it: stays a notebook\n\(dry.stdout)")
    let json = try assertNothingChanged("nb migrate --json") { try jsonObject("migrate", "--json") }
    XCTAssertEqual(json["from"] as? Int, 1)
    XCTAssertEqual(json["to"] as? Int, 2)
    XCTAssertEqual(json["applied"] as? Bool, false)
    XCTAssertEqual(json["up_to_date"] as? Bool, false)
    XCTAssert(json["commit"] is NSNull)
    XCTAssertEqual(
      (json["attachment_folders"] as? [[String: String]]) ?? [], [["folder": "work/plan.files", "note": "work/plan.md"]])
    XCTAssertEqual(
      (json["changes"] as? [[String: String]]) ?? [],
      [["path": ".nb/config.yaml", "from": "format: 1", "to": "format: 2"]])

    let count = try commitCount()
    let applied = try jsonObject("migrate", "--apply", "--json")
    XCTAssertEqual(applied["applied"] as? Bool, true)
    XCTAssertEqual(try commitCount(), count + 1)
    XCTAssertEqual(applied["commit"] as? String, try git.revParse("HEAD"))
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%s").trimmingCharacters(in: .newlines), "nb: migrate repository to format 2")
    XCTAssertEqual(try git.run("show", "--name-status", "--format=", "HEAD"), "M\t.nb/config.yaml\n")
    let diff = try git.run("show", "--format=", "--unified=0", "HEAD").split(separator: "\n")
      .filter { ($0.hasPrefix("-") || $0.hasPrefix("+")) && !$0.hasPrefix("---") && !$0.hasPrefix("+++") }
    XCTAssertEqual(diff, ["-format: 1", "+format: 2"])
    try assertCleanAndSound()

    // Now format 2: the folder is the note's, its note no note, and attach works.
    let notebooks = try jsonArray("notebook", "list", "--json").map { $0["path"] as? String }
    XCTAssertEqual(notebooks, ["inbox", "lonely.files", "work"])
    let notes = try jsonArray("list", "--json").map { $0["path"] as? String }
    XCTAssertEqual(notes, ["lonely.files/n.md", "work/plan.md"])
    XCTAssertEqual(try nbSucceeds("search", "--count", "zebra").stdout, "0\n")
    let shown = try noteJSON("work/plan")["attachments"] as? [[String: Any]]
    XCTAssertEqual(shown?.map { $0["path"] as? String }, ["work/plan.files/old.md", "work/plan.files/scan.pdf"])
    let file = temp.file("a.txt")
    try Data("a".utf8).write(to: file)
    XCTAssertEqual(try nbSucceeds("attach", "work/plan", file.path).stdout, "work/plan.files/a.txt\n")

    let again = try assertNoCommit { try nbSucceeds("migrate", "--apply") }
    XCTAssert(again.stdout.contains("already at format 2"), again.stdout)
  }

  func testNewRepositoriesAreAtTheNewestFormat() throws {
    let up = try assertNoCommit { try jsonObject("migrate", "--json") }
    XCTAssertEqual(up["up_to_date"] as? Bool, true)
    XCTAssertEqual(up["from"] as? Int, 2)
    XCTAssertEqual(up["steps"] as? [String], [])
    XCTAssertEqual(try nbSucceeds("migrate").stdout, "already at format 2, the newest this nb knows; nothing to migrate\n")
  }
}

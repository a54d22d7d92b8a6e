import Foundation
import NBTestSupport
import XCTest

/// Checklist lines of ordinary notes are tasks, read and written as the Obsidian Tasks plugin does: nb changes the
/// check and the one field it must, every other byte of the line (and of the file's body) stays.
final class TaskInlineTests: TaskTestCase {
  /// A note as an Obsidian vault holds it, committed by git (nb adopts it on its first edit).
  private func vaultNote(_ body: String) throws -> String {
    let path = "vault/daily.md"
    try write(path, "---\nid: 0d3c2d8e-0000-4000-8000-000000000001\ntitle: Daily\n---\n" + body)
    try gitCommitAll()
    return path
  }

  /// The body lines after the front matter.
  private func bodyLines(_ path: String) throws -> [String] {
    let text = try self.text(path)
    let body = text.components(separatedBy: "\n---\n").dropFirst().joined(separator: "\n---\n")
    return body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  func testTickingWritesTheDoneDateAsThePluginDoes() throws {
    try makeRepository()
    let path = try vaultNote("# Today\n\n- [ ] buy milk 📅 2026-11-23 #errand ^abc123\n- [ ] call mom\nText after.\n")
    XCTAssertEqual(try titles(), ["buy milk #errand", "call mom"])
    try task("task", "done", "\(path):7")
    XCTAssertEqual(
      try bodyLines(path),
      ["# Today", "", "- [x] buy milk 📅 2026-11-23 #errand ✅ 2026-11-24 ^abc123", "- [ ] call mom", "Text after.", ""])
    XCTAssertEqual(try frontMatter("updated", in: path), "2026-11-24T10:00:00+01:00")
    // The commit stamped `updated` into the front matter, one line more: the task is on line 8 now.
    try task("task", "reopen", "\(path):8")
    XCTAssertEqual(try bodyLines(path)[2], "- [ ] buy milk 📅 2026-11-23 #errand ^abc123")
  }

  func testCompletingARepeatingLineAddsTheNextOccurrenceAbove() throws {
    try makeRepository()
    let path = try vaultNote("  - [ ] water 🔁 every week ⏳ 2026-11-22 📅 2026-11-23\n")
    try task("task", "done", "water")
    XCTAssertEqual(
      try bodyLines(path),
      [
        "  - [ ] water 🔁 every week ⏳ 2026-11-29 📅 2026-11-30",
        "  - [x] water 🔁 every week ⏳ 2026-11-22 📅 2026-11-23 ✅ 2026-11-24", "",
      ])
    XCTAssertEqual(try titles(), ["water"])
    XCTAssertEqual(try listed()[0]["due"] as? String, "2026-11-30")
  }

  func testDataviewFieldsAndToleratedOddities() throws {
    try makeRepository()
    let path = try vaultNote(
      """
      - [ ] pay rent [due:: 2026-11-20] [priority:: high]
      - [ ] nbsp 📅\u{00A0}2026-11-21
      - [ ] selector 📅\u{FE0F} 2026-11-22
      - [ ] trailing 📅 2026-11-23 call Bob
      - [/] half done ⏫

      """)
    let listed = try listed("--sort", "title")
    XCTAssertEqual(
      listed.map { "\($0["title"] as? String ?? "?")|\($0["due"] as? String ?? "-")|\($0["priority"] as? String ?? "?")" },
      ["half done|-|high", "nbsp|2026-11-21|none", "pay rent|2026-11-20|high", "selector|2026-11-22|none",
       "trailing call Bob|2026-11-23|none"])
    XCTAssertEqual(listed[0]["status"] as? String, "in-progress")
    try task("task", "done", "pay rent")
    XCTAssertEqual(try bodyLines(path)[0], "- [x] pay rent [due:: 2026-11-20] [priority:: high]  [completion:: 2026-11-24]")
  }

  func testCodeBlocksAreNotTasks() throws {
    try makeRepository()
    try vaultNote("```\n- [ ] not a task\n```\n- [ ] a task\n")
    XCTAssertEqual(try titles(), ["a task"])
  }

  func testATaskNotesChecklistIsItsSubtasksNotInlineTasks() throws {
    try makeRepository()
    try task("task", "add", "Ship", "--subtask", "one", "--subtask", "two")
    XCTAssertEqual(try titles(), ["Ship"])
  }
}

import Foundation
import NBTestSupport
import XCTest

/// Every bad input the tasks issue names: a clear one-line message, a non-zero exit and nothing changed for what a
/// person types; a warning naming file and line, never a rewrite, for what a file holds.
final class TaskBadInputTests: TaskTestCase {
  private func assertRefused(
    _ args: [String], mentions expected: [String], file: StaticString = #filePath, line: UInt = #line
  ) throws {
    try assertNothingChanged(file: file, line: line) {
      let result = try nb(arguments: args, env: clock)
      XCTAssertNotEqual(result.status, 0, "nb \(args) should fail", file: file, line: line)
      XCTAssertFalse(result.stderr.contains("Fatal error"), result.stderr, file: file, line: line)
      for text in expected {
        XCTAssertTrue(result.stderr.contains(text), "'\(text)' not in: \(result.stderr)", file: file, line: line)
      }
    }
  }

  func testUnknownValuesAreListedWithAWarningAndNeverRewritten() throws {
    try makeRepository()
    let text = """
      ---
      title: Odd
      status: waiting
      priority: p1
      due: next tuesday
      recurrence: FREQ=FORTNIGHTLY
      ---
      body

      """
    try write("inbox/odd.md", text)
    try gitCommitAll()
    let result = try attempt("task", "list", "--no-due", "--json")
    XCTAssertEqual(result.status, 0, result.stderr)
    let listed = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]])
    XCTAssertEqual(listed.map { $0["title"] as? String }, ["Odd"])
    XCTAssertEqual(listed[0]["status"] as? String, "waiting")
    XCTAssertEqual(listed[0]["priority"] as? String, "p1")
    XCTAssertEqual(listed[0]["due"] as? String, nil)
    for expected in [
      "inbox/odd.md: line 3: status 'waiting'", "inbox/odd.md: line 4: priority 'p1'",
      "inbox/odd.md: line 5: due 'next tuesday' is not a date", "inbox/odd.md: line 6:",
    ] {
      XCTAssertTrue(result.stderr.contains(expected), "'\(expected)' not in: \(result.stderr)")
    }
    XCTAssertEqual(try self.text("inbox/odd.md"), text)
  }

  func testBadArgumentsAreRefusedWithNothingChanged() throws {
    try makeRepository()
    try task("task", "add", "Ship", "--subtask", "a")
    try task("task", "add", "Ship notes")
    try assertRefused(["task", "add", "X", "--repeat", "FREQ=FORTNIGHTLY"], mentions: ["--repeat", "FORTNIGHTLY"])
    try assertRefused(["task", "add", "X", "--repeat", "every blue moon"], mentions: ["--repeat"])
    try assertRefused(["task", "add", "X", "--due", "next blursday"], mentions: ["--due", "blursday", "YYYY-MM-DD", "tomorrow"])
    try assertRefused(["task", "add", "X", "--priority", "p1"], mentions: ["--priority 'p1'"])
    try assertRefused(["task", "add", "X", "--remind", "-1h"], mentions: ["--due"])
    try assertRefused(["task", "done", "inbox/ship.md", "--subtask", "3"], mentions: ["subtask 3 is out of range", "1–1"])
    try assertRefused(["task", "done", "inbox/ship.md", "--subtask", "zzz"], mentions: ["no subtask"])
    try assertRefused(["task", "done", "shi"], mentions: ["shi", "inbox/ship.md", "inbox/ship-notes.md"])
    try assertRefused(["task", "done", "nothing like this"], mentions: ["no task matches"])
    try assertRefused(["task", "list", "--today", "--overdue"], mentions: ["choose one"])
    try assertRefused(["task", "list", "--sort", "size"], mentions: ["--sort 'size'"])
    try assertRefused(["task", "edit", "inbox/ship.md", "--clear", "everything"], mentions: ["--clear 'everything'"])
    try assertRefused(["task", "import", "/nonexistent.ics"], mentions: ["/nonexistent.ics"])
    try assertRefused(["task", "list"], mentions: ["NB_NOW"]) { $0["NB_NOW"] = "yesterday" }
  }

  private func assertRefused(
    _ args: [String], mentions expected: [String], file: StaticString = #filePath, line: UInt = #line,
    environment change: (inout [String: String]) -> Void
  ) throws {
    var env = clock
    change(&env)
    let result = try nb(arguments: args, env: env)
    XCTAssertNotEqual(result.status, 0, file: file, line: line)
    for text in expected {
      XCTAssertTrue(result.stderr.contains(text), "'\(text)' not in: \(result.stderr)", file: file, line: line)
    }
  }

  func testAnInlineSelectorThatIsNotAChecklistLine() throws {
    try makeRepository()
    try addNote("Plain", content: "just text\n- [ ] real\n")
    try assertRefused(["task", "done", "inbox/plain.md:1"], mentions: ["not a checklist line"])
  }
}

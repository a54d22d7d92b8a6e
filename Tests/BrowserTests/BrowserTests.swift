import Foundation
import NBTestSupport
import XCTest

/// `nb serve` in a real browser: headless Chromium (Debian's, with its chromedriver) driven through Selenium from
/// PyPI, one scenario per test, each against the built nb with a repository and a server of its own. The scenarios
/// live in `browser/scenarios.py`; `.ci/run` installs what they need, and a missing piece fails the test, never skips.
///
/// Set NB_SCREENSHOTS=DIR to keep the pictures the scenarios take (the README's come from there).
final class BrowserTests: XCTestCase {
  func testBrowsingTheTreeAndANote() throws { try run("browse") }
  func testEditingAndSavingCommits() throws { try run("edit_and_save") }
  func testAnEditWhileVimChangesTheFileLosesNothing() throws { try run("edit_while_vim_changes") }
  func testAnEditWhileVimChangesAnotherLineIsMerged() throws { try run("edit_merged_with_vim") }
  func testANoteAddedInATerminalAppearsWithoutAReload() throws { try run("live_add") }
  func testTickingATask() throws { try run("tick_task") }
  func testCapturingAndFilingAnInboxItem() throws { try run("file_inbox") }
  func testSearching() throws { try run("search") }
  func testHistoryAndRestore() throws { try run("history_restore") }
  func testANoteFullOfAttacksRunsNothing() throws { try run("attacks") }
  func testAnotherSiteCannotWriteANote() throws { try run("cross_origin") }
  func testDrawingAPenStrokeWithPressure() throws { try run("draw") }
  func testTheSyncButtonPushes() throws { try run("sync_button") }
  func testKeyboardShortcuts() throws { try run("shortcuts") }
  func testPagesFitAPhoneInTheDarkTheme() throws { try run("phone") }

  private func run(_ scenario: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("browser/run.py")
    var environment = ProcessInfo.processInfo.environment
    environment["NB_BINARY"] = try NBBinary.url().path
    // Python's own output unbuffered, so a scenario cut by the timeout still shows how far it got.
    environment["PYTHONUNBUFFERED"] = "1"
    let python = environment["NB_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "python3"
    let result = try ProcessRunner.run(
      URL(fileURLWithPath: "/usr/bin/env"), arguments: [python, script.path, scenario], environment: environment,
      currentDirectory: script.deletingLastPathComponent(), stdin: nil, timeout: 180)
    XCTAssertEqual(
      result.status, 0, "browser scenario \(scenario) failed:\n\(result.stdout)\n\(result.stderr)", file: file,
      line: line)
  }
}

import Foundation
import NBTestSupport
import XCTest

/// Completions come from the repository: the generated shell scripts call `nb ---completion <command> -- <arg>
/// <word index> <cursor> <words...>`, which is what these tests run.
final class CompletionTests: NBCLITestCase {
  private func complete(_ command: [String], _ argument: String, words: [String]) throws -> [String] {
    let cursor = words.last?.count ?? 0
    let result = try nb(
      arguments: ["---completion"] + command + ["--", argument, String(words.count - 1), String(cursor)] + words)
    XCTAssertEqual(result.status, 0, result.stderr)
    return result.stdout.split(separator: "\n").map(String.init).sorted()
  }

  func testNoteNotebookAndTagArgumentsCompleteFromTheRepository() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work/projects", "--tags", "planning,q3")
    try nbSucceeds("add", "Standup", "--notebook", "work")
    try nbSucceeds("add", "Groceries", "--tags", "home")

    XCTAssertEqual(
      try complete(["show"], "positional@0", words: ["nb", "show", "work/"]),
      ["work/projects/roadmap", "work/standup"])
    XCTAssertEqual(try complete(["show"], "positional@0", words: ["nb", "show", "inbox/g"]), ["inbox/groceries"])
    XCTAssertEqual(
      try complete(["add"], "--notebook", words: ["nb", "add", "X", "--notebook", "wo"]), ["work", "work/projects"])
    XCTAssertEqual(try complete(["tag", "delete"], "positional@0", words: ["nb", "tag", "delete", "q"]), ["q3"])
  }

  func testNoRepositoryMeansNoCompletionsAndNoError() throws {
    XCTAssertEqual(try complete(["show"], "positional@0", words: ["nb", "show", "x"]), [])
  }
}

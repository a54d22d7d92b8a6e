import Foundation
import NBTestSupport
import XCTest

/// `nb search`: case-insensitive matches in titles, tags and text; read-only.
final class SearchTests: NBCLITestCase {
  private func found(_ text: String) throws -> [String] {
    try assertNoCommit { try jsonArray("search", text, "--json") }.compactMap { $0["path"] as? String }
  }

  func testMatchesTitleTagAndTextCaseInsensitively() throws {
    try makeRepository()
    try nbSucceeds("add", "Kubernetes Notes", "--content", "pods and services")
    try nbSucceeds("add", "Groceries", "--tags", "errands", "--content", "Milk, eggs")
    try nbSucceeds("add", "Travel", "--notebook", "life", "--content", "Pack the MILK frother")
    XCTAssertEqual(try found("kubernetes"), ["inbox/kubernetes-notes.md"], "title")
    XCTAssertEqual(try found("ERRANDS"), ["inbox/groceries.md"], "tag")
    XCTAssertEqual(try found("milk"), ["inbox/groceries.md", "life/travel.md"], "text, in path order")
    XCTAssertEqual(try found("Services"), ["inbox/kubernetes-notes.md"])
    XCTAssertEqual(try found("no such words anywhere"), [])
  }

  func testTextOutputListsEachNoteWithItsSnippetAndNothingWhenNoMatch() throws {
    try makeRepository()
    try nbSucceeds("add", "Alpha", "--content", "needle here")
    try nbSucceeds("add", "Beta", "--content", "haystack")
    let lines = try nbSucceeds("search", "needle").stdout.split(separator: "\n")
    XCTAssertEqual(lines.count, 2, "the note, then its snippet: \(lines)")
    XCTAssertTrue(lines[0].contains("Alpha") && lines[0].contains("inbox/alpha.md"), String(lines[0]))
    XCTAssertEqual(lines[1], "    needle here", "indented, uncoloured when not on a terminal")
    let none = try nbSucceeds("search", "absent")
    XCTAssertEqual(none.stdout, "")
  }
}

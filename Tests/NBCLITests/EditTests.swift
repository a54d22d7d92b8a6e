import Foundation
import NBTestSupport
import XCTest

/// `nb edit` with its non-interactive options: each change is one commit that touches only what it says plus the
/// `updated` line, and `updated` moves forward even within the same second.
final class EditTests: NBCLITestCase {
  /// A repository with one note, `inbox/roadmap.md`, whose body is "First draft\n"; returns its id and the text.
  private func makeNote() throws -> (id: String, text: String) {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--tags", "planning", "--content", "First draft")
    let id = try string(try noteJSON("roadmap"), "id")
    return (id, try text("inbox/roadmap.md"))
  }

  /// Checks the one-commit contract for an edit, and that `updated` moved strictly forward (monotonic: at least a
  /// second later, even when the edit comes in the same second as the previous write); returns the new `updated`.
  @discardableResult
  private func assertEditCommitted(
    since before: Int, id: String, previous: String, file: StaticString = #filePath, line: UInt = #line
  ) throws -> String {
    try assertOneCommit(
      since: before, subject: "nb: edit inbox/roadmap.md", noteIDs: [id], files: ["M\tinbox/roadmap.md"],
      file: file, line: line)
    let updated = try string(try noteJSON("roadmap"), "updated")
    let old = try assertRFC3339(previous, file: file, line: line)
    let new = try assertRFC3339(updated, file: file, line: line)
    XCTAssertGreaterThanOrEqual(new.timeIntervalSince(old), 1, "updated must be max(now, previous + 1 s)")
    return updated
  }

  private func updatedLine(_ text: String) -> String {
    text.split(separator: "\n").first { $0.hasPrefix("updated: ") }.map(String.init) ?? ""
  }

  func testAppendAddsTextAtTheEndAndStampsUpdated() throws {
    let (id, original) = try makeNote()
    let previous = String(updatedLine(original).dropFirst("updated: ".count))
    let before = try commitCount()
    let output = try nbSucceeds("edit", "roadmap", "--append", "Second thought").stdout
    XCTAssertEqual(output, "inbox/roadmap.md\n")
    let updated = try assertEditCommitted(since: before, id: id, previous: previous)
    // The body already ends in a newline, so the text goes straight after it as a whole line; only `updated`
    // changes above it.
    let expected =
      original.replacingOccurrences(of: "updated: \(previous)\n", with: "updated: \(updated)\n")
      + "Second thought\n"
    XCTAssertEqual(try text("inbox/roadmap.md"), expected)
  }

  func testAppendTwiceInARowKeepsUpdatedMonotonic() throws {
    let (id, original) = try makeNote()
    var previous = String(updatedLine(original).dropFirst("updated: ".count))
    for word in ["one\n", "two\n", "three\n"] {
      let before = try commitCount()
      try nbSucceeds("edit", "roadmap", "--append", word)
      previous = try assertEditCommitted(since: before, id: id, previous: previous)
    }
    XCTAssertTrue(try text("inbox/roadmap.md").hasSuffix("---\nFirst draft\none\ntwo\nthree\n"))
  }

  func testContentReplacesOnlyTheBody() throws {
    let (id, original) = try makeNote()
    let previous = String(updatedLine(original).dropFirst("updated: ".count))
    let before = try commitCount()
    try nbSucceeds("edit", "roadmap", "--content", "Brand new\nbody\n")
    let updated = try assertEditCommitted(since: before, id: id, previous: previous)
    let head = original.components(separatedBy: "---\n").prefix(2).joined(separator: "---\n") + "---\n"
    let expected =
      head.replacingOccurrences(of: "updated: \(previous)\n", with: "updated: \(updated)\n") + "Brand new\nbody\n"
    XCTAssertEqual(try text("inbox/roadmap.md"), expected)
  }

  func testTitleChangesOnlyTheTitleLineAndKeepsTheFileName() throws {
    let (id, original) = try makeNote()
    let previous = String(updatedLine(original).dropFirst("updated: ".count))
    let before = try commitCount()
    try nbSucceeds("edit", "roadmap", "--title", "Roadmap 2027")
    let updated = try assertEditCommitted(since: before, id: id, previous: previous)
    let lines = changedLines(original, try text("inbox/roadmap.md"))
    XCTAssertEqual(lines.map(\.0), ["title: Roadmap", "updated: \(previous)"])
    XCTAssertEqual(lines.map(\.1), ["title: Roadmap 2027", "updated: \(updated)"])
    XCTAssertEqual(try noteJSON("inbox/roadmap.md")["title"] as? String, "Roadmap 2027")
  }

  func testTagsReplaceTheTagsLine() throws {
    let (id, original) = try makeNote()
    let previous = String(updatedLine(original).dropFirst("updated: ".count))
    let before = try commitCount()
    try nbSucceeds("edit", "roadmap", "--tags", "q4,#later")
    let updated = try assertEditCommitted(since: before, id: id, previous: previous)
    let lines = changedLines(original, try text("inbox/roadmap.md"))
    XCTAssertEqual(lines.map(\.0), ["updated: \(previous)", "tags: [planning]"])
    XCTAssertEqual(lines.map(\.1), ["updated: \(updated)", "tags: [q4, later]"], "a '#' prefix is dropped")
  }

  func testAChangeThatChangesNothingMakesNoCommit() throws {
    let (_, original) = try makeNote()
    try assertNoCommit {
      try nbSucceeds("edit", "roadmap", "--title", "Roadmap")
      try nbSucceeds("edit", "roadmap", "--tags", "planning")
      try nbSucceeds("edit", "roadmap", "--content", "First draft\n")
    }
    XCTAssertEqual(try text("inbox/roadmap.md"), original, "not even `updated` is touched")
  }

  func testEditOfACRLFNoteWithCommentsKeepsEveryOtherByte() throws {
    try makeRepository()
    let id = "0f1e2d3c-4b5a-4697-8877-665544332211"
    let original =
      "---\r\n# my comment\r\nid: \(id)\r\ntitle: 'Windows'\r\nupdated: 2020-01-01T00:00:00Z\r\n"
      + "extra:  kept\r\n---\r\nline\r\n"
    try write("inbox/windows.md", original)
    try gitCommitAll()
    let before = try commitCount()
    try nbSucceeds("edit", "inbox/windows.md", "--append", "appended")
    try assertOneCommit(
      since: before, subject: "nb: edit inbox/windows.md", noteIDs: [id], files: ["M\tinbox/windows.md"])
    let updated = try string(try noteJSON("inbox/windows.md"), "updated")
    try assertRFC3339(updated)
    let expected =
      original.replacingOccurrences(of: "2020-01-01T00:00:00Z", with: updated) + "appended\r\n"
    XCTAssertEqual(try text("inbox/windows.md"), expected)
  }
}

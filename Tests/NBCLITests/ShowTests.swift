import Foundation
import NBTestSupport
import XCTest

/// `nb show`: finds a note by any documented selector, prints a summary and the body, `--raw` the exact bytes.
final class ShowTests: NBCLITestCase {
  func testRawPrintsTheFileByteForByte() throws {
    try makeRepository()
    // BOM, CRLF, a comment and odd quoting: nothing nb would write itself, so a re-serialisation would show.
    let bytes = Data([0xEF, 0xBB, 0xBF]) + Data("---\r\n# c\r\ntitle:   'Odd'\r\n---\r\nbody\r\n".utf8)
    try write("inbox/odd.md", bytes)
    try gitCommitAll()
    try assertNoCommit {
      let result = try nbSucceeds("show", "inbox/odd.md", "--raw")
      XCTAssertEqual(result.stdoutData, bytes)
    }
  }

  func testSummaryAndBody() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--tags", "planning,q3", "--content", "First draft\n\nMore")
    let note = try noteJSON("roadmap")
    let id = try string(note, "id")
    let created = try string(note, "created")
    let output = try assertNoCommit { try nbSucceeds("show", "roadmap").stdout }
    let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    XCTAssertEqual(lines.first, "Roadmap")
    XCTAssertTrue(lines.contains { $0.hasPrefix("path") && $0.hasSuffix(" inbox/roadmap.md") }, output)
    XCTAssertTrue(lines.contains { $0.hasPrefix("id") && $0.hasSuffix(" \(id)") }, output)
    XCTAssertTrue(lines.contains { $0.hasPrefix("created") && $0.hasSuffix(" \(created)") }, output)
    XCTAssertTrue(lines.contains { $0.hasPrefix("tags") && $0.hasSuffix(" planning, q3") }, output)
    XCTAssertTrue(output.hasSuffix("\n\nFirst draft\n\nMore\n"), output)
    XCTAssertFalse(output.contains("---"), "the front matter block itself is not printed")
  }

  func testEverySelectorFindsTheSameNote() throws {
    try makeRepository()
    try nbSucceeds("add", "Quarterly Roadmap", "--notebook", "work", "--content", "x")
    try nbSucceeds("add", "Other", "--content", "y")
    let id = try string(try noteJSON("work/quarterly-roadmap.md"), "id")
    let selectors = [
      "work/quarterly-roadmap.md", "work/quarterly-roadmap", url("work/quarterly-roadmap.md").path, id,
      String(id.prefix(8)), "Quarterly Roadmap", "quarterly-roadmap",
    ]
    for selector in selectors {
      let note = try noteJSON(selector)
      XCTAssertEqual(note["path"] as? String, "work/quarterly-roadmap.md", "selector \(selector)")
      XCTAssertEqual(note["id"] as? String, id, "selector \(selector)")
    }
  }

  func testANoteWithoutFrontMatterShowsItsHeadingAsTitle() throws {
    try makeRepository()
    try write("inbox/plain.md", "# Plain Heading\n\ntext\n")
    try gitCommitAll()
    let note = try noteJSON("inbox/plain.md")
    XCTAssertEqual(note["title"] as? String, "Plain Heading")
    XCTAssertTrue(note["id"] is NSNull)
    XCTAssertEqual(note["body"] as? String, "# Plain Heading\n\ntext\n")
    let output = try assertNoCommit { try nbSucceeds("show", "inbox/plain.md").stdout }
    XCTAssertTrue(output.contains("(none yet)"), output)
  }
}

import Foundation
import NBTestSupport
import XCTest

/// `show NOTE`, `list [WORDS...]` and `status` run without ArgumentParser when no word on the line is an option
/// (`NB.runWithoutParsing`): each must print, fail and exit exactly as its parsed form, which an option forces.
final class PlainCommandLineTests: NBCLITestCase {
  func testPlainLinesDoWhatTheirParsedFormDoes() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work", "--tags", "planning", "--content", "First draft")
    try nbSucceeds("add", "Standup", "--notebook", "work/meetings", "--content", "Notes")
    try nbSucceeds("add", "Elsewhere", "--content", "Other")
    try write("work/loose.md", "# Loose\n\nNot committed yet.\n")
    let lines: [[String]] = [
      ["show", "roadmap"], ["show", "work/meetings/standup.md"], ["show", "no-such-note"], ["show", "help"],
      ["list"], ["list", "work"], ["list", "work/"], ["list", "work/meetings"], ["list", "nowhere"],
      ["list", "tag:planning"], ["list", "notebook:work", "draft"], ["list", "tag:"], ["list", "help"],
      ["status"],
    ]
    for line in lines {
      // Once first, so that neither run below is the one that builds the index (and says so).
      try nb(arguments: line)
      let plain = try nb(arguments: line)
      let parsed = try nb(arguments: line + ["--dir", root.path])
      XCTAssertEqual(plain, parsed, "nb \(line.joined(separator: " "))")
    }
    XCTAssertNotEqual(try nb("show", "no-such-note").status, 0)
    XCTAssertTrue(try nb("list", "work").stdout.contains("work/roadmap.md"))
  }
}

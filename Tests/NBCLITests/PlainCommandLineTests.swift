import Foundation
import NBTestSupport
import XCTest

/// `show NOTE`, `list [WORDS...]` and `status` run without ArgumentParser when no word on the line is an option but
/// a leading `--dir PATH` (`NB.runWithoutParsing`): each must print, fail and exit exactly as its parsed form, which
/// another option forces.
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
      // A trailing --dir goes to the parser; a leading one (as scripts write it) does not.
      let parsed = try nb(arguments: line + ["--dir", root.path])
      let leadingDirectory = try nb(arguments: ["--dir", root.path] + line)
      XCTAssertEqual(plain, parsed, "nb \(line.joined(separator: " "))")
      XCTAssertEqual(leadingDirectory, parsed, "nb --dir PATH \(line.joined(separator: " "))")
    }
    XCTAssertNotEqual(try nb("show", "no-such-note").status, 0)
    XCTAssertTrue(try nb("list", "work").stdout.contains("work/roadmap.md"))
  }

  /// `nb sync` with nothing but `--dir PATH` (before or after it, or `--dir=PATH`) skips the parser too: without a
  /// remote, publishing, up to date and with a save first, each line prints, fails and exits as the parsed form
  /// (forced here by `--remote origin`) does; any other word on the line goes to the parser.
  func testPlainSyncDoesWhatItsParsedFormDoes() throws {
    try makeRepository()
    let lines: [[String]] = [
      ["sync"], ["--dir", root.path, "sync"], ["sync", "--dir", root.path], ["--dir=\(root.path)", "sync"],
    ]
    let parsed = ["sync", "--remote", "origin", "--dir", root.path]
    for line in lines {
      XCTAssertEqual(try nb(arguments: line), try nb(arguments: parsed), "no remote: nb \(line.joined(separator: " "))")
    }
    let remote = try temp.directory("remote.git")
    XCTAssertTrue(try ProcessRunner.run("git", arguments: ["init", "-q", "--bare", remote.path]).succeeded)
    try nbSucceeds("remote", "add", "origin", remote.path)
    let published = try nb(arguments: ["--dir", root.path, "sync"])
    XCTAssertEqual(published.status, 0, published.stderr)
    XCTAssertTrue(published.stdout.contains("published"), published.stdout)
    for line in lines {
      let plain = try nb(arguments: line)
      XCTAssertEqual(plain, try nb(arguments: parsed), "up to date: nb \(line.joined(separator: " "))")
      XCTAssertTrue(plain.stdout.contains("already up to date"), plain.stdout)
    }
    try write("loose.md", "# Loose\n")
    let saved = try nb(arguments: ["sync", "--dir", root.path])
    XCTAssertEqual(saved.status, 0, saved.stderr)
    XCTAssertTrue(saved.stdout.contains("saved first: loose.md"), saved.stdout)
    XCTAssertNotEqual(try nb("sync", "--no-such-option").status, 0)
    XCTAssertNotEqual(try nb("--dir", root.path, "sync", "extra").status, 0)
  }
}

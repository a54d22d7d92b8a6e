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
      ["status"], ["save"],
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

  /// `nb sync` with its own options (`--dir PATH` before or after it, `--device`, `--json`, ...) skips the parser
  /// too: without a remote, publishing, up to date and with a save first, each line prints, fails and exits as the
  /// parsed form (forced here by a repeated `--remote`, which the parser reads as its last value) does; any other
  /// word on the line goes to the parser.
  func testPlainSyncDoesWhatItsParsedFormDoes() throws {
    try makeRepository()
    let lines: [[String]] = [
      ["sync"], ["--dir", root.path, "sync"], ["sync", "--dir", root.path], ["--dir=\(root.path)", "sync"],
      ["sync", "--remote=origin"], ["sync", "--device", "desk", "--remote", "origin", "--dir", root.path],
    ]
    let parsed = ["sync", "--remote", "elsewhere", "--remote", "origin", "--dir", root.path]
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

  /// `nb add` with a title and `--notebook`/`--tags`/`--content`/`--json` skips the parser too: two repositories
  /// given the same adds, one through the plain line and one through its parsed form (forced by a trailing `--dir`),
  /// print the same and commit the same files with the same bytes.
  func testPlainAddDoesWhatItsParsedFormDoes() throws {
    try makeRepository()
    let other = temp.file("other")
    try nbSucceeds("init", other.path)
    let lines: [[String]] = [
      ["add", "Roadmap", "--notebook", "work", "--tags", "planning,q3", "--content", "First draft"],
      ["add", "-n", "work", "Standup", "-c", "--json looks like an option", "-t", "daily"],
      ["add", "Piped", "--json"],
      ["add", "--content", "# From the heading\n\nBody"],
      ["add", "Roadmap", "--notebook", "work", "--content", "a second roadmap"],
      ["add", "Bad", "--notebook", "../outside"],
      ["add"],
    ]
    let fixed = ["NB_NOW": "2026-11-24T09:00:00+01:00", "NB_DEVICE": "bench"]
    for line in lines {
      let plain = try nb(arguments: line, stdin: Data("piped text\n".utf8), env: fixed)
      let parsed = try nb(
        arguments: line + ["--dir", other.path], stdin: Data("piped text\n".utf8), env: fixed)
      func normalised(_ result: ProcessResult) -> String {
        // The notes' ids are random: the same line gives each repository its own.
        (result.stdout + result.stderr + "\(result.status)").replacingOccurrences(
          of: #"[0-9a-z]{26}|[0-9A-Za-z-]{36}"#, with: "ID", options: .regularExpression)
      }
      XCTAssertEqual(normalised(plain), normalised(parsed), "nb \(line.joined(separator: " "))")
    }
    let otherGit = try GitCLI(workTree: other, home: home)
    XCTAssertEqual(
      try git.run("ls-files").split(separator: "\n"), try otherGit.run("ls-files").split(separator: "\n"))
    XCTAssertEqual(try git.logSubjects(), try otherGit.logSubjects())
  }

  /// `nb edit NOTE` with `--content`/`--append`/`--title`/`--tags` skips the parser too: two repositories given the
  /// same notes and the same edits, one through the plain line and one through its parsed form (forced by a trailing
  /// `--dir`), print the same, fail the same and commit the same bytes.
  func testPlainEditDoesWhatItsParsedFormDoes() throws {
    try makeRepository()
    let other = temp.file("other")
    try nbSucceeds("init", other.path)
    let fixed = ["NB_NOW": "2026-11-24T09:00:00+01:00", "NB_DEVICE": "bench"]
    for directory in [root.path, other.path] {
      for title in ["Roadmap", "Standup"] {
        XCTAssertEqual(
          try nb(arguments: ["add", title, "--notebook", "work", "--content", "First", "--dir", directory], env: fixed)
            .status, 0)
      }
    }
    let lines: [[String]] = [
      ["edit", "work/roadmap.md", "--append", "a line"],
      ["edit", "roadmap", "--append", "two\nlines", "--tags", "q3,planning"],
      ["edit", "Standup", "--title", "Daily standup"],
      ["edit", "--content", "Replaced", "work/standup.md"],
      ["edit", "work/roadmap.md", "--append", ""],
      ["edit", "no-such-note", "--append", "x"],
      ["edit", "work/roadmap.md", "--tags", ""],
      ["edit", "work/roadmap.md", "--title", "bad/title"],
    ]
    for line in lines {
      let plain = try nb(arguments: line, env: fixed)
      let parsed = try nb(arguments: line + ["--dir", other.path], env: fixed)
      XCTAssertEqual(
        plain.stdout + plain.stderr + "\(plain.status)", parsed.stdout + parsed.stderr + "\(parsed.status)",
        "nb \(line.joined(separator: " "))")
    }
    XCTAssertNotEqual(try nb("edit", "no-such-note", "--append", "x").status, 0)
    let otherGit = try GitCLI(workTree: other, home: home)
    XCTAssertEqual(try git.logSubjects(), try otherGit.logSubjects())
    for path in ["work/roadmap.md", "work/standup.md"] {
      func idFree(_ text: String) -> String {
        text.replacingOccurrences(of: #"[0-9a-z]{26}|[0-9A-Za-z-]{36}"#, with: "ID", options: .regularExpression)
      }
      XCTAssertEqual(
        idFree(try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)),
        idFree(try String(contentsOf: other.appendingPathComponent(path), encoding: .utf8)), path)
    }
    XCTAssertTrue(
      try String(contentsOf: root.appendingPathComponent("work/roadmap.md"), encoding: .utf8).contains("a line"))
  }

  /// `nb sync` starts loading libgit2 on another thread before it opens the repository; when the open fails at
  /// once, the process must still exit cleanly (it once could crash in glibc's exit handlers, racing that load).
  func testASyncThatFailsAtOnceExitsCleanlyEveryTime() throws {
    try makeRepository()
    try write(".nb/config.yaml", "format: 3\n")
    for attempt in 0..<40 {
      let result = try nb("sync")
      XCTAssertEqual(result.status, 1, "attempt \(attempt): \(result.stderr)")
      XCTAssertEqual(
        result.stderr.split(separator: "\n").count, 1, "attempt \(attempt): stderr should be one line:\n\(result.stderr)")
    }
  }
}

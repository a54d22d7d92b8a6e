import Foundation
import NBCLI
import NBTestSupport
import XCTest

/// `nb init`: a git repository on `main` with nb's committed files, in one commit; an existing git repository is
/// adopted with its history.
final class InitTests: NBCLITestCase {
  func testInitMakesOneCommitWithTheDocumentedFiles() throws {
    let output = try nbSucceeds("init", root.path).stdout
    XCTAssertTrue(output.contains(root.path), output)
    XCTAssertEqual(try commitCount(), 1)
    XCTAssertEqual(try git.logSubjects(), ["nb: init"])
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%(trailers:key=Nb-Note-Id,valueonly)").trimmingCharacters(in: .newlines), "",
      "no note is touched")
    XCTAssertEqual(
      try git.run("show", "--name-status", "--format=", "HEAD").split(separator: "\n").sorted(),
      ["A\t.gitattributes", "A\t.gitignore", "A\t.nb/config.yaml", "A\tinbox/.notebook.yaml"])
    XCTAssertEqual(try git.run("symbolic-ref", "HEAD"), "refs/heads/main\n")
    let config = try text(".nb/config.yaml").split(separator: "\n")
    XCTAssertTrue(config.contains("format: 2"), "\(config)")
    XCTAssertTrue(config.contains("default_notebook: inbox"), "\(config)")
    XCTAssertTrue(
      try text(".gitattributes").split(separator: "\n").contains("*.ink.jsonl merge=nb-ink diff=nb-ink text eol=lf"))
    // git itself applies the attribute line as FORMAT.md gives it.
    XCTAssertEqual(
      try git.run("check-attr", "merge", "eol", "--", "a/b.ink.jsonl"),
      "a/b.ink.jsonl: merge: nb-ink\na/b.ink.jsonl: eol: lf\n")
    XCTAssertEqual(try git.run("check-attr", "merge", "--", "a/b.md"), "a/b.md: merge: nb-note\n")
    XCTAssertEqual(try git.run("check-ignore", "inbox/.note.md.swp"), "inbox/.note.md.swp\n")
    try assertCleanAndSound()
    // The author is the git identity from the (isolated) global config.
    XCTAssertEqual(try git.run("log", "-1", "--format=%an <%ae>"), "\(GitCLI.userName) <\(GitCLI.userEmail)>\n")
  }

  func testInitTwiceIsRefusedAndChangesNothing() throws {
    try makeRepository()
    let result = try assertNothingChanged { try nb("init", root.path) }
    XCTAssertNotEqual(result.status, 0)
    XCTAssertFalse(result.stderr.isEmpty)
    XCTAssertEqual(try commitCount(), 1)
  }

  func testInitAdoptsAnExistingGitRepository() throws {
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try git.run("init", "-q", "-b", "main")
    try write("README.md", "mine\n")
    try write(".gitignore", "secret\n")
    try gitCommitAll("my first commit")
    let first = try git.revParse("HEAD")
    try nbSucceeds("init", root.path)
    XCTAssertEqual(try git.logSubjects(), ["nb: init", "my first commit"])
    XCTAssertEqual(try git.revParse("HEAD~1"), first, "history is kept")
    XCTAssertEqual(try text("README.md"), "mine\n")
    // An existing .gitignore is not replaced: nb's block of per-device ignores is added after what was there.
    let ignore = try text(".gitignore")
    XCTAssertTrue(ignore.hasPrefix("secret\n\n# nb: per-device state of editors and apps"), ignore)
    XCTAssertTrue(ignore.contains("\n.obsidian/workspace*.json\n"), ignore)
    XCTAssertEqual(
      try git.run("show", "--name-status", "--format=", "HEAD").split(separator: "\n").sorted(),
      ["A\t.gitattributes", "A\t.nb/config.yaml", "A\tinbox/.notebook.yaml", "M\t.gitignore"])
    try assertCleanAndSound()
  }

  func testInitLeavesAnExistingGitattributesAlone() throws {
    // A repository whose .gitattributes someone else (or an older nb, without the *.md line) wrote: nb init does not
    // add to it, so its notes merge as the owner chose; the README gives the line to add by hand.
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try git.run("init", "-q", "-b", "main")
    let older = "*.ink.jsonl merge=nb-ink diff=nb-ink text eol=lf\n*.png binary\n"
    try write(".gitattributes", older)
    try gitCommitAll("my attributes")
    try nbSucceeds("init", root.path)
    XCTAssertEqual(try text(".gitattributes"), older)
    XCTAssertEqual(try git.run("check-attr", "merge", "--", "inbox/a.md"), "inbox/a.md: merge: unspecified\n")
  }

  func testInitWithoutAPathUsesNotesInHome() throws {
    let result = try runner.run(["init"])
    XCTAssertEqual(result.status, 0, result.stderr)
    let notes = home.appendingPathComponent("notes")
    XCTAssertTrue(FileManager.default.fileExists(atPath: notes.appendingPathComponent(".nb/config.yaml").path))
    let homeGit = try GitCLI(workTree: notes, home: home)
    XCTAssertEqual(try homeGit.logSubjects(), ["nb: init"])
  }

  func testGitWorktreeWhoseDotGitIsAFileWorks() throws {
    try makeRepository()
    let worktree = temp.file("worktree")
    _ = try git.run("worktree", "add", "-q", "-b", "side", worktree.path)
    let dotGit = try String(contentsOf: worktree.appendingPathComponent(".git"), encoding: .utf8)
    XCTAssertTrue(dotGit.hasPrefix("gitdir: "), "git made a .git file, not a directory: \(dotGit)")

    let added = try runner.run(["add", "Side note", "--content", "x", "--dir", worktree.path])
    XCTAssertEqual(added.status, 0, added.stderr)
    let listed = try runner.run(["list", "--dir", worktree.path])
    XCTAssertEqual(listed.status, 0, listed.stderr)
    XCTAssertTrue(listed.stdout.contains("inbox/side-note.md"), listed.stdout)
    let side = try GitCLI(workTree: worktree, home: home)
    XCTAssertEqual(try side.run("log", "-1", "--format=%s"), "nb: add inbox/side-note.md\n")
    XCTAssertEqual(try side.statusPorcelain(), "")
    // The device-local cache went to the worktree's own git directory, not into its work tree.
    XCTAssertFalse(FileManager.default.fileExists(atPath: worktree.appendingPathComponent(".git/nb").path))
    try side.fsck()
  }

  func testSettingsWithoutGitAreRefusedWithTheFix() throws {
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent(".nb"), withIntermediateDirectories: true)
    try "format: 1\n".write(to: root.appendingPathComponent(".nb/config.yaml"), atomically: false, encoding: .utf8)
    for arguments in [["list"], ["add", "X"]] {
      let result = try runner.run(arguments + ["--dir", root.path])
      XCTAssertNotEqual(result.status, 0)
      XCTAssertTrue(result.stderr.contains("git init"), result.stderr)
    }
  }

  func testVersion() throws {
    let result = try runner.run(["--version"])
    XCTAssertEqual(result.status, 0)
    XCTAssertNotNil(
      result.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression), "not a version: \(result.stdout)")
  }

  /// `--version` after a leading `--dir` skips ArgumentParser too: what it prints must be what the parser would.
  func testVersionAfterDirIsTheParsersAnswer() throws {
    var parsersAnswer = ""
    do {
      _ = try NB.parseAsRoot(["--version", "--dir", root.path])
      XCTFail("ArgumentParser did not stop at --version")
    } catch {
      parsersAnswer = NB.fullMessage(for: error)
    }
    XCTAssertFalse(parsersAnswer.isEmpty)
    for arguments in [["--dir", root.path, "--version"], ["--dir=\(root.path)", "--version"], ["--version"]] {
      let result = try runner.run(arguments)
      XCTAssertEqual(result.status, 0, "\(arguments)")
      XCTAssertEqual(result.stdout, parsersAnswer + "\n", "\(arguments)")
      XCTAssertEqual(result.stderr, "", "\(arguments)")
    }
  }
}

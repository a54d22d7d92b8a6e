import Foundation
import NBTestSupport
import XCTest

/// `nb merge-driver note` used by plain git on another device: device A edits with nb (which stamps `updated`),
/// device B uses only the git CLI with the driver configured and runs `git pull --rebase`.
final class NoteMergeDriverTwoDeviceTests: TwoDeviceTestCase {
  private let body = "one\ntwo\nthree\nfour\n"

  /// Shares one tagged note, lets B (git only) and A (nb, then `nb sync`) edit it, and returns the note's path, the
  /// shared version and each side's version before B pulls.
  private func diverge(
    git edit: (Device, String) throws -> Void, nb nbEdit: (Device, String) throws -> Void
  ) throws -> (path: String, base: String, a: String, b: String) {
    let path = try share([Seed(title: "Plan", content: body, tags: "work")])[0].path
    let base = try b.read(path)
    try b.git.run(
      "config", "merge.nb-note.driver", b.runner.binary.path + " merge-driver note %O %A %B %L %P")
    try edit(b, path)
    try b.git.run("commit", "-q", "-a", "-m", "edit by git")
    try nbEdit(a, path)
    try a.ok("save")
    try a.sync()
    return (path, base, try a.read(path), try b.read(path))
  }

  /// What git's own line merge makes of the three versions (the oracle for "plain git would conflict").
  private func plainGitMergeStatus(base: String, ours: String, theirs: String) throws -> Int32 {
    let files = ["o", "a", "b"].map { temp.file("plain-\($0)") }
    for (file, text) in zip(files, [base, ours, theirs]) { try Data(text.utf8).write(to: file) }
    return try b.git.result(["merge-file", "-p", files[1].path, files[0].path, files[2].path]).status
  }

  func testGitPullRebaseMergesATagEditWithAnNbBodyEditAndItsStamp() throws {
    let (path, base, aText, bText) = try diverge(
      git: { try $0.replaceLine($1, "tags: [work]", with: "tags: [work, urgent]") },
      nb: { try $0.replaceLine($1, "two", with: "two, revised") })
    func updated(_ text: String) -> Substring? { text.split(separator: "\n").first { $0.hasPrefix("updated: ") } }
    XCTAssertNotNil(updated(aText))
    XCTAssertNotEqual(updated(aText), updated(base), "nb stamps updated")
    XCTAssertNotEqual(
      try plainGitMergeStatus(base: base, ours: aText, theirs: bText), 0,
      "the scenario must be one that plain git's line merge conflicts on")

    let pull = try b.git.result(["pull", "--rebase", "origin", "main"])
    XCTAssertEqual(pull.status, 0, pull.stderr + pull.stdout)
    XCTAssertEqual(try b.read(path), aText.replacingOccurrences(of: "tags: [work]\n", with: "tags: [work, urgent]\n"))
    XCTAssertEqual(try b.git.statusPorcelain(), "")
    XCTAssertEqual(try b.git.logSubjects().first, "edit by git", "B's commit is replayed on top of A's")
  }

  func testBodyEditsWithALineBetweenThemMerge() throws {
    let (path, _, aText, _) = try diverge(
      git: { try $0.replaceLine($1, "one", with: "one (git)") },
      nb: { try $0.replaceLine($1, "three", with: "three (nb)") })
    let pull = try b.git.result(["pull", "--rebase", "origin", "main"])
    XCTAssertEqual(pull.status, 0, pull.stderr + pull.stdout)
    XCTAssertEqual(try b.read(path), aText.replacingOccurrences(of: "\none\n", with: "\none (git)\n"))
    XCTAssertEqual(try b.git.statusPorcelain(), "")
  }

  func testSameBodyLineOnBothSidesIsAConflictWithGitsMarkers() throws {
    let (path, _, aText, bText) = try diverge(
      git: { try $0.replaceLine($1, "two", with: "two (git)") },
      nb: { try $0.replaceLine($1, "two", with: "two (nb)") })
    let pull = try b.git.result(["pull", "--rebase", "origin", "main"])
    XCTAssertNotEqual(pull.status, 0, "a real conflict must stop the rebase")
    let status = try b.git.statusPorcelain()
    XCTAssertTrue(status.contains("UU \(path)"), status)
    // While rebasing, "ours" is the upstream (A's nb edit) and "theirs" the commit being replayed (B's); only the
    // clashing line is between the markers, and the front matter holds A's later stamp.
    XCTAssertEqual(
      try b.read(path),
      aText.replacingOccurrences(
        of: "\ntwo (nb)\n", with: "\n<<<<<<< ours\ntwo (nb)\n=======\ntwo (git)\n>>>>>>> theirs\n"))
    XCTAssertTrue(bText.contains("two (git)"))
  }
}

/// `nb merge-driver note` against plain git in one repository: the attribute `nb init` writes, git without the
/// driver configured, and bad arguments.
final class NoteMergeDriverTests: NBCLITestCase {
  /// A note committed on `main`, then edited by `theirs` on branch `other` and by `ours` on `main`.
  private func branches(ours: (String) -> String, theirs: (String) -> String) throws -> String {
    try makeRepository()
    let path = try addNote("Plan", content: "one\ntwo\nthree\nfour\nfive\nsix\n")
    let original = try text(path)
    try git.run("checkout", "-q", "-b", "other")
    try write(path, theirs(original))
    try gitCommitAll("theirs")
    try git.run("checkout", "-q", "main")
    try write(path, ours(original))
    try gitCommitAll("ours")
    return path
  }

  func testWithoutTheDriverConfiguredGitMergesNotesAsPlainText() throws {
    let path = try branches(
      ours: {
        $0.replacingOccurrences(of: "two\n", with: "two (ours)\n").replacingOccurrences(of: "four\n", with: "4\n")
      },
      theirs: { $0.replacingOccurrences(of: "two\n", with: "two (theirs)\n") })
    XCTAssertEqual(try git.run("check-attr", "merge", "--", path), "\(path): merge: nb-note\n")
    XCTAssertFalse(try git.result(["config", "merge.nb-note.driver"]).succeeded, "no driver configured")
    let merge = try git.result(["merge", "--no-edit", "other"])
    XCTAssertNotEqual(merge.status, 0)
    // git's own labels (HEAD, the branch), not the driver's (ours, theirs): git's text merge ran.
    let conflicted = try text(path)
    XCTAssertTrue(
      conflicted.contains("\n<<<<<<< HEAD\ntwo (ours)\n=======\ntwo (theirs)\n>>>>>>> other\nthree\n4\n"), conflicted)
    try git.run("merge", "--abort")
    // And distant edits merge as they always did.
    try git.run("checkout", "-q", "-b", "distant", "HEAD~1")
    try write(path, try text(path).replacingOccurrences(of: "six\n", with: "6\n"))
    try gitCommitAll("distant")
    let clean = try git.result(["merge", "--no-edit", "main"])
    XCTAssertEqual(clean.status, 0, clean.stderr + clean.stdout)
    let merged = try text(path)
    XCTAssertTrue(merged.hasSuffix("\none\ntwo (ours)\nthree\n4\nfive\n6\n"), merged)
  }

  func testTheDriverHonoursGitsMarkerSizeAttribute() throws {
    let path = try branches(
      ours: { $0.replacingOccurrences(of: "two\n", with: "two (ours)\n") },
      theirs: { $0.replacingOccurrences(of: "two\n", with: "two (theirs)\n") })
    try git.run("config", "merge.nb-note.driver", runner.binary.path + " merge-driver note %O %A %B %L %P")
    try write(".git/info/attributes", "*.md conflict-marker-size=10\n")
    let merge = try git.result(["merge", "--no-edit", "other"])
    XCTAssertNotEqual(merge.status, 0)
    XCTAssertTrue(merge.stderr.contains("nb merge-driver: \(path): both sides changed body"), merge.stderr)
    let conflicted = try text(path)
    XCTAssertTrue(
      conflicted.contains("\n<<<<<<<<<< ours\ntwo (ours)\n==========\ntwo (theirs)\n>>>>>>>>>> theirs\nthree\n"),
      conflicted)
  }

  func testBadArgumentsAreOneLineErrorsAndTouchNothing() throws {
    try makeRepository()
    for name in ["o.md", "a.md", "b.md"] { try write(name, "text of \(name)\n") }
    let (o, a, b) = (url("o.md").path, url("a.md").path, url("b.md").path)
    try assertRefused(["merge-driver", "note", o, a], mentioning: ["%O %A %B", "got 2"])
    try assertRefused(["merge-driver", "note", o, a, b, "7", "p", "extra"], mentioning: ["got 6"])
    try assertRefused(["merge-driver", "note", url("missing.md").path, a, b], mentioning: ["missing.md"])
    try assertRefused(["merge-driver", "note", o, a, url("gone.md").path], mentioning: ["gone.md"])
    try assertRefused(["merge-driver", "note", o, a, b, "seven"], mentioning: ["marker size", "seven"])
  }
}

import Foundation
import NBTestSupport
import XCTest

/// Device B has only git: its edits keep the `updated` nb wrote earlier. Such an edit is timed by its commit, so a
/// newer plain-git edit beats an older nb one (issue 9, item 1), and the losing version's copy is named after its
/// own edit time and the device (or git author) that made it.
final class SyncPlainGitTimeTests: TwoDeviceTestCase {
  /// A edits line two and saves; B edits the same line with git, commits `offset` seconds after A's stamp, pushes;
  /// A syncs. Returns the note's path, A's `updated` and A's merge summary.
  private func edit(bCommitsAfterA offset: TimeInterval) throws -> (path: String, stamp: String, merge: SyncJSON) {
    let note = try share([Seed(title: "Plan", content: SyncTableScenarios.fiveLines)])[0]
    try a.replaceLine(note.path, "line two", with: "line two, laptop")
    try a.ok("save")
    let stamp = try XCTUnwrap(
      try a.read(note.path).components(separatedBy: "\n").first { $0.hasPrefix("updated: ") }?.dropFirst(9))
    let aTime = try XCTUnwrap(ISO8601DateFormatter().date(from: String(stamp)))
    XCTAssertEqual(
      try a.git.run("log", "-1", "--format=%(trailers:key=Nb-Device,valueonly)").trimmingCharacters(
        in: .whitespacesAndNewlines),
      "laptop",
      "nb's save commit names its device")

    try b.replaceLine(note.path, "line two", with: "line two, desktop")
    let bDate = ISO8601DateFormatter().string(from: aTime.addingTimeInterval(offset))
    try b.git.run("commit", "-q", "--date", bDate, "-m", "edit by hand", note.path)
    XCTAssert(
      try b.read(note.path).contains("updated: \(stamp)") == false,
      "B's file still carries the base's stamp, not A's new one")
    try b.git.run("push", "-q", "origin", "HEAD:main")
    let merge = try a.sync()
    XCTAssertEqual(merge.outcome, "merged")
    XCTAssertEqual(
      try a.git.run("log", "-1", "--format=%(trailers:key=Nb-Device,valueonly)").trimmingCharacters(
        in: .whitespacesAndNewlines),
      "laptop",
      "nb's merge commit names its device")
    return (note.path, String(stamp), merge)
  }

  /// B converges with plain git (`git pull`), then both devices are checked.
  private func converge() throws {
    try b.git.run("pull", "-q", "--no-rebase", "origin", "main")
    try assertConverged()
  }

  func testANewerPlainGitEditKeepsThePathAndTheOlderNbEditIsTheCopy() throws {
    let (path, stamp, merge) = try edit(bCommitsAfterA: 3)
    XCTAssertEqual(merge.conflicts.map(\.winner), ["theirs"], "B committed 3 s after A's stamp")
    let kept = try a.read(path)
    XCTAssertTrue(kept.contains("line two, desktop\n"), kept)
    let stem = String(path.dropLast(3))
    let copy = "\(stem).conflict-\(try XCTUnwrap(Self.compactUTC(stamp)))-laptop.md"
    XCTAssertEqual(merge.conflicts.map(\.kept_at), [copy])
    let copied = try a.read(copy)
    XCTAssertTrue(copied.contains("line two, laptop\n"), copied)
    XCTAssertFalse(copied.contains("desktop"), copied)
    try converge()
  }

  func testAnOlderPlainGitEditLosesAndItsCopyIsNamedAfterItsCommitAndAuthor() throws {
    let (path, stamp, merge) = try edit(bCommitsAfterA: -3)
    XCTAssertEqual(merge.conflicts.map(\.winner), ["ours"], "B committed 3 s before A's stamp")
    let kept = try a.read(path)
    XCTAssertTrue(kept.contains("line two, laptop\n"), kept)
    let bTime = try XCTUnwrap(ISO8601DateFormatter().date(from: stamp)).addingTimeInterval(-3)
    let stem = String(path.dropLast(3))
    // B's commit has no Nb-Device trailer: its author's name (GitCLI's "Test User") names the copy.
    let copy = "\(stem).conflict-\(try XCTUnwrap(Self.compactUTC(Self.rfc3339(bTime))))-test-user.md"
    XCTAssertEqual(merge.conflicts.map(\.kept_at), [copy])
    let copied = try a.read(copy)
    XCTAssertTrue(copied.contains("line two, desktop\n"), copied)
    XCTAssertFalse(copied.contains("laptop"), copied)
    try converge()
  }

  /// B (git only) changes `tags`, the line right after the `updated` line nb rewrites on A's body edit: lines that
  /// plain git's text merge cannot take apart, but different keys, so A's sync merges them with no conflict copy
  /// and B takes the result with a plain `git pull`.
  func testAPlainGitEditBesideTheUpdatedLineMergesWithAnNbEditWithoutACopy() throws {
    let note = try share([Seed(title: "Plan", content: SyncTableScenarios.fiveLines, tags: "work")])[0]
    let base = try b.read(note.path)
    try a.replaceLine(note.path, "line two", with: "line two, laptop")
    try a.ok("save")
    let aText = try a.read(note.path)
    try b.replaceLine(note.path, "tags: [work]", with: "tags: [work, urgent]")
    let bText = try b.read(note.path)
    let files = ["base", "laptop", "desktop"].map { temp.file("adjacent-\($0).md") }
    for (file, text) in zip(files, [base, aText, bText]) { try Data(text.utf8).write(to: file) }
    XCTAssertNotEqual(
      try b.git.result(["merge-file", "-p", files[1].path, files[0].path, files[2].path]).status, 0,
      "the edits must be ones git's line merge conflicts on")
    try b.git.run("commit", "-q", "-am", "tag by hand")
    try b.git.run("push", "-q", "origin", "HEAD:main")

    let merge = try a.sync()
    XCTAssertEqual(merge.outcome, "merged")
    XCTAssertEqual(merge.conflicts.count, 0, "\(merge.conflicts)")
    XCTAssertEqual(merge.merged, [note.path])
    XCTAssertEqual(
      try a.read(note.path), aText.replacingOccurrences(of: "tags: [work]\n", with: "tags: [work, urgent]\n"))
    try converge()
  }
}

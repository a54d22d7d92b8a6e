import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// Saves commit without starting libgit2 once a commit through it has learnt what the config says
/// (`NoteHistory.commitFromFiles`): the git CLI checks every commit, whichever path made it.
final class CommitFromFilesTests: NoteRepositoryTestCase {
  private var settingsFile: URL { url(".git/nb/cache/commit-settings") }

  func testCommitsAfterTheFirstAreMadeFromGitsFilesWithTheConfiguredIdentity() throws {
    try? FileManager.default.removeItem(at: settingsFile)
    let plainBefore = NoteHistory.plainCommits.value
    let commitsBefore = try commitCount()

    // Nothing learnt yet: libgit2 commits, and keeps the settings for the next commit.
    _ = try repository.createNote(NoteDraft(title: "First"))
    XCTAssertEqual(NoteHistory.plainCommits.value, plainBefore)
    XCTAssertTrue(FileManager.default.fileExists(atPath: settingsFile.path))

    let second = try repository.createNote(NoteDraft(title: "Second", content: "body\n"))
    clock.advance(60)
    _ = try repository.update(second, NoteChange(append: "more\n"))
    XCTAssertEqual(NoteHistory.plainCommits.value, plainBefore + 2, "both made without libgit2")
    XCTAssertEqual(try commitCount(), commitsBefore + 3)
    XCTAssertEqual(try lastSubject(), "nb: edit inbox/second.md")
    XCTAssertEqual(try trailerIDs(), [try XCTUnwrap(second.id)])
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%an <%ae> %at"),
      "\(GitCLI.userName) <\(GitCLI.userEmail)> \(Int(clock.now.timeIntervalSince1970))\n")
    XCTAssertEqual(try git.statusPorcelain(), "")
    try git.fsck()

    // A config change is seen: libgit2 commits once with the new name, and the plain commits after it use it too.
    try git.run("config", "user.name", "Renamed Person")
    _ = try repository.createNote(NoteDraft(title: "Third"))
    XCTAssertEqual(NoteHistory.plainCommits.value, plainBefore + 2)
    _ = try repository.createNote(NoteDraft(title: "Fourth"))
    XCTAssertEqual(NoteHistory.plainCommits.value, plainBefore + 3)
    XCTAssertEqual(try git.run("log", "-2", "--format=%an"), "Renamed Person\nRenamed Person\n")
    try git.fsck()
  }

  /// The kept settings are derived data: a damaged file, or one that says the config rules a plain commit out,
  /// only sends the commit through libgit2, which writes the file again.
  func testADamagedOrRefusingSettingsFileOnlyMeansLibgit2Commits() throws {
    _ = try repository.createNote(NoteDraft(title: "First"))
    let kept = try String(contentsOf: settingsFile)
    let lines = kept.split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertEqual(lines.first, "nb commit settings 1")
    let fields = lines[1].split(separator: "\t", omittingEmptySubsequences: false)
    XCTAssertEqual(fields[1...].joined(separator: "\t"), "1\t\(GitCLI.userName)\t\(GitCLI.userEmail)\t1")

    for replacement in ["nb commit settings 1\ntorn", fields[0] + "\t0\t\t\t1"] {
      let text = replacement.hasPrefix("nb ") ? replacement : "nb commit settings 1\n" + replacement + "\n"
      try Data(text.utf8).write(to: settingsFile)
      let plainBefore = NoteHistory.plainCommits.value
      _ = try repository.createNote(NoteDraft(title: "After \(replacement.count)"))
      XCTAssertEqual(NoteHistory.plainCommits.value, plainBefore, replacement)
      if replacement.hasPrefix("nb ") {
        XCTAssertEqual(try String(contentsOf: settingsFile), kept, "written again")
      }
    }
    try git.fsck()
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  /// Something staged by hand keeps the commit to the given paths: the plain path declines, libgit2 commits, and
  /// what was staged stays staged.
  func testAnIndexWithSomethingStagedIsLeftToLibgit2() throws {
    _ = try repository.createNote(NoteDraft(title: "First"))
    try write("staged.txt", "staged by hand\n")
    try git.run("add", "staged.txt")
    let plainBefore = NoteHistory.plainCommits.value
    _ = try repository.createNote(NoteDraft(title: "Second"))
    XCTAssertEqual(NoteHistory.plainCommits.value, plainBefore)
    XCTAssertEqual(try git.statusPorcelain(), "A  staged.txt\n")
    XCTAssertEqual(try git.run("show", "--name-only", "--format=", "HEAD"), "inbox/second.md\n")
  }
}

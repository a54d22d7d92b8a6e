import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Multi-file commands killed at random moments: afterwards the work tree and HEAD hold all of the command or none
/// of it, never half, and `nb status` names an interrupted operation until a locking command settles it.
final class InterruptedTests: NBCLITestCase {
  private let noteCount = 300

  /// Notes in `notes/`, each tagged `tag` and `other`, committed with git.
  private func seedTaggedNotes(_ tag: String) throws {
    for i in 0..<noteCount {
      let id = String(format: "00000000-0000-4000-8000-%012d", i)
      try write(
        "notes/n\(i).md",
        "---\nid: \(id)\ntitle: Note \(i)\ntags: [\(tag), other]\n---\nBody \(i).\n")
    }
    try gitCommitAll("seed tagged notes")
  }

  /// How many committed notes carry the word `word` (the tags are the only place the test's words appear).
  private func committedNotes(containing word: String) throws -> Int {
    let output = (try? git.run("grep", "-l", "-w", word, "HEAD", "--", "notes")) ?? ""
    return output.split(separator: "\n").count
  }

  private var journalExists: Bool {
    FileManager.default.fileExists(atPath: url(".git/nb/journal/log").path)
  }

  func testKilledTagRenameLeavesAllOrNothing() throws {
    try makeRepository()
    try seedTaggedNotes("alpha")
    var current = "alpha"
    // One run tells how long a rename takes, so the kills land anywhere inside one.
    let started = Date()
    try nbSucceeds("tag", "rename", "alpha", "beta")
    let duration = Date().timeIntervalSince(started)
    current = "beta"
    var interrupted = 0
    var tries = 0
    let deadline = Date().addingTimeInterval(40)
    while Date() < deadline {
      tries += 1
      let next = current == "alpha" ? "beta" : "alpha"
      let commitsBefore = try commitCount()
      let process = try launchNB(["tag", "rename", current, next])
      Thread.sleep(forTimeInterval: Double.random(in: 0...(duration * 1.1)))
      process.terminate(SIGKILL)
      _ = try process.wait(timeout: 120)

      if journalExists {
        interrupted += 1
        // Status does not take the lock: it reports the half-done operation and leaves it.
        let status = try nbSucceeds("status")
        XCTAssert(
          (status.stdout + status.stderr).contains("interrupted"), "status is silent after a kill:\n\(status.stdout)")
        XCTAssert(journalExists, "status settled the journal; only a locking command may")
      }
      let hadJournal = journalExists
      let save = try nbSucceeds("save")
      XCTAssertFalse(journalExists, "save left the journal behind")
      if hadJournal { XCTAssert(save.stderr.contains("interrupted"), "save settled silently: \(save.stderr)") }
      XCTAssertEqual(try git.statusPorcelain(), "", "try \(tries): the work tree differs from HEAD after save")
      let old = try committedNotes(containing: current)
      let new = try committedNotes(containing: next)
      XCTAssert(
        (old == noteCount && new == 0) || (old == 0 && new == noteCount),
        "try \(tries): HEAD holds \(old) notes tagged \(current) and \(new) tagged \(next)")
      // At most the rename's own commit: the save after a kill commits nothing of a half rename.
      XCTAssertLessThanOrEqual(try commitCount(), commitsBefore + 1)
      if new == noteCount { current = next }
      let strays = try git.run("ls-files", "--others", "--", "notes").trimmingCharacters(in: .whitespacesAndNewlines)
      XCTAssertEqual(strays, "", "try \(tries): temporary files left behind")
    }
    try git.fsck()
    XCTAssertGreaterThan(interrupted, 0, "no kill landed inside a rename in \(tries) tries; the test proved little")
  }

  func testKilledNotebookRenameLeavesAllOrNothing() throws {
    try makeRepository()
    try seedTaggedNotes("alpha")
    let places = ["notes", "archive/deep/notes"]
    var here = 0
    let started = Date()
    try nbSucceeds("notebook", "rename", places[0], places[1])
    let duration = Date().timeIntervalSince(started)
    here = 1
    let deadline = Date().addingTimeInterval(20)
    var tries = 0
    while Date() < deadline {
      tries += 1
      let process = try launchNB(["notebook", "rename", places[here], places[1 - here]])
      Thread.sleep(forTimeInterval: Double.random(in: 0...(duration * 1.1)))
      process.terminate(SIGKILL)
      _ = try process.wait(timeout: 120)
      try nbSucceeds("save")
      XCTAssertFalse(journalExists)
      XCTAssertEqual(try git.statusPorcelain(), "", "try \(tries): the work tree differs from HEAD after save")
      let files = try git.run("ls-files").split(separator: "\n").map(String.init)
      let inPlace = files.filter { $0.hasPrefix(places[here] + "/n") }.count
      let moved = files.filter { $0.hasPrefix(places[1 - here] + "/n") }.count
      XCTAssert(
        (inPlace == noteCount && moved == 0) || (inPlace == 0 && moved == noteCount),
        "try \(tries): \(inPlace) notes in \(places[here]), \(moved) in \(places[1 - here])")
      if moved == noteCount { here = 1 - here }
    }
    try git.fsck()
  }
}

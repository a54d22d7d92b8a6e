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
    // Every third kill comes from nb itself, right after a chosen note of the rename is written (a failpoint):
    // kills timed from outside land anywhere, mostly before the first write or after the commit.
    var failpointKills = 0
    let deadline = Date().addingTimeInterval(40)
    while Date() < deadline {
      tries += 1
      let next = current == "alpha" ? "beta" : "alpha"
      let commitsBefore = try commitCount()
      let failpoint = tries % 3 == 0
      let killAfter = Int.random(in: 1...noteCount)
      let process = try launchNB(
        ["tag", "rename", current, next], env: failpoint ? ["NB_TEST_KILL_IN_TRANSACTION": String(killAfter)] : [:])
      if !failpoint {
        Thread.sleep(forTimeInterval: Double.random(in: 0...(duration * 1.1)))
        process.terminate(SIGKILL)
      }
      let killed = try process.wait(timeout: 120)
      if failpoint {
        failpointKills += 1
        XCTAssertEqual(killed.status, 128 + SIGKILL, "try \(tries): the rename was to die after note \(killAfter)")
        XCTAssert(journalExists, "try \(tries): killed after note \(killAfter) of the rename, with no journal")
      }

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
    print(
      "testKilledTagRenameLeavesAllOrNothing: \(interrupted) of \(tries) kills landed inside a rename, "
        + "\(failpointKills) of them at a failpoint")
    XCTAssertGreaterThan(failpointKills, 0, "no try used the failpoint in \(tries) tries")
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
    var interrupted = 0
    // Every third kill comes from nb itself, right after its first, second or third change (a failpoint): the
    // rename makes the target's missing parents, one change each, then moves the notebook, so it is killed between
    // two of those or after the move, before its commit.
    var failpointKills = 0
    while Date() < deadline {
      tries += 1
      let failpoint = tries % 3 == 0
      let killAfter = Int.random(in: 1...3)
      let process = try launchNB(
        ["notebook", "rename", places[here], places[1 - here]],
        env: failpoint ? ["NB_TEST_KILL_IN_TRANSACTION": String(killAfter)] : [:])
      if !failpoint {
        Thread.sleep(forTimeInterval: Double.random(in: 0...(duration * 1.1)))
        process.terminate(SIGKILL)
      }
      let killed = try process.wait(timeout: 120)
      // A failpoint beyond the rename's last change (moving back to `notes` makes no directory) lets it finish.
      if failpoint && killed.status != 0 {
        failpointKills += 1
        XCTAssertEqual(killed.status, 128 + SIGKILL, "try \(tries): \(killed.stderr)")
        XCTAssert(journalExists, "try \(tries): killed after change \(killAfter) of the rename, with no journal")
      }
      if journalExists { interrupted += 1 }
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
    print(
      "testKilledNotebookRenameLeavesAllOrNothing: \(interrupted) of \(tries) kills landed inside a rename, "
        + "\(failpointKills) of them at a failpoint")
    XCTAssertGreaterThan(failpointKills, 0, "no kill at a failpoint in \(tries) tries; the test proved little")
  }

  // MARK: - Sync's checkout

  /// The tags lines of the notes in `rev` (each round of the other device's edits gives all notes one).
  private func committedTagLines(_ rev: String = "HEAD") throws -> Set<String> {
    let output = try git.run("grep", "-h", "^tags:", rev, "--", "notes")
    return Set(output.split(separator: "\n").map { String($0) })
  }

  private func journalHoldsCheckout() -> Bool {
    guard let data = try? Data(contentsOf: url(".git/nb/journal/log")) else { return false }
    return String(decoding: data, as: UTF8.self).contains("\"kind\":\"checkout\"")
  }

  /// Another device (the git CLI in a clone of the same remote) changes every note; nb sync here takes the change
  /// by a fast-forward, or by a merge when this device has a commit of its own, and is killed at random moments.
  /// Afterwards HEAD is this device's old commit or one holding all of the remote's change, the work tree equals
  /// it, and no save ever commits part of the checkout.
  func testKilledSyncCheckoutLeavesAllOrNothing() throws {
    try makeRepository()
    try seedTaggedNotes("r0")
    let remotes = try temp.directory("remotes")
    let bare = remotes.appendingPathComponent("r.git")
    try GitCLI(workTree: remotes, home: home).run("init", "-q", "--bare", "--initial-branch=main", "r.git")
    try nbSucceeds("remote", "add", "origin", bare.path)
    try nbSucceeds("sync")
    try GitCLI(workTree: remotes, home: home).run("clone", "-q", bare.path, "other")
    let otherRoot = remotes.appendingPathComponent("other")
    let other = try GitCLI(workTree: otherRoot, home: home)

    var round = 0
    var staleRemoteLocks = 0
    /// The other device: takes what the remote has, gives every note the next round's tag, pushes.
    func pushRound() throws -> String {
      try other.run("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
      round += 1
      for i in 0..<noteCount {
        let id = String(format: "00000000-0000-4000-8000-%012d", i)
        try Data("---\nid: \(id)\ntitle: Note \(i)\ntags: [r\(round), other]\n---\nBody \(i).\n".utf8)
          .write(to: otherRoot.appendingPathComponent("notes/n\(i).md"))
      }
      try other.run("commit", "-q", "-a", "-m", "round \(round)")
      // A kill during nb's own push (libgit2 writes into a local remote in-process) can leave the remote's ref
      // lock behind, as a killed `git push` would; that is the remote's state, not this test's subject.
      let remoteLock = bare.appendingPathComponent("refs/heads/main.lock")
      if FileManager.default.fileExists(atPath: remoteLock.path) {
        staleRemoteLocks += 1
        try FileManager.default.removeItem(at: remoteLock)
      }
      try other.run("push", "-q", "origin", "main")
      return try other.revParse("HEAD")
    }

    // One full sync tells how long a checkout of every note takes, so the kills land anywhere inside one.
    _ = try pushRound()
    let started = Date()
    try nbSucceeds("sync")
    let duration = Date().timeIntervalSince(started)
    XCTAssertEqual(try committedTagLines(), ["tags: [r\(round), other]"])

    var midCheckout = 0
    var tries = 0
    // Kills nb chose itself (a failpoint), and how many of them left the checkout's journal record behind.
    var failpointKills = 0
    var failpointsMidCheckout = 0
    // How the timed kills that missed the checkout missed it, and the last killed sync's output: if none lands,
    // the failure says why (one CI run reported 0 of 135 with nothing else to go on).
    var finishedFirst = 0
    var beforeJournal = 0
    var afterJournal = 0
    var otherRecord = 0
    var lastOutput = ""
    // A third of the kills land anywhere; a third home in on the checkout, the short end of a sync (later after a
    // kill that came before it, earlier after one that came when it was done); a third come from the sync itself,
    // right after a chosen file of its checkout (`NB_TEST_KILL_IN_CHECKOUT`): kills timed from outside, even ones
    // triggered by the journal's record, found only 3 of 54 checkouts in one CI run, the checkout being that short.
    var aim = duration * 0.8
    let deadline = Date().addingTimeInterval(30)
    // On a loaded machine a sync takes longer and fewer kills fit: go on (up to a limit) until one landed inside.
    let hardDeadline = Date().addingTimeInterval(120)
    while Date() < deadline || (midCheckout == 0 && Date() < hardDeadline) {
      tries += 1
      let remoteTip = try pushRound()
      if Bool.random() {
        // A commit of this device's own: the sync merges instead of fast-forwarding.
        try write("local/l\(tries).md", "---\nid: local-\(tries)\n---\nLocal \(tries).\n")
        try nbSucceeds("save")
      }
      let local = try git.revParse("HEAD")
      let localTags = try committedTagLines()
      let failpoint = tries % 3 == 0
      // Every note changed, so the checkout writes `noteCount` files: the last choice kills it after all of them,
      // before the branch moves.
      let killAfter = Int.random(in: 1...noteCount)
      let process = try launchNB(["sync"], env: failpoint ? ["NB_TEST_KILL_IN_CHECKOUT": String(killAfter)] : [:])
      let aimed = tries % 3 == 1
      if !failpoint {
        let delay = aimed ? aim * Double.random(in: 0.9...1.1) : Double.random(in: 0...(duration * 1.2))
        Thread.sleep(forTimeInterval: delay)
      }
      let exitedFirst = !failpoint && process.hasExited
      if !failpoint { process.terminate(SIGKILL) }
      let killed = try process.wait(timeout: 120)
      lastOutput = "exit \(killed.status), stderr: \(killed.stderr.suffix(600))"
      if failpoint {
        failpointKills += 1
        XCTAssertEqual(killed.status, 128 + SIGKILL, "try \(tries): the sync was to die after file \(killAfter)")
        if journalHoldsCheckout() { failpointsMidCheckout += 1 }
      }

      let hadJournal = journalExists
      if journalHoldsCheckout() {
        midCheckout += 1
      } else {
        let moved = try git.revParse("HEAD") != local
        if exitedFirst {
          finishedFirst += 1
        } else if hadJournal {
          otherRecord += 1
        } else if moved {
          afterJournal += 1
        } else {
          beforeJournal += 1
        }
        if aimed { aim *= moved ? 0.92 : 1.08 }
      }
      let save = try nbSucceeds("save")
      XCTAssertFalse(journalExists, "try \(tries): save left the journal behind")
      if hadJournal { XCTAssert(save.stderr.contains("interrupted"), "save settled silently: \(save.stderr)") }
      XCTAssertEqual(try git.statusPorcelain(), "", "try \(tries): the work tree differs from HEAD after save")
      let head = try git.revParse("HEAD")
      let subject = try git.run("log", "-1", "--format=%s").trimmingCharacters(in: .whitespacesAndNewlines)
      if head != local {
        XCTAssertFalse(subject.hasPrefix("nb: save"), "try \(tries): a save committed part of a sync: \(subject)")
        XCTAssertNoThrow(
          try git.run("merge-base", "--is-ancestor", remoteTip, "HEAD"),
          "try \(tries): HEAD moved to \(head) without the remote's commit")
        XCTAssertEqual(try committedTagLines(), ["tags: [r\(round), other]"], "try \(tries): a half-taken round")
      } else {
        XCTAssertEqual(try committedTagLines(), localTags, "try \(tries)")
      }
      let strays = try git.run("ls-files", "--others").trimmingCharacters(in: .whitespacesAndNewlines)
      XCTAssertEqual(strays, "", "try \(tries): files left behind")
    }
    try git.fsck()
    print(
      "testKilledSyncCheckoutLeavesAllOrNothing: \(midCheckout) of \(tries) kills landed mid-checkout, "
        + "\(failpointsMidCheckout) of \(failpointKills) of them at a failpoint (the timed ones missed: "
        + "\(finishedFirst) after the sync exited, \(beforeJournal) before its journal, \(afterJournal) after it, "
        + "\(otherRecord) at another record); \(staleRemoteLocks) left the remote's ref lock")
    XCTAssertGreaterThan(failpointKills, 0, "no try used the failpoint in \(tries) tries")
    XCTAssertEqual(
      failpointsMidCheckout, failpointKills,
      "a kill at a failpoint inside the checkout left no checkout record; the last killed sync: " + lastOutput)
    XCTAssertGreaterThan(
      midCheckout, 0,
      "no kill landed inside a sync's checkout in \(tries) tries; the test proved little. Of the misses, "
        + "\(finishedFirst) came after the sync had exited, \(beforeJournal) before it wrote its journal, "
        + "\(afterJournal) after it had moved HEAD and ended its journal, \(otherRecord) with another journal "
        + "record; a full sync took \(duration) s; the last killed sync: "
        + lastOutput)
  }
}

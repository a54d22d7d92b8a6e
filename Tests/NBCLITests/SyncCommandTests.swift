import Foundation
import NBTestSupport
import XCTest

/// `nb sync` and its companions beyond the conflict table: publishing, `master` remotes, unrelated histories,
/// `--dry-run`, an unreachable remote, and `nb conflicts restore` / `dismiss` — two real devices, the remote
/// addressed by plain path (the table tests cover `file://` and `git://`).
final class SyncCommandTests: TwoDeviceTestCase {
  override var transport: SyncTransport { .path }

  static let threeLines = "line one\nline two\nline three\n"

  /// The bare remote's branches, `refs/heads/<name> <id>` per line.
  func remoteBranches() throws -> String {
    try bareGit.run("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads")
  }

  /// The first sync to an empty remote publishes `main` and makes it the upstream; the next is up to date.
  func testFirstSyncPublishesAndSetsUpstream() throws {
    try a.ok("init", a.root.path)
    try a.ok("remote", "add", "origin", remoteURL())
    try a.add("First", content: Self.threeLines)
    XCTAssertEqual(try remoteBranches(), "", "the remote starts empty")

    let published = try a.sync()
    XCTAssertEqual(published.outcome, "published")
    XCTAssertEqual(published.remote, "origin/main")
    XCTAssertEqual(
      published.sent, Int(try a.git.run("rev-list", "--count", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)))
    XCTAssertEqual(try remoteBranches(), "refs/heads/main \(try a.head())\n")
    XCTAssertEqual(
      try a.git.run("rev-parse", "--abbrev-ref", "main@{upstream}").trimmingCharacters(in: .whitespacesAndNewlines),
      "origin/main")
    XCTAssertEqual(try a.git.revParse("refs/remotes/origin/main"), try a.head())
    XCTAssertEqual(try a.sync().outcome, "up-to-date")
    XCTAssertNoThrow(try bareGit.fsck())
  }

  /// A sync writes nothing into `FETCH_HEAD` (it merges the remote-tracking branch; libgit2 still truncates the file,
  /// which frees nothing once it is empty) and writes the time it finished over
  /// `last-sync` in place, padded so any earlier line is covered: no file is replaced, so none of its blocks is freed
  /// (each free waits for a discard on a disk mounted with `discard`). The time still reads back, also over a file
  /// an older nb wrote (unpadded) or one longer than the padded line.
  func testASyncWritesItsTimeInPlaceAndNoFetchHead() throws {
    try a.ok("init", a.root.path)
    try a.ok("remote", "add", "origin", remoteURL())
    try a.add("First", content: Self.threeLines)
    XCTAssertEqual(try a.sync().outcome, "published")
    let state = a.root.appendingPathComponent(".git/nb/last-sync").path
    func inode() throws -> UInt64 {
      try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: state))[.systemFileNumber] as? UInt64)
    }
    func lastSync() throws -> Date? {
      let status = try JSONSerialization.jsonObject(with: Data(try a.ok("status", "--json").stdout.utf8))
      guard let text = (status as? [String: Any])?["last_sync"] as? String else { return nil }
      return ISO8601DateFormatter().date(from: text)
    }
    let first = try inode()
    XCTAssertEqual(try String(contentsOfFile: state, encoding: .utf8).count, 33, "padded to 32, then a newline")
    XCTAssertLessThan(abs(try XCTUnwrap(try lastSync()).timeIntervalSinceNow), 120)
    let fetchHead = a.root.appendingPathComponent(".git/FETCH_HEAD")
    XCTAssertEqual((try? Data(contentsOf: fetchHead))?.count ?? 0, 0)

    for earlier in ["1700000000.25\n", String(repeating: "9", count: 100) + "\n"] {
      try earlier.write(toFile: state, atomically: false, encoding: .utf8)
      if earlier.count < 20 {
        XCTAssertEqual(try lastSync(), Date(timeIntervalSince1970: 1_700_000_000), "an older nb's line reads")
      }
      XCTAssertEqual(try a.sync().outcome, "up-to-date")
      XCTAssertEqual(try inode(), first, "written over, not replaced")
      XCTAssertLessThan(abs(try XCTUnwrap(try lastSync()).timeIntervalSinceNow), 120)
      XCTAssertEqual(try String(contentsOfFile: state, encoding: .utf8).count, 33)
    }
    XCTAssertEqual((try? Data(contentsOf: fetchHead))?.count ?? 0, 0)
  }

  /// A sync killed while it fetched leaves libgit2's lock on the remote-tracking ref, and no later fetch could move
  /// that ref again. The repository lock's file still names the killed holder and when it took the lock (a release
  /// blanks it), so the next locking nb removes the git locks made since then that no process has open, says so,
  /// and syncs. A lock older than the killed holder's start is not its: it stays, and the sync fails naming it.
  func testASyncKilledMidFetchLeavesNoLockThatStopsTheNext() throws {
    try a.ok("init", a.root.path)
    try a.ok("remote", "add", "origin", remoteURL())
    try a.add("First", content: Self.threeLines)
    try a.sync()
    try b.ok("clone", remoteURL(), b.root.path)
    let second = try b.add("Second", content: Self.threeLines)
    try b.sync()

    let lock = a.root.appendingPathComponent(".git/nb/lock")
    let refLock = a.root.appendingPathComponent(".git/refs/remotes/origin/main.lock")
    // What the killed sync left: its line in the repository lock and a half-written ref lock.
    let killedAt = Date().addingTimeInterval(-2).timeIntervalSince1970
    try Data("\(try ProcessRunner.endedProcessID()) \(String(format: "%.3f", killedAt))\n".utf8).write(to: lock)
    try Data("0123".utf8).write(to: refLock)
    // A lock made before the killed holder took the repository lock: someone else's.
    try FileManager.default.setAttributes(
      [.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: refLock.path)
    let refused = try a.nb(["sync"])
    XCTAssertNotEqual(refused.status, 0)
    XCTAssert(
      refused.stderr.contains(
        "'\(refLock.path)' is locked, so the sync could not update it; a git command may be writing it: if none "
          + "is, delete the lock file, then run 'nb sync' again"), refused.stderr)
    XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
    XCTAssert(FileManager.default.fileExists(atPath: refLock.path), "a lock older than the killed holder was removed")
    XCTAssertFalse(FileManager.default.fileExists(atPath: a.root.appendingPathComponent(second.path).path))

    try Data("\(try ProcessRunner.endedProcessID()) \(String(format: "%.3f", killedAt))\n".utf8).write(to: lock)
    try Data("0123".utf8).write(to: refLock)
    let synced = try a.nb(["sync"])
    XCTAssertEqual(synced.status, 0, synced.stderr)
    XCTAssert(
      synced.stderr.contains("removed the git lock files a killed nb left (.git/refs/remotes/origin/main.lock)"),
      synced.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: refLock.path))
    XCTAssertEqual(try a.git.revParse("refs/remotes/origin/main"), try b.head())
    XCTAssert(FileManager.default.fileExists(atPath: a.root.appendingPathComponent(second.path).path))
    XCTAssertEqual(
      try String(contentsOf: lock, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), "",
      "released, the repository lock names nobody")
  }

  /// A lock in the way in the remote (a bare repository on this machine, written in-process: a push killed there
  /// leaves one, as a killed `git push` can) is named with what to do, and nothing is lost: once it is gone, the
  /// same sync publishes the commit.
  func testALockInTheRemoteIsNamedWithWhatToDo() throws {
    try a.ok("init", a.root.path)
    try a.ok("remote", "add", "origin", remoteURL())
    try a.add("First", content: Self.threeLines)
    try a.sync()
    try a.add("Second", content: Self.threeLines)
    let lock = bare.appendingPathComponent("refs/heads/main.lock")
    try Data("0123".utf8).write(to: lock)
    let refused = try a.nb(["sync"])
    XCTAssertNotEqual(refused.status, 0)
    XCTAssert(
      refused.stderr.contains("origin refused refs/heads/main: '\(lock.path)' is locked; your commits are kept locally")
        && refused.stderr.contains("if none is, delete the lock file, then run 'nb sync' again"), refused.stderr)
    XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
    XCTAssertNotEqual(try remoteBranches(), "refs/heads/main \(try a.head())\n")
    try FileManager.default.removeItem(at: lock)
    try a.sync()
    XCTAssertEqual(try remoteBranches(), "refs/heads/main \(try a.head())\n")
  }

  /// A remote whose default branch is `master` (made with the git CLI): clones follow it, syncs merge and push to
  /// it, and no `main` branch appears on the remote — also from a device that started with `nb init` (`main`).
  func testRemoteWithMasterBranch() throws {
    try FileManager.default.removeItem(at: bare)
    try GitCLI(workTree: remotes, home: a.runner.home).run("init", "-q", "--bare", "--initial-branch=master", "r.git")
    let seed = try makeDevice("seed", directory: "seed")
    try seed.ok("init", seed.root.path)
    let note = try seed.add("Shared", content: Self.threeLines)
    try seed.git.run("push", "-q", bare.path, "main:master")

    try a.ok("clone", remoteURL(), a.root.path)
    try b.ok("clone", remoteURL(), b.root.path)
    baseCommit = try a.head()
    for device in [a!, b!] {
      XCTAssertEqual(
        try device.git.run("symbolic-ref", "--short", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines),
        "master", "[\(device.name)] the clone follows the remote's branch")
    }
    try a.replaceLine(note.path, "line one", with: "line one, laptop")
    try a.ok("save")
    try b.replaceLine(note.path, "line three", with: "line three, desktop")
    try b.ok("save")
    let tips = [try a.head(), try b.head()]
    let summaries = try syncAll([b, a, b])
    XCTAssertEqual(summaries.map(\.remote), ["origin/master", "origin/master", "origin/master"])
    XCTAssertEqual(summaries[1].merged, [note.path])
    XCTAssertEqual(Self.split(try b.read(note.path)).body, "line one, laptop\nline two\nline three, desktop\n")
    try assertConverged(tips: tips, exempt: [note.id])

    try seed.ok("remote", "add", "origin", remoteURL())
    let joined = try seed.sync()
    XCTAssertEqual(joined.outcome, "fast-forwarded")
    XCTAssertEqual(joined.remote, "origin/master")
    XCTAssertEqual(try seed.git.revParse("HEAD^{tree}"), try a.git.revParse("HEAD^{tree}"))
    XCTAssertEqual(try remoteBranches(), "refs/heads/master \(try a.head())\n", "only master on the remote")
  }

  /// A repository with its own history is refused (with a message naming the option) and changes nothing but
  /// its remote-tracking refs; `--allow-unrelated` joins both, nothing deleted.
  func testUnrelatedHistoryIsRefusedThenJoined() throws {
    let shared = try share([Seed(title: "From The Laptop", content: Self.threeLines)])[0]
    let tablet = try makeDevice("tablet", directory: "c")
    // Another identity: two `nb init`s by one identity within one second make byte-identical root commits, and
    // then the histories are related after all.
    try Data("[user]\n\tname = Tablet User\n\temail = tablet@example.com\n[init]\n\tdefaultBranch = main\n".utf8)
      .write(to: tablet.runner.home.appendingPathComponent(".gitconfig"))
    try tablet.ok("init", tablet.root.path)
    let own = try tablet.add("From The Tablet", content: "tablet text\n")
    try tablet.ok("remote", "add", "origin", remoteURL())
    let ownTip = try tablet.head()

    let before = try tablet.fullSnapshot()
    let refused = try tablet.nb(["sync", "--device", tablet.name])
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertNotEqual(refused.status, 3)
    XCTAssert(refused.stderr.contains("unrelated"), refused.stderr)
    XCTAssert(refused.stderr.contains("--allow-unrelated"), refused.stderr)
    let ignoringFetch = { (text: String) in
      text.components(separatedBy: "\n").filter { !$0.hasPrefix("refs/remotes/") }
    }
    XCTAssertEqual(ignoringFetch(try tablet.fullSnapshot()), ignoringFetch(before), "a refusal changed the repository")
    XCTAssertEqual(try remoteBranches(), "refs/heads/main \(try a.head())\n", "a refusal moved the remote")

    let joined = try tablet.sync("--allow-unrelated")
    XCTAssertEqual(joined.outcome, "merged")
    XCTAssertEqual(
      try tablet.git.run("rev-list", "--parents", "-n", "1", "HEAD").split(separator: " ").count, 3,
      "one merge commit with both parents")
    XCTAssertEqual(try tablet.read(own.path), try tablet.git.show(ownTip, path: own.path))
    XCTAssertEqual(try tablet.read(shared.path), try a.read(shared.path))
    try a.sync()
    try assertConverged(tips: [ownTip], devices: [a, tablet])
  }

  /// `--dry-run` changes nothing — HEAD, every ref (remote-tracking ones too), files, status, the remote — and
  /// says what a sync would do; the real sync then works.
  func testDryRunChangesNothing() throws {
    let notes = try share([
      Seed(title: "Uno", content: Self.threeLines), Seed(title: "Dos", content: Self.threeLines),
    ])
    try a.replaceLine(notes[0].path, "line one", with: "line one, laptop")
    try a.ok("save")
    // Not next to the laptop's line three: a line-level merge (like git's) treats adjacent edits as overlapping.
    try b.replaceLine(notes[1].path, "line one", with: "line one, desktop")
    try b.ok("save")
    try b.sync()
    try a.replaceLine(notes[1].path, "line three", with: "line three, laptop, not saved yet")

    let before = try a.fullSnapshot()
    let remoteBefore = try remoteBranches()
    let dry = try a.sync("--dry-run")
    XCTAssertTrue(dry.dry_run)
    XCTAssertEqual(dry.outcome, "merged")
    XCTAssertEqual(dry.saved, [notes[1].path], "the dry run names the edit a sync would save first")
    XCTAssertEqual(try a.fullSnapshot(), before, "--dry-run changed the repository")
    XCTAssertEqual(try remoteBranches(), remoteBefore, "--dry-run changed the remote")

    // Only local commits: the dry run says it would send them.
    let bBefore = try b.fullSnapshot()
    try b.replaceLine(notes[0].path, "line three", with: "line three, desktop")
    try b.ok("save")
    let bAfterSave = try b.fullSnapshot()
    XCTAssertNotEqual(bAfterSave, bBefore)
    let dryPush = try b.sync("--dry-run")
    XCTAssertEqual(dryPush.outcome, "pushed")
    XCTAssertEqual(dryPush.sent, 1)
    XCTAssertEqual(try b.fullSnapshot(), bAfterSave, "--dry-run changed the repository")

    let tips = [try a.head(), try b.head()]
    try syncAll([a, b, a])
    XCTAssertTrue(try a.read(notes[1].path).contains("line three, laptop, not saved yet"))
    try assertConverged(tips: tips, exempt: [notes[0].id, notes[1].id])
  }

  /// An unreachable remote: exit status 3, a message, nothing changed; the commits wait and go out on the next
  /// sync once the remote is back.
  func testUnreachableRemoteExitsThreeAndChangesNothing() throws {
    let note = try share([Seed(title: "Offline", content: Self.threeLines)])[0]
    try a.replaceLine(note.path, "line two", with: "line two, written offline")
    try a.ok("save")
    let port = try LocalPort.free()
    try a.ok("remote", "set-url", "origin", "git://127.0.0.1:\(port)/r.git")

    let before = try a.fullSnapshot()
    let offline = try a.nb(["sync", "--device", a.name])
    XCTAssertEqual(offline.status, 3, "stdout: \(offline.stdout) stderr: \(offline.stderr)")
    XCTAssertFalse(offline.stderr.isEmpty, "the user is told why")
    XCTAssertEqual(try a.fullSnapshot(), before, "an offline sync changed the repository")
    let dry = try a.nb(["sync", "--dry-run", "--device", a.name])
    XCTAssertEqual(dry.status, 3, "a dry run reports offline the same way")

    try a.ok("remote", "set-url", "origin", remoteURL())
    let tip = try a.head()
    XCTAssertEqual(try a.sync().outcome, "pushed")
    XCTAssertEqual(try b.sync().outcome, "fast-forwarded")
    try assertConverged(tips: [tip])
  }

  /// `nb conflicts` lists the copies; `restore` makes a copy's version the note's and `dismiss` drops a copy, one
  /// commit each; both travel to the other device.
  func testConflictsRestoreAndDismiss() throws {
    let notes = try share([
      Seed(title: "Restore Me", content: Self.threeLines), Seed(title: "Dismiss Me", content: Self.threeLines),
    ])
    let now = Self.hoursFromNow(0)
    for note in notes {
      try a.replaceLine(note.path, "line two", with: "line two, laptop")
      try a.setUpdated(note.path, now.addingTimeInterval(3600))
      try b.replaceLine(note.path, "line two", with: "line two, desktop")
      try b.setUpdated(note.path, now.addingTimeInterval(7200))
    }
    try a.ok("save")
    try b.ok("save")
    let tips = [try a.head(), try b.head()]
    let merge = try syncAll([b, a, b])[1]
    XCTAssertEqual(merge.conflicts.count, 2)
    let copies = Dictionary(uniqueKeysWithValues: merge.conflicts.map { ($0.path, $0.kept_at) })
    let restoreCopy = try XCTUnwrap(copies[notes[0].path])
    let dismissCopy = try XCTUnwrap(copies[notes[1].path])

    let listing = try a.ok("conflicts").stdout
    XCTAssert(listing.contains(restoreCopy) && listing.contains(dismissCopy), listing)

    let copyBody = Self.split(try a.read(restoreCopy)).body
    let dismissedNote = try a.read(notes[1].path)
    var commits = try commitCount(a)
    try a.ok("conflicts", "restore", restoreCopy)
    XCTAssertEqual(try commitCount(a), commits + 1, "restore is one commit")
    commits += 1
    let restored = try a.read(notes[0].path)
    XCTAssertEqual(Self.split(restored).body, copyBody, "the copy's version is the note's now")
    XCTAssertEqual(Self.split(restored).id, notes[0].id, "the note keeps its id")
    XCTAssertNil(Self.frontMatterValue("conflict_of", in: restored))
    XCTAssertFalse(FileManager.default.fileExists(atPath: a.root.appendingPathComponent(restoreCopy).path))

    try a.ok("conflicts", "dismiss", dismissCopy)
    XCTAssertEqual(try commitCount(a), commits + 1, "dismiss is one commit")
    XCTAssertFalse(FileManager.default.fileExists(atPath: a.root.appendingPathComponent(dismissCopy).path))
    XCTAssertEqual(try a.read(notes[1].path), dismissedNote, "dismissing a copy leaves its note alone")
    XCTAssertEqual(try a.conflicts().count, 0)
    XCTAssertEqual(try a.git.statusPorcelain(), "")

    try syncAll([a, b])
    XCTAssertEqual(try b.conflicts().count, 0)
    XCTAssertEqual(try b.read(notes[0].path), restored)
    // The dismissed (laptop) version is only in history now: exempt from "still a file", not from "in history".
    try assertConverged(tips: tips, exempt: [notes[1].id])
  }

  /// A merge that would delete a whole notebook is refused without `--force`, then applied with it.
  func testWholeNotebookDeletionNeedsForce() throws {
    let notes = try share([
      Seed(title: "Flight", notebook: "trip", content: Self.threeLines),
      Seed(title: "Hotel", notebook: "trip", content: Self.threeLines),
      Seed(title: "Elsewhere", content: Self.threeLines),
    ])
    try b.ok("notebook", "delete", "trip", "--recursive")
    XCTAssertFalse(FileManager.default.fileExists(atPath: b.root.appendingPathComponent("trip").path))
    try a.replaceLine(notes[2].path, "line one", with: "line one, laptop")
    try a.ok("save")
    let tips = [try a.head(), try b.head()]
    try b.sync()
    let head = try a.head()
    let refused = try a.nb(["sync", "--device", a.name])
    XCTAssertNotEqual(refused.status, 0)
    XCTAssert(refused.stderr.contains("trip") && refused.stderr.contains("--force"), refused.stderr)
    XCTAssertEqual(try a.head(), head)
    XCTAssertTrue(FileManager.default.fileExists(atPath: a.root.appendingPathComponent(notes[0].path).path))
    XCTAssertEqual(try a.sync("--force").outcome, "merged")
    try b.sync()
    try assertConverged(tips: tips, exempt: [notes[0].id, notes[1].id])
  }

  /// Offline with an unsaved edit: the edit is committed locally first (pipeline step 2, as `nb save` would), the
  /// sync stops with exit status 3 at the fetch, and nothing else changes (no ref, no file); the commit goes out on
  /// the next sync.
  func testUnreachableRemoteKeepsThePendingEditAsALocalCommit() throws {
    let note = try share([Seed(title: "Queued", content: Self.threeLines)])[0]
    try a.ok("remote", "set-url", "origin", "git://127.0.0.1:\(try LocalPort.free())/r.git")
    try a.replaceLine(note.path, "line three", with: "line three, written offline")
    let refsBefore = try a.git.run("for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes", "refs/nb")
    let headBefore = try a.head()
    let edited = try a.read(note.path)

    let offline = try a.nb(["sync", "--device", a.name])
    XCTAssertEqual(offline.status, 3, offline.stderr)
    XCTAssertEqual(try a.git.statusPorcelain(), "", "the edit is committed locally")
    XCTAssertEqual(try a.git.revParse("HEAD~1"), headBefore, "exactly one commit: the save")
    XCTAssertEqual(Self.split(try a.read(note.path)).body, Self.split(edited).body)
    XCTAssertEqual(
      try a.git.run("for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes", "refs/nb"), refsBefore)

    try a.ok("remote", "set-url", "origin", remoteURL())
    let tip = try a.head()
    XCTAssertEqual(try a.sync().outcome, "pushed")
    try b.sync()
    try assertConverged(tips: [tip])
  }

  /// Step 1 of the pipeline: a detached HEAD or a merge left unfinished by the git CLI is refused with a message
  /// that says what to do, and nothing changes; once the user has sorted it out, sync works.
  func testRefusesDetachedHeadAndUnfinishedMerge() throws {
    let note = try share([Seed(title: "Contested", content: Self.threeLines)])[0]
    try a.git.run("checkout", "-q", "--detach")
    var before = try a.fullSnapshot()
    let detached = try a.nb(["sync", "--device", a.name])
    XCTAssertNotEqual(detached.status, 0)
    XCTAssert(detached.stderr.contains("detached") && detached.stderr.contains("git switch"), detached.stderr)
    XCTAssertEqual(try a.fullSnapshot(), before, "a refused sync changed the repository")
    try a.git.run("checkout", "-q", "main")

    // A conflicting merge made with the git CLI and left unfinished: MERGE_HEAD and conflicts in the index.
    try a.git.run("checkout", "-q", "-b", "side")
    try a.replaceLine(note.path, "line two", with: "line two, side")
    try a.git.run("commit", "-q", "-am", "side")
    try a.git.run("checkout", "-q", "main")
    try a.replaceLine(note.path, "line two", with: "line two, main")
    try a.git.run("commit", "-q", "-am", "main")
    XCTAssertFalse(try a.git.result(["merge", "-q", "side"]).succeeded, "the git CLI merge should stop on a conflict")
    before = try a.fullSnapshot()
    let midMerge = try a.nb(["sync", "--device", a.name])
    XCTAssertNotEqual(midMerge.status, 0)
    XCTAssertNotEqual(midMerge.status, 3)
    XCTAssert(midMerge.stderr.contains("merge"), midMerge.stderr)
    XCTAssertEqual(try a.fullSnapshot(), before, "a refused sync changed the repository")
    XCTAssertEqual(try bareGit.revParse("refs/heads/main"), baseCommit, "a refused sync moved the remote")

    try a.git.run("merge", "--abort")
    // The side branch was the git CLI's, never synced: out of scope for "every version nb committed".
    try a.git.run("branch", "-q", "-D", "side")
    let tip = try a.head()
    XCTAssertEqual(try a.sync().outcome, "pushed")
    try b.sync()
    try assertConverged(tips: [tip])
  }

  /// `nb clone` of an unreachable remote exits 3 and of an empty remote is refused; neither leaves a directory.
  func testCloneRefusalsLeaveNothingBehind() throws {
    let offline = try b.nb(["clone", "git://127.0.0.1:\(try LocalPort.free())/r.git", b.root.path])
    XCTAssertEqual(offline.status, 3, offline.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: b.root.path), "an offline clone left a directory")
    let empty = try b.nb(["clone", remoteURL(), b.root.path])
    XCTAssertNotEqual(empty.status, 0)
    XCTAssert(empty.stderr.contains("empty") && empty.stderr.contains("nb sync"), empty.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: b.root.path), "a refused clone left a directory")
  }

  /// `git rev-list --count HEAD` on a device.
  func commitCount(_ device: Device) throws -> Int {
    Int(try device.git.run("rev-list", "--count", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }
}

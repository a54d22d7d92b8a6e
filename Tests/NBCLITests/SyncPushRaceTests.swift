import Foundation
import NBTestSupport
import XCTest

/// `nb sync` when another device's push lands while nb's own is on its way: the remote's pre-receive hook
/// (``RacingPushHook``) has another clone push to the branch after nb's fetch, so receive-pack refuses nb's update
/// as the branch moved. nb starts over from the fetch, merges, and pushes again — a bounded number of times — and
/// never loses a commit on either side. The real git CLI checks the remote.
class SyncPushRaceScenarios: TwoDeviceTestCase {
  /// Device B commits a note with nb but does not sync; the hook pushes B's commit in the middle of A's first
  /// push, the way B's own `nb sync` would have landed it. A's sync merges it on its second attempt and lands.
  func scenarioALostRaceIsMergedAndPushedAgain() throws {
    let shared = try share([Seed(title: "Plans", content: "line one\nline two\n")])[0]
    let theirs = try b.add("From the desktop", content: "desktop text\n")
    let desktopHead = try b.head()
    let hook = try RacingPushHook.install(in: bare, other: b.root, times: 1)
    try a.replaceLine(shared.path, "line two", with: "line two, laptop")
    try a.ok("save")
    let ours = try a.add("From the laptop", content: "laptop text\n")
    let laptopHead = try a.head()

    let summary = try a.sync()
    XCTAssertEqual(hook.runs, ["moved 1", "accepted 2"], "the first push lost the race, the second landed")
    XCTAssertEqual(summary.attempts, 2)
    XCTAssertEqual(summary.outcome, "merged")
    XCTAssertEqual(summary.received, 1, "the desktop's commit")
    XCTAssertEqual(summary.sent, 2, "the laptop's two commits (as for any merge, the merge commit is not counted)")
    XCTAssertEqual(summary.conflicts.count, 0)
    let backup = try XCTUnwrap(summary.backup_ref)
    XCTAssertEqual(try a.git.revParse(backup), laptopHead, "the backup is of the head before the merge")

    // The remote, read with git: A's head, holding both devices' commits and notes, nothing else changed.
    let remoteHead = try bareGit.revParse("refs/heads/main")
    XCTAssertEqual(remoteHead, try a.head())
    for commit in [desktopHead, laptopHead] {
      XCTAssertTrue(
        try bareGit.result(["merge-base", "--is-ancestor", commit, "main"]).succeeded,
        "\(commit.prefix(8)) is not in the remote's history")
    }
    XCTAssertTrue(try bareGit.show("main", path: theirs.path).contains("desktop text"))
    XCTAssertTrue(try bareGit.show("main", path: ours.path).contains("laptop text"))
    XCTAssertTrue(try bareGit.show("main", path: shared.path).contains("line two, laptop"))
    XCTAssertEqual(
      try bareGit.run("log", "-1", "--format=%P", "main").split(whereSeparator: \.isWhitespace).map(String.init),
      [laptopHead, desktopHead], "the merge's parents: the laptop's head, then what the desktop pushed")

    XCTAssertEqual(try b.sync().outcome, "fast-forwarded")
    try assertConverged(tips: [laptopHead, desktopHead])
  }
}

/// The race over `git daemon`, and the remote that never stops moving.
final class SyncPushRaceDaemonTests: SyncPushRaceScenarios {
  override var transport: SyncTransport { .daemon }

  func testALostRaceIsMergedAndPushedAgain() throws { try scenarioALostRaceIsMergedAndPushedAgain() }

  /// Every push loses the race (a plain git clone commits and pushes a note each time): after three refused pushes
  /// nb stops with a one-line error, exit status 1, and keeps everything — its commits, what it merged meanwhile,
  /// a clean work tree. Once the remote holds still the next sync lands it all.
  func testARemoteThatKeepsMovingStopsAfterThreeAttemptsAndKeepsEverything() throws {
    try share([Seed(title: "Plans", content: "line one\nline two\n")])
    let other = temp.file("other")
    try bareGit.run("clone", "-q", bare.path, other.path)
    let hook = try RacingPushHook.install(
      in: bare, other: other, times: nil,
      prepare: #"printf -- '---\ntitle: Racing %s\n---\nracing edit %s\n' "$n" "$n" > "racing-$n.md" "#
        + #"&& git add "racing-$n.md" && git commit -q -m "racing $n""#)
    let ours = try a.add("From the laptop", content: "laptop text\n")
    // An edit not saved yet: the sync commits it first, and it must survive the failure as that commit.
    try a.write("draft.md", "---\ntitle: Draft\n---\nunsaved draft\n")
    let before = try a.head()

    let result = try a.nb(["sync", "--device", a.name])
    XCTAssertEqual(result.status, 1, "\(result.stderr)\(result.stdout)")
    let message = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
    XCTAssertEqual(message.split(separator: "\n").count, 1, "one line: \(message)")
    for words in ["origin/main kept moving", "3 times", "nothing was lost", "merged", "run 'nb sync' again"] {
      XCTAssertTrue(message.contains(words), "should say \(words): \(message)")
    }
    XCTAssertEqual(hook.runs, ["moved 1", "moved 2", "moved 3"], "exactly three pushes, no more")

    // Nothing local is lost: the saved edit and the laptop's note are committed, what came in meanwhile merged,
    // the work tree is clean and matches HEAD.
    XCTAssertTrue(try a.git.result(["merge-base", "--is-ancestor", before, "HEAD"]).succeeded)
    XCTAssertEqual(try a.git.statusPorcelain(), "")
    XCTAssertTrue(try a.git.show("HEAD", path: ours.path).contains("laptop text"))
    XCTAssertTrue(try a.git.show("HEAD", path: "draft.md").contains("unsaved draft"))
    XCTAssertTrue(try a.read("draft.md").contains("unsaved draft"))
    for n in 1...2 { XCTAssertTrue(try a.read("racing-\(n).md").contains("racing edit \(n)")) }
    // The remote has the other clone's three pushes and nothing of the laptop's.
    let remoteFiles = try bareGit.run("ls-tree", "-r", "--name-only", "main").split(separator: "\n").map(String.init)
    XCTAssertEqual(Set(remoteFiles.filter { $0.hasPrefix("racing-") }), ["racing-1.md", "racing-2.md", "racing-3.md"])
    XCTAssertFalse(remoteFiles.contains(ours.path))
    XCTAssertFalse(try bareGit.result(["merge-base", "--is-ancestor", before, "main"]).succeeded)

    try FileManager.default.removeItem(at: bare.appendingPathComponent("hooks/pre-receive"))
    let landed = try a.sync()
    XCTAssertEqual(landed.outcome, "merged")
    XCTAssertEqual(landed.attempts, 1)
    XCTAssertEqual(try bareGit.revParse("refs/heads/main"), try a.head())
    for path in [ours.path, "draft.md", "racing-1.md", "racing-2.md", "racing-3.md"] {
      XCTAssertNoThrow(try bareGit.show("main", path: path), path)
    }
    try b.sync()
    try assertConverged(tips: [before])
  }

  /// The first attempt merges a conflict and its push then loses the race; the second merges what the race brought
  /// and lands. The summary reports the whole sync: the first attempt's conflict (its copy is in the pushed tree),
  /// both attempts' received commits, and the backup of the head the sync started from.
  func testWhatAnEarlierAttemptMergedIsReported() throws {
    let shared = try share([Seed(title: "Plans", content: "line one\nline two\n")])[0]
    try b.replaceLine(shared.path, "line one", with: "line one, desktop")
    try b.setUpdated(shared.path, Self.hoursFromNow(1))
    try b.sync()
    let desktopHead = try b.head()
    let other = temp.file("other")
    try bareGit.run("clone", "-q", bare.path, other.path)
    let hook = try RacingPushHook.install(
      in: bare, other: other, times: 1,
      prepare: #"printf -- '---\ntitle: Racing\n---\nracing edit\n' > racing.md "#
        + #"&& git add racing.md && git commit -q -m racing"#)
    try a.replaceLine(shared.path, "line one", with: "line one, laptop")
    try a.setUpdated(shared.path, Self.hoursFromNow(2))
    try a.ok("save")
    let laptopHead = try a.head()

    let summary = try a.sync()
    XCTAssertEqual(hook.runs, ["moved 1", "accepted 2"])
    XCTAssertEqual(summary.attempts, 2)
    XCTAssertEqual(summary.outcome, "merged")
    XCTAssertEqual(summary.received, 2, "the desktop's commit, then the racing one")
    XCTAssertEqual(summary.conflicts.map(\.path), [shared.path], "the first attempt's conflict")
    XCTAssertEqual(summary.conflicts.first?.winner, "ours", "the laptop's edit is the later one")
    let copy = try XCTUnwrap(summary.conflicts.first?.kept_at)
    XCTAssertTrue(try bareGit.show("main", path: copy).contains("line one, desktop"))
    XCTAssertTrue(try bareGit.show("main", path: shared.path).contains("line one, laptop"))
    XCTAssertTrue(try bareGit.show("main", path: "racing.md").contains("racing edit"))
    XCTAssertEqual(try a.git.revParse(try XCTUnwrap(summary.backup_ref)), laptopHead, "the head the sync started from")
    XCTAssertEqual(try bareGit.revParse("refs/heads/main"), try a.head())

    try b.sync()
    try assertConverged(tips: [laptopHead, desktopHead])
  }
}

/// The race over smart HTTP, where receive-pack runs behind `git http-backend`.
final class SyncPushRaceHTTPTests: SyncPushRaceScenarios {
  override var transport: SyncTransport { .http }

  func testALostRaceIsMergedAndPushedAgain() throws { try scenarioALostRaceIsMergedAndPushedAgain() }
}

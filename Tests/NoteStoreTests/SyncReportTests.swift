import XCTest

@testable import NoteStore

/// The words a sync's summary is told in, shared by `nb sync` and `nb serve`'s Sync button.
final class SyncReportTests: XCTestCase {
  func testEachOutcomeInAFewWords() {
    var summary = SyncSummary(remoteBranch: "main", dryRun: false)
    XCTAssertEqual(summary.outcomeText, "already up to date")
    summary.outcome = .pushed
    summary.sent = 1
    XCTAssertEqual(summary.outcomeText, "sent 1 commit")
    summary.outcome = .published
    summary.sent = 3
    XCTAssertEqual(summary.outcomeText, "published 3 commits (a new branch on the remote)")
    summary.outcome = .fastForwarded
    summary.received = 2
    XCTAssertEqual(summary.outcomeText, "received 2 commits")
    summary.outcome = .merged
    XCTAssertEqual(summary.outcomeText, "received 2 commits, sent 3 commits, merged")
    summary.dryRun = true
    XCTAssertEqual(summary.outcomeText, "fetch the remote's new commits and merge them with this device's")
    XCTAssertEqual(summary.reportLines, [], "nothing else to say")
  }

  func testEveryKindOfLineInOrder() {
    var summary = SyncSummary(remoteBranch: "main", dryRun: false)
    summary.warnings = ["the remote has no README"]
    summary.followedLinks = [FollowedLink(path: "b.md", line: 4, old: "[[Old]]", new: "[[New]]")]
    summary.conflicts = [
      SyncConflict(path: "c.md", winner: .theirs, loser: .ours, loserPath: "c (conflict laptop).md", reason: "newer")
    ]
    summary.resurrected = ["d.md"]
    summary.merged = ["e.md", "f.md"]
    summary.attempts = 2
    summary.saved = ["g.md", "h.md"]
    XCTAssertEqual(
      summary.reportLines.map { "\($0.label)|\($0.text)" },
      [
        "saved first:|g.md, h.md",
        "|the remote moved before the push landed; started over from the fetch (2 attempts)",
        "merged|e.md", "merged|f.md",
        "kept|d.md (edited here, deleted there, or the other way)",
        "conflict|c.md: the remote version kept the path; the other is in c (conflict laptop).md",
        "relinked|b.md:4: [[Old]] -> [[New]] (its note was renamed or moved)",
        "warning:|the remote has no README",
      ])
  }
}

import Foundation
import NBTestSupport
import XCTest

/// The conflict table over `file://`.
final class SyncTableFileTests: SyncTableScenarios {
  override var transport: SyncTransport { .file }

  func testChangedOnOneSideOnly() throws { try scenarioChangedOnOneSideOnly() }
  func testBothChangedDifferentParts() throws { try scenarioBothChangedDifferentParts() }
  func testBothChangedSameLines() throws { try scenarioBothChangedSameLines() }
  func testEditedOnOneSideDeletedOnTheOther() throws { try scenarioEditedOnOneSideDeletedOnTheOther() }
  func testRenamedOnOneSideEditedOnTheOther() throws { try scenarioRenamedOnOneSideEditedOnTheOther() }
  func testRenamedToDifferentPlacesOnBoth() throws { try scenarioRenamedToDifferentPlacesOnBoth() }
  func testBothAddedAtTheSamePath() throws { try scenarioBothAddedAtTheSamePath() }
  func testInkSidecars() throws { try scenarioInkSidecars() }
  func testMassDeletionNeedsForce() throws { try scenarioMassDeletionNeedsForce() }

  /// libgit2's local transport writes into the bare repository itself, so the repository's hooks do not run and a
  /// pre-receive hook cannot refuse a file:// push (over git:// and HTTP receive-pack runs it: testServerRejectsPush).
  /// The README documents this; the git CLI, which runs receive-pack even for a local remote, is the contrast.
  func testALocalRemoteRunsNoServerHooks() throws {
    let note = try share([Seed(title: "Guarded", content: Self.fiveLines)])[0]
    let ran = temp.file("pre-receive-ran")
    let hook = bare.appendingPathComponent("hooks/pre-receive")
    try Data("#!/bin/sh\ntouch '\(ran.path)'\necho 'policy: no pushes today' >&2\nexit 1\n".utf8).write(to: hook)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook.path)
    try a.replaceLine(note.path, "line one", with: "line one, laptop")
    try a.ok("save")

    let byGit = try a.git.result(["push", "origin", "HEAD:main"])
    XCTAssertNotEqual(byGit.status, 0, "git's own push runs the hook")
    XCTAssertTrue(byGit.stderr.contains("policy: no pushes today"), byGit.stderr)
    try FileManager.default.removeItem(at: ran)

    XCTAssertEqual(try a.sync().outcome, "pushed")
    XCTAssertFalse(FileManager.default.fileExists(atPath: ran.path), "nb's push ran the remote's hook")
    XCTAssertEqual(try bareGit.revParse("refs/heads/main"), try a.head())
  }
}

/// The conflict table over `git daemon` (`git://127.0.0.1`).
final class SyncTableDaemonTests: SyncTableScenarios {
  override var transport: SyncTransport { .daemon }

  func testChangedOnOneSideOnly() throws { try scenarioChangedOnOneSideOnly() }
  func testBothChangedDifferentParts() throws { try scenarioBothChangedDifferentParts() }
  func testBothChangedSameLines() throws { try scenarioBothChangedSameLines() }
  func testEditedOnOneSideDeletedOnTheOther() throws { try scenarioEditedOnOneSideDeletedOnTheOther() }
  func testRenamedOnOneSideEditedOnTheOther() throws { try scenarioRenamedOnOneSideEditedOnTheOther() }
  func testRenamedToDifferentPlacesOnBoth() throws { try scenarioRenamedToDifferentPlacesOnBoth() }
  func testBothAddedAtTheSamePath() throws { try scenarioBothAddedAtTheSamePath() }
  func testInkSidecars() throws { try scenarioInkSidecars() }
  func testMassDeletionNeedsForce() throws { try scenarioMassDeletionNeedsForce() }
  func testServerRejectsPush() throws { try scenarioServerRejectsPush() }
}

/// The conflict table over smart HTTP (`http://127.0.0.1`), where libgit2 sends push bodies chunked.
final class SyncTableHTTPTests: SyncTableScenarios {
  override var transport: SyncTransport { .http }

  func testChangedOnOneSideOnly() throws { try scenarioChangedOnOneSideOnly() }
  func testBothChangedDifferentParts() throws { try scenarioBothChangedDifferentParts() }
  func testBothChangedSameLines() throws { try scenarioBothChangedSameLines() }
  func testEditedOnOneSideDeletedOnTheOther() throws { try scenarioEditedOnOneSideDeletedOnTheOther() }
  func testRenamedOnOneSideEditedOnTheOther() throws { try scenarioRenamedOnOneSideEditedOnTheOther() }
  func testRenamedToDifferentPlacesOnBoth() throws { try scenarioRenamedToDifferentPlacesOnBoth() }
  func testBothAddedAtTheSamePath() throws { try scenarioBothAddedAtTheSamePath() }
  func testInkSidecars() throws { try scenarioInkSidecars() }
  func testMassDeletionNeedsForce() throws { try scenarioMassDeletionNeedsForce() }
  func testServerRejectsPush() throws { try scenarioServerRejectsPush() }
}

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
  // No server-side hook test here: libgit2's local transport writes into the bare repository itself and runs no
  // hooks, so a pre-receive hook cannot refuse a file:// push (git daemon runs receive-pack, which does).
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

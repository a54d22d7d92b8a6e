import Foundation
import NBTestSupport
import XCTest

/// Housekeeping with the remote addressed by a plain path.
final class SyncHousekeepingPathTests: SyncHousekeepingScenarios {
  override var transport: SyncTransport { .path }

  func testBackupsOlderThanTheWindowArePruned() throws { try scenarioBackupsOlderThanTheWindowArePruned() }
  func testLocalBareRemoteHeadFollowsThePublishedBranch() throws {
    try scenarioLocalBareRemoteHeadFollowsThePublishedBranch()
  }
}

/// Housekeeping with a `file://` remote.
final class SyncHousekeepingFileURLTests: SyncHousekeepingScenarios {
  override var transport: SyncTransport { .file }

  func testLocalBareRemoteHeadFollowsThePublishedBranch() throws {
    try scenarioLocalBareRemoteHeadFollowsThePublishedBranch()
  }
}

/// Housekeeping over `git daemon`, where the remote's files are out of reach.
final class SyncHousekeepingDaemonTests: SyncHousekeepingScenarios {
  override var transport: SyncTransport { .daemon }

  func testRemoteHeadNamingNoBranchIsReported() throws { try scenarioRemoteHeadNamingNoBranchIsReported() }
  func testAHealthyRemoteHeadIsNotReported() throws {
    let published = try publish()
    XCTAssertEqual(published.outcome, "published")
    XCTAssertEqual(published.warnings, [])
    XCTAssertEqual(try a.sync().warnings, [])
  }
}

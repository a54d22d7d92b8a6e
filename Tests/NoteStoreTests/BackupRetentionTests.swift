import Foundation
import XCTest

@testable import NoteStore

/// Which `refs/nb/backup/*` names outlive `backup_days`: read from the time in the name, nothing else expires.
final class BackupRetentionTests: XCTestCase {
  /// 2026-11-24T12:00:00Z.
  let now = Date(timeIntervalSince1970: 1_795_521_600)

  func testTheTimeIsReadFromTheName() {
    XCTAssertEqual(BackupRetention.time(of: "refs/nb/backup/20261124T120000Z-abc1234"), now)
    XCTAssertEqual(BackupRetention.time(of: "refs/nb/backup/20261124T120000Z"), now)
    XCTAssertEqual(
      BackupRetention.time(of: "refs/nb/backup/20240229T235959Z-x"), Date(timeIntervalSince1970: 1_709_251_199),
      "a leap day")
    for name in [
      "refs/nb/backup/by-hand", "refs/nb/backup/20261124-120000Z", "refs/nb/backup/20261324T120000Z-x",
      "refs/heads/20261124T120000Z", "refs/nb/backup/2026112xT120000Z", "refs/nb/backup/20250229T120000Z-x",
      "refs/nb/backup/20260230T120000Z-x", "refs/nb/backup/20261124T240000Z-x", "refs/nb/backup/20261124T126000Z-x",
    ] {
      XCTAssertNil(BackupRetention.time(of: name), name)
    }
  }

  func testOnlyNamesOlderThanTheWindowExpire() {
    let names = [
      "refs/nb/backup/20261024T115959Z-a",  // 31 days and a second
      "refs/nb/backup/20261025T120000Z-b",  // exactly 30 days: kept
      "refs/nb/backup/20261124T120000Z-c",
      "refs/nb/backup/20301124T120000Z-d",  // in the future (a wrong clock): kept
      "refs/nb/backup/by-hand",
    ]
    XCTAssertEqual(BackupRetention.expired(names, now: now, days: 30), ["refs/nb/backup/20261024T115959Z-a"])
    XCTAssertEqual(
      BackupRetention.expired(names, now: now, days: 1),
      ["refs/nb/backup/20261024T115959Z-a", "refs/nb/backup/20261025T120000Z-b"])
    XCTAssertEqual(BackupRetention.expired(names, now: now, days: 0), [], "0 keeps all")
  }
}

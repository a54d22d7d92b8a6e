import Foundation
import InkKit
import NBTestSupport
import XCTest

@testable import NoteStore

/// Stroke ids are UUIDs of the same shape as note ids (checked with NoteStore's `NoteID`), so this test stays with
/// NoteStore rather than moving to InkKitTests.
final class InkIDTests: XCTestCase {
  func testInkIDsAreVersion7UUIDsOrderedByTime() {
    var generator = SplitMix64(seed: 1)
    let early = InkID.make(date: Date(timeIntervalSince1970: 1_700_000_000), using: &generator)
    let late = InkID.make(date: Date(timeIntervalSince1970: 1_700_000_001), using: &generator)
    XCTAssertTrue(NoteID.isWellFormed(early))
    XCTAssertEqual(Array(early)[14], "7")
    XCTAssertLessThan(early, late)
    // 1 700 000 000 000 ms = 0x18bcfe56800.
    XCTAssertTrue(early.hasPrefix("018bcfe5-6800-7"), early)
  }
}

import Foundation
import GitKit
import XCTest

final class ValueTypeTests: XCTestCase {
  func testObjectIDParsing() {
    let hex = "0123456789abcdef0123456789abcdef01234567"
    XCTAssertEqual(ObjectID(hex: hex)?.hex, hex)
    XCTAssertEqual(ObjectID(hex: hex.uppercased())?.hex, hex)
    XCTAssertEqual(ObjectID(hex: hex)?.description, hex)
    XCTAssertEqual(ObjectID(hex: hex)?.short, "0123456")
    XCTAssertNil(ObjectID(hex: String(hex.dropLast())))
    XCTAssertNil(ObjectID(hex: hex + "0"))
    XCTAssertNil(ObjectID(hex: "g" + hex.dropFirst()))
    XCTAssertNil(ObjectID(hex: ""))
    XCTAssertLessThan(ObjectID(hex: "0" + hex.dropFirst())!, ObjectID(hex: "f" + hex.dropFirst())!)
  }

  func testGitErrorDescriptionAndPredicates() {
    let locked = GitError(function: "git_index_write", code: -14, message: "index is locked")
    XCTAssertEqual(locked.description, "git_index_write failed (-14): index is locked")
    XCTAssertTrue(locked.isLocked)
    XCTAssertFalse(locked.isNotFound)
    let missing = GitError(function: "git_commit_lookup", code: -3, message: "")
    XCTAssertTrue(missing.isNotFound)
    XCTAssertEqual(missing.description, "git_commit_lookup failed (-3)")
  }

  func testGitErrorCarriesLibgit2Message() {
    XCTAssertThrowsError(try Repository.open(at: URL(fileURLWithPath: "/nonexistent/nb-gitkit-test"))) { error in
      let gitError = error as? GitError
      XCTAssertEqual(gitError?.function, "git_repository_open_ext")
      XCTAssertEqual(gitError?.isNotFound, true)
      XCTAssertFalse(gitError?.message.isEmpty ?? true)
    }
  }

  func testSignatureTimeZoneOffset() {
    let date = Date(timeIntervalSince1970: 0)
    XCTAssertEqual(
      Signature(name: "n", email: "e", date: date, timeZone: TimeZone(secondsFromGMT: -3600 * 5)!)
        .timeZoneOffsetMinutes, -300)
    XCTAssertEqual(LibGit2.version, "1.5.1")
  }
}

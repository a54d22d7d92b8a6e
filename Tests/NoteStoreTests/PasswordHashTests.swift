import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// `nb serve --listen`'s password: PBKDF2-HMAC-SHA256 checked against RFC 7914's vectors and Python's hashlib, and
/// kept device-local.
final class PasswordHashTests: NoteRepositoryTestCase {
  private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  func testPBKDF2MatchesThePublishedVectors() {
    // RFC 7914 section 11 (PBKDF2-HMAC-SHA256), its first 32 bytes; its other vector (80 000 rounds) takes half a
    // minute in a debug build, so many rounds are checked against Python below instead.
    XCTAssertEqual(
      hex(PasswordHash.pbkdf2(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1)),
      "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
  }

  func testAPasswordLongerThanABlockAndNonASCIIAgreeWithPython() throws {
    let password = String(repeating: "pässwörd-", count: 12)
    let salt: [UInt8] = Array(0..<16)
    let script = """
      import hashlib, sys
      print(hashlib.pbkdf2_hmac("sha256", sys.argv[1].encode("utf-8"), bytes(range(16)), 1000, 32).hex())
      """
    let python = try ProcessRunner.run(
      URL(fileURLWithPath: "/usr/bin/python3"), arguments: ["-c", script, password],
      environment: ["LC_ALL": "C.UTF-8"], timeout: 60)
    XCTAssertEqual(python.status, 0, python.stderr)
    XCTAssertEqual(
      hex(PasswordHash(password: password, salt: salt, iterations: 1000).key),
      python.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  func testARecordReadsBackAndMatchesOnlyItsPassword() throws {
    let hash = PasswordHash(password: "correct horse", iterations: 50)
    XCTAssertEqual(hash.salt.count, 16)
    XCTAssertNotEqual(PasswordHash(password: "correct horse", iterations: 50).salt, hash.salt, "a fresh salt each time")
    let read = try XCTUnwrap(PasswordHash(record: hash.record))
    XCTAssertEqual(read, hash)
    XCTAssertTrue(read.matches("correct horse"))
    XCTAssertFalse(read.matches("correct horse "))
    XCTAssertFalse(read.matches(""))
    for bad in ["", "pbkdf2-sha256$0$AA==$AA==", "md5$1$AA==$AA==", "pbkdf2-sha256$10$!!$AA==", hash.record + "$x"] {
      XCTAssertNil(PasswordHash(record: bad), bad)
    }
  }

  func testThePasswordIsKeptOnThisDeviceOnly() throws {
    XCTAssertNil(repository.servePassword)
    let commits = try git.logSubjects()
    try repository.setServePassword("long enough", iterations: 20)
    let stored = try XCTUnwrap(repository.servePassword)
    XCTAssertTrue(stored.matches("long enough"))
    XCTAssertEqual(stored.iterations, 20)
    let file = root.appendingPathComponent(".git/nb/serve-password")
    let text = try String(contentsOf: file, encoding: .utf8)
    XCTAssertFalse(text.contains("long enough"), "no password in the clear")
    XCTAssertEqual(
      (try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?.intValue, 0o600)
    XCTAssertEqual(try git.logSubjects(), commits, "nothing committed")
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertThrowsError(try repository.setServePassword("short", iterations: 20))
    XCTAssertThrowsError(try repository.setServePassword("two\nlines here", iterations: 20))
    XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), text, "a refused password changes nothing")
  }
}

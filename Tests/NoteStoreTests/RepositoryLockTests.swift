import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The repository lock's file says who holds it, for the message another process shows while it waits.
final class RepositoryLockTests: XCTestCase {
  private var temp: TemporaryDirectory!

  override func setUpWithError() throws {
    temp = try TemporaryDirectory()
  }

  override func tearDownWithError() throws {
    temp = nil
  }

  /// The holder's id is written over what an earlier holder wrote, without truncating the file (which frees and
  /// allocates a block on every lock): whatever a longer id left must not show through, and the file keeps its
  /// inode and size from one lock to the next.
  func testTheHolderIsWrittenOverTheLastOneAndNamedWhileItHolds() throws {
    let path = temp.file("nb/lock").path
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    // What an older nb left: the largest id Linux gives, on a line of its own.
    try Data("4194304\n".utf8).write(to: URL(fileURLWithPath: path))
    var before = stat()
    XCTAssertEqual(stat(path, &before), 0)

    var held: RepositoryLock? = try RepositoryLock(path: path)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    XCTAssertEqual(text.split(separator: " ").first.map(String.init), String(getpid()))
    XCTAssertEqual(text.utf8.count, RepositoryLock.lineWidth + 1)
    XCTAssertTrue(text.hasSuffix("\n"))
    XCTAssertEqual(text.split(separator: "\n").count, 1, text)

    XCTAssertThrowsError(try RepositoryLock(path: path, timeout: 0)) { error in
      XCTAssertEqual(error as? NoteStoreError, .busy(path: path, holder: "pid \(getpid())"))
    }
    held = nil
    XCTAssertNil(held)
    _ = try RepositoryLock(path: path)
    var after = stat()
    XCTAssertEqual(stat(path, &after), 0)
    XCTAssertEqual(after.st_ino, before.st_ino)
    XCTAssertEqual(after.st_size, off_t(RepositoryLock.lineWidth + 1))
  }

  /// While held, the file names the holder and when it took the lock; a release blanks it, so the next holder
  /// knows it was released. A holder whose line is still there, and whose process is gone, was killed while it held
  /// the lock: the next holder learns when it took it. An older nb's line (a pid alone) or a holder still running
  /// says nothing of the kind.
  func testAHolderKilledWhileItHeldTheLockIsToldFromOneThatReleasedIt() throws {
    let path = temp.file("nb/lock").path
    let before = Date()
    var held: RepositoryLock? = try RepositoryLock(path: path)
    XCTAssertNil(held?.killedHolderStarted, "a new lock file names no earlier holder")
    let fields = try String(contentsOfFile: path, encoding: .utf8).split(separator: " ")
    XCTAssertEqual(fields.first.map(String.init), String(getpid()))
    let taken = try XCTUnwrap(Double(fields[1].trimmingCharacters(in: .whitespacesAndNewlines)))
    XCTAssertEqual(taken, before.timeIntervalSince1970, accuracy: 5)
    held = nil
    XCTAssertEqual(
      try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), "")
    XCTAssertNil(try RepositoryLock(path: path).killedHolderStarted, "the last holder released it")

    // A process that is gone: one the test started and waited for.
    let gone = try ProcessRunner.endedProcessID()
    try Data("\(gone) 1764489600.250\n".utf8).write(to: URL(fileURLWithPath: path))
    XCTAssertEqual(try RepositoryLock(path: path).killedHolderStarted, Date(timeIntervalSince1970: 1_764_489_600.25))
    // Taking it again: the killed holder's line was replaced, then blanked.
    XCTAssertNil(try RepositoryLock(path: path).killedHolderStarted)

    // An older nb's line, whose holder is gone too: nothing says it did not release the lock.
    try Data("\(gone)      \n".utf8).write(to: URL(fileURLWithPath: path))
    XCTAssertNil(try RepositoryLock(path: path).killedHolderStarted)
    // A holder still running (this test's parent) that somehow let the lock go: not killed.
    try Data("\(getppid()) 1764489600.250\n".utf8).write(to: URL(fileURLWithPath: path))
    XCTAssertNil(try RepositoryLock(path: path).killedHolderStarted)

    // A process that only takes the lock for an instant, to read, neither reads the last line nor writes its own.
    try Data("\(gone) 1764489600.250\n".utf8).write(to: URL(fileURLWithPath: path))
    held = try RepositoryLock(path: path, timeout: 0, announces: false)
    XCTAssertNil(held?.killedHolderStarted)
    held = nil
    XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "\(gone) 1764489600.250\n")
    XCTAssertNotNil(try RepositoryLock(path: path).killedHolderStarted)
  }
}

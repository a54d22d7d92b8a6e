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
    XCTAssertEqual(text.trimmingCharacters(in: .whitespacesAndNewlines), String(getpid()))
    XCTAssertEqual(text.utf8.count, FileSystem.lockHolderWidth + 1)
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
    XCTAssertEqual(after.st_size, off_t(FileSystem.lockHolderWidth + 1))
  }
}

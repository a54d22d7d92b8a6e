import Foundation
import NBTestSupport
import XCTest

/// nb links no libgit2: the first git call loads it (Sources/CLibGit2/LazyLibGit2.c), so a command that only reads
/// notes starts without relocating libgit2 and the dozen libraries it pulls in. The dynamic loader's own log says
/// which files a process loaded.
final class LazyLibGit2Tests: NBCLITestCase {
  func testReadingCommandsNeverLoadLibGit2AndCommittingOnesDo() throws {
    #if !os(Linux)
      throw XCTSkip("LD_DEBUG is glibc's")
    #endif
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work", "--tags", "planning", "--content", "First draft")
    for arguments in [["--version"], ["show", "roadmap"], ["list", "work"], ["list"], ["search", "draft"]] {
      let result = try nb(arguments: arguments, env: ["LD_DEBUG": "files"])
      XCTAssertEqual(result.status, 0, "nb \(arguments): \(result.stderr)")
      XCTAssertFalse(loadedLibGit2(result), "nb \(arguments) loaded libgit2")
    }
    // The lines the loader prints must be there at all, or the test above proves nothing.
    let added = try nb(arguments: ["add", "Standup", "--content", "x"], env: ["LD_DEBUG": "files"])
    XCTAssertEqual(added.status, 0, added.stderr)
    XCTAssertTrue(loadedLibGit2(added), "nb add did not load libgit2:\n\(added.stderr)")
  }

  /// Whether the loader's log (`LD_DEBUG=files`, on standard error) shows libgit2 being loaded; fails the test when
  /// the log is missing altogether.
  private func loadedLibGit2(_ result: ProcessResult) -> Bool {
    let lines = result.stderr.split(separator: "\n")
    XCTAssertTrue(lines.contains { $0.contains("file=libc.so") }, "no loader log:\n\(result.stderr)")
    return lines.contains { $0.contains("file=libgit2") }
  }
}

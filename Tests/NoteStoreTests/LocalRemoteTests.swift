import Foundation
import XCTest

@testable import NoteStore

/// Which remote URLs name a repository on this machine, whose HEAD sync may repair directly (git's rule: a
/// `file://` URL, or a path with no `:` before its first `/`).
final class LocalRemoteTests: XCTestCase {
  func testPathsAndFileURLsAreLocalOtherTransportsAreNot() {
    XCTAssertEqual(NoteHistory.localRepository("/srv/notes.git")?.path, "/srv/notes.git")
    XCTAssertEqual(NoteHistory.localRepository("file:///srv/my%20notes.git")?.path, "/srv/my notes.git")
    XCTAssertEqual(NoteHistory.localRepository("./a:b/notes.git")?.lastPathComponent, "notes.git")
    for url in [
      "git@example.com:me/notes.git", "host:notes.git", "ssh://host/notes.git", "git://127.0.0.1/r.git",
      "https://example.com/me/notes.git",
    ] {
      XCTAssertNil(NoteHistory.localRepository(url), url)
    }
  }
}

import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// What a watcher asks of the repository besides saving: which paths git ignores, whether the remote moved (one ref
/// listing), what a sync changed in the work tree, and HEAD.
final class NoteRepositoryWatchSupportTests: NoteRepositoryTestCase {
  func testIgnoredPathsFollowGitignore() throws {
    try write(".gitignore", try read(".gitignore") + "private/\n*.log\n")
    XCTAssertTrue(try repository.isIgnored("private/secret.md"))
    XCTAssertTrue(try repository.isIgnored("inbox/debug.log"))
    XCTAssertTrue(try repository.isIgnored("inbox/.note.md.swp"), "nb's own block")
    XCTAssertFalse(try repository.isIgnored("inbox/note.md"))
    XCTAssertFalse(try repository.isIgnored("inbox/picture.png"))
    // The git CLI agrees.
    XCTAssertEqual(try git.run("check-ignore", "private/secret.md", "inbox/debug.log"), "private/secret.md\ninbox/debug.log\n")
  }

  func testRemoteNewsAndWhatASyncChanged() throws {
    let bare = temp.file("remote.git")
    _ = try git.run("init", "--bare", "-q", "-b", "main", bare.path)
    try repository.addRemote("origin", url: bare.path)
    XCTAssertFalse(try repository.remoteHasNews(), "a remote without a branch has no news")
    _ = try repository.sync()
    XCTAssertFalse(try repository.remoteHasNews(), "just published")
    XCTAssertEqual(try repository.headCommit(), try git.run("rev-parse", "HEAD").trimmingCharacters(in: .newlines))

    // Another device pushes a note.
    let other = temp.file("other")
    _ = try git.run("clone", "-q", bare.path, other.path)
    let otherGit = try GitCLI(workTree: other, home: home)
    try Data("---\ntitle: From B\n---\nhello\n".utf8).write(to: other.appendingPathComponent("inbox/from-b.md"))
    _ = try otherGit.run("add", "-A")
    _ = try otherGit.run("commit", "-q", "-m", "from b")
    _ = try otherGit.run("push", "-q", "origin", "main")

    XCTAssertTrue(try repository.remoteHasNews())
    let summary = try repository.sync()
    XCTAssertEqual(summary.outcome, .fastForwarded)
    XCTAssertEqual(summary.changedPaths, ["inbox/from-b.md"])
    XCTAssertFalse(try repository.remoteHasNews())
    let quiet = try repository.sync()
    XCTAssertEqual(quiet.changedPaths, [])
  }

  func testRemoteNewsOfAMissingRemoteIsAnError() {
    XCTAssertThrowsError(try repository.remoteHasNews(SyncOptions(remote: "nowhere"))) { error in
      XCTAssertEqual(error as? NoteStoreError, .noRemote("nowhere"))
    }
  }
}

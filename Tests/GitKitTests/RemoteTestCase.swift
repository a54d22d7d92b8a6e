import Foundation
import GitKit
import NBTestSupport
import XCTest

/// Fixture for remote tests: a local repository driven through GitKit, bare remotes made by the git CLI, and a
/// second device ("other") that is a git CLI clone.
class RemoteTestCase: GitKitTestCase {
  var serverRoot: URL!

  override func setUpWithError() throws {
    try super.setUpWithError()
    serverRoot = try temp.directory("server")
  }

  /// `git init --bare` below the server root; returns its path.
  @discardableResult
  func makeBare(_ name: String = "notes.git", branch: String = "main") throws -> URL {
    let url = serverRoot.appendingPathComponent(name)
    try git.run("init", "-q", "--bare", "-b", branch, url.path)
    return url
  }

  /// The git CLI pointed at a bare remote.
  func bareGit(_ bare: URL) throws -> GitCLI { try GitCLI(workTree: bare, home: home) }

  /// A git CLI clone of `url` in a fresh directory: the other device.
  func otherDevice(cloning url: String, name: String = "other") throws -> GitCLI {
    let dir = temp.file(name)
    try git.run("clone", "-q", url, dir.path)
    return try GitCLI(workTree: dir, home: home)
  }

  /// Writes and commits one file through GitKit.
  @discardableResult
  func commitFile(_ repo: Repository, _ path: String, _ text: String) throws -> ObjectID {
    try write(path, text)
    return try XCTUnwrap(try repo.commit(paths: [path], message: "edit \(path)"))
  }

  /// Writes, commits and pushes one file from the other device with the git CLI; returns the new commit.
  @discardableResult
  func otherCommitsAndPushes(_ other: GitCLI, _ path: String, _ text: String) throws -> String {
    let url = other.workTree.appendingPathComponent(path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
    try other.run("add", path)
    try other.run("commit", "-q", "-m", "other edits \(path)")
    try other.run("push", "-q", "origin", "HEAD:refs/heads/main")
    return try other.revParse("HEAD")
  }

  func id(_ hex: String) throws -> ObjectID { try XCTUnwrap(ObjectID(hex: hex)) }
}

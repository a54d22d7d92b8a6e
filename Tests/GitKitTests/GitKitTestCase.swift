import Foundation
import GitKit
import NBTestSupport
import XCTest

/// Shared fixture: a temp work tree, an isolated HOME for the git CLI, and libgit2's config search paths pointed
/// at that HOME so neither side sees the machine's own git configuration.
class GitKitTestCase: XCTestCase {
  var temp: TemporaryDirectory!
  var workTree: URL!
  var home: URL!
  var git: GitCLI!

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "gitkit-test")
    workTree = try temp.directory("repo")
    home = try temp.directory("home")
    git = try GitCLI(workTree: workTree, home: home)
    let empty = try temp.directory("empty-config")
    try LibGit2.setConfigSearchPath(home.path, for: .global)
    try LibGit2.setConfigSearchPath(empty.path, for: .xdg)
    try LibGit2.setConfigSearchPath(empty.path, for: .system)
  }

  override func tearDownWithError() throws {
    for level in [LibGit2.ConfigLevel.global, .xdg, .system] {
      try LibGit2.setConfigSearchPath(nil, for: level)
    }
    temp = nil
  }

  /// Writes a work-tree file (creating directories).
  func write(_ path: String, _ text: String) throws {
    let url = workTree.appendingPathComponent(path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  func remove(_ path: String) throws {
    try FileManager.default.removeItem(at: workTree.appendingPathComponent(path))
  }

  func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: workTree.appendingPathComponent(path).path)
  }

  /// Non-empty output lines.
  func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init)
  }

  /// `git show --name-status --format= <rev>` lines, e.g. `["A\ta.md"]`.
  func nameStatus(_ rev: String = "HEAD") throws -> [String] {
    lines(try git.run("show", "--name-status", "--format=", rev))
  }

  func commitCount() throws -> Int {
    Int(try git.run("rev-list", "--count", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }

  /// Creates a repository through GitKit and checks for the error-free path.
  func makeRepository() throws -> Repository {
    try Repository.create(at: workTree)
  }
}

import Foundation
import NBTestSupport
import XCTest

@testable import GitKit

/// A commit's trees made from the index (`CacheTree.built`) when the index held HEAD's tree and nothing else: the
/// git CLI is the oracle for every tree id, and the index's cache tree must come out valid everywhere.
final class CommitTreeTests: GitKitTestCase {
  /// Names that sort differently as files and as directories (`a.md`, `a`, `a-b`, `a0`), nested folders, an
  /// executable and a symlink: many paths (into one pack) and then a few (loose objects), each time equal to what
  /// git writes from the same work tree.
  func testTreesMadeFromTheIndexEqualGitsAndLeaveTheCacheTreeValid() throws {
    let repo = try makeRepository()
    try write("seed.md", "seed\n")
    try repo.commit(paths: ["seed.md"], message: "seed")

    var paths: [String] = []
    for folder in ["a", "a-b", "a0", "a/deep", "a/deep/er", "z"] {
      for i in 0..<12 {
        let path = "\(folder)/note \(i).md"
        try write(path, "\(folder) \(i)\n")
        paths.append(path)
      }
    }
    for name in ["a.md", "a-b.md", "a0.md", "run.sh"] {
      try write(name, "\(name)\n")
      paths.append(name)
    }
    chmod(workTree.appendingPathComponent("run.sh").path, 0o755)
    try FileManager.default.createSymbolicLink(atPath: workTree.appendingPathComponent("link").path, withDestinationPath: "a.md")
    paths.append("link")
    XCTAssertGreaterThanOrEqual(paths.count, Repository.packThreshold, "the first commit goes into a pack")

    let looseBefore = try looseObjectCount()
    try repo.commit(paths: paths.shuffled(), message: "many")
    // The blobs and the trees went into one pack: no loose object at all (the commit object is libgit2's).
    XCTAssertEqual(try looseObjectCount(), looseBefore + 1)
    try assertTreeAndCacheTreeMatchGit("many paths")

    // A few paths: loose trees through libgit2. A folder emptied, one made, one file replaced.
    for i in 0..<12 { try remove("a/deep/er/note \(i).md") }
    try write("new/folder/x.md", "x\n")
    try write("a/deep/note 3.md", "changed\n")
    try repo.commit(
      paths: (0..<12).map { "a/deep/er/note \($0).md" } + ["new/folder/x.md", "a/deep/note 3.md"], message: "few")
    XCTAssertEqual(try nameStatus().count, 14)
    try assertTreeAndCacheTreeMatchGit("few paths")
  }

  /// With other changes staged by hand (the cache tree no longer says the index is HEAD's tree), only the given
  /// paths are committed: the trees are then made from HEAD's, as before.
  func testAnIndexHoldingMoreThanHeadCommitsOnlyTheGivenPaths() throws {
    let repo = try makeRepository()
    try write("a.md", "a\n")
    try write("b.md", "b\n")
    try repo.commit(paths: ["a.md", "b.md"], message: "seed")
    try git.run("write-tree")
    try write("b.md", "b staged by hand\n")
    try git.run("add", "b.md")
    try write("a.md", "a by nb\n")
    try repo.commit(paths: ["a.md"], message: "only a")
    XCTAssertEqual(try nameStatus(), ["M\ta.md"])
    XCTAssertEqual(try git.show("HEAD", path: "b.md"), "b\n")
    XCTAssertEqual(try git.statusPorcelain(), "M  b.md\n")
    try git.fsck()
  }

  /// HEAD's tree equals what git writes from a fresh index of the work tree, and every directory of the index's
  /// cache tree is valid with the id git gives that directory of HEAD.
  private func assertTreeAndCacheTreeMatchGit(_ context: String, file: StaticString = #filePath, line: UInt = #line)
    throws
  {
    XCTAssertEqual(try git.statusPorcelain(), "", context, file: file, line: line)
    let fresh = temp.file("fresh-index-\(UUID().uuidString)").path
    var environment = git.environment
    environment["GIT_INDEX_FILE"] = fresh
    _ = try ProcessRunner.run("git", arguments: ["-C", workTree.path, "add", "-A"], environment: environment)
    let written = try ProcessRunner.run("git", arguments: ["-C", workTree.path, "write-tree"], environment: environment)
    XCTAssertEqual(written.stdout, try git.revParse("HEAD^{tree}") + "\n", context, file: file, line: line)

    let bytes = Array(try Data(contentsOf: workTree.appendingPathComponent(".git/index")))
    let table = try IndexTable(IndexFile.Snapshot(bytes: bytes, checkpoints: []))
    let range = try XCTUnwrap(table.cacheTree, "no cache tree: \(context)", file: file, line: line)
    var cursor = 0
    let root = try CacheTree.parse(Array(bytes[range]), &cursor)
    var directories = 0
    func check(_ node: CacheTree.Node, path: String) throws {
      directories += 1
      let id = try XCTUnwrap(node.id, "\(path.isEmpty ? "root" : path) invalid: \(context)", file: file, line: line)
      let expected = try git.revParse(path.isEmpty ? "HEAD^{tree}" : "HEAD:\(path)")
      XCTAssertEqual(lowercaseHex(id), expected, "\(path): \(context)", file: file, line: line)
      let count = lines(try git.run("ls-tree", "-r", "--name-only", path.isEmpty ? "HEAD" : "HEAD:\(path)")).count
      XCTAssertEqual(node.entryCount, count, "\(path): \(context)", file: file, line: line)
      for child in node.children {
        let name = String(decoding: child.name, as: UTF8.self)
        try check(child, path: path.isEmpty ? name : path + "/" + name)
      }
    }
    try check(root, path: "")
    let treeCount = lines(try git.run("ls-tree", "-r", "-t", "-d", "--name-only", "HEAD")).count + 1
    XCTAssertEqual(directories, treeCount, "every directory is in the cache tree: \(context)", file: file, line: line)
    try git.fsck()
  }

  private func looseObjectCount() throws -> Int {
    let objects = workTree.appendingPathComponent(".git/objects")
    return try FileManager.default.contentsOfDirectory(atPath: objects.path)
      .filter { $0.count == 2 }
      .reduce(0) { $0 + (try FileManager.default.contentsOfDirectory(atPath: objects.appendingPathComponent($1).path).count) }
  }
}

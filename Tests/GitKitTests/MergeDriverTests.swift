import Foundation
import GitKit
import NBTestSupport
import XCTest

/// What a test driver saw, shared with the `@Sendable` closure.
private final class CallLog: @unchecked Sendable {
  private let lock = NSLock()
  private var inputs: [MergeDriverInput] = []

  func record(_ input: MergeDriverInput) {
    lock.lock()
    defer { lock.unlock() }
    inputs.append(input)
  }

  var calls: [MergeDriverInput] {
    lock.lock()
    defer { lock.unlock() }
    return inputs
  }
}

/// In-process merge drivers selected by `.gitattributes`, exercised through `Repository.mergeTrees`, with the git CLI
/// (`cat-file`, `hash-object`, `merge-tree --write-tree`, `merge-file`) as the oracle.
///
/// Drivers are process-wide, so every test registers its own closure under the one name `testset`: that also
/// exercises replacement on every run.
final class MergeDriverTests: GitKitTestCase {
  static let driverName = "testset"

  /// Lines of `ours`, then lines of `theirs` that `ours` lacks: a set union that keeps order. Written by hand, not
  /// derived from anything under test.
  static func unionLines(_ input: MergeDriverInput) -> MergeDriverResult {
    let ours = String(decoding: input.ours ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    let theirs = String(decoding: input.theirs ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    let merged = ours + theirs.filter { !ours.contains($0) }
    return .merged(Data(merged.map { $0 + "\n" }.joined().utf8))
  }

  func id(_ hex: String) throws -> ObjectID { try XCTUnwrap(ObjectID(hex: hex)) }

  func commitAll(_ message: String) throws -> ObjectID {
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", message)
    return try id(try git.revParse("HEAD"))
  }

  /// A base commit with `.gitattributes` (`*.set merge=testset`) and `base` files, then branch `theirs` and `main`
  /// each applying their own file writes on top. Returns the three commits.
  func diverge(base: [String: String], ours: [String: String], theirs: [String: String]) throws
    -> (repo: Repository, base: ObjectID, ours: ObjectID, theirs: ObjectID)
  {
    let repo = try makeRepository()
    try write(".gitattributes", "*.set merge=\(Self.driverName)\n")
    for (path, text) in base { try write(path, text) }
    let baseID = try commitAll("base")
    try git.run("checkout", "-q", "-b", "theirs")
    for (path, text) in theirs { try write(path, text) }
    let theirsID = try commitAll("theirs")
    try git.run("checkout", "-q", "main")
    for (path, text) in ours { try write(path, text) }
    let oursID = try commitAll("ours")
    return (repo, baseID, oursID, theirsID)
  }

  /// `git ls-tree -r <rev>` lines (mode, type, blob, path), the oracle for a whole tree.
  func lsTree(_ rev: String) throws -> [String] {
    lines(try git.run("ls-tree", "-r", rev))
  }

  func blob(_ tree: ObjectID, _ path: String) throws -> String {
    try git.run("cat-file", "blob", "\(tree.hex):\(path)")
  }

  /// The blob id git would give `text`.
  func hashObject(_ text: String) throws -> String {
    try git.run(arguments: ["hash-object", "--stdin"], stdin: Data(text.utf8))
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// `git merge-tree --write-tree`'s tree for the two commits (git treats the undefined `testset` driver as text).
  func gitMergeTree(_ ours: ObjectID, _ theirs: ObjectID) throws -> String? {
    let result = try git.result(["merge-tree", "--write-tree", ours.hex, theirs.hex])
    guard result.succeeded else { return nil }
    return lines(result.stdout).first
  }

  func merged(_ result: TreeMergeResult, file: StaticString = #filePath, line: UInt = #line) throws -> ObjectID {
    guard case .merged(let tree) = result else {
      XCTFail("expected a merged tree, got \(result)", file: file, line: line)
      throw GitError(function: "test", code: -1, message: "not merged")
    }
    return tree
  }

  // MARK: Tests

  func testDriverOutputBecomesTheMergedBlob() throws {
    let (_, base, ours, theirs) = try diverge(
      base: ["list.set": "apple\n", "keep.md": "k\n"],
      ours: ["list.set": "apple\nbanana\n", "o.md": "o\n"],
      theirs: ["list.set": "apple\ncherry\n", "t.md": "t\n"])
    let log = CallLog()
    try MergeDrivers.register(name: Self.driverName) { input in
      log.record(input)
      return Self.unionLines(input)
    }
    // Both sides append at the same place: without the driver, this is a content conflict.
    XCTAssertNil(try gitMergeTree(ours, theirs))

    let repo = try Repository.open(at: workTree)
    let tree = try merged(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs))

    XCTAssertEqual(try blob(tree, "list.set"), "apple\nbanana\ncherry\n")
    XCTAssertEqual(
      log.calls,
      [
        MergeDriverInput(
          path: "list.set", ancestor: Data("apple\n".utf8), ours: Data("apple\nbanana\n".utf8),
          theirs: Data("apple\ncherry\n".utf8))
      ])
    // The rest of the tree is ours plus their new file, with list.set replaced by the driver's bytes.
    var expected = try lsTree(ours.hex).filter { !$0.hasSuffix("\tlist.set") }
    expected += try lsTree(theirs.hex).filter { $0.hasSuffix("\tt.md") }
    expected.append("100644 blob \(try hashObject("apple\nbanana\ncherry\n"))\tlist.set")
    XCTAssertEqual(try lsTree(tree.hex).sorted(), expected.sorted())
    try git.fsck()
  }

  func testConflictKeepsThePathConflicted() throws {
    let (repo, base, ours, theirs) = try diverge(
      base: ["list.set": "a\n", "notes.txt": "1\n2\n3\n"],
      ours: ["list.set": "a\nb\n", "notes.txt": "one\n2\n3\n"],
      theirs: ["list.set": "a\nc\n", "notes.txt": "1\n2\nthree\n"])
    try MergeDrivers.register(name: Self.driverName) { _ in .conflict }
    XCTAssertEqual(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs), .conflicts(["list.set"]))
  }

  func testConflictEvenWhenTextMergeWouldSucceed() throws {
    // Non-overlapping edits: text would merge them, so only the driver can have made this a conflict.
    let (repo, base, ours, theirs) = try diverge(
      base: ["list.set": "1\n2\n3\n4\n5\n"],
      ours: ["list.set": "ONE\n2\n3\n4\n5\n"],
      theirs: ["list.set": "1\n2\n3\n4\nFIVE\n"])
    XCTAssertNotNil(try gitMergeTree(ours, theirs))
    try MergeDrivers.register(name: Self.driverName) { _ in .conflict }
    XCTAssertEqual(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs), .conflicts(["list.set"]))
  }

  func testFallBackToTextGivesLibgit2sLineMerge() throws {
    let baseText = "1\n2\n3\n4\n5\n6\n7\n"
    let oursText = "ONE\n2\n3\n4\n5\n6\n7\n"
    let theirsText = "1\n2\n3\n4\n5\n6\nSEVEN\n"
    let (repo, base, ours, theirs) = try diverge(
      base: ["list.set": baseText], ours: ["list.set": oursText], theirs: ["list.set": theirsText])
    let log = CallLog()
    try MergeDrivers.register(name: Self.driverName) { input in
      log.record(input)
      return .fallBackToText
    }
    let tree = try merged(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs))
    XCTAssertEqual(log.calls.map(\.path), ["list.set"])
    XCTAssertEqual(tree.hex, try gitMergeTree(ours, theirs))

    // The same bytes `git merge-file` makes of the three versions.
    try write("o", oursText)
    try write("b", baseText)
    try write("t", theirsText)
    XCTAssertEqual(try blob(tree, "list.set"), try git.run("merge-file", "-p", "o", "b", "t"))
    XCTAssertEqual(try blob(tree, "list.set"), "ONE\n2\n3\n4\n5\n6\nSEVEN\n")
  }

  func testFallBackToTextStillConflictsOnOverlap() throws {
    let (repo, base, ours, theirs) = try diverge(
      base: ["list.set": "a\n"], ours: ["list.set": "b\n"], theirs: ["list.set": "c\n"])
    try MergeDrivers.register(name: Self.driverName) { _ in .fallBackToText }
    XCTAssertEqual(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs), .conflicts(["list.set"]))
  }

  func testAddAddGivesTheDriverNoAncestor() throws {
    let (repo, base, ours, theirs) = try diverge(
      base: ["keep.md": "k\n"], ours: ["new.set": "x\ny\n"], theirs: ["new.set": "y\nz\n"])
    let log = CallLog()
    try MergeDrivers.register(name: Self.driverName) { input in
      log.record(input)
      return Self.unionLines(input)
    }
    let tree = try merged(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs))
    XCTAssertEqual(try blob(tree, "new.set"), "x\ny\nz\n")
    XCTAssertEqual(
      log.calls,
      [MergeDriverInput(path: "new.set", ancestor: nil, ours: Data("x\ny\n".utf8), theirs: Data("y\nz\n".utf8))])

    // Without any ancestor every path is add/add; identical files merge trivially and never reach the driver.
    let unrelated = try merged(try repo.mergeTrees(ancestor: nil, ours: ours, theirs: theirs))
    XCTAssertEqual(unrelated, tree)
    XCTAssertEqual(log.calls.count, 2)
    XCTAssertNil(log.calls[1].ancestor)
  }

  func testDriverIsNotCalledForPathsWithoutTheAttribute() throws {
    let baseText = "1\n2\n3\n4\n5\n"
    let (repo, base, ours, theirs) = try diverge(
      base: ["notes.txt": baseText, "list.set": "a\n"],
      ours: ["notes.txt": "ONE\n2\n3\n4\n5\n", "list.set": "a\nb\n"],
      theirs: ["notes.txt": "1\n2\n3\n4\nFIVE\n"])
    let log = CallLog()
    try MergeDrivers.register(name: Self.driverName) { input in
      log.record(input)
      return .merged(Data("driver\n".utf8))
    }
    let tree = try merged(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs))
    // notes.txt changed on both sides but has no attribute; list.set changed on one side only.
    XCTAssertEqual(log.calls, [])
    XCTAssertEqual(tree.hex, try gitMergeTree(ours, theirs))
    XCTAssertEqual(try blob(tree, "notes.txt"), "ONE\n2\n3\n4\nFIVE\n")
    XCTAssertEqual(try blob(tree, "list.set"), "a\nb\n")
  }

  func testReRegisteringReplacesTheClosure() throws {
    let (repo, base, ours, theirs) = try diverge(
      base: ["list.set": "a\n"], ours: ["list.set": "b\n"], theirs: ["list.set": "c\n"])
    let first = CallLog()
    try MergeDrivers.register(name: Self.driverName) { input in
      first.record(input)
      return .merged(Data("first\n".utf8))
    }
    try MergeDrivers.register(name: Self.driverName) { _ in .merged(Data()) }
    XCTAssertTrue(MergeDrivers.isRegistered(name: Self.driverName))

    let tree = try merged(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs))
    XCTAssertEqual(first.calls, [])
    // An empty result is a real (empty) blob, not a failure.
    XCTAssertEqual(
      try lsTree(tree.hex).filter { $0.hasSuffix("\tlist.set") }, ["100644 blob \(try hashObject(""))\tlist.set"])
  }

  func testModeChangeOnOneSideSurvivesTheDriver() throws {
    let (repo, base, _, theirs) = try diverge(
      base: ["run.set": "a\n"], ours: ["other.md": "o\n"], theirs: ["run.set": "a\nc\n"])
    try write("run.set", "a\nb\n")
    try git.run("add", "run.set")
    try git.run("update-index", "--chmod=+x", "run.set")
    try git.run("commit", "-q", "-m", "ours: edit and make executable")
    let ours = try id(try git.revParse("HEAD"))
    try MergeDrivers.register(name: Self.driverName) { Self.unionLines($0) }
    let tree = try merged(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs))
    XCTAssertEqual(
      try lsTree(tree.hex).filter { $0.hasSuffix("\trun.set") },
      ["100755 blob \(try hashObject("a\nb\nc\n"))\trun.set"])
  }

  func testRegisteringABuiltInNameFails() {
    XCTAssertThrowsError(try MergeDrivers.register(name: "union") { _ in .conflict }) { error in
      // GIT_EEXISTS, from git2/errors.h.
      XCTAssertEqual((error as? GitError)?.code, -4)
    }
    XCTAssertFalse(MergeDrivers.isRegistered(name: "union"))
  }

  // MARK: mergeTrees without drivers

  func testTreeAndCommitIdsGiveTheSameMergeAsGit() throws {
    let (repo, base, ours, theirs) = try diverge(
      base: ["notes.txt": "1\n2\n3\n4\n5\n", "gone.md": "g\n"],
      ours: ["notes.txt": "ONE\n2\n3\n4\n5\n", "o/deep.md": "o\n"],
      theirs: ["notes.txt": "1\n2\n3\n4\nFIVE\n", "t.md": "t\n"])
    let oracle = try XCTUnwrap(try gitMergeTree(ours, theirs))
    XCTAssertEqual(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs), .merged(tree: try id(oracle)))
    let trees = try [base, ours, theirs].map { try id(try git.revParse("\($0.hex)^{tree}")) }
    XCTAssertEqual(
      try repo.mergeTrees(ancestor: trees[0], ours: trees[1], theirs: trees[2]), .merged(tree: try id(oracle)))
  }

  func testTextConflictsAreListedLikeGitDoes() throws {
    let (repo, base, ours, theirs) = try diverge(
      base: ["a.md": "a\n", "b/c.md": "c\n", "same.md": "s\n"],
      ours: ["a.md": "ours\n", "b/c.md": "ours\n", "same.md": "s2\n"],
      theirs: ["a.md": "theirs\n", "b/c.md": "theirs\n", "same.md": "s2\n"])
    let result = try git.result(["merge-tree", "--write-tree", "--name-only", ours.hex, theirs.hex])
    XCTAssertFalse(result.succeeded)
    // Output: the tree id, the conflicted paths, a blank line, then messages.
    let oracle = result.stdout.components(separatedBy: "\n\n")[0].split(separator: "\n").dropFirst().map(String.init)
    XCTAssertEqual(oracle, ["a.md", "b/c.md"])
    XCTAssertEqual(try repo.mergeTrees(ancestor: base, ours: ours, theirs: theirs), .conflicts(oracle))
  }

  func testMergeTreesRejectsABlobID() throws {
    let (repo, base, ours, _) = try diverge(base: ["a.md": "a\n"], ours: ["a.md": "b\n"], theirs: ["t.md": "t\n"])
    let blobID = try id(try hashObject("a\n"))
    XCTAssertThrowsError(try repo.mergeTrees(ancestor: base, ours: ours, theirs: blobID)) { error in
      XCTAssertTrue((error as? GitError)?.function.hasPrefix("git_object_peel") ?? false, "\(error)")
    }
  }
}

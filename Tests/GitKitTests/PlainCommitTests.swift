import Foundation
import NBTestSupport
import XCTest

@testable import GitKit

/// A commit made from git's files without libgit2 (`PlainCommit`): libgit2's own commit of the same change in a
/// copy of the repository is the oracle (the same commit id means the same tree, parent, signatures and message),
/// the git CLI checks the rest (status, fsck, the reflog), and every case it declines leaves nothing written.
final class PlainCommitTests: GitKitTestCase {
  private let author = Signature(
    name: GitCLI.userName, email: GitCLI.userEmail, date: Date(timeIntervalSince1970: 1_790_000_000),
    timeZoneOffsetMinutes: -150)

  /// Seeds a repository with nested folders, an executable and a symlink, committed through libgit2.
  private func seed() throws -> Repository {
    let repo = try makeRepository()
    for path in ["a.md", "b.md", "notes/c.md", "notes/deep/d.md", "z/e.md"] { try write(path, "\(path)\n") }
    try write("run.sh", "#!/bin/sh\n")
    chmod(workTree.appendingPathComponent("run.sh").path, 0o755)
    try FileManager.default.createSymbolicLink(
      atPath: workTree.appendingPathComponent("link").path, withDestinationPath: "a.md")
    try repo.commit(
      paths: ["a.md", "b.md", "notes/c.md", "notes/deep/d.md", "z/e.md", "run.sh", "link"], message: "seed",
      author: author)
    return repo
  }

  private func settings(_ repo: Repository) throws -> PlainCommitSettings {
    try XCTUnwrap(repo.plainCommitSettings())
  }

  private func plainCommit(_ paths: [String], in workTree: URL, settings: PlainCommitSettings, message: String)
    throws -> PlainCommit.Outcome
  {
    try PlainCommit.commit(
      workTree: workTree, gitDirectory: workTree.appendingPathComponent(".git"), paths: paths, message: message,
      author: author, committer: author, settings: settings)
  }

  /// Applies one change of every kind in `root`: an edit, a new file in a new folder, a removal, a folder emptied,
  /// a new executable, a new symlink.
  private func change(_ root: URL) throws {
    func put(_ path: String, _ text: String) throws {
      let url = root.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
    try put("a.md", "a, edited\n")
    try put("new/folder/f.md", "f\n")
    try FileManager.default.removeItem(at: root.appendingPathComponent("b.md"))
    try FileManager.default.removeItem(at: root.appendingPathComponent("notes/deep/d.md"))
    try put("tool.sh", "#!/bin/sh\necho\n")
    chmod(root.appendingPathComponent("tool.sh").path, 0o755)
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("link2").path, withDestinationPath: "notes/c.md")
  }

  private let changedPaths = ["a.md", "new/folder/f.md", "b.md", "notes/deep/d.md", "tool.sh", "link2"]

  func testAPlainCommitIsTheCommitLibgit2MakesOfTheSameChange() throws {
    let repo = try seed()
    let copy = temp.file("copy")
    _ = try ProcessRunner.run("cp", arguments: ["-a", workTree.path, copy.path])
    let copyGit = try GitCLI(workTree: copy, home: home)
    let parent = try git.revParse("HEAD")

    try change(workTree)
    try repo.commit(paths: changedPaths, message: "change\n\nbody", author: author)
    try change(copy)
    let outcome = try plainCommit(changedPaths, in: copy, settings: try settings(repo), message: "change\n\nbody")

    // libgit2's committer is the clock's now; everything else is the same bytes.
    guard case .committed(let plain) = outcome else { return XCTFail("\(outcome)") }
    XCTAssertEqual(try copyGit.revParse("HEAD"), plain.hex)
    func withoutCommitter(_ text: String) -> String {
      lines(text).filter { !$0.hasPrefix("committer ") }.joined(separator: "\n")
    }
    XCTAssertEqual(
      withoutCommitter(try copyGit.run("cat-file", "-p", "HEAD")),
      withoutCommitter(try git.run("cat-file", "-p", "HEAD")))
    XCTAssertEqual(try copyGit.revParse("HEAD^{tree}"), try git.revParse("HEAD^{tree}"))
    XCTAssertEqual(try copyGit.run("ls-files", "-s"), try git.run("ls-files", "-s"))
    XCTAssertEqual(try cacheTree(copy), try cacheTree(workTree), "the index's cache tree is libgit2's, valid")
    XCTAssertEqual(try copyGit.statusPorcelain(), "")
    try copyGit.fsck()
    XCTAssertTrue(
      try copyGit.run("cat-file", "-p", "HEAD").contains("\nauthor Test User <test@example.com> 1790000000 -0230\n"))

    // The branch's and HEAD's reflogs gain the line libgit2 writes, at the committer's time.
    for log in ["logs/HEAD", "logs/refs/heads/main"] {
      let line = try XCTUnwrap(lines(try String(contentsOf: copy.appendingPathComponent(".git/" + log))).last)
      XCTAssertTrue(line.hasPrefix("\(parent) \(plain.hex) Test User <test@example.com> 1790000000 -0230\t"), line)
      XCTAssertTrue(line.hasSuffix("\tcommit: change"), line)
    }
    XCTAssertEqual(try copyGit.run("reflog", "-1", "--format=%gs"), "commit: change\n")
    let object = copy.appendingPathComponent(".git/objects/\(plain.hex.prefix(2))/\(plain.hex.dropFirst(2))")
    let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: object.path)[.posixPermissions] as? Int)
    XCTAssertEqual(mode & 0o222, 0, "a loose object is read-only")
  }

  func testAChangeThatLeavesTheTreeAsItWasMakesNoCommit() throws {
    let repo = try seed()
    let head = try git.revParse("HEAD")
    try write("a.md", "a.md\n")  // the same bytes, a new mtime
    let before = try looseObjects()
    XCTAssertEqual(
      try plainCommit(["a.md"], in: workTree, settings: try settings(repo), message: "nothing"), .unchanged)
    XCTAssertEqual(try git.revParse("HEAD"), head)
    XCTAssertEqual(try looseObjects(), before)
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  /// Each case the plain commit leaves to libgit2 is declined with nothing written: HEAD, the index's bytes and
  /// the object files stay as they were.
  func testWhatItDeclinesLeavesEverythingAsItWas() throws {
    let repo = try seed()
    let settings = try settings(repo)
    func assertDeclines(_ paths: [String], _ why: String, line: UInt = #line) throws {
      let head = try git.revParse("HEAD")
      let index = try Data(contentsOf: workTree.appendingPathComponent(".git/index"))
      let objects = try looseObjects()
      let outcome = try plainCommit(paths, in: workTree, settings: settings, message: why)
      guard case .declined = outcome else { return XCTFail("\(why): \(outcome)", line: line) }
      XCTAssertEqual(try git.revParse("HEAD"), head, why, line: line)
      XCTAssertEqual(try Data(contentsOf: workTree.appendingPathComponent(".git/index")), index, why, line: line)
      XCTAssertEqual(try looseObjects(), objects, why, line: line)
    }

    try write("a.md", "a with\r\nCRLF\r\n")
    try assertDeclines(["a.md"], "a CR a filter could change")
    try write("a.md", "an $Id$ to expand\n")
    try assertDeclines(["a.md"], "an ident a filter could change")
    try write("a.md", "plain again\n")

    try write("b.md", "staged by hand\n")
    try git.run("add", "b.md")
    try assertDeclines(["a.md"], "something staged: the index is not HEAD's tree")
    try git.run("reset", "-q", "b.md")
    try git.run("checkout", "--", "b.md")

    let many = (0..<Repository.packThreshold).map { "many/\($0).md" }
    for path in many { try write(path, path) }
    try assertDeclines(many, "many paths")
    try FileManager.default.removeItem(at: workTree.appendingPathComponent("many"))

    try assertDeclines([".GIT/x"], "a .git-like path")

    try git.run("checkout", "-q", "--detach")
    try assertDeclines(["a.md"], "a detached HEAD")
    try git.run("checkout", "-q", "main")

    try git.run("gc", "-q")
    try assertDeclines(["a.md"], "a packed HEAD commit")

    // libgit2 then commits it, and the next plain commit has a loose HEAD again.
    try repo.commit(paths: ["a.md"], message: "through libgit2", author: author)
    try write("z/e.md", "e, edited\n")
    guard case .committed = try plainCommit(["z/e.md"], in: workTree, settings: settings, message: "plain") else {
      return XCTFail("a loose HEAD again")
    }
    XCTAssertEqual(try git.statusPorcelain(), "")
    try git.fsck()
  }

  /// Another process's lock on the branch fails the commit as locked; the index is put back so the path shows as
  /// changed, not staged, and HEAD stays. An index lock fails it before anything is written.
  func testALockedBranchOrIndexFailsAndLeavesTheIndexAsItWas() throws {
    let repo = try seed()
    let settings = try settings(repo)
    let head = try git.revParse("HEAD")
    try write("a.md", "a, edited\n")

    let branchLock = workTree.appendingPathComponent(".git/refs/heads/main.lock")
    try Data().write(to: branchLock)
    XCTAssertThrowsError(try plainCommit(["a.md"], in: workTree, settings: settings, message: "locked")) { error in
      XCTAssertTrue((error as? GitError)?.isLocked == true, "\(error)")
    }
    XCTAssertTrue(FileManager.default.fileExists(atPath: branchLock.path), "another process's lock is left alone")
    XCTAssertEqual(try git.revParse("HEAD"), head)
    XCTAssertEqual(try git.statusPorcelain(), " M a.md\n")
    XCTAssertEqual(try git.run("diff", "--cached", "--name-only"), "")
    try FileManager.default.removeItem(at: branchLock)

    let indexLock = workTree.appendingPathComponent(".git/index.lock")
    try Data().write(to: indexLock)
    let objects = try looseObjects()
    XCTAssertThrowsError(try plainCommit(["a.md"], in: workTree, settings: settings, message: "locked")) { error in
      XCTAssertTrue((error as? GitError)?.isLocked == true, "\(error)")
    }
    XCTAssertEqual(try looseObjects(), objects)
    try FileManager.default.removeItem(at: indexLock)

    // The entry put back leaves a cache tree that no longer says the index is HEAD's tree: libgit2 commits next.
    XCTAssertNotNil(try repo.commit(paths: ["a.md"], message: "free", author: author))
    XCTAssertEqual(try git.statusPorcelain(), "")
    try git.fsck()
  }

  /// A `git add` that rewrites the index between the plain commit's read and its write is not undone: the plain
  /// commit declines with HEAD where it was, the file git staged stays staged, and libgit2's commit then keeps it.
  func testAnIndexReplacedBeforeTheWriteIsKept() throws {
    let repo = try seed()
    let head = try git.revParse("HEAD")
    try write("a.md", "a, edited\n")
    try write("b.md", "b, staged by git\n")
    let store = CountingIndexFileStore()
    store.beforeNextWrite { try self.git.run("add", "b.md") }
    let outcome = try PlainCommit.commit(
      workTree: workTree, gitDirectory: workTree.appendingPathComponent(".git"), paths: ["a.md"], message: "raced",
      author: author, committer: author, settings: try settings(repo), store: store)
    guard case .declined = outcome else { return XCTFail("\(outcome)") }
    XCTAssertEqual(store.writes, 0)
    XCTAssertEqual(try git.revParse("HEAD"), head)
    XCTAssertEqual(try git.run("diff", "--cached", "--name-only"), "b.md\n")

    XCTAssertNotNil(try repo.commit(paths: ["a.md"], message: "raced", author: author))
    XCTAssertEqual(try git.run("diff", "--cached", "--name-only"), "b.md\n")
    XCTAssertEqual(try git.run("show", "--name-only", "--format=", "HEAD"), "a.md\n")
    try git.fsck()
  }

  func testTheSettingsFollowTheConfig() throws {
    let repo = try seed()
    XCTAssertEqual(
      repo.plainCommitSettings(),
      PlainCommitSettings(name: GitCLI.userName, email: GitCLI.userEmail, logsRefUpdates: true))

    try git.run("config", "core.logAllRefUpdates", "false")
    let quiet = try XCTUnwrap(repo.plainCommitSettings())
    XCTAssertFalse(quiet.logsRefUpdates)
    let log = workTree.appendingPathComponent(".git/logs/HEAD")
    let lineCount = lines(try String(contentsOf: log)).count
    try write("a.md", "a, edited\n")
    guard case .committed = try plainCommit(["a.md"], in: workTree, settings: quiet, message: "quiet") else {
      return XCTFail("committed")
    }
    XCTAssertEqual(lines(try String(contentsOf: log)).count, lineCount, "no reflog, as libgit2 writes none")
    try git.run("config", "--unset", "core.logAllRefUpdates")

    for (key, value) in [("core.filemode", "false"), ("core.symlinks", "false"), ("core.sharedRepository", "group")] {
      try git.run("config", key, value)
      XCTAssertNil(repo.plainCommitSettings(), "\(key) = \(value) is libgit2's to handle")
      try git.run("config", "--unset", key)
    }
    XCTAssertNotNil(repo.plainCommitSettings())
  }

  func testASignatureLibgit2WouldTrimOrRefuseIsDeclined() throws {
    let repo = try seed()
    try write("a.md", "a, edited\n")
    for name in [" Padded", "Angle <bracket>", "Line\nbreak", ""] {
      let odd = Signature(name: name, email: "x@example.com", date: author.date, timeZoneOffsetMinutes: 0)
      let outcome = try PlainCommit.commit(
        workTree: workTree, gitDirectory: workTree.appendingPathComponent(".git"), paths: ["a.md"], message: "m",
        author: odd, committer: odd, settings: try settings(repo))
      guard case .declined = outcome else { return XCTFail("\(name.debugDescription): \(outcome)") }
    }
  }

  // MARK: - Helpers

  /// The raw bytes of the index's cache-tree extension.
  private func cacheTree(_ root: URL) throws -> [UInt8] {
    let bytes = Array(try Data(contentsOf: root.appendingPathComponent(".git/index")))
    let table = try IndexTable(IndexFile.Snapshot(bytes: bytes, checkpoints: []))
    return Array(bytes[try XCTUnwrap(table.cacheTree)])
  }

  private func looseObjects() throws -> Set<String> {
    let objects = workTree.appendingPathComponent(".git/objects")
    var found = Set<String>()
    for directory in try FileManager.default.contentsOfDirectory(atPath: objects.path) where directory.count == 2 {
      for name in try FileManager.default.contentsOfDirectory(atPath: objects.appendingPathComponent(directory).path) {
        found.insert(directory + name)
      }
    }
    return found
  }
}

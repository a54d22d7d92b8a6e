import Foundation
import GitKit
import NBTestSupport
import XCTest

final class RepositoryTests: GitKitTestCase {
  func testCreateMakesUnbornMainBranch() throws {
    let repo = try makeRepository()
    XCTAssertEqual(repo.currentBranch, "main")
    XCTAssertTrue(repo.isHeadUnborn)
    XCTAssertFalse(repo.isHeadDetached)
    XCTAssertNil(try repo.headCommitID())
    XCTAssertEqual(repo.state, RepositoryState.none)
    XCTAssertEqual(Array(try repo.log()), [])
    XCTAssertEqual(repo.workTree.path, workTree.path)
    XCTAssertEqual(repo.gitDirectory.path, workTree.appendingPathComponent(".git").path)
    XCTAssertFalse(repo.workTree.path.hasSuffix("/"))
    // The CLI agrees: HEAD is a symbolic ref to main and there is no commit yet.
    XCTAssertEqual(try git.run("symbolic-ref", "HEAD"), "refs/heads/main\n")
    XCTAssertFalse(try git.result(["rev-parse", "--verify", "--quiet", "HEAD"]).succeeded)
    XCTAssertEqual(try git.run("rev-parse", "--is-bare-repository"), "false\n")
  }

  func testCreatedRepositoryUsesIndexVersion4AndGitKeepsIt() throws {
    let repo = try makeRepository()
    try write("a.md", "a\n")
    try repo.commit(paths: ["a.md"], message: "one")
    try write("b.md", "b\n")
    try git.run("add", "b.md")
    // The index header is "DIRC" followed by the version as a 32-bit big-endian integer.
    let header = try Data(contentsOf: workTree.appendingPathComponent(".git/index")).prefix(8)
    XCTAssertEqual(Array(header), Array("DIRC".utf8) + [0, 0, 0, 4])
    XCTAssertEqual(lines(try git.run("ls-files")), ["a.md", "b.md"])
    XCTAssertEqual(try git.statusPorcelain(), "A  b.md\n")
  }

  func testRepositoryMadeByGitKeepsItsIndexVersion() throws {
    try git.run("init", "-q", "-b", "main")
    let repo = try Repository.open(at: workTree)
    try write("a.md", "a\n")
    try repo.commit(paths: ["a.md"], message: "one")
    let header = try Data(contentsOf: workTree.appendingPathComponent(".git/index")).prefix(8)
    XCTAssertEqual(Array(header), Array("DIRC".utf8) + [0, 0, 0, 2])
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testCreateWithOtherInitialBranch() throws {
    let repo = try Repository.create(at: workTree, initialBranch: "trunk")
    XCTAssertEqual(repo.currentBranch, "trunk")
    XCTAssertEqual(try git.run("symbolic-ref", "HEAD"), "refs/heads/trunk\n")
  }

  func testOpenRequiresTheWorkTreeRoot() throws {
    _ = try makeRepository()
    try write("sub/file.md", "x")
    let reopened = try Repository.open(at: workTree)
    XCTAssertEqual(reopened.workTree.path, workTree.path)
    XCTAssertThrowsError(try Repository.open(at: workTree.appendingPathComponent("sub"))) { error in
      XCTAssertTrue((error as? GitError)?.isNotFound == true, "\(error)")
    }
    XCTAssertThrowsError(try Repository.open(at: temp.file("nowhere")))
  }

  func testOpenRepositoryMadeByGitCLI() throws {
    try git.run("init", "-q", "-b", "main")
    try write("a.md", "hello\n")
    try git.run("add", "a.md")
    try git.run("commit", "-q", "-m", "by git")
    let repo = try Repository.open(at: workTree)
    XCTAssertEqual(try repo.headCommitID()?.hex, try git.revParse("HEAD"))
    XCTAssertEqual(try repo.commit(try repo.headCommitID()!).summary, "by git")
  }

  // MARK: commit(paths:)

  func testCommitNewNestedModifiedAndDeletedPaths() throws {
    let repo = try makeRepository()
    try write("a.md", "alpha\n")
    try write("work/projects/deep/b.md", "beta\n")
    let first = try XCTUnwrap(try repo.commit(paths: ["a.md", "work/projects/deep/b.md"], message: "first"))

    XCTAssertEqual(first.hex, try git.revParse("HEAD"))
    XCTAssertEqual(try git.logSubjects(), ["first"])
    XCTAssertEqual(try nameStatus(), ["A\ta.md", "A\twork/projects/deep/b.md"])
    XCTAssertEqual(try git.show("HEAD", path: "work/projects/deep/b.md"), "beta\n")
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%an <%ae>|%cn <%ce>"),
      "Test User <test@example.com>|Test User <test@example.com>\n")
    XCTAssertEqual(try git.run("log", "-1", "--format=%B"), "first\n\n")
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertEqual(try git.run("reflog", "-1", "--format=%gs"), "commit (initial): first\n")
    try git.fsck()
    XCTAssertFalse(repo.isHeadUnborn)

    try write("a.md", "alpha, edited\n")
    try remove("work/projects/deep/b.md")
    try write("work/c.md", "gamma\n")
    let second = try XCTUnwrap(
      try repo.commit(paths: ["a.md", "work/projects/deep/b.md", "work/c.md"], message: "second\n\nbody"))

    XCTAssertEqual(second.hex, try git.revParse("HEAD"))
    XCTAssertEqual(try git.revParse("HEAD^"), first.hex)
    XCTAssertEqual(try git.logSubjects(), ["second", "first"])
    XCTAssertEqual(try nameStatus(), ["M\ta.md", "A\twork/c.md", "D\twork/projects/deep/b.md"])
    XCTAssertEqual(try git.show("HEAD", path: "a.md"), "alpha, edited\n")
    // Emptied directories disappear from the tree, as with git itself.
    XCTAssertEqual(lines(try git.run("ls-tree", "-r", "-t", "--name-only", "HEAD")), ["a.md", "work", "work/c.md"])
    XCTAssertEqual(lines(try git.run("ls-files")), ["a.md", "work/c.md"])
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertEqual(try git.run("reflog", "-1", "--format=%gs"), "commit: second\n")
    try git.fsck()
  }

  func testCommitOnlyTheGivenPaths() throws {
    let repo = try makeRepository()
    try write("a.md", "a\n")
    try write("b.md", "b\n")
    try repo.commit(paths: ["a.md"], message: "only a")
    XCTAssertEqual(try nameStatus(), ["A\ta.md"])
    XCTAssertEqual(try git.statusPorcelain(), "?? b.md\n")
  }

  func testNoOpCommitReturnsNilAndMakesNoCommit() throws {
    let repo = try makeRepository()
    XCTAssertNil(try repo.commit(paths: ["missing.md"], message: "nothing"))
    XCTAssertTrue(repo.isHeadUnborn)
    XCTAssertNil(try repo.commit(paths: [], message: "nothing"))
    XCTAssertTrue(repo.isHeadUnborn)

    try write("a.md", "a\n")
    let first = try repo.commit(paths: ["a.md"], message: "one")
    XCTAssertNotNil(first)
    XCTAssertNil(try repo.commit(paths: ["a.md"], message: "again"))
    XCTAssertNil(try repo.commit(paths: ["a.md", "never-existed.md"], message: "again"))
    XCTAssertEqual(try repo.headCommitID(), first)
    XCTAssertEqual(try commitCount(), 1)
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testStagedChangesOfOtherPathsStayStagedAndUncommitted() throws {
    let repo = try makeRepository()
    try write("a.md", "a1\n")
    try write("b.md", "b1\n")
    try repo.commit(paths: ["a.md", "b.md"], message: "base")

    try write("b.md", "b2 staged\n")
    try write("c.md", "c staged\n")
    try git.run("add", "b.md", "c.md")
    try write("b.md", "b3 unstaged on top\n")
    try write("a.md", "a2\n")
    try repo.commit(paths: ["a.md"], message: "a only")

    XCTAssertEqual(try nameStatus(), ["M\ta.md"])
    XCTAssertEqual(try git.show("HEAD", path: "b.md"), "b1\n")
    XCTAssertEqual(try git.show("", path: "b.md"), "b2 staged\n", "the index still holds the staged version")
    XCTAssertEqual(lines(try git.run("diff", "--cached", "--name-status")), ["M\tb.md", "A\tc.md"])
    XCTAssertEqual(try git.statusPorcelain(), "MM b.md\nA  c.md\n")
    try git.fsck()
  }

  func testIndexLockMakesCommitFailWithoutDeletingIt() throws {
    let repo = try makeRepository()
    try write("a.md", "a1\n")
    let first = try repo.commit(paths: ["a.md"], message: "one")
    let lock = workTree.appendingPathComponent(".git/index.lock")
    try Data().write(to: lock)
    try write("a.md", "a2\n")

    XCTAssertThrowsError(try repo.commit(paths: ["a.md"], message: "two")) { error in
      let gitError = error as? GitError
      XCTAssertEqual(gitError?.isLocked, true, "\(error)")
      XCTAssertEqual(gitError?.code, -14)
    }
    XCTAssertTrue(FileManager.default.fileExists(atPath: lock.path))
    XCTAssertEqual(try repo.headCommitID(), first)
    XCTAssertEqual(try commitCount(), 1)

    try FileManager.default.removeItem(at: lock)
    XCTAssertNotNil(try repo.commit(paths: ["a.md"], message: "two"))
    XCTAssertEqual(try git.logSubjects(), ["two", "one"])
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testFailedBranchUpdateLeavesNothingStaged() throws {
    try assertFailedBranchUpdateLeavesNothingStaged(try makeRepository())
  }

  func testFailedBranchUpdateLeavesNothingStagedThroughLibgit2sIndex() throws {
    let repo = try makeRepository()
    // The byte patcher leaves core.filemode=false to libgit2, so this commit stages through libgit2's index.
    try repo.setConfig("core.filemode", "false")
    let store = CountingIndexFileStore.attached(to: repo)
    try assertFailedBranchUpdateLeavesNothingStaged(repo)
    XCTAssertEqual(store.writes, 0, "libgit2 wrote every index")
  }

  /// A commit whose last step (the branch update) fails leaves the index as it was; the retry then commits.
  private func assertFailedBranchUpdateLeavesNothingStaged(_ repo: Repository) throws {
    try write("a.md", "a1\n")
    let first = try repo.commit(paths: ["a.md"], message: "one")
    // A held ref lock makes only the last step fail, after the index was written.
    let refLock = workTree.appendingPathComponent(".git/refs/heads/main.lock")
    try Data().write(to: refLock)
    try write("a.md", "a2\n")
    try write("new.md", "new\n")

    XCTAssertThrowsError(try repo.commit(paths: ["a.md", "new.md"], message: "two"))
    XCTAssertEqual(try repo.headCommitID(), first)
    // Work tree changed, index as before: unstaged modification and an untracked file, nothing staged.
    XCTAssertEqual(try git.statusPorcelain(), " M a.md\n?? new.md\n")

    try FileManager.default.removeItem(at: refLock)
    XCTAssertNotNil(try repo.commit(paths: ["a.md", "new.md"], message: "two"))
    XCTAssertEqual(try git.statusPorcelain(), "")
    try git.fsck()
  }

  func testInvalidPathsAreRejected() throws {
    let repo = try makeRepository()
    for bad in ["", "/abs.md", "../out.md", "a/../b.md", ".git/config", "a//b.md"] {
      XCTAssertThrowsError(try repo.commit(paths: [bad], message: "bad"), bad)
    }
    try write("dir/x.md", "x")
    XCTAssertThrowsError(try repo.commit(paths: ["dir"], message: "dir"))
    XCTAssertTrue(repo.isHeadUnborn)
  }

  func testCommitPicksUpIndexWrittenByGitMeanwhile() throws {
    let repo = try makeRepository()
    try write("a.md", "a\n")
    try repo.commit(paths: ["a.md"], message: "one")
    // Another tool rewrites the index between our calls; the cached index must notice.
    try write("b.md", "b\n")
    try git.run("add", "b.md")
    try git.run("commit", "-q", "-m", "by git")
    try write("a.md", "a2\n")
    try repo.commit(paths: ["a.md"], message: "three")
    XCTAssertEqual(try git.logSubjects(), ["three", "by git", "one"])
    XCTAssertEqual(lines(try git.run("ls-tree", "-r", "--name-only", "HEAD")), ["a.md", "b.md"])
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertEqual(try repo.indexPaths(), ["a.md", "b.md"])
  }

  func testCommitWithExplicitAuthor() throws {
    let repo = try makeRepository()
    try write("a.md", "a\n")
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let author = Signature(
      name: "Ada Lovelace", email: "ada@example.org", date: date, timeZone: TimeZone(secondsFromGMT: 19800)!)
    let id = try XCTUnwrap(try repo.commit(paths: ["a.md"], message: "by ada", author: author))
    // 1_700_000_000 is 2023-11-14T22:13:20Z, i.e. 2023-11-15T03:43:20 at +05:30.
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%an|%ae|%at|%aI|%cn"),
      "Ada Lovelace|ada@example.org|1700000000|2023-11-15T03:43:20+05:30|Test User\n")
    let commit = try repo.commit(id)
    XCTAssertEqual(commit.author, author)
    XCTAssertEqual(commit.committer.name, "Test User")
  }

  func testCommitKeepsExecutableBitAndSymlinks() throws {
    let repo = try makeRepository()
    try write("run.sh", "#!/bin/sh\n")
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o755], ofItemAtPath: workTree.appendingPathComponent("run.sh").path)
    try FileManager.default.createSymbolicLink(
      atPath: workTree.appendingPathComponent("link.md").path, withDestinationPath: "run.sh")
    try repo.commit(paths: ["run.sh", "link.md"], message: "modes")
    XCTAssertEqual(
      lines(try git.run("ls-tree", "HEAD")).map { String($0.prefix(6)) + " " + ($0.split(separator: "\t").last ?? "") },
      ["120000 link.md", "100755 run.sh"])
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testCommitOnDetachedHeadMovesHead() throws {
    let repo = try makeRepository()
    try write("a.md", "a\n")
    let first = try XCTUnwrap(try repo.commit(paths: ["a.md"], message: "one"))
    try git.run("checkout", "-q", "--detach")
    XCTAssertTrue(repo.isHeadDetached)
    XCTAssertNil(repo.currentBranch)
    XCTAssertEqual(try repo.headCommitID(), first)
    try write("a.md", "a2\n")
    let second = try XCTUnwrap(try repo.commit(paths: ["a.md"], message: "detached"))
    XCTAssertEqual(try git.revParse("HEAD"), second.hex)
    XCTAssertEqual(try git.revParse("main"), first.hex)
  }

  // MARK: state

  func testMergeConflictIsDetected() throws {
    let repo = try makeRepository()
    try write("a.md", "base\n")
    try repo.commit(paths: ["a.md"], message: "base")
    try git.run("checkout", "-q", "-b", "other")
    try write("a.md", "theirs\n")
    try git.run("commit", "-q", "-am", "theirs")
    try git.run("checkout", "-q", "main")
    try write("a.md", "ours\n")
    try repo.commit(paths: ["a.md"], message: "ours")
    XCTAssertFalse(try repo.hasConflicts())

    let merge = try git.result(["merge", "other"])
    XCTAssertFalse(merge.succeeded)
    XCTAssertEqual(repo.state, .merge)
    XCTAssertTrue(try repo.hasConflicts())
    XCTAssertEqual(try repo.status(), [StatusEntry(path: "a.md", staged: .conflicted, unstaged: .conflicted)])
    XCTAssertEqual(try repo.indexPaths(), ["a.md"])

    try git.run("merge", "--abort")
    XCTAssertEqual(repo.state, RepositoryState.none)
    XCTAssertFalse(try repo.hasConflicts())
  }

  func testDetachedHead() throws {
    let repo = try makeRepository()
    try write("a.md", "a\n")
    try repo.commit(paths: ["a.md"], message: "one")
    XCTAssertFalse(repo.isHeadDetached)
    try git.run("checkout", "-q", "--detach")
    XCTAssertTrue(repo.isHeadDetached)
    XCTAssertNil(repo.currentBranch)
    try git.run("checkout", "-q", "main")
    XCTAssertFalse(repo.isHeadDetached)
    XCTAssertEqual(repo.currentBranch, "main")
  }

  // MARK: status

  func testStatusEntries() throws {
    let repo = try makeRepository()
    try write(".gitignore", "*.tmp\n")
    try write("modified.md", "m1\n")
    try write("deleted.md", "d\n")
    try write("staged.md", "s1\n")
    try write("both.md", "b1\n")
    try repo.commit(paths: [".gitignore", "modified.md", "deleted.md", "staged.md", "both.md"], message: "base")

    try write("modified.md", "m2\n")
    try remove("deleted.md")
    try write("staged.md", "s2\n")
    try write("both.md", "b2\n")
    try write("added.md", "new\n")
    try git.run("add", "staged.md", "both.md", "added.md")
    try write("both.md", "b3\n")
    try write("untracked/deep/u.md", "u\n")
    try write("junk.tmp", "ignored\n")

    // By hand, matching `git status --porcelain` (checked below): X = staged, Y = unstaged.
    let expected = [
      StatusEntry(path: "added.md", staged: .added, unstaged: nil),
      StatusEntry(path: "both.md", staged: .modified, unstaged: .modified),
      StatusEntry(path: "deleted.md", staged: nil, unstaged: .deleted),
      StatusEntry(path: "modified.md", staged: nil, unstaged: .modified),
      StatusEntry(path: "staged.md", staged: .modified, unstaged: nil),
      StatusEntry(path: "untracked/deep/u.md", staged: nil, unstaged: .added),
    ]
    XCTAssertEqual(try repo.status(), expected)
    XCTAssertEqual(
      try git.statusPorcelain(),
      "A  added.md\nMM both.md\n D deleted.md\n M modified.md\nM  staged.md\n?? untracked/deep/u.md\n")

    XCTAssertEqual(try repo.status(paths: ["both.md"]), [expected[1]])
    XCTAssertEqual(try repo.status(paths: ["untracked"]), [expected[5]])
    XCTAssertEqual(try repo.status(paths: ["*.md"]).count, 6)
    XCTAssertEqual(try repo.status(paths: ["junk.tmp"]), [])
  }

  func testStatusOfCleanRepositoryIsEmpty() throws {
    let repo = try makeRepository()
    XCTAssertEqual(try repo.status(), [])
    try write("a.md", "a\n")
    try repo.commit(paths: ["a.md"], message: "one")
    XCTAssertEqual(try repo.status(), [])
  }

  // MARK: history

  func testLogIsNewestFirstAndMatchesGit() throws {
    let repo = try makeRepository()
    var ids: [ObjectID] = []
    for i in 1...4 {
      try write("n\(i).md", "\(i)\n")
      let date = Date(timeIntervalSince1970: TimeInterval(1_600_000_000 + i * 60))
      let author = Signature(name: "A", email: "a@example.com", date: date, timeZone: TimeZone(secondsFromGMT: 0)!)
      ids.append(try XCTUnwrap(try repo.commit(paths: ["n\(i).md"], message: "commit \(i)", author: author)))
    }
    let log = Array(try repo.log())
    XCTAssertEqual(log.map(\.id), Array(ids.reversed()))
    XCTAssertEqual(log.map(\.id.hex), lines(try git.run("rev-list", "HEAD")))
    XCTAssertEqual(log.map(\.summary), try git.logSubjects())
    XCTAssertEqual(log.map(\.parents), [[ids[2]], [ids[1]], [ids[0]], []])
    XCTAssertEqual(log.last?.message, "commit 1\n")
    XCTAssertEqual(log.first?.tree.hex, try git.revParse("HEAD^{tree}"))

    XCTAssertEqual(Array(try repo.log(from: ids[1])).map(\.id), [ids[1], ids[0]])
    // Lazy: taking a prefix does not need the whole walk, and a sequence can be iterated twice.
    let sequence = try repo.log()
    XCTAssertEqual(Array(sequence.prefix(1)).map(\.id), [ids[3]])
    XCTAssertEqual(Array(sequence).count, 4)
    XCTAssertThrowsError(try repo.log(from: ObjectID(hex: String(repeating: "ab", count: 20))!))
  }

  func testLogIncludesMergedHistoryInTopologicalOrder() throws {
    let repo = try makeRepository()
    try write("a.md", "a\n")
    try repo.commit(paths: ["a.md"], message: "base")
    try git.run("checkout", "-q", "-b", "side")
    try write("side.md", "s\n")
    try git.run("add", "side.md")
    try git.run("commit", "-q", "-m", "side")
    try git.run("checkout", "-q", "main")
    try write("main.md", "m\n")
    try repo.commit(paths: ["main.md"], message: "main")
    try git.run("merge", "-q", "--no-edit", "side")
    let subjects = try repo.log().map(\.summary)
    XCTAssertEqual(subjects.first, "Merge branch 'side'")
    XCTAssertEqual(subjects.last, "base")
    XCTAssertEqual(Set(subjects), ["Merge branch 'side'", "side", "main", "base"])
    XCTAssertEqual(try repo.commit(try repo.headCommitID()!).parents.count, 2)
  }

  func testChangesWithAddModifyDeleteAndRename() throws {
    let repo = try makeRepository()
    let long = (1...40).map { "line \($0) of a note that is long enough to compare" }.joined(separator: "\n") + "\n"
    try write("a.md", long)
    try write("b.md", "b\n")
    try write("gone.md", "bye\n")
    let root = try XCTUnwrap(try repo.commit(paths: ["a.md", "b.md", "gone.md"], message: "root"))
    XCTAssertEqual(
      try repo.changes(in: root),
      try ["a.md", "b.md", "gone.md"].map { (path: String) in
        TreeChange(
          kind: .added, oldPath: nil, newPath: path, oldBlob: nil,
          newBlob: ObjectID(hex: try git.revParse("HEAD:\(path)")))
      })

    try FileManager.default.createDirectory(
      at: workTree.appendingPathComponent("moved"), withIntermediateDirectories: true)
    try git.run("mv", "a.md", "moved/renamed.md")
    try write("b.md", "b2\n")
    try git.run("rm", "-q", "gone.md")
    try git.run("commit", "-q", "-am", "rename and friends")
    let head = try XCTUnwrap(try repo.headCommitID())
    // Oracle: git's own rename detection.
    XCTAssertEqual(Set(try nameStatus()), ["R100\ta.md\tmoved/renamed.md", "M\tb.md", "D\tgone.md"])
    let changes = try repo.changes(in: head)
    let blobA = ObjectID(hex: try git.revParse("HEAD:moved/renamed.md"))
    XCTAssertEqual(
      Set(changes.map { "\($0.kind) \($0.oldPath ?? "-") \($0.newPath ?? "-")" }),
      ["renamed a.md moved/renamed.md", "modified b.md b.md", "deleted gone.md -"])
    XCTAssertEqual(changes.first { $0.kind == .renamed }?.oldBlob, blobA)
    XCTAssertEqual(changes.first { $0.kind == .renamed }?.newBlob, blobA)
    XCTAssertEqual(changes.first { $0.kind == .modified }?.oldBlob, ObjectID(hex: try git.revParse("HEAD^:b.md")))
    XCTAssertEqual(changes.first { $0.kind == .deleted }?.newBlob, nil)
    XCTAssertEqual(changes.first { $0.kind == .deleted }?.oldBlob, ObjectID(hex: try git.revParse("HEAD^:gone.md")))
  }

  func testRenameWithSmallEditIsStillARename() throws {
    let repo = try makeRepository()
    let text = (1...30).map { "paragraph \($0) with some words in it" }.joined(separator: "\n") + "\n"
    try write("old.md", text)
    try repo.commit(paths: ["old.md"], message: "one")
    try remove("old.md")
    try write("new.md", text + "one more line\n")
    let id = try XCTUnwrap(try repo.commit(paths: ["old.md", "new.md"], message: "rename with edit"))
    XCTAssertTrue(try nameStatus().first?.hasPrefix("R0") == true || (try nameStatus().first?.hasPrefix("R9") == true))
    let changes = try repo.changes(in: id)
    XCTAssertEqual(changes.count, 1)
    XCTAssertEqual(changes.first?.kind, .renamed)
    XCTAssertEqual(changes.first?.oldPath, "old.md")
    XCTAssertEqual(changes.first?.newPath, "new.md")
  }

  func testBlobIDAndBlob() throws {
    let repo = try makeRepository()
    let bytes = Data([0x68, 0x69, 0x0D, 0x0A, 0x00, 0xFF, 0x0A])
    let url = workTree.appendingPathComponent("notes/raw.bin")
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try bytes.write(to: url)
    try write("empty.md", "")
    let head = try XCTUnwrap(try repo.commit(paths: ["notes/raw.bin", "empty.md"], message: "blobs"))

    let id = try XCTUnwrap(try repo.blobID(at: "notes/raw.bin", in: head))
    XCTAssertEqual(id.hex, try git.revParse("HEAD:notes/raw.bin"))
    XCTAssertEqual(id.hex, try git.run("hash-object", "notes/raw.bin").trimmingCharacters(in: .newlines))
    XCTAssertEqual(try repo.blob(id), bytes)
    let empty = try XCTUnwrap(try repo.blobID(at: "empty.md", in: head))
    XCTAssertEqual(empty.hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
    XCTAssertEqual(try repo.blob(empty), Data())
    XCTAssertNil(try repo.blobID(at: "absent.md", in: head))
    XCTAssertNil(try repo.blobID(at: "notes/absent/x.md", in: head))
    XCTAssertNil(try repo.blobID(at: "notes", in: head), "a directory is not a blob")
    XCTAssertThrowsError(try repo.blob(ObjectID(hex: String(repeating: "0", count: 39) + "1")!))
  }

  func testIndexPathsMatchLsFiles() throws {
    let repo = try makeRepository()
    XCTAssertEqual(try repo.indexPaths(), [])
    for path in ["z.md", "a/b.md", "a.md", "a-b.md", "m/n/o.md"] { try write(path, path) }
    try repo.commit(paths: ["z.md", "a/b.md", "a.md"], message: "some")
    try git.run("add", "a-b.md", "m/n/o.md")
    XCTAssertEqual(try repo.indexPaths(), lines(try git.run("ls-files")).sorted())
    XCTAssertEqual(try repo.indexPaths(), ["a-b.md", "a.md", "a/b.md", "m/n/o.md", "z.md"])
  }

  // MARK: config

  func testConfigReadWriteAndFallbackToGlobal() throws {
    let repo = try makeRepository()
    // Nothing local yet: the isolated global config (HOME/.gitconfig) answers.
    XCTAssertEqual(repo.config("user.name"), GitCLI.userName)
    XCTAssertNil(repo.config("nb.unset"))
    try repo.setConfig("user.name", "Local Name")
    try repo.setConfig("nb.device", "laptop")
    XCTAssertEqual(try git.run("config", "--local", "user.name"), "Local Name\n")
    XCTAssertEqual(try git.run("config", "--local", "nb.device"), "laptop\n")
    XCTAssertEqual(repo.config("user.name"), "Local Name")
    XCTAssertEqual(repo.config("nb.device"), "laptop")
    // A value written by git after we opened the repository is seen without reopening.
    try git.run("config", "--local", "nb.device", "desktop")
    XCTAssertEqual(repo.config("nb.device"), "desktop")
    try repo.setConfig("nb.device", "laptop")
    // A reopened repository reads it back from disk.
    XCTAssertEqual(try Repository.open(at: workTree).config("nb.device"), "laptop")

    let signature = repo.defaultSignature(date: Date(timeIntervalSince1970: 42))
    XCTAssertEqual(signature.name, "Local Name")
    XCTAssertEqual(signature.email, GitCLI.userEmail)
    XCTAssertEqual(signature.date, Date(timeIntervalSince1970: 42))
  }

  /// The signature's offset is the one in effect at its date where the process runs (`TZ`), read through libc;
  /// Foundation's zone of the same name is the oracle, and git's own reading of the commit agrees.
  func testDefaultSignatureTakesTheOffsetOfTheProcesssZoneAtItsDate() throws {
    let repo = try makeRepository()
    let saved = getenv("TZ").map { String(cString: $0) }
    defer {
      if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
      tzset()
    }
    // Winter and summer of 2026: a zone that keeps half hours, one with daylight saving, one a quarter hour off.
    let dates = [1_767_225_600.0, 1_782_864_000.0].map { Date(timeIntervalSince1970: $0) }
    for name in ["Asia/Kolkata", "America/St_Johns", "Asia/Kathmandu", "UTC"] {
      setenv("TZ", name, 1)
      tzset()
      let zone = try XCTUnwrap(TimeZone(identifier: name))
      for date in dates {
        XCTAssertEqual(
          repo.defaultSignature(date: date).timeZoneOffsetMinutes * 60, zone.secondsFromGMT(for: date),
          "\(name) at \(date)")
      }
    }
    setenv("TZ", "America/St_Johns", 1)
    tzset()
    try write("a.md", "a\n")
    let signature = repo.defaultSignature(date: dates[1])
    try repo.commit(paths: ["a.md"], message: "zone", author: signature)
    XCTAssertEqual(try git.run("log", "-1", "--format=%ad", "--date=format:%z"), "-0230\n")
  }

  func testDefaultSignatureFallsBackToNbAtHost() throws {
    try LibGit2.setConfigSearchPath(temp.directory("no-identity").path, for: .global)
    let repo = try makeRepository()
    XCTAssertNil(repo.config("user.name"))
    let signature = repo.defaultSignature()
    XCTAssertEqual(signature.name, "nb")
    XCTAssertEqual(signature.email, "nb@\(ProcessInfo.processInfo.hostName)")
    try write("a.md", "a\n")
    try repo.commit(paths: ["a.md"], message: "anon")
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%an <%ae>"), "nb <nb@\(ProcessInfo.processInfo.hostName)>\n")
    try git.fsck()
  }
}

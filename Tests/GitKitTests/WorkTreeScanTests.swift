import Foundation
import NBTestSupport
import XCTest

import CLibGit2
@testable import GitKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The stat-trusting status walk (`scanWorkTree`) against libgit2's status and the git CLI, and the cache tree
/// `commit(paths:)` leaves behind.
final class WorkTreeScanTests: GitKitTestCase {
  private var repo: Repository!

  override func setUpWithError() throws {
    try super.setUpWithError()
    repo = try makeRepository()
    for path in ["a.md", "b.md", "dir/c.md", "dir/sub/d.md", "dir/sub/e.md", "other/f.md", "z.md", "dir.md"] {
      try write(path, "text of \(path)\n")
    }
    try write(".gitignore", "*.tmp\nignored/\n")
    try repo.commit(
      paths: ["a.md", "b.md", "dir/c.md", "dir/sub/d.md", "dir/sub/e.md", "other/f.md", "z.md", "dir.md", ".gitignore"],
      message: "seed")
    // Written a moment after the files: none is racy unless a test makes it so.
    try setIndexTime(secondsFromNow: 10)
  }

  private func setIndexTime(secondsFromNow seconds: Int) throws {
    var times = [timespec(tv_sec: time(nil) + seconds, tv_nsec: 0), timespec(tv_sec: time(nil) + seconds, tv_nsec: 0)]
    XCTAssertEqual(utimensat(AT_FDCWD, workTree.appendingPathComponent(".git/index").path, &times, 0), 0)
  }

  /// The walk answers, and says what libgit2 says.
  private func assertAgrees(file: StaticString = #filePath, line: UInt = #line) throws {
    let scan = try XCTUnwrap(try repo.scanWorkTree(), "the walk declined", file: file, line: line)
    XCTAssertEqual(scan.entries, try repo.libgit2Status(), file: file, line: line)
  }

  func testCommitLeavesAValidCacheTreeThatGitAgreesWith() throws {
    XCTAssertNotNil(try repo.scanWorkTree())
    XCTAssertEqual(try repo.scanWorkTree()?.entries, [])
    // git write-tree trusts a valid cache tree: it must name the tree a fresh index of the same entries gives.
    XCTAssertEqual(try git.run("write-tree"), try freshWriteTree())
    XCTAssertEqual(try git.run("write-tree"), try git.run("rev-parse", "HEAD^{tree}"))
    // A commit of a subset while something else is staged: only the directories equal to HEAD stay valid.
    try write("other/g.md", "staged by git\n")
    try git.run("add", "other/g.md")
    try write("dir/sub/d.md", "changed\n")
    try repo.commit(paths: ["dir/sub/d.md"], message: "one")
    XCTAssertEqual(try git.run("write-tree"), try freshWriteTree())
    XCTAssertEqual(try git.statusPorcelain(), "A  other/g.md\n")
    // Something is staged, so HEAD's tree is not the index's: the walk leaves that to libgit2.
    XCTAssertNil(try repo.scanWorkTree())
    XCTAssertEqual(try repo.status().map(\.path), ["other/g.md"])
    try repo.commit(paths: ["other/g.md"], message: "two")
    XCTAssertEqual(try repo.scanWorkTree()?.entries, [])
    XCTAssertEqual(try git.run("write-tree"), try git.run("rev-parse", "HEAD^{tree}"))
    try git.fsck()
  }

  /// libgit2's checkout writes the index without a cache tree; `checkoutSafely` (a sync's fast-forward or merge, a
  /// clone) must leave one that is valid and right, or every later status pays libgit2's whole comparison — and a
  /// wrong one would make git commit the wrong tree.
  func testCheckoutLeavesAValidCacheTreeThatGitAgreesWith() throws {
    let first = try XCTUnwrap(try repo.headCommitID())
    // A second commit made by git, so that the index nb reads afterwards is git's; then back to the first.
    try write("dir/sub/d.md", "changed by the remote\n")
    try write("other/new.md", "added by the remote\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "remote")
    let second = try XCTUnwrap(
      ObjectID(hex: try git.run("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)))
    try git.run("reset", "-q", "--hard", first.hex)

    XCTAssertEqual(try repo.checkoutSafely(second, expected: first, message: "fast-forward"), .checkedOut)
    let scan = try XCTUnwrap(try repo.scanWorkTree(), "the walk answers after a checkout")
    XCTAssertEqual(scan.entries, [])
    XCTAssertEqual(scan.tree.hex, try git.run("rev-parse", "HEAD^{tree}").trimmingCharacters(in: .whitespacesAndNewlines))
    XCTAssertEqual(try git.run("write-tree"), try freshWriteTree())
    XCTAssertEqual(try git.run("write-tree"), try git.run("rev-parse", "HEAD^{tree}"))
    // A file edited at once after the checkout (same size, same second) is still seen as changed.
    try write("other/new.md", "added by the remotX\n")
    try assertAgrees()
    XCTAssertEqual(try repo.scanWorkTree()?.entries.map(\.path), ["other/new.md"])
    XCTAssertEqual(try git.statusPorcelain(), " M other/new.md\n")
    try git.fsck()
  }

  /// A rewrite that records no newer stat data keeps the old file's mtime, set on the lock file before the rename.
  func testAnIndexRewriteCanKeepTheOldModificationTime() throws {
    let path = workTree.appendingPathComponent(".git/index").path
    let store = IndexFileStore()
    guard case .success(let loaded) = store.load(path) else { return XCTFail("the index did not load") }
    try store.write(
      path, loaded.snapshot.bytes, checkpoints: loaded.snapshot.checkpoints,
      keepingModificationTime: (1_700_000_000, 123))
    var info = stat()
    XCTAssertEqual(stat(path, &info), 0)
    XCTAssertEqual(info.st_mtim.tv_sec, 1_700_000_000)
    XCTAssertEqual(info.st_mtim.tv_nsec, 123)
    XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".lock"))
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testChangesOfEveryKindAgreeWithLibgit2() throws {
    try assertAgrees()
    try write("a.md", "text of a.mX\n")  // same size, new content
    try write("b.md", "longer text of b.md\n")
    try remove("dir/sub/e.md")
    try remove("other/f.md")
    try write("new.md", "new\n")
    try write("dir/new.md", "new\n")
    try write("untracked/one.md", "1\n")
    try write("untracked/deeper/two.md", "2\n")
    try write("untracked/skip.tmp", "ignored\n")
    try write("ignored/three.md", "ignored dir\n")
    try write("dir/sub/x.tmp", "ignored\n")
    try FileManager.default.createDirectory(
      at: workTree.appendingPathComponent("empty/nested"), withIntermediateDirectories: true)
    XCTAssertEqual(chmod(workTree.appendingPathComponent("z.md").path, 0o755), 0)
    try remove("dir.md")
    XCTAssertEqual(symlink("a.md", workTree.appendingPathComponent("dir.md").path), 0)
    XCTAssertEqual(symlink("missing", workTree.appendingPathComponent("link").path), 0)
    try assertAgrees()
    let paths = try XCTUnwrap(try repo.scanWorkTree()).entries.map(\.path)
    XCTAssertEqual(
      paths,
      [
        "a.md", "b.md", "dir.md", "dir/new.md", "dir/sub/e.md", "link", "new.md", "other/f.md", "untracked/deeper/two.md",
        "untracked/one.md", "z.md",
      ])
  }

  func testStatChangeWithoutContentChangeIsCleanAfterHashing() throws {
    // A rewrite with the same bytes moves mtime and ctime (and the inode): the walk hashes it and finds no change.
    try write("dir/c.md", "text of dir/c.md\n")
    let scan = try XCTUnwrap(try repo.scanWorkTree())
    XCTAssertEqual(scan.entries, [])
    XCTAssertEqual(scan.hashed, 1)
  }

  private func indexModificationTime() -> timespec {
    var info = stat()
    XCTAssertEqual(stat(workTree.appendingPathComponent(".git/index").path, &info), 0)
    return info.st_mtim
  }

  /// A rewrite with the same bytes and a touch change a file's stat data and not its bytes: the walk hashes them,
  /// and `writeRefreshedIndex` records their new stat data just as git reads them back, so that the next walk
  /// trusts them. The changed file and every other entry keep what they had, and so does the index's mtime.
  func testStaleStatDataOfUnchangedFilesAreRecordedAsGitReadsThem() throws {
    for version in ["2", "4"] {
      try git.run("update-index", "--index-version", version)
      try setIndexTime(secondsFromNow: 10)
      let paths = ["a.md", "b.md", "dir/c.md", "dir/sub/d.md", "dir/sub/e.md", "other/f.md", "z.md", "dir.md"]
      var before: [String: String] = [:]
      for path in paths { before[path] = try git.indexStat(path) }
      try write("dir/c.md", "text of dir/c.md\n")  // same bytes: new inode, mtime and ctime
      var touched = [timespec(tv_sec: time(nil) - 3, tv_nsec: 0), timespec(tv_sec: time(nil) - 3, tv_nsec: 7)]
      XCTAssertEqual(utimensat(AT_FDCWD, workTree.appendingPathComponent("b.md").path, &touched, 0), 0)
      try write("a.md", version == "2" ? "text of a.mX\n" : "text of a.mY\n")  // same size, new bytes
      // In another second: git (built without USE_NSEC, as Debian's is) compares whole seconds only.
      var earlier = [timespec(tv_sec: time(nil) - 2, tv_nsec: 0), timespec(tv_sec: time(nil) - 2, tv_nsec: 0)]
      XCTAssertEqual(utimensat(AT_FDCWD, workTree.appendingPathComponent("a.md").path, &earlier, 0), 0)
      let indexTime = indexModificationTime()

      let scan = try XCTUnwrap(try repo.scanWorkTree())
      XCTAssertEqual(scan.entries, [StatusEntry(path: "a.md", staged: nil, unstaged: .modified)])
      XCTAssertEqual(scan.hashed, 3)
      XCTAssertEqual(scan.refreshable, 2)
      XCTAssertTrue(scan.writeRefreshedIndex())

      XCTAssertEqual(try git.indexStat("dir/c.md"), git.workTreeStat("dir/c.md"), "version \(version)")
      XCTAssertEqual(try git.indexStat("b.md"), git.workTreeStat("b.md"), "version \(version)")
      XCTAssertNotEqual(try git.indexStat("b.md"), before["b.md"])
      for path in paths where path != "dir/c.md" && path != "b.md" {
        XCTAssertEqual(try git.indexStat(path), before[path], path)
      }
      XCTAssertEqual(indexModificationTime().tv_sec, indexTime.tv_sec)
      XCTAssertEqual(indexModificationTime().tv_nsec, indexTime.tv_nsec)
      XCTAssertFalse(FileManager.default.fileExists(atPath: workTree.appendingPathComponent(".git/index.lock").path))
      // git reads the file (its checksum, its version) and finds what the walk found; the cache tree is intact.
      XCTAssertEqual(try git.run("--no-optional-locks", "diff-files", "--name-only"), "a.md\n")
      XCTAssertEqual(try git.run("write-tree"), try git.run("rev-parse", "HEAD^{tree}"))
      let next = try XCTUnwrap(try repo.scanWorkTree())
      XCTAssertEqual(next.entries, scan.entries)
      XCTAssertEqual(next.hashed, 1)
      XCTAssertEqual(next.refreshable, 0)
      XCTAssertFalse(next.writeRefreshedIndex())
      try git.run("checkout", "--", "a.md")
    }
  }

  /// A file modified at or after the index was written could change again within the same tick after the walk read
  /// it: its stat data are not recorded, as git leaves such an entry to be compared by content next time too.
  func testStatDataOfAFileNewerThanTheIndexAreNotRecorded() throws {
    try setIndexTime(secondsFromNow: -100)
    try write("dir/c.md", "text of dir/c.md\n")
    let before = try Data(contentsOf: workTree.appendingPathComponent(".git/index"))
    let scan = try XCTUnwrap(try repo.scanWorkTree())
    XCTAssertEqual(scan.entries, [])
    // Every file is newer than the index: all are racy, so all are hashed.
    XCTAssertEqual(scan.hashed, 9)
    XCTAssertEqual(scan.refreshable, 0)
    XCTAssertFalse(scan.writeRefreshedIndex())
    XCTAssertEqual(try Data(contentsOf: workTree.appendingPathComponent(".git/index")), before)
  }

  /// The write is opportunistic, as git's is: a taken `index.lock` or an index another writer replaced since the
  /// walk read it leaves everything as it is.
  func testARefreshGivesWayToALockAndToANewerIndex() throws {
    try write("dir/c.md", "text of dir/c.md\n")
    let scan = try XCTUnwrap(try repo.scanWorkTree())
    XCTAssertEqual(scan.refreshable, 1)
    let lock = workTree.appendingPathComponent(".git/index.lock")
    try Data("someone else's".utf8).write(to: lock)
    let before = try Data(contentsOf: workTree.appendingPathComponent(".git/index"))
    XCTAssertFalse(scan.writeRefreshedIndex())
    XCTAssertEqual(try Data(contentsOf: lock), Data("someone else's".utf8))
    XCTAssertEqual(try Data(contentsOf: workTree.appendingPathComponent(".git/index")), before)
    try FileManager.default.removeItem(at: lock)

    try write("new.md", "staged by git\n")
    try git.run("add", "new.md")
    XCTAssertFalse(scan.writeRefreshedIndex())
    XCTAssertEqual(try git.run("ls-files", "--stage", "--", "new.md").isEmpty, false)
    XCTAssertEqual(try git.run("--no-optional-locks", "diff", "--cached", "--name-only"), "new.md\n")
  }

  func testRacyEntryIsHashedEvenWhenItsStatDataMatch() throws {
    try repo.setConfig("core.trustctime", "false")
    let path = workTree.appendingPathComponent("a.md").path
    var before = stat()
    XCTAssertEqual(lstat(path, &before), 0)
    // Same size, same inode, and the recorded mtime put back: only the content differs.
    let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
    handle.write(Data("TEXT".utf8))
    handle.closeFile()
    var times = [before.st_atim, before.st_mtim]
    XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
    // Not racy (the index was written after the file): the stat data settle it, wrongly but as git does.
    XCTAssertEqual(try repo.scanWorkTree()?.entries, [])
    // Racy: the index written in the same tick as the file, so its stat data cannot be trusted.
    var indexTimes = [before.st_mtim, before.st_mtim]
    XCTAssertEqual(utimensat(AT_FDCWD, workTree.appendingPathComponent(".git/index").path, &indexTimes, 0), 0)
    XCTAssertEqual(
      try repo.scanWorkTree()?.entries, [StatusEntry(path: "a.md", staged: nil, unstaged: .modified)])
  }

  func testDeclinesWhatItDoesNotModel() throws {
    // A file where the index has a directory.
    try remove("other")
    try write("other", "now a file\n")
    XCTAssertNil(try repo.scanWorkTree())
    XCTAssertEqual(try repo.status(), try repo.libgit2Status())
    try remove("other")
    try write("other/f.md", "text of other/f.md\n")
    // A case-insensitive configuration.
    try repo.setConfig("core.ignorecase", "true")
    XCTAssertNil(try repo.scanWorkTree())
  }

  func testListsEachDirectoryOnce() throws {
    try write("untracked/one.md", "1\n")
    try write("ignored/three.md", "ignored dir\n")
    var listed: [String: [String]] = [:]
    _ = try repo.scanWorkTree { directory, names in
      XCTAssertNil(listed[directory])
      listed[directory] = names
    }
    XCTAssertEqual(listed.keys.sorted(), ["", "dir", "dir/sub", "other", "untracked"])
    XCTAssertEqual(listed[""], [".git", ".gitignore", "a.md", "b.md", "dir", "dir.md", "ignored", "other", "untracked", "z.md"])
  }

  /// A listing is sorted by its names' first 16 bytes as integers, and by the rest only where those are equal; an
  /// index's children are re-sorted only where a directory's `/` puts them out of a listing's order. Either going
  /// wrong pairs a file with another's entry: a clean tree would show files deleted and others untracked.
  func testNamesSharingTheirFirstBytesAreMatchedWithTheirOwnEntries() throws {
    let names = [
      "sixteen-bytes-ab", "sixteen-bytes-ab.md", "sixteen-bytes-ab-2.md", "sixteen-bytes-aa.md", "sixteen-bytes-a",
      "a-name-longer-than-sixteen-bytes-2.md", "a-name-longer-than-sixteen-bytes-10.md", "a-name-longer-than-six.md",
      "dir-x.md", "dir+y.md", "zé.md", "ze.md", "z\u{10348}.md", "Z.md", "aaaaaaaab.md", "aaaaaaaa.md",
    ]
    for name in names { try write(name, "text of \(name)\n") }
    try write("dir-x/inner.md", "below a name that is also a file's prefix\n")
    try repo.commit(paths: names + ["dir-x/inner.md"], message: "long names")
    try setIndexTime(secondsFromNow: 10)
    var listed: [String: [String]] = [:]
    XCTAssertEqual(try repo.scanWorkTree { directory, names in listed[directory] = names }?.entries, [])
    let root = try XCTUnwrap(listed[""])
    XCTAssertEqual(root, root.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })

    try write("sixteen-bytes-ab", "now longer than it was\n")
    try remove("sixteen-bytes-ab-2.md")
    try write("a-name-longer-than-sixteen-bytes-10.md", "changed, and longer too\n")
    try write("dir-x/new.md", "new\n")
    try assertAgrees()
    XCTAssertEqual(
      try XCTUnwrap(try repo.scanWorkTree()).entries.map(\.path),
      ["a-name-longer-than-sixteen-bytes-10.md", "dir-x/new.md", "sixteen-bytes-ab", "sixteen-bytes-ab-2.md"])
  }

  func testALargeTreeWalkedOnSeveralThreadsAgrees() throws {
    // Enough entries for the walk to start its threads.
    var paths: [String] = []
    for i in 0..<2_400 {
      let path = "many/d\(i % 40)/s\(i % 7)/n\(i).md"
      try write(path, "note \(i)\n")
      paths.append(path)
    }
    try repo.commit(paths: paths, message: "many")
    try setIndexTime(secondsFromNow: 10)
    XCTAssertEqual(try repo.scanWorkTree()?.entries, [])
    try write("many/d3/s3/n3.md", "changed 3\n")
    try write("many/d5/s5/n5.md", "note 5\n")  // same bytes, new stat data: hashed, unchanged
    try remove("many/d7/s0/n7.md")
    try remove("many/d9")
    try write("many/d1/new/x.md", "new\n")
    try write("many/d2/s2/y.tmp", "ignored\n")
    try assertAgrees()
    var listed: [String] = []
    let scan = try XCTUnwrap(try repo.scanWorkTree { directory, _ in listed.append(directory) })
    XCTAssertEqual(scan.entries.count, 1 + 1 + 60 + 1)
    // The rewritten entry lies past the first checksum checkpoint (64 KiB): the checksum resumes there.
    XCTAssertEqual(scan.refreshable, 1)
    XCTAssertTrue(scan.writeRefreshedIndex())
    XCTAssertEqual(try git.indexStat("many/d5/s5/n5.md"), git.workTreeStat("many/d5/s5/n5.md"))
    // The changed file differs in size: no file is read any more.
    XCTAssertEqual(try XCTUnwrap(try repo.scanWorkTree()).hashed, 0)
    try assertAgrees()
    // Every directory once, each after the one it is in.
    XCTAssertEqual(Set(listed).count, listed.count)
    for (i, directory) in listed.enumerated() where directory.contains("/") {
      let parent = String(directory[..<directory.lastIndex(of: "/")!])
      XCTAssertTrue(listed[..<i].contains(parent), "\(directory) before \(parent)")
    }
  }

  /// The tree git computes from the index's entries alone, ignoring its cache tree.
  private func freshWriteTree() throws -> String {
    let entries = try git.run("ls-files", "-s")
    let index = temp.url.appendingPathComponent("fresh-index").path
    try? FileManager.default.removeItem(atPath: index)
    let info = entries.split(separator: "\n").map { line -> String in
      // "<mode> <id> <stage>\t<path>" -> "<mode> <id>\t<path>" (update-index --index-info)
      let tab = line.firstIndex(of: "\t")!
      let fields = line[..<tab].split(separator: " ")
      return "\(fields[0]) \(fields[1])\t\(line[line.index(after: tab)...])"
    }.joined(separator: "\n") + "\n"
    var environment = git.environment
    environment["GIT_INDEX_FILE"] = index
    func run(_ arguments: [String], stdin: Data? = nil) throws -> String {
      let result = try ProcessRunner.run(
        "git", arguments: ["-C", workTree.path] + arguments, environment: environment, stdin: stdin)
      XCTAssertTrue(result.succeeded, result.stderr)
      return result.stdout
    }
    _ = try run(["update-index", "--index-info"], stdin: Data(info.utf8))
    return try run(["write-tree"])
  }
}

/// Large commits write their blobs as pack files (`PackWriter`) instead of a loose file each.
final class PackedCommitTests: GitKitTestCase {
  func testManyFilesLandInAPackThatGitReads() throws {
    let repo = try makeRepository()
    var paths: [String] = []
    var rng = SplitMix64(seed: 11)
    for i in 0..<(Repository.packThreshold + 40) {
      let path = "n\(i % 7)/note-\(i).md"
      try write(path, "note \(i % 50)\n" + String(repeating: "text \(i) ", count: i % 30))
      paths.append(path)
    }
    // Incompressible content larger than the probe (stored blocks) and around its size, an empty file, a
    // duplicate, a symlink and an executable.
    let noise = Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &rng) })
    try noise.write(to: workTree.appendingPathComponent("photo.jpg"))
    for size in [8 * 1024 - 1, 8 * 1024, 8 * 1024 + 1, 20_000] {
      try noise.prefix(size).write(to: workTree.appendingPathComponent("noise-\(size).png"))
      paths.append("noise-\(size).png")
    }
    try write("empty.md", "")
    try write("copy.md", "note 1\n" + String(repeating: "text 1 ", count: 1))
    XCTAssertEqual(symlink("n0/note-0.md", workTree.appendingPathComponent("link.md").path), 0)
    try write("run.sh", "#!/bin/sh\n")
    XCTAssertEqual(chmod(workTree.appendingPathComponent("run.sh").path, 0o755), 0)
    paths += ["photo.jpg", "empty.md", "copy.md", "link.md", "run.sh"]
    try repo.commit(paths: paths, message: "adopt")

    try git.fsck()
    XCTAssertEqual(try git.statusPorcelain(), "")
    let packs = try FileManager.default.contentsOfDirectory(atPath: workTree.appendingPathComponent(".git/objects/pack").path)
    XCTAssertEqual(packs.filter { $0.hasSuffix(".idx") }.count, 1, "\(packs)")
    let verify = try git.run("verify-pack", "-v", ".git/objects/pack/" + packs.first { $0.hasSuffix(".idx") }!)
    XCTAssertTrue(verify.contains("ok"), verify)
    // Every blob git would have made, with the same ids.
    for path in paths where path != "link.md" {
      XCTAssertEqual(
        try git.run("rev-parse", "HEAD:\(path)"), try git.run("hash-object", path), path)
    }
    XCTAssertEqual(try git.run("cat-file", "-p", "HEAD:link.md"), "n0/note-0.md")
    XCTAssertEqual(try git.run("ls-tree", "HEAD", "run.sh").prefix(6), "100755")
    XCTAssertEqual(try git.result(["cat-file", "blob", "HEAD:photo.jpg"]).stdoutData, noise)
  }

  /// A photo of a few tens of KiB is judged by its first 8 KiB and stored from there, not deflated whole (zlib's
  /// fastest level deflates random bytes at half the speed of text: most of an adoption's CPU, for nothing);
  /// text goes on being deflated, and content no longer than the probe is deflated whole.
  func testIncompressibleBlobsAreStoredAfterASmallProbe() throws {
    var rng = SplitMix64(seed: 5)
    let noise = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
    let text = Array(String(repeating: "a line of a note, said again and again\n", count: 600).utf8)
    let stream = try XCTUnwrap(Zlib.shared.flatMap { Zlib.Stream($0, level: 1) })
    var out: [UInt8] = []
    for (content, stored) in [(noise, 1), (text, 1), (Array(noise.prefix(8 * 1024)), 1), (noise, 2)] {
      try content.withUnsafeBytes { try stream.compress($0, into: &out, storeIfIncompressible: true, probe: 8 * 1024) }
      XCTAssertEqual(stream.storedAfterProbe, stored)
    }
    XCTAssertLessThan(out.count, 3 * noise.count + text.count / 4)
  }

  /// The commit that trusts its own pack for the tree's entries switches libgit2's existence check back on after:
  /// a tree naming an object the repository does not have is refused again.
  func testObjectChecksAreBackOnAfterAPackedCommit() throws {
    let repo = try makeRepository()
    var paths: [String] = []
    for i in 0..<Repository.packThreshold {
      try write("n/\(i).md", "note \(i)\n")
      paths.append("n/\(i).md")
    }
    try repo.commit(paths: paths, message: "adopt")
    func treeNamingAMissingBlob() -> Int32 {
      var missing = git_oid()
      missing.id.0 = 0xAB
      var out = git_oid()
      return "ghost.md".withCString { path in
        var update = git_tree_update(action: GIT_TREE_UPDATE_UPSERT, id: missing, filemode: GIT_FILEMODE_BLOB, path: path)
        return git_tree_create_updated(&out, repo.pointer, nil, 1, &update)
      }
    }
    XCTAssertLessThan(treeNamingAMissingBlob(), 0)
    XCTAssertEqual(LibGit2.withoutStrictObjectCreation { treeNamingAMissingBlob() }, 0)
    XCTAssertLessThan(treeNamingAMissingBlob(), 0)
  }

  func testFilteredFilesAreStoredAsGitStoresThem() throws {
    let repo = try makeRepository()
    try write(".gitattributes", "*.txt text eol=lf\n")
    try repo.commit(paths: [".gitattributes"], message: "attributes")
    var paths: [String] = []
    for i in 0..<(Repository.packThreshold + 1) {
      let path = "t\(i).txt"
      try write(path, "line one\r\nline two \(i)\r\n")
      paths.append(path)
    }
    try repo.commit(paths: paths, message: "crlf")
    try git.fsck()
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertEqual(try git.run("cat-file", "-p", "HEAD:t3.txt"), "line one\nline two 3\n")
  }
}

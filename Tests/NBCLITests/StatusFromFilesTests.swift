import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `nb status` answers a clean tree from git's files and the facts an earlier process kept
/// (`.git/nb/cache/git-facts`), without starting libgit2, and says exactly what libgit2 says: every scenario here
/// compares the status with the facts file against the status after deleting it (libgit2 answering), and against
/// the git CLI where it says the same thing.
final class StatusFromFilesTests: NBCLITestCase {
  private var factsFile: URL { url(".git/nb/cache/git-facts") }

  /// `nb status --json` as an object, with and without the kept facts; fails unless both agree. Returns it.
  @discardableResult
  private func statusAgrees(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
    let learnt = try nbSucceeds("status", "--json", file: file, line: line).stdout
    let kept = try nbSucceeds("status", "--json", file: file, line: line).stdout
    XCTAssertTrue(FileManager.default.fileExists(atPath: factsFile.path), "no facts kept", file: file, line: line)
    try? FileManager.default.removeItem(at: factsFile)
    let fromLibGit2 = try nbSucceeds("status", "--json", file: file, line: line).stdout
    XCTAssertEqual(learnt, fromLibGit2, file: file, line: line)
    XCTAssertEqual(kept, fromLibGit2, file: file, line: line)
    let object = try JSONSerialization.jsonObject(with: Data(kept.utf8)) as? [String: Any]
    return try XCTUnwrap(object, file: file, line: line)
  }

  private func loadsLibGit2(_ arguments: String...) throws -> Bool {
    let result = try nb(arguments: arguments, env: ["LD_DEBUG": "files"])
    XCTAssertEqual(result.status, 0, result.stderr)
    let lines = result.stderr.split(separator: "\n")
    XCTAssertTrue(lines.contains { $0.contains("file=libc.so") }, "no loader log:\n\(result.stderr)")
    return lines.contains { $0.contains("file=libgit2") }
  }

  func testACleanStatusNeverStartsLibGit2OnceTheFactsAreKept() throws {
    #if !os(Linux)
      throw XCTSkip("LD_DEBUG is glibc's")
    #endif
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "First draft")
    // The first status learns the config's settings from libgit2; the next ones read files only.
    _ = try loadsLibGit2("status")
    XCTAssertFalse(try loadsLibGit2("status"))
    XCTAssertFalse(try loadsLibGit2("status", "--json"))
    // A new commit (loose, as nb writes it) is read from its object file, and so are the trees and the blob that
    // tell which notes it changed (to bring the notes' warnings forward).
    try nbSucceeds("add", "Standup", "--content", "x")
    XCTAssertFalse(try loadsLibGit2("status"))
    try write("inbox/broken.md", "---\ntitle: [unclosed\n---\nbody\n")
    _ = try git.run("add", "inbox/broken.md")
    _ = try git.run("commit", "-q", "-m", "a note nb cannot read, committed by git")
    XCTAssertFalse(try loadsLibGit2("status"))
    let warned = try statusAgrees()
    XCTAssertTrue(
      (warned["warnings"] as? [String] ?? []).contains { $0.contains("inbox/broken.md") }, "\(warned)")
    // Packed, the commits are libgit2's to read, and the warnings are the same.
    try write("inbox/broken2.md", "---\ntitle: [unclosed\n---\nbody\n")
    _ = try git.run("add", "inbox/broken2.md")
    _ = try git.run("commit", "-q", "-m", "another")
    _ = try git.run("gc", "-q")
    let packed = try statusAgrees()
    XCTAssertEqual((packed["warnings"] as? [String] ?? []).filter { $0.contains("broken") }.count, 2, "\(packed)")
    try FileManager.default.removeItem(at: url("inbox/broken.md"))
    try FileManager.default.removeItem(at: url("inbox/broken2.md"))
    try nbSucceeds("save")
    let status = try statusAgrees()
    XCTAssertEqual(status["clean"] as? Bool, true)
    let head = try XCTUnwrap(status["head"] as? [String: Any])
    XCTAssertEqual(head["commit"] as? String, try git.revParse("HEAD"))
    XCTAssertEqual(
      head["subject"] as? String, try git.run("log", "-1", "--format=%s").trimmingCharacters(in: .newlines))
    // A change to the config is seen: the settings are learnt again.
    _ = try git.run("config", "core.trustctime", "false")
    XCTAssertTrue(try loadsLibGit2("status"))
    XCTAssertFalse(try loadsLibGit2("status"))
  }

  func testChangesIgnoredFilesAndAPackedHeadAgreeWithLibGit2() throws {
    try makeRepository()
    try nbSucceeds("add", "Kept", "--content", "x")
    try nbSucceeds("add", "Gone", "--content", "y")
    try statusAgrees()
    try write("inbox/kept.md", try text("inbox/kept.md") + "edited\n")
    try FileManager.default.removeItem(at: url("inbox/gone.md"))
    try write("inbox/new.md", "new\n")
    try write(".DS_Store", "ignored by nb's block in .gitignore\n")
    let status = try statusAgrees()
    let changes = try XCTUnwrap(status["changes"] as? [[String: Any]])
    XCTAssertEqual(
      Set(changes.compactMap { $0["path"] as? String }),
      Set(try git.statusPorcelain().split(separator: "\n").map { String($0.dropFirst(3)) }))
    try nbSucceeds("save")
    // git gc packs HEAD's commit: its summary comes from libgit2 once, then from the kept facts.
    _ = try git.run("gc", "-q")
    let packed = try statusAgrees()
    let head = try XCTUnwrap(packed["head"] as? [String: Any])
    XCTAssertEqual(head["commit"] as? String, try git.revParse("HEAD"))
    XCTAssertEqual(packed["clean"] as? Bool, true)
  }

  /// A copy made with `cp -a` keeps every file's mtime but not its inode or ctime, so the copy's index describes
  /// none of its files: the first status reads each once and records their stat data, as `git status` does, and
  /// the statuses after it trust them.
  func testTheFirstStatusOfACopyRecordsTheCopysStatData() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "First draft")
    try nbSucceeds("add", "Standup", "--content", "x")
    let paths = try git.run("ls-files").split(separator: "\n").map(String.init)
    XCTAssertGreaterThanOrEqual(paths.count, 3)
    // Files older than the index (a file written in the index's own clock tick is read again each time, as git
    // does): moved a few seconds back, then recorded by git.
    for path in paths {
      var times = [timespec(tv_sec: time(nil) - 5, tv_nsec: 0), timespec(tv_sec: time(nil) - 5, tv_nsec: 0)]
      XCTAssertEqual(utimensat(AT_FDCWD, url(path).path, &times, 0), 0)
    }
    _ = try git.run("status")
    let copy = temp.file("copy")
    let copied = try ProcessRunner.run("cp", arguments: ["-a", root.path, copy.path])
    XCTAssertEqual(copied.status, 0, copied.stderr)
    try FileManager.default.removeItem(at: root)
    try FileManager.default.moveItem(at: copy, to: root)
    XCTAssertNotEqual(try paths.map { try git.indexStat($0) }, paths.map { git.workTreeStat($0) })

    let status = try nbSucceeds("status", "--json").stdout
    let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
    XCTAssertEqual((object["changes"] as? [Any])?.count, 0, status)
    XCTAssertEqual(try paths.map { try git.indexStat($0) }, paths.map { git.workTreeStat($0) })
    XCTAssertEqual(try git.run("--no-optional-locks", "status", "--porcelain"), "")
  }

  func testAheadAndBehindAsGitCountsThem() throws {
    try makeRepository()
    let remote = temp.file("remote.git")
    _ = try git.run("init", "-q", "--bare", remote.path)
    _ = try git.run("remote", "add", "origin", remote.path)
    _ = try git.run("push", "-q", "-u", "origin", "main")
    var status = try statusAgrees()
    XCTAssertEqual(status["upstream"] as? String, "origin/main")
    XCTAssertEqual(status["ahead"] as? Int, 0)
    XCTAssertEqual(status["behind"] as? Int, 0)
    // Another clone moves the remote on; this one adds two commits of its own.
    let other = temp.file("other")
    _ = try git.run("clone", "-q", remote.path, other.path)
    let otherGit = try GitCLI(workTree: other, home: home)
    try Data("from elsewhere\n".utf8).write(to: other.appendingPathComponent("elsewhere.md"))
    _ = try otherGit.run("add", ".")
    _ = try otherGit.run("commit", "-q", "-m", "elsewhere")
    _ = try otherGit.run("push", "-q")
    try nbSucceeds("add", "One", "--content", "1")
    try nbSucceeds("add", "Two", "--content", "2")
    _ = try git.run("fetch", "-q")
    status = try statusAgrees()
    let counts = try git.run("rev-list", "--left-right", "--count", "HEAD...origin/main")
      .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    XCTAssertEqual(counts, [2, 1])
    XCTAssertEqual(status["ahead"] as? Int, 2)
    XCTAssertEqual(status["behind"] as? Int, 1)
    // Another upstream in the config is seen at once.
    _ = try git.run("branch", "--unset-upstream")
    status = try statusAgrees()
    XCTAssertTrue(status["upstream"] is NSNull, "\(status)")
  }

  func testAMergeInProgressAndADetachedHeadAreReportedFromTheFiles() throws {
    try makeRepository()
    try nbSucceeds("add", "Plan", "--content", "base")
    let base = try git.revParse("HEAD")
    _ = try git.run("checkout", "-q", "-b", "side")
    try write("inbox/plan.md", try text("inbox/plan.md") + "side\n")
    _ = try git.run("commit", "-q", "-am", "side")
    _ = try git.run("checkout", "-q", "main")
    try write("inbox/plan.md", try text("inbox/plan.md") + "main\n")
    _ = try git.run("commit", "-q", "-am", "main")
    _ = try? git.run("-c", "merge.nb-note.driver=false", "merge", "-q", "side")
    var status = try statusAgrees()
    XCTAssertEqual(status["operation"] as? String, "merge")
    _ = try git.run("merge", "--abort")
    _ = try git.run("checkout", "-q", "--detach", base)
    status = try statusAgrees()
    XCTAssertTrue(status["branch"] is NSNull, "\(status)")
    XCTAssertTrue(
      (status["warnings"] as? [String] ?? []).contains { $0.contains("HEAD is detached") }, "\(status)")
  }

  func testASaveWithNothingToSaveStartsNeitherLibGit2NorTheLockYetRefusesWhatItAlwaysRefused() throws {
    #if !os(Linux)
      throw XCTSkip("LD_DEBUG is glibc's")
    #endif
    try makeRepository()
    try nbSucceeds("add", "Plan", "--content", "x")
    try nbSucceeds("status")
    let before = try git.revParse("HEAD")
    XCTAssertFalse(try loadsLibGit2("save"))
    XCTAssertEqual(try git.revParse("HEAD"), before)
    // Held by another process, the lock does not keep a save with nothing to save waiting (nb waits up to 30 s
    // for it otherwise).
    let lockPath = url(".git/nb/lock").path
    let holder = try ProcessRunner.launch(
      "python3",
      arguments: [
        "-c",
        "import fcntl,sys,time\nf=open(sys.argv[1],'a')\nfcntl.flock(f,fcntl.LOCK_EX)\nprint('held',flush=True)\ntime.sleep(60)",
        lockPath,
      ], environment: environment(), currentDirectory: root)
    defer { holder.terminate() }
    try waitForLock(lockPath)
    let started = Date()
    let saved = try nb("save", timeout: 20)
    XCTAssertEqual(saved.status, 0, saved.stderr)
    XCTAssertLessThan(Date().timeIntervalSince(started), 10, "the save waited for the lock")
    holder.terminate()

    // nb's block missing from .gitignore: the save puts it back, in a commit, as before.
    try write(".gitignore", "# mine only\n")
    try nbSucceeds("save")
    XCTAssertNotEqual(try git.revParse("HEAD"), before)
    let ignoreText = try text(".gitignore")
    XCTAssertTrue(ignoreText.hasPrefix("# mine only\n"), ignoreText)
    XCTAssertTrue(ignoreText.contains("# nb: per-device state"), ignoreText)
    XCTAssertEqual(try git.statusPorcelain(), "")

    // A detached HEAD is refused, clean or not.
    _ = try git.run("checkout", "-q", "--detach")
    let refused = try nb("save")
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertTrue(refused.stderr.contains("detached"), refused.stderr)
  }

  /// Waits until another process holds the flock on `path`.
  private func waitForLock(_ path: String) throws {
    let deadline = Date().addingTimeInterval(15)
    while Date() < deadline {
      let fd = open(path, O_RDWR)
      if fd >= 0 {
        let free = flock(fd, LOCK_EX | LOCK_NB) == 0
        close(fd)
        if !free { return }
      }
      usleep(20_000)
    }
    XCTFail("the lock was never taken")
  }

  func testDamagedFactsAreLearntAgain() throws {
    try makeRepository()
    try statusAgrees()
    for damage in ["", "nb git facts 1\nconfig\tx\n", "something else entirely\n", "nb git facts 1\ncommit\tzz\n"] {
      _ = try nbSucceeds("status", "--json")
      try Data(damage.utf8).write(to: factsFile)
      try statusAgrees()
    }
  }
}

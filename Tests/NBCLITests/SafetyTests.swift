import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Safety of the built `nb` against the world around it: git states where a commit would be a guess, a stale
/// `index.lock`, several processes at once, a process killed mid-write, very large notes, symlinks leading out of
/// the repository, and editors that are missing, change nothing or fail.
final class SafetyTests: NBCLITestCase {
  override func setUpWithError() throws {
    try super.setUpWithError()
    try makeRepository()
  }

  // MARK: - Git states

  func testDetachedHeadIsRefusedUntilABranchIsCheckedOut() throws {
    let path = try addNote("Base", content: "base")
    try git.run("checkout", "-q", "--detach")
    try assertRefused(["add", "New", "--content", "x"], mentioning: ["detached"])
    try assertRefused(["edit", path, "--append", "x"], mentioning: ["detached"])
    try write(path, try read(path) + Data("edited by hand\n".utf8))
    try assertRefused(["save"], mentioning: ["detached"])

    try git.run("checkout", "-q", path)
    try git.run("switch", "-q", "main")
    try nbSucceeds("add", "New", "--content", "x")
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testConflictedMergeIsRefusedUntilItIsFinished() throws {
    let path = try addNote("Shared", content: "base")
    let base = try read(path)
    try git.run("switch", "-q", "-c", "other")
    try write(path, base + Data("theirs\n".utf8))
    try gitCommitAll("theirs")
    try git.run("switch", "-q", "main")
    try write(path, base + Data("ours\n".utf8))
    try gitCommitAll("ours")
    let merge = try git.result(["merge", "-q", "other"])
    XCTAssertNotEqual(merge.status, 0, "the merge should conflict: \(merge.stdout)")
    XCTAssert(try git.statusPorcelain().contains("UU \(path)"))

    try assertRefused(["add", "New", "--content", "x"], mentioning: ["merge"])
    try assertRefused(["save"], mentioning: ["merge"])
    XCTAssert(FileManager.default.fileExists(atPath: root.appendingPathComponent(".git/MERGE_HEAD").path))

    try git.run("merge", "--abort")
    try nbSucceeds("add", "New", "--content", "x")
    try git.fsck()
  }

  func testStaleIndexLockIsReportedWithTheFixAndLeftInPlace() throws {
    let path = try addNote("Locked", content: "x")
    let lock = root.appendingPathComponent(".git/index.lock")
    try Data().write(to: lock)
    try assertRefused(["add", "New", "--content", "x"], mentioning: ["index.lock", "remove it"])
    try assertRefused(["edit", path, "--append", "y"], mentioning: ["index.lock", "remove it"])
    XCTAssert(FileManager.default.fileExists(atPath: lock.path), "nb must never delete git's lock")

    try FileManager.default.removeItem(at: lock)
    try nbSucceeds("add", "New", "--content", "x")
  }

  // MARK: - Concurrency

  func testConcurrentProcessesEachCommitOnceAndLoseNothing() throws {
    let log = try addNote("Log", content: "start")
    let before = try git.revParse("HEAD")
    var processes: [(name: String, process: LaunchedProcess)] = []
    for index in 0..<8 {
      processes.append(
        ("add \(index)", try launchNB(["add", "Note \(index)", "--content", "content of note \(index)"])))
    }
    for index in 0..<2 {
      processes.append(("append \(index)", try launchNB(["edit", log, "--append", "appended line \(index)"])))
    }
    for (name, process) in processes {
      let result = try process.wait(timeout: 120)
      XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
    }

    XCTAssertEqual(
      try git.run("rev-list", "--count", "\(before)..HEAD").trimmingCharacters(in: .whitespacesAndNewlines), "10")
    // Each commit is exactly one note: the eight adds and the two appends, in whatever order they won the lock.
    let subjects = try git.run("log", "--format=%s", "\(before)..HEAD").split(separator: "\n").map(String.init)
    let expected = (0..<8).map { "nb: add inbox/note-\($0).md" } + ["nb: edit \(log)", "nb: edit \(log)"]
    XCTAssertEqual(subjects.sorted(), expected.sorted())
    for commit in try git.run("rev-list", "\(before)..HEAD").split(separator: "\n") {
      let files = try git.run("show", "--name-only", "--format=", String(commit)).split(separator: "\n")
      XCTAssertEqual(files.count, 1, "commit \(commit) touches \(files)")
    }
    for index in 0..<8 {
      XCTAssert(try git.show("HEAD", path: "inbox/note-\(index).md").contains("content of note \(index)\n"))
    }
    let logText = try git.show("HEAD", path: log)
    XCTAssert(logText.contains("start"), logText)
    XCTAssert(logText.contains("appended line 0"), logText)
    XCTAssert(logText.contains("appended line 1"), logText)
    XCTAssertEqual(try git.statusPorcelain(), "")
    try git.fsck()
  }

  // MARK: - Killed mid-write and large notes

  /// About 50 MB of UTF-8 lines ending in a newline, so the note's body ends with exactly these bytes.
  private static let bigContent: Data = {
    let line = "The quick brown fox jumps over the lazy dog, 0123456789 äöü.\n"
    return Data(String(repeating: line, count: 50 * 1024 * 1024 / line.utf8.count).utf8)
  }()

  /// When to send SIGKILL to an `nb add` of `bigContent`.
  private enum KillPoint {
    /// This long after launch.
    case after(TimeInterval)
    /// As soon as nb's temporary file shows up in the notebook, i.e. in the middle of writing the note.
    case whenTemporaryFileAppears
  }

  func testKilledAddLeavesTheNoteAbsentOrCompleteAndTheRepositoryUsable() throws {
    let content = Self.bigContent
    // One uninterrupted run tells how long the whole add takes here, so the timed kills land inside it.
    let start = Date()
    let full = try nb(arguments: ["add", "Complete"], stdin: content)
    XCTAssertEqual(full.status, 0, full.stderr)
    let duration = Date().timeIntervalSince(start)
    let points: [KillPoint] = [
      .after(0), .whenTemporaryFileAppears, .whenTemporaryFileAppears, .after(duration * 0.5),
      .after(duration * 0.8), .after(duration * 0.95),
    ]
    var killedMidWrite = 0
    for (index, point) in points.enumerated() {
      let path = "inbox/big-\(index).md"
      let process = try launchNB(["add", "Big \(index)"], stdin: content)
      switch point {
      case .after(let delay):
        Thread.sleep(forTimeInterval: delay)
      case .whenTemporaryFileAppears:
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, kill(process.pid, 0) == 0, !temporaryFileExists(near: path) { usleep(200) }
        if temporaryFileExists(near: path) { killedMidWrite += 1 }
      }
      process.terminate(SIGKILL)
      _ = try process.wait(timeout: 120)

      if FileManager.default.fileExists(atPath: url(path).path) {
        let data = try read(path)
        XCTAssert(data.count > content.count && data.suffix(content.count) == content, "\(path) is incomplete")
      }
      let list = try nb("list")
      XCTAssertEqual(list.status, 0, list.stderr)
      XCTAssertFalse(list.stdout.contains(".tmp"), "a temporary file is listed as a note:\n\(list.stdout)")
      XCTAssertEqual(
        list.stdout.contains(path), FileManager.default.fileExists(atPath: url(path).path), list.stdout)

      // A kill inside libgit2's index write can leave git's own lock behind; nb must report it, not delete it.
      let indexLock = root.appendingPathComponent(".git/index.lock")
      if FileManager.default.fileExists(atPath: indexLock.path) {
        try assertRefused(["add", "After \(index)", "--content", "x"], mentioning: ["index.lock"])
        try FileManager.default.removeItem(at: indexLock)
      }
      // nb's own lock is a flock, so the kernel released it with the process.
      let after = try nb("add", "After \(index)", "--content", "x", timeout: 60)
      XCTAssertEqual(after.status, 0, "after kill \(index): \(after.stderr)")
      try git.fsck()
      if let committed = try? git.run("cat-file", "-s", "HEAD:\(path)") {
        XCTAssertEqual(Int(committed.trimmingCharacters(in: .whitespacesAndNewlines)), try read(path).count)
      }
    }
    XCTAssertGreaterThan(killedMidWrite, 0, "no process was killed while writing the note; the test proved little")

    // The partial temporary files a kill leaves are reported by `nb status` and never committed by `nb save`.
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: url("inbox").path).filter {
      $0.hasPrefix(".") && $0.hasSuffix(".tmp")
    }
    let status = try nbSucceeds("status")
    for name in leftovers {
      XCTAssert((status.stdout + status.stderr).contains("inbox/\(name)"), "status does not warn about \(name)")
    }
    try nbSucceeds("save")
    XCTAssertFalse(try git.run("ls-files").contains(".tmp"), "a partial temporary file was committed")
    try git.fsck()
  }

  /// Whether a temporary file for the note at `path` (a hidden sibling, `.<name>.*.tmp`) exists.
  private func temporaryFileExists(near path: String) -> Bool {
    let directory = url(path).deletingLastPathComponent().path
    let prefix = "." + url(path).lastPathComponent
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.contains { $0.hasPrefix(prefix) && $0.hasSuffix(".tmp") }
  }

  func testFiftyMegabyteNoteStaysFastAndByteExact() throws {
    let content = Self.bigContent
    // Generous bounds: this catches quadratic behaviour (hours at 50 MB), not a slow machine.
    let bound: TimeInterval = 20

    var start = Date()
    let add = try nb(arguments: ["add", "Huge"], stdin: content, timeout: 120)
    XCTAssertEqual(add.status, 0, add.stderr)
    XCTAssertLessThan(Date().timeIntervalSince(start), bound, "nb add")
    let path = "inbox/huge.md"
    let added = try read(path)
    XCTAssertEqual(added.suffix(content.count), content)

    start = Date()
    let append = try nb("edit", path, "--append", "the very end", timeout: 120)
    XCTAssertEqual(append.status, 0, append.stderr)
    XCTAssertLessThan(Date().timeIntervalSince(start), bound, "nb edit --append")
    let appended = try read(path)
    XCTAssert(
      appended.suffix(13) == Data("\nthe very end".utf8) || appended.suffix(14) == Data("\nthe very end\n".utf8))
    XCTAssertNotNil(appended.range(of: content), "the body was changed by the append")

    start = Date()
    let show = try nb("show", "--raw", path, timeout: 120)
    XCTAssertEqual(show.status, 0, show.stderr)
    XCTAssertLessThan(Date().timeIntervalSince(start), bound, "nb show --raw")
    XCTAssert(show.stdoutData == appended, "show --raw is not the file's bytes")

    start = Date()
    let list = try nb("list", timeout: 120)
    XCTAssertEqual(list.status, 0, list.stderr)
    XCTAssertLessThan(Date().timeIntervalSince(start), bound, "nb list")
    XCTAssert(list.stdout.contains(path))

    XCTAssertEqual(try commitCount(), 3)
    let blobSize = try git.run("cat-file", "-s", "HEAD:\(path)").trimmingCharacters(in: .whitespacesAndNewlines)
    XCTAssertEqual(Int(blobSize), appended.count)
    XCTAssertEqual(try git.statusPorcelain(), "")
    try git.fsck()
  }

  // MARK: - Symlinks

  func testNoteSymlinkedOutsideTheRepositoryIsRefused() throws {
    let outside = temp.file("outside.md")
    let bytes = Data("---\ntitle: Outside\n---\nnot yours\n".utf8)
    try bytes.write(to: outside)
    try FileManager.default.createSymbolicLink(
      atPath: url("inbox/link.md").path, withDestinationPath: outside.path)
    // Uncommitted, `save` must not follow the link.
    try assertRefused(["save"], mentioning: ["inbox/link.md"])
    try gitCommitAll("a symlink committed by git")

    try assertRefused(["edit", "inbox/link", "--append", "x"], mentioning: ["inbox/link"])
    try assertRefused(["edit", "inbox/link.md", "--title", "Mine"], mentioning: ["inbox/link.md"])
    try assertRefused(["show", "inbox/link"], mentioning: ["inbox/link"])
    try assertRefused(["delete", "inbox/link"], mentioning: ["inbox/link"])
    XCTAssertEqual(try Data(contentsOf: outside), bytes)
  }

  func testNotebookSymlinkedOutsideTheRepositoryIsRefused() throws {
    let outsideDirectory = try temp.directory("elsewhere")
    let bytes = Data("---\ntitle: Far\n---\nfar away\n".utf8)
    try bytes.write(to: outsideDirectory.appendingPathComponent("far.md"))
    try FileManager.default.createSymbolicLink(atPath: url("ext").path, withDestinationPath: outsideDirectory.path)
    try gitCommitAll("a directory symlink committed by git")

    try assertRefused(["add", "Title", "--notebook", "ext", "--content", "x"], mentioning: ["ext"])
    try assertRefused(["add", "Title", "--notebook", "ext/sub", "--content", "x"], mentioning: ["ext"])
    try assertRefused(["notebook", "create", "ext/sub"], mentioning: ["ext"])
    try assertRefused(["edit", "ext/far", "--append", "x"], mentioning: ["ext/far"])
    try assertRefused(["show", "ext/far.md"], mentioning: ["ext/far"])
    let inside = try addNote("Inside", content: "x")
    try assertRefused(["move", inside, "ext"], mentioning: ["ext"])

    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outsideDirectory.path), ["far.md"])
    XCTAssertEqual(try Data(contentsOf: outsideDirectory.appendingPathComponent("far.md")), bytes)
  }

  // MARK: - Editor

  /// Writes an executable `/bin/sh` script and returns its path.
  private func script(_ name: String, _ body: String) throws -> String {
    let file = try temp.write("bin/\(name)", "#!/bin/sh\n" + body + "\n")
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
    return file.path
  }

  /// The value of the front-matter line `key: value`.
  private func frontMatterValue(_ key: String, in data: Data) -> String? {
    String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(key + ": ") }
      .map { String($0.dropFirst(key.count + 2)) }
  }

  func testMissingEditorIsAClearErrorAndNothingChanges() throws {
    let path = try addNote("Draft", content: "x")
    // A PATH with no `vi` on it, and neither EDITOR nor VISUAL set (the runner never passes them).
    let emptyBin = try temp.directory("empty-bin")
    try assertRefused(["edit", path], env: ["PATH": emptyBin.path], mentioning: ["EDITOR"])
    try assertRefused(
      ["edit", path], env: ["PATH": emptyBin.path, "EDITOR": "", "VISUAL": ""], mentioning: ["EDITOR"])
  }

  func testEditorThatChangesTheNoteMakesOneStampedCommit() throws {
    let path = try addNote("Draft", content: "first line")
    let before = try read(path)
    let head = try git.revParse("HEAD")
    let editor = try script("append.sh", #"printf 'added by the editor\n' >> "$1""#)

    let result = try nb("edit", path, env: ["EDITOR": editor])
    XCTAssertEqual(result.status, 0, result.stderr)

    XCTAssertEqual(
      try git.run("rev-list", "--count", "\(head)..HEAD").trimmingCharacters(in: .whitespacesAndNewlines), "1")
    XCTAssertEqual(try git.run("log", "-1", "--format=%s"), "nb: edit \(path)\n")
    let id = try XCTUnwrap(frontMatterValue("id", in: before))
    let trailers = try git.run("log", "-1", "--format=%(trailers:key=Nb-Note-Id,valueonly)")
    XCTAssertEqual(trailers.trimmingCharacters(in: .whitespacesAndNewlines), id)
    let after = try read(path)
    XCTAssert(String(decoding: after, as: UTF8.self).hasSuffix("first line\nadded by the editor\n"))
    // `updated` moves forward even when the edit lands in the same second as the add (previous + 1 s).
    let formatter = ISO8601DateFormatter()
    let old = try XCTUnwrap(frontMatterValue("updated", in: before).flatMap(formatter.date(from:)))
    let new = try XCTUnwrap(frontMatterValue("updated", in: after).flatMap(formatter.date(from:)))
    XCTAssertGreaterThan(new, old)
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testEditorThatChangesNothingMakesNoCommit() throws {
    let path = try addNote("Draft", content: "x")
    let editor = try script("noop.sh", "exit 0")
    let result = try assertNothingChanged { try nb("edit", path, env: ["EDITOR": editor]) }
    XCTAssertEqual(result.status, 0, result.stderr)
    // VISUAL wins over EDITOR, as in git; a broken EDITOR must then not matter.
    let visual = try assertNothingChanged {
      try nb("edit", path, env: ["VISUAL": editor, "EDITOR": "/nonexistent/editor"])
    }
    XCTAssertEqual(visual.status, 0, visual.stderr)
  }

  func testEditorExitingNonZeroCommitsNothing() throws {
    let path = try addNote("Draft", content: "x")
    let failing = try script("fail.sh", "exit 3")
    try assertRefused(["edit", path], env: ["EDITOR": failing], mentioning: ["status 3"])

    // An editor that wrote and then failed: nothing is committed, and the person's bytes stay on disk for them.
    let head = try git.revParse("HEAD")
    let writeThenFail = try script("write-fail.sh", #"printf 'unsaved?\n' >> "$1"; exit 1"#)
    let result = try nb("edit", path, env: ["EDITOR": writeThenFail])
    assertOneLineError(result, mentioning: ["exited with status 1"])
    XCTAssertEqual(try git.revParse("HEAD"), head)
    XCTAssertEqual(try git.statusPorcelain(), " M \(path)\n")
    XCTAssert(String(decoding: try read(path), as: UTF8.self).hasSuffix("unsaved?\n"))
  }
}

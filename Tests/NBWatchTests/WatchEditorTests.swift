import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Editors' save patterns against a real `nb watch`: each edit becomes one commit of exactly what the editor wrote
/// (plus nb's `updated` stamp), and only real notes are committed.
final class WatchEditorTests: WatchTestCase {
  private let plan = "inbox/plan.md"

  /// An existing note `inbox/plan.md` (id 1) committed by nb before watching.
  private func seedPlan(body: String = "first line\n") throws -> String {
    let text = Self.note(id: 1, title: "Plan", body: body)
    try makeRepository()
    try seed([(plan, text)])
    return try repo.read(plan)
  }

  /// `printf > file`: an edit of a note in place and a new note without front matter, in one burst → one commit
  /// holding exactly the new text (the new note gets an id), and nothing more afterwards.
  func testPrintfWriteInPlace() throws {
    _ = try seedPlan()
    let before = try repo.commitCount()
    let watcher = try startWatch(["--debounce", "300ms"])
    let mark = watcher.mark
    let edited = Self.note(id: 1, title: "Plan", body: "first line\nsecond line, by printf\n")
    try sh(#"printf '%s' "$1" > inbox/plan.md && printf 'a new idea\n' > inbox/idea.md"#, edited)

    let saved = try watcher.waitForSave(after: mark)
    XCTAssertEqual(saved.strings("changed"), [plan])
    XCTAssertEqual(saved.strings("added"), ["inbox/idea.md"])
    XCTAssertEqual(saved.int("count"), 2)
    XCTAssertEqual(saved.string("commit"), try repo.head())
    try assertCommittedAsWritten(plan, edited)
    try assertNewNoteCommitted("inbox/idea.md", body: "a new idea\n")
    XCTAssertEqual(try repo.commitCount(), before + 1)
    try assertClean()
    XCTAssertEqual(try watcher.stop(), 0)
    XCTAssertEqual(watcher.all("saved").count, 1, "the stamp was committed again:\n\(watcher.transcript)")
    XCTAssertEqual(try repo.commitCount(), before + 1)
  }

  /// Write-temp-then-rename: a `*.tmp` renamed over the note (Obsidian, many libraries), and JetBrains' safe-write
  /// (`___jb_tmp___` written, the note moved to `___jb_old___`, the temp renamed in, the old one deleted).
  func testWriteTempThenRename() throws {
    _ = try seedPlan()
    try seed([("inbox/other.md", Self.note(id: 2, title: "Other", body: "other\n"))])
    let watcher = try startWatch(["--debounce", "300ms"])
    let mark = watcher.mark

    let planText = Self.note(id: 1, title: "Plan", body: "first line\nrenamed into place\n")
    try repo.write("inbox/.plan.md.4f2a.tmp", planText)
    XCTAssertEqual(rename(repo.url("inbox/.plan.md.4f2a.tmp").path, repo.url(plan).path), 0)

    let otherText = Self.note(id: 2, title: "Other", body: "other\nsafe-written\n")
    try repo.write("inbox/other.md___jb_tmp___", otherText)
    XCTAssertEqual(rename(repo.url("inbox/other.md").path, repo.url("inbox/other.md___jb_old___").path), 0)
    XCTAssertEqual(rename(repo.url("inbox/other.md___jb_tmp___").path, repo.url("inbox/other.md").path), 0)
    try FileManager.default.removeItem(at: repo.url("inbox/other.md___jb_old___"))

    try waitUntil("both notes committed", detail: { watcher.transcript }) {
      let status = try repo.status()
      return Set(watcher.all("saved", after: mark).flatMap(\.savedPaths)).isSuperset(of: [plan, "inbox/other.md"])
        && status.isEmpty
    }
    try assertCommittedAsWritten(plan, planText)
    try assertCommittedAsWritten("inbox/other.md", otherText)
    let tracked = try repo.trackedFiles()
    XCTAssert(!tracked.contains { $0.contains(".tmp") || $0.contains("___jb_") }, "scratch committed: \(tracked)")
    XCTAssertEqual(try watcher.stop(), 0)
  }

  /// vim (Debian's vim, scripted with `-es`): its Vim defaults (`nocompatible`, backupcopy=auto) save by renaming
  /// the note to `plan.md~` after probing with `4913` and writing a new file.
  func testVimDefaultSettings() throws {
    try vimEdit(settings: [], expectNewInode: true)
  }

  /// vim with `backupcopy=yes`: copies the note to `plan.md~` and writes it in place.
  func testVimBackupcopyYes() throws {
    try vimEdit(settings: ["set backupcopy=yes"], expectNewInode: false)
  }

  /// `vim -es` sets `compatible` (and so backupcopy=yes) and skips the vimrc; `set nocompatible` restores the
  /// defaults an interactive vim has. `backupskip=` because vim never makes backups under /tmp, where the tests'
  /// repositories are.
  private func vimEdit(settings: [String], expectNewInode: Bool, file: StaticString = #filePath, line: UInt = #line)
    throws
  {
    let vim = try XCTUnwrap(try? ProcessRunner.resolve("vim"), "vim is needed (Debian's vim package)")
    let original = try seedPlan()
    let inode = try inodeOf(plan)
    let before = try repo.commitCount()
    let watcher = try startWatch(["--debounce", "300ms"])
    let mark = watcher.mark

    var arguments = ["-es", "-i", "NONE", "-c", "set nocompatible backupskip="]
    for setting in settings { arguments += ["-c", setting] }
    arguments += ["-c", "normal Goappended by vim", "-c", "wq", plan]
    let result = try ProcessRunner.run(
      vim, arguments: arguments, environment: repo.environment, currentDirectory: repo.root, timeout: 30)
    XCTAssertEqual(result.status, 0, "vim failed: \(result.stderr)", file: file, line: line)
    XCTAssertEqual(
      try inodeOf(plan) != inode, expectNewInode, "vim did not save the way this test means", file: file, line: line)

    let saved = try watcher.waitForSave(after: mark)
    XCTAssertEqual(saved.savedPaths, [plan], file: file, line: line)
    try assertCommittedAsWritten(plan, original + "appended by vim\n", file: file, line: line)
    XCTAssertEqual(try repo.commitCount(), before + 1, file: file, line: line)
    let tracked = try repo.trackedFiles()
    for name in tracked {
      let last = name.split(separator: "/").last.map(String.init) ?? name
      XCTAssert(
        !(last.hasSuffix("~") || last.hasSuffix(".swp") || last.hasSuffix(".swx") || last.allSatisfy(\.isNumber)),
        "vim's scratch file \(name) was committed", file: file, line: line)
    }
    try assertClean(file: file, line: line)
    XCTAssertEqual(try watcher.stop(), 0, file: file, line: line)
    XCTAssertEqual(watcher.all("saved").count, 1, watcher.transcript, file: file, line: line)
  }

  private func inodeOf(_ relative: String) throws -> UInt64 {
    var info = stat()
    XCTAssertEqual(stat(repo.url(relative).path, &info), 0)
    return UInt64(info.st_ino)
  }

  /// 100 writes to 20 notes in a burst become exactly one commit of the last versions.
  func testBurstOf100WritesIsOneCommit() throws {
    try makeRepository()
    let before = try repo.commitCount()
    let watcher = try startWatch(["--debounce", "500ms"])
    let mark = watcher.mark
    for i in 0..<100 {
      try repo.write("burst/n\(i % 20).md", "note \(i % 20), version \(i / 20)\n")
    }
    let saved = try watcher.waitForSave(after: mark)
    XCTAssertEqual(saved.int("count"), 20, saved.line)
    XCTAssertEqual(saved.strings("added").count, 20, saved.line)
    // Three debounce periods more: the stamps written by the save must not make a second commit.
    usleep(1_500_000)
    XCTAssertEqual(watcher.all("saved", after: mark).count, 1, watcher.transcript)
    XCTAssertEqual(try repo.commitCount(), before + 1)
    for n in 0..<20 {
      try assertNewNoteCommitted("burst/n\(n).md", body: "note \(n), version 4\n")
    }
    try assertClean()
    XCTAssertEqual(try watcher.stop(), 0)
  }

  /// `mkdir -p` of a new notebook with notes written into it at once, and a note written into it later (its
  /// directory must be watched by then).
  func testNewNotebookCreatedWhileWatching() throws {
    try makeRepository()
    let watcher = try startWatch(["--debounce", "300ms"])
    let mark = watcher.mark
    try sh(
      "mkdir -p projects/alpha/beta && printf 'deep\\n' > projects/alpha/beta/one.md"
        + " && printf 'shallow\\n' > projects/alpha/two.md")
    try waitUntil("the new notebook's notes committed", detail: { watcher.transcript }) {
      Set(watcher.all("saved", after: mark).flatMap(\.savedPaths)).isSuperset(of: [
        "projects/alpha/beta/one.md", "projects/alpha/two.md",
      ])
    }
    try assertNewNoteCommitted("projects/alpha/beta/one.md", body: "deep\n")
    try assertNewNoteCommitted("projects/alpha/two.md", body: "shallow\n")

    let later = watcher.mark
    try repo.write("projects/alpha/beta/three.md", "later\n")
    let saved = try watcher.waitForSave(after: later)
    XCTAssertEqual(saved.strings("added"), ["projects/alpha/beta/three.md"])
    try assertNewNoteCommitted("projects/alpha/beta/three.md", body: "later\n")
    try assertClean()
    XCTAssertEqual(try watcher.stop(), 0)
  }

  /// The hidden polling backend commits a plain edit too.
  func testPollingBackendCommitsAnEdit() throws {
    _ = try seedPlan()
    let watcher = try startWatch(["--debounce", "200ms", "--backend", "polling"])
    XCTAssertEqual(watcher.all("started").first?.string("backend"), "polling")
    let mark = watcher.mark
    let edited = Self.note(id: 1, title: "Plan", body: "first line\npolled\n")
    try repo.write(plan, edited)
    let saved = try watcher.waitForSave(after: mark)
    XCTAssertEqual(saved.strings("changed"), [plan])
    try assertCommittedAsWritten(plan, edited)
    try assertClean()
    XCTAssertEqual(try watcher.stop(), 0)
  }

  /// `.gitignore`d files and editors' scratch files never make a commit, alone or next to a real edit.
  func testIgnoredAndScratchFilesNeverCommitted() throws {
    _ = try seedPlan()
    let ignore = try repo.read(".gitignore")
    try repo.write(".gitignore", ignore + "*.log\nprivate/\n")
    try repo.git.run("commit", "-q", "-am", "ignore logs and private/")
    let before = try repo.commitCount()
    let watcher = try startWatch(["--debounce", "200ms"])
    let mark = watcher.mark

    try repo.write("debug.log", "log line\n")
    try repo.write("private/secret.md", "secret\n")
    try repo.write("inbox/plan.md~", "vim backup\n")
    try repo.write("inbox/4913", "")
    try repo.write("inbox/.plan.md.swp", "swap")
    try repo.write("inbox/plan.md___jb_tmp___", "jetbrains\n")
    try repo.write("inbox/#plan.md#", "emacs autosave\n")
    try FileManager.default.createSymbolicLink(
      atPath: repo.url("inbox/.#plan.md").path, withDestinationPath: "me@host.4242:1700000000")
    // Five debounce periods: no commit may come of these.
    usleep(1_000_000)
    XCTAssertEqual(watcher.all("saved", after: mark).count, 0, watcher.transcript)
    XCTAssertEqual(try repo.commitCount(), before)

    try repo.write("inbox/real.md", "a real note\n")
    let saved = try watcher.waitForSave(after: mark)
    XCTAssertEqual(saved.savedPaths, ["inbox/real.md"], saved.line)
    try assertNewNoteCommitted("inbox/real.md", body: "a real note\n")
    let tracked = Set(try repo.trackedFiles())
    for path in [
      "debug.log", "private/secret.md", "inbox/plan.md~", "inbox/4913", "inbox/.plan.md.swp",
      "inbox/plan.md___jb_tmp___", "inbox/#plan.md#", "inbox/.#plan.md",
    ] {
      XCTAssertFalse(tracked.contains(path), "\(path) was committed")
    }
    XCTAssertEqual(try repo.commitCount(), before + 1)
    XCTAssertEqual(try watcher.stop(), 0)
    XCTAssertEqual(watcher.all("saved").count, 1, watcher.transcript)
  }

  /// A note with malformed YAML is left out (one `unreadable` notice naming it, repeated only when it changes
  /// again) while a note written in the same burst is committed; once fixed it is committed.
  func testMalformedYAMLNotCommittedWhileOthersAre() throws {
    try makeRepository()
    let watcher = try startWatch(["--debounce", "300ms"])
    var mark = watcher.mark
    let bad = "inbox/bad.md"
    try repo.write(bad, "---\ntitle: [unclosed\n---\nbody\n")
    try repo.write("inbox/good.md", "good one\n")
    let saved = try watcher.waitForSave(after: mark)
    XCTAssertEqual(saved.savedPaths, ["inbox/good.md"], saved.line)
    let notices = watcher.all("notice", kind: "unreadable")
    XCTAssertEqual(notices.count, 1, watcher.transcript)
    XCTAssertEqual(notices.first?.string("path"), bad)
    XCTAssert(notices.first?.string("message")?.contains(bad) == true, notices.first?.line ?? "")
    XCTAssertNil(try repo.committed(bad))
    XCTAssertEqual(try repo.read(bad), "---\ntitle: [unclosed\n---\nbody\n", "nb touched the unreadable note")

    // Another save while the bad note is unchanged: no second notice.
    mark = watcher.mark
    try repo.write("inbox/good.md", try repo.read("inbox/good.md") + "good two\n")
    try watcher.waitForSave(after: mark)
    XCTAssertEqual(watcher.all("notice", kind: "unreadable").count, 1, watcher.transcript)

    // The bad note changes, still bad: said once more; still not committed.
    mark = watcher.mark
    try repo.write(bad, "---\ntitle: [still unclosed\n---\nbody\n")
    try watcher.waitForNotice("unreadable", after: mark)
    XCTAssertEqual(watcher.all("notice", kind: "unreadable").count, 2, watcher.transcript)
    XCTAssertNil(try repo.committed(bad))

    // Fixed: committed.
    mark = watcher.mark
    let fixed = "---\ntitle: fixed\n---\nbody\n"
    try repo.write(bad, fixed)
    let fixedSave = try watcher.waitForSave(after: mark)
    XCTAssertEqual(fixedSave.savedPaths, [bad], fixedSave.line)
    XCTAssertNotNil(try repo.committed(bad))
    XCTAssertEqual(Self.frontMatter("title", in: try repo.committed(bad) ?? ""), "fixed")
    try assertClean()
    XCTAssertEqual(try watcher.stop(), 0)
    XCTAssertEqual(watcher.all("notice", kind: "unreadable").count, 2, watcher.transcript)
  }
}

import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `nb watch` as a process: signals, `kill -9`, a repository that goes away or is mid-merge, the commit hook, and
/// its settings from the command line and `.nb/config.yaml`.
final class WatchLifecycleTests: WatchTestCase {
  /// SIGTERM right after a write, with a 5 s debounce: the edit is committed at once and the exit status is 0.
  /// Five times, since the signal races the file event.
  func testSIGTERMCommitsPendingEdit() throws {
    try makeRepository()
    try seed([("inbox/plan.md", Self.note(id: 1, title: "Plan", body: "one\n"))])
    var edited = try repo.read("inbox/plan.md")
    for round in 0..<5 {
      let before = try repo.commitCount()
      let watcher = try startWatch(["--debounce", "5s"])
      edited += "line \(round), pending when stopped\n"
      let started = Date()
      try repo.write("inbox/plan.md", edited)
      watcher.send(SIGTERM)
      XCTAssertEqual(try watcher.waitForExit(), 0, watcher.transcript)
      XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the watcher waited for the debounce")
      XCTAssertEqual(watcher.all("saved").count, 1, "round \(round): \(watcher.transcript)")
      XCTAssertEqual(watcher.events.last?.event, "stopped", watcher.transcript)
      XCTAssertEqual(try repo.commitCount(), before + 1, "round \(round)")
      try assertCommittedAsWritten("inbox/plan.md", edited)
      try assertClean()
      edited = try repo.read("inbox/plan.md")
    }
  }

  /// SIGINT and SIGHUP too commit what is pending and exit 0.
  func testSIGINTAndSIGHUPCommitPendingEdits() throws {
    try makeRepository()
    for (n, signal) in [SIGINT, SIGHUP].enumerated() {
      let watcher = try startWatch(["--debounce", "5s"])
      try repo.write("inbox/s\(n).md", "stopped by signal \(signal)\n")
      // After the edit has been seen (a file event, not yet saved), so this is about what is pending.
      usleep(200_000)
      XCTAssertEqual(watcher.all("saved").count, 0)
      watcher.send(signal)
      XCTAssertEqual(try watcher.waitForExit(), 0, watcher.transcript)
      XCTAssertEqual(watcher.all("saved").count, 1, watcher.transcript)
      try assertNewNoteCommitted("inbox/s\(n).md", body: "stopped by signal \(signal)\n")
    }
    try assertClean()
  }

  /// `kill -9` while many files are written and committed, then a restart: afterwards the work tree is clean and
  /// HEAD holds every file's last content. Even rounds kill at a random moment; odd rounds kill inside a save, a
  /// few milliseconds after nb's operation journal (`.git/nb/journal/log`, written from the first stamp until the
  /// commit is done) appears. More rounds run until at least one kill has left the journal behind.
  func testKill9DuringCommitThenRestartLosesNothing() throws {
    try makeRepository()
    let journal = repo.url(".git/nb/journal/log").path
    var killedMidSave = 0
    var killedWithChangesPending = 0
    var round = 0
    while round < 4 || (killedMidSave == 0 && round < 8) {
      defer { round += 1 }
      let watcher = try startWatch(["--debounce", "100ms"])
      let how: String
      if round % 2 == 0 {
        let delay = Double.random(in: 0.05...0.9)
        how = "killed \(Int(delay * 1000)) ms after the first write"
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { watcher.send(SIGKILL) }
      } else {
        let save = Int.random(in: 1...2)
        let delay = UInt32.random(in: 0...5_000)
        how = "killed \(delay) µs into save \(save)"
        Thread.detachNewThread {
          var seen = 0
          var inSave = false
          let deadline = Date().addingTimeInterval(5)
          while Date() < deadline {
            let exists = FileManager.default.fileExists(atPath: journal)
            if exists, !inSave { seen += 1 }
            inSave = exists
            if seen == save {
              usleep(delay)
              break
            }
            usleep(200)
          }
          watcher.send(SIGKILL)
        }
      }
      // 240 new files in four bursts with quiet gaps longer than the debounce, so saves run when the kill comes;
      // earlier rounds' notes change too (their front matter kept).
      var expected: [String: String] = [:]
      for burst in 0..<4 {
        for k in 0..<60 {
          let path = "kill/r\(round)/b\(burst)/n\(k).md"
          let body = "round \(round), burst \(burst), file \(k)\n"
          try repo.write(path, body)
          expected[path] = body
        }
        if round > 0 {
          for k in stride(from: burst, to: 60, by: 4) {
            let path = "kill/r\(round - 1)/b\(burst)/n\(k).md"
            let text = try repo.read(path) + "edited in round \(round)\n"
            try repo.write(path, text)
            expected[path] = text
          }
        }
        usleep(150_000)
      }
      XCTAssertEqual(try watcher.waitForExit(), 128 + SIGKILL, "round \(round): \(watcher.transcript)")
      if FileManager.default.fileExists(atPath: journal) { killedMidSave += 1 }
      if try !repo.status().isEmpty { killedWithChangesPending += 1 }

      let restarted = try startWatch(["--debounce", "100ms"])
      try waitUntil("round \(round): everything committed after the restart", detail: { restarted.transcript }) {
        try repo.status().isEmpty
      }
      XCTAssertEqual(try restarted.stop(), 0, restarted.transcript)
      XCTAssert(
        restarted.all("notice").allSatisfy { $0.kind != "error" && $0.kind != "paused" }, restarted.transcript)
      // A clean status (untracked files included) says every file on disk is in HEAD byte for byte; so the disk's
      // content is HEAD's, and it must hold every line written.
      try assertClean()
      XCTAssertFalse(FileManager.default.fileExists(atPath: journal), "round \(round): the journal stayed")
      let tracked = Set(try repo.trackedFiles())
      for (path, text) in expected.sorted(by: { $0.key < $1.key }) {
        XCTAssert(tracked.contains(path), "round \(round) (\(how)): \(path) is not in HEAD")
        let now = try repo.read(path)
        for line in Self.withoutStamp(text).components(separatedBy: "\n") where !line.isEmpty && line != "---" {
          XCTAssert(now.contains(line), "round \(round): \(path) lost '\(line)':\n\(now)")
        }
      }
    }
    XCTAssertNoThrow(try repo.git.fsck())
    XCTAssertGreaterThan(killedWithChangesPending, 0, "no kill left anything pending; the test proved little")
    XCTAssertGreaterThan(killedMidSave, 0, "no kill landed inside a save in \(round) rounds")
  }

  /// The repository deleted while watching: exit status 1 and a message naming it.
  func testRepositoryDeletedExitsWithMessage() throws {
    try makeRepository()
    let watcher = try startWatch(["--debounce", "200ms"])
    try FileManager.default.removeItem(at: repo.root)
    XCTAssertEqual(try watcher.waitForExit(), 1, watcher.transcript)
    XCTAssert(watcher.stderr.contains(repo.root.path), "the message does not name the repository: \(watcher.stderr)")
    XCTAssertEqual(watcher.stderr.split(separator: "\n").count, 1, watcher.stderr)
  }

  /// A repository mid-merge (`MERGE_HEAD`): saving pauses with one notice, nothing is committed while it lasts,
  /// and it resumes (and commits) once the merge is over.
  func testMidMergePausesAndResumes() throws {
    try makeRepository()
    try seed([("inbox/plan.md", Self.note(id: 1, title: "Plan", body: "one\n"))])
    let before = try repo.commitCount()
    let watcher = try startWatch(["--debounce", "200ms"])
    let mark = watcher.mark
    // The person starts a merge by hand while the watcher runs.
    let mergeHead = repo.url(".git/MERGE_HEAD")
    try Data((try repo.head() + "\n").utf8).write(to: mergeHead)
    let edited = Self.note(id: 1, title: "Plan", body: "one\nwritten while merging\n")
    try repo.write("inbox/plan.md", edited)
    let paused = try watcher.waitForNotice("paused", after: mark)
    XCTAssert(paused.string("message")?.isEmpty == false)
    // Past one retry (every 2 s): still paused, said once, nothing committed.
    try repo.write("inbox/more.md", "more while merging\n")
    usleep(2_500_000)
    XCTAssertEqual(watcher.all("notice", kind: "paused").count, 1, watcher.transcript)
    XCTAssertEqual(watcher.all("saved").count, 0, watcher.transcript)
    XCTAssertEqual(try repo.commitCount(), before)

    try FileManager.default.removeItem(at: mergeHead)
    let resumedMark = watcher.mark
    try watcher.waitForNotice("resumed", after: resumedMark)
    let saved = try watcher.waitForSave(after: resumedMark)
    XCTAssertEqual(Set(saved.savedPaths), ["inbox/plan.md", "inbox/more.md"], saved.line)
    try assertCommittedAsWritten("inbox/plan.md", edited)
    try assertNewNoteCommitted("inbox/more.md", body: "more while merging\n")
    try assertClean()
    XCTAssertEqual(try watcher.stop(), 0)
  }

  /// `--on-commit` runs after each commit with `{{count}}`/`{{commit}}` substituted and NB_COUNT, NB_COMMIT and
  /// NB_PATHS in its environment.
  func testOnCommitHookRuns() throws {
    try makeRepository()
    let output = temp.file("hook.out")
    let hook =
      #"printf '%s|%s|%s|%s|%s\n' "{{count}}" "$NB_COUNT" "{{commit}}" "$NB_COMMIT" "#
      + #""$(printf '%s' "$NB_PATHS" | tr '\n' ',')" >> "# + output.path
    let watcher = try startWatch(["--debounce", "200ms", "--on-commit", hook])
    let mark = watcher.mark
    for name in ["a", "b", "c"] { try repo.write("inbox/\(name).md", "note \(name)\n") }
    let saved = try watcher.waitForSave(after: mark)
    let commit = try XCTUnwrap(saved.string("commit"))
    XCTAssertEqual(saved.int("count"), 3)
    var line = ""
    try waitUntil("the hook wrote its line", detail: { watcher.transcript }) {
      line = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
      return line.hasSuffix("\n")
    }
    let fields = line.trimmingCharacters(in: .newlines).split(separator: "|", omittingEmptySubsequences: false)
      .map(String.init)
    XCTAssertEqual(fields.count, 5, line)
    guard fields.count == 5 else { return }
    XCTAssertEqual(fields[0], "3")
    XCTAssertEqual(fields[1], "3")
    XCTAssertEqual(fields[2], commit)
    XCTAssertEqual(fields[3], commit)
    XCTAssertEqual(Set(fields[4].split(separator: ",").map(String.init)), ["inbox/a.md", "inbox/b.md", "inbox/c.md"])
    XCTAssertEqual(try repo.head(), commit)
    XCTAssertEqual(try watcher.stop(), 0)
  }

  /// `--debounce 5x`: a non-zero exit, one line naming the argument, and nothing changed.
  func testBadDebounceIsRefused() throws {
    try makeRepository()
    let head = try repo.head()
    let files = try listing()
    let result = try repo.nb(["watch", "--debounce", "5x", "--dir", repo.root.path])
    XCTAssertNotEqual(result.status, 0)
    let lines = result.stderr.split(separator: "\n")
    XCTAssertEqual(lines.count, 1, "stderr should be one line:\n\(result.stderr)")
    XCTAssert(result.stderr.contains("--debounce") && result.stderr.contains("5x"), result.stderr)
    XCTAssertEqual(result.stdout, "")
    XCTAssertEqual(try repo.head(), head)
    XCTAssertEqual(try listing(), files)
    try assertClean()
  }

  /// `.nb/config.yaml`'s `watch: {debounce: ...}` is used (the command line comes first); a bad value there is an
  /// error naming the file and the key.
  func testConfigDebounceIsHonoured() throws {
    try makeRepository()
    let config = try repo.read(".nb/config.yaml")
    try repo.write(".nb/config.yaml", config + "watch:\n  debounce: 700ms\n")
    try repo.git.run("commit", "-q", "-am", "watch settings")

    let watcher = try startWatch()
    XCTAssertEqual(watcher.all("started").first?.int("debounce_ms"), 700, watcher.transcript)
    let mark = watcher.mark
    try repo.write("inbox/timed.md", "timed\n")
    let written = Date()
    try watcher.waitForSave(after: mark)
    XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(written), 0.7, "saved before the configured debounce")
    XCTAssertEqual(try watcher.stop(), 0)

    let overridden = try startWatch(["--debounce", "150ms"])
    XCTAssertEqual(overridden.all("started").first?.int("debounce_ms"), 150, overridden.transcript)
    XCTAssertEqual(try overridden.stop(), 0)

    try repo.write(".nb/config.yaml", config + "watch:\n  debounce: soon\n")
    let head = try repo.head()
    let status = try repo.status()
    let result = try repo.nb(["watch", "--dir", repo.root.path])
    XCTAssertNotEqual(result.status, 0)
    XCTAssert(result.stderr.contains(".nb/config.yaml"), result.stderr)
    XCTAssert(result.stderr.contains("watch.debounce"), result.stderr)
    XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
    XCTAssertEqual(try repo.head(), head)
    XCTAssertEqual(try repo.status(), status)
  }

  /// Every path below the repository (`.git` included, as names only): a refused command creates nothing.
  private func listing() throws -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: repo.root.path)
    var paths: [String] = []
    while let path = enumerator?.nextObject() as? String { paths.append(path) }
    return paths.sorted()
  }
}

import Foundation
import NBTestSupport
import XCTest

/// What a successful `nb sync` tidies up after the exchange: backup references older than `backup_days` are
/// deleted (by the time in their names), and a bare remote's HEAD left naming a missing branch is pointed at the
/// published one — or, where nb cannot reach the repository's files, the summary says how to fix it.
class SyncHousekeepingScenarios: TwoDeviceTestCase {
  /// Device A: `nb init`, a remote, one note, and its first sync (publishing).
  func publish(file: StaticString = #filePath, line: UInt = #line) throws -> SyncJSON {
    try a.ok("init", a.root.path, file: file, line: line)
    try a.ok("remote", "add", "origin", remoteURL(), file: file, line: line)
    try a.add("First", content: "one\n", file: file, line: line)
    return try a.sync(file: file, line: line)
  }

  /// Replaces the bare remote with one made by `git init --bare` whose HEAD names `master`, as on a machine where
  /// `init.defaultBranch` is `master`.
  func remakeRemoteWithMasterHead() throws {
    try FileManager.default.removeItem(at: bare)
    try GitCLI(workTree: remotes, home: a.runner.home).run(
      "-c", "init.defaultBranch=master", "init", "-q", "--bare", "r.git")
    XCTAssertEqual(try remoteHead(), "refs/heads/master")
  }

  /// The branch the bare remote's HEAD names, as git reads it.
  func remoteHead() throws -> String {
    try bareGit.run("symbolic-ref", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
  }

  // MARK: - Backups

  /// Device A's backup references, sorted.
  func backups() throws -> [String] {
    try a.git.run("for-each-ref", "--format=%(refname)", "refs/nb/backup").split(separator: "\n").map(String.init)
      .sorted()
  }

  /// A backup reference to HEAD named like sync's, for a time `days` ago; made with `git update-ref`.
  func makeBackup(daysAgo days: Double) throws -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
    let stamp = formatter.string(from: Date().addingTimeInterval(-days * 86_400))
    let head = try a.head()
    let name = "refs/nb/backup/\(stamp)-\(head.prefix(7))"
    try a.git.run("update-ref", name, head)
    return name
  }

  /// Sets `backup_days` in `.nb/config.yaml` and commits it with git.
  func setBackupDays(_ value: String) throws {
    let path = a.root.appendingPathComponent(".nb/config.yaml")
    var text = try String(contentsOf: path, encoding: .utf8)
    text = text.split(separator: "\n").filter { !$0.hasPrefix("backup_days:") }.joined(separator: "\n")
    text += "\nbackup_days: \(value)\n"
    try Data(text.utf8).write(to: path)
    try a.git.run("commit", "-qam", "backup_days: \(value)")
  }

  /// Backups older than 30 days go at the end of a sync, younger ones and names nb did not write stay; `backup_days`
  /// moves the window, `0` keeps everything, and a value that is not a number prunes nothing and says so.
  func scenarioBackupsOlderThanTheWindowArePruned() throws {
    XCTAssertEqual(try publish().outcome, "published")
    let old = try makeBackup(daysAgo: 40)
    let justOutside = try makeBackup(daysAgo: 30.5)
    let recent = try makeBackup(daysAgo: 29)
    let today = try makeBackup(daysAgo: 0)
    try a.git.run("update-ref", "refs/nb/backup/made-by-hand", try a.head())
    XCTAssertEqual(try backups(), [old, justOutside, recent, today, "refs/nb/backup/made-by-hand"].sorted())

    let upToDate = try a.sync()
    XCTAssertEqual(upToDate.outcome, "up-to-date")
    XCTAssertEqual(upToDate.warnings, [])
    XCTAssertEqual(try backups(), [recent, today, "refs/nb/backup/made-by-hand"].sorted())

    // 0 keeps every backup, however old.
    let ancient = try makeBackup(daysAgo: 400)
    try setBackupDays("0")
    XCTAssertEqual(try a.sync().outcome, "pushed")
    XCTAssertEqual(try backups(), [ancient, recent, today, "refs/nb/backup/made-by-hand"].sorted())

    // A narrower window prunes what the default kept.
    try setBackupDays("2")
    XCTAssertEqual(try a.sync().outcome, "pushed")
    XCTAssertEqual(try backups(), [today, "refs/nb/backup/made-by-hand"].sorted())

    // A typo must not delete anything.
    let yesterday = try makeBackup(daysAgo: 5)
    try setBackupDays("thirty")
    let typo = try a.sync()
    XCTAssertEqual(typo.warnings.count, 1, "\(typo.warnings)")
    XCTAssertTrue(typo.warnings.first?.contains("backup_days 'thirty'") == true, "\(typo.warnings)")
    XCTAssertEqual(try backups(), [yesterday, today, "refs/nb/backup/made-by-hand"].sorted())
  }

  // MARK: - The remote's HEAD

  /// A local bare remote whose HEAD names `master`: publishing `main` points HEAD at it, so a plain `git clone`
  /// checks the notes out; a HEAD naming a branch that exists is left alone.
  func scenarioLocalBareRemoteHeadFollowsThePublishedBranch() throws {
    try remakeRemoteWithMasterHead()
    let published = try publish()
    XCTAssertEqual(published.outcome, "published")
    XCTAssertEqual(published.remote, "origin/main")
    XCTAssertEqual(published.warnings, [])
    XCTAssertEqual(try remoteHead(), "refs/heads/main")

    let clone = temp.file("plain-clone")
    let result = try GitCLI(workTree: temp.directory("clones"), home: a.runner.home).result([
      "clone", "-q", bare.path, clone.path,
    ])
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(
      try Data(contentsOf: clone.appendingPathComponent("inbox/first.md")),
      try Data(contentsOf: a.root.appendingPathComponent("inbox/first.md")))
    XCTAssertNoThrow(try bareGit.fsck())

    try bareGit.run("branch", "other", "main")
    try bareGit.run("symbolic-ref", "HEAD", "refs/heads/other")
    try a.add("Second", content: "two\n")
    XCTAssertEqual(try a.sync().outcome, "pushed")
    XCTAssertEqual(try remoteHead(), "refs/heads/other", "the owner's choice of HEAD is kept")
  }

  /// Over a transport nb cannot change the remote's HEAD through, the summary says how to fix it — once, and only
  /// while the HEAD names a missing branch.
  func scenarioRemoteHeadNamingNoBranchIsReported() throws {
    try remakeRemoteWithMasterHead()
    let published = try publish()
    XCTAssertEqual(published.outcome, "published")
    let fix = "git symbolic-ref HEAD refs/heads/main"
    XCTAssertEqual(published.warnings.filter { $0.contains(fix) }.count, 1, "\(published.warnings)")
    XCTAssertEqual(published.warnings.count, 1, "\(published.warnings)")
    XCTAssertEqual(try remoteHead(), "refs/heads/master", "nb does not reach into a server's files")
    XCTAssertEqual(try a.sync().warnings.filter { $0.contains(fix) }.count, 1, "still broken, still said")

    try bareGit.run("symbolic-ref", "HEAD", "refs/heads/main")
    try a.add("Second", content: "two\n")
    let fixed = try a.sync()
    XCTAssertEqual(fixed.outcome, "pushed")
    XCTAssertEqual(fixed.warnings, [])
  }
}

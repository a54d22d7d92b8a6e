import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `nb watch --sync`: two devices converging through one bare remote, and a remote that goes away and comes back.
final class WatchSyncTests: WatchTestCase {
  /// The bare remote `remotes/r.git`.
  private var bare: URL!
  private var bareGit: GitCLI!
  /// Devices A ("laptop", `<temp>/a`) and B ("desktop", `<temp>/b`).
  private var a: Checkout!
  private var b: Checkout!

  override func setUpWithError() throws {
    try super.setUpWithError()
    let remotes = try temp.directory("remotes")
    bare = remotes.appendingPathComponent("r.git")
    a = try makeCheckout("laptop", directory: "a")
    b = try makeCheckout("desktop", directory: "b")
    try GitCLI(workTree: remotes, home: a.runner.home).run("init", "-q", "--bare", "--initial-branch=main", "r.git")
    bareGit = try GitCLI(workTree: bare, home: a.runner.home)
  }

  private var remoteURL: String { "file://" + bare.path }

  /// A: `nb init`, `nb remote add origin file://…`, the notes saved, `nb sync` (publishing). B: `nb clone`, unless
  /// `clone` is false.
  private func share(_ notes: [(path: String, text: String)], clone: Bool = true) throws {
    try a.ok("init", a.root.path)
    try a.ok("remote", "add", "origin", remoteURL)
    for note in notes { try a.write(note.path, note.text) }
    try a.ok("save")
    try a.ok("sync", "--device", a.name)
    XCTAssertEqual(try remoteHead(), try a.head())
    if clone {
      try b.ok("clone", remoteURL, b.root.path)
      XCTAssertEqual(try b.head(), try a.head())
    }
  }

  private func remoteHead(_ git: GitCLI? = nil) throws -> String {
    try (git ?? bareGit).revParse("refs/heads/main")
  }

  /// Every `.md` file's text in HEAD of `checkout`.
  private func notesAtHead(_ checkout: Checkout) throws -> [String: String] {
    var notes: [String: String] = [:]
    for path in try checkout.trackedFiles() where path.hasSuffix(".md") {
      notes[path] = try checkout.committed(path)
    }
    return notes
  }

  /// Two watchers with `--sync` (debounce 200 ms, interval 1 s) on two clones: each device edits its own note and
  /// adds one, and both edit the same note at once; they converge on one tree that holds every edit (the same
  /// note's two versions merged or one of them in a conflict copy), with nothing left uncommitted.
  func testTwoSyncingWatchersConverge() throws {
    try share([
      ("inbox/shared.md", Self.note(id: 1, title: "Shared", body: "top\nmiddle\nbottom\n")),
      ("inbox/laptop.md", Self.note(id: 2, title: "Laptop", body: "laptop note\n")),
      ("inbox/desktop.md", Self.note(id: 3, title: "Desktop", body: "desktop note\n")),
    ])
    let options = ["--sync", "--debounce", "200ms", "--interval", "1s"]
    let watchA = try startWatch(options + ["--device", a.name], checkout: a)
    let watchB = try startWatch(options + ["--device", b.name], checkout: b)
    XCTAssertEqual(watchA.all("started").first?.int("interval_ms"), 1000)
    XCTAssertEqual(watchB.all("started").first?.bool("sync"), true)

    try a.write("inbox/laptop.md", try a.read("inbox/laptop.md") + "edited on the laptop\n")
    try b.write("inbox/desktop.md", try b.read("inbox/desktop.md") + "edited on the desktop\n")
    try a.write("inbox/from-laptop.md", "new on the laptop\n")
    try b.write("inbox/from-desktop.md", "new on the desktop\n")
    // The same note, both sides, at once.
    try a.write(
      "inbox/shared.md", try a.read("inbox/shared.md").replacingOccurrences(of: "top\n", with: "top, laptop's\n"))
    try b.write(
      "inbox/shared.md", try b.read("inbox/shared.md").replacingOccurrences(of: "top\n", with: "top, desktop's\n"))

    let expected = [
      "edited on the laptop", "edited on the desktop", "new on the laptop", "new on the desktop", "top, laptop's",
      "top, desktop's",
    ]
    let detail = { watchA.transcript + "\n" + watchB.transcript }
    func converged() throws -> Bool {
      guard try a.status().isEmpty, try b.status().isEmpty else { return false }
      let head = try a.head()
      guard try b.head() == head, try remoteHead() == head else { return false }
      let texts = try notesAtHead(a).values.joined(separator: "\n")
      return expected.allSatisfy { texts.contains($0) }
    }
    try waitUntil("both devices at one head holding every edit", timeout: 30, detail: detail, converged)
    // Steady: a few more remote checks change nothing.
    let head = try a.head()
    usleep(2_500_000)
    XCTAssertEqual(try a.head(), head, detail())
    XCTAssertEqual(try b.head(), head, detail())
    XCTAssertEqual(try remoteHead(), head)

    XCTAssertEqual(try watchA.stop(), 0, watchA.transcript)
    XCTAssertEqual(try watchB.stop(), 0, watchB.transcript)
    XCTAssertEqual(try a.git.revParse("HEAD^{tree}"), try b.git.revParse("HEAD^{tree}"))
    try assertClean(a)
    try assertClean(b)
    XCTAssertNoThrow(try a.git.fsck())
    XCTAssertNoThrow(try b.git.fsck())
    XCTAssertNoThrow(try bareGit.fsck())
    for (path, text) in try notesAtHead(a) {
      XCTAssertEqual(try a.read(path), text, "laptop: \(path) differs from HEAD")
      XCTAssertEqual(try b.read(path), text, "desktop: \(path) differs from HEAD")
      XCTAssertFalse(text.contains("<<<<<<<") || text.contains(">>>>>>>"), "\(path) holds conflict markers")
    }
    XCTAssert(try a.read("inbox/laptop.md").contains("edited on the laptop"))
    XCTAssert(try b.read("inbox/laptop.md").contains("edited on the laptop"))
    XCTAssert(try a.read("inbox/desktop.md").contains("edited on the desktop"))
    XCTAssertNotNil(try b.committed("inbox/from-laptop.md"))
    XCTAssertNotNil(try a.committed("inbox/from-desktop.md"))
    // Each side's own edits were committed on that side (saved), and each received the other's (synced).
    for (watcher, other) in [(watchA, watchB), (watchB, watchA)] {
      XCTAssertFalse(watcher.all("saved").isEmpty, watcher.transcript)
      XCTAssert(watcher.all("synced").contains { ($0.int("received") ?? 0) > 0 }, watcher.transcript + other.name)
      // Both devices push at once: one push may lose the race for the remote's ref lock (said as an error, retried
      // with backoff); nothing else may go wrong.
      let errors = watcher.all("notice", kind: "error").filter { !($0.string("message") ?? "").contains("refused") }
      XCTAssertEqual(errors.count, 0, watcher.transcript)
    }
  }

  /// With `--sync`, the save each sync starts with leaves out what the watcher's own saves leave out: a note with
  /// malformed YAML and an editor's scratch file (one `.gitignore` does not cover) reach neither HEAD nor the
  /// remote, while the note written next to them is pushed.
  func testSyncCommitsNeitherUnreadableNotesNorScratchFiles() throws {
    try share([("inbox/plan.md", Self.note(id: 1, title: "Plan", body: "one\n"))], clone: false)
    let watcher = try startWatch(
      ["--sync", "--debounce", "200ms", "--interval", "1s", "--device", a.name], checkout: a)
    let mark = watcher.mark
    try a.write("inbox/bad.md", "---\ntitle: [unclosed\n---\nbody\n")
    try a.write("inbox/plan.md___jb_tmp___", "a JetBrains safe-write in progress\n")
    try a.write("inbox/good.md", "good\n")
    // The save is reported on its own and then pushed, or, when the watcher's first sync finds the files already
    // written (a race with its start), saved and pushed by that sync: either way a push follows the writes.
    _ = try watcher.wait(for: "the push", after: mark) {
      $0.event == "synced" && $0.string("outcome") == "pushed"
    }
    // One more remote check at least (interval 1 s): still nothing of them.
    usleep(1_200_000)
    XCTAssertEqual(try remoteHead(), try a.head())
    let tracked = try a.trackedFiles()
    XCTAssert(tracked.contains("inbox/good.md"), "\(tracked)")
    XCTAssertFalse(tracked.contains("inbox/bad.md"), "the unreadable note was committed:\n\(watcher.transcript)")
    XCTAssertFalse(tracked.contains("inbox/plan.md___jb_tmp___"), "a scratch file was committed")
    XCTAssertEqual(try a.read("inbox/bad.md"), "---\ntitle: [unclosed\n---\nbody\n")
    XCTAssertEqual(watcher.all("notice", kind: "unreadable").count, 1, watcher.transcript)
    XCTAssertEqual(watcher.all("notice", kind: "error").count, 0, watcher.transcript)
    XCTAssertEqual(try watcher.stop(), 0)
  }

  /// The remote unreachable (its directory renamed away): one `offline` notice, commits go on locally, then the
  /// directory comes back: one `online` notice and the commits arrive on the remote.
  func testOfflineThenOnline() throws {
    try share([("inbox/plan.md", Self.note(id: 1, title: "Plan", body: "one\n"))], clone: false)
    let published = try remoteHead()
    // Gone before the watcher starts, so its first sync (at start) already fails: no race with a sync under way.
    let away = bare.deletingLastPathComponent().appendingPathComponent("r-away.git")
    XCTAssertEqual(rename(bare.path, away.path), 0)
    let watcher = try startWatch(
      ["--sync", "--debounce", "200ms", "--interval", "1s", "--device", a.name], checkout: a)
    let offline = try watcher.waitForNotice("offline")
    XCTAssert(offline.string("message")?.contains("origin") == true, offline.line)

    var mark = watcher.mark
    try a.write("inbox/first.md", "written offline\n")
    try watcher.waitForSave(after: mark)

    // Committed locally. (By the watcher's save, or — when it lands while a retry runs — by the save the sync
    // starts with, which announces nothing when the sync then fails: so git, not a saved event, is the oracle.)
    try a.write("inbox/second.md", "also written offline\n")
    try waitUntil("the second note committed offline", detail: { watcher.transcript }) {
      let status = try a.status()
      return try a.committed("inbox/second.md") != nil && status.isEmpty
    }
    // Past two retries (1 s, then 2 s): still said once.
    usleep(3_200_000)
    XCTAssertEqual(watcher.all("notice", kind: "offline").count, 1, watcher.transcript)
    XCTAssertEqual(watcher.all("notice", kind: "online").count, 0, watcher.transcript)
    let local = try a.head()
    XCTAssertEqual(try remoteHead(try GitCLI(workTree: away, home: a.runner.home)), published)

    mark = watcher.mark
    XCTAssertEqual(rename(away.path, bare.path), 0)
    let online = try watcher.waitForNotice("online", after: mark)
    let onlineIndex = try XCTUnwrap(watcher.events.firstIndex { $0.line == online.line })
    let synced = try watcher.wait(for: "the sync after coming back", after: onlineIndex) { $0.event == "synced" }
    XCTAssertGreaterThanOrEqual(synced.int("sent") ?? 0, 2, synced.line)
    XCTAssertEqual(try remoteHead(), local)
    XCTAssertEqual(try a.head(), local)
    try assertNewNoteCommitted("inbox/second.md", body: "also written offline\n", in: a)
    XCTAssertEqual(try watcher.stop(), 0)
    XCTAssertEqual(watcher.all("notice", kind: "offline").count, 1, watcher.transcript)
    XCTAssertEqual(watcher.all("notice", kind: "online").count, 1, watcher.transcript)
    XCTAssertNoThrow(try bareGit.fsck())
  }
}

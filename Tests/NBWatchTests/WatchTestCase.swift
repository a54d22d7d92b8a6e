import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One repository with its own HOME, driven through the built `nb` binary, with the real git CLI as the oracle.
struct Checkout {
  /// The device name (`NB_DEVICE`, `--device`).
  var name: String
  /// The repository's root (not created until `nb init` / `nb clone`).
  var root: URL
  /// Runs nb with this checkout's HOME.
  var runner: NBRunner
  /// The real git in `root`, with this checkout's HOME.
  var git: GitCLI

  /// The environment nb (and the editors the tests run) get: the runner's isolated one plus `NB_DIR`/`NB_DEVICE`.
  var environment: [String: String] {
    var environment = runner.baseEnvironment
    environment["NB_DIR"] = root.path
    environment["NB_DEVICE"] = name
    return environment
  }

  /// Runs `nb <args>`; does not assert.
  @discardableResult
  func nb(_ args: [String]) throws -> ProcessResult {
    let cwd = FileManager.default.fileExists(atPath: root.path) ? root : runner.home
    return try ProcessRunner.run(
      runner.binary, arguments: args, environment: environment, currentDirectory: cwd, timeout: 60)
  }

  /// Runs `nb <args>` and fails the test unless it exits 0.
  @discardableResult
  func ok(_ args: String..., file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
    let result = try nb(args)
    XCTAssertEqual(
      result.status, 0, "[\(name)] nb \(args.joined(separator: " ")) failed: \(result.stderr)\(result.stdout)",
      file: file, line: line)
    return result
  }

  /// The URL of a repository-relative path.
  func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

  /// Writes `text` to a repository-relative file in place (open, truncate, write — as VS Code or nano do),
  /// creating directories.
  func write(_ relative: String, _ text: String) throws {
    let target = url(relative)
    try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: target)
  }

  /// The text of a repository-relative file.
  func read(_ relative: String) throws -> String {
    try String(contentsOf: url(relative), encoding: .utf8)
  }

  /// The committed text of `path` at `rev`, nil when it is not there.
  func committed(_ path: String, at rev: String = "HEAD") throws -> String? {
    let result = try git.result(["show", "\(rev):\(path)"])
    return result.succeeded ? result.stdout : nil
  }

  /// `git status --porcelain` (all untracked files) without git's optional index refresh, so the oracle never
  /// holds `index.lock` while the watcher saves.
  func status() throws -> String {
    try git.run("--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=all")
  }

  /// The paths HEAD holds.
  func trackedFiles() throws -> [String] {
    try git.run("ls-tree", "-r", "--name-only", "HEAD").split(separator: "\n").map(String.init)
  }

  /// `git rev-list --count HEAD`.
  func commitCount() throws -> Int {
    Int(try git.run("rev-list", "--count", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }

  /// `git rev-parse HEAD`.
  func head() throws -> String { try git.revParse("HEAD") }
}

/// Shared fixture for the end-to-end tests of `nb watch`: a temp directory with a checkout (its own HOME), watchers
/// started as real child processes (killed in tear-down if a test leaves one running), and helpers that wait with
/// a deadline instead of sleeping.
class WatchTestCase: XCTestCase {
  var temp: TemporaryDirectory!
  /// The repository most tests use: `<temp>/notes`, device "laptop".
  var repo: Checkout!
  private var watchers: [WatchProcess] = []

  override func setUpWithError() throws {
    try super.setUpWithError()
    temp = try TemporaryDirectory(prefix: "nb-watch-test")
    repo = try makeCheckout("laptop", directory: "notes")
  }

  override func tearDownWithError() throws {
    for watcher in watchers where watcher.isRunning { watcher.kill9() }
    watchers = []
    temp = nil
    try super.tearDownWithError()
  }

  /// A checkout with its own HOME below the test's temp directory.
  func makeCheckout(_ name: String, directory: String) throws -> Checkout {
    let home = try temp.directory("home-\(directory)")
    let root = temp.file(directory)
    return Checkout(
      name: name, root: root, runner: try NBRunner(home: home), git: try GitCLI(workTree: root, home: home))
  }

  /// `nb init` of `repo`.
  func makeRepository(file: StaticString = #filePath, line: UInt = #line) throws {
    try repo.ok("init", repo.root.path, file: file, line: line)
    XCTAssertEqual(try repo.status(), "", "nb init left changes", file: file, line: line)
  }

  // MARK: - Watchers

  /// Starts `nb watch --json --dir <root> <extra>` for `checkout` (default `repo`) and, unless told otherwise,
  /// waits for its `started` event.
  @discardableResult
  func startWatch(
    _ extra: [String] = [], checkout: Checkout? = nil, waitForStart: Bool = true
  ) throws -> WatchProcess {
    let checkout = checkout ?? repo!
    let watcher = try WatchProcess(
      name: checkout.name, binary: checkout.runner.binary,
      arguments: ["watch", "--json", "--dir", checkout.root.path] + extra, environment: checkout.environment,
      directory: checkout.runner.home)
    watchers.append(watcher)
    if waitForStart { try watcher.wait(for: "the started event") { $0.event == "started" } }
    return watcher
  }

  /// Waits until `condition` holds, checking every 20 ms; fails with `what` (and `detail()`) after `timeout`.
  func waitUntil(
    _ what: String, timeout: TimeInterval = 20, detail: () -> String = { "" }, _ condition: () throws -> Bool
  ) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !(try condition()) {
      if Date() >= deadline {
        throw WatchWaitError(description: "not true within \(timeout) s: \(what)\n\(detail())")
      }
      usleep(20_000)
    }
  }

  /// Runs `/bin/sh -c script sh args...` in the checkout's root with its environment; fails unless it exits 0.
  @discardableResult
  func sh(
    _ script: String, _ args: String..., in checkout: Checkout? = nil, file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> ProcessResult {
    let checkout = checkout ?? repo!
    let result = try ProcessRunner.run(
      "/bin/sh", arguments: ["-c", script, "sh"] + args, environment: checkout.environment,
      currentDirectory: checkout.root, timeout: 60)
    XCTAssertEqual(result.status, 0, "sh -c \(script): \(result.stderr)", file: file, line: line)
    return result
  }

  // MARK: - Notes and stamps

  /// A note with front matter (fixed id, a title, an old `updated`) and `body`.
  static func note(id: Int, title: String, body: String) -> String {
    "---\nid: \(noteID(id))\ntitle: \(title)\nupdated: 2020-01-02T03:04:05+00:00\n---\n\(body)"
  }

  /// A fixed, valid note id.
  static func noteID(_ n: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", n) }

  /// `text` without the `updated:` line of its front matter (the one line nb stamps on a save).
  static func withoutStamp(_ text: String) -> String {
    var lines = text.components(separatedBy: "\n")
    guard lines.first == "---", let end = lines.dropFirst().firstIndex(of: "---") else { return text }
    if let stamp = lines[1..<end].firstIndex(where: { $0.hasPrefix("updated: ") }) { lines.remove(at: stamp) }
    return lines.joined(separator: "\n")
  }

  /// The front matter value of `key`, as written.
  static func frontMatter(_ key: String, in text: String) -> String? {
    let lines = text.components(separatedBy: "\n")
    guard lines.first == "---", let end = lines.dropFirst().firstIndex(of: "---") else { return nil }
    return lines[1..<end].first { $0.hasPrefix("\(key): ") }.map { String($0.dropFirst(key.count + 2)) }
  }

  /// Fails unless HEAD holds `path` with exactly `written` apart from a fresh `updated:` stamp, and the work tree's
  /// file is what was committed.
  func assertCommittedAsWritten(
    _ path: String, _ written: String, in checkout: Checkout? = nil, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    let checkout = checkout ?? repo!
    guard let committed = try checkout.committed(path) else {
      return XCTFail("[\(checkout.name)] \(path) is not in HEAD", file: file, line: line)
    }
    XCTAssertEqual(
      Self.withoutStamp(committed), Self.withoutStamp(written), "[\(checkout.name)] \(path) at HEAD", file: file,
      line: line)
    let stamp = Self.frontMatter("updated", in: committed).flatMap { ISO8601DateFormatter().date(from: $0) }
    XCTAssertNotNil(stamp, "[\(checkout.name)] \(path) has no updated stamp:\n\(committed)", file: file, line: line)
    if let stamp, written.contains("updated: 2020-") {
      XCTAssertGreaterThan(stamp.timeIntervalSinceNow, -300, "the stamp is not fresh", file: file, line: line)
    }
    XCTAssertEqual(
      try checkout.read(path), committed, "[\(checkout.name)] \(path) differs from HEAD", file: file, line: line)
  }

  /// Fails unless HEAD holds the new note `path` as `body` under front matter nb added (an id and `updated`).
  func assertNewNoteCommitted(
    _ path: String, body: String, in checkout: Checkout? = nil, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let checkout = checkout ?? repo!
    guard let committed = try checkout.committed(path) else {
      return XCTFail("[\(checkout.name)] \(path) is not in HEAD", file: file, line: line)
    }
    let lines = committed.components(separatedBy: "\n")
    guard lines.count >= 4, lines[0] == "---", let end = lines.dropFirst().firstIndex(of: "---") else {
      return XCTFail(
        "[\(checkout.name)] \(path) was committed without front matter:\n\(committed)", file: file, line: line)
    }
    XCTAssertEqual(
      lines[(end + 1)...].joined(separator: "\n"), body, "[\(checkout.name)] \(path)'s body", file: file, line: line)
    XCTAssertNotNil(
      Self.frontMatter("id", in: committed).flatMap(UUID.init(uuidString:)), "\(path) has no id", file: file, line: line
    )
    XCTAssertNotNil(Self.frontMatter("updated", in: committed), "\(path) has no updated", file: file, line: line)
    XCTAssertEqual(
      try checkout.read(path), committed, "[\(checkout.name)] \(path) differs from HEAD", file: file, line: line)
  }

  /// Fails unless `git status --porcelain` is empty.
  func assertClean(_ checkout: Checkout? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
    let checkout = checkout ?? repo!
    XCTAssertEqual(try checkout.status(), "", "[\(checkout.name)] git status", file: file, line: line)
  }

  /// Seeds `repo` with notes committed by `nb save` (before any watcher runs); returns their paths.
  @discardableResult
  func seed(_ notes: [(path: String, text: String)], file: StaticString = #filePath, line: UInt = #line) throws
    -> [String]
  {
    for note in notes { try repo.write(note.path, note.text) }
    try repo.ok("save", file: file, line: line)
    try assertClean(file: file, line: line)
    return notes.map(\.path)
  }
}

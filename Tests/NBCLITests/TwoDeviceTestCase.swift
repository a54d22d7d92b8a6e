import Foundation
import NBTestSupport
import XCTest

/// Two devices syncing through one bare remote, over a chosen transport. Scenario helpers set up a shared starting
/// point, let each device edit, sync in a given order, and then check with the git CLI that both devices converged
/// and nothing anyone committed was lost.
class TwoDeviceTestCase: XCTestCase {
  /// The transport this test class runs over; subclasses override.
  var transport: SyncTransport { .file }

  var temp: TemporaryDirectory!
  /// The directory the bare remotes live in (and `git daemon` serves).
  var remotes: URL!
  /// The bare remote `r.git`.
  var bare: URL!
  /// The git CLI on the bare remote.
  var bareGit: GitCLI!
  var daemon: GitDaemon?
  var httpServer: GitHTTPServer?
  /// Device A ("laptop") and device B ("desktop").
  var a: Device!
  var b: Device!
  /// The commit both devices shared before the scenario's edits.
  var baseCommit: String?

  override func setUpWithError() throws {
    try super.setUpWithError()
    temp = try TemporaryDirectory(prefix: "nb-sync-test")
    remotes = try temp.directory("remotes")
    bare = remotes.appendingPathComponent("r.git")
    a = try makeDevice("laptop", directory: "a")
    b = try makeDevice("desktop", directory: "b")
    try GitCLI(workTree: remotes, home: a.runner.home).run("init", "-q", "--bare", "--initial-branch=main", "r.git")
    bareGit = try GitCLI(workTree: bare, home: a.runner.home)
    switch transport {
    case .daemon:
      daemon = try GitDaemon(basePath: remotes, environment: bareGit.environment)
    case .http:
      try XCTSkipUnless(GitHTTPServer.isAvailable, "python3 is needed for the HTTP test server")
      httpServer = try GitHTTPServer(basePath: remotes, environment: bareGit.environment)
    case .path, .file:
      break
    }
  }

  override func tearDownWithError() throws {
    daemon?.stop()
    daemon = nil
    httpServer?.stop()
    httpServer = nil
    temp = nil
    try super.tearDownWithError()
  }

  /// A device with its own HOME below the test's temp directory.
  func makeDevice(_ name: String, directory: String) throws -> Device {
    let home = try temp.directory("home-\(directory)")
    let root = temp.file(directory)
    return Device(name: name, root: root, runner: try NBRunner(home: home), git: try GitCLI(workTree: root, home: home))
  }

  /// How devices address the bare repository `name` over this class's transport.
  func remoteURL(_ name: String = "r.git") -> String {
    let location = remotes.appendingPathComponent(name)
    switch transport {
    case .path: return location.path
    case .file: return "file://" + location.path
    case .daemon: return daemon!.url(name)
    case .http: return httpServer!.url(name)
    }
  }

  // MARK: - Scenario set-up

  /// Device A: `nb init`, `nb remote add`, the given notes `(title, notebook, content)`, first sync (publishing).
  /// Device B: `nb clone`. Records the shared commit as `baseCommit`; returns the notes' paths and ids in order.
  @discardableResult
  func share(
    _ notes: [Seed], file: StaticString = #filePath, line: UInt = #line
  ) throws -> [(path: String, id: String)] {
    try a.ok("init", a.root.path, file: file, line: line)
    try a.ok("remote", "add", "origin", remoteURL(), file: file, line: line)
    var added: [(path: String, id: String)] = []
    for note in notes {
      added.append(
        try a.add(note.title, content: note.content, notebook: note.notebook, tags: note.tags, file: file, line: line))
    }
    let published = try a.sync(file: file, line: line)
    XCTAssertEqual(published.outcome, "published", file: file, line: line)
    try b.ok("clone", remoteURL(), b.root.path, file: file, line: line)
    baseCommit = try a.head()
    XCTAssertEqual(try b.head(), baseCommit, "the clone should be at the published commit", file: file, line: line)
    return added
  }

  /// After more set-up on device A: A syncs (sends), B syncs (receives), and `baseCommit` moves to the shared head.
  func settle(file: StaticString = #filePath, line: UInt = #line) throws {
    try a.sync(file: file, line: line)
    try b.sync(file: file, line: line)
    baseCommit = try a.head()
    XCTAssertEqual(try b.head(), baseCommit, "the devices should share a head after settling", file: file, line: line)
  }

  /// Syncs the devices in `order` (each must succeed), returning the summaries in order.
  @discardableResult
  func syncAll(_ order: [Device], file: StaticString = #filePath, line: UInt = #line) throws -> [SyncJSON] {
    try order.map { try $0.sync(file: file, line: line) }
  }

  // MARK: - Checks

  /// The full post-scenario check, on both devices, with the git CLI: identical trees (and HEADs), `git fsck
  /// --strict`, a clean `git status`, no conflict markers in any file, and every version either side committed
  /// still readable (see `assertNothingLost`). `exempt` names note ids whose side versions need not survive whole:
  /// notes deliberately deleted, or merged (the scenario checks the merged text itself).
  func assertConverged(
    tips: [String] = [], exempt: Set<String> = [], devices: [Device]? = nil, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    let devices = devices ?? [a, b]
    let (a, b) = (devices[0], devices[1])
    let treeA = try a.git.revParse("HEAD^{tree}")
    let treeB = try b.git.revParse("HEAD^{tree}")
    XCTAssertEqual(treeA, treeB, "the devices' trees differ", file: file, line: line)
    XCTAssertEqual(try a.head(), try b.head(), "the devices' HEADs differ", file: file, line: line)
    XCTAssertEqual(
      try bareGit.run("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines), try a.head(),
      "the remote's branch is not where the devices are", file: file, line: line)
    for device in devices {
      XCTAssertNoThrow(try device.git.fsck(), "[\(device.name)] git fsck --strict", file: file, line: line)
      XCTAssertEqual(try device.git.statusPorcelain(), "", "[\(device.name)] git status", file: file, line: line)
      for (path, data) in try Self.workTreeFiles(device.root) {
        let text = String(decoding: data, as: UTF8.self)
        for marker in ["<<<<<<<", ">>>>>>>"] where text.contains(marker) {
          XCTFail("[\(device.name)] \(path) contains a conflict marker \(marker)", file: file, line: line)
        }
      }
    }
    XCTAssertNoThrow(try bareGit.fsck(), "remote: git fsck --strict", file: file, line: line)
    try assertNothingLost(tips: tips, exempt: exempt, devices: devices, file: file, line: line)
  }

  /// Every version of every note either device ever committed is still readable:
  /// 1. every `.md` blob reachable from any ref on either device (backups and remote-tracking refs included) is
  ///    reachable from the converged HEAD, so `git log -p` shows it;
  /// 2. for each commit in `tips` (each side's head before the final syncs), every note whose body differs from the
  ///    base's version of that note (same id) is still in HEAD's tree with exactly that body, at its path or as a
  ///    conflict copy, unless its id is in `exempt`.
  func assertNothingLost(
    tips: [String], exempt: Set<String>, devices: [Device], file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let a = devices[0]
    let reachable = Set(try mdBlobs(a.git, revs: ["HEAD"]).keys)
    for device in devices {
      for (blob, path) in try mdBlobs(device.git, revs: ["--all"]) where !reachable.contains(blob) {
        XCTFail(
          "[\(device.name)] a version of \(path) (\(blob.prefix(8))) is not in the history of HEAD", file: file,
          line: line)
      }
    }
    let headBodies = Set(try notesAt(a.git, commit: "HEAD").values.map(\.body))
    let baseNotes = try baseCommit.map { try notesAt(a.git, commit: $0) } ?? [:]
    var baseBodyByID: [String: String] = [:]
    for note in baseNotes.values { if let id = note.id { baseBodyByID[id] = note.body } }
    for tip in tips {
      for (path, note) in try notesAt(a.git, commit: tip) {
        if let id = note.id, exempt.contains(id) { continue }
        if let id = note.id, baseBodyByID[id] == note.body { continue }
        XCTAssert(
          headBodies.contains(note.body), "the version of \(path) committed at \(tip.prefix(8)) is lost:\n\(note.body)",
          file: file, line: line)
      }
    }
  }

  /// Blob id → path of every `.md` file in the objects reachable from `revs`.
  func mdBlobs(_ git: GitCLI, revs: [String]) throws -> [String: String] {
    var result: [String: String] = [:]
    for row in try git.run(arguments: ["rev-list", "--objects"] + revs).split(separator: "\n") {
      let parts = row.split(separator: " ", maxSplits: 1)
      guard parts.count == 2, parts[1].hasSuffix(".md") else { continue }
      result[String(parts[0])] = String(parts[1])
    }
    return result
  }

  /// The notes (`.md` outside hidden directories) of a commit: path → (id, body after the front matter).
  func notesAt(_ git: GitCLI, commit: String) throws -> [String: (id: String?, body: String)] {
    var result: [String: (id: String?, body: String)] = [:]
    let paths = try git.run("ls-tree", "-r", "--name-only", commit).split(separator: "\n").map(String.init)
    for path in paths where path.hasSuffix(".md") && !path.split(separator: "/").contains(where: { $0.hasPrefix(".") })
    {
      let text = try git.show(commit, path: path)
      result[path] = Self.split(text)
    }
    return result
  }

  /// A note's `id` and the body after its front matter, read with plain string handling (not nb's parser).
  static func split(_ text: String) -> (id: String?, body: String) {
    let lines = text.components(separatedBy: "\n")
    guard lines.first == "---", let end = lines.dropFirst().firstIndex(where: { $0 == "---" || $0 == "..." }) else {
      return (nil, text)
    }
    let id = lines[1..<end].first(where: { $0.hasPrefix("id: ") }).map { String($0.dropFirst(4)) }
    return (id, lines[(end + 1)...].joined(separator: "\n"))
  }

  /// The value of a front matter key, as written (plain string handling).
  static func frontMatterValue(_ key: String, in text: String) -> String? {
    let lines = text.components(separatedBy: "\n")
    guard lines.first == "---", let end = lines.dropFirst().firstIndex(where: { $0 == "---" }) else { return nil }
    return lines[1..<end].first(where: { $0.hasPrefix("\(key): ") }).map { String($0.dropFirst(key.count + 2)) }
  }

  /// Every regular file below `root` except `.git`, by relative path.
  static func workTreeFiles(_ root: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let manager = FileManager.default
    func walk(_ directory: URL, _ prefix: String) throws {
      for name in try manager.contentsOfDirectory(atPath: directory.path) {
        if prefix.isEmpty && name == ".git" { continue }
        let item = directory.appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        _ = manager.fileExists(atPath: item.path, isDirectory: &isDirectory)
        if isDirectory.boolValue {
          try walk(item, prefix + name + "/")
        } else {
          files[prefix + name] = try Data(contentsOf: item)
        }
      }
    }
    try walk(root, "")
    return files
  }

  /// `yyyy-MM-ddTHH:mm:ss+00:00`, formatted independently of nb.
  static func rfc3339(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'+00:00'"
    return formatter.string(from: date)
  }

  /// The conflict-copy time stamp `yyyyMMddTHHmmssZ` of an RFC 3339 `updated` value, formatted independently of nb.
  static func compactUTC(_ rfc3339: String) -> String? {
    let parser = ISO8601DateFormatter()
    guard let date = parser.date(from: rfc3339) else { return nil }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
    return formatter.string(from: date)
  }

  /// A whole second some hours from now, so hand-set `updated` values order the edits (and stay trusted: < 24 h).
  static func hoursFromNow(_ hours: Double) -> Date {
    Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + hours * 3600).rounded(.down))
  }
}

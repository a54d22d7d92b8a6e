import Foundation
import NBTestSupport
import XCTest

/// One device: its own HOME, its own repository directory, driven only through the built `nb` binary, with the
/// real git CLI as the oracle.
struct Device {
  /// The device name passed as `nb sync --device` and `NB_DEVICE` (it ends up in commits and conflict-copy names).
  var name: String
  /// The repository's root (may not exist before `nb init` / `nb clone`).
  var root: URL
  /// Runs nb with this device's HOME.
  var runner: NBRunner
  /// The real git in `root`, with this device's HOME.
  var git: GitCLI

  /// Runs `nb <args>` with `NB_DIR` set to the repository and `NB_DEVICE` to the device's name (so every commit
  /// nb makes here, not only a sync's, names this device); does not assert.
  @discardableResult
  func nb(_ args: [String], env: [String: String] = [:]) throws -> ProcessResult {
    var environment = env
    environment["NB_DIR"] = root.path
    if environment["NB_DEVICE"] == nil { environment["NB_DEVICE"] = name }
    let cwd = FileManager.default.fileExists(atPath: root.path) ? root : runner.home
    return try runner.run(args, cwd: cwd, env: environment)
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

  /// `nb sync --device <name> --json <extra>`; fails the test unless it exits 0, and returns the summary.
  @discardableResult
  func sync(_ extra: String..., file: StaticString = #filePath, line: UInt = #line) throws -> SyncJSON {
    let args = ["sync", "--device", name, "--json"] + extra
    let result = try nb(args)
    XCTAssertEqual(
      result.status, 0, "[\(name)] nb \(args.joined(separator: " ")) failed: \(result.stderr)", file: file, line: line)
    do {
      return try SyncJSON(result.stdoutData)
    } catch {
      XCTFail("[\(name)] nb sync printed no summary: \(result.stdout)\(result.stderr)", file: file, line: line)
      throw error
    }
  }

  /// `nb add TITLE --content CONTENT [--notebook N] [--tags T]`; returns the note's path and id.
  @discardableResult
  func add(
    _ title: String, content: String, notebook: String? = nil, tags: String? = nil, file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> (path: String, id: String) {
    var args = ["add", title, "--content", content]
    if let notebook { args += ["--notebook", notebook] }
    if let tags { args += ["--tags", tags] }
    let result = try nb(args)
    XCTAssertEqual(result.status, 0, "[\(name)] nb add failed: \(result.stderr)", file: file, line: line)
    let words = result.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    return (words.first ?? "", words.dropFirst().first ?? "")
  }

  /// The conflict copies `nb conflicts --json` lists.
  func conflicts(file: StaticString = #filePath, line: UInt = #line) throws -> [ListedNote] {
    let result = try ok("conflicts", "list", "--json", file: file, line: line)
    return try JSONDecoder().decode([ListedNote].self, from: result.stdoutData)
  }

  /// The text of a repository-relative file.
  func read(_ relative: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
  }

  /// Writes text to a repository-relative file (as an editor would), creating directories.
  func write(_ relative: String, _ text: String) throws {
    let target = root.appendingPathComponent(relative)
    try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: target)
  }

  /// Replaces one exact line of a file (fails the test when the line is not there exactly once).
  func replaceLine(
    _ relative: String, _ old: String, with new: String, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    var lines = try read(relative).components(separatedBy: "\n")
    let hits = lines.indices.filter { lines[$0] == old }
    XCTAssertEqual(hits.count, 1, "[\(name)] '\(old)' should be one line of \(relative)", file: file, line: line)
    guard let index = hits.first else { return }
    lines[index] = new
    try write(relative, lines.joined(separator: "\n"))
  }

  /// Sets a note's `updated` line by hand (as another editor would), so the tests decide which edit is later.
  func setUpdated(_ relative: String, _ date: Date, file: StaticString = #filePath, line: UInt = #line) throws {
    var lines = try read(relative).components(separatedBy: "\n")
    guard let index = lines.firstIndex(where: { $0.hasPrefix("updated: ") }) else {
      return XCTFail("[\(name)] \(relative) has no updated line", file: file, line: line)
    }
    lines[index] = "updated: " + TwoDeviceTestCase.rfc3339(date)
    try write(relative, lines.joined(separator: "\n"))
  }

  /// Removes a repository-relative file.
  func remove(_ relative: String) throws {
    try FileManager.default.removeItem(at: root.appendingPathComponent(relative))
  }

  /// `git rev-parse HEAD`.
  func head() throws -> String { try git.revParse("HEAD") }

  /// Every ref with its target (`git for-each-ref`), HEAD, `git status` and the work tree's bytes.
  func fullSnapshot() throws -> String {
    var text = try git.run("for-each-ref", "--format=%(refname) %(objectname)")
    text += "HEAD " + (try git.result(["rev-parse", "--verify", "--quiet", "HEAD"]).stdout)
    text += "status\n" + (try git.statusPorcelain())
    for (path, data) in try TwoDeviceTestCase.workTreeFiles(root).sorted(by: { $0.key < $1.key }) {
      text += "file \(path) \(data.base64EncodedString())\n"
    }
    return text
  }
}

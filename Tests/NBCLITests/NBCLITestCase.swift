import Foundation
import NBTestSupport
import XCTest

/// Everything in a repository that an nb command could change: HEAD, the real git's view of the work tree, and the
/// bytes of every file outside `.git` (symlinks by their target, so a replaced link shows up too).
struct RepositorySnapshot: Equatable {
  /// `git rev-parse HEAD`, nil before the first commit.
  var head: String?
  /// `git status --porcelain=v1 --untracked-files=all`.
  var status: String
  /// Every work-tree file by repository-relative path; directories as `dir/` with empty data, symlinks as
  /// `-> target`.
  var files: [String: Data]

  /// The paths (and HEAD/status) that differ, for a readable failure instead of a dump of 50 MB of bytes.
  func differences(from other: RepositorySnapshot) -> [String] {
    var result: [String] = []
    if head != other.head { result.append("HEAD \(other.head ?? "nil") -> \(head ?? "nil")") }
    if status != other.status { result.append("git status:\n\(other.status)-> now:\n\(status)") }
    for path in Set(files.keys).union(other.files.keys).sorted() where files[path] != other.files[path] {
      switch (other.files[path], files[path]) {
      case (nil, _): result.append("added \(path)")
      case (_, nil): result.append("removed \(path)")
      default: result.append("changed \(path)")
      }
    }
    return result
  }
}

/// Shared fixture for end-to-end tests of the built `nb` binary: a temp directory holding an isolated HOME and a
/// repository directory, an `NBRunner` that runs nb there, and the real git CLI as the oracle.
///
/// Subclasses call `makeRepository()` in a test (or in their own `setUpWithError`) to get a fresh `nb init`ed
/// repository at `root`; `nb(...)` runs commands in it.
class NBCLITestCase: XCTestCase {
  /// The test's own temp directory (removed afterwards).
  var temp: TemporaryDirectory!
  /// The isolated HOME nb and git run with.
  var home: URL!
  /// The repository root, `<temp>/notes` (not created until `makeRepository()`).
  var root: URL!
  /// Runs the built `nb` binary.
  var runner: NBRunner!
  /// The real git, run in `root`.
  var git: GitCLI!

  override func setUpWithError() throws {
    try super.setUpWithError()
    temp = try TemporaryDirectory(prefix: "nb-cli-test")
    home = try temp.directory("home")
    root = temp.file("notes")
    runner = try NBRunner(home: home)
    git = try GitCLI(workTree: root, home: home)
  }

  override func tearDownWithError() throws {
    temp = nil
    try super.tearDownWithError()
  }

  // MARK: - Running nb

  /// Runs `nb <args>` with the repository as working directory and `NB_DIR` (so commands find it without `--dir`).
  /// `env` adds to or overrides the isolated environment. Does not assert anything.
  @discardableResult
  func nb(
    _ args: String..., stdin: String? = nil, env: [String: String] = [:], timeout: TimeInterval = 120
  ) throws -> ProcessResult {
    try nb(arguments: args, stdin: stdin.map { Data($0.utf8) }, env: env, timeout: timeout)
  }

  /// `nb(...)` with an argument array and raw standard-input bytes (e.g. non-UTF-8 or 50 MB).
  @discardableResult
  func nb(
    arguments: [String], stdin: Data? = nil, env: [String: String] = [:], timeout: TimeInterval = 120
  ) throws -> ProcessResult {
    try ProcessRunner.run(
      runner.binary, arguments: arguments, environment: environment(env), currentDirectory: workingDirectory,
      stdin: stdin, timeout: timeout)
  }

  /// Runs `nb <args>` and fails the test (with stderr) unless it exits 0; returns the result.
  @discardableResult
  func nbSucceeds(
    _ args: String..., stdin: String? = nil, env: [String: String] = [:], file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> ProcessResult {
    let result = try nb(arguments: args, stdin: stdin.map { Data($0.utf8) }, env: env)
    XCTAssertEqual(
      result.status, 0, "nb \(args.joined(separator: " ")) failed: \(result.stderr)", file: file, line: line)
    return result
  }

  /// Starts `nb <arguments>` without waiting (to run several at once, or to kill one mid-write).
  func launchNB(_ arguments: [String], stdin: Data? = nil, env: [String: String] = [:]) throws -> LaunchedProcess {
    try ProcessRunner.launch(
      runner.binary, arguments: arguments, environment: environment(env), currentDirectory: workingDirectory,
      stdin: stdin)
  }

  /// The environment nb runs with: the runner's isolated one, `NB_DIR` pointing at `root`, then `env`.
  func environment(_ env: [String: String] = [:]) -> [String: String] {
    var environment = runner.baseEnvironment
    environment["NB_DIR"] = root.path
    return environment.merging(env) { _, new in new }
  }

  private var workingDirectory: URL {
    FileManager.default.fileExists(atPath: root.path) ? root : home
  }

  // MARK: - Repository

  /// Creates the repository at `root` with `nb init` and checks, with the real git, that it is clean and has one
  /// commit. Call once per test.
  func makeRepository(file: StaticString = #filePath, line: UInt = #line) throws {
    try nbSucceeds("init", root.path, file: file, line: line)
    XCTAssertEqual(try git.statusPorcelain(), "", "nb init left changes", file: file, line: line)
    XCTAssertEqual(try commitCount(), 1, "nb init should make exactly one commit", file: file, line: line)
  }

  /// `nb add` with explicit content; returns the note's repository-relative path (the first word nb prints).
  @discardableResult
  func addNote(
    _ title: String, notebook: String? = nil, content: String = "", file: StaticString = #filePath, line: UInt = #line
  ) throws -> String {
    var args = ["add", title, "--content", content]
    if let notebook { args += ["--notebook", notebook] }
    let result = try nb(arguments: args)
    XCTAssertEqual(result.status, 0, "nb add \(title) failed: \(result.stderr)", file: file, line: line)
    return result.stdout.split(separator: " ").first.map(String.init) ?? ""
  }

  /// The URL of a repository-relative path.
  func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

  /// Writes bytes to a repository-relative path, creating directories.
  func write(_ relative: String, _ data: Data) throws {
    let target = url(relative)
    try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: target)
  }

  /// Writes UTF-8 text to a repository-relative path, creating directories.
  func write(_ relative: String, _ text: String) throws { try write(relative, Data(text.utf8)) }

  /// The bytes of a repository-relative file.
  func read(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }

  /// Commits everything in the work tree with the real git (to set up files nb did not write).
  func gitCommitAll(_ message: String = "setup by git") throws {
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", message)
  }

  /// `git rev-list --count HEAD`.
  func commitCount() throws -> Int {
    Int(try git.run("rev-list", "--count", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }

  // MARK: - Assertions

  /// HEAD, git status and every work-tree file's bytes, right now.
  func snapshot() throws -> RepositorySnapshot {
    let head = try git.result(["rev-parse", "--verify", "--quiet", "HEAD"])
    var files: [String: Data] = [:]
    let manager = FileManager.default
    func walk(_ directory: URL, _ prefix: String) throws {
      for name in try manager.contentsOfDirectory(atPath: directory.path) {
        if prefix.isEmpty && name == ".git" { continue }
        let item = directory.appendingPathComponent(name)
        let relative = prefix + name
        let attributes = try manager.attributesOfItem(atPath: item.path)
        switch attributes[.type] as? FileAttributeType {
        case .typeSymbolicLink:
          files[relative] = Data("-> \(try manager.destinationOfSymbolicLink(atPath: item.path))".utf8)
        case .typeDirectory:
          files[relative + "/"] = Data()
          try walk(item, relative + "/")
        default:
          files[relative] = try Data(contentsOf: item)
        }
      }
    }
    try walk(root, "")
    return RepositorySnapshot(
      head: head.succeeded ? head.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil,
      status: try git.statusPorcelain(), files: files)
  }

  /// Runs `body` and fails the test if HEAD, `git status` or any work-tree byte changed; returns what `body` returns.
  @discardableResult
  func assertNothingChanged<T>(
    _ message: String = "", file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T
  ) throws -> T {
    let before = try snapshot()
    let value = try body()
    let changes = try snapshot().differences(from: before)
    XCTAssert(
      changes.isEmpty, "\(message) changed the repository:\n" + changes.joined(separator: "\n"), file: file,
      line: line)
    return value
  }

  /// Fails unless `result` is a non-zero exit whose stderr is exactly one non-empty line containing every one of
  /// `needles` (case-sensitive); returns that line.
  @discardableResult
  func assertOneLineError(
    _ result: ProcessResult, mentioning needles: [String], file: StaticString = #filePath, line: UInt = #line
  ) -> String {
    XCTAssertNotEqual(result.status, 0, "expected a failure; stdout: \(result.stdout)", file: file, line: line)
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
    XCTAssertEqual(lines.count, 1, "stderr should be one line:\n\(result.stderr)", file: file, line: line)
    let first = lines.first.map(String.init) ?? ""
    for needle in needles {
      XCTAssert(first.contains(needle), "stderr does not mention '\(needle)': \(first)", file: file, line: line)
    }
    return first
  }

  /// Runs `nb <arguments>` expecting a refusal: non-zero exit, a one-line error mentioning `needles`, nothing changed.
  /// Returns the error line.
  @discardableResult
  func assertRefused(
    _ arguments: [String], stdin: Data? = nil, env: [String: String] = [:], mentioning needles: [String],
    file: StaticString = #filePath, line: UInt = #line
  ) throws -> String {
    let result = try assertNothingChanged("nb \(arguments.joined(separator: " "))", file: file, line: line) {
      try nb(arguments: arguments, stdin: stdin, env: env)
    }
    return assertOneLineError(result, mentioning: needles, file: file, line: line)
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A failed `git` command run by `GitCLI`.
public struct GitCLIError: Error, CustomStringConvertible {
  /// The arguments after `git`.
  public var arguments: [String]
  /// The result, with stderr explaining the failure.
  public var result: ProcessResult

  /// `git <args> exited <status>: <stderr>`.
  public var description: String {
    "git \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)\(result.stdout)"
  }
}

/// The real `git` executable as an independent oracle for tests, isolated from the machine's configuration:
/// its own HOME holding a `.gitconfig` with a fixed identity, no system config, `LC_ALL=C`.
public struct GitCLI {
  /// Where commands run (`git -C`).
  public var workTree: URL
  /// The isolated HOME.
  public var home: URL
  /// The identity written to HOME's `.gitconfig`.
  public static let userName = "Test User"
  /// The identity written to HOME's `.gitconfig`.
  public static let userEmail = "test@example.com"

  /// Prepares `home` (writes `.gitconfig` unless one exists) for running git in `workTree`.
  public init(workTree: URL, home: URL) throws {
    self.workTree = workTree
    self.home = home
    try Self.writeConfig(home: home)
  }

  /// Writes the isolated `.gitconfig` into `home` unless it already has one.
  public static func writeConfig(home: URL) throws {
    let config = home.appendingPathComponent(".gitconfig")
    guard !FileManager.default.fileExists(atPath: config.path) else { return }
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    let text = """
      [user]
      \tname = \(userName)
      \temail = \(userEmail)
      [init]
      \tdefaultBranch = main
      [advice]
      \tdetachedHead = false
      [core]
      \tautocrlf = false

      """
    try Data(text.utf8).write(to: config)
  }

  /// The isolated environment git runs with.
  public var environment: [String: String] {
    var env: [String: String] = [
      "HOME": home.path,
      "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
      "GIT_CONFIG_NOSYSTEM": "1",
      "LC_ALL": "C",
      "GIT_TERMINAL_PROMPT": "0",
      "GIT_PAGER": "cat",
      "PAGER": "cat",
    ]
    env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    return env
  }

  /// Runs `git <args>` and returns stdout; throws `GitCLIError` (with stderr) on a non-zero exit.
  @discardableResult
  public func run(_ args: String...) throws -> String {
    try run(arguments: args)
  }

  /// Runs `git <arguments>` and returns stdout; throws `GitCLIError` (with stderr) on a non-zero exit.
  @discardableResult
  public func run(arguments: [String], stdin: Data? = nil) throws -> String {
    let result = try result(arguments, stdin: stdin)
    guard result.succeeded else { throw GitCLIError(arguments: arguments, result: result) }
    return result.stdout
  }

  /// Runs `git <args>` and returns the result whatever the exit status.
  public func result(_ args: [String], stdin: Data? = nil) throws -> ProcessResult {
    try ProcessRunner.run(
      "git", arguments: ["-C", workTree.path] + args, environment: environment, stdin: stdin)
  }

  /// `git status --porcelain=v1 --untracked-files=all` output (empty when clean).
  public func statusPorcelain() throws -> String {
    try run("status", "--porcelain=v1", "--untracked-files=all")
  }

  /// The stat data the index records for `path`, as git reads them (`git ls-files --debug` without its first line).
  public func indexStat(_ path: String) throws -> String {
    let lines = try run("ls-files", "--debug", "--", path).split(separator: "\n")
    guard lines.first.map(String.init) == path else { return "" }
    return lines.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
  }

  /// The stat data of the work-tree file `path` now, in the words of ``indexStat(_:)``: what git would record for
  /// it (stage 0, no flags). Empty when the file cannot be read.
  public func workTreeStat(_ path: String) -> String {
    var info = stat()
    guard lstat(workTree.appendingPathComponent(path).path, &info) == 0 else { return "" }
    return """
      ctime: \(info.st_ctim.tv_sec):\(info.st_ctim.tv_nsec)
      mtime: \(info.st_mtim.tv_sec):\(info.st_mtim.tv_nsec)
      dev: \(UInt32(truncatingIfNeeded: info.st_dev))\tino: \(UInt32(truncatingIfNeeded: info.st_ino))
      uid: \(info.st_uid)\tgid: \(info.st_gid)
      size: \(info.st_size)\tflags: 0
      """
  }

  /// Runs `git fsck --strict`; throws when git reports a problem (dangling objects are not problems).
  @discardableResult
  public func fsck() throws -> String {
    let result = try result(["fsck", "--strict", "--no-progress"])
    let complaints = (result.stdout + result.stderr).split(separator: "\n").filter {
      !$0.hasPrefix("dangling ") && !$0.hasPrefix("Checking ") && !$0.hasPrefix("notice: ")
    }
    guard result.succeeded, complaints.isEmpty else {
      throw GitCLIError(arguments: ["fsck", "--strict"], result: result)
    }
    return result.stdout
  }

  /// Commit subjects of HEAD's history, newest first; empty when the branch is unborn.
  public func logSubjects() throws -> [String] {
    let head = try result(["rev-parse", "--verify", "--quiet", "HEAD"])
    guard head.succeeded else { return [] }
    return try run("log", "--format=%s").split(separator: "\n", omittingEmptySubsequences: false)
      .dropLast().map(String.init)
  }

  /// The content of `path` at `rev` (`git show <rev>:<path>`).
  public func show(_ rev: String, path: String) throws -> String {
    try run("show", "\(rev):\(path)")
  }

  /// `git rev-parse <rev>` without the newline.
  public func revParse(_ rev: String) throws -> String {
    try run("rev-parse", "--verify", rev).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

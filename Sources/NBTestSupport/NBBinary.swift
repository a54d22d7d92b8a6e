import Foundation

/// Locates the built `nb` executable for end-to-end tests.
public enum NBBinary {
  /// Why no binary was found.
  public struct NotFound: Error, CustomStringConvertible {
    /// The places that were checked.
    public var searched: [String]
    /// The list of places searched.
    public var description: String {
      "no nb executable found (build it, or set NB_BINARY); searched:\n" + searched.joined(separator: "\n")
    }
  }

  /// The `nb` executable: `$NB_BINARY` if set; else the build products directory of the running tests (which
  /// `swift test` builds `nb` into); else `.build*/<config>/nb` under the package root found from this file.
  public static func url(filePath: String = #filePath) throws -> URL {
    let environment = ProcessInfo.processInfo.environment
    if let override = environment["NB_BINARY"], !override.isEmpty {
      return URL(fileURLWithPath: override)
    }
    var searched: [String] = []
    for directory in productDirectories(filePath: filePath) {
      let candidate = directory.appendingPathComponent("nb")
      searched.append(candidate.path)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.standardizedFileURL }
    }
    throw NotFound(searched: searched)
  }

  /// Candidate products directories, most specific first.
  static func productDirectories(filePath: String) -> [URL] {
    var directories: [URL] = []
    // The test runner (`<products>/nbPackageTests.xctest` on Linux, `xctest` inside an Xcode bundle) lives in or
    // below the products directory that also holds `nb`.
    var starts: [URL] = []
    if let executable = Bundle.main.executableURL { starts.append(executable) }
    if let first = CommandLine.arguments.first { starts.append(URL(fileURLWithPath: first)) }
    starts.append(contentsOf: Bundle.allBundles.map(\.bundleURL))
    for start in starts {
      var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
      for _ in 0..<4 {
        directories.append(directory)
        directory = directory.deletingLastPathComponent()
      }
    }
    // Fallback: <package root>/.build*/{debug,release,<triple>/...} found from this source file.
    let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let fileManager = FileManager.default
    if let entries = try? fileManager.contentsOfDirectory(atPath: root.path) {
      for entry in entries.sorted() where entry.hasPrefix(".build") {
        let scratch = root.appendingPathComponent(entry)
        directories.append(scratch.appendingPathComponent("debug"))
        directories.append(scratch.appendingPathComponent("release"))
        if let triples = try? fileManager.contentsOfDirectory(atPath: scratch.path) {
          for triple in triples.sorted() where triple.contains("-") {
            directories.append(scratch.appendingPathComponent(triple).appendingPathComponent("debug"))
            directories.append(scratch.appendingPathComponent(triple).appendingPathComponent("release"))
          }
        }
      }
    }
    return directories
  }
}

/// Runs the `nb` executable with an isolated environment: its own HOME (with a git identity in `.gitconfig`),
/// `NO_COLOR=1`, no `NB_DIR`, `EDITOR` or `VISUAL` unless passed in `env`.
public struct NBRunner {
  /// The isolated HOME.
  public var home: URL
  /// The `nb` executable.
  public var binary: URL

  /// Prepares `home` (git identity) and uses `binary`, or `NBBinary.url()` when nil.
  public init(home: URL, binary: URL? = nil) throws {
    self.home = home
    self.binary = try binary ?? NBBinary.url()
    try GitCLI.writeConfig(home: home)
  }

  /// The environment nb runs with before `env` is applied.
  public var baseEnvironment: [String: String] {
    [
      "HOME": home.path,
      "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
      "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
      "NO_COLOR": "1",
      "LC_ALL": "C.UTF-8",
      "TERM": "dumb",
      "GIT_CONFIG_NOSYSTEM": "1",
    ]
  }

  /// Runs `nb <args>`; `env` entries are added to (and override) the isolated environment.
  public func run(
    _ args: [String], stdin: String? = nil, cwd: URL? = nil, env: [String: String] = [:], timeout: TimeInterval = 120
  ) throws -> ProcessResult {
    let environment = baseEnvironment.merging(env) { _, new in new }
    return try ProcessRunner.run(
      binary, arguments: args, environment: environment, currentDirectory: cwd ?? home,
      stdin: stdin.map { Data($0.utf8) }, timeout: timeout)
  }

  /// Starts `nb <args>` without waiting, e.g. to kill it mid-write.
  public func launch(_ args: [String], stdin: String? = nil, cwd: URL? = nil, env: [String: String] = [:]) throws
    -> LaunchedProcess
  {
    let environment = baseEnvironment.merging(env) { _, new in new }
    return try ProcessRunner.launch(
      binary, arguments: args, environment: environment, currentDirectory: cwd ?? home,
      stdin: stdin.map { Data($0.utf8) })
  }
}

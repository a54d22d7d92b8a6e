import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The outcome of a finished child process.
public struct ProcessResult: Sendable, Equatable {
  /// The exit status, or 128 + signal number when the process was killed by a signal.
  public var status: Int32
  /// Everything the process wrote to standard output.
  public var stdoutData: Data
  /// Everything the process wrote to standard error.
  public var stderrData: Data

  /// Creates a result.
  public init(status: Int32, stdoutData: Data, stderrData: Data) {
    self.status = status
    self.stdoutData = stdoutData
    self.stderrData = stderrData
  }

  /// Standard output decoded as UTF-8 (invalid bytes replaced).
  public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
  /// Standard error decoded as UTF-8 (invalid bytes replaced).
  public var stderr: String { String(decoding: stderrData, as: UTF8.self) }
  /// True when the exit status is 0.
  public var succeeded: Bool { status == 0 }
}

/// Why a process could not be run to completion.
public enum ProcessRunnerError: Error, CustomStringConvertible {
  /// No executable of that name on `PATH`.
  case executableNotFound(String)
  /// The process did not finish within the timeout and was killed.
  case timedOut(executable: String, arguments: [String], seconds: TimeInterval, partial: ProcessResult)
  /// Launching failed.
  case launchFailed(executable: String, underlying: Error)

  /// A readable explanation.
  public var description: String {
    switch self {
    case .executableNotFound(let name): return "executable not found on PATH: \(name)"
    case .timedOut(let executable, let arguments, let seconds, let partial):
      return "\(executable) \(arguments.joined(separator: " ")) timed out after \(seconds)s; stderr: \(partial.stderr)"
    case .launchFailed(let executable, let underlying): return "could not launch \(executable): \(underlying)"
    }
  }
}

/// Runs child processes without deadlocking on large output: both pipes are drained on their own threads while
/// stdin is fed from a third.
public enum ProcessRunner {
  /// Runs `executable` to completion.
  ///
  /// - Parameters:
  ///   - executable: a path, or a bare name looked up on the current process's `PATH`.
  ///   - environment: the child's complete environment; nil inherits this process's environment.
  ///   - currentDirectory: the child's working directory; nil keeps ours.
  ///   - stdin: bytes for standard input (then closed); nil connects `/dev/null`.
  ///   - timeout: seconds before the child is killed and `ProcessRunnerError.timedOut` thrown.
  public static func run(
    _ executable: String, arguments: [String] = [], environment: [String: String]? = nil,
    currentDirectory: URL? = nil, stdin: Data? = nil, timeout: TimeInterval = 120
  ) throws -> ProcessResult {
    try run(
      try resolve(executable), arguments: arguments, environment: environment, currentDirectory: currentDirectory,
      stdin: stdin, timeout: timeout)
  }

  /// Runs the executable at `executable` to completion (see the `String` overload).
  public static func run(
    _ executable: URL, arguments: [String] = [], environment: [String: String]? = nil,
    currentDirectory: URL? = nil, stdin: Data? = nil, timeout: TimeInterval = 120
  ) throws -> ProcessResult {
    let handle = try launch(
      executable, arguments: arguments, environment: environment, currentDirectory: currentDirectory, stdin: stdin)
    return try handle.wait(timeout: timeout)
  }

  /// The id of a process that has ended (`true`, started and waited for), for a test that needs a pid no process
  /// has: what a killed process leaves behind names one.
  public static func endedProcessID() throws -> Int32 {
    let child = try launch("true")
    _ = try child.wait(timeout: 30)
    return child.pid
  }

  /// Starts `executable` (a path or a name on `PATH`) and returns at once, e.g. to kill it mid-write.
  public static func launch(
    _ executable: String, arguments: [String] = [], environment: [String: String]? = nil,
    currentDirectory: URL? = nil, stdin: Data? = nil
  ) throws -> LaunchedProcess {
    try launch(
      try resolve(executable), arguments: arguments, environment: environment, currentDirectory: currentDirectory,
      stdin: stdin)
  }

  /// Starts the executable at `executable` and returns at once.
  public static func launch(
    _ executable: URL, arguments: [String] = [], environment: [String: String]? = nil,
    currentDirectory: URL? = nil, stdin: Data? = nil
  ) throws -> LaunchedProcess {
    try LaunchedProcess(
      executable: executable, arguments: arguments, environment: environment, currentDirectory: currentDirectory,
      stdin: stdin)
  }

  /// The first executable named `name` on `PATH` (or `name` itself when it contains a `/`).
  public static func resolve(_ name: String) throws -> URL {
    if name.contains("/") { return URL(fileURLWithPath: name) }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") where !directory.isEmpty {
      let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw ProcessRunnerError.executableNotFound(name)
  }

  /// A writer to a child that exited early must get EPIPE, not kill the test process with SIGPIPE.
  static let ignoreSIGPIPE: Void = {
    signal(SIGPIPE, SIG_IGN)
  }()
}

/// A running child process started by `ProcessRunner.launch`.
public final class LaunchedProcess: @unchecked Sendable {
  /// The child's process id.
  public let pid: Int32
  private let process: Process
  private let executable: URL
  private let arguments: [String]
  private let finished = DispatchSemaphore(value: 0)
  private let readers = DispatchGroup()
  // Written by the reader threads before they leave `readers`, read only after waiting on it.
  private var stdoutData = Data()
  private var stderrData = Data()

  init(
    executable: URL, arguments: [String], environment: [String: String]?, currentDirectory: URL?, stdin: Data?
  ) throws {
    _ = ProcessRunner.ignoreSIGPIPE
    self.executable = executable
    self.arguments = arguments
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    let outPipe = Pipe()
    let errPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    let inPipe = stdin == nil ? nil : Pipe()
    process.standardInput = inPipe ?? FileHandle.nullDevice
    let finished = self.finished
    process.terminationHandler = { _ in finished.signal() }
    do {
      try process.run()
    } catch {
      throw ProcessRunnerError.launchFailed(executable: executable.path, underlying: error)
    }
    self.process = process
    self.pid = process.processIdentifier

    // Each read end is closed by hand once drained: with a termination handler set, Foundation's Process keeps
    // the pipes alive past the child, and a suite that runs thousands of children ran out of file descriptors.
    readers.enter()
    Thread.detachNewThread { [self] in
      stdoutData = outPipe.fileHandleForReading.readDataToEndOfFile()
      try? outPipe.fileHandleForReading.close()
      readers.leave()
    }
    readers.enter()
    Thread.detachNewThread { [self] in
      stderrData = errPipe.fileHandleForReading.readDataToEndOfFile()
      try? errPipe.fileHandleForReading.close()
      readers.leave()
    }
    if let inPipe, let stdin {
      Thread.detachNewThread {
        // A child that exits without reading everything closes the pipe; that is its business, not an error here.
        try? inPipe.fileHandleForWriting.write(contentsOf: stdin)
        try? inPipe.fileHandleForWriting.close()
      }
    }
  }

  /// Whether the child has exited (without waiting for it or its output).
  public var hasExited: Bool { !process.isRunning }

  /// Sends `signal` (default SIGTERM) to the child.
  public func terminate(_ signal: Int32 = SIGTERM) {
    kill(pid, signal)
  }

  /// Waits for the child to exit and its output to be drained; kills it with SIGKILL after `timeout` seconds.
  public func wait(timeout: TimeInterval = 120) throws -> ProcessResult {
    if finished.wait(timeout: .now() + timeout) == .timedOut {
      kill(pid, SIGKILL)
      finished.wait()
      readers.wait()
      throw ProcessRunnerError.timedOut(
        executable: executable.path, arguments: arguments, seconds: timeout, partial: result())
    }
    // Let a second wait() return immediately too.
    finished.signal()
    readers.wait()
    return result()
  }

  private func result() -> ProcessResult {
    let status =
      process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    return ProcessResult(status: status, stdoutData: stdoutData, stderrData: stderrData)
  }
}

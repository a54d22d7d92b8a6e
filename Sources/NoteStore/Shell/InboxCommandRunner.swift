import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs the inbox command for one item: its input written and its output read in one poll loop on this thread (no
/// deadlock whatever it reads or writes first), and at the deadline its whole process group killed, so a child of
/// the command that keeps the output open neither hangs nb nor lingers.
enum InboxCommandRunner {
  enum Outcome: Equatable {
    case exited(status: Int32, output: Data, errors: Data)
    case killed(signal: Int32, errors: Data)
    case timedOut
    case couldNotStart(String)
  }

  /// At most this much of standard output and of standard error is kept.
  static let outputLimit = 1 << 20

  static func run(
    _ arguments: [String], input: Data, timeout: TimeInterval, directory: URL, environment: [String: String]
  ) -> Outcome {
    guard let name = arguments.first else { return .couldNotStart("names no program") }
    let executable: URL
    switch locate(name, directory: directory, environment: environment) {
    case .found(let url): executable = url
    case .missing(let why): return .couldNotStart(why)
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = Array(arguments.dropFirst())
    process.currentDirectoryURL = directory
    process.environment = environment
    let inputPipe = Pipe()
    let outputPipe = Pipe()
    let errorPipe = Pipe()
    process.standardInput = inputPipe
    process.standardOutput = outputPipe
    process.standardError = errorPipe
    let reaped = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in reaped.signal() }
    let deadline = ContinuousClock.now + .seconds(timeout)
    do {
      try process.run()
    } catch {
      for handle in [inputPipe.fileHandleForWriting, outputPipe.fileHandleForReading, errorPipe.fileHandleForReading] {
        try? handle.close()
      }
      return .couldNotStart("cannot be started (\(error.localizedDescription))")
    }
    let pid = process.processIdentifier
    // Foundation learns of the exit only once every process holding a descriptor it gave the child has closed it
    // (something the command left running keeps it from knowing), so the exit is also watched for directly, without
    // reaping: Foundation reaps.
    var isReaped = false
    func exit() -> Exit? {
      if !isReaped, reaped.wait(timeout: .now()) == .success { isReaped = true }
      if isReaped {
        return process.terminationReason == .uncaughtSignal
          ? .signal(process.terminationStatus) : .status(process.terminationStatus)
      }
      return exitWithoutReaping(pid)
    }
    let exchange = Exchange(
      input: inputPipe.fileHandleForWriting, output: outputPipe.fileHandleForReading,
      errors: errorPipe.fileHandleForReading)
    let (ended, lingering) = exchange.run(Array(input), until: deadline, exit: exit)
    if ended == nil || lingering, !isReaped {
      // Timed out, or exited leaving something in its process group (Foundation starts the child in a group of its
      // own) that holds its output: the group goes. The child is not reaped yet, so its id is not anyone else's.
      kill(-pid, SIGKILL)
      kill(pid, SIGKILL)
    }
    // Reaped by Foundation as soon as the last holder is gone: no zombie stays behind.
    if !isReaped { _ = reaped.wait(timeout: .now() + 5) }
    switch ended {
    case nil: return .timedOut
    case .signal(let signal): return .killed(signal: signal, errors: exchange.errors)
    case .status(let status): return .exited(status: status, output: exchange.output, errors: exchange.errors)
    }
  }

  /// How a child ended.
  enum Exit: Equatable {
    case status(Int32)
    case signal(Int32)
  }

  /// How `pid` ended when it has, leaving it to be reaped (`waitid` with `WNOWAIT`); nil while it runs.
  static func exitWithoutReaping(_ pid: pid_t) -> Exit? {
    var info = siginfo_t()
    guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return nil }
    #if os(Linux)
      let child = info._sifields._sigchld.si_pid
      let status = info._sifields._sigchld.si_status
    #else
      let child = info.si_pid
      let status = info.si_status
    #endif
    guard child == pid else { return nil }
    return info.si_code == CLD_EXITED ? .status(status) : .signal(status)
  }

  enum Location {
    case found(URL)
    case missing(String)
  }

  /// The executable `name` stands for: a path (`~/` is the home directory, a relative one is taken from
  /// `directory`, where the command runs), or a name looked up on `PATH`.
  static func locate(_ name: String, directory: URL, environment: [String: String]) -> Location {
    let fileManager = FileManager.default
    if name.contains("/") {
      var path = name
      if path.hasPrefix("~/") { path = (environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst() }
      let url = URL(fileURLWithPath: path, relativeTo: directory).standardizedFileURL
      var isDirectory: ObjCBool = false
      guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
        return .missing("cannot be started: \(url.path) does not exist")
      }
      guard !isDirectory.boolValue, fileManager.isExecutableFile(atPath: url.path) else {
        return .missing("cannot be started: \(url.path) is not an executable file")
      }
      return .found(url)
    }
    let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for entry in path.split(separator: ":") where !entry.isEmpty {
      let candidate = URL(fileURLWithPath: String(entry), relativeTo: directory).appendingPathComponent(name)
      var isDirectory: ObjCBool = false
      if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
        fileManager.isExecutableFile(atPath: candidate.path)
      {
        return .found(candidate.standardizedFileURL)
      }
    }
    return .missing("cannot be started: no '\(name)' on PATH")
  }

  /// The three pipes of one run.
  private final class Exchange {
    let input: FileHandle
    let outputHandle: FileHandle
    let errorsHandle: FileHandle
    var output = Data()
    var errors = Data()

    init(input: FileHandle, output: FileHandle, errors: FileHandle) {
      self.input = input
      self.outputHandle = output
      self.errorsHandle = errors
    }

    /// Writes `bytes` and reads both outputs until the command has exited and closed them, or has exited and
    /// something it left running still holds them a moment later (`lingering`); `exit` is nil when the deadline
    /// came first. Every pipe is closed on return.
    func run(_ bytes: [UInt8], until deadline: ContinuousClock.Instant, exit: () -> Exit?) -> (
      exit: Exit?, lingering: Bool
    ) {
      let inputFD = input.fileDescriptor
      let outputFD = outputHandle.fileDescriptor
      let errorsFD = errorsHandle.fileDescriptor
      for fd in [inputFD, outputFD, errorsFD] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
      // A command that exits without reading its input must make the write fail (EPIPE), not kill nb (SIGPIPE).
      #if os(Linux)
        var sigpipe = sigset_t()
        sigemptyset(&sigpipe)
        sigaddset(&sigpipe, SIGPIPE)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &sigpipe, &previousMask)
        defer {
          // Discard the SIGPIPE a failed write left pending on this thread, then unblock it.
          var pending = sigset_t()
          if sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1, sigismember(&previousMask, SIGPIPE) == 0 {
            var now = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&sigpipe, nil, &now)
          }
          pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }
      #else
        _ = fcntl(inputFD, F_SETNOSIGPIPE, 1)
      #endif
      var inputOpen = true
      var outputOpen = true
      var errorsOpen = true
      defer {
        for (open, handle) in [(inputOpen, input), (outputOpen, outputHandle), (errorsOpen, errorsHandle)] where open {
          try? handle.close()
        }
      }
      var written = 0
      if bytes.isEmpty {
        try? input.close()
        inputOpen = false
      }
      var ended: (exit: Exit, at: ContinuousClock.Instant)?
      var buffer = [UInt8](repeating: 0, count: 65536)
      while outputOpen || errorsOpen {
        let now = ContinuousClock.now
        if ended == nil, let status = exit() { ended = (status, now) }
        if let ended, now - ended.at > .milliseconds(200) { return (ended.exit, true) }
        if now >= deadline { return (ended?.exit, false) }
        var fds: [pollfd] = []
        if inputOpen { fds.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
        if outputOpen { fds.append(pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)) }
        if errorsOpen { fds.append(pollfd(fd: errorsFD, events: Int16(POLLIN), revents: 0)) }
        // Wake at least every 50 ms to notice an exit while something else still holds a pipe.
        let milliseconds = min(50, max(1, Int((deadline - now).timeInterval * 1000)))
        guard poll(&fds, nfds_t(fds.count), Int32(milliseconds)) > 0 else { continue }
        for entry in fds where entry.revents != 0 {
          if entry.fd == inputFD {
            var failed = entry.revents & Int16(POLLOUT) == 0
            if !failed {
              let count = bytes.withUnsafeBytes { raw in
                systemWrite(inputFD, raw.baseAddress! + written, min(bytes.count - written, 65536))
              }
              if count > 0 { written += count } else if count < 0, errno != EAGAIN, errno != EINTR { failed = true }
            }
            // Done, or the command closed its input without reading it all: that is its business.
            if failed || written == bytes.count {
              try? input.close()
              inputOpen = false
            }
            continue
          }
          let count = read(entry.fd, &buffer, buffer.count)
          if count > 0 {
            if entry.fd == outputFD {
              output.append(contentsOf: buffer[0..<max(0, min(count, outputLimit - output.count))])
            } else {
              errors.append(contentsOf: buffer[0..<max(0, min(count, outputLimit - errors.count))])
            }
          } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
            if entry.fd == outputFD {
              try? outputHandle.close()
              outputOpen = false
            } else {
              try? errorsHandle.close()
              errorsOpen = false
            }
          }
        }
      }
      // Both outputs closed: the command is about to exit (or closed them and goes on: the deadline decides).
      while true {
        if let status = ended?.exit ?? exit() { return (status, false) }
        if ContinuousClock.now >= deadline { return (nil, false) }
        usleep(2000)
      }
    }
  }
}

#if canImport(Glibc)
  private let systemWrite = Glibc.write
#else
  private let systemWrite = Darwin.write
#endif

extension Duration {
  /// The duration in seconds.
  var timeInterval: TimeInterval {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}

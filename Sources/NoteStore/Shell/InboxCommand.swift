import Foundation
import InboxKit
import Yams

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Who made an inbox item's suggestion.
public enum InboxSuggestionSource: String, Equatable, Sendable {
  /// The built-in classifier.
  case classifier
  /// The device's own inbox command (`inbox: {command: ...}` in ``NoteRepository/deviceConfigFile``).
  case command
}

/// `$XDG_CONFIG_HOME/nb/config.yaml`: settings of this device alone, never synced and never read from the
/// repository. It is the only place that may name a command for nb to run: `.nb/config.yaml` arrives from other
/// devices, so a command named there would be run on a pull.
///
/// ```yaml
/// inbox:
///   command: ["/usr/local/bin/llm-file", "--model", "x"]   # or a string, run with /bin/sh -c
///   timeout: 5       # seconds for one item (default 5)
///   budget: 10       # seconds for all the items of one nb run (default twice the timeout)
/// ```
public struct DeviceConfig: Equatable, Sendable {
  /// The inbox command, when one is set and its settings read.
  public var inboxCommand: InboxCommandSettings?

  /// Creates settings.
  public init(inboxCommand: InboxCommandSettings? = nil) {
    self.inboxCommand = inboxCommand
  }

  /// `$XDG_CONFIG_HOME/nb/config.yaml`, or `~/.config/nb/config.yaml` when `XDG_CONFIG_HOME` is unset, empty or
  /// not an absolute path (as the XDG base directory specification says).
  public static func location(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    let base: String
    if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
      base = xdg
    } else {
      let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
      base = home + "/.config"
    }
    return URL(fileURLWithPath: base).appendingPathComponent("nb/config.yaml")
  }

  /// The settings in the file at `url` and a one-line warning for each problem (`file:line: ...`); no file is no
  /// settings and no warning. Never throws: settings that do not read leave nb working as without them.
  static func read(at url: URL) -> (config: DeviceConfig, problems: [String]) {
    let path = url.path
    let data: Data
    do {
      data = try FileSystem.read(path, limit: 1 << 20)
    } catch {
      if !FileSystem.exists(path) { return (DeviceConfig(), []) }
      return (DeviceConfig(), ["\(path): cannot be read (\(error)); \(ignored)"])
    }
    guard let text = String(data: data, encoding: .utf8) else {
      return (DeviceConfig(), ["\(path): not UTF-8 text; \(ignored)"])
    }
    return parse(text, file: path)
  }

  /// What a warning about settings that do not read says happens instead.
  static let ignored = "the inbox command is not run, suggestions come from the built-in classifier"

  /// The keys `inbox:` may hold.
  static let inboxKeys = ["command", "timeout", "budget"]

  /// The settings in `text`, read from `file` (named in each warning).
  static func parse(_ text: String, file: String) -> (config: DeviceConfig, problems: [String]) {
    let root: Node?
    do {
      root = try Yams.compose(yaml: text, .basic)
    } catch let error as YamlError {
      return (DeviceConfig(), [yamlProblem(error, file: file)])
    } catch {
      return (DeviceConfig(), ["\(file): not valid YAML (\(error)); \(ignored)"])
    }
    func at(_ node: Node?) -> String { "\(file):\(node?.mark?.line ?? 1)" }
    guard let root else { return (DeviceConfig(), []) }
    guard let mapping = root.mapping else {
      return (DeviceConfig(), ["\(at(root)): expected settings such as 'inbox: {command: ...}'; \(ignored)"])
    }
    guard let inbox = mapping["inbox"] else { return (DeviceConfig(), []) }
    guard let settings = inbox.mapping else {
      return (DeviceConfig(), ["\(at(inbox)): 'inbox' must hold settings such as 'command: ...'; \(ignored)"])
    }
    var problems: [String] = []
    for key in settings.keys {
      let name = key.scalar?.string ?? "\(key)"
      if !inboxKeys.contains(name) {
        problems.append(
          "\(at(key)): unknown setting 'inbox.\(DeviceConfig.oneLine(name))' (nb reads "
            + inboxKeys.map { "inbox.\($0)" }.joined(separator: ", ") + ")")
      }
    }
    guard let commandNode = settings["command"] else { return (DeviceConfig(), problems) }
    let arguments: [String]
    let display: String
    if let scalar = commandNode.scalar {
      let line = scalar.string.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !line.isEmpty else {
        return (DeviceConfig(), problems + ["\(at(commandNode)): 'inbox.command' is empty; \(ignored)"])
      }
      arguments = ["/bin/sh", "-c", scalar.string]
      display = line
    } else if let sequence = commandNode.sequence {
      let words = sequence.map { $0.scalar?.string }
      guard let first = words.first, let program = first, !program.isEmpty, !words.contains(nil) else {
        return (
          DeviceConfig(),
          problems + [
            "\(at(commandNode)): 'inbox.command' must be a program and its arguments, such as "
              + "[\"/usr/local/bin/llm-file\", \"--model\", \"x\"]; \(ignored)"
          ]
        )
      }
      arguments = words.compactMap { $0 }
      display = arguments.map(quoted).joined(separator: " ")
    } else {
      return (
        DeviceConfig(),
        problems + ["\(at(commandNode)): 'inbox.command' must be a list of arguments or a string; \(ignored)"]
      )
    }
    var command = InboxCommandSettings(arguments: arguments, display: display)
    if let node = settings["timeout"] {
      if let seconds = node.scalar.flatMap({ seconds($0.string) }) {
        command.timeout = seconds
        command.budget = 2 * seconds
      } else {
        problems.append(
          "\(at(node)): 'inbox.timeout' must be a number of seconds such as 5; the default, "
            + "\(Int(InboxCommandSettings.defaultTimeout)) s, holds")
      }
    }
    if let node = settings["budget"] {
      if let seconds = node.scalar.flatMap({ seconds($0.string) }) {
        command.budget = seconds
      } else {
        problems.append(
          "\(at(node)): 'inbox.budget' must be a number of seconds such as 10; twice the timeout holds")
      }
    }
    return (DeviceConfig(inboxCommand: command), problems)
  }

  /// A positive number of seconds: `5`, `2.5`, `5s` or `500ms`; nil otherwise.
  static func seconds(_ text: String) -> TimeInterval? {
    var number = text.trimmingCharacters(in: .whitespaces).lowercased()
    var scale = 1.0
    if number.hasSuffix("ms") {
      number.removeLast(2)
      scale = 0.001
    } else if number.hasSuffix("s") {
      number.removeLast()
    }
    guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0 else {
      return nil
    }
    return value * scale
  }

  /// A one-line warning for YAML that does not parse, with the line Yams names.
  static func yamlProblem(_ error: YamlError, file: String) -> String {
    let detail: String
    var line: Int?
    switch error {
    case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      line = mark.line
      detail = context.map { "\(problem) \($0.text)" } ?? problem
    case .duplicatedKeysInMapping(let duplicates, let context):
      line = context.mark.line
      detail = "duplicate key " + duplicates.map { "'\($0)'" }.joined(separator: ", ")
    case .reader(let problem, _, _, _):
      detail = problem
    default:
      detail = "\(error)"
    }
    return "\(file)\(line.map { ":\($0)" } ?? ""): not valid YAML (\(oneLine(detail))); \(ignored)"
  }

  /// An argument as a shell would need it written, for naming the command in a warning.
  static func quoted(_ word: String) -> String {
    let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./=:,@%+"))
    guard word.isEmpty || word.unicodeScalars.contains(where: { !plain.contains($0) }) else { return word }
    return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  static func oneLine(_ text: String) -> String { InboxCommandExchange.shortened(text) }
}

/// The device's inbox command: it gets each item (with the classifier's ranking) as JSON on standard input and
/// prints the notebook it belongs in (see ``DeviceConfig``).
public struct InboxCommandSettings: Equatable, Sendable {
  /// How long one item may take unless `timeout:` says otherwise.
  public static let defaultTimeout: TimeInterval = 5

  /// The program and its arguments; a string in the settings is `["/bin/sh", "-c", string]`.
  public var arguments: [String]
  /// How warnings name the command: the string as written, or the arguments quoted as a shell would.
  public var display: String
  /// Seconds one item may take before the command is killed (with its process group).
  public var timeout: TimeInterval
  /// Seconds all the items of one process may take: once spent, the rest get the classifier's suggestion.
  public var budget: TimeInterval

  /// Creates settings; `budget` defaults to twice the timeout.
  public init(
    arguments: [String], display: String? = nil, timeout: TimeInterval = InboxCommandSettings.defaultTimeout,
    budget: TimeInterval? = nil
  ) {
    self.arguments = arguments
    self.display = display ?? arguments.map(DeviceConfig.quoted).joined(separator: " ")
    self.timeout = timeout
    self.budget = budget ?? 2 * timeout
  }
}

/// The inbox command's state in one process: its settings once read, the time spent asking it, and whether its
/// failures have been reported (once a process, not once an item).
struct InboxCommandRun {
  var loaded = false
  var settings: InboxCommandSettings?
  var spent: TimeInterval = 0
  /// Why the command is no longer asked in this process (it cannot be started).
  var givenUp: String?
  var warned = false
}

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
  fileprivate var timeInterval: TimeInterval {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}

/// Appends `data` to the file at `path` with `O_APPEND` (one write: lines from two processes do not interleave);
/// false when the file cannot be opened.
private func append(_ data: Data, to path: String) -> Bool {
  let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
  guard fd >= 0 else { return false }
  _ = AtomicFile.writeAll(data, to: fd)
  close(fd)
  return true
}

extension NoteRepository {
  /// The device's inbox command (``deviceConfigFile``), read once a process; its warnings are given then.
  func inboxCommandSettings() -> InboxCommandSettings? {
    if !inboxCommandRun.loaded {
      inboxCommandRun.loaded = true
      if let file = deviceConfigFile {
        let (config, problems) = DeviceConfig.read(at: file)
        for problem in problems { notice?(problem) }
        inboxCommandRun.settings = config.inboxCommand
      }
    }
    return inboxCommandRun.settings
  }

  /// Where the inbox command's answers are kept (derived data: deleting it only means asking again).
  var inboxCommandAnswersFile: URL { gitDirectory.appendingPathComponent("nb/inbox/command-answers") }

  /// Answers kept in ``inboxCommandAnswersFile`` before it is cut to the newest half.
  static let inboxCommandAnswersLimit = 10_000

  /// `advice` with the device's inbox command's answer as each item's suggestion, where it gave one for a notebook
  /// the item may go to. Answers are kept, so an item is asked once while its text, the notebooks and the command
  /// stay the same; items are asked one at a time, and not at all once the command has taken its budget in this
  /// process. An item the command fails for keeps the classifier's advice, and the first failure of a process is
  /// reported through ``notice`` in one line.
  func consultLocalCommand(
    _ items: [Note], _ advice: [InboxAdvice], rankings: [[InboxClassifier.Candidate]], bins: Set<String>,
    descriptions: [String: String]
  ) throws -> [InboxAdvice] {
    guard !items.isEmpty, let settings = inboxCommandSettings() else { return advice }
    guard !bins.isEmpty else { return advice }
    let notebooks = bins.sorted()
    let described = notebooks.map { bin in
      InboxCommandExchange.Candidate(notebook: bin, confidence: 0, description: descriptions[bin])
    }
    // nil when there is none yet, or it is not one (then it is written anew).
    let stored = (try? FileSystem.read(inboxCommandAnswersFile.path)).flatMap(InboxCommandExchange.cacheEntries)
    var answers: [String: InboxCommandExchange.Answer] = [:]
    for entry in stored ?? [] { answers[entry.key] = entry.answer }
    var fresh: [(key: String, answer: InboxCommandExchange.Answer)] = []
    var failures: [String] = []
    var notAsked = 0
    var result = advice
    var environment = ProcessInfo.processInfo.environment
    environment["NB_DIR"] = root.path
    for (position, note) in items.enumerated() {
      let body = try body(of: note)
      let item = InboxCommandExchange.Item(
        path: note.path, id: note.id, title: note.title, tags: note.tags, text: InboxCommandExchange.capped(body))
      let key = NoteHistory.sha256Hex(
        InboxCommandExchange.keyMaterial(arguments: settings.arguments, item: item, notebooks: described))
      var answer = answers[key]
      let asked = answer == nil
      if answer == nil {
        if inboxCommandRun.givenUp != nil || inboxCommandRun.spent >= settings.budget {
          notAsked += 1
          continue
        }
        // The whole ranking, not only the three candidates the classifier's advice keeps.
        let ranking = rankings[position].map {
          InboxCommandExchange.Candidate(
            notebook: $0.notebook, confidence: $0.probability, description: descriptions[$0.notebook])
        }
        let request = InboxCommandExchange.request(item: item, candidates: ranking, notebooks: notebooks)
        let started = ContinuousClock.now
        let outcome = InboxCommandRunner.run(
          settings.arguments, input: request, timeout: settings.timeout, directory: root, environment: environment)
        inboxCommandRun.spent += (ContinuousClock.now - started).timeInterval
        switch outcome {
        case .exited(0, let output, _):
          switch InboxCommandExchange.reading(output) {
          case .answer(let reply):
            answer = reply
            answers[key] = reply
            fresh.append((key, reply))
          case .unreadable(let why):
            failures.append(why)
          }
        case .exited(let status, _, let errors):
          failures.append("exited with status \(status)" + Self.lastLine(errors))
        case .killed(let signal, let errors):
          failures.append("was killed by signal \(signal)" + Self.lastLine(errors))
        case .timedOut:
          failures.append("timed out after \(Self.seconds(settings.timeout))")
        case .couldNotStart(let why):
          failures.append(why)
          inboxCommandRun.givenUp = why
        }
      }
      guard let answer else { continue }
      guard let notebook = InboxCommandExchange.notebook(answer, among: bins) else {
        // Kept all the same: asked again, it would answer the same until the item, the notebooks or it change.
        if asked {
          failures.append(
            "answered '\(InboxCommandExchange.shortened(answer.notebook))', not a notebook items may go to")
        }
        continue
      }
      let confidence = answer.confidence ?? 1
      // The threshold means the same for both: an answer less sure than it is no suggestion.
      result[position].suggestion =
        confidence >= inboxThreshold ? InboxSuggestion(notebook: notebook, confidence: confidence) : nil
      result[position].source = .command
    }
    saveInboxCommandAnswers(fresh, to: stored)
    if !failures.isEmpty || notAsked > 0, !inboxCommandRun.warned {
      inboxCommandRun.warned = true
      var parts: [String] = []
      if let first = failures.first {
        parts.append(first + (failures.count > 1 ? " (\(failures.count) items failed)" : ""))
      }
      if notAsked > 0 {
        let why =
          inboxCommandRun.givenUp != nil
          ? "" : " (it took \(Self.seconds(inboxCommandRun.spent)) of its \(Self.seconds(settings.budget)) budget)"
        parts.append("\(notAsked) item\(notAsked == 1 ? "" : "s") not asked\(why)")
      }
      notice?(
        "inbox command '\(InboxCommandExchange.shortened(settings.display))' " + parts.joined(separator: "; ")
          + "; those items get the built-in classifier's suggestion")
    }
    return result
  }

  /// Appends `fresh` answers to the answers file (one short write a line, so two processes appending at once do
  /// not interleave), or writes it whole when it is missing, unreadable or too long.
  private func saveInboxCommandAnswers(
    _ fresh: [(key: String, answer: InboxCommandExchange.Answer)],
    to stored: [(key: String, answer: InboxCommandExchange.Answer)]?
  ) {
    guard !fresh.isEmpty else { return }
    let file = inboxCommandAnswersFile
    // Derived data: an answer that cannot be kept is asked again next time, never an error.
    try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    let limit = Self.inboxCommandAnswersLimit
    let lines = fresh.map { InboxCommandExchange.cacheLine(key: $0.key, $0.answer) }.joined()
    if let stored, stored.count + fresh.count <= limit, append(Data(lines.utf8), to: file.path) { return }
    let keep = (stored ?? []) + fresh
    try? AtomicFile.write(
      InboxCommandExchange.cacheFile(keep, limit: keep.count > limit ? limit / 2 : limit), to: file, durable: false)
  }

  /// `": <the last non-empty line of errors>"`, or nothing when it printed none.
  static func lastLine(_ errors: Data) -> String {
    let lines = String(decoding: errors, as: UTF8.self).split(whereSeparator: \.isNewline)
    guard let last = lines.last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { return "" }
    return ": " + InboxCommandExchange.shortened(last.trimmingCharacters(in: .whitespaces))
  }

  /// `5 s`, `0.5 s`, `12.3 s`.
  static func seconds(_ value: TimeInterval) -> String {
    value == value.rounded() && value < 1e9 ? "\(Int(value)) s" : String(format: "%.1f s", value)
  }
}

import Foundation
import InboxKit
import TextFormat

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
    guard let last = lines.last(where: { !$0.trimmingWhitespaces().isEmpty }) else { return "" }
    return ": " + InboxCommandExchange.shortened(last.trimmingWhitespaces())
  }

  /// `5 s`, `0.5 s`, `12.3 s`.
  static func seconds(_ value: TimeInterval) -> String {
    value == value.rounded() && value < 1e9 ? "\(Int(value)) s" : String(format: "%.1f s", value)
  }
}

import ArgumentParser
import Foundation
import NoteStore
import NoteWatch
import TextFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct Watch: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    abstract: "Commit every edit made in any editor after a quiet moment; with --sync, also push and pull.",
    discussion: """
      Runs in the foreground until Ctrl-C or SIGTERM, which commit what is pending, then exit 0. Durations take \
      ms, s or m (200ms, 2s, 1m). Settings may also come from .nb/config.yaml, e.g. \
      'watch: {debounce: 2s, sync: true, interval: 30s}'; the command line comes first.
      --on-commit runs a command of yours through /bin/sh after each commit: {{count}} and {{commit}} in it are \
      replaced, and NB_COMMIT, NB_COUNT and NB_PATHS (one path a line) are in its environment.
      """)

  @Option(help: "Quiet time after the last edit before committing (default 2s).") var debounce: String?
  @Flag(inversion: .prefixedNo, help: "Sync: push after each commit, merge what the remote gets.") var sync: Bool?
  @Option(help: "How often to ask the remote whether it moved, with --sync (default 3s).") var interval: String?
  @Option(help: "The remote to sync with (default origin).") var remote: String?
  @Option(help: "A command to run after each commit (see below).") var onCommit: String?
  @Option(help: "This device's name in its commits (default: $NB_DEVICE, else the host name).") var device: String?
  @Option(help: ArgumentHelp("How to watch: automatic, inotify or polling.", visibility: .hidden))
  var backend: String = "automatic"

  @OptionGroup var repository: RepositoryOptions
  @Flag(name: .long, help: "Print one JSON object per line per event, for tools.") var json = false

  func validate() throws {
    for (name, value) in [("--debounce", debounce), ("--interval", interval)] {
      if let value { _ = try parsed(value, name) }
    }
    guard RepositoryWatcher.Backend(rawValue: backend) != nil else {
      throw ValidationError("--backend must be automatic, inotify or polling")
    }
  }

  private func parsed(_ value: String, _ name: String) throws -> TimeInterval {
    do {
      return try WatchSettings.duration(value, name: name, minimum: name == "--interval" ? 0.1 : 0)
    } catch let error as WatchError {
      // One line naming the argument, like a bad setting in .nb/config.yaml, not the usage text after it.
      throw CommandError(error.description)
    }
  }

  func run() throws {
    let notes = try repository.open()
    var settings = try WatchSettings().applying(config: notes.config.watch, file: ".nb/config.yaml")
    if let debounce { settings.debounce = try parsed(debounce, "--debounce") }
    if let interval { settings.interval = try parsed(interval, "--interval") }
    if let sync { settings.sync = sync }
    if let remote { settings.remote = remote }
    var syncOptions = SyncOptions(remote: settings.remote)
    if let device { syncOptions.device = device }
    if settings.sync, !(try notes.remotes().contains { $0.name == settings.remote }) {
      throw NoteStoreError.noRemote(settings.remote)
    }
    let watcher = RepositoryWatcher(
      root: notes.root, settings: settings, syncOptions: syncOptions,
      backend: RepositoryWatcher.Backend(rawValue: backend) ?? .automatic)
    let printer = WatchPrinter(json: json, settings: settings, root: notes.root.path, hook: onCommit)
    watcher.onChange = { printer.print($0) }

    // Ctrl-C and SIGTERM (systemd's stop, a logout) commit what is pending before exiting.
    var sources: [DispatchSourceSignal] = []
    for number in [SIGINT, SIGTERM, SIGHUP] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { watcher.stop() }
      source.resume()
      sources.append(source)
    }
    defer {
      sources.forEach { $0.cancel() }
      printer.finish()
    }
    do {
      try watcher.run()
    } catch {
      // The printer has said why (a `failed` notice): the repository went away, or watching could not start.
      throw ExitCode.failure
    }
  }
}

/// Prints a watcher's changes: one line each for people (a status line at the bottom on a TTY), or one JSON object
/// a line; runs the `--on-commit` hook.
final class WatchPrinter: @unchecked Sendable {
  private let json: Bool
  private let settings: WatchSettings
  private let root: String
  private let hook: String?
  private let lock = NSLock()
  private let statusLine = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
  private var commits = 0
  private var lastCommit: String?
  private let clock = DateFormatter()

  init(json: Bool, settings: WatchSettings, root: String, hook: String?) {
    self.json = json
    self.settings = settings
    self.root = root
    self.hook = hook
    clock.dateFormat = "HH:mm:ss"
  }

  func print(_ change: RepositoryChange) {
    lock.lock()
    defer { lock.unlock() }
    if json {
      printJSONLine(change)
      // The reason watching ended is an error like any command's, on standard error too.
      if case .notice(let notice) = change, notice.kind == .failed {
        FileHandle.standardError.write(Data("Error: \(notice.message)\n".utf8))
      }
    } else {
      clearStatus()
      printHuman(change)
      showStatus()
    }
    if case .saved(let saved) = change { runHook(saved) }
  }

  /// Leaves the terminal clean.
  func finish() {
    lock.lock()
    defer { lock.unlock() }
    if !json { clearStatus() }
  }

  private func printHuman(_ change: RepositoryChange) {
    let time = Style.dim(clock.string(from: Date()))
    switch change {
    case .started(let start):
      let sync =
        settings.sync ? "sync with \(settings.remote) every \(Self.seconds(settings.interval))" : "no sync"
      out(
        "Watching \(root) (\(start.backend), \(start.directories == 1 ? "1 directory" : "\(start.directories) directories"); "
          + "commit after \(Self.seconds(settings.debounce)) of quiet; \(sync)). Ctrl-C stops.")
    case .saved(let saved):
      commits += 1
      lastCommit = clock.string(from: Date())
      var parts: [String] = []
      if !saved.added.isEmpty { parts.append("added \(Self.list(saved.added))") }
      if !saved.changed.isEmpty { parts.append("changed \(Self.list(saved.changed))") }
      if !saved.removed.isEmpty { parts.append("removed \(Self.list(saved.removed))") }
      out("\(time) \(Style.green("saved")) \(parts.joined(separator: "; ")) (\(saved.commit.prefix(7)))")
    case .synced(let synced):
      let summary = synced.summary
      var parts: [String] = []
      if summary.sent > 0 { parts.append("sent \(counted(summary.sent, "commit"))") }
      if summary.received > 0 { parts.append("received \(counted(summary.received, "commit"))") }
      if !summary.changedPaths.isEmpty { parts.append("updated \(Self.list(summary.changedPaths))") }
      if parts.isEmpty { parts.append(summary.outcome.rawValue) }
      out("\(time) \(Style.cyan("synced")) with \(settings.remote)/\(summary.remoteBranch): "
        + parts.joined(separator: ", "))
      for conflict in summary.conflicts {
        out("\(time) \(Style.yellow("conflict")) \(conflict.path): the other version is in \(conflict.loserPath)")
      }
    case .notice(let notice):
      switch notice.kind {
      case .online, .resumed: out("\(time) \(notice.message)")
      case .failed: FileHandle.standardError.write(Data("Error: \(notice.message)\n".utf8))
      default: FileHandle.standardError.write(Data("\(time) \(Style.yellow("warning:")) \(notice.message)\n".utf8))
      }
    case .stopped:
      out("\(time) stopped")
    }
  }

  private func out(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }

  private func showStatus() {
    guard statusLine else { return }
    let last = lastCommit.map { "last commit \($0)" } ?? "no commit yet"
    FileHandle.standardError.write(Data(Style.dim("watching: \(commits) commits, \(last)").utf8))
  }

  private func clearStatus() {
    guard statusLine else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }

  private static func list(_ paths: [String]) -> String {
    paths.count <= 3 ? paths.joined(separator: ", ") : paths.prefix(3).joined(separator: ", ") + " and \(paths.count - 3) more"
  }

  private static func seconds(_ value: TimeInterval) -> String {
    value < 1 ? "\(Int((value * 1000).rounded())) ms" : value.rounded() == value ? "\(Int(value)) s" : "\(value) s"
  }

  // MARK: JSON

  private struct StartedJSON: Encodable {
    var event = "started"
    var time: String
    var backend: String
    var directories: Int
    var setup_ms: Int
    var debounce_ms: Int
    var sync: Bool
    var interval_ms: Int
    var remote: String
  }

  private struct SavedJSON: Encodable {
    struct Move: Encodable {
      var from: String
      var to: String
    }
    var event = "saved"
    var time: String
    var commit: String
    var count: Int
    var added: [String]
    var changed: [String]
    var removed: [String]
    var moved: [Move]
  }

  private struct SyncedJSON: Encodable {
    var event = "synced"
    var time: String
    var outcome: String
    var remote: String
    var received: Int
    var sent: Int
    var saved: [String]
    var changed: [String]
    var conflicts: [String]
    var warnings: [String]
  }

  private struct NoticeJSON: Encodable {
    var event = "notice"
    var time: String
    var kind: String
    var message: String
    @NullWhenAbsent var path: String?
  }

  private struct StoppedJSON: Encodable {
    var event = "stopped"
    var time: String
  }

  private func printJSONLine(_ change: RepositoryChange) {
    let time = Timestamp(date: Date(), timeZone: .current).rfc3339
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data: Data?
    switch change {
    case .started(let start):
      data = try? encoder.encode(
        StartedJSON(
          time: time, backend: start.backend, directories: start.directories,
          setup_ms: Int((start.setupSeconds * 1000).rounded()), debounce_ms: Int((settings.debounce * 1000).rounded()),
          sync: settings.sync, interval_ms: Int((settings.interval * 1000).rounded()), remote: settings.remote))
    case .saved(let saved):
      data = try? encoder.encode(
        SavedJSON(
          time: time, commit: saved.commit, count: saved.count, added: saved.added, changed: saved.changed,
          removed: saved.removed, moved: saved.moved.map { .init(from: $0.from, to: $0.to) }))
    case .synced(let synced):
      let summary = synced.summary
      data = try? encoder.encode(
        SyncedJSON(
          time: time, outcome: summary.outcome.rawValue, remote: "\(settings.remote)/\(summary.remoteBranch)",
          received: summary.received, sent: summary.sent, saved: summary.saved, changed: summary.changedPaths,
          conflicts: summary.conflicts.map(\.loserPath), warnings: summary.warnings))
    case .notice(let notice):
      data = try? encoder.encode(
        NoticeJSON(time: time, kind: notice.kind.rawValue, message: notice.message, path: notice.path))
    case .stopped:
      data = try? encoder.encode(StoppedJSON(time: time))
    }
    guard let data else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
  }

  // MARK: Hook

  /// Runs the user's `--on-commit` command without waiting for it (a slow hook must not delay the next save).
  /// Only the count and the commit id, which are safe in a shell command, are put into its text; paths go through
  /// the environment.
  private func runHook(_ saved: SavedChanges) {
    guard let hook else { return }
    let paths = saved.added + saved.changed + saved.removed
    let command = hook.replacingOccurrences(of: "{{count}}", with: "\(saved.count)")
      .replacingOccurrences(of: "{{commit}}", with: saved.commit)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.currentDirectoryURL = URL(fileURLWithPath: root)
    var environment = ProcessInfo.processInfo.environment
    environment["NB_COMMIT"] = saved.commit
    environment["NB_COUNT"] = "\(saved.count)"
    environment["NB_PATHS"] = paths.joined(separator: "\n")
    process.environment = environment
    process.terminationHandler = { _ in }
    do {
      try process.run()
    } catch {
      FileHandle.standardError.write(Data("warning: --on-commit could not run: \(error)\n".utf8))
    }
  }
}

import ArgumentParser
import Foundation
import NoteStore

/// The `nb` command: a thin layer over ``NoteStore``; each subcommand lives in a file of its own, a group's
/// in the group's folder.
public struct NB: ParsableCommand {
  /// The version `nb --version` prints.
  public static let version = "0.1.0"

  /// The command tree: every subcommand, one file each.
  public static let configuration = CommandConfiguration(
    commandName: "nb",
    abstract: "Notes as plain Markdown files in a git repository; every save is a commit.",
    discussion: """
      The repository is found from --dir, else $NB_DIR, else the enclosing directory holding .nb/, else ~/notes.
      A NOTE is a path (work/roadmap), an id or id prefix (4+ characters), or a title or file name.
      """,
    version: version,
    subcommands: [
      Init.self, Add.self, Edit.self, Show.self, Attach.self, List.self, Search.self, Links.self, Backlinks.self,
      Graph.self,
      CheckCommand.self, Reindex.self, Move.self, Rename.self, Delete.self,
      NotebookCommand.self,
      TagCommand.self, Save.self, Status.self, History.self, RemoteCommand.self, Clone.self, Sync.self, Watch.self,
      Conflicts.self,
      InkCommand.self, TaskCommand.self, Reminders.self, Capture.self, InboxCommand.self, MergeDriverCommand.self,
      Quickstart.self, Migrate.self,
      Serve.self,
    ]
  )

  /// Creates the root command (ArgumentParser calls this).
  public init() {}
}

/// Options every command that works on a repository takes.
struct RepositoryOptions: ParsableArguments {
  @Option(name: .customLong("dir"), help: "The repository (default: $NB_DIR, the enclosing repository, ~/notes).")
  var directory: String?

  func open() throws -> NoteRepository { try Self.open(directory: directory) }

  /// The repository `--dir` names (nil: not given), set up as every command wants it.
  static func open(directory: String?) throws -> NoteRepository {
    // Each variable these steps read, through getenv: ProcessInfo's environment copies all of it into a new
    // dictionary, and its first use sets ProcessInfo up, together a few tenths of a millisecond of every command
    // (and the first dictionary keyed by strings makes the runtime scan the binary's conformance records).
    let repository = try NoteRepository.open(
      at: NoteRepository.locate(
        explicit: directory, variable: environmentVariable, currentDirectory: currentDirectory()))
    if let now = try fixedClock(variable: environmentVariable) { repository.clock = { now } }
    repository.progress = ProgressLine.reporter()
    repository.notice = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    // This device's own settings (the inbox command), read only by the commands that need them.
    repository.deviceConfigFile = DeviceConfig.location(variable: environmentVariable)
    openUntilExit.append(repository)
    return repository
  }
}

/// Every repository a command opens, held until the process exits, so that its objects are never torn down: the
/// exit needs none of that work, and it is a few milliseconds of a command that used the index (the database
/// queue's teardown alone makes Foundation set up its notification center, only to unregister from it). Nothing is
/// lost by not closing: locks and journals are released where they are taken, and the index's connection leaves
/// its log for the next process on close anyway (NoteIndex skips the checkpoint).
nonisolated(unsafe) private var openUntilExit: [NoteRepository] = []

/// The working directory as a file URL, from getcwd (FileManager's answer goes through the same call, after
/// setting FileManager up); "/" when it cannot be read, as FileManager would give.
func currentDirectory() -> URL {
  var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
  guard getcwd(&buffer, buffer.count) != nil else {
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
  }
  return URL(fileURLWithPath: String(cString: buffer), isDirectory: true)
}

/// `NB_NOW` (an RFC 3339 date-time): the time every command takes as "now", for tests and reproducible examples
/// ("today", "overdue", stamps and commit dates). The zone is the process's (`TZ`).
func fixedClock(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Date? {
  try fixedClock(variable: { environment[$0] })
}

/// ``fixedClock(environment:)`` reading the variable with `variable`.
func fixedClock(variable: (String) -> String?) throws -> Date? {
  guard let text = variable("NB_NOW"), !text.isEmpty else { return nil }
  guard let stamp = Timestamp(rfc3339: text) else {
    throw CommandError(
      "NB_NOW '\(text)' is not an RFC 3339 date-time such as 2026-11-24T09:00:00+01:00; unset it or fix it")
  }
  return stamp.date
}

/// `--json` for commands a script may parse.
struct JSONOption: ParsableArguments {
  @Flag(name: .long, help: "Print one JSON document instead of text.")
  var json = false
}

/// The tags of a comma-separated `--tags` value, as `add` and `edit` take it.
func tagList(_ value: String) -> [String] {
  value.split(separator: ",").map(String.init)
}

extension NB {
  /// Runs nb with `arguments` (without the program name), accepting `--dir` before the subcommand too, as in
  /// `nb --dir ~/notes list` — the git-style habit — by moving leading global options after the subcommand.
  public static func main(arguments: [String]) {
    // What ArgumentParser would print, without building the command tree first: that costs more than printing.
    if arguments == ["--version"] || (arguments.count == 3 && arguments[0] == "--dir" && arguments[2] == "--version")
      || (arguments.count == 2 && arguments[0].hasPrefix("--dir=") && arguments[1] == "--version")
    {
      print(version)
      return
    }
    let hoisted = hoistingGlobalOptions(arguments)
    do {
      if try runWithoutParsing(arguments) { return }
      var command = try parseAsRoot(hoisted)
      try command.run()
    } catch let error as NoteStoreError {
      exitIfCheckFailed(error, hoisted)
      // A query that cannot be understood is a usage error, like a bad option.
      if case .badQuery = error {
        FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
        Foundation.exit(badQueryStatus)
      }
      // Whatever the command, an unreachable remote has its own exit status, so a script or a scheduler can tell
      // "try again later" from a real failure.
      if case .offline = error {
        FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
        Foundation.exit(offlineStatus)
      }
      exit(withError: error)
    } catch {
      exitIfCheckFailed(error, hoisted)
      exit(withError: error)
    }
  }

  /// `nb check` is for scripts and CI, where 1 means "problems found": a usage error, or any failure to check
  /// (no repository), exits 2 instead, as grep's do. The problems status itself is thrown as an `ExitCode`.
  private static func exitIfCheckFailed(_ error: Error, _ arguments: [String]) {
    guard arguments.first == CheckCommand.configuration.commandName, !(error is ExitCode),
      exitCode(for: error) != .success
    else { return }
    FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
    Foundation.exit(CheckCommand.usageStatus)
  }

  /// The exit status for a query that cannot be understood (as grep and ripgrep exit 2 on a bad pattern).
  public static let badQueryStatus: Int32 = 2

  /// The exit status for "the remote cannot be reached": nothing was sent or received.
  public static let offlineStatus: Int32 = 3

  /// Runs the commands typed most often without ArgumentParser, when no word on the line is an option but a leading
  /// `--dir PATH`: building its model of a command (reflection over every property, one runtime type lookup after
  /// another) costs more than showing a note or listing a notebook. Only lines that parse exactly one way qualify —
  /// `[--dir PATH]` then `show NOTE`, `list [WORDS...]`, `status` or `save` — and run as their parsed form would,
  /// with every option at its default (and `add` with its everyday options, ``Add/PlainLine``, `edit` without an
  /// editor, ``Edit/PlainLine``, and `sync` with its own, ``Sync/PlainLine``); anything else (another option,
  /// `--help`, a missing or extra operand, another command) is left to ArgumentParser, and so are its messages.
  /// Returns false when the line is not one of them.
  static func runWithoutParsing(_ arguments: [String]) throws -> Bool {
    var rest = arguments[...]
    var directory: String?
    if rest.count >= 2, rest.first == "--dir", let value = rest.dropFirst().first, !value.hasPrefix("-") {
      directory = value
      rest = rest.dropFirst(2)
    } else if let first = rest.first, first.hasPrefix("--dir="), first.count > "--dir=".count {
      directory = String(first.dropFirst("--dir=".count))
      rest = rest.dropFirst()
    }
    // `nb sync` with its own options: what a scheduler or an editor's hook runs, where the parser's cost is most
    // of what a sync with nothing to do costs beyond the remote's round trip.
    if rest.first == "sync", let line = Sync.PlainLine(rest.dropFirst()),
      directory == nil || line.directory == nil
    {
      try Sync.sync(
        remote: line.remote, dryRun: line.dryRun, force: line.force, allowUnrelated: line.allowUnrelated,
        device: line.device, json: line.json, directory: directory ?? line.directory)
      return true
    }
    // `nb add` with its everyday options: the parser's model of the command costs more than a tenth of an add.
    if rest.first == "add", let line = Add.PlainLine(rest.dropFirst()) {
      try Add.add(
        title: line.title, notebook: line.notebook, tags: line.tags, content: line.content, json: line.json,
        directory: directory)
      return true
    }
    // `nb edit NOTE --append TEXT` and the other changes without an editor: what scripts and hooks run.
    if rest.first == "edit", let line = Edit.PlainLine(rest.dropFirst()), let note = line.note {
      try Edit.change(note, line, directory: directory)
      return true
    }
    guard let name = rest.first, !rest.contains(where: { $0.hasPrefix("-") }) else { return false }
    let operands = Array(rest.dropFirst())
    switch name {
    case "show" where operands.count == 1:
      try Show.show(operands[0], raw: false, json: false, directory: directory)
    case "list":
      try List.list(operands, recursive: false, tags: [], json: false, directory: directory, query: QueryOptions.unset)
    case "status" where operands.isEmpty:
      try Status.status(json: false, directory: directory)
    case "save" where operands.isEmpty:
      try Save.save(json: false, directory: directory)
    default:
      return false
    }
    return true
  }

  static func hoistingGlobalOptions(_ arguments: [String]) -> [String] {
    var rest = arguments[...]
    var global: [String] = []
    while let first = rest.first {
      if first == "--dir", rest.count >= 2 {
        global += rest.prefix(2)
        rest = rest.dropFirst(2)
      } else if first.hasPrefix("--dir=") {
        global.append(first)
        rest = rest.dropFirst()
      } else {
        break
      }
    }
    guard !global.isEmpty else { return arguments }
    var result = Array(rest)
    result.insert(contentsOf: global, at: result.firstIndex(of: "--") ?? result.endIndex)
    return result
  }
}

import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct Sync: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync",
    abstract: "Save pending edits, fetch, merge (conflicts by timestamp, nothing lost), push.",
    discussion:
      "Exits with status 3 when the remote cannot be reached: nothing is sent or received; commits wait.")

  @Option(help: "The remote.") var remote = "origin"
  @Flag(help: "Say what would happen; change nothing.") var dryRun = false
  @Flag(help: "Allow a merge that deletes more than 50 notes or a whole notebook.") var force = false
  @Flag(help: "Join a remote whose history is unrelated to this one.") var allowUnrelated = false
  @Option(help: "This device's name in its commits and conflict-copy names (default: $NB_DEVICE, else the host name).")
  var device: String?

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct SummaryJSON: Encodable {
    struct Conflict: Encodable {
      var path: String
      var winner: String
      var loser: String
      var kept_at: String
      var reason: String
    }
    struct FollowedLink: Encodable {
      var path: String
      var line: Int
      var old: String
      var new: String
    }
    var outcome: String
    var remote: String
    var dry_run: Bool
    var received: Int
    var sent: Int
    var saved: [String]
    var merged: [String]
    var conflicts: [Conflict]
    var resurrected: [String]
    var warnings: [String]
    @NullWhenAbsent var backup_ref: String?
    var attempts: Int
    var links_followed: [FollowedLink]
  }

  func run() throws {
    try Self.sync(
      remote: remote, dryRun: dryRun, force: force, allowUnrelated: allowUnrelated, device: device, json: output.json,
      directory: repository.directory)
  }

  /// `nb sync` with these options (`runWithoutParsing` calls it for a plain `nb [--dir PATH] sync`).
  static func sync(
    remote: String = "origin", dryRun: Bool = false, force: Bool = false, allowUnrelated: Bool = false,
    device: String? = nil, json: Bool = false, directory: String?
  ) throws {
    // libgit2 loads while the repository is opened and locked.
    NoteRepository.prepareGit()
    defer { NoteRepository.finishPreparingGit() }
    let notes = try RepositoryOptions.open(directory: directory)
    var options = SyncOptions(remote: remote, dryRun: dryRun, force: force, allowUnrelated: allowUnrelated)
    if let device { options.device = device }
    let summary = try notes.sync(options)
    if json {
      return try printJSON(
        SummaryJSON(
          outcome: summary.outcome.rawValue, remote: "\(remote)/\(summary.remoteBranch)", dry_run: summary.dryRun,
          received: summary.received, sent: summary.sent, saved: summary.saved, merged: summary.merged,
          conflicts: summary.conflicts.map {
            .init(
              path: $0.path, winner: $0.winner.rawValue, loser: $0.loser.rawValue, kept_at: $0.loserPath,
              reason: $0.reason)
          }, resurrected: summary.resurrected, warnings: summary.warnings, backup_ref: summary.backupRef,
          attempts: summary.attempts,
          links_followed: summary.followedLinks.map { .init(path: $0.path, line: $0.line, old: $0.old, new: $0.new) }))
    }
    let prefix = summary.dryRun ? "Would sync" : "Synced"
    print("\(prefix) with \(remote)/\(summary.remoteBranch): \(summary.outcomeText)")
    let lines = summary.reportLines
    let lastConflict = lines.lastIndex { $0.kind == .conflict }
    for (index, line) in lines.enumerated() {
      switch line.kind {
      case .saved: print("  \(line.label) \(line.text)")
      case .retried: print("  \(line.text)")
      case .warning: print(Style.yellow("\(line.label) ") + line.text)
      case .conflict: print(Style.yellow("  conflict  ") + line.text)
      case .merged, .kept, .relinked:
        print("  " + line.label.paddedWithSpaces(toLength: 10) + line.text)
      }
      // After the last conflict, before the links and warnings.
      if index == lastConflict {
        print("Review them with 'nb conflicts'.")
      }
    }
  }
}

extension Sync {
  /// A `sync` line with only sync's own options (`--remote NAME`, `--device NAME`, `--dry-run`, `--force`,
  /// `--allow-unrelated`, `--json`, `--dir PATH`; a value also as `--name=value`), each at most once, as a
  /// scheduler or a hook writes it: read without ArgumentParser (``NB/runWithoutParsing(_:)``), whose model of this
  /// command makes the runtime scan every conformance record in the binary about 40 times. Nil for anything else
  /// (a value that is empty or looks like an option, a repeated option, another word), which the parser then reads,
  /// or refuses in its own words.
  struct PlainLine: Equatable {
    var remote = "origin"
    var device: String?
    var directory: String?
    var dryRun = false
    var force = false
    var allowUnrelated = false
    var json = false

    init?(_ words: ArraySlice<String>) {
      var words = words
      // An array: a first `Set<String>` costs a runtime conformance lookup of its own.
      var seen: [String] = []
      while let word = words.popFirst() {
        // `--name=value` or `--name value`; the parser would refuse a separate value that looks like an option.
        let (name, attached) =
          word.firstIndex(of: "=").map { (String(word[..<$0]), Optional(String(word[$0...].dropFirst()))) }
          ?? (word, nil)
        guard !seen.contains(name) else { return nil }
        seen.append(name)
        switch name {
        case "--remote", "--device", "--dir":
          guard let value = attached ?? words.popFirst(), !value.isEmpty, !value.hasPrefix("-") else { return nil }
          switch name {
          case "--remote": remote = value
          case "--device": device = value
          default: directory = value
          }
        case "--dry-run" where attached == nil: dryRun = true
        case "--force" where attached == nil: force = true
        case "--allow-unrelated" where attached == nil: allowUnrelated = true
        case "--json" where attached == nil: json = true
        default: return nil
        }
      }
    }
  }
}

import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct Status: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status",
    abstract: "Branch, last commit, uncommitted changes and anything that needs attention.")

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct StatusJSON: Encodable {
    struct Change: Encodable {
      var path: String
      var kind: String
      var staged: Bool
    }
    var root: String
    var branch: String?
    var operation: String?
    var head: CommitJSON?
    var clean: Bool
    var changes: [Change]
    var warnings: [String]
    var upstream: String?
    var ahead: Int?
    var behind: Int?
    var lastSync: String?

    func encode(to encoder: Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(root, forKey: .root)
      try c.encode(branch, forKey: .branch)
      try c.encode(operation, forKey: .operation)
      try c.encode(head, forKey: .head)
      try c.encode(clean, forKey: .clean)
      try c.encode(changes, forKey: .changes)
      try c.encode(warnings, forKey: .warnings)
      try c.encode(upstream, forKey: .upstream)
      try c.encode(ahead, forKey: .ahead)
      try c.encode(behind, forKey: .behind)
      try c.encode(lastSync, forKey: .lastSync)
    }

    enum CodingKeys: String, CodingKey {
      case root, branch, operation, head, clean, changes, warnings, upstream, ahead, behind
      case lastSync = "last_sync"
    }
  }

  func run() throws {
    try Self.status(json: output.json, directory: repository.directory)
  }

  /// The command, its options as values (``NB/runWithoutParsing(_:)`` has no parsed command).
  static func status(json: Bool, directory: String?) throws {
    let notes = try RepositoryOptions.open(directory: directory)
    let status = try notes.status()
    let tracking = try notes.aheadBehind()
    let lastSync = notes.lastSync.map { Timestamp(date: $0, timeZone: .current) }
    if json {
      return try printJSON(
        StatusJSON(
          root: notes.root.path, branch: status.branch, operation: status.operation,
          head: status.head.map(CommitJSON.init),
          clean: status.changes.isEmpty,
          changes: status.changes.map { .init(path: $0.path, kind: $0.kind.rawValue, staged: $0.staged) },
          warnings: status.warnings, upstream: tracking?.upstream, ahead: tracking?.ahead, behind: tracking?.behind,
          lastSync: lastSync?.rfc3339))
    }
    print("Repository \(Style.blue(notes.root.path))")
    print("On branch \(status.branch.map(Style.bold) ?? Style.yellow("(detached HEAD)"))")
    if let tracking {
      let state =
        tracking.ahead == 0 && tracking.behind == 0
        ? "up to date" : "\(tracking.ahead) ahead, \(tracking.behind) behind (as of the last fetch)"
      print("Tracking \(tracking.upstream): \(state)")
    }
    if let lastSync { print("Last sync \(lastSync.short)") }
    if let head = status.head {
      print("Last commit \(Style.dim(String(head.id.prefix(8)))) \(head.subject)  \(Style.dim(head.date.short))")
    } else {
      print("No commits yet")
    }
    if status.changes.isEmpty {
      print(Style.green("Nothing to save: every change is committed."))
    } else {
      print("Not committed yet (run 'nb save'):")
      for change in status.changes {
        print(
          "  \(change.kind.rawValue.paddedWithSpaces(toLength: 9))\(change.path)"
            + (change.staged ? Style.dim(" (staged)") : ""))
      }
    }
    for warning in status.warnings { print(Style.yellow("warning: ") + warning) }
  }
}

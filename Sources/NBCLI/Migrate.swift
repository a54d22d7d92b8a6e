import ArgumentParser
import Foundation
import NoteStore

struct Migrate: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "migrate",
    abstract: "Show what bringing the repository to the newest format changes; --apply does it in one commit.",
    discussion: """
      Upgrade nb on every device that syncs this repository first: an older nb refuses a newer format. Only the \
      format line of .nb/config.yaml changes; directories listed as becoming attachment folders keep their files.
      """)

  @Flag(help: "Make the change (one commit); without it nothing is changed.")
  var apply = false

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  /// `{from, to, applied, up_to_date, steps, changes: [{path, from, to}], attachment_folders: [{folder, note}],
  /// commit}`.
  struct MigrateJSON: Encodable {
    struct Change: Encodable {
      var path: String
      var from: String
      var to: String
    }
    struct Folder: Encodable {
      var folder: String
      var note: String
    }
    var from: Int
    var to: Int
    var applied: Bool
    var upToDate: Bool
    var steps: [String]
    var changes: [Change]
    var attachmentFolders: [Folder]
    var commit: String?

    enum CodingKeys: String, CodingKey {
      case from, to, applied, steps, changes, commit
      case upToDate = "up_to_date"
      case attachmentFolders = "attachment_folders"
    }

    func encode(to encoder: Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(from, forKey: .from)
      try c.encode(to, forKey: .to)
      try c.encode(applied, forKey: .applied)
      try c.encode(upToDate, forKey: .upToDate)
      try c.encode(steps, forKey: .steps)
      try c.encode(changes, forKey: .changes)
      try c.encode(attachmentFolders, forKey: .attachmentFolders)
      try c.encode(commit, forKey: .commit)
    }
  }

  func run() throws {
    let notes = try repository.open()
    let plan = apply ? try notes.migrate() : try notes.migrationPlan()
    let applied = apply && !plan.isEmpty
    let commit = applied ? try notes.status().head?.id : nil
    if output.json {
      try printJSON(
        MigrateJSON(
          from: plan.from, to: plan.to, applied: applied, upToDate: plan.isEmpty, steps: plan.steps,
          changes: plan.isEmpty
            ? [] : [.init(path: ".nb/config.yaml", from: "format: \(plan.from)", to: "format: \(plan.to)")],
          attachmentFolders: plan.attachmentFolders.map { .init(folder: $0.folder, note: $0.note) },
          commit: commit))
      return
    }
    guard !plan.isEmpty else {
      print("already at format \(plan.to), the newest this nb knows; nothing to migrate")
      return
    }
    print(applied ? "migrated to format \(plan.to):" : "would migrate from format \(plan.from) to \(plan.to):")
    for step in plan.steps { print("  \(step)") }
    print("  .nb/config.yaml: format: \(plan.from) -> format: \(plan.to)")
    for folder in plan.attachmentFolders {
      print("  \(folder.folder)/ becomes the attachment folder of \(folder.note) (no longer a notebook)")
    }
    if !applied {
      print("run 'nb migrate --apply' to make this change (one commit); upgrade nb on your other devices first")
    }
  }
}

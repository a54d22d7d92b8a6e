import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct NotebookRename: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rename",
    abstract: "Rename or move a notebook with everything in it; links into and out of it are rewritten.",
    aliases: ["move", "mv"])
  @Argument(help: "The notebook.", completion: Completions.notebooks) var from: String
  @Argument(help: "Its new path.") var to: String
  @Flag(name: .customLong("no-update-links"), help: "Leave links as they are (they may break).")
  var noUpdateLinks = false
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let notes = try repository.open()
    let before = try notes.headCommit()
    let report = try notes.renameNotebook(from, to: to, updateLinks: !noUpdateLinks)
    reportRelinkNotices(report)
    if output.json {
      let head = try notes.headCommit()
      try printJSON(
        RelinkJSON(
          from: from, to: to, title: nil, updateLinks: !noUpdateLinks, report: report,
          commit: head != before ? head : nil))
      return
    }
    print("Renamed notebook \(from) -> \(to)" + (report.linkCount > 0 ? "; \(relinkSummary(report))" : ""))
  }
}

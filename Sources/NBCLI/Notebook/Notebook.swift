import ArgumentParser
import Foundation
import NoteStore

struct NotebookCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "notebook", abstract: "List, create, rename and delete notebooks (directories).",
    subcommands: [NotebookList.self, NotebookCreate.self, NotebookRename.self, NotebookDelete.self],
    defaultSubcommand: NotebookList.self, aliases: ["notebooks"])
}

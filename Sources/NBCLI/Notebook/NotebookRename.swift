import ArgumentParser
import Foundation
import NoteStore

struct NotebookRename: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rename", abstract: "Rename or move a notebook with everything in it.", aliases: ["move", "mv"])
  @Argument(help: "The notebook.", completion: Completions.notebooks) var from: String
  @Argument(help: "Its new path.") var to: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    try repository.open().renameNotebook(from, to: to)
    print("Renamed notebook \(from) -> \(to)")
  }
}

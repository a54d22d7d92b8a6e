import ArgumentParser
import Foundation
import NoteStore

struct NotebookCreate: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a notebook.")
  @Argument(help: "The notebook path, e.g. work/archive.") var path: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let notebook = try repository.open().createNotebook(path)
    print("Created notebook \(notebook.path)")
  }
}

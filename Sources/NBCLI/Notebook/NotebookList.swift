import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct NotebookList: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "list", abstract: "List every notebook.")
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct NotebookJSON: Encodable {
    var path: String
    var title: String
    var parent: String
    var notes: Int
  }

  func run() throws {
    let notebooks = try repository.open().notebooks()
    if output.json {
      return try printJSON(
        notebooks.map { NotebookJSON(path: $0.path, title: $0.title, parent: $0.parent, notes: $0.noteCount) })
    }
    for notebook in notebooks {
      let depth = notebook.path.split(separator: "/").count - 1
      let title = notebook.title == notebook.name ? "" : "  " + Style.dim(notebook.title)
      print(
        String(repeating: "  ", count: depth) + Style.blue(notebook.name + "/")
          + "  \(counted(notebook.noteCount, "note"))" + title)
    }
  }
}

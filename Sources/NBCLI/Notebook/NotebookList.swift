import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct NotebookList: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "list", abstract: "List every notebook.")
  @Flag(help: "Also count the notes of each notebook's children (from the index, without reading notes).")
  var counts = false

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct NotebookJSON: Encodable {
    var path: String
    var title: String
    var parent: String
    var notes: Int
    /// Notes in it and every notebook under it.
    var total: Int
  }

  func run() throws {
    let repository = try repository.open()
    let notebooks = try repository.notebooks()
    // Direct counts come with the walk of the notebook folders; totals under each one come from the index.
    var totals: [String: Int] = [:]
    if counts || output.json {
      for count in try repository.notebookCounts() { totals[count.path] = count.notesWithChildren }
    }
    if output.json {
      return try printJSON(
        notebooks.map {
          NotebookJSON(
            path: $0.path, title: $0.title, parent: $0.parent, notes: $0.noteCount, total: totals[$0.path] ?? 0)
        })
    }
    for notebook in notebooks {
      let depth = notebook.path.split(separator: "/").count - 1
      let title = notebook.title == notebook.name ? "" : "  " + Style.dim(notebook.title)
      let total = totals[notebook.path] ?? 0
      let children = counts && total != notebook.noteCount ? Style.dim(" (\(total) with children)") : ""
      print(
        String(repeating: "  ", count: depth) + Style.blue(notebook.name + "/")
          + "  \(counted(notebook.noteCount, "note"))" + children + title)
    }
  }
}

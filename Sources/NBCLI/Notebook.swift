import ArgumentParser
import Foundation
import NoteStore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct NotebookCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "notebook", abstract: "List, create, rename and delete notebooks (directories).",
    subcommands: [ListNotebooks.self, CreateNotebook.self, RenameNotebook.self, DeleteNotebook.self],
    defaultSubcommand: ListNotebooks.self, aliases: ["notebooks"])

  struct ListNotebooks: ParsableCommand {
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
            + "  \(CommandCount.notes(notebook.noteCount))" + title)
      }
    }
  }

  struct CreateNotebook: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a notebook.")
    @Argument(help: "The notebook path, e.g. work/archive.") var path: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      let notebook = try repository.open().createNotebook(path)
      print("Created notebook \(notebook.path)")
    }
  }

  struct RenameNotebook: ParsableCommand {
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

  struct DeleteNotebook: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "delete", abstract: "Delete a notebook; one with notes asks first, or needs --recursive.",
      aliases: ["rm"])
    @Argument(help: "The notebook.", completion: Completions.notebooks) var path: String
    @Flag(name: [.short, .long], help: "Delete everything inside too.") var recursive = false
    @Flag(help: "Also delete uncommitted edits inside (they are lost); implies --recursive.") var force = false
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      let notes = try repository.open()
      var recursive = self.recursive || force
      if !recursive, isatty(STDIN_FILENO) == 1 {
        let inside = try notes.notes(inNotebook: path, recursive: true)
        if !inside.isEmpty {
          print("Delete notebook \(path) and the \(CommandCount.notes(inside.count)) in it? [y/N] ", terminator: "")
          fflush(stdout)
          guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
            print("Nothing deleted.")
            return
          }
          recursive = true
        }
      }
      try notes.deleteNotebook(path, recursive: recursive, force: force)
      print("Deleted notebook \(path)")
    }
  }
}

enum CommandCount {
  static func notes(_ n: Int) -> String { n == 1 ? "1 note" : "\(n) notes" }
}

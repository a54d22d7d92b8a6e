import ArgumentParser
import Foundation
import NoteStore

struct Conflicts: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "conflicts", abstract: "Versions that lost a sync conflict: list, show, restore, dismiss.",
    subcommands: [ListConflicts.self, ShowConflict.self, RestoreConflict.self, DismissConflict.self],
    defaultSubcommand: ListConflicts.self)

  struct ListConflicts: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List conflict copies.")
    @OptionGroup var repository: RepositoryOptions
    @OptionGroup var output: JSONOption

    func run() throws {
      let copies = try repository.open().conflictCopies()
      if output.json { return try printJSON(copies.map { NoteJSON($0) }) }
      if copies.isEmpty { return print("No conflicts.") }
      for copy in copies { print("\(Style.yellow(copy.path))  lost to \(copy.conflictOf ?? "")  \(copy.title)") }
    }
  }

  struct ShowConflict: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print a conflict copy.")
    @Argument(help: "The conflict copy.", completion: Completions.notes) var note: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      let notes = try repository.open()
      FileHandle.standardOutput.write(try notes.data(of: try notes.resolve(note)))
    }
  }

  struct RestoreConflict: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "restore", abstract: "Make the copy's version the note's (one commit; history keeps both).")
    @Argument(help: "The conflict copy.", completion: Completions.notes) var note: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      let notes = try repository.open()
      let restored = try notes.restoreConflict(try notes.resolve(note))
      print("Restored into \(restored.path)")
    }
  }

  struct DismissConflict: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "dismiss", abstract: "Delete the copy (history keeps it).", aliases: ["rm"])
    @Argument(help: "The conflict copy.", completion: Completions.notes) var note: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      let notes = try repository.open()
      let copy = try notes.resolve(note)
      try notes.dismissConflict(copy)
      print("Dismissed \(copy.path)")
    }
  }
}

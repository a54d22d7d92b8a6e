import ArgumentParser
import Foundation
import NoteStore

struct Move: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "move",
    abstract: "Move a note (with its sidecars) to a notebook, or rename it to a new .md path; the id stays.",
    aliases: ["mv"])

  @Argument(help: "The note: path, id prefix or title.", completion: Completions.notes)
  var note: String

  @Argument(
    help: "A notebook path (created if missing), or a new path ending in .md.", completion: Completions.notebooks)
  var destination: String

  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let notes = try repository.open()
    let moved = try notes.move(try notes.resolve(note), to: destination)
    print(moved.path)
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct Move: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "move",
    abstract: "Move a note (with its sidecars) to a notebook, or rename it to a new .md path; the id stays.",
    aliases: ["mv"])

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Argument(
    help: "A notebook path (created if missing), or a new path ending in .md.", completion: Completions.notebooks)
  var destination: String

  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let (notes, target) = try note.resolve(in: repository)
    let moved = try notes.move(target, to: destination)
    print(moved.path)
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct Delete: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Delete a note and its sidecars (git history keeps every version).", aliases: ["rm"])

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Flag(help: "Delete even when the note has uncommitted edits (they are lost).")
  var force = false

  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let (notes, target) = try note.resolve(in: repository)
    try notes.delete(target, force: force)
    print("Deleted \(target.path)")
  }
}

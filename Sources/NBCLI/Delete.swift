import ArgumentParser
import Foundation
import NoteStore

struct Delete: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Delete a note and its sidecars (git history keeps every version).", aliases: ["rm"])

  @Argument(help: "The note: path, id prefix or title.", completion: Completions.notes)
  var note: String

  @Flag(help: "Delete even when the note has uncommitted edits (they are lost).")
  var force = false

  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let notes = try repository.open()
    let target = try notes.resolve(note)
    try notes.delete(target, force: force)
    print("Deleted \(target.path)")
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct ConflictsDismiss: ParsableCommand {
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

import ArgumentParser
import Foundation
import NoteStore

struct ConflictsDismiss: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dismiss", abstract: "Delete the copy (history keeps it).", aliases: ["rm"])
  @OptionGroup var note: NoteArgument<NoteHelp.ConflictCopy>
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let (notes, copy) = try note.resolve(in: repository)
    try notes.dismissConflict(copy)
    print("Dismissed \(copy.path)")
  }
}

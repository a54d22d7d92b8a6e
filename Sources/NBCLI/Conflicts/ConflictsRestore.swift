import ArgumentParser
import Foundation
import NoteStore

struct ConflictsRestore: ParsableCommand {
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

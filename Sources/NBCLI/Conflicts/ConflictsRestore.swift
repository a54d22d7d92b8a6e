import ArgumentParser
import Foundation
import NoteStore

struct ConflictsRestore: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "restore", abstract: "Make the copy's version the note's (one commit; history keeps both).")
  @OptionGroup var note: NoteArgument<NoteHelp.ConflictCopy>
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let (notes, copy) = try note.resolve(in: repository)
    let restored = try notes.restoreConflict(copy)
    print("Restored into \(restored.path)")
  }
}

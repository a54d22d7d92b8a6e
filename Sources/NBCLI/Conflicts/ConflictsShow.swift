import ArgumentParser
import Foundation
import NoteStore

struct ConflictsShow: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "show", abstract: "Print a conflict copy.")
  @OptionGroup var note: NoteArgument<NoteHelp.ConflictCopy>
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let (notes, copy) = try note.resolve(in: repository)
    FileHandle.standardOutput.write(try notes.data(of: copy))
  }
}

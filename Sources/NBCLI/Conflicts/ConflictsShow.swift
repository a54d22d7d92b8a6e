import ArgumentParser
import Foundation
import NoteStore

struct ConflictsShow: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "show", abstract: "Print a conflict copy.")
  @Argument(help: "The conflict copy.", completion: Completions.notes) var note: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let notes = try repository.open()
    FileHandle.standardOutput.write(try notes.data(of: try notes.resolve(note)))
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct Init: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "init",
    abstract: "Create a note repository (git init, nb's settings, a first commit).")

  @Argument(help: "Where (default: --dir, $NB_DIR, or ~/notes).")
  var path: String?

  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let location = NoteRepository.locate(explicit: path ?? repository.directory)
    let notes = try NoteRepository.initialize(at: location)
    print("Initialized nb repository in \(Style.blue(notes.root.path))")
  }
}

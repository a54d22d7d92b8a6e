import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct Clone: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "clone", abstract: "Make this device a copy of an existing note repository.")

  @Argument(help: "The remote's URL (or path).")
  var url: String

  @Argument(help: "Where to put it (default: --dir, $NB_DIR, or ~/notes).")
  var path: String?

  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let location = NoteRepository.locate(explicit: path ?? repository.directory)
    let notes = try NoteRepository.clone(url: url, to: location)
    print(
      "Cloned \(url) into \(Style.blue(notes.root.path)) (\(counted(try notes.allNotes().count, "note")))")
  }
}

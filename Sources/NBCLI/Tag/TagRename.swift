import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct TagRename: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rename", abstract: "Rename a tag in every note (one commit).")
  @Argument(help: "The tag.", completion: Completions.tags) var old: String
  @Argument(help: "Its new name.") var new: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let count = try repository.open().renameTag(old, to: new)
    print("Renamed #\(old) -> #\(new) in \(counted(count, "note"))")
  }
}

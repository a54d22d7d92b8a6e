import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct TagDelete: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete", abstract: "Remove a tag from every note (one commit).", aliases: ["rm"])
  @Argument(help: "The tag.", completion: Completions.tags) var tag: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let count = try repository.open().deleteTag(tag)
    print("Deleted #\(tag) from \(counted(count, "note"))")
  }
}

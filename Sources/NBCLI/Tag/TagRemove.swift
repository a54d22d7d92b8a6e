import ArgumentParser
import Foundation
import NoteStore

struct TagRemove: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a tag from a note.")
  @OptionGroup var note: NoteArgument<NoteHelp.Short>
  @Argument(help: "The tag.", completion: Completions.tags) var tag: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let (notes, target) = try note.resolve(in: repository)
    let updated = try notes.removeTag(tag, from: target)
    print("\(updated.path): \(hashtags(updated.tags))")
  }
}

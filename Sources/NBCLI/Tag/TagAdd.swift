import ArgumentParser
import Foundation
import NoteStore

struct TagAdd: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a tag to a note.")
  @OptionGroup var note: NoteArgument<NoteHelp.Short>
  @Argument(help: "The tag.") var tag: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let (notes, target) = try note.resolve(in: repository)
    let updated = try notes.addTag(tag, to: target)
    print("\(updated.path): \(hashtags(updated.tags))")
  }
}

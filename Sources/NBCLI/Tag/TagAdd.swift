import ArgumentParser
import Foundation
import NoteStore

struct TagAdd: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a tag to a note.")
  @Argument(help: "The note.", completion: Completions.notes) var note: String
  @Argument(help: "The tag.") var tag: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let notes = try repository.open()
    let updated = try notes.addTag(tag, to: try notes.resolve(note))
    print("\(updated.path): \(updated.tags.map { "#" + $0 }.joined(separator: " "))")
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct TagRemove: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a tag from a note.")
  @Argument(help: "The note.", completion: Completions.notes) var note: String
  @Argument(help: "The tag.", completion: Completions.tags) var tag: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let notes = try repository.open()
    let updated = try notes.removeTag(tag, from: try notes.resolve(note))
    print("\(updated.path): \(updated.tags.map { "#" + $0 }.joined(separator: " "))")
  }
}

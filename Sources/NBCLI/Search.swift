import ArgumentParser
import Foundation
import NoteStore

struct Search: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search", abstract: "Find notes whose title, tags or text contain TEXT.")

  @Argument(help: "The text to look for (case-insensitive).")
  var text: String

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let found = try repository.open().search(text)
    if output.json { return try printJSON(found.map { NoteJSON($0) }) }
    for note in found { print(noteLine(note)) }
  }
}

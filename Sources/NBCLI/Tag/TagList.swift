import ArgumentParser
import Foundation
import NoteStore

struct TagList: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "list", abstract: "Every tag with its note count.")
  @Flag(help: "Show how many notes carry each tag (the default; read from the index, not the notes).")
  var counts = false

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct TagJSON: Encodable {
    var tag: String
    var count: Int
  }

  func run() throws {
    let tags = try repository.open().tagCounts()
    if output.json { return try printJSON(tags.map { TagJSON(tag: $0.tag, count: $0.count) }) }
    for tag in tags { print(Style.cyan("#" + tag.tag) + "  \(tag.count)") }
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct Capture: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "capture",
    abstract: "Capture a thought into the inbox (one commit); prints its path. 'nb inbox' lists what waits there.",
    discussion: """
      The text comes from the argument, else from standard input. The first line (cut to 80 characters) is the \
      title unless --title says otherwise; a capture that is only a URL is titled by its host and path (nothing \
      is fetched).
      """)

  @Argument(help: "The text (otherwise piped standard input).")
  var text: String?

  @Option(name: [.customShort("T"), .long], help: "The title.")
  var title: String?

  @Option(name: [.short, .long], help: "Comma-separated tags.")
  var tags: String?

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let content = try text ?? readPipedStandardInput() ?? ""
    let notes = try repository.open()
    let note = try notes.capture(content, title: title, tags: tags.map(tagList) ?? [])
    if output.json {
      try printJSON(NoteJSON(note))
    } else {
      print(note.path)
    }
  }
}

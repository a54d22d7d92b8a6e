import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct Search: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Find notes: ranked full-text search with filters (see 'nb help search').",
    discussion: QueryLanguage.help)

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp(
      "The query: words, \"phrases\", prefix*, -word, OR, (…), tag:, notebook:, updated:>=…",
      valueName: "query"))
  var words: [String] = []

  @Flag(help: "Print only the number of matching notes.")
  var count = false

  @OptionGroup var options: QueryOptions
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let text = try queryText(words)
    guard !text.trimmingWhitespaces().isEmpty else {
      throw NoteStoreError.badQuery(
        QueryError(
          query: text, column: 1,
          message:
            "the query is empty; give words or filters, e.g. nb search 'roadmap tag:planning' ('nb list' lists every note)"
        ))
    }
    let notes = try repository.open()
    if count {
      let number = try notes.count(matching: NoteQuery(text))
      return output.json ? try printJSON(["count": number]) : print(number)
    }
    let hits = try notes.notes(matching: options.query(text, defaultSort: .relevance, defaultLimit: 20))
    if output.json { return try printJSON(hits.map(HitJSON.init)) }
    var lines = ""
    for hit in hits {
      lines += noteLine(hit.note) + "\n"
      if let snippet = hit.snippet { lines += "    " + snippetLine(snippet) + "\n" }
      if let warning = hit.note.warning { warn(warning) }
    }
    FileHandle.standardOutput.write(Data(lines.utf8))
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct List: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "List notes: all of them, one notebook's, or those a query matches (nb list 'tag:x notebook:y').",
    discussion: """
      A single notebook path lists that notebook's notes (--recursive for its children too); anything else is a \
      query, as 'nb search' takes it (see 'nb help search'), listed in path order unless --sort says otherwise.
      """)

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp("A notebook path, or a query (default: every note).", valueName: "notebook-or-query"),
    completion: Completions.notebooks)
  var words: [String] = []

  @Flag(name: [.short, .long], help: "With a notebook path: include its children.")
  var recursive = false

  @Option(help: "Only notes with this tag (repeatable: all must match).", completion: Completions.tags)
  var tag: [String] = []

  @OptionGroup var options: QueryOptions
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let notes = try repository.open()
    var text = try queryText(words)
    // The older form `nb list work [-r]`: a notebook that exists, named alone.
    let notebooks = text.isEmpty || text.contains(where: { $0 == ":" || $0.isWhitespace }) ? [] : try notes.notebooks()
    let named = text.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    if notebooks.contains(where: { $0.path == named }) {
      text = "notebook:\"\(named)\""
      // Without --recursive, only the notebook's own notes: each child notebook's subtree is left out.
      if !recursive {
        for child in notebooks where child.parent == named { text += " -notebook:\"\(child.path)\"" }
      }
    } else if recursive {
      throw ValidationError("--recursive goes with a notebook path, e.g. nb list work --recursive")
    }
    let query = filteredQuery(text)
    // Streamed: a listing of every note of a large repository is never all in memory at once.
    if output.json {
      try printJSONArray { element in try notes.forEachNote(matching: query) { try element(HitJSON($0)) } }
      return
    }
    var lines = ""
    try notes.forEachNote(matching: query) { hit in
      lines += noteLine(hit.note) + "\n"
      if let warning = hit.note.warning { warn(warning) }
      if lines.utf8.count >= 64 * 1024 {
        FileHandle.standardOutput.write(Data(lines.utf8))
        lines = ""
      }
    }
    FileHandle.standardOutput.write(Data(lines.utf8))
  }

  private func filteredQuery(_ text: String) -> NoteQuery {
    let tags = tag.map { "tag:\"\($0.trimmingCharacters(in: CharacterSet(charactersIn: "#")))\"" }
    return options.query(
      ([text] + tags).filter { !$0.isEmpty }.joined(separator: " "), defaultSort: .path, defaultLimit: nil)
  }
}

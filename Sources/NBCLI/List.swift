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
    try Self.list(
      words, recursive: recursive, tags: tag, json: output.json, directory: repository.directory,
      query: options.query)
  }

  /// The command, its options as values (``NB/runWithoutParsing(_:)`` has no parsed command); `query` makes the
  /// query as ``QueryOptions/query(_:defaultSort:defaultLimit:)`` does.
  static func list(
    _ words: [String], recursive: Bool, tags: [String], json: Bool, directory: String?,
    query: (_ text: String, _ defaultSort: NoteQuery.Sort, _ defaultLimit: Int?) -> NoteQuery
  ) throws {
    let notes = try RepositoryOptions.open(directory: directory)
    var text = try queryText(words)
    // The older form `nb list work [-r]`: a notebook that exists, named alone.
    let named = trimming(text, "/")
    let children =
      text.isEmpty || text.contains(where: { $0 == ":" || $0.isWhitespace }) ? nil : notes.childNotebookPaths(of: named)
    if let children {
      text = "notebook:\"\(named)\""
      // Without --recursive, only the notebook's own notes: each child notebook's subtree is left out.
      if !recursive {
        for child in children { text += " -notebook:\"\(child)\"" }
      }
    } else if recursive {
      throw CommandError("--recursive goes with a notebook path, e.g. nb list work --recursive")
    }
    let filters = tags.map { "tag:\"\(trimming($0, "#"))\"" }
    let query = query(joinedWithoutLookup(([text] + filters).filter { !$0.isEmpty }, separator: " "), .path, nil)
    // A notebook listed as it is (no tag, the default order, every note): read from its directory, which is what
    // the index would answer, without opening the index.
    let plainListing = query.sort == .path && !query.reverse && query.limit == nil && query.offset == 0
    let forEachHit: ((NoteHit) throws -> Void) throws -> Void =
      if children != nil, tags.isEmpty, plainListing {
        { body in for hit in try notes.listing(ofNotebook: named, recursive: recursive) { try body(hit) } }
      } else {
        { body in try notes.forEachNote(matching: query, body) }
      }
    // Streamed: a listing of every note of a large repository is never all in memory at once.
    if json {
      try printJSONArray { element in try forEachHit { try element(HitJSON($0)) } }
      return
    }
    var lines = ""
    try forEachHit { hit in
      lines += noteLine(hit.note) + "\n"
      if let warning = hit.note.warning { warn(warning) }
      if lines.utf8.count >= 64 * 1024 {
        writeStandardOutput(lines)
        lines = ""
      }
    }
    writeStandardOutput(lines)
  }
}

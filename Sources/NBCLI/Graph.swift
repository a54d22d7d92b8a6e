import ArgumentParser
import Foundation
import NoteStore

struct Graph: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "graph",
    abstract: "Notes and the links between them, as JSON or Graphviz DOT (nb graph --dot 'notebook:work' | dot -Tsvg).",
    discussion: """
      The notes a query matches, as 'nb search' takes it (see 'nb help search'; default: every note), and every link
      from one of them that reaches another. Answered from the index; no note is read.
      """)

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp("A query selecting the notes (default: every note).", valueName: "query"))
  var words: [String] = []

  @Flag(help: "Print {notes, links} as JSON (zk graph's shape: notes as 'nb list --json', links as 'nb links --json').")
  var json = false

  @Flag(help: "Print a Graphviz digraph: a node per note (its path, labelled with its title), an edge per linked pair.")
  var dot = false

  @OptionGroup var options: QueryOptions
  @OptionGroup var repository: RepositoryOptions

  func validate() throws {
    if json == dot { throw ValidationError("give one of --json or --dot") }
  }

  struct GraphJSON: Encodable {
    var notes: [HitJSON]
    var links: [LinkJSON]
  }

  func run() throws {
    let notes = try repository.open()
    let graph = try notes.graph(matching: options.query(try queryText(words), defaultSort: .path, defaultLimit: nil))
    if json {
      return try printJSON(
        GraphJSON(notes: graph.notes.map(HitJSON.init), links: graph.links.map { LinkJSON(link: $0) }))
    }
    FileHandle.standardOutput.write(Data(Self.dot(graph).utf8))
  }

  /// The graph in Graphviz's DOT language. Node ids are the notes' paths, every id and label a quoted string, so no
  /// path or title can break out of it or clash with a keyword (`node`, `graph`, `edge`).
  static func dot(_ graph: NoteGraph) -> String {
    var text = "digraph notes {\n"
    for hit in graph.notes {
      text += "  \(quoted(hit.note.path)) [label=\(quoted(hit.note.title))];\n"
    }
    // One edge per linked pair, however many links join them: a drawing shows that the notes are linked.
    var seen = Set<[String]>()
    for link in graph.links {
      guard let target = link.resolution.path, seen.insert([link.source, target]).inserted else { continue }
      text += "  \(quoted(link.source)) -> \(quoted(target));\n"
    }
    return text + "}\n"
  }

  /// A DOT quoted string. In an id only `\"` is an escape; in a label `\\` is a backslash and `\n`, `\l`, `\r` are
  /// line breaks — so backslashes are doubled (an id stays one consistent string, a label shows the backslash) and
  /// line breaks become `\n` (a raw one would end nothing, but reads badly).
  static func quoted(_ text: String) -> String {
    var result = "\""
    for character in text {
      switch character {
      case "\\": result += "\\\\"
      case "\"": result += "\\\""
      case "\n", "\r\n", "\r": result += "\\n"
      default: result.append(character)
      }
    }
    return result + "\""
  }
}

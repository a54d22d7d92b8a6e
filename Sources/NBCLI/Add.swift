import ArgumentParser
import Foundation
import NoteStore

struct Add: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Add a note and commit it; prints its path and id.",
    discussion: "Content comes from --content, else from standard input when it is piped.")

  @Argument(help: "The title (default: the first '# heading' of the content).")
  var title: String?

  @Option(
    name: [.short, .long], help: "Notebook path, e.g. work/projects (created if missing).",
    completion: Completions.notebooks)
  var notebook: String?

  @Option(name: [.short, .long], help: "Comma-separated tags.")
  var tags: String?

  @Option(name: [.short, .long], parsing: .unconditional, help: "The note's content (otherwise piped standard input).")
  var content: String?

  @Option(
    name: [.customShort("T"), .long], help: "Template name (note, daily, meeting, readme, or .nb/templates/NAME.md).")
  var template: String?

  @Option(name: .customLong("var"), help: "A template variable, key=value (repeatable).")
  var variables: [String] = []

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    var vars: [String: String] = [:]
    for pair in variables {
      guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
        throw ValidationError("--var '\(pair)' is not key=value")
      }
      vars[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
    }
    try Self.add(
      title: title, notebook: notebook, tags: tags, content: content, template: template, variables: vars,
      json: output.json, directory: repository.directory)
  }

  /// The command, its options as values (``NB/runWithoutParsing(_:)`` has no parsed command).
  static func add(
    title: String?, notebook: String?, tags: String?, content: String?, template: String? = nil,
    variables: [String: String] = [:], json: Bool, directory: String?
  ) throws {
    let notes = try RepositoryOptions.open(directory: directory)
    let draft = NoteDraft(
      title: title, notebook: notebook,
      tags: tags.map(tagList) ?? [],
      content: try content ?? readPipedStandardInput() ?? "", template: template, variables: variables)
    let (note, links) = try notes.addNote(draft)
    // Links elsewhere the new name would have made ambiguous were written longer in the same commit: say which.
    reportRelinkNotices(links)
    if json {
      try printJSON(AddJSON(note: NoteJSON(note), links: links))
    } else {
      print("\(note.path) \(note.id ?? "")")
    }
  }

  /// `add`'s words after the command name when they are only a title and `--notebook`/`-n`, `--tags`/`-t`,
  /// `--content`/`-c` (each at most once, each followed by its value) and `--json`: the line a script or a
  /// capture shortcut runs, which then skips ArgumentParser. nil for anything else (`--name=value`, `--`, another
  /// option, a repeated one, a value the parser would take for an option), which the parser then reads, with its
  /// own messages.
  struct PlainLine: Equatable {
    var title: String?
    var notebook: String?
    var tags: String?
    var content: String?
    var json = false

    init?(_ words: ArraySlice<String>) {
      var words = words
      while let word = words.popFirst() {
        switch word {
        case "--notebook", "-n", "--tags", "-t":
          // ArgumentParser refuses a value that looks like an option here; the parser says how.
          guard let value = words.popFirst(), !value.hasPrefix("-") else { return nil }
          if word == "--notebook" || word == "-n" {
            guard notebook == nil else { return nil }
            notebook = value
          } else {
            guard tags == nil else { return nil }
            tags = value
          }
        case "--content", "-c":
          // `parsing: .unconditional`: the next word is the content, whatever it looks like, except the `--`
          // that ends the options (the parser's oracle test found that one).
          guard content == nil, let value = words.popFirst(), value != "--" else { return nil }
          content = value
        case "--json":
          guard !json else { return nil }
          json = true
        default:
          guard title == nil, !word.hasPrefix("-") else { return nil }
          title = word
        }
      }
    }
  }
}

/// `add --json`: the note as `show --json` prints it without the body, and `disambiguated`: the notes whose bare links
/// the new name would have made ambiguous, each with how many were written longer (`[{path, links}]`, empty when
/// none).
struct AddJSON: Encodable {
  var note: NoteJSON
  var links: RelinkReport

  struct Disambiguated: Encodable {
    var path: String
    var links: Int
  }

  enum Key: String, CodingKey { case disambiguated }

  func encode(to encoder: Encoder) throws {
    // The note's keys and this one in one object: both containers write to the same encoder.
    try note.encode(to: encoder)
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(
      links.notes.filter { $0.disambiguated > 0 }.map { Disambiguated(path: $0.path, links: $0.disambiguated) },
      forKey: .disambiguated)
  }
}

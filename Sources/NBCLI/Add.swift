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
    let notes = try repository.open()
    let draft = NoteDraft(
      title: title, notebook: notebook,
      tags: tags.map(tagList) ?? [],
      content: try content ?? readPipedStandardInput() ?? "", template: template, variables: vars)
    let (note, links) = try notes.addNote(draft)
    // Links elsewhere the new name would have made ambiguous were written longer in the same commit: say which.
    reportRelinkNotices(links)
    if output.json {
      try printJSON(AddJSON(note: NoteJSON(note), links: links))
    } else {
      print("\(note.path) \(note.id ?? "")")
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

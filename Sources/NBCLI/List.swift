import ArgumentParser
import Foundation
import NoteStore

struct List: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "List notes: all of them, or one notebook's (--recursive for its children too).")

  enum SortKey: String, ExpressibleByArgument, CaseIterable {
    case path, title, created, updated
  }

  @Argument(help: "A notebook path (default: every note).", completion: Completions.notebooks)
  var notebook: String?

  @Flag(name: [.short, .long], help: "Include the notebook's children.")
  var recursive = false

  @Option(help: "Only notes with this tag (repeatable: all must match).", completion: Completions.tags)
  var tag: [String] = []

  @Option(help: "Sort by \(SortKey.allCases.map(\.rawValue).joined(separator: ", ")).")
  var sort: SortKey = .path

  @Flag(help: "Reverse the order.")
  var reverse = false

  @Option(help: "At most this many notes.")
  var limit: Int?

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func validate() throws {
    if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
  }

  func run() throws {
    let notes = try repository.open()
    var result =
      try notebook.map { try notes.notes(inNotebook: $0, recursive: recursive) } ?? notes.allNotes()
    for wanted in tag {
      let key = wanted.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "#"))
      result = result.filter { $0.tags.contains { $0.lowercased() == key } }
    }
    result = sorted(result)
    if reverse { result.reverse() }
    if let limit { result = Array(result.prefix(limit)) }
    if output.json {
      try printJSON(result.map { NoteJSON($0) })
      return
    }
    var lines = ""
    for note in result {
      lines += noteLine(note) + "\n"
      if let warning = note.warning { warn(warning) }
    }
    FileHandle.standardOutput.write(Data(lines.utf8))
  }

  private func sorted(_ notes: [Note]) -> [Note] {
    switch sort {
    case .path: return notes  // the store lists in path order already
    case .title:
      return notes.sorted { ($0.title.lowercased(), $0.path) < ($1.title.lowercased(), $1.path) }
    // Newest first, as a person scanning recent work wants; undated notes last.
    case .created:
      return notes.sorted { ($0.created?.date ?? .distantPast, $1.path) > ($1.created?.date ?? .distantPast, $0.path) }
    case .updated:
      return notes.sorted { ($0.updated?.date ?? .distantPast, $1.path) > ($1.updated?.date ?? .distantPast, $0.path) }
    }
  }
}

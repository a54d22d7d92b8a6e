import ArgumentParser
import Foundation
import NoteStore

/// `nb ink erase NOTE ID...`: removes strokes, one commit.
struct InkErase: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "erase", abstract: "Remove strokes by id (ids as 'nb ink textconv' or --json listings show them).")

  @Argument(help: "The note: path, id prefix or title.", completion: Completions.notes)
  var note: String

  @Argument(help: "Stroke ids to remove.")
  var ids: [String]

  @OptionGroup var repository: RepositoryOptions

  func validate() throws {
    if ids.isEmpty { throw ValidationError("give at least one stroke id to erase") }
  }

  func run() throws {
    let target = try InkTarget(repository, note)
    let document = try target.requireInk()
    let missing = ids.filter { document.stroke(id: $0) == nil }
    if !missing.isEmpty {
      throw CommandError(
        "\(target.repository.inkPath(of: target.note)) has no stroke \(missing.map { "'\($0)'" }.joined(separator: ", "));"
          + " nothing was erased ('nb ink textconv \(target.repository.inkPath(of: target.note))' lists the ids)")
    }
    try target.repository.editInk(
      of: target.note, subject: "ink erase \(CommitMessage.count(ids.count, "stroke")) in \(target.note.path)"
    ) { document in
      for id in ids { document.erase(id: id) }
    }
    print("\(target.note.path): erased \(CommitMessage.count(Set(ids).count, "stroke"))")
  }
}

import ArgumentParser
import Foundation
import NoteStore
import TextFormat

/// `nb ink erase NOTE ID...`: removes strokes, one commit.
struct InkErase: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "erase", abstract: "Remove strokes by id (ids as 'nb ink textconv' or --json listings show them).")

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Argument(help: "Stroke ids to remove.")
  var ids: [String]

  @OptionGroup var repository: RepositoryOptions

  func validate() throws {
    if ids.isEmpty { throw ValidationError("give at least one stroke id to erase") }
  }

  func run() throws {
    let (notes, target) = try note.resolve(in: repository)
    let path = notes.inkPath(of: target)
    // Checked inside the edit, under the repository lock: the drawing is read once, and nothing changes between
    // the check and the erase.
    try notes.editInk(
      of: target, subject: "ink erase \(counted(ids.count, "stroke")) in \(target.path)"
    ) { document in
      if document.isEmpty {
        throw InkTarget.noInk(target, at: path)
      }
      let missing = ids.filter { document.stroke(id: $0) == nil }
      if !missing.isEmpty {
        throw CommandError(
          "\(path) has no stroke \(missing.map { "'\($0)'" }.joined(separator: ", "));"
            + " nothing was erased ('nb ink textconv \(path)' lists the ids)")
      }
      for id in ids { document.erase(id: id) }
    }
    print("\(target.path): erased \(counted(Set(ids).count, "stroke"))")
  }
}

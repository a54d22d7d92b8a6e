import ArgumentParser
import Foundation
import NoteStore

struct ConflictsList: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "list", abstract: "List conflict copies.")
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let copies = try repository.open().conflictCopies()
    if output.json { return try printJSON(copies.map { NoteJSON($0) }) }
    if copies.isEmpty { return print("No conflicts.") }
    for copy in copies { print("\(Style.yellow(copy.path))  lost to \(copy.conflictOf ?? "")  \(copy.title)") }
  }
}

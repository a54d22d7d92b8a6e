import ArgumentParser
import Foundation
import NoteStore

struct Save: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "save",
    abstract: "Commit edits made outside nb: stamps 'updated', adds a missing 'id', nothing else.")

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct SaveJSON: Encodable {
    var committed: Bool
    var paths: [String]
    var notes: [String]
    var removed: [String]
  }

  func run() throws {
    let result = try repository.open().save()
    if output.json {
      return try printJSON(
        SaveJSON(committed: result.committed, paths: result.paths, notes: result.notes, removed: result.removed))
    }
    guard result.committed else {
      print("Nothing to save.")
      return
    }
    for path in result.paths {
      let mark = result.removed.contains(path) ? "deleted " : result.notes.contains(path) ? "saved   " : "added   "
      print(Style.dim(mark) + path)
    }
  }
}

import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct Save: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "save",
    abstract: "Commit edits made outside nb: stamps 'updated', adds a missing 'id', nothing else.")

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct SaveJSON: Encodable {
    struct Unstamped: Encodable {
      var path: String
      @NullWhenAbsent var line: Int?
      var message: String
    }
    var committed: Bool
    var paths: [String]
    var notes: [String]
    var removed: [String]
    var unstamped: [Unstamped]
    var new_ids: [Copy]
    var changed_again: [String]

    struct Copy: Encodable {
      var path: String
      var original: String
    }
  }

  func run() throws {
    try Self.save(json: output.json, directory: repository.directory)
  }

  /// The command, its options as values (``NB/runWithoutParsing(_:)`` has no parsed command).
  static func save(json: Bool, directory: String?) throws {
    let result = try RepositoryOptions.open(directory: directory).save()
    if json {
      let unstamped = result.unstamped.map { problem in
        SaveJSON.Unstamped(
          path: problem.location?.path ?? "", line: problem.location?.line, message: problem.description)
      }
      try printJSON(
        SaveJSON(
          committed: result.committed, paths: result.paths, notes: result.notes, removed: result.removed,
          unstamped: unstamped,
          new_ids: result.newIDs.map { SaveJSON.Copy(path: $0.path, original: $0.original) },
          changed_again: result.changedAgain))
    } else if !result.committed {
      print("Nothing to save.")
    } else {
      let unstamped = Set(result.unstamped.compactMap { $0.location?.path })
      for path in result.paths {
        let mark =
          result.removed.contains(path)
          ? "deleted " : result.notes.contains(path) ? "saved   " : unstamped.contains(path) ? "as is   " : "added   "
        print(Style.dim(mark) + path)
      }
    }
    if !result.changedAgain.isEmpty {
      warn(
        "\(result.changedAgain.joined(separator: ", ")) changed again while being saved (an editor still writing?); "
          + "left as it is: run 'nb save' again")
    }
    for copy in result.newIDs {
      warn("\(copy.path) had the id of \(copy.original) (a copy?); it now has an id of its own")
    }
    guard !result.unstamped.isEmpty else { return }
    // Every problem at once, so a folder being adopted is fixed in one pass, and a non-zero exit for scripts.
    for problem in result.unstamped { FileHandle.standardError.write(Data("error: \(problem)\n".utf8)) }
    FileHandle.standardError.write(
      Data(
        ("nb could not stamp \(counted(result.unstamped.count, "file")); committed unchanged, fix and run "
          + "'nb save' again\n").utf8))
    throw ExitCode.failure
  }
}

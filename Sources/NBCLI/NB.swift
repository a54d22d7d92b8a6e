import ArgumentParser
import Foundation
import NoteStore

/// The `nb` command: a thin layer over ``NoteStore``; each subcommand lives in a file of its own.
public struct NB: ParsableCommand {
  /// The version `nb --version` prints.
  public static let version = "0.1.0"

  public static let configuration = CommandConfiguration(
    commandName: "nb",
    abstract: "Notes as plain Markdown files in a git repository; every save is a commit.",
    discussion: """
      The repository is found from --dir, else $NB_DIR, else the enclosing directory holding .nb/, else ~/notes.
      A NOTE is a path (work/roadmap), an id or id prefix (4+ characters), or a title or file name.
      """,
    version: version,
    subcommands: [
      Init.self, Add.self, Edit.self, Show.self, List.self, Search.self, Move.self, Delete.self, NotebookCommand.self,
      TagCommand.self, Save.self, Status.self, History.self, Quickstart.self,
    ]
  )

  public init() {}
}

/// Options every command that works on a repository takes.
struct RepositoryOptions: ParsableArguments {
  @Option(name: .customLong("dir"), help: "The repository (default: $NB_DIR, the enclosing repository, ~/notes).")
  var directory: String?

  func open() throws -> NoteRepository {
    try NoteRepository.open(at: NoteRepository.locate(explicit: directory))
  }
}

/// `--json` for commands a script may parse.
struct JSONOption: ParsableArguments {
  @Flag(name: .long, help: "Print one JSON document instead of text.")
  var json = false
}

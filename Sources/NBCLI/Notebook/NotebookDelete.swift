import ArgumentParser
import Foundation
import NoteStore
import TextFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct NotebookDelete: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete", abstract: "Delete a notebook; one with notes asks first, or needs --recursive.",
    aliases: ["rm"])
  @Argument(help: "The notebook.", completion: Completions.notebooks) var path: String
  @Flag(name: [.short, .long], help: "Delete everything inside too.") var recursive = false
  @Flag(help: "Also delete uncommitted edits inside (they are lost); implies --recursive.") var force = false
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let notes = try repository.open()
    var recursive = self.recursive || force
    if !recursive, isatty(STDIN_FILENO) == 1 {
      let inside = try notes.notes(inNotebook: path, recursive: true)
      if !inside.isEmpty {
        print(
          "Delete notebook \(path) and the \(counted(inside.count, "note")) in it? [y/N] ", terminator: "")
        fflush(stdout)
        guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
          print("Nothing deleted.")
          return
        }
        recursive = true
      }
    }
    try notes.deleteNotebook(path, recursive: recursive, force: force)
    print("Deleted notebook \(path)")
  }
}

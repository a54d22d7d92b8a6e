import ArgumentParser
import Foundation
import InkKit
import NoteStore
import TextFormat

/// `nb ink import NOTE FILE`: adds a drawing from another tool, one commit.
struct InkImport: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Add the strokes of an InkML (.inkml), reMarkable v6 (.rm) or nb ink (.ink.jsonl) file to a note's ink.",
    discussion: """
      The strokes get new ids and go on top of what is there; a file with its own page size adds a page. A note
      without ink gets its sidecar. One commit.
      """)

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Argument(help: "The file to import.", completion: .file(extensions: ["inkml", "rm", "jsonl"]))
  var file: String

  @Flag(help: "Replace the note's ink instead of adding to it.")
  var replace = false

  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let data = try readInput(file)
    let imported = try InkImporter.read(data, name: file)
    let (notes, target) = try note.resolve(in: repository)
    let name = URL(fileURLWithPath: file).lastPathComponent
    let result = try notes.importInk(imported, into: target, replace: replace, source: name)
    let pages = imported.pages.isEmpty ? "" : " on \(counted(imported.pages.count, "new page"))"
    print(
      "\(result.note.path): \(replace ? "replaced the ink with" : "added") \(counted(result.strokes, "stroke"))"
        + "\(pages) from \(name)")
  }
}

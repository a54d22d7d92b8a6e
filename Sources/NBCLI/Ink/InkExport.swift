import ArgumentParser
import Foundation
import InkKit
import NoteStore

/// `nb ink export NOTE --inkml`: the drawing in a format other tools read.
struct InkExport: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export", abstract: "Write a note's ink as W3C InkML (to standard output, or -o FILE).")

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Flag(help: "W3C InkML (the only export format so far; required so that a later default cannot surprise scripts).")
  var inkml = false

  @Option(name: .shortAndLong, help: "Write to this file instead of standard output.", completion: .file())
  var output: String?

  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    guard inkml else { throw CommandError("choose an export format: --inkml") }
    let target = try InkTarget(note.resolve(in: repository))
    try writeOutput(Data(InkML.write(try target.requireInk()).utf8), to: output)
    if let output, output != "-" { print("wrote \(output)") }
  }
}

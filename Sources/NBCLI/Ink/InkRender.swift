import ArgumentParser
import Foundation
import InkKit
import NoteStore
import TextFormat

/// `nb ink render NOTE -o FILE.svg`: the drawing as SVG a browser shows.
struct InkRender: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract: "Render a note's ink as SVG: one filled, pressure-varying <path> per stroke, the page as viewBox.")

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Option(name: .shortAndLong, help: "Write to this file instead of standard output.", completion: .file())
  var output: String?

  @Option(help: "Which page: its number (1, 2, …, as 'nb ink info' lists them), its id, or 'all' (stacked).")
  var page: String?

  @Flag(help: "Leave the background transparent instead of white.")
  var transparent = false

  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    let target = try InkTarget(note.resolve(in: repository))
    let document = try target.requireInk()
    var options = InkSVG.Options.standard
    if transparent { options.background = nil }
    let svg = try InkSVG.renderData(document, page: try selection(in: document), options: options)
    try writeOutput(svg, to: output)
    if let output, output != "-" {
      print("wrote \(output) (\(counted(document.strokes.count, "stroke")))")
    }
  }

  func selection(in document: InkDocument) throws -> InkSVG.PageSelection {
    guard let page else { return .first }
    if page == "all" { return .all }
    // Numbered as `nb ink info` lists them: the pages the drawing shows, in order.
    let shown = InkSVG.pages(of: document)
    if let number = Int(page) {
      guard (1...max(shown.count, 1)).contains(number), number <= shown.count else {
        throw CommandError("--page \(page): the ink has \(counted(shown.count, "page"))")
      }
      return shown[number - 1].map { .page($0) } ?? .implicit
    }
    guard shown.contains(page) else {
      throw CommandError(
        "--page \(page): no such page; give a number from 1 to \(shown.count), a page id, or 'all'")
    }
    return .page(page)
  }
}

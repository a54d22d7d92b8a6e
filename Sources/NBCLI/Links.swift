import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct Links: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "links",
    abstract: "A note's outgoing links: line, kind, the file each reaches (or unresolved), heading or block.",
    discussion: """
      Answered from the index. A link is resolved as Obsidian resolves it: relative paths, paths from the root, the
      note's own folder, then the shortest path with that name; "ambiguous" names the other files it could mean.
      """)

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let (notes, target) = try note.resolve(in: repository)
    let links = try notes.links(from: target)
    if output.json { return try printJSON(links.map { LinkJSON(link: $0) }) }
    let width = String(links.last?.line ?? 0).count
    var lines = ""
    for link in links {
      let number = String(link.line)
      var line = Style.dim(String(repeating: " ", count: width - number.count) + number) + "  "
      line += link.kind.rawValue.paddedWithSpaces(toLength: 8) + "  " + Style.bold(link.written)
      switch link.resolution {
      case .unresolved:
        line += "  " + Style.yellow("unresolved")
      case .note(let path, _) where link.target.isEmpty || path == target.path:
        line += "  " + Style.dim("(this note)")
      case .note(let path, _), .attachment(let path, _):
        line += "  -> " + Style.blue(path)
      }
      if link.resolution.isAmbiguous {
        line += "  " + Style.yellow("ambiguous: also " + link.resolution.others.joined(separator: ", "))
      }
      if link.inFrontMatter { line += "  " + Style.dim("(front matter)") }
      lines += line + "\n"
    }
    FileHandle.standardOutput.write(Data(lines.utf8))
  }
}

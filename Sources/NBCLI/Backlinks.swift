import ArgumentParser
import Foundation
import NoteStore

struct Backlinks: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "backlinks",
    abstract: "The notes that link to a note (or any file), each link with its line and text.",
    discussion: """
      Answered from the index without reading any note. NOTE may also be the path of an attachment \
      (Attachments/photo.png). A note's links into itself ([[#Heading]]) are listed too.
      """)

  @Argument(help: "The note (path, id prefix or title), or a file's path.", completion: Completions.notes)
  var note: String

  @Flag(help: "Print only the number of notes that link here.")
  var count = false

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let notes = try repository.open()
    let path = try notes.linkTarget(note)
    if count {
      let counted = try notes.backlinkCount(to: path)
      return output.json ? try printJSON(["notes": counted.notes, "links": counted.links]) : print(counted.notes)
    }
    let links = try notes.backlinks(to: path)
    if output.json { return try printJSON(links.map { LinkJSON(link: $0) }) }
    var lines = ""
    for link in links {
      var line = Style.blue(link.source) + Style.dim(":\(link.line)") + "  " + link.text
      if link.resolution.isAmbiguous {
        line += "  " + Style.yellow("(ambiguous: also " + link.resolution.others.joined(separator: ", ") + ")")
      }
      lines += line + "\n"
    }
    FileHandle.standardOutput.write(Data(lines.utf8))
  }
}

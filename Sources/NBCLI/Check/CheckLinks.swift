import ArgumentParser
import Foundation
import NoteStore

struct CheckLinks: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "links",
    abstract: "Every unresolved and every ambiguous link, with file:line; exit 1 if there are any.",
    discussion: """
      A link is unresolved when it reaches no file (Obsidian shows it as a note not yet created) and ambiguous when
      several files could be meant and a tie-break chose one (write more of the path: b/Note). Links into the same
      note count as resolved; headings and block ids are not checked. Exit status: 0 no problems, 1 problems, 2 a
      usage error.
      """)

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct CheckJSON: Encodable {
    var links: Int
    var notes: Int
    var notesWithLinks: Int
    var toNotes: Int
    var sameNote: Int
    var toAttachments: Int
    var unresolved: Int
    var ambiguous: Int
    var problems: [LinkJSON]

    enum CodingKeys: String, CodingKey {
      case links, notes, unresolved, ambiguous, problems
      case notesWithLinks = "notes_with_links"
      case toNotes = "to_notes"
      case sameNote = "same_note"
      case toAttachments = "to_attachments"
    }
  }

  func run() throws {
    let check = try repository.open().checkLinks()
    if output.json {
      try printJSON(
        CheckJSON(
          links: check.links, notes: check.notes, notesWithLinks: check.notesWithLinks, toNotes: check.toNotes,
          sameNote: check.sameNote, toAttachments: check.toAttachments, unresolved: check.unresolved,
          ambiguous: check.ambiguous,
          problems: check.problems.map { LinkJSON(link: $0, problem: $0.resolution.path == nil ? "unresolved" : "ambiguous") }))
    } else {
      var lines = ""
      for link in check.problems {
        let place = Style.blue(link.source) + Style.dim(":\(link.line):")
        let kind = link.kind.rawValue
        if let path = link.resolution.path {
          lines += "\(place) \(Style.yellow("ambiguous")) \(kind) link '\(link.written)' reaches \(path); also "
            + link.resolution.others.joined(separator: ", ") + "\n"
        } else {
          lines += "\(place) \(Style.yellow("unresolved")) \(kind) link '\(link.written)' reaches no file\n"
        }
      }
      let counted = check.links == 1 ? "1 link" : "\(check.links) links"
      lines +=
        "\(counted) in \(check.notesWithLinks) of \(check.notes) notes: \(check.toNotes) to notes, "
        + "\(check.sameNote) within a note, \(check.toAttachments) to attachments; "
        + "\(check.unresolved) unresolved, \(check.ambiguous) ambiguous\n"
      FileHandle.standardOutput.write(Data(lines.utf8))
    }
    if !check.isClean { throw ExitCode(CheckCommand.problemsStatus) }
  }
}

import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct Rename: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rename",
    abstract: "Give a note a new title and file name; every link to it is rewritten in the same commit.",
    discussion: """
      Front matter `title:` is set where the note has it; the first '# heading' changes only when it reads the old \
      title. A note named by its title (no `title:`, file name = title, as Obsidian names notes) gets the new title \
      as its file name, and a title holding # | ^ [ ] \\ : is then refused; any other note gets the new title's slug. \
      A name another file has is refused. Links elsewhere keep their form (wiki, Markdown, shown text, heading); bare \
      links the new name would make ambiguous are written as the shortest unambiguous path, and said so.
      """)

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Argument(help: "The new title.")
  var title: String

  @Flag(name: .customLong("no-update-links"), help: "Leave links to the note as they are (they may break).")
  var noUpdateLinks = false

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let (notes, target) = try note.resolve(in: repository)
    let before = try notes.headCommit()
    let moved = try notes.rename(target, to: title, updateLinks: !noUpdateLinks)
    try reportMove(moved, repository: notes, before: before, updatedLinks: !noUpdateLinks, json: output.json)
  }
}

/// The JSON shape of a rename or move: `{from, to, title, update_links, rewritten: [{path, links, disambiguated}],
/// unwritable: [{path, line, target}], unreadable, commit}`; `commit` is null when nothing changed.
struct RelinkJSON: Encodable {
  var from: String
  var to: String
  var title: String?
  var updateLinks: Bool
  var rewritten: [File]
  var unwritable: [Unwritable]
  var unreadable: [String]
  var commit: String?

  struct File: Encodable {
    var path: String
    var links: Int
    var disambiguated: Int
  }

  struct Unwritable: Encodable {
    var path: String
    var line: Int
    var target: String
  }

  init(from: String, to: String, title: String?, updateLinks: Bool, report: RelinkReport, commit: String?) {
    self.from = from
    self.to = to
    self.title = title
    self.updateLinks = updateLinks
    rewritten = report.notes.map { File(path: $0.path, links: $0.edits.count, disambiguated: $0.disambiguated) }
    unwritable = report.unwritable.map { Unwritable(path: $0.path, line: $0.line, target: $0.target) }
    unreadable = report.unreadable
    self.commit = commit
  }

  // Every key always present: `title` and `commit` as null, not left out.
  func encode(to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(from, forKey: .from)
    try container.encode(to, forKey: .to)
    try container.encode(title, forKey: .title)
    try container.encode(updateLinks, forKey: .updateLinks)
    try container.encode(rewritten, forKey: .rewritten)
    try container.encode(unwritable, forKey: .unwritable)
    try container.encode(unreadable, forKey: .unreadable)
    try container.encode(commit, forKey: .commit)
  }

  enum Key: String, CodingKey {
    case from, to, title, updateLinks = "update_links", rewritten, unwritable, unreadable, commit
  }
}

/// Prints what a rename or move did: the new path (and the links rewritten) as text, or ``RelinkJSON``; links made
/// longer to stay unambiguous and links left broken go to standard error either way.
func reportMove(
  _ moved: NoteMove, repository: NoteRepository, before: String?, updatedLinks: Bool, json: Bool
) throws {
  reportRelinkNotices(moved.links)
  if json {
    let head = try repository.headCommit()
    try printJSON(
      RelinkJSON(
        from: moved.from, to: moved.note.path, title: moved.note.title, updateLinks: updatedLinks,
        report: moved.links, commit: head != before ? head : nil))
    return
  }
  print(moved.note.path)
  if moved.links.linkCount > 0 {
    FileHandle.standardError.write(Data((relinkSummary(moved.links) + "\n").utf8))
  }
}

/// `rewrote 12 links in 5 notes`.
func relinkSummary(_ report: RelinkReport) -> String {
  "rewrote \(counted(report.linkCount, "link")) in \(counted(report.notes.count, "note"))"
}

/// Each disambiguated and each unwritable link, and each unreadable note, one line on standard error.
func reportRelinkNotices(_ report: RelinkReport) {
  for line in report.disambiguationLines + report.problemLines {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }
}

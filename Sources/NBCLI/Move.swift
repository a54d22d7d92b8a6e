import ArgumentParser
import Foundation
import NoteStore

struct Move: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "move",
    abstract:
      "Move a note (with its sidecars) to a notebook, or rename it to a new .md path; the id stays, links follow.",
    discussion: """
      Every link to the note (and to its attachments) is rewritten in the same commit, each in its own form, and \
      so are the note's own relative links when its folder changes; --no-update-links leaves them.
      """,
    aliases: ["mv"])

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Argument(
    help: "A notebook path (created if missing), or a new path ending in .md.", completion: Completions.notebooks)
  var destination: String

  @Flag(name: .customLong("no-update-links"), help: "Leave links to the note as they are (they may break).")
  var noUpdateLinks = false

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let (notes, target) = try note.resolve(in: repository)
    let before = try notes.headCommit()
    let moved = try notes.moveNote(target, to: destination, updateLinks: !noUpdateLinks)
    try reportMove(moved, repository: notes, before: before, updatedLinks: !noUpdateLinks, json: output.json)
  }
}

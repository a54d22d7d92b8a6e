import ArgumentParser
import Foundation
import NoteStore

struct Attach: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "attach",
    abstract: "Copy files into a note's attachment folder (<stem>.files/) and link them from its body; one commit.",
    discussion: """
      Each file gets a line [name](stem.files/name) at the end of the body (--no-link skips them); a name the \
      folder already holds becomes name-2.ext. The folder moves, is renamed and is deleted with the note. Files \
      over 50 MB are refused: keep them elsewhere and link them, or use git-lfs. Needs repository format 2 \
      (see 'nb migrate').
      """)

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Argument(help: "Files to copy in (paths on this machine).", completion: .file())
  var files: [String] = []

  @Flag(name: .customLong("no-link"), help: "Do not append links to the body.")
  var noLink = false

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  /// `{note, attachments: [{path, bytes}]}`.
  struct AttachJSON: Encodable {
    struct File: Encodable {
      var path: String
      var bytes: Int64
    }
    var note: String
    var attachments: [File]
  }

  func run() throws {
    guard !files.isEmpty else { throw ValidationError("give at least one file to attach: nb attach NOTE FILE...") }
    let (notes, target) = try note.resolve(in: repository)
    let attached = try notes.attach(files.map { URL(fileURLWithPath: $0) }, to: target, link: !noLink)
    if output.json {
      try printJSON(
        AttachJSON(note: target.path, attachments: attached.map { AttachJSON.File(path: $0.path, bytes: $0.bytes) }))
    } else {
      for file in attached { print(file.path) }
    }
  }
}

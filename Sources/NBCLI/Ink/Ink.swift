import ArgumentParser
import Foundation
import InkKit
import NoteStore

/// `nb ink`: a note's handwriting, kept in `<stem>.ink.jsonl` beside it.
struct InkCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ink",
    abstract: "Show, render, import, export and erase a note's handwriting (its .ink.jsonl sidecar).",
    discussion: """
      For git users outside nb, the sidecars merge stroke by stroke and diff readably with:
        git config merge.nb-ink.driver "nb merge-driver ink %O %A %B"
        git config diff.nb-ink.textconv "nb ink textconv"
      (.gitattributes, written by nb init, already marks *.ink.jsonl with merge=nb-ink diff=nb-ink.)
      """,
    subcommands: [
      InkInfo.self, InkRender.self, InkImport.self, InkExport.self, InkErase.self, InkTextConvCommand.self,
    ],
    defaultSubcommand: InkInfo.self)
}

/// The note and its drawing, for the subcommands that read one.
struct InkTarget {
  let repository: NoteRepository
  let note: Note
  let document: InkDocument?

  init(_ resolved: (repository: NoteRepository, note: Note)) throws {
    (repository, note) = resolved
    document = try repository.ink(of: note)
  }

  /// The drawing, or an error saying the note has none and how to make one.
  func requireInk() throws -> InkDocument {
    guard let document else { throw Self.noInk(note, at: repository.inkPath(of: note)) }
    return document
  }

  /// The error for a note without ink (its sidecar is `path`), saying how to make some.
  static func noInk(_ note: Note, at path: String) -> CommandError {
    CommandError("\(note.path) has no ink (no \(path)); add some with 'nb ink import \(note.path) FILE'")
  }
}

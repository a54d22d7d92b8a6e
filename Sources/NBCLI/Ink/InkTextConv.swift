import ArgumentParser
import Foundation
import InkKit
import NoteStore

/// `nb ink textconv FILE`: git's textconv for `diff=nb-ink`, so `git diff`/`git log -p` show strokes, not numbers.
struct InkTextConvCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "textconv",
    abstract: "Print an ink file as one readable line per page and stroke (for git's diff.nb-ink.textconv).")

  @Argument(help: "An .ink.jsonl file (git passes a temporary copy).")
  var file: String

  func run() throws {
    let data = try readInput(file)
    // git runs textconv on every version in a diff; an unreadable version is shown as such, not an error that
    // would stop the whole diff.
    print(InkKit.InkTextConv.text(data, file: file), terminator: "")
  }
}

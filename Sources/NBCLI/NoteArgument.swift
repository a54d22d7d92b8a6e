import ArgumentParser
import Foundation
import NoteStore

/// The NOTE argument of every command that works on one note, and the open-then-resolve each of them starts with.
/// `Help` only chooses the help line, so that a command can say what kind of note it wants ("The conflict copy.").
struct NoteArgument<Help: NoteArgumentHelp>: ParsableArguments {
  @Argument(help: ArgumentHelp(Help.text), completion: Completions.notes)
  var note: String

  /// Opens the repository `options` names and finds the note in it.
  func resolve(in options: RepositoryOptions) throws -> (repository: NoteRepository, note: Note) {
    let repository = try options.open()
    return (repository, try repository.resolve(note))
  }
}

/// The help line of a ``NoteArgument``.
protocol NoteArgumentHelp {
  static var text: String { get }
}

/// The help lines commands use for their NOTE argument.
enum NoteHelp {
  /// Any note, named as `nb` names notes.
  enum Selector: NoteArgumentHelp { static let text = "The note: path, id prefix or title." }
  /// Any note, where the command's abstract already says how to name one.
  enum Short: NoteArgumentHelp { static let text = "The note." }
  /// A copy that lost a sync conflict.
  enum ConflictCopy: NoteArgumentHelp { static let text = "The conflict copy." }
}

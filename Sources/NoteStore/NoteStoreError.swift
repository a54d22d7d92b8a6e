import Foundation
import TextFormat

/// Everything the note store refuses to do, each with a one-line message that names the file, line or argument
/// and says what to do. Nothing has been changed on disk when one of these is thrown.
public enum NoteStoreError: Error, Equatable, CustomStringConvertible {
  /// No repository at the path; `hint` says how to make one.
  case noRepository(path: String)
  /// `nb init` on a directory that already is a note repository.
  case alreadyInitialized(path: String)
  /// `.nb/config.yaml` says a format this build does not understand.
  case unsupportedFormat(path: String, found: String)
  /// A NOTE argument matched nothing.
  case noteNotFound(selector: String)
  /// A NOTE argument matched several notes.
  case ambiguousNote(selector: String, candidates: [String])
  /// A notebook argument names no directory.
  case notebookNotFound(path: String)
  /// The target already exists.
  case alreadyExists(path: String, what: String)
  /// A notebook with content was asked to be deleted without `recursive`.
  case notebookNotEmpty(path: String, entries: Int)
  /// A title, notebook name or path argument is not acceptable.
  case invalidArgument(String)
  /// A path that resolves outside the repository (through `..` or a symlink).
  case outsideRepository(path: String)
  /// Front matter that is not valid YAML, with the file and line.
  case malformedFrontMatter(path: String, line: Int, detail: String)
  /// A note that is not UTF-8.
  case notUTF8(path: String)
  /// The git repository is in a state where committing would be a guess.
  case unsafeGitState(String)
  /// Another git process holds `.git/index.lock`, or one crashed and left it behind.
  case indexLocked(path: String)
  /// Another nb process holds the repository lock for too long.
  case busy(path: String, holder: String)
  /// A git operation failed: the failing libgit2 call and its reason.
  case git(String)
  /// A file operation failed.
  case io(path: String, detail: String)
  /// A template could not be found or rendered.
  case template(String)
  /// No remote of that name is configured.
  case noRemote(String)
  /// The remote cannot be reached: nothing changed; local commits wait for the next sync.
  case offline(remote: String, detail: String)
  /// A sync stopped before changing anything it could not finish (the message says why and what to do).
  case syncFailed(String)
  /// An ink sidecar (or a file being imported) that cannot be read, with the file and line.
  case malformedInk(path: String, line: Int, detail: String)
  /// A search or list query that cannot be understood, with the column of the offending part.
  case badQuery(QueryError)

  /// A file whose bytes nb cannot read as a note or a drawing (not UTF-8, malformed front matter, an ink file it
  /// cannot parse): still the user's data, which `save` commits unchanged instead of stamping.
  public var isUnreadableFile: Bool {
    switch self {
    case .notUTF8, .malformedFrontMatter, .malformedInk: true
    default: false
    }
  }

  /// The file (and line, where known) the error is about, for the errors that name one file's content.
  public var location: (path: String, line: Int?)? {
    switch self {
    case .notUTF8(let path): (path, nil)
    case .malformedFrontMatter(let path, let line, _), .malformedInk(let path, let line, _): (path, line)
    default: nil
    }
  }

  /// The one-line message a person sees.
  public var description: String {
    switch self {
    case .noRepository(let path):
      return "no nb repository at \(path): create one with 'nb init \(path)', or point to one with --dir or NB_DIR"
    case .alreadyInitialized(let path):
      return "\(path) already holds an nb repository (.nb/config.yaml exists)"
    case .unsupportedFormat(let path, let found):
      let readable = RepositoryFormat.supported.map(String.init)
      let list = readable.dropLast().joined(separator: ", ") + (readable.count > 1 ? " and " : "") + readable.last!
      return "\(path): format \(found) is not supported: this nb reads formats \(list); upgrade nb"
    case .noteNotFound(let selector):
      return "no note matches '\(selector)': give a path (work/roadmap), an id prefix or a title; 'nb list' shows them"
    case .ambiguousNote(let selector, let candidates):
      let shown = candidates.prefix(10).joined(separator: ", ")
      let more = candidates.count > 10 ? " and \(candidates.count - 10) more" : ""
      return "'\(selector)' matches \(candidates.count) notes: \(shown)\(more); give the path or an id prefix"
    case .notebookNotFound(let path):
      return "no notebook '\(path)': create it with 'nb notebook create \(path)'"
    case .alreadyExists(let path, let what):
      return "\(path) already exists (\(what)); choose another name"
    case .notebookNotEmpty(let path, let entries):
      return
        "notebook '\(path)' is not empty (\(counted(entries, "file"))); pass --recursive to delete it with everything in it"
    case .invalidArgument(let message):
      return message
    case .outsideRepository(let path):
      return "\(path) is outside the repository; nb only touches files inside it"
    case .malformedFrontMatter(let path, let line, let detail):
      return "\(path):\(line): malformed front matter: \(detail); fix the YAML and retry (the file was not changed)"
    case .notUTF8(let path):
      return "\(path) is not valid UTF-8; convert it (e.g. iconv -t UTF-8) and retry (the file was not changed)"
    case .unsafeGitState(let message):
      return message
    case .indexLocked(let path):
      return "\(path) exists: another git process is running, or one crashed; if no git is running, remove it and retry"
    case .busy(let path, let holder):
      return "another nb process (\(holder)) holds \(path); wait for it to finish and retry"
    case .git(let message):
      return message
    case .io(let path, let detail):
      return "\(path): \(detail)"
    case .template(let message):
      return message
    case .noRemote(let name):
      return "no remote named '\(name)': add one with 'nb remote add \(name) URL'"
    case .offline(let remote, let detail):
      return
        "cannot reach \(remote) (\(detail)); nothing was sent or received, your commits wait for the next 'nb sync'"
    case .syncFailed(let message):
      return message
    case .malformedInk(let path, let line, let detail):
      return "\(path):\(line): \(detail); fix or remove that line and retry (nothing was changed)"
    case .badQuery(let error):
      return error.description + "; see 'nb help search'"
    }
  }
}

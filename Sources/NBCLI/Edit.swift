import ArgumentParser
import Foundation
import NoteStore

struct Edit: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "edit",
    abstract: "Edit a note in $VISUAL/$EDITOR (or change it with options); commits if it changed.")

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Option(help: "Replace the body with this text (no editor).")
  var content: String?

  @Option(help: "Append this text to the body (no editor).")
  var append: String?

  @Option(help: "Set the title (no editor).")
  var title: String?

  @Option(help: "Set the tags, comma-separated (no editor).")
  var tags: String?

  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    if content != nil || append != nil || title != nil || tags != nil {
      try Self.change(
        note.note, PlainLine(fields: note.note, content: content, append: append, title: title, tags: tags),
        directory: repository.directory)
      return
    }
    let (notes, target) = try note.resolve(in: repository)
    let before = try notes.data(of: target)
    try Editor.open(notes.fileURL(of: target).path)
    if let saved = try notes.commitEdit(of: target, before: before) {
      print("Saved \(saved.path)")
    } else {
      print("No changes to \(target.path)")
    }
  }
}

extension Edit {
  /// Changes the note as the options say, without an editor, and prints its path.
  static func change(_ selector: String, _ line: PlainLine, directory: String?) throws {
    let notes = try RepositoryOptions.open(directory: directory)
    let target = try notes.resolve(selector)
    let change = NoteChange(
      title: line.title, tags: line.tags.map(tagList), body: line.content, append: line.append)
    print(try notes.update(target, change).path)
  }

  /// `edit NOTE` with at least one of `--content`, `--append`, `--title`, `--tags`, each at most once, read without
  /// ArgumentParser (``NB/runWithoutParsing(_:)``): what a script or an editor's hook runs, where the parser's model
  /// of the command costs a tenth of the whole edit. A value that starts with `-` (the parser would take it for an
  /// option), `--`, `--option=value`, any other word or a second NOTE: nil, and the parser reads the line.
  struct PlainLine: Equatable {
    var note: String?
    var content: String?
    var append: String?
    var title: String?
    var tags: String?

    init(fields note: String?, content: String?, append: String?, title: String?, tags: String?) {
      self.note = note
      self.content = content
      self.append = append
      self.title = title
      self.tags = tags
    }

    init?(_ words: ArraySlice<String>) {
      var words = words
      while let word = words.popFirst() {
        let field: WritableKeyPath<PlainLine, String?>
        switch word {
        case "--content": field = \.content
        case "--append": field = \.append
        case "--title": field = \.title
        case "--tags": field = \.tags
        default:
          guard note == nil, !word.hasPrefix("-") else { return nil }
          note = word
          continue
        }
        guard self[keyPath: field] == nil, let value = words.popFirst(), !value.hasPrefix("-") else { return nil }
        self[keyPath: field] = value
      }
      guard note != nil, content != nil || append != nil || title != nil || tags != nil else { return nil }
    }
  }
}

/// Runs the user's editor the way git does: `$VISUAL`, else `$EDITOR`, through `sh -c` so that values with
/// arguments ("code --wait") work; `vi` when neither is set.
enum Editor {
  static func open(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
    let configured = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty }
    let editor: String
    if let configured {
      editor = configured
    } else if findOnPath("vi", environment: environment) != nil {
      editor = "vi"
    } else {
      throw CommandError("no editor found: set $EDITOR (for example: export EDITOR=nano), or use --content")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", editor + " \"$@\"", editor, path]
    do { try process.run() } catch {
      throw CommandError("cannot start the editor '\(editor)': \(error.localizedDescription)")
    }
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw CommandError(
        "the editor '\(editor)' exited with status \(process.terminationStatus); nothing was committed")
    }
  }

  static func findOnPath(_ name: String, environment: [String: String]) -> String? {
    for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
      let candidate = "\(directory)/\(name)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }
}

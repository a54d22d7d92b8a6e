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
    let (notes, target) = try note.resolve(in: repository)
    if content != nil || append != nil || title != nil || tags != nil {
      let change = NoteChange(
        title: title, tags: tags.map(tagList), body: content, append: append)
      let updated = try notes.update(target, change)
      print(updated.path)
      return
    }
    let before = try notes.data(of: target)
    try Editor.open(notes.fileURL(of: target).path)
    if let saved = try notes.commitEdit(of: target, before: before) {
      print("Saved \(saved.path)")
    } else {
      print("No changes to \(target.path)")
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

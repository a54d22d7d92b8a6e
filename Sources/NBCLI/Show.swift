import ArgumentParser
import Foundation
import InkKit
import NoteStore

struct Show: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract: "Show a note: a summary of its front matter, then the body.")

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Flag(help: "Print the file's bytes exactly as they are.")
  var raw = false

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    try Self.show(note.note, raw: raw, json: output.json, directory: repository.directory)
  }

  /// The command, its options as values (``NB/runWithoutParsing(_:)`` has no parsed command).
  static func show(_ selector: String, raw: Bool, json: Bool, directory: String?) throws {
    let notes = try RepositoryOptions.open(directory: directory)
    let target = try notes.resolve(selector)
    if raw {
      FileHandle.standardOutput.write(try notes.data(of: target))
      return
    }
    let body = try notes.body(of: target)
    // A broken sidecar must not hide the note: show says so and goes on.
    var inkProblem: String?
    var ink: InkSummary?
    do {
      ink = try notes.ink(of: target).map(InkSummary.init)
    } catch {
      inkProblem = "\(error)"
    }
    let inkPath = notes.inkPath(of: target)
    let attachments = try notes.attachmentFiles(of: target)
    // On standard error, so it never mixes into the JSON a script reads.
    if let inkProblem { warn(inkProblem) }
    if json {
      var json = NoteJSON(target, body: body)
      json.ink = ink.map { NoteJSON.InkJSON(path: inkPath, pages: $0.pages, strokes: $0.strokes, points: $0.points) }
      json.attachments = attachments.map { NoteJSON.AttachmentJSON(path: $0.path, bytes: $0.bytes) }
      try printJSON(json)
      return
    }
    if let warning = target.warning { warn(warning) }
    print(Style.bold(target.title))
    var rows: [(String, String)] = [("path", target.path), ("id", target.id ?? "(none yet)")]
    if let created = target.created { rows.append(("created", created.rfc3339)) }
    if let updated = target.updated { rows.append(("updated", updated.rfc3339)) }
    if !target.tags.isEmpty { rows.append(("tags", target.tags.joined(separator: ", "))) }
    if !target.aliases.isEmpty { rows.append(("aliases", target.aliases.joined(separator: ", "))) }
    if let conflictOf = target.conflictOf { rows.append(("conflict of", conflictOf)) }
    if let ink {
      let svg = target.stem + ".svg"
      rows.append(("ink", "\(ink.headline) in \(inkPath); render: nb ink render \(target.path) -o \(svg)"))
    }
    for (index, file) in attachments.enumerated() {
      rows.append((index == 0 ? "attached" : "", "\(file.path) (\(ByteCountFormatter.string(fromByteCount: file.bytes, countStyle: .file)))"))
    }
    printRows(rows)
    print("")
    print(body, terminator: body.hasSuffix("\n") || body.isEmpty ? "" : "\n")
  }
}

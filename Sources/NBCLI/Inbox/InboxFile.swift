import ArgumentParser
import Foundation
import NoteStore

struct InboxFile: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "file",
    abstract: "File inbox items into notebooks (one commit each: the move, status: filed, the decision recorded).",
    discussion: """
      nb inbox file ITEM NOTEBOOK files it there; without NOTEBOOK it takes the suggestion. \
      nb inbox file --all --min-confidence 0.8 files every item whose suggestion is at least that sure.
      """)

  @Argument(help: "The item (path, id prefix or title).", completion: Completions.notes)
  var item: String?

  @Argument(help: "The notebook it belongs in (default: the suggestion).", completion: Completions.notebooks)
  var notebook: String?

  @Flag(help: "File every item whose suggestion is sure enough (see --min-confidence).")
  var all = false

  @Option(help: "With --all: the least confidence a suggestion needs (0–1; default: the inbox threshold).")
  var minConfidence: Double?

  @Flag(help: "Create the notebook when it does not exist.")
  var create = false

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct Filed: Encodable {
    var from: String
    var to: String
    @NullWhenAbsent var suggested: String?
    @NullWhenAbsent var confidence: Double?
  }

  func validate() throws {
    if all && (item != nil || notebook != nil) { throw ValidationError("--all files every sure item: give no ITEM") }
    if !all && item == nil { throw ValidationError("give the ITEM to file, or --all") }
    if let minConfidence, !(0...1).contains(minConfidence) {
      throw ValidationError("--min-confidence must be between 0 and 1")
    }
    if minConfidence != nil && !all { throw ValidationError("--min-confidence goes with --all") }
  }

  func run() throws {
    let notes = try repository.open()
    var filed: [Filed] = []
    if all {
      let items = try notes.inboxItems()
      let threshold = minConfidence ?? notes.inboxThreshold
      for (note, advice) in zip(items, try notes.advice(for: items)) {
        // The inbox command's answer when it gave one, else the classifier's likeliest, even below the threshold.
        let suggested = advice.source == .command ? advice.suggestion : advice.candidates.first
        guard let top = suggested, top.confidence >= threshold else { continue }
        let moved = try notes.file(note, to: top.notebook, suggested: top.notebook, confidence: top.confidence)
        filed.append(Filed(from: note.path, to: moved.path, suggested: top.notebook, confidence: rounded(top.confidence)))
      }
    } else if let item {
      let note = try notes.resolve(item)
      let advice = try notes.advice(for: note)
      guard let target = notebook ?? advice.suggestion?.notebook else {
        throw CommandError(
          "no suggestion for \(note.path) is sure enough; name the notebook: nb inbox file \(note.path) NOTEBOOK"
            + (advice.candidates.isEmpty ? "" : " (likeliest: \(advice.candidates.map(\.notebook).joined(separator: ", ")))"))
      }
      // The decision records what was suggested to the person (nothing below the threshold).
      let shown = advice.suggestion
      let moved = try notes.file(
        note, to: target, create: create, suggested: shown?.notebook, confidence: shown?.confidence)
      filed.append(
        Filed(from: note.path, to: moved.path, suggested: shown?.notebook, confidence: shown.map { rounded($0.confidence) }))
    }
    if output.json {
      try printJSON(filed)
      return
    }
    for item in filed { print("\(item.from) -> \(item.to)") }
    if all && filed.isEmpty { print("no item's suggestion is sure enough; nothing filed") }
  }
}

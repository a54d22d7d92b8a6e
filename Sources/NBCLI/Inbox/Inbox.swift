import ArgumentParser
import Foundation
import NoteStore

struct InboxCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "inbox",
    abstract: "List the items waiting in the inbox with a suggested notebook, file them, see why and how it went.",
    discussion: """
      Suggestions come from a classifier that runs here, with no network: trained on the notes of each notebook \
      (and its .notebook.yaml description), and on every item filed, corrections weighing more. A command of your \
      own (a local language model) may suggest instead: inbox: {command: [...], timeout: 5} in this device's \
      $XDG_CONFIG_HOME/nb/config.yaml (~/.config/nb/config.yaml), never in the repository; it gets each item as \
      JSON on standard input and prints a notebook, and the classifier stands in when it fails.
      """,
    subcommands: [InboxList.self, InboxFile.self, InboxWhy.self, InboxStatsCommand.self],
    defaultSubcommand: InboxList.self)
}

/// The JSON shape of an inbox item.
struct InboxItemJSON: Encodable {
  struct Candidate: Encodable {
    var notebook: String
    var confidence: Double
  }

  var path: String
  @NullWhenAbsent var id: String?
  var title: String
  @NullWhenAbsent var captured: String?
  var tags: [String]
  @NullWhenAbsent var suggestion: Candidate?
  /// `classifier` or `command`: who made the suggestion (null when there is none).
  @NullWhenAbsent var source: String?
  var candidates: [Candidate]

  init(_ item: Note, _ advice: InboxAdvice) {
    path = item.path
    id = item.id
    title = item.title
    captured = item.created?.rfc3339
    tags = item.tags
    suggestion = advice.suggestion.map { Candidate(notebook: $0.notebook, confidence: rounded($0.confidence)) }
    source = advice.suggestion == nil ? nil : advice.source.rawValue
    candidates = advice.candidates.map { Candidate(notebook: $0.notebook, confidence: rounded($0.confidence)) }
  }
}

/// A confidence to three decimals, as people and scripts read it.
func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

struct InboxList: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "Items waiting to be filed (status: pending), newest first, with a suggestion.")

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let notes = try repository.open()
    let items = try notes.inboxItems()
    let advice = try notes.advice(for: items)
    if output.json {
      try printJSON(zip(items, advice).map { InboxItemJSON($0, $1) })
      return
    }
    for (item, advice) in zip(items, advice) {
      let suggestion = advice.suggestion.map {
        Style.green("→ \($0.notebook)") + Style.dim(String(format: " %.0f%%", $0.confidence * 100))
          + (advice.source == .command ? Style.dim(" (your command)") : "")
      } ?? Style.dim("no suggestion")
      print("\(noteLine(item))  \(suggestion)")
    }
  }
}

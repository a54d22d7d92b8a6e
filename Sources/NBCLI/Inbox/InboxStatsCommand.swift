import ArgumentParser
import Foundation
import InboxKit
import NoteStore

struct InboxStatsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stats",
    abstract: "How often suggestions were accepted or corrected, per notebook, over the last 30 and 90 days.")

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct PeriodJSON: Encodable {
    var days: Int
    var notebooks: [Row]
  }

  struct Row: Encodable {
    var notebook: String
    var accepted: Int
    var corrected: Int
    var noSuggestion: Int
    enum CodingKeys: String, CodingKey {
      case notebook, accepted, corrected
      case noSuggestion = "no_suggestion"
    }
  }

  func run() throws {
    let notes = try repository.open()
    let (decisions, warnings) = try notes.inboxDecisions()
    for warning in warnings { warn(warning) }
    let periods = [30, 90].map { days in
      PeriodJSON(
        days: days,
        notebooks: InboxStats.compute(decisions, now: notes.clock(), days: days).map {
          Row(notebook: $0.notebook, accepted: $0.accepted, corrected: $0.corrected, noSuggestion: $0.noSuggestion)
        })
    }
    if output.json {
      try printJSON(periods)
      return
    }
    for period in periods {
      print(Style.bold("last \(period.days) days"))
      if period.notebooks.isEmpty { print("  no items filed") }
      for row in period.notebooks {
        print("  \(row.notebook)  accepted \(row.accepted)  corrected \(row.corrected)  no suggestion \(row.noSuggestion)")
      }
    }
  }
}

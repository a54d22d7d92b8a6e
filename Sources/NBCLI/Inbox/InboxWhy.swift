import ArgumentParser
import Foundation
import NoteStore

struct InboxWhy: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "why", abstract: "The words that pushed the suggestion, per candidate notebook.")

  @OptionGroup var item: NoteArgument<NoteHelp.Short>
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct CandidateJSON: Encodable {
    var notebook: String
    var confidence: Double
    var words: [Word]
  }

  struct Word: Encodable {
    var word: String
    var weight: Double
  }

  func run() throws {
    let (notes, note) = try item.resolve(in: repository)
    let reasons = try notes.explain(note)
    if output.json {
      try printJSON(
        reasons.map { reason in
          CandidateJSON(
            notebook: reason.notebook, confidence: rounded(reason.confidence),
            words: reason.words.map { Word(word: $0.0, weight: rounded($0.1)) })
        })
      return
    }
    if reasons.isEmpty { print("no notebook to suggest: file a few items or add notes to notebooks first") }
    for reason in reasons {
      print(Style.bold(reason.notebook) + Style.dim(String(format: "  %.0f%%", reason.confidence * 100)))
      let words = reason.words.map { "\($0.0) (\(String(format: "%+.2f", $0.1)))" }
      print("  " + (words.isEmpty ? "no word stands out" : words.joined(separator: ", ")))
    }
  }
}

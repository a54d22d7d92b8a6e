import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct Reindex: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reindex",
    abstract: "Rebuild the search index from the notes (never needed for correctness; it lives in .git/nb/).")

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct ReportJSON: Encodable {
    var notes: Int
    var bytes: Int64
    var seconds: Double
  }

  func run() throws {
    let report = try repository.open().reindex()
    if output.json {
      return try printJSON(ReportJSON(notes: report.notes, bytes: report.bytes, seconds: report.seconds))
    }
    let megabytes = Double(report.bytes) / 1_048_576
    print(
      "indexed \(counted(report.notes, "note")) in \(String(format: "%.2f", report.seconds)) s "
        + "(index: \(String(format: "%.1f", megabytes)) MB)")
  }
}

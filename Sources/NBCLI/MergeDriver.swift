import ArgumentParser
import Foundation
import InkKit
import NoteStore

/// `nb merge-driver ink %O %A %B`: the ink merge as a git merge driver, for git users outside nb.
struct MergeDriverCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge-driver",
    abstract: "Merge three versions of a file as git's merge driver does (writes the result over OURS).",
    discussion: """
      Set up once per repository (or --global):
        git config merge.nb-ink.name "nb ink: stroke-by-stroke merge"
        git config merge.nb-ink.driver "nb merge-driver ink %O %A %B"
      Exit status 0: merged into OURS. 1: a version could not be parsed; OURS is left as it was and git reports a
      conflict.
      """)

  enum Kind: String, ExpressibleByArgument, CaseIterable {
    case ink
  }

  @Argument(help: "What the files are: ink.")
  var kind: Kind

  @Argument(help: "The common ancestor's version (git's %O).")
  var base: String

  @Argument(help: "Our version, overwritten with the result (git's %A).")
  var ours: String

  @Argument(help: "Their version (git's %B).")
  var theirs: String

  func run() throws {
    let baseData = try readInput(base, what: "the ancestor's version ")
    let oursData = try readInput(ours, what: "our version ")
    let theirsData = try readInput(theirs, what: "their version ")
    // git gives an empty %O when the file was added on both sides.
    guard
      let merged = InkMerge.merge(
        base: baseData.isEmpty ? nil : baseData, ours: oursData, theirs: theirsData, later: .unknown)
    else {
      // Only now read the sides again, to say which one is wrong.
      let problem =
        [(oursData, ours), (theirsData, theirs)].lazy.compactMap { data, path -> String? in
          do { _ = try InkCodec.parse(data, file: path) } catch { return "\(error)" }
          return nil
        }.first ?? "the merged drawing would exceed nb's limits"
      FileHandle.standardError.write(Data("nb merge-driver: \(problem); leaving the conflict to git\n".utf8))
      throw ExitCode(1)
    }
    try writeOutput(merged, to: ours)
  }
}

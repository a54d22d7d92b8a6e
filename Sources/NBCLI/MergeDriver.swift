import ArgumentParser
import Foundation
import InkKit
import NoteStore

/// `nb merge-driver ink|note %O %A %B [%L [%P]]`: nb's merges as git merge drivers, for git users outside nb.
struct MergeDriverCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge-driver",
    abstract: "Merge three versions of a file as git's merge driver does (writes the result over OURS).",
    discussion: """
      Set up once per repository (or --global); .gitattributes (written by nb init) names the drivers:
        git config merge.nb-ink.name "nb ink: stroke-by-stroke merge"
        git config merge.nb-ink.driver "nb merge-driver ink %O %A %B"
        git config merge.nb-note.name "nb note: front matter key by key, body line by line"
        git config merge.nb-note.driver "nb merge-driver note %O %A %B %L %P"
      FILES are git's %O (the ancestor), %A (ours, overwritten with the result) and %B (theirs), then optionally
      %L (the conflict marker size) and %P (the path, for messages).
      Exit status 0: merged into OURS. 1: a conflict. For ink, a version that cannot be parsed: OURS is left as it
      was. For a note, OURS then holds git's conflict markers (labelled ours and theirs) around what both sides
      changed.
      """)

  enum Kind: String, ExpressibleByArgument, CaseIterable {
    case ink
    case note
  }

  @Argument(help: "What the files are: ink or note.")
  var kind: Kind

  // One array rather than named arguments, so a wrong count is a one-line error of ours, not a usage page.
  @Argument(help: ArgumentHelp("%O %A %B, optionally followed by %L and %P.", valueName: "files"))
  var files: [String] = []

  func run() throws {
    guard (3...5).contains(files.count) else {
      throw CommandError(
        "nb merge-driver \(kind.rawValue) takes %O %A %B [%L [%P]] (3 to 5 arguments), got \(files.count); "
          + "check merge.nb-\(kind.rawValue).driver in git config")
    }
    let (base, ours, theirs) = (files[0], files[1], files[2])
    var markers = ConflictMarkers()
    if files.count > 3 {
      guard let size = Int(files[3]), size > 0 else {
        throw CommandError(
          "nb merge-driver: the marker size (%L) must be a positive number, got '\(files[3])'; "
            + "check merge.nb-\(kind.rawValue).driver in git config")
      }
      markers.size = size
    }
    let path = files.count > 4 ? files[4] : ours
    // Every version is read before anything is written, so a bad argument leaves all files as they were.
    let baseData = try readInput(base, what: "the ancestor's version ")
    let oursData = try readInput(ours, what: "our version ")
    let theirsData = try readInput(theirs, what: "their version ")
    switch kind {
    case .ink: try mergeInk(base: baseData, ours: oursData, theirs: theirsData, into: ours)
    case .note:
      try mergeNote(base: baseData, ours: oursData, theirs: theirsData, into: ours, markers: markers, path: path)
    }
  }

  private func mergeInk(base: Data, ours oursData: Data, theirs theirsData: Data, into ours: String) throws {
    let theirs = files[2]
    // git gives an empty %O when the file was added on both sides.
    guard
      let merged = InkMerge.merge(
        base: base.isEmpty ? nil : base, ours: oursData, theirs: theirsData, later: .unknown)
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

  private func mergeNote(
    base: Data, ours oursData: Data, theirs theirsData: Data, into ours: String, markers: ConflictMarkers,
    path: String
  ) throws {
    switch NoteFileMerge.merge(base: base, ours: oursData, theirs: theirsData, markers: markers) {
    case .merged(let data):
      try writeOutput(data, to: ours)
    case .conflicted(let data, let reason):
      // Markers in OURS and a non-zero exit: git then records the conflict exactly as its own merge would.
      try writeOutput(data, to: ours)
      FileHandle.standardError.write(
        Data("nb merge-driver: \(path): both sides changed \(reason); conflict markers left for you to resolve\n".utf8))
      throw ExitCode(1)
    }
  }
}

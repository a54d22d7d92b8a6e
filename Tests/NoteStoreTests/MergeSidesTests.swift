import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// A sync merges on the files that changed (with the note or sidecar going with each) and falls back to the whole
/// trees only when that may not decide the same way. Seeded random histories — edits, moves and deletions (with and
/// without the sidecar), notes added at the same path on both sides, copied ids, ink sidecars changed on both sides,
/// plain files, attachment folders — prove that whenever the changed files are taken as enough, the policy's tree and
/// report are exactly those of the whole trees.
///
/// Each history whose whole-tree merge chose a path no side had (a conflict copy, a note moved aside to `-2`, a file
/// renamed away from a note) is run again with an unchanged file already at that path, or at that path's sidecar, on
/// every side: the merge must then pick another name, which only the whole trees can see. Those runs are what would
/// fail if ``MergeSides/decidesAlone(_:)`` said yes too easily.
final class MergeSidesTests: NoteRepositoryTestCase {
  func testTheChangedFilesDecideAsTheWholeTreesDo() throws {
    var plain = Tally()
    var obstructed = Tally()
    for seed in 1...40 as ClosedRange<UInt64> {
      let newPaths = try check(seed: seed, obstacles: [], tally: &plain)
      guard !newPaths.isEmpty else { continue }
      // Once on the new paths themselves, once on their sidecars (an unread note's sidecar, or a stray one).
      let onPaths = newPaths.sorted()
      let onSidecars = onPaths.filter { $0.hasSuffix(".md") }.map { RepoPaths.sidecars(of: $0)[0] }
      for obstacles in [onPaths, onSidecars] where !obstacles.isEmpty {
        // The whole trees' merge now puts something elsewhere (or not): it did see the obstacle.
        if try check(seed: seed, obstacles: obstacles, tally: &obstructed) != newPaths {
          obstructed.changedTheResult += 1
        }
      }
    }
    // Most histories must take the short way, or this proved little; and the obstructed ones must have been caught
    // by decidesAlone (they need the whole trees), many times over.
    XCTAssertGreaterThan(plain.decidedAlone, plain.runs / 2, "\(plain)")
    XCTAssertGreaterThan(obstructed.runs - obstructed.decidedAlone, 40, "\(obstructed)")
    XCTAssertGreaterThan(obstructed.changedTheResult, 20, "\(obstructed)")
  }

  private struct Tally: CustomStringConvertible {
    var runs = 0
    var decidedAlone = 0
    /// Histories whose whole-tree result put something at another path because of the obstacles.
    var changedTheResult = 0
    var description: String { "\(decidedAlone) of \(runs) decided alone, \(changedTheResult) moved by an obstacle" }
  }

  /// Builds the history of `seed` (with unchanged files at `obstacles` from the base on), merges it both ways and
  /// compares; returns the paths the whole-tree merges put files at that no side had.
  private func check(seed: UInt64, obstacles: [String], tally: inout Tally) throws -> Set<String> {
    try resetHistory()
    var random = SplitMix64(seed: seed)
    try seedBase(&random)
    // After every draw of the base, so the edits below are the same with or without them.
    for (index, path) in obstacles.enumerated() {
      try write(
        path,
        path.hasSuffix(".md")
          ? note(id: "obstacle-\(index)", title: "Obstacle", body: "already here") : "{\"obstacle\":\(index)}\n")
    }
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "base")
    let base = try git.revParse("HEAD")
    try git.run("checkout", "-q", "-b", "theirs")
    try randomEdits(&random, side: "theirs", skipping: Set(obstacles))
    try git.run("add", "-A")
    try git.run("commit", "-q", "--allow-empty", "-m", "theirs")
    let theirs = try git.revParse("HEAD")
    try git.run("checkout", "-q", "main")
    try randomEdits(&random, side: "ours", skipping: Set(obstacles))
    try git.run("add", "-A")
    try git.run("commit", "-q", "--allow-empty", "-m", "ours")
    let ours = try git.revParse("HEAD")

    let history = try repository.git
    let whole = MergeSides(
      base: try history.snapshot(of: base), ours: try history.snapshot(of: ours),
      theirs: try history.snapshot(of: theirs))
    var newPaths = Set<String>()
    for attachmentFolders in [false, true] {
      let wholeResult = merge(whole, attachmentFolders: attachmentFolders)
      if case .merged(let tree, _) = wholeResult {
        // Obstacles are on every side, so never new.
        let fresh = tree.keys.filter { whole.base[$0] == nil && whole.ours[$0] == nil && whole.theirs[$0] == nil }
        newPaths.formUnion(fresh)
      }
      guard
        let changed = try MergeSides.changed(
          base: base, ours: ours, theirs: theirs, in: history, attachmentFolders: attachmentFolders)
      else { continue }
      tally.runs += 1
      let restricted = merge(changed, attachmentFolders: attachmentFolders)
      guard changed.decidesAlone(restricted) else { continue }
      tally.decidedAlone += 1
      let context = "seed \(seed), attachment folders \(attachmentFolders), obstacles \(obstacles)"
      guard case .merged(let tree, let report) = restricted, case .merged(let wholeTree, let wholeReport) = wholeResult
      else {
        XCTFail("one run refused, the other did not: \(context)")
        continue
      }
      // What was left out is carried over as this device has it (commitMerge writes the tree over ours').
      var completed = tree
      for (path, file) in whole.ours
      where changed.base[path] == nil && changed.ours[path] == nil && changed.theirs[path] == nil {
        completed[path] = .stored(id: file.id) { nil }
      }
      XCTAssertEqual(completed, wholeTree, context)
      XCTAssertEqual(report, wholeReport, context)
    }
    return newPaths
  }

  /// The policy over `sides`, each version's time and maker a function of its path and side alone (the same in
  /// both runs, and different enough to give either side the win).
  private func merge(_ sides: MergeSides, attachmentFolders: Bool) -> SyncMerge {
    let history = try! repository.git
    func versions(_ files: [String: StoredFile], side: String) -> [String: FileVersion] {
      files.reduce(into: [:]) { result, entry in
        let (path, file) = entry
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (side + path).utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        result[path] = FileVersion(
          content: .stored(id: file.id) { try? history.read(file) },
          commitTime: Self.start.addingTimeInterval(Double(hash % 1_000)), author: side == "base" ? nil : side)
      }
    }
    return SyncPolicy.merge(
      base: versions(sides.base, side: "base"), ours: versions(sides.ours, side: "ours"),
      theirs: versions(sides.theirs, side: "theirs"), device: "here", now: Self.start.addingTimeInterval(86_400),
      attachmentFolders: attachmentFolders)
  }

  /// Back to an empty history on `main`, with only nb's own files.
  private func resetHistory() throws {
    _ = try? git.run("checkout", "-q", "main")
    _ = try? git.run("branch", "-q", "-D", "theirs")
    try git.run("rm", "-q", "-r", "--ignore-unmatch", "--", "a", "b", "c")
    for directory in ["a", "b", "c"] { try? FileManager.default.removeItem(at: url(directory)) }
    try git.run("commit", "-q", "--allow-empty", "-m", "reset")
  }

  private static let directories = ["a", "b", "c", "a/deep"]

  private func note(id: String, title: String, body: String) -> String {
    "---\nid: \(id)\ntitle: \(title)\nupdated: 2026-11-22T10:00:00+01:00\n---\n# \(title)\n\n\(body)\n"
  }

  private func seedBase(_ random: inout SplitMix64) throws {
    for i in 0..<12 {
      let directory = Self.directories[i % Self.directories.count]
      try write("\(directory)/n\(i).md", note(id: "id-\(i)", title: "N \(i)", body: "line one\nline two\nline three"))
      if Int.random(in: 0..<3, using: &random) == 0 { try write("\(directory)/n\(i).ink.jsonl", "{\"base\":\(i)}\n") }
    }
    // Unchanged notes where a note moved aside would go (`same.md` added on both sides: the incoming one is `-2`).
    for directory in Self.directories where Int.random(in: 0..<2, using: &random) == 0 {
      try write("\(directory)/same-2.md", note(id: "aside-\(directory)", title: "Aside", body: "in the way"))
    }
    try write("a/data.txt", "data\n")
    try write("b/n3-2.md", note(id: "id-extra", title: "Extra", body: "a second note with a -2 name"))
    if Int.random(in: 0..<2, using: &random) == 0 {
      // An attachment that is itself a Markdown file, a copy of a note (its id too).
      try write("c/n2.files/attached.md", note(id: "id-6", title: "N 6", body: "attached"))
    }
  }

  /// The notes in the work tree now, sorted (the edits so far on this side included), obstacles left out.
  private func existingNotes(skipping obstacles: Set<String>) throws -> [String] {
    var notes: [String] = []
    for directory in ["a", "b", "c"] {
      guard let walk = FileManager.default.enumerator(atPath: url(directory).path) else { continue }
      for case let path as String in walk where path.hasSuffix(".md") && !path.contains(".files/") {
        if !obstacles.contains(directory + "/" + path) { notes.append(directory + "/" + path) }
      }
    }
    return notes.sorted()
  }

  private func randomEdits(_ random: inout SplitMix64, side: String, skipping obstacles: Set<String>) throws {
    for step in 0..<Int.random(in: 2...7, using: &random) {
      let notes = try existingNotes(skipping: obstacles)
      guard !notes.isEmpty else { return }
      // Half the edits change the text or the sidecar of one of the first two notes, so that both sides often
      // change the same note (a merge, or a conflict copy); the others are anything anywhere.
      let hot = Int.random(in: 0..<2, using: &random) == 0
      let target = (hot ? Array(notes.prefix(2)) : notes).randomElement(using: &random)!
      let sidecar = String(target.dropLast(3)) + RepoPaths.inkSuffix
      let directory = Self.directories.randomElement(using: &random)!
      switch hot ? [0, 2, 3, 11, 12][Int.random(in: 0..<5, using: &random)] : Int.random(in: 0..<15, using: &random) {
      case 0, 1:
        try write(target, try read(target) + "\(side) adds a line \(step)\n")
      case 2, 3:
        let text = try read(target).replacingOccurrences(
          of: "updated: 2026-11-22T10:00:00+01:00", with: "updated: 2026-11-2\(step)T11:00:00+01:00")
        try write(target, text.replacingOccurrences(of: "line two", with: "line two, \(side)"))
      case 4:
        // A plain `rm` of the note alone: its sidecar stays behind.
        try FileManager.default.removeItem(at: url(target))
      case 5:
        // As nb deletes: the note and its sidecar.
        try FileManager.default.removeItem(at: url(target))
        try? FileManager.default.removeItem(at: url(sidecar))
      case 6:
        // Moved alone (the id goes to another path; a sidecar stays behind).
        let moved = "\(directory)/moved-\(side)-\(step).md"
        try write(moved, try read(target))
        try FileManager.default.removeItem(at: url(target))
      case 7:
        // Moved as nb moves it, with its sidecar.
        let moved = "\(directory)/moved-\(side)-\(step).md"
        try write(moved, try read(target))
        try FileManager.default.removeItem(at: url(target))
        if let ink = try? read(sidecar) {
          try write(String(moved.dropLast(3)) + RepoPaths.inkSuffix, ink)
          try FileManager.default.removeItem(at: url(sidecar))
        }
      case 8:
        // The same new path on both sides, with different text.
        try write("\(directory)/same.md", note(id: "new-\(side)", title: "Same", body: "from \(side)"))
      case 9:
        // A copy carrying another note's id.
        try write("\(directory)/copy-\(side).md", try read(target))
      case 10:
        // Names the policy might pick for a conflict copy or a note moved aside.
        let stem = (target as NSString).deletingPathExtension
        try write(stem + "-2.md", note(id: "taken-\(side)-\(step)", title: "Taken", body: "in the way"))
      case 11, 12:
        // A sidecar drawn on (not valid ink: both sides' changes make a conflict copy with the sidecar).
        try write(sidecar, "{\"\(side)\":\(step)}\n")
      case 13:
        try write("a/data.txt", "data from \(side) \(step)\n")
      default:
        try write("\(directory)/n-\(step).files/a.md", "attached by \(side)\n")
      }
    }
  }
}

import Foundation
import XCTest

@testable import NoteStore

/// `status` answers from one walk that trusts the index and from the per-commit summary of the notes
/// (``NoteSummary``); what it reports must be what a listing's walk of every note finds.
final class StatusSummaryTests: NoteRepositoryTestCase {
  /// The warnings a walk of every note gives (what `status` printed before the summary), in `status`'s order.
  private func listedWarnings() -> [String] {
    let scanned = repository.scanner.notesAndStrays(in: "", recursive: true)
    var notes: [String: NoteSummary.Facts] = [:]
    for note in scanned.notes { notes[note.path] = NoteSummary.Facts(id: note.id, warning: note.warning) }
    let warnings = NoteSummary.warnings(notes).texts
    var all = warnings.notes + warnings.duplicates
    all += scanned.strays.temporaryFiles.map {
      "\($0) is a partial write left by an interrupted nb; nb never commits it, delete it"
    }
    all += scanned.strays.orphanedInk.map { path in
      let note = String(path.dropLast(RepoPaths.inkSuffix.count)) + ".md"
      return "\(path) is ink without a note (no \(note)); restore the note, or move the ink beside its note with the "
        + "same name"
    }
    return all
  }

  private func assertSameWarnings(file: StaticString = #filePath, line: UInt = #line) throws {
    // Through the walk: nothing is staged in these tests, so it must answer.
    XCTAssertNotNil(try repository.git.scan { _, _ in }, "the walk declined", file: file, line: line)
    XCTAssertEqual(try repository.status().warnings, listedWarnings(), file: file, line: line)
    // A second time from the kept summary, and from another instance (another process).
    XCTAssertEqual(try repository.status().warnings, listedWarnings(), file: file, line: line)
    XCTAssertEqual(try openAnother().status().warnings, listedWarnings(), file: file, line: line)
  }

  /// Making the summary reads every note (seconds at 100 000 notes), so it reports its progress, ending done; the
  /// status after it, answered from the kept summary, reports none.
  func testMakingTheSummaryReportsProgressThroughEveryNote() throws {
    for i in 0..<30 { try write("d\(i % 4)/n\(i).md", "---\ntitle: N\(i)\n---\nBody\n") }
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "seed")
    var reports: [(activity: String, done: Int, total: Int)] = []
    repository.progress = { reports.append(($0, $1, $2)) }
    _ = try repository.status()
    XCTAssertEqual(Set(reports.map(\.activity)), ["Reading notes"])
    XCTAssertEqual(Set(reports.map(\.total)), [30])
    XCTAssertEqual(reports.first?.done, 0)
    XCTAssertEqual(reports.last?.done, 30)
    XCTAssertEqual(reports.map(\.done), reports.map(\.done).sorted())
    XCTAssertEqual(reports.count, 5, "one report per directory and the last: \(reports.map(\.done))")
    reports = []
    _ = try repository.status()
    XCTAssertEqual(reports.count, 0, "\(reports)")
    repository.progress = nil
  }

  func testAStatusWithoutTheNotesWarningsReadsNoNoteAndSaysTheRestTheSame() throws {
    try write("work/a.md", "---\nid: 11111111-1111-4111-8111-111111111111\ntitle: A\n---\nA\n")
    try write("work/b.md", "---\nid: 11111111-1111-4111-8111-111111111111\ntitle: B\n---\nB\n")
    try write("work/broken.md", "---\ntitle: [unclosed\n---\nbody\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "seed")
    try write("work/broken.md", "---\ntitle: [still unclosed\n---\nbody, edited\n")
    try write("work/lost.ink.jsonl", "{}\n")
    try write("work/new.md", "---\ntitle: New\n---\n")
    let cache = root.appendingPathComponent(".git/nb/cache")
    try? FileManager.default.removeItem(at: cache)
    // What an older nb kept: removed once the new summary is written.
    try write(".git/nb/cache/summary-v1/notes", "nb-note-summary 1\tabc\t2\n")

    let light = try repository.status(noteWarnings: false)
    XCTAssertEqual(light.warnings, [], "no note's warning, no stray's")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: cache.appendingPathComponent("summary-v2").path),
      "no summary of the notes was made (it reads every note)")
    let full = try repository.status()
    XCTAssertEqual(full.warnings.count, 3, "the broken note, the shared id, the ink without a note: \(full.warnings)")
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: cache.appendingPathComponent("summary-v2").path),
      "the full status keeps the notes' summary")
    XCTAssertFalse(FileManager.default.fileExists(atPath: cache.appendingPathComponent("summary-v1").path))
    XCTAssertEqual(light.branch, full.branch)
    XCTAssertEqual(light.head, full.head)
    XCTAssertEqual(light.operation, full.operation)
    XCTAssertEqual(light.changes, full.changes)
    XCTAssertEqual(Set(light.changes.map(\.path)), ["work/broken.md", "work/lost.ink.jsonl", "work/new.md"])
  }

  func testWarningsFollowCommitsAndTheWorkTree() throws {
    try write("work/a.md", "---\nid: 11111111-1111-4111-8111-111111111111\ntitle: A\n---\nA\n")
    try write("work/b.md", "---\nid: 11111111-1111-4111-8111-111111111111\ntitle: B\n---\nB\n")
    try write("work/broken.md", "---\ntitle: [unclosed\n---\nbody\n")
    try write("work/deep/c.md", "---\ntitle: C\n---\nC\n")
    try write(".hidden/d.md", "---\ntitle: [hidden and broken\n---\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "seed")
    try assertSameWarnings()
    XCTAssertTrue(try repository.status().warnings.contains { $0.contains("share the id") })

    // The work tree changes notes the summary describes.
    try write("work/b.md", "---\ntitle: B, its id gone\n---\nB\n")
    try write("work/new.md", "---\nid: 22222222-2222-4222-8222-222222222222\n---\nnew\n")
    try write("work/deep/copy.md", "---\nid: 22222222-2222-4222-8222-222222222222\n---\ncopy\n")
    try write("work/deep/c.md", "---\ntitle: [now broken\n---\n")
    try FileManager.default.removeItem(at: url("work/broken.md"))
    try write("work/.x.md.nb-123-456.tmp", "partial")
    try write(".hidden/.y.md.nb-1-2.tmp", "partial, in a hidden directory")
    try write("work/lost.ink.jsonl", "{}\n")
    try assertSameWarnings()

    // A commit moves the summary forward by the notes that changed.
    _ = try repository.save()
    try assertSameWarnings()
    try write("work/a.md", "---\nid: 33333333-3333-4333-8333-333333333333\ntitle: A\n---\nA\n")
    try git.run("commit", "-q", "-am", "by git")
    try assertSameWarnings()
  }

  /// Commits two notes that share an id and a broken one, and checks the first status.
  private func commitASharedIDAndABrokenNote() throws {
    try write("work/a.md", "---\nid: 11111111-1111-4111-8111-111111111111\ntitle: A\n---\nA\n")
    try write("work/b.md", "---\nid: 11111111-1111-4111-8111-111111111111\ntitle: B\n---\nB\n")
    try write("work/broken.md", "---\ntitle: [unclosed\n---\nbody\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "seed")
    try assertSameWarnings()
  }

  /// A commit that changes no note's id or warning moves the kept summary to it by its first line only: both files
  /// must then hold exactly what a summary made from scratch for that commit holds.
  func testAnEditThatChangesNoFactsLeavesTheFilesAFreshSummaryWrites() throws {
    try commitASharedIDAndABrokenNote()
    let cache = repository.gitDirectory.appendingPathComponent("nb/cache/summary-v2")
    let files = { try self.summaryFiles() }
    let before = try files()
    // Same id, same (no) warning: only the body changed.
    try write("work/a.md", "---\nid: 11111111-1111-4111-8111-111111111111\ntitle: A\n---\nA, longer now\n")
    try git.run("commit", "-q", "-am", "body only")
    try assertSameWarnings()
    let retargeted = try files()
    let head = try git.run("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
    XCTAssertTrue(retargeted.allSatisfy { $0.hasPrefix("nb-note-summary 2\t\(head)\t") }, "\(retargeted)")
    XCTAssertNotEqual(retargeted, before)
    try FileManager.default.removeItem(at: cache)
    try assertSameWarnings()
    XCTAssertEqual(try files(), retargeted, "a summary made from scratch differs from the retargeted one")
  }

  /// Commits that add, remove and change notes (first, last and middle in the file's order, names that need escaping)
  /// splice their lines into the kept `notes` file: it must be byte for byte the file a summary made from scratch
  /// writes, commit after commit.
  func testChangedNotesAreSplicedIntoTheKeptFile() throws {
    for index in 0..<30 { try write("n/m\(index).md", "---\nid: 0000\(index)\ntitle: M\(index)\n---\nbody\n") }
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "seed")
    try assertSameWarnings()
    let cache = repository.gitDirectory.appendingPathComponent("nb/cache/summary-v2")
    let files = { try self.summaryFiles() }
    let steps: [() throws -> Void] = [
      { try self.write("a/first.md", "---\nid: f1\n---\nfirst\n") },
      { try self.write("z/last.md", "---\nid: l1\n---\nlast\n") },
      { try self.write("n/m15b.md", "---\nid: 000015\n---\nshares an id\n") },
      { try FileManager.default.removeItem(at: self.url("n/m3.md")) },
      { try self.write("n/m7.md", "---\ntitle: [broken\n---\n") },
      {
        try self.write("n/tab\there.md", "---\nid: t1\n---\n")
        try self.write("n/back\\slash.md", "---\nid: b1\n---\n")
      },
      {
        try FileManager.default.removeItem(at: self.url("a/first.md"))
        try FileManager.default.removeItem(at: self.url("z/last.md"))
        try self.write("n/m20.md", "---\nid: 0000new\n---\nnew id\n")
      },
    ]
    for (number, step) in steps.enumerated() {
      try step()
      try git.run("add", "-A")
      try git.run("commit", "-q", "-m", "step \(number)")
      try assertSameWarnings()
      let spliced = try files()
      try FileManager.default.removeItem(at: cache)
      try assertSameWarnings()
      XCTAssertEqual(try files(), spliced, "step \(number): the spliced summary differs from one made from scratch")
    }
  }

  /// A process killed between writing the two files leaves `notes` for the new commit and `warnings` for the old:
  /// neither is taken alone, and the warnings are those of the notes.
  func testFilesOfTwoCommitsAreNotTakenTogether() throws {
    try commitASharedIDAndABrokenNote()
    let warnings = repository.gitDirectory.appendingPathComponent("nb/cache/summary-v2/warnings")
    let old = try Data(contentsOf: warnings)
    try write("work/b.md", "---\nid: 22222222-2222-4222-8222-222222222222\n---\nB\n")
    try git.run("commit", "-q", "-am", "no shared id")
    try assertSameWarnings()
    XCTAssertFalse(try repository.status().warnings.contains { $0.contains("share the id") })
    try old.write(to: warnings)
    XCTAssertEqual(try repository.status().warnings, listedWarnings())
    XCTAssertEqual(try openAnother().status().warnings, listedWarnings())
    XCTAssertFalse(try openAnother().status().warnings.contains { $0.contains("share the id") })
  }

  /// The kept summary's two files, `notes` then `warnings`.
  private func summaryFiles() throws -> [String] {
    let cache = repository.gitDirectory.appendingPathComponent("nb/cache/summary-v2")
    return try ["notes", "warnings"].map { try String(contentsOf: cache.appendingPathComponent($0), encoding: .utf8) }
  }

  /// The warnings as first written (an array of paths per id), the oracle for the one that allocates less.
  private func plainWarnings(_ notes: [String: NoteSummary.Facts]) -> [String] {
    var own: [(path: String, warning: String)] = []
    var byID: [String: [String]] = [:]
    for (path, facts) in notes {
      if let warning = facts.warning { own.append((path, warning)) }
      if let id = facts.id { byID[id.lowercased(), default: []].append(path) }
    }
    let duplicates = byID.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }.map { id, paths in
      "\(paths.sorted().joined(separator: " and ")) share the id \(id); remove the id line from all but one and run "
        + "'nb save'"
    }
    return own.sorted { $0.path < $1.path }.map(\.warning) + duplicates
  }

  func testWarningsAreThoseOfEveryNoteOneByOne() {
    let ids = ["a1", "A1", "b2", "É3", "é3", "0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b", "0193F6A2-8C01-7E55-B1C0-7A0E1F2D3C4B"]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<300 {
      var notes: [String: NoteSummary.Facts] = [:]
      for index in 0..<Int.random(in: 0...40, using: &generator) {
        notes["n/\(index)-\(Int.random(in: 0...9, using: &generator)).md"] = NoteSummary.Facts(
          id: Bool.random(using: &generator) ? ids.randomElement(using: &generator) : nil,
          warning: Int.random(in: 0..<4, using: &generator) == 0 ? "w\(index)" : nil)
      }
      let warnings = NoteSummary.warnings(notes).texts
      XCTAssertEqual(warnings.notes + warnings.duplicates, plainWarnings(notes))
    }
  }

  /// Random notes changed by random changes (added, removed, an id or a warning gained, lost or swapped; ids that
  /// differ only in case, need escaping or are not ASCII; more than a few at once): the warnings derived from the
  /// kept ones and the file must be those of the changed notes, and the changed file the one they make.
  func testWarningsOfChangedNotesAreThoseOfTheNotesAfterTheChange() {
    let ids = [
      "a1", "A1", "b2", "É3", "é3", "tab\tid", "back\\slash", "0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b",
      "0193F6A2-8C01-7E55-B1C0-7A0E1F2D3C4B",
    ]
    var generator = SystemRandomNumberGenerator()
    func facts() -> NoteSummary.Facts {
      NoteSummary.Facts(
        id: Int.random(in: 0..<3, using: &generator) == 0 ? nil : ids.randomElement(using: &generator),
        warning: Int.random(in: 0..<4, using: &generator) == 0 ? "w\(Int.random(in: 0...99, using: &generator))" : nil)
    }
    for _ in 0..<400 {
      var notes: [String: NoteSummary.Facts] = [:]
      for index in 0..<Int.random(in: 0...40, using: &generator) { notes["n/\(index)\tx.md"] = facts() }
      let file = NotesFile(notes)
      let base = NoteSummary.warnings(notes)
      var changes: [String: NoteSummary.Facts?] = [:]
      for _ in 0..<Int.random(in: 0...12, using: &generator) {
        let path = "n/\(Int.random(in: 0...50, using: &generator))\tx.md"
        changes[path] = Bool.random(using: &generator) ? facts() : .some(nil)
      }
      var after = notes
      for (path, facts) in changes { after[path] = facts }
      let list = changes.map { NoteSummary.Change(path: $0.key, facts: $0.value) }
      XCTAssertEqual(NoteSummary.warnings(base, in: file, changing: list), NoteSummary.warnings(after))
      XCTAssertEqual(file.changing(list).body, NotesFile(after).body)
      for (path, facts) in after { XCTAssertEqual(file.changing(list).facts(of: path), facts) }
      XCTAssertNil(file.changing(list).facts(of: "n/none.md"))
    }
  }

  /// A `notes` file that is not three fields a line is not taken (a summary is made again instead).
  func testAMalformedNotesFileIsRefused() {
    XCTAssertNotNil(NotesFile(body: Array("a.md\tid\t\n".utf8)))
    XCTAssertNil(NotesFile(body: Array("a.md\tid\n".utf8)))
    XCTAssertNil(NotesFile(body: Array("a.md\tid\t".utf8)), "no newline at the end")
  }

  func testAttachmentFoldersHoldNoNotes() throws {
    try write("work/plan.md", "---\ntitle: Plan\n---\nplan\n")
    try write("work/plan.files/readme.md", "---\ntitle: [broken but an attachment\n---\n")
    try write("work/other.files/note.md", "---\ntitle: [broken, and a note: no other.md\n---\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "seed")
    try assertSameWarnings()
    // The note goes: its folder's files are notes again, before and after the deletion is committed.
    try FileManager.default.removeItem(at: url("work/plan.md"))
    XCTAssertEqual(try repository.status().warnings, listedWarnings())
    _ = try repository.save()
    try assertSameWarnings()
  }
}

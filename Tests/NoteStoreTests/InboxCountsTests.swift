import Foundation
import GRDB
import InboxKit
import NBTestSupport
import XCTest

@testable import NoteStore

/// The inbox classifier's counts in the index: kept note by note whoever changes the notes, always equal to counting
/// every note again, and a slice of them suggests exactly as the whole model does.
final class InboxCountsTests: NoteRepositoryTestCase {
  /// The stored counts, as the classifier sees them (notebooks with nothing left are left out).
  private func stored() throws -> (notebooks: [String: NotebookCounts], vocabulary: Int) {
    try repository.index.read { db in
      var notebooks: [String: NotebookCounts] = [:]
      var names: [Int64: String] = [:]
      for row in try Row.fetchAll(db, sql: "SELECT id, name, documents, total FROM inbox_notebook") {
        names[row[0]] = row[1]
        if (row[2] as Double) > 0 || (row[3] as Double) > 0 {
          notebooks[row[1]] = NotebookCounts(terms: [:], total: row[3], documents: row[2])
        }
      }
      for row in try Row.fetchAll(db, sql: "SELECT term, notebook, count FROM inbox_term") {
        let name = try XCTUnwrap(names[row[1]])
        notebooks[name, default: NotebookCounts()].terms[row[0]] = row[2]
      }
      let vocabulary = try XCTUnwrap(NoteIndex.meta(db, "inbox_vocabulary").flatMap(Int.init))
      return (notebooks, vocabulary)
    }
  }

  /// Every note counted again from the files: what the kept counts must equal. Read with the test's own pass over
  /// the work tree (title, tags and body of each note outside the root and the inbox).
  private func recounted() throws -> [String: NotebookCounts] {
    var classifier = InboxClassifier()
    for (path, data) in try snapshot() where path.hasSuffix(".md") && path.contains("/") {
      let dir = String(path[..<path.lastIndex(of: "/")!])
      guard dir != "inbox", !dir.hasPrefix(".") else { continue }
      let text = String(decoding: data, as: UTF8.self)
      let note = try repository.resolve(path)
      classifier.train(
        NoteIndex.inboxText(title: note.title, tags: note.tags, body: String(FrontMatter.body(of: text))),
        notebook: dir)
    }
    return classifier.notebooks
  }

  private func assertCountsMatchTheNotes(_ message: String, line: UInt = #line) throws {
    let (notebooks, vocabulary) = try stored()
    let expected = try recounted()
    XCTAssertEqual(notebooks, expected, message, line: line)
    XCTAssertEqual(vocabulary, InboxClassifier(notebooks: expected).vocabulary.count, message, line: line)
  }

  func testCountsFollowEveryChangeAndEqualARecount() throws {
    let item = try repository.capture("call the dentist about the bridge")
    try repository.createNote(NoteDraft(title: "Dentist visit", notebook: "health", content: "the bridge hurts\n"))
    try repository.createNote(NoteDraft(title: "Quarterly budget", notebook: "work", tags: ["money"], content: "q3\n"))
    // The first suggestion builds the counts.
    _ = try repository.advice(for: item)
    try assertCountsMatchTheNotes("after the build")

    var report = try repository.createNote(
      NoteDraft(title: "Report draft", notebook: "work", content: "the quarterly report for the client\n"))
    _ = try repository.advice(for: item)
    try assertCountsMatchTheNotes("after an add")

    report = try repository.update(report, NoteChange(body: "a wholly different budget text\n"))
    _ = try repository.advice(for: item)
    try assertCountsMatchTheNotes("after an edit")

    report = try repository.move(report, to: "health")
    _ = try repository.advice(for: item)
    try assertCountsMatchTheNotes("after a move")

    try repository.delete(report)
    _ = try repository.advice(for: item)
    try assertCountsMatchTheNotes("after a delete")

    // Another editor: an edit, a new file, a deletion, none of them committed.
    try write("health/dentist-visit.md", "---\ntitle: Dentist visit\n---\nthe crown was replaced today\n")
    try write("garden/roses.md", "# Roses\n\nprune the roses in march\n")
    try FileManager.default.removeItem(at: url("work/quarterly-budget.md"))
    // The inbox's own reads look for uncommitted edits in the inbox only; any command reading everything (here a
    // tag lookup) brings the rest in, and the counts with them.
    _ = try repository.notes(taggedWith: "x")
    try assertCountsMatchTheNotes("after edits by another editor")

    // Filing the item adds it to its notebook (and the decision on top, kept apart).
    try repository.file(item, to: "health")
    _ = try repository.advice(for: try repository.capture("another thought"))
    try assertCountsMatchTheNotes("after filing")

    // The git CLI moving HEAD (a reset) is followed too.
    try git.run("reset", "-q", "--hard", "HEAD~1")
    _ = try repository.advice(for: try repository.capture("a third thought"))
    try assertCountsMatchTheNotes("after git reset")
  }

  func testASliceSuggestsExactlyAsTheWholeModel() throws {
    let topics = [
      "health": "dentist doctor blood pressure appointment pharmacy",
      "work": "client budget report meeting invoice quarterly",
      "home": "sink roof garden plumber paint kitchen",
    ]
    for (notebook, words) in topics.sorted(by: { $0.key < $1.key }) {
      let list = words.split(separator: " ")
      for n in 0..<6 {
        try repository.createNote(
          NoteDraft(
            title: "\(notebook) \(n)", notebook: notebook,
            content: "\(list[n % list.count]) and \(list[(n + 2) % list.count]) \(list[(n + 3) % list.count])\n"))
      }
    }
    let items = try ["the plumber sent an invoice", "blood test at the doctor", "zebra"].map {
      try repository.capture($0)
    }
    let advice = try repository.advice(for: items)
    let whole = InboxClassifier(notebooks: try recounted())
    for (item, advice) in zip(items, advice) {
      let text = NoteIndex.inboxText(title: item.title, tags: item.tags, body: try repository.body(of: item))
      let expected = whole.suggest(text, among: ["health", "work", "home"]).prefix(3)
      XCTAssertEqual(advice.candidates.map(\.notebook), expected.map(\.notebook), item.title)
      for (got, want) in zip(advice.candidates, expected) {
        XCTAssertEqual(got.confidence, want.probability, accuracy: 1e-12, item.title)
      }
    }
    XCTAssertNil(advice[2].suggestion, "no word anyone has seen: no suggestion")
  }

  func testOnlyTheWinningDecisionCountsAndDecisionsDecay() throws {
    try repository.createNote(NoteDraft(title: "Checkup", notebook: "health", content: "blood pressure\n"))
    try repository.createNote(NoteDraft(title: "Groceries", notebook: "errands", content: "milk and bread\n"))
    let item = try repository.capture("call the dentist")
    let filed = try repository.file(item, to: "errands")
    // Another device filed the same item to health earlier: its line arrives in the decisions file by sync, but
    // the note stays where the later decision put it.
    let log = try read(NoteRepository.inboxDecisionsFile)
    let other = log.replacingOccurrences(of: "\"chosen\":\"errands\"", with: "\"chosen\":\"health\"")
      .replacingOccurrences(of: "2026-11-22T09:07:01Z", with: "2026-11-22T09:00:00Z")
    XCTAssertNotEqual(other, log)
    try write(NoteRepository.inboxDecisionsFile, other + log)
    let probe = try repository.capture("dentist")

    func decided() throws -> [String: Double] {
      _ = try repository.advice(for: probe)
      return try repository.index.read { db in
        Dictionary(
          uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, documents FROM inbox_decided_notebook").map {
            ($0[0] as String, $0[1] as Double)
          })
      }
    }
    XCTAssertEqual(try decided(), ["errands": InboxClassifier.correctionWeight], "health lost: not counted")
    let errandsDentist = { () throws -> Double in
      _ = try self.repository.advice(for: probe)
      return try self.repository.index.read { db in
        let (notebooks, _) = try NoteIndex.inboxSlice(db, features: ["dentist"], now: self.clock.now)
        XCTAssertNil(notebooks["health"]?.terms["dentist"], "the losing decision trains nothing")
        return notebooks["errands"]?.terms["dentist"] ?? 0
      }
    }
    // "dentist" is in the title and in the body: twice in the note, twice in the decision's weight.
    XCTAssertEqual(try errandsDentist(), 2 * (1 + InboxClassifier.correctionWeight), accuracy: 1e-9)
    // Half a year later the decision counts half; the note itself still 1.
    clock.advance(InboxClassifier.decisionHalfLife)
    XCTAssertEqual(try errandsDentist(), 2 * (1 + InboxClassifier.correctionWeight / 2), accuracy: 1e-9)
    // The decided note changes: the decision counts its new words.
    try repository.update(filed, NoteChange(body: "call the orthodontist\n"))
    _ = try repository.advice(for: probe)
    let words = try repository.index.read { db in
      try NoteIndex.inboxSlice(db, features: ["dentist", "orthodontist"], now: self.clock.now).notebooks["errands"]
    }
    let counted = 1 + InboxClassifier.correctionWeight / 2
    XCTAssertEqual(words?.terms["orthodontist"] ?? 0, counted, accuracy: 1e-9)
    XCTAssertEqual(words?.terms["dentist"] ?? 0, counted, accuracy: 1e-9, "left in the title only")
  }

  func testTheCountsAreBuiltOnlyWhenTheInboxIsUsedAndRebuiltWhenDeleted() throws {
    try repository.createNote(NoteDraft(title: "Plan", notebook: "work", content: "budget\n"))
    _ = try repository.notes(taggedWith: "x")
    XCTAssertNil(try repository.index.read { try NoteIndex.inboxCountsExclusion($0) }, "no inbox use: no counts")
    try repository.createNote(NoteDraft(title: "Plan two", notebook: "work", content: "budget again\n"))
    XCTAssertEqual(try repository.index.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM inbox_term") }, 0)
    let item = try repository.capture("budget question")
    let first = try repository.advice(for: item)
    XCTAssertEqual(try repository.index.read { try NoteIndex.inboxCountsExclusion($0) }, "inbox")
    // Derived data: deleting the index loses nothing.
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: repository.index.path + suffix) }
    repository = try openAnother()
    XCTAssertEqual(try repository.advice(for: item), first)
    try assertCountsMatchTheNotes("after the index was deleted")
  }
}

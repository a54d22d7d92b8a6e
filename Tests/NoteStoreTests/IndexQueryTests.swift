import Foundation
import GRDB
import NBTestSupport
import XCTest

@testable import NoteStore

/// Query trees answered by the index: words in every script, filters, negation, ranking, snippets, sorting, counts.
final class IndexQueryTests: NoteRepositoryTestCase {
  func found(_ expression: QueryExpression) throws -> [String] {
    try repository.notes(matching: expression, sort: .path).map(\.note.path)
  }

  func word(_ text: String, _ kind: TextMatch.Kind = .word, field: TextMatch.Field = .any) -> QueryExpression {
    .text(TextMatch(kind: kind, text: text, field: field))
  }

  func testWordsMatchAcrossCaseAndDiacritics() throws {
    try write("accented.md", "# Menu\n\nCafé crème et THÉ\n")
    try write("decomposed.md", "# Other\n\n" + "Café naïve".decomposedStringWithCanonicalMapping + "\n")
    try write("plain.md", "# Plain\n\ncafe without accents\n")
    XCTAssertEqual(try found(word("cafe")), ["accented.md", "decomposed.md", "plain.md"])
    XCTAssertEqual(try found(word("CAFÉ")), ["accented.md", "decomposed.md", "plain.md"])
    XCTAssertEqual(try found(word("naive")), ["decomposed.md"])
    XCTAssertEqual(try found(word("thé")), ["accented.md"])
    XCTAssertEqual(try found(word("creme")), ["accented.md"])
  }

  func testCJKBigramsFindWordsInsideRuns() throws {
    try write("tokyo.md", "# 旅行\n\n東京都庁に行きました。\n")
    try write("kana.md", "# カタカナ\n\nひらがなとカタカナ\n")
    try write("korean.md", "# 한국어\n\n서울특별시 여행\n")
    try write("mixed.md", "# Mixed\n\niPhone用のケース and 東京\n")
    XCTAssertEqual(try found(word("東京")), ["mixed.md", "tokyo.md"])
    XCTAssertEqual(try found(word("東京都")), ["tokyo.md"])
    XCTAssertEqual(try found(word("都庁")), ["tokyo.md"])
    XCTAssertEqual(try found(word("行きました")), ["tokyo.md"])
    XCTAssertEqual(try found(word("京都")), ["tokyo.md"], "a bigram inside 東京都")
    XCTAssertEqual(try found(word("大阪")), [])
    XCTAssertEqual(try found(word("がなと")), ["kana.md"])
    XCTAssertEqual(try found(word("특별")), ["korean.md"])
    XCTAssertEqual(try found(word("用")), ["mixed.md"], "one character is a prefix")
    XCTAssertEqual(try found(word("庁")), ["tokyo.md"], "one character inside a run")
    XCTAssertEqual(try found(word("京")), ["mixed.md", "tokyo.md"], "the last character of a run")
    XCTAssertEqual(try found(word("iphone")), ["mixed.md"])
    try write("osaka.md", "大阪 京都\n")
    XCTAssertEqual(try found(word("阪京")), [], "two runs are not one")
    XCTAssertEqual(try found(word("大阪 京都", .phrase)), ["osaka.md"])
    XCTAssertEqual(try found(word("旅行", field: .title)), ["tokyo.md"])
  }

  func testEmojiBreakNothing() throws {
    try write("emoji.md", "# Party 🎉\n\nlaunch🚀day with 👩‍👩‍👧 family\n")
    XCTAssertEqual(try found(word("party")), ["emoji.md"])
    XCTAssertEqual(try found(word("launch")), ["emoji.md"])
    XCTAssertEqual(try found(word("day")), ["emoji.md"])
    XCTAssertEqual(try found(word("🎉")), [])
    XCTAssertEqual(try found(.not(word("🎉"))), ["emoji.md"])
    XCTAssertEqual(try repository.notes(matching: NoteQuery("🚀")).count, 0)
  }

  func testPrefixPhraseAndQuotingOfOperators() throws {
    try write("a.md", "# A\n\nthe quarterly plan for NEAR term\n")
    try write("b.md", "# B\n\nplanning a quarterly review, plan\n")
    XCTAssertEqual(try found(word("plan", .prefix)), ["a.md", "b.md"])
    XCTAssertEqual(try found(word("plan")), ["a.md", "b.md"])
    XCTAssertEqual(try found(word("planning")), ["b.md"])
    XCTAssertEqual(try found(word("quarterly plan", .phrase)), ["a.md"])
    XCTAssertEqual(try found(word("NEAR")), ["a.md"])
    for hostile in ["\"", "a\"b", "AND", "OR", "NOT", "(", "plan)", "title:", "^plan", "*", "-"] {
      XCTAssertNoThrow(try found(word(hostile)), hostile)
      XCTAssertNoThrow(try found(word(hostile, .prefix)), hostile)
    }
    XCTAssertEqual(try found(word("plan)")), ["a.md", "b.md"])
  }

  func testTitleMatchRanksAboveBodyMatch() throws {
    try write("body.md", "# Something\n\nA long text that mentions budget once among many other words here.\n")
    try write("title.md", "# Budget\n\nNothing else.\n")
    try write("tags.md", "---\ntags: [budget]\n---\n# Tagged\n\nunrelated\n")
    let hits = try repository.notes(matching: word("budget"))
    XCTAssertEqual(hits.map(\.note.path), ["title.md", "tags.md", "body.md"])
    XCTAssertTrue(hits.allSatisfy { $0.score != nil })
    XCTAssertGreaterThan(hits[0].score!, hits[2].score!)
    XCTAssertEqual(try found(word("budget", field: .title)), ["title.md"])
  }

  func testSnippetsMarkTheMatchesInScalars() throws {
    try write("s.md", "# S\n\nfirst line\nthe café 🎉 is here\n")
    let hit = try XCTUnwrap(try repository.notes(matching: word("cafe")).first)
    let snippet = try XCTUnwrap(hit.snippet)
    XCTAssertFalse(snippet.text.contains("\n"))
    XCTAssertEqual(snippet.highlights.count, 1)
    let scalars = Array(snippet.text.unicodeScalars)
    let marked = String(String.UnicodeScalarView(scalars[snippet.highlights[0]]))
    XCTAssertEqual(marked, "café")
    try write("t.md", "---\ntitle: Budget\n---\nno match in body\n")
    XCTAssertNil(try repository.notes(matching: word("budget")).first?.snippet, "title-only match")
    XCTAssertNil(try repository.notes(matching: .all).first?.snippet)
  }

  func testFilters() throws {
    try write(
      "work/plan.md",
      "---\nid: AAAA1111-0000-4000-8000-000000000001\ntags: [Work/Meetings, q3]\ncreated: 2026-01-10T10:00:00Z\n"
        + "updated: 2026-03-01T10:00:00+01:00\n---\n# Plan\n")
    try write("work/deep/x.md", "---\ntags: [work]\ncreated: 2026-02-10\n---\n# X\n")
    try write("workshop/y.md", "---\ntags: [workshop]\nconflict_of: aaaa1111-0000-4000-8000-000000000001\n---\n# Y\n")
    try write("root.md", "# Root\n")
    try write("workshop/y.ink.jsonl", "{}\n")
    XCTAssertEqual(try found(.filter(.tag("work"))), ["work/deep/x.md", "work/plan.md"], "nested, case-insensitive")
    XCTAssertEqual(try found(.filter(.tag("#work/meetings"))), ["work/plan.md"])
    XCTAssertEqual(try found(.filter(.notebook("work"))), ["work/deep/x.md", "work/plan.md"])
    XCTAssertEqual(try found(.filter(.notebook("work/deep"))), ["work/deep/x.md"])
    XCTAssertEqual(try found(.filter(.path("SHOP/"))), ["workshop/y.md"])
    XCTAssertEqual(try found(.filter(.id("aaaa1111-0000-4000-8000-000000000001", prefix: false))), ["work/plan.md"])
    XCTAssertEqual(try found(.filter(.id("AAAA", prefix: true))), ["work/plan.md"])
    XCTAssertEqual(try found(.filter(.hasInk)), ["workshop/y.md"])
    XCTAssertEqual(try found(.filter(.isConflict)), ["workshop/y.md"])
    let january = DateRange(
      lower: Date(timeIntervalSince1970: 1_767_225_600), upper: Date(timeIntervalSince1970: 1_769_904_000))
    XCTAssertEqual(try found(.filter(.date(.created, january))), ["work/plan.md"])
    XCTAssertEqual(
      try found(.not(.filter(.date(.created, january)))), ["root.md", "work/deep/x.md", "workshop/y.md"],
      "a note without the date is outside the range")
    let sinceFebruary = DateRange(lower: Date(timeIntervalSince1970: 1_769_904_000))
    XCTAssertEqual(try found(.filter(.date(.created, sinceFebruary))), ["work/deep/x.md"])
    XCTAssertEqual(try found(.filter(.date(.updated, sinceFebruary))), ["work/plan.md"])
    XCTAssertEqual(try found(.not(.filter(.tag("work")))), ["root.md", "workshop/y.md"], "negation alone")
    XCTAssertEqual(try found(.or([.filter(.tag("q3")), word("root")])), ["root.md", "work/plan.md"])
    XCTAssertEqual(try found(.and([.filter(.notebook("work")), .not(word("plan"))])), ["work/deep/x.md"])
    // The ink sidecar goes: the note loses has:ink without changing itself.
    try FileManager.default.removeItem(at: url("workshop/y.ink.jsonl"))
    XCTAssertEqual(try found(.filter(.hasInk)), [])
    XCTAssertEqual(try repository.notes(matching: .filter(.isConflict)).first?.hasInk, false)
  }

  func testOtherFrontMatterKeysAreStoredTyped() throws {
    try write("t.md", "---\ndue: 2026-05-01\npriority: 2\nstatus: Done\nlabels: [x, y]\n---\n# T\n")
    _ = try repository.allNotes()
    let rows = try DatabaseQueue(path: repository.index.path).read { db in
      try Row.fetchAll(db, sql: "SELECT key, text, number, instant FROM field ORDER BY key, text")
    }
    XCTAssertEqual(rows.map { $0["key"] as String }, ["due", "labels", "labels", "priority", "status"])
    XCTAssertEqual(rows[0]["instant"] as Double?, 1_777_593_600)
    XCTAssertEqual(rows[3]["number"] as Double?, 2)
    XCTAssertNil(rows[4]["number"] as Double?)
  }

  func testSortingAndPaging() throws {
    try write("b.md", "---\ntitle: alpha\ncreated: 2026-01-02\nupdated: 2026-01-05\n---\nword\n")
    try write("a.md", "---\ntitle: Charlie\ncreated: 2026-01-03\n---\nword\n")
    try write("c.md", "---\ntitle: Bravo\ncreated: 2026-01-01\nupdated: 2026-01-09\n---\nword\n")
    func paths(_ sort: NoteQuery.Sort, reverse: Bool = false, limit: Int? = nil, offset: Int = 0) throws -> [String] {
      try repository.notes(matching: .all, sort: sort, reverse: reverse, limit: limit, offset: offset).map(\.note.path)
    }
    XCTAssertEqual(try paths(.path), ["a.md", "b.md", "c.md"])
    XCTAssertEqual(try paths(.path, reverse: true), ["c.md", "b.md", "a.md"])
    XCTAssertEqual(try paths(.title), ["b.md", "c.md", "a.md"])
    XCTAssertEqual(try paths(.created), ["a.md", "b.md", "c.md"])
    XCTAssertEqual(try paths(.updated), ["c.md", "b.md", "a.md"], "missing last")
    XCTAssertEqual(try paths(.updated, reverse: true), ["b.md", "c.md", "a.md"], "missing still last")
    XCTAssertEqual(try paths(.relevance), ["c.md", "b.md", "a.md"], "no words: as updated")
    XCTAssertEqual(try paths(.path, limit: 2, offset: 1), ["b.md", "c.md"])
    XCTAssertEqual(try repository.count(matching: NoteQuery("word")), 3)
    XCTAssertEqual(try repository.count(matching: NoteQuery("word nothing")), 0)
  }

  func testCountsEqualAFullScan() throws {
    try write("a.md", "---\ntags: [x, Y]\n---\n")
    try write("n/b.md", "---\ntags: [x]\n---\n")
    try write("n/m/c.md", "---\ntags: [y, z/w]\n---\n")
    try write("o/p/d.md", "# D\n")
    try write(".hidden/e.md", "# hidden\n")
    let scanned = repository.scanner.notes(in: "", recursive: true)
    var tagCounts: [String: Int] = [:]
    for note in scanned { for tag in note.tags { tagCounts[tag, default: 0] += 1 } }
    XCTAssertEqual(
      try repository.tagCounts(),
      tagCounts.map { TagCount(tag: $0.key, count: $0.value) }.sorted {
        $0.count != $1.count ? $0.count > $1.count : $0.tag < $1.tag
      })
    XCTAssertEqual(try repository.allNotes(), scanned)
    XCTAssertEqual(
      try repository.notebookCounts(),
      [
        NotebookCount(path: "", notes: 1, notesWithChildren: 4),
        NotebookCount(path: "n", notes: 1, notesWithChildren: 2),
        NotebookCount(path: "n/m", notes: 1, notesWithChildren: 1),
        NotebookCount(path: "o", notes: 0, notesWithChildren: 1),
        NotebookCount(path: "o/p", notes: 1, notesWithChildren: 1),
      ])
    XCTAssertEqual(try repository.notes(inNotebook: "n", recursive: true).map(\.path), ["n/b.md", "n/m/c.md"])
    XCTAssertEqual(try repository.notes(inNotebook: "n").map(\.path), ["n/b.md"])
    XCTAssertEqual(try repository.notes(taggedWith: "#X").map(\.path), ["a.md", "n/b.md"])
  }

  func testReindexReportsWhatItHolds() throws {
    for i in 0..<5 { try write("n\(i).md", "# N\(i)\n") }
    var steps: [Int] = []
    repository.progress = { _, done, _ in steps.append(done) }
    let report = try repository.reindex()
    XCTAssertEqual(report.notes, 5)
    XCTAssertGreaterThan(report.bytes, 0)
    XCTAssertEqual(try repository.allNotes().count, 5)
  }

  /// Many notes at once report progress (what the command line shows as a progress line).
  func testLargeBuildReportsProgress() throws {
    for i in 0..<250 { try write("bulk/n\(i).md", "# N\(i)\n\nbody \(i)\n") }
    var last: (Int, Int)?
    repository.progress = { _, done, total in last = (done, total) }
    XCTAssertEqual(try repository.allNotes().count, 250)
    XCTAssertEqual(last?.0, 250)
    XCTAssertEqual(last?.1, 250)
  }
}

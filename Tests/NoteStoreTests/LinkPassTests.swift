import GRDB
import XCTest

@testable import NoteStore

/// The pass over every link (`nb check links`, `is:orphan`, `is:dead-end`, `has:unresolved`) finds each link's note
/// by rowid wherever SQLite numbered it: the notes of a small repository give the same answers after their rowids
/// are moved far apart, past the dense table the pass keeps them in.
final class LinkPassTests: NoteRepositoryTestCase {
  struct Answers: Equatable {
    var check: LinkCheck
    var unresolved: [String]
    var orphans: [String]
    var deadEnds: [String]
  }

  func answers() throws -> Answers {
    try repository.index.read(walking: false) { db in
      let graph = try LinkGraph(db)
      func paths(_ rowids: Set<Int64>) throws -> [String] {
        try rowids.map { try String.fetchOne(db, sql: "SELECT path FROM note WHERE rowid = ?", arguments: [$0])! }
          .sorted()
      }
      return Answers(
        check: try NoteIndex.checkLinks(db), unresolved: try paths(graph.unresolved),
        orphans: try paths(graph.orphans), deadEnds: try paths(graph.deadEnds))
    }
  }

  func testEveryLinkIsFoundWhereverItsNoteIsNumbered() throws {
    try write("a.md", "# A\n\n[[b]] and [[missing]] and ![[pic.png]]\n")
    try write("d/b.md", "# B\n\nback to [[a]], down to [[#B]], over to [c](../c.md)\n")
    try write("c.md", "# C\n\nno links here\n")
    try write("lone.md", "# Lone\n")
    try write("d/twin.md", "# Twin\n")
    try write("e/twin.md", "# Twin\n")
    try write("f.md", "# F\n\n[[twin]]\n")
    try write("pic.png", "png")
    let before = try answers()
    XCTAssertEqual(before.check.links, 7)
    XCTAssertEqual(before.check.notes, 7)
    XCTAssertEqual(before.check.notesWithLinks, 3)
    XCTAssertEqual(before.check.toNotes, 4)
    XCTAssertEqual(before.check.sameNote, 1)
    XCTAssertEqual(before.check.toAttachments, 1)
    XCTAssertEqual(before.check.unresolved, 1)
    XCTAssertEqual(before.check.ambiguous, 1)
    XCTAssertEqual(before.check.problems.map { "\($0.source):\($0.target)" }, ["a.md:missing", "f.md:twin"])
    XCTAssertEqual(before.check.problems.last?.resolution, .note("d/twin.md", others: ["e/twin.md"]))
    XCTAssertEqual(before.unresolved, ["a.md"])
    XCTAssertEqual(before.orphans, ["e/twin.md", "lone.md"])
    XCTAssertEqual(before.deadEnds, ["c.md", "d/twin.md", "e/twin.md", "lone.md"])

    // One note far past the rest, one just past the dense table's reach, one at rowid 0.
    try repository.index.write { db in
      for (path, rowid) in [("d/b.md", Int64(1) << 40), ("lone.md", 5_000), ("c.md", 0)] {
        let old = try Int64.fetchOne(db, sql: "SELECT rowid FROM note WHERE path = ?", arguments: [path])!
        try db.execute(sql: "UPDATE note SET rowid = ? WHERE rowid = ?", arguments: [rowid, old])
        try db.execute(sql: "UPDATE link SET note = ? WHERE note = ?", arguments: [rowid, old])
      }
    }
    XCTAssertEqual(
      try repository.index.read(walking: false) { try Int64.fetchAll($0, sql: "SELECT rowid FROM note") }.max(),
      1 << 40)
    XCTAssertEqual(try answers(), before)
  }

  /// Two notes whose names are the same text in NFC and NFD are two files on Linux but one name to the resolver
  /// (Swift compares strings by canonical equivalence), which keeps one of them: the other shares its place, and the
  /// notes after it are not shifted (every note's relative link reads its own folder: a shifted note trapped).
  func testNotesWhoseNamesAreCanonicallyEquivalentShareOneFile() throws {
    let nfc = "Caf\u{E9}.md"
    let nfd = "Cafe\u{301}.md"
    try write(nfc, "# NFC\n\n[[./z]]\n")
    try write(nfd, "# NFD\n\n[[missing]] and [[./z]]\n")
    try write("z.md", "# Z\n\n[[./Caf\u{E9}]]\n")
    let answers = try answers()
    XCTAssertEqual(answers.check.notes, 3)
    XCTAssertEqual(answers.check.links, 4)
    XCTAssertEqual(answers.check.notesWithLinks, 3)
    XCTAssertEqual(answers.check.toNotes, 3)
    XCTAssertEqual(answers.check.unresolved, 1)
    XCTAssertEqual(answers.check.problems.map { Array($0.source.utf8) }, [Array(nfd.utf8)])
    XCTAssertEqual(answers.unresolved.map { Array($0.utf8) }, [Array(nfd.utf8)])
    XCTAssertEqual(answers.deadEnds, [])
    XCTAssertEqual(answers.orphans, [])
  }
}

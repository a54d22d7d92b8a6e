import Foundation
import GRDB
import NBTestSupport
import XCTest

@testable import NoteStore

/// Refreshing the index row by row: rows brought up to date in place (a note keeps its rowid, only changed values
/// are written) hold exactly what a rebuild from scratch holds, and a row recorded while its file could still change
/// unseen is trusted again only when the file's bytes are the ones it was made from.
final class IndexRefreshTests: NoteRepositoryTestCase {
  /// Every row of every table the notes fill, keyed by path instead of rowid, in one canonical order: what two
  /// indexes of the same notes must agree on. Stat data and raciness depend on when a row was written, not on the
  /// note, and are left out.
  private func dump(walking: Bool = true) throws -> [String] {
    try repository.index.read(walking: walking) { db in
      var lines: [String] = []
      func add(_ sql: String) throws {
        for row in try Row.fetchAll(db, sql: sql) {
          lines.append(row.databaseValues.map { "\($0)" }.joined(separator: " | "))
        }
      }
      let columns = NoteIndex.noteRowColumns.filter { !["size", "mtime", "ctime", "inode", "racy"].contains($0) }
      try add("SELECT 'note', \(columns.joined(separator: ", ")) FROM note ORDER BY path")
      try add(
        "SELECT 'fts', n.path, f.title, f.tags, f.body FROM fts f JOIN note n ON n.rowid = f.rowid ORDER BY n.path")
      try add(
        "SELECT 'tag', n.path, t.tag, t.folded FROM tag t JOIN note n ON n.rowid = t.note ORDER BY n.path, t.folded")
      try add(
        """
        SELECT 'field', n.path, f.key, f.text, f.folded, f.number, f.instant FROM field f
        JOIN note n ON n.rowid = f.note ORDER BY n.path, f.rowid
        """)
      try add(
        "SELECT 'task', n.path, t.* FROM task t JOIN note n ON n.rowid = t.note ORDER BY n.path, t.line")
      try add(
        """
        SELECT 'reminder', n.path, r.line, r.text FROM reminder r JOIN note n ON n.rowid = r.note
        ORDER BY n.path, r.line, r.text
        """)
      try add(
        """
        SELECT 'link', n.path, l.ordinal, \(NoteIndex.linkRowColumns.map { "l." + $0 }.joined(separator: ", "))
        FROM link l JOIN note n ON n.rowid = l.note ORDER BY n.path, l.ordinal
        """)
      try add("SELECT 'file', path, dir, name FROM file ORDER BY path")
      // The task rows name their note by rowid: the join above replaced it, the raw column must not differ.
      return lines.map { $0.replacingOccurrences(of: #"\| \d+ \| "#, with: "| # | ", options: .regularExpression) }
    }
  }

  private func note(_ index: Int, round: Int, random: inout SplitMix64) -> String {
    let tags = ["red", "blue", "work/x"].filter { _ in random.next() % 2 == 0 }
    var text = "---\ntitle: Note \(index) r\(random.next() % 3)\ntags: [\(tags.joined(separator: ", "))]\n"
    if random.next() % 2 == 0 { text += "status: open\ndue: 2026-12-0\(1 + random.next() % 9)\n" }
    if random.next() % 2 == 0 { text += "rating: \(random.next() % 5)\nrelated: \"[[n\(random.next() % 6)]]\"\n" }
    text += "---\n# Heading\n\n"
    for line in 0..<Int(random.next() % 6) {
      switch random.next() % 6 {
      case 0: text += "See [[n\(random.next() % 6)]] and [[n\(random.next() % 6)#Part|shown]].\n"
      case 1: text += "- [ ] task \(line) 📅 2026-12-1\(random.next() % 9)\n"
      case 2: text += "A [markdown](n\(random.next() % 6).md) link and ![[pic.png]] on round \(round).\n"
      case 3: text += "- [x] done \(line)\n"
      case 4: text += "Same line [[n1]] [[n1]] [[n2]].\n"
      default: text += "Plain words about plans \(random.next() % 4).\n"
      }
    }
    return text
  }

  func testRowsBroughtUpToDateInPlaceEqualARebuild() throws {
    var random = SplitMix64(seed: 7)
    try write("pic.png", Data([0x89, 0x50]))
    for i in 0..<6 { try write("\(i % 2 == 0 ? "a" : "b")/n\(i).md", note(i, round: 0, random: &random)) }
    XCTAssertEqual(try repository.allNotes().count, 6)
    for round in 1...12 {
      // Edits of every kind: links added, changed and dropped, tags, fields, tasks, titles; a note gone and back.
      for i in 0..<6 where random.next() % 3 != 0 {
        let path = "\(i % 2 == 0 ? "a" : "b")/n\(i).md"
        if random.next() % 7 == 0 {
          try? FileManager.default.removeItem(at: url(path))
        } else {
          try write(path, note(i, round: round, random: &random))
        }
      }
      _ = try repository.allNotes()
      let refreshed = try dump()
      _ = try repository.index.rebuild()
      XCTAssertEqual(refreshed, try dump(), "round \(round): the refreshed rows differ from a rebuild's")
    }
  }

  /// A rename rewriting hundreds of notes reads and parses them on every core (its plan and the index update after
  /// its commit): the plan must still be in path order with each note's own rewrite, and the rows brought up to date
  /// must be each note's own, exactly what a rebuild holds.
  func testARenameOfAManyLinkedNoteIndexesEachRewrittenNoteAsARebuildWould() throws {
    try write("hubs/Hub note.md", "The hub.\n\n## Part\n")
    let count = 300
    for i in 0..<count {
      let link = ["[[Hub note]]", "[[Hub note#Part|its part]]", "[hub](../hubs/Hub%20note.md)"][i % 3]
      try write(
        "n\(i % 4)/note-\(i).md",
        "---\ntitle: Note \(i)\ntags: [t\(i % 5)]\n---\n# Note \(i)\n\nWords \(i) then \(link).\n- [ ] task \(i)\n")
    }
    _ = try repository.save()
    let checked = [0, 1, 2, 151, 299]
    var before: [Int: String] = [:]
    for i in checked { before[i] = try read("n\(i % 4)/note-\(i).md") }
    let hub = try XCTUnwrap(try repository.allNotes().first { $0.path == "hubs/Hub note.md" })
    let moved = try repository.rename(hub, to: "Hub renamed")
    XCTAssertEqual(moved.links.notes.map(\.path), moved.links.notes.map(\.path).sorted())
    XCTAssertEqual(moved.links.notes.count, count)
    for i in checked {
      let path = "n\(i % 4)/note-\(i).md"
      let old = ["[[Hub note]]", "[[Hub note#Part|its part]]", "[hub](../hubs/Hub%20note.md)"][i % 3]
      let link = ["[[Hub renamed]]", "[[Hub renamed#Part|its part]]", "[hub](../hubs/Hub%20renamed.md)"][i % 3]
      XCTAssertEqual(try read(path), before[i]?.replacingOccurrences(of: old, with: link), path)
      XCTAssertEqual(moved.links.notes.first { $0.path == path }?.edits.map(\.new), [link.contains("%20") ? "../hubs/Hub%20renamed.md" : "Hub renamed"])
    }
    XCTAssertEqual(try repository.backlinks(to: "hubs/Hub renamed.md").count, count)
    let updated = try dump()
    _ = try repository.index.rebuild()
    XCTAssertEqual(updated, try dump(), "the rows updated after the rename differ from a rebuild's")
  }

  /// A rename records the rows of the notes it rewrites from their new bytes while it writes them, and gives them
  /// their files' stat data once they are in place: right after it, without any walk of the work tree, the index
  /// holds exactly what a rebuild holds, every row's stat data are its file's, and it reflects the new commit.
  func testARenameRecordsTheRowsOfTheNotesItWritesAsTheyAreWritten() throws {
    try write("hubs/Hub note.md", "The hub.\n\n## Part\n")
    for i in 0..<120 {
      let link = ["[[Hub note]]", "[[Hub note#Part|its part]]", "[hub](../hubs/Hub%20note.md)"][i % 3]
      try write(
        "n\(i % 3)/note-\(i).md", "---\ntitle: Note \(i)\ntags: [t\(i % 4)]\n---\nWords \(i), \(link).\n- [ ] task \(i)\n")
    }
    try write("n0/unlinked.md", "Nothing here links.\n")
    _ = try repository.save()
    XCTAssertEqual(try repository.backlinks(to: "hubs/Hub note.md").count, 120)
    let hub = try XCTUnwrap(try repository.allNotes().first { $0.path == "hubs/Hub note.md" })
    try repository.rename(hub, to: "Hub renamed")

    let recorded = try dump(walking: false)
    let head = try git.run("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
    let (meta, stats) = try repository.index.read(walking: false) { db in
      (
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'head'"),
        try Row.fetchAll(db, sql: "SELECT path, size, mtime, ctime, inode FROM note ORDER BY path")
      )
    }
    XCTAssertEqual(meta, head, "the index reflects the rename's commit")
    XCTAssertEqual(stats.count, 122)
    for row in stats {
      let path: String = row[0]
      let info = try XCTUnwrap(FileSystem.lstatInfo(url(path).path), path)
      XCTAssertEqual(
        [row[1], row[2], row[3], row[4]] as [Int64],
        [info.size, info.modifiedNanoseconds, info.changedNanoseconds, Int64(bitPattern: info.inode)],
        "\(path): the row's stat data are its file's")
    }
    _ = try repository.index.rebuild()
    XCTAssertEqual(recorded, try dump(walking: false), "the rows the rename recorded differ from a rebuild's")
    XCTAssertEqual(try repository.backlinks(to: "hubs/Hub renamed.md").count, 120)
  }

  /// A transaction that changes files after the batch its rows were recorded from (here: one of them written again)
  /// has every path recorded from disk instead: no row keeps the bytes of the batch.
  func testAChangeAfterTheEarlyRecordedBatchIsRecordedFromDisk() throws {
    try write("a.md", "First [[b]].\n")
    try write("b.md", "Bee.\n")
    _ = try repository.save()
    _ = try repository.allNotes()
    try repository.mutate { tx in
      tx.recordsIndexEarly = true
      try tx.write(all: [("a.md", Data("Other [[c]].\n".utf8)), ("b.md", Data("Bee two.\n".utf8))])
      // Of the same size: the stat data alone cannot tell.
      try tx.write("a.md", "Third [[d]].\n")
      tx.subject = "edit"
    }
    let recorded = try dump(walking: false)
    XCTAssertTrue(recorded.contains { $0.contains("Third [[d]].") }, recorded.joined(separator: "\n"))
    _ = try repository.index.rebuild()
    XCTAssertEqual(recorded, try dump(walking: false))
  }

  /// The rows a rename records are kept once its files are in place, before its commit lands: when the commit then
  /// fails and the old bytes are written back, the next query finds those rows stale and reads the notes again.
  func testRowsOfARenameWhoseCommitFailedAreFoundStale() throws {
    try write("hubs/Hub note.md", "The hub.\n")
    for i in 0..<3 { try write("n/note-\(i).md", "Note \(i) links [[Hub note]] here.\n") }
    _ = try repository.save()
    // As saved (nb gave each an id).
    let texts = try (0..<3).map { try read("n/note-\($0).md") }
    XCTAssertEqual(try repository.backlinks(to: "hubs/Hub note.md").count, 3)
    // git cannot store the rewritten notes' blobs: a file sits where their loose-object directory must go.
    let blockers = try blockLooseObjects(
      of: texts.map { $0.replacingOccurrences(of: "[[Hub note]]", with: "[[Hub renamed]]") })
    let hub = try XCTUnwrap(try repository.allNotes().first { $0.path == "hubs/Hub note.md" })
    XCTAssertThrowsError(try repository.rename(hub, to: "Hub renamed"))
    for blocker in blockers { try FileManager.default.removeItem(at: blocker) }
    for (i, text) in texts.enumerated() { XCTAssertEqual(try read("n/note-\(i).md"), text) }
    XCTAssertEqual(
      try repository.backlinks(to: "hubs/Hub note.md").map(\.source), texts.indices.map { "n/note-\($0).md" })
    XCTAssertEqual(try repository.search("renamed").count, 0)
    let refreshed = try dump()
    _ = try repository.index.rebuild()
    XCTAssertEqual(refreshed, try dump(), "rows of the failed rename survived the refresh")
  }

  /// Queries inside withConsistentIndex share one refresh: an edit another program makes after the first query is
  /// not seen by the second (one consistent state), a change the repository makes itself is, and the next call
  /// sees the other program's edit.
  func testQueriesInsideWithConsistentIndexShareOneRefresh() throws {
    try write("a.md", "---\ntitle: A\n---\nzebracorn\n")
    XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), 1)
    try repository.withConsistentIndex {
      XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), 1)
      try write("b.md", "---\ntitle: B\n---\nzebracorn\n")
      XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), 1, "the snapshot's state")
      try repository.withConsistentIndex {
        XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), 1, "nested: the same snapshot")
      }
      _ = try repository.createNote(NoteDraft(title: "C", content: "zebracorn"))
      // The write ends the snapshot: the next query refreshes and finds C, and b.md with it.
      XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), 3)
      try write("d.md", "---\ntitle: D\n---\nzebracorn\n")
      XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), 3)
    }
    XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), 4, "outside: fresh again")
    // A scoped query refreshes only its notebook: it does not make the snapshot fresh for everything.
    try repository.withConsistentIndex {
      try write("e.md", "---\ntitle: E\n---\nzebracorn\n")
      XCTAssertEqual(try repository.notes(matching: NoteQuery("zebracorn notebook:work")).count, 0)
      XCTAssertEqual(try repository.count(matching: NoteQuery("zebracorn")), 5)
    }
  }

  func testAConcurrentMapKeepsOrderAndEveryElement() {
    let numbers = Array(0..<10_000)
    XCTAssertEqual(numbers.concurrentMap { $0 * 3 }, numbers.map { $0 * 3 })
    XCTAssertEqual([5, 6].concurrentMap { $0 + 1 }, [6, 7])
    XCTAssertEqual([Int]().concurrentMap { $0 }, [])
  }

  /// The rowid of `path`'s row and its indexed title.
  private func row(_ path: String) throws -> (rowid: Int64, title: String, racy: Int64)? {
    try repository.index.read { db in
      try Row.fetchOne(db, sql: "SELECT rowid, title, racy FROM note WHERE path = ?", arguments: [path]).map {
        ($0[0], $0[1], $0[2])
      }
    }
  }

  /// Gives the row of `path` the file's current stat data, as if the file had been written again within the clock
  /// tick the row was recorded in (where stat data cannot tell the two versions apart), and `title` as its title,
  /// so a refresh that re-indexed the file would show.
  private func pretendSameTick(_ path: String, title: String) throws {
    let info = try XCTUnwrap(FileSystem.lstatInfo(url(path).path))
    try DatabaseQueue(path: repository.index.path).write { db in
      try db.execute(
        sql: "UPDATE note SET size = ?, mtime = ?, ctime = ?, inode = ?, title = ? WHERE path = ?",
        arguments: [
          info.size, info.modifiedNanoseconds, info.changedNanoseconds, Int64(bitPattern: info.inode), title, path,
        ])
    }
  }

  func testARacyRowIsConfirmedByItsBytesNotReadAgain() throws {
    try write("a/one.md", "---\ntitle: First\n---\nalpha\n")
    XCTAssertEqual(try repository.allNotes().map(\.title), ["First"])
    let recorded = try XCTUnwrap(try row("a/one.md"))
    XCTAssertNotEqual(recorded.racy, 0, "written just now: racy")
    XCTAssertNotEqual(recorded.racy, 1, "racy with the hash of its bytes")
    XCTAssertEqual(recorded.racy, NoteIndex.racyMarker(Journal.contentHash(try readData("a/one.md"))))

    // The same bytes under the same stat data: confirmed by reading them, not indexed again.
    try pretendSameTick("a/one.md", title: "Kept")
    XCTAssertEqual(try repository.allNotes().map(\.title), ["Kept"])

    // Other bytes of the same size under the same stat data: stale, read again.
    try write("a/one.md", "---\ntitle: Other\n---\nomega\n")
    try pretendSameTick("a/one.md", title: "Kept")
    XCTAssertEqual(try repository.allNotes().map(\.title), ["Other"])
    XCTAssertEqual(try row("a/one.md")?.rowid, recorded.rowid, "brought up to date in place")
  }

  func testARacyRowSettlesOnceItsFileIsOldEnough() throws {
    try write("a/one.md", "---\ntitle: First\n---\nalpha\n")
    XCTAssertEqual(try repository.allNotes().map(\.title), ["First"])
    XCTAssertNotEqual(try row("a/one.md")?.racy, 0)
    let old = Date().addingTimeInterval(-60)
    try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: url("a/one.md").path)
    // Its ctime is still now: the next refresh reads it again (its stat data changed), still racy.
    _ = try repository.allNotes()
    XCTAssertNotEqual(try row("a/one.md")?.racy, 0)
    Thread.sleep(forTimeInterval: Double(NoteIndex.racyNanoseconds) / 1e9 + 0.2)
    try pretendSameTick("a/one.md", title: "Kept")
    _ = try repository.allNotes()
    XCTAssertNotEqual(try row("a/one.md")?.racy, 0, "a few rows are confirmed again rather than written")
    XCTAssertEqual(try row("a/one.md")?.title, "Kept", "confirmed, not read into the index again")
    // The next refresh that writes anyway settles it.
    try write("b/other.md", "---\ntitle: Other\n---\nbeta\n")
    _ = try repository.allNotes()
    XCTAssertEqual(try row("a/one.md")?.racy, 0, "confirmed and old enough: trusted by its stat data from now on")
    XCTAssertEqual(try row("a/one.md")?.title, "Kept", "confirmed, not read again")
  }
}

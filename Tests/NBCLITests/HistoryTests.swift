import Foundation
import NBTestSupport
import XCTest

/// `nb history`: the commits that changed a note, newest first, following moves; real git (`log --follow`) is the
/// oracle for which commits those are.
final class HistoryTests: NBCLITestCase {
  func testHistoryFollowsAMove() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "one")
    try nbSucceeds("add", "Unrelated", "--content", "x")
    try nbSucceeds("edit", "roadmap", "--append", "two\n")
    try nbSucceeds("move", "roadmap", "work")
    try nbSucceeds("edit", "work/roadmap.md", "--append", "three\n")
    let entries = try assertNoCommit { try jsonArray("history", "work/roadmap.md", "--json") }
    let expectedCommits = try git.run("log", "--follow", "--format=%H", "--", "work/roadmap.md")
      .split(separator: "\n").map(String.init)
    XCTAssertEqual(expectedCommits.count, 4)
    XCTAssertEqual(entries.compactMap { $0["commit"] as? String }, expectedCommits)
    XCTAssertEqual(
      entries.compactMap { $0["subject"] as? String },
      [
        "nb: edit work/roadmap.md", "nb: move inbox/roadmap.md -> work/", "nb: edit inbox/roadmap.md",
        "nb: add inbox/roadmap.md",
      ])
    XCTAssertEqual(entries.compactMap { $0["change"] as? String }, ["modified", "renamed", "modified", "added"])
    XCTAssertEqual(
      entries.compactMap { $0["path"] as? String },
      ["work/roadmap.md", "work/roadmap.md", "inbox/roadmap.md", "inbox/roadmap.md"])
    XCTAssertEqual(entries[1]["previous_path"] as? String, "inbox/roadmap.md")
    let dates = try entries.map { try assertRFC3339($0["date"]) }
    XCTAssertEqual(dates, dates.sorted(by: >), "newest first")
  }

  func testLimitAndTextOutput() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "one")
    try nbSucceeds("edit", "roadmap", "--append", "two\n")
    try nbSucceeds("move", "roadmap", "archive")
    let limited = try jsonArray("history", "roadmap", "--limit", "2", "--json")
    XCTAssertEqual(
      limited.compactMap { $0["commit"] as? String },
      try git.run("log", "-2", "--format=%H").split(separator: "\n").map(String.init))
    let lines = try nbSucceeds("log", "archive/roadmap.md").stdout.split(separator: "\n")
    XCTAssertEqual(lines.count, 3)
    let head = try git.revParse("HEAD")
    XCTAssertTrue(lines[0].hasPrefix(String(head.prefix(8))), String(lines[0]))
    XCTAssertTrue(lines[0].contains("(from inbox/roadmap.md)"), String(lines[0]))
    XCTAssertTrue(lines[2].contains("nb: add inbox/roadmap.md"), String(lines[2]))
  }

  func testAMoveMadeWithGitAndAnEditInOneCommitIsFollowedById() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "one")
    let added = try git.revParse("HEAD")
    try FileManager.default.createDirectory(at: url("work"), withIntermediateDirectories: true)
    // Moved and rewritten so much that git's rename detection cannot pair the two files; the id still can.
    let id = try string(try noteJSON("roadmap"), "id")
    try git.run("mv", "inbox/roadmap.md", "work/plan.md")
    try write(
      "work/plan.md", "---\nid: \(id)\ntitle: Plan\n---\n" + String(repeating: "entirely new text\n", count: 20))
    try gitCommitAll("moved and rewritten by hand")
    let moved = try git.revParse("HEAD")
    let entries = try jsonArray("history", "work/plan.md", "--json")
    XCTAssertEqual(entries.compactMap { $0["commit"] as? String }, [moved, added])
    XCTAssertEqual(entries.first?["previous_path"] as? String, "inbox/roadmap.md")
  }

  /// A commit touching more than 50 notes names only 50 in `Nb-Note-Id:` trailers and counts the rest in one
  /// `Nb-Note-Ids-Omitted:` trailer (both read by git's own trailer parser); `nb history` of a note whose id was
  /// left out still lists that commit, because it follows paths and ids in the files, not the trailers.
  func testACommitOfMoreThanFiftyNotesCapsItsTrailersAndStaysInEachNotesHistory() throws {
    try makeRepository()
    let ids = (0..<60).map { _ in UUID().uuidString.lowercased() }
    for (index, id) in ids.enumerated() {
      try write(
        "work/note-\(index).md", "---\nid: \(id)\ntitle: Note \(index)\ntags: [old]\n---\nbody \(index)\n")
    }
    try gitCommitAll("60 notes made by hand")
    let setUp = try git.revParse("HEAD")
    try nbSucceeds("tag", "rename", "old", "new")
    let renamed = try git.revParse("HEAD")
    XCTAssertEqual(try git.run("rev-list", "--count", "\(setUp)..HEAD").trimmingCharacters(in: .newlines), "1")
    let named = try git.run("log", "-1", "--format=%(trailers:key=Nb-Note-Id,valueonly)")
      .split(separator: "\n").map(String.init)
    XCTAssertEqual(named.count, 50)
    XCTAssertTrue(Set(named).isSubset(of: Set(ids)))
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%(trailers:key=Nb-Note-Ids-Omitted,valueonly)")
        .trimmingCharacters(in: .newlines), "10")
    let message = try git.run("log", "-1", "--format=%B")
    // Subject, Nb-Device, 50 ids, the omitted count.
    XCTAssertLessThanOrEqual(message.split(separator: "\n").count, 1 + 1 + 50 + 1, message)

    let omitted = try XCTUnwrap(ids.firstIndex { !named.contains($0) })
    let entries = try jsonArray("history", "work/note-\(omitted).md", "--json")
    XCTAssertEqual(entries.compactMap { $0["commit"] as? String }, [renamed, setUp])
    XCTAssertEqual(entries.first?["change"] as? String, "modified")
    // By its id, too: the id is read from the stored files, not from the trailers.
    let byID = try jsonArray("history", ids[omitted], "--json")
    XCTAssertEqual(byID.compactMap { $0["commit"] as? String }, [renamed, setUp])
  }
}

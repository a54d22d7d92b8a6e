import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

final class NoteRepositoryTagTests: NoteRepositoryTestCase {
  private let idA = "aaaaaaaa-0000-4000-8000-000000000001"
  private let idB = "bbbbbbbb-0000-4000-8000-000000000002"
  private let idD = "dddddddd-0000-4000-8000-000000000004"

  /// Four notes written by other tools, each spelling tags its own way; `d.md` has none of the renamed tag.
  private func writeNotes() throws {
    try write(
      "work/a.md",
      "---\nid: \(idA)\ntitle: A\n# keep this comment\ntags: [plan, Q4, misc]  # trailing\n"
        + "updated: 2026-11-22T09:00:00+01:00\nextra: \"kept\"\n---\nbody a\n")
    try write(
      "work/b.md",
      "---\nid: \(idB)\ntags:\n- Plan\n- other\nmodified: 2026-11-22T09:00:00+01:00\n---\n# B\n")
    try write("c.md", "---\ntags: \"#plan other\"\ntitle:   C   \n---\nbody c\n")
    try write("d.md", "---\nid: \(idD)\ntags: [unrelated]\n---\nbody d\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "by hand")
  }

  func testListingAndLookupAreCaseInsensitive() throws {
    try writeNotes()
    let tags = try repository.tags()
    // plan: a, c; Plan: b (spelled differently, counted as written).
    XCTAssertEqual(tags.first, TagCount(tag: "other", count: 2))
    XCTAssertEqual(Set(tags.map(\.tag)), ["plan", "Plan", "Q4", "misc", "other", "unrelated"])
    XCTAssertEqual(try repository.notes(taggedWith: "#PLAN").map(\.path), ["c.md", "work/a.md", "work/b.md"])
    XCTAssertEqual(try repository.notes(taggedWith: "q4").map(\.path), ["work/a.md"])
  }

  func testRenameTagIsOneCommitAndTouchesOnlyTagAndUpdatedLines() throws {
    try writeNotes()
    let dBytes = try readData("d.md")
    let before = try commitCount()
    XCTAssertEqual(try repository.renameTag("Plan", to: "#planning"), 3)
    XCTAssertEqual(try commitCount(), before + 1)
    XCTAssertEqual(try lastSubject(), "nb: rename tag Plan -> planning (3 notes)")
    XCTAssertEqual(try changedFiles(), ["M\tc.md", "M\twork/a.md", "M\twork/b.md"])

    XCTAssertEqual(
      try read("work/a.md"),
      "---\nid: \(idA)\ntitle: A\n# keep this comment\ntags: [planning, Q4, misc]  # trailing\n"
        + "updated: 2026-11-22T10:07:01+01:00\nextra: \"kept\"\n---\nbody a\n")
    XCTAssertEqual(
      try read("work/b.md"),
      "---\nid: \(idB)\ntags:\n- planning\n- other\nmodified: 2026-11-22T10:07:01+01:00\n---\n# B\n")
    // c.md had no id: committing it through nb gives it one, as the first key.
    let idC = try XCTUnwrap(try idLine(of: "c.md"))
    XCTAssertTrue(isLowercaseUUID(idC), idC)
    XCTAssertEqual(
      try read("c.md"),
      "---\nid: \(idC)\ntags: [planning, other]\ntitle:   C   \nupdated: 2026-11-22T10:07:01+01:00\n---\nbody c\n")
    XCTAssertEqual(try readData("d.md"), dBytes)
    XCTAssertEqual(Set(try trailerIDs()), Set([idA, idB, idC]))
    try assertCleanAndSound()

    clock.advance(5)
    XCTAssertEqual(try repository.deleteTag("OTHER"), 2)
    XCTAssertEqual(try lastSubject(), "nb: delete tag OTHER (2 notes)")
    XCTAssertEqual(
      try read("work/b.md"),
      "---\nid: \(idB)\ntags:\n- planning\nmodified: 2026-11-22T10:07:06+01:00\n---\n# B\n")
    XCTAssertEqual(
      try read("c.md"),
      "---\nid: \(idC)\ntags: [planning]\ntitle:   C   \nupdated: 2026-11-22T10:07:06+01:00\n---\nbody c\n")
    try assertCleanAndSound()
  }

  func testRenameOntoATagTheNoteAlreadyHasMergesThem() throws {
    try writeNotes()
    XCTAssertEqual(try repository.renameTag("misc", to: "q4"), 1)
    XCTAssertTrue(try read("work/a.md").contains("\ntags: [plan, Q4]  # trailing\n"))
  }

  func testRenameOfUnusedTagMakesNoCommit() throws {
    try writeNotes()
    let before = try head()
    XCTAssertEqual(try repository.renameTag("nobody", to: "x"), 0)
    XCTAssertEqual(try repository.deleteTag("nobody"), 0)
    XCTAssertEqual(try head(), before)
  }

  func testBadNewTagNameChangesNothing() throws {
    try writeNotes()
    try assertRefusedWithNothingChanged { _ = try repository.renameTag("plan", to: "two words") }
    try assertRefusedWithNothingChanged { _ = try repository.renameTag("plan", to: "  #") }
  }

  func testStaleIndexLockIsReportedNeverDeletedAndNothingChanges() throws {
    try writeNotes()
    let lock = url(".git/index.lock")
    try Data().write(to: lock)
    let error = try assertRefusedWithNothingChanged { _ = try repository.renameTag("plan", to: "planning") }
    guard case .indexLocked(let path)? = error else { return XCTFail(String(describing: error)) }
    XCTAssertEqual(path, lock.path)
    XCTAssertTrue(error?.description.contains("index.lock") ?? false)
    XCTAssertTrue(FileManager.default.fileExists(atPath: lock.path), "nb must never delete index.lock")
  }

  /// The commit fails after every note was rewritten: git cannot store the new blob of `work/a.md` or `work/b.md`
  /// because a file sits where its loose-object directory must go. Every file must be put back byte for byte.
  func testFailedCommitRollsBackEveryFile() throws {
    try writeNotes()
    // The texts the rename would write (as in the test above), hashed by the real git to find their object paths.
    let rewritten = [
      "---\nid: \(idA)\ntitle: A\n# keep this comment\ntags: [planning, Q4, misc]  # trailing\n"
        + "updated: 2026-11-22T10:07:01+01:00\nextra: \"kept\"\n---\nbody a\n",
      "---\nid: \(idB)\ntags:\n- planning\n- other\nmodified: 2026-11-22T10:07:01+01:00\n---\n# B\n",
    ]
    let blockers = try blockLooseObjects(of: rewritten)
    try assertRefusedWithNothingChanged { _ = try repository.renameTag("plan", to: "planning") }
    for blocker in blockers { try FileManager.default.removeItem(at: blocker) }
    XCTAssertEqual(try git.run("diff", "--cached", "--name-only"), "", "the index must not keep the rolled-back edit")
    // And the repository keeps working afterwards, producing exactly the texts hashed above.
    XCTAssertEqual(try repository.renameTag("plan", to: "planning"), 3)
    XCTAssertEqual(try read("work/a.md"), rewritten[0])
    XCTAssertEqual(try read("work/b.md"), rewritten[1])
    try assertCleanAndSound()
  }
}

import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// Search and the NOTE-argument precedence: path, then id / id prefix, then title or stem.
final class NoteRepositoryQueryTests: NoteRepositoryTestCase {
  private let cafeID = "cafe0000-1111-4222-8333-444444444444"

  private func writeNotes() throws {
    try write(
      "inbox/alpha.md",
      "---\nid: 0a0a0a0a-0000-4000-8000-000000000001\ntags: [greek]\n---\n# Alpha\n\nThe quick brown fox.\n")
    try write(
      "work/alpha.md", "---\nid: 0b0b0b0b-0000-4000-8000-000000000002\ntitle: Alpha Two\n---\nmentions ALPHA.\n")
    try write("work/id-holder.md", "---\nid: \(cafeID)\ntitle: Id Holder\n---\n")
    try write(
      "inbox/cafe.md", "---\nid: 0c0c0c0c-0000-4000-8000-000000000003\ntitle: Cafe\naliases: [Coffee Shop]\n---\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "notes")
  }

  func testResolvePrecedence() throws {
    try writeNotes()
    XCTAssertEqual(try repository.resolve("inbox/alpha").path, "inbox/alpha.md")
    XCTAssertEqual(try repository.resolve("work/alpha.md").path, "work/alpha.md")
    XCTAssertEqual(try repository.resolve(cafeID.uppercased()).path, "work/id-holder.md")
    // "cafe" is an id prefix of one note and the title of another: the id level decides first.
    XCTAssertEqual(try repository.resolve("cafe").path, "work/id-holder.md")
    XCTAssertEqual(try repository.resolve("0b0b").path, "work/alpha.md")
    XCTAssertEqual(try repository.resolve("alpha two").path, "work/alpha.md")
    XCTAssertEqual(try repository.resolve("coffee shop").path, "inbox/cafe.md")
    XCTAssertEqual(try repository.resolve("ID-HOLDER").path, "work/id-holder.md")
    XCTAssertEqual(try repository.resolve(url("work/alpha.md").path).path, "work/alpha.md")
  }

  func testResolveFailuresNameTheCandidates() throws {
    try writeNotes()
    XCTAssertThrowsError(try repository.resolve("alpha")) { error in
      // "alpha" is inbox/alpha.md's title and work/alpha.md's stem.
      guard case NoteStoreError.ambiguousNote(let selector, let candidates)? = error as? NoteStoreError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(selector, "alpha")
      XCTAssertEqual(candidates, ["inbox/alpha.md", "work/alpha.md"])
      XCTAssertTrue("\(error)".contains("inbox/alpha.md, work/alpha.md"))
    }
    XCTAssertThrowsError(try repository.resolve("0a0")) { error in
      // Three characters are too short for an id prefix, and no title matches.
      guard case NoteStoreError.noteNotFound? = error as? NoteStoreError else { return XCTFail("\(error)") }
    }
    XCTAssertThrowsError(try repository.resolve("nothing at all"))
  }

  func testResolveRefusesPathsOutsideTheRepository() throws {
    try writeNotes()
    let outside = try temp.directory("outside")
    try Data("---\ntitle: Secret\n---\n".utf8).write(to: outside.appendingPathComponent("secret.md"))
    try FileManager.default.createSymbolicLink(
      at: url("inbox/link.md"), withDestinationURL: outside.appendingPathComponent("secret.md"))
    try FileManager.default.createSymbolicLink(at: url("door"), withDestinationURL: outside)
    for selector in [
      "../outside/secret.md", outside.appendingPathComponent("secret.md").path, "inbox/link.md",
      "door/secret.md", "/etc/passwd",
    ] {
      XCTAssertThrowsError(try repository.resolve(selector), selector) { error in
        guard case NoteStoreError.outsideRepository? = error as? NoteStoreError else {
          return XCTFail("\(selector): \(error)")
        }
      }
    }
  }

  func testSearchMatchesTitleTagsAndBodyCaseInsensitively() throws {
    try writeNotes()
    XCTAssertEqual(try repository.search("FOX").map(\.path), ["inbox/alpha.md"])
    XCTAssertEqual(try repository.search("Greek").map(\.path), ["inbox/alpha.md"])
    XCTAssertEqual(try repository.search("alpha").map(\.path), ["inbox/alpha.md", "work/alpha.md"])
    XCTAssertEqual(try repository.search("holder").map(\.path), ["work/id-holder.md"])
    XCTAssertEqual(try repository.search("zebra"), [])
    XCTAssertEqual(try repository.search("").count, 4)
  }

  func testNotesInNotebook() throws {
    try writeNotes()
    XCTAssertEqual(try repository.notes(inNotebook: "inbox").map(\.path), ["inbox/alpha.md", "inbox/cafe.md"])
    XCTAssertEqual(try repository.notes(inNotebook: "").map(\.path), [])
    XCTAssertEqual(try repository.notes(inNotebook: "", recursive: true).count, 4)
    XCTAssertThrowsError(try repository.notes(inNotebook: "missing"))
    XCTAssertThrowsError(try repository.notes(inNotebook: "../x"))
  }
}

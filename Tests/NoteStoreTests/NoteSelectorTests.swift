import TextFormat
import XCTest

@testable import NoteStore

final class NoteSelectorTests: XCTestCase {
  private let roadmap = Note(
    path: "work/projects/roadmap.md", id: "3f2a9c1e-0000-4000-8000-000000000001", title: "Roadmap",
    aliases: ["Plan 2027"])
  private let standup = Note(
    path: "work/standup.md", id: "3f2b0000-0000-4000-8000-000000000002", title: "Daily Standup")
  private let other = Note(path: "inbox/roadmap-2.md", id: "a1b2c3d4-0000-4000-8000-000000000003", title: "Roadmap")
  private let untitled = Note(path: "inbox/loose.md", id: nil, title: "loose")

  private var all: [Note] { [roadmap, standup, other, untitled] }

  func testPathWithAndWithoutExtension() {
    XCTAssertEqual(NoteSelector.resolve("work/projects/roadmap", in: all), .found(roadmap))
    XCTAssertEqual(NoteSelector.resolve("work/projects/roadmap.md", in: all), .found(roadmap))
    XCTAssertEqual(NoteSelector.resolve("./work/standup", in: all), .found(standup))
  }

  func testFullIDAnyCase() {
    XCTAssertEqual(NoteSelector.resolve("A1B2C3D4-0000-4000-8000-000000000003", in: all), .found(other))
  }

  func testUniqueIDPrefixOfFourOrMore() {
    XCTAssertEqual(NoteSelector.resolve("a1b2", in: all), .found(other))
    XCTAssertEqual(NoteSelector.resolve("3f2a9", in: all), .found(roadmap))
  }

  func testAmbiguousIDPrefixListsCandidatesInPathOrder() {
    XCTAssertEqual(NoteSelector.resolve("3f2", in: all), .none, "3 characters are too few to be an id prefix")
    XCTAssertEqual(NoteSelector.resolve("3f2a", in: all), .found(roadmap))
    XCTAssertEqual(NoteSelector.resolve("3f2", in: [roadmap, standup]), .none)
    let both = [roadmap, standup]
    XCTAssertEqual(NoteSelector.resolve("3f2a", in: both), .found(roadmap))
    XCTAssertEqual(
      NoteSelector.resolve("3f2b", in: both + [Note(path: "x.md", id: "3f2b1111-0000-4000-8000-0", title: "x")]),
      .ambiguous(
        [
          Note(path: "work/standup.md", id: standup.id, title: "Daily Standup"),
          Note(path: "x.md", id: "3f2b1111-0000-4000-8000-0", title: "x"),
        ].sorted { $0.path < $1.path }))
  }

  func testTitleIsCaseInsensitiveAndAmbiguityIsReported() {
    XCTAssertEqual(NoteSelector.resolve("daily standup", in: all), .found(standup))
    XCTAssertEqual(NoteSelector.resolve("ROADMAP", in: all), .ambiguous([other, roadmap]))
  }

  func testStemAndAlias() {
    XCTAssertEqual(NoteSelector.resolve("standup", in: all), .found(standup))
    XCTAssertEqual(NoteSelector.resolve("roadmap-2", in: all), .found(other))
    XCTAssertEqual(NoteSelector.resolve("plan 2027", in: all), .found(roadmap))
    XCTAssertEqual(NoteSelector.resolve("loose", in: all), .found(untitled))
  }

  func testPathBeatsTitle() {
    let titledLikeAPath = Note(path: "inbox/x.md", id: nil, title: "work/standup")
    XCTAssertEqual(NoteSelector.resolve("work/standup", in: all + [titledLikeAPath]), .found(standup))
  }

  func testNothingMatches() {
    XCTAssertEqual(NoteSelector.resolve("nothing", in: all), .none)
    XCTAssertEqual(NoteSelector.resolve("   ", in: all), .none)
    XCTAssertEqual(NoteSelector.resolve("ffff", in: all), .none)
  }
}

final class CommitMessageTests: XCTestCase {
  func testSubjectAndOneTrailerPerNote() {
    let message = CommitMessage.make("save 2 notes", noteIDs: ["a", "b", "a"])
    XCTAssertEqual(message, "nb: save 2 notes\n\nNb-Note-Id: a\nNb-Note-Id: b\n")
    XCTAssertEqual(CommitMessage.noteIDs(in: message), ["a", "b"])
  }

  /// 50 distinct ids are all named; the 51st and later are only counted, in a trailer of the same block.
  func testTrailersAreCappedAtFiftyThenCounted() {
    let fifty = (1...50).map { "id\($0)" }
    let all = CommitMessage.make("save 50 notes", noteIDs: fifty + ["id1"])
    XCTAssertEqual(CommitMessage.noteIDs(in: all), fifty)
    XCTAssertFalse(all.contains("Nb-Note-Ids-Omitted"), all)

    let many = (1...6_000).map { "id\($0)" }
    let capped = CommitMessage.make("adopt 6000 notes", noteIDs: many + many)
    XCTAssertEqual(CommitMessage.noteIDs(in: capped), Array(many.prefix(50)))
    XCTAssertTrue(capped.hasSuffix("\nNb-Note-Id: id50\nNb-Note-Ids-Omitted: 5950\n"), capped)
    XCTAssertEqual(capped.split(separator: "\n", omittingEmptySubsequences: false).count, 1 + 1 + 50 + 1 + 1)
  }

  /// The device trailer opens the block, outside the cap, and is read back only from the trailer paragraph.
  func testDeviceTrailerIsWrittenOnceAndReadBack() {
    let many = (1...60).map { "id\($0)" }
    let message = CommitMessage.make("save 60 notes", noteIDs: many, device: "My\nLaptop")
    XCTAssertTrue(message.hasPrefix("nb: save 60 notes\n\nNb-Device: My Laptop\nNb-Note-Id: id1\n"), message)
    XCTAssertEqual(CommitMessage.noteIDs(in: message).count, 50)
    XCTAssertEqual(CommitMessage.device(in: message), "My Laptop")
    XCTAssertEqual(
      CommitMessage.make("create notebook work", device: "pad"), "nb: create notebook work\n\nNb-Device: pad\n")
    XCTAssertNil(CommitMessage.device(in: "edit by hand\n"))
    XCTAssertNil(CommitMessage.device(in: "edit\n\nNb-Device: quoted in the body\n\nSigned-off-by: x\n"))
  }

  func testNoTrailersWithoutNotes() {
    XCTAssertEqual(CommitMessage.make("create notebook work"), "nb: create notebook work\n")
  }

  func testCount() {
    XCTAssertEqual(counted(1, "note"), "1 note")
    XCTAssertEqual(counted(0, "note"), "0 notes")
  }
}

final class NoteIDTests: XCTestCase {
  func testVersion4LowerCase() {
    for _ in 0..<200 {
      let id = NoteID.make()
      XCTAssertTrue(NoteID.isWellFormed(id), id)
      XCTAssertEqual(id, id.lowercased())
      let characters = Array(id)
      XCTAssertEqual(characters[14], "4", id)
      XCTAssertTrue("89ab".contains(characters[19]), id)
    }
  }

  func testPrefixesDifferBetweenIdsMadeTogether() {
    // Short prefixes are how people name notes; ids minted in one burst must not share them.
    let prefixes = Set((0..<50).map { _ in String(NoteID.make().prefix(6)) })
    XCTAssertGreaterThan(prefixes.count, 45)
  }

  func testWellFormed() {
    XCTAssertTrue(NoteID.isWellFormed("0193F6A2-7C1E-7B3A-9D2E-5F4C3B2A1908"))
    XCTAssertFalse(NoteID.isWellFormed("0193f6a2-7c1e-7b3a-9d2e"))
    XCTAssertFalse(NoteID.isWellFormed("0193f6a2-7c1e-7b3a-9d2e-5f4c3b2a190g"))
  }
}

final class RepoPathsTests: XCTestCase {
  func testParts() {
    XCTAssertEqual(RepoPaths.directory(of: "a/b/c.md"), "a/b")
    XCTAssertEqual(RepoPaths.directory(of: "c.md"), "")
    XCTAssertEqual(RepoPaths.stem(of: "a/b/c.md"), "c")
    XCTAssertEqual(RepoPaths.join("", "c.md"), "c.md")
    XCTAssertEqual(RepoPaths.join("a", "c.md"), "a/c.md")
  }

  func testInside() {
    XCTAssertTrue(RepoPaths.isInside("work/a.md", directory: "work"))
    XCTAssertFalse(RepoPaths.isInside("workshop/a.md", directory: "work"))
    XCTAssertTrue(RepoPaths.isInside("anything", directory: ""))
  }

  func testSidecarsShareTheStem() {
    XCTAssertEqual(RepoPaths.sidecars(of: "work/roadmap.md"), ["work/roadmap.ink.jsonl"])
  }

  func testNotePaths() {
    XCTAssertTrue(RepoPaths.isNotePath("work/roadmap.md"))
    XCTAssertFalse(RepoPaths.isNotePath("work/.hidden.md"))
    XCTAssertFalse(RepoPaths.isNotePath("work/roadmap.ink.jsonl"))
  }
}

import Foundation
import XCTest

@testable import NoteStore

/// The policy over stored files known by content id, as sync hands them over from git: what is the same on every
/// side is never read, what changed is read once, and a kept file stays the stored file it was.
final class MergeStoredContentTests: XCTestCase {
  private let now = Date(timeIntervalSince1970: 1_795_321_600)
  private let id = "0a0a0a0a-0000-4000-8000-000000000001"

  /// Counts reads per content id.
  private final class Reads {
    var count: [String: Int] = [:]
  }

  private func stored(_ contentID: String, _ text: String, reads: Reads, time: TimeInterval = 0) -> FileVersion {
    FileVersion(
      content: .stored(id: contentID) {
        reads.count[contentID, default: 0] += 1
        return Data(text.utf8)
      }, commitTime: Date(timeIntervalSince1970: 1_795_000_000 + time))
  }

  func testFilesTheSameOnEverySideAreNeverRead() {
    let reads = Reads()
    let note = "---\nid: \(id)\n---\nsame\n"
    func side(_ changed: String, _ changedID: String) -> [String: FileVersion] {
      [
        "a/same.md": stored("s1", note, reads: reads),
        "a/same.ink.jsonl": stored("s2", "{}\n", reads: reads),
        "picture.png": stored("s3", "png", reads: reads),
        "a/changed.md": stored(changedID, changed, reads: reads),
      ]
    }
    let base = side("---\ntitle: x\n---\nbase\n", "c0")
    let ours = side("---\ntitle: x\n---\nbase\nours\n", "c1")
    let theirs = side("---\ntitle: x\n---\ntheirs\nbase\n", "c2")
    guard
      case .merged(let tree, let report) = SyncPolicy.merge(
        base: base, ours: ours, theirs: theirs, device: "laptop", now: now)
    else { return XCTFail("not merged") }
    XCTAssertEqual(reads.count["s1"], nil)
    XCTAssertEqual(reads.count["s2"], nil)
    XCTAssertEqual(reads.count["s3"], nil)
    XCTAssertEqual(tree["a/same.md"]?.storedID, "s1")
    XCTAssertEqual(tree["a/same.ink.jsonl"]?.storedID, "s2")
    XCTAssertEqual(tree["picture.png"]?.storedID, "s3")
    // The changed note was read (once per side) and merged line by line.
    XCTAssertEqual(reads.count["c0"], 1)
    XCTAssertEqual(reads.count["c1"], 1)
    XCTAssertEqual(reads.count["c2"], 1)
    XCTAssertEqual(report.merged, ["a/changed.md"])
    XCTAssertNil(tree["a/changed.md"]?.storedID)
    XCTAssertEqual(tree["a/changed.md"]?.data, Data("---\ntitle: x\n---\ntheirs\nbase\nours\n".utf8))
  }

  /// A note the same on every side whose sidecar both sides drew on (and that cannot be merged stroke by stroke) is
  /// matched unread; its conflict copy must still get an id of its own and name the note it came from, or two notes
  /// would share one id.
  func testAConflictCopyOfANoteMatchedUnreadGetsItsOwnID() {
    let reads = Reads()
    let note = "---\nid: \(id)\ntitle: Drawn\n---\nsame text\n"
    func side(_ sidecarID: String, _ sidecar: String, time: TimeInterval) -> [String: FileVersion] {
      [
        "a/drawn.md": stored("n", note, reads: reads),
        "a/drawn.ink.jsonl": stored(sidecarID, sidecar, reads: reads, time: time),
      ]
    }
    guard
      case .merged(let tree, let report) = SyncPolicy.merge(
        base: side("i0", "{\"base\":0}\n", time: 0), ours: side("i1", "{\"ours\":1}\n", time: 10),
        theirs: side("i2", "{\"theirs\":2}\n", time: 20), device: "laptop", now: now)
    else { return XCTFail("not merged") }
    XCTAssertEqual(report.conflicts.count, 1)
    guard let copy = report.conflicts.first?.loserPath, let bytes = tree[copy]?.data else {
      return XCTFail("no conflict copy: \(report)")
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let identity = try? FrontMatter.readIdentity(text)
    XCTAssertNotNil(identity?.id)
    XCTAssertNotEqual(identity?.id, id, "the copy has an id of its own")
    XCTAssertTrue(text.contains("conflict_of: \(id)"), text)
    XCTAssertTrue(text.contains("same text"), text)
    XCTAssertEqual(report.warnings, [], "nothing says the note is not text")
    XCTAssertEqual(tree["a/drawn.md"]?.storedID, "n")
  }

  func testAFileChangedOnBothSidesIsDecidedByIdsAndKeptUnread() {
    let reads = Reads()
    let base = ["data.bin": stored("b", "base", reads: reads)]
    let ours = ["data.bin": stored("o", "ours", reads: reads, time: 10)]
    let theirs = ["data.bin": stored("t", "theirs", reads: reads, time: 20)]
    guard
      case .merged(let tree, let report) = SyncPolicy.merge(
        base: base, ours: ours, theirs: theirs, device: "laptop", now: now)
    else { return XCTFail("not merged") }
    XCTAssertEqual(reads.count, [:], "no bytes were needed to decide")
    XCTAssertEqual(tree["data.bin"]?.storedID, "t", "the later change keeps the path, the stored file itself")
    XCTAssertEqual(tree.count, 1, "the other version stays in history, not in a copy")
    XCTAssertEqual(report.conflicts, [])
  }

  func testAStoredVersionAndBytesInHandCompareByContent() {
    let reads = Reads()
    XCTAssertEqual(stored("x", "same", reads: reads).content, .bytes(Data("same".utf8)))
    XCTAssertNotEqual(stored("y", "other", reads: reads).content, .bytes(Data("same".utf8)))
    XCTAssertEqual(stored("z", "a", reads: reads).content, stored("z", "b", reads: reads).content, "equal ids")
    XCTAssertEqual(reads.count, ["x": 1, "y": 1])
  }

  func testAStoredFileThatCannotBeReadIsNotMistakenForAMissingSidecar() {
    let version = FileVersion(content: .stored(id: "gone") { nil }, commitTime: now)
    let present = FileContent.bytes(Data("{\"nbink\":1}\n".utf8))
    guard case .unreadable = SyncPolicy.mergeInk(base: present, ours: version.content, theirs: present, later: .ours)
    else { return XCTFail("an unreadable sidecar must not merge as absent") }
  }
}

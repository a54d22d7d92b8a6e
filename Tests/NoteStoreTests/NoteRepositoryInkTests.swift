import Foundation
import GitKit
import InkKit
import NBTestSupport
import XCTest

@testable import NoteStore

/// The library's ink API, the way an app embedding NoteStore would use it: value edits, one commit each.
final class NoteRepositoryInkTests: NoteRepositoryTestCase {
  func stroke(_ id: String, x: Double) -> InkStroke {
    InkStroke(
      id: id, ink: .pencil, color: InkColor(hex: "3366ffff")!, channels: [.force],
      points: [InkPoint(x: x, y: 10, force: 0.5), InkPoint(x: x + 5, y: 12, force: 0.75)])
  }

  func testEditsAreOneCommitEachAndStampTheNote() throws {
    let note = try repository.createNote(NoteDraft(title: "Sketch", content: "drawing below\n"))
    let commits = try commitCount()
    try repository.editInk(of: note, subject: "looked, drew nothing") { _ in }
    XCTAssertFalse(exists("inbox/sketch.ink.jsonl"), "no drawing, no sidecar")
    XCTAssertEqual(try commitCount(), commits)
    clock.advance(60)
    let drawn = try repository.editInk(of: note, subject: "ink add") { document in
      try document.add(stroke("one", x: 1))
      try document.add(stroke("two", x: 20))
    }
    XCTAssertEqual(try commitCount(), commits + 1)
    XCTAssertGreaterThan(try XCTUnwrap(drawn.updated).date, try XCTUnwrap(note.updated).date)
    XCTAssertEqual(
      try git.run(arguments: ["show", "--name-only", "--format=", "HEAD"]),
      "inbox/sketch.ink.jsonl\ninbox/sketch.md\n")
    // The file is the documented canonical form: FORMAT.md's header, then one line per stroke.
    let lines = try read("inbox/sketch.ink.jsonl").split(separator: "\n")
    XCTAssertEqual(lines.count, 3)
    XCTAssertEqual(
      String(lines[0]), #"{"nbink":1,"unit":"pt","q":{"xy":100,"t":1000,"wh":100,"o":1000,"f":1000,"ang":1000}}"#)
    XCTAssertTrue(lines[1].hasPrefix(#"{"k":"s","id":"one","#), String(lines[1]))
    XCTAssertTrue(lines[1].hasSuffix(#""x":[100,500],"y":[1000,200],"f":[500,250]}"#), String(lines[1]))

    // Erase, split and reorder are each one commit too; a change that changes nothing commits nothing.
    try repository.editInk(of: drawn, subject: "ink erase") { $0.erase(id: "one") }
    try repository.editInk(of: drawn, subject: "ink split") { document in
      _ = try document.split(id: "two", keeping: [0..<1, 1..<2])
    }
    XCTAssertEqual(try commitCount(), commits + 3)
    try repository.editInk(of: drawn, subject: "nothing") { _ in }
    XCTAssertEqual(try commitCount(), commits + 3)
    let pieces = try XCTUnwrap(try repository.ink(of: drawn)).drawingOrder
    XCTAssertEqual(pieces.map(\.parent), ["two", "two"])
    XCTAssertEqual(pieces.map { $0.points.map(\.x) }, [[20], [25]])
  }

  func testADrawingNbCouldNotReadBackIsNotSaved() throws {
    let note = try repository.createNote(NoteDraft(title: "Sketch", content: "x\n"))
    let commits = try commitCount()
    // Values set directly, bypassing add(): two strokes with one id.
    var drawing = InkDocument()
    drawing.strokes = [stroke("twin", x: 1), stroke("twin", x: 2)]
    XCTAssertThrowsError(try repository.saveInk(drawing, for: note)) { error in
      XCTAssertTrue("\(error)".contains("cannot be saved"), "\(error)")
      XCTAssertTrue("\(error)".contains("twin"), "\(error)")
    }
    XCTAssertFalse(exists("inbox/sketch.ink.jsonl"))
    XCTAssertEqual(try commitCount(), commits)
  }

  func testTheInProcessDriverMergesInkInLibgit2Merges() throws {
    // nb never runs a libgit2 merge, so nothing in it registers a driver: whoever does (an app embedding NoteStore,
    // this test) registers InkMerge under the name .gitattributes from nb init gives *.ink.jsonl. Without edit times
    // a stroke changed on both sides keeps the version whose line sorts last.
    let inkMergeDriver = "nb-ink"
    try MergeDrivers.register(name: inkMergeDriver) { input in
      guard let ours = input.ours, let theirs = input.theirs else { return .conflict }
      guard let merged = InkMerge.merge(base: input.ancestor, ours: ours, theirs: theirs, later: .unknown) else {
        return .conflict
      }
      return .merged(merged)
    }
    XCTAssertTrue(MergeDrivers.isRegistered(name: inkMergeDriver))
    let note = try repository.createNote(NoteDraft(title: "Sketch", content: "x\n"))
    try repository.editInk(of: note, subject: "base") { try $0.add(stroke("base", x: 0)) }
    let base = try git.revParse("HEAD")
    try repository.editInk(of: note, subject: "ours") { try $0.add(stroke("ours", x: 10)) }
    let ours = try git.revParse("HEAD")
    try git.run(arguments: ["checkout", "-q", "-b", "other", base])
    let other = try openAnother()
    try other.editInk(of: note, subject: "theirs") { document in
      document.erase(id: "base")
      try document.add(stroke("theirs", x: 30))
    }
    let theirs = try git.revParse("HEAD")
    try git.run(arguments: ["checkout", "-q", "main"])

    let gitRepository = try Repository.open(at: root)
    let result = try gitRepository.mergeTrees(
      ancestor: try XCTUnwrap(ObjectID(hex: base)), ours: try XCTUnwrap(ObjectID(hex: ours)),
      theirs: try XCTUnwrap(ObjectID(hex: theirs)))
    guard case .merged(let tree) = result else { return XCTFail("expected a clean merge, got \(result)") }
    let merged = try git.run(arguments: ["cat-file", "-p", "\(tree):inbox/sketch.ink.jsonl"])
    let strokes = try InkCodec.parse(Data(merged.utf8)).strokes.map(\.id)
    XCTAssertEqual(Set(strokes), ["ours", "theirs"], "base erased on one side, one stroke added on each")
    XCTAssertEqual(strokes.count, 2)
  }
}

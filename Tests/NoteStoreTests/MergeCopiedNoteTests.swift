import Foundation
import XCTest

@testable import NoteStore

/// A note copied on another device (`cp a.md b.md` with git alone) carries its original's id: sync must keep the two
/// notes apart and give the copy an id of its own.
final class MergeCopiedNoteTests: XCTestCase {
  private let now = Date(timeIntervalSince1970: 1_795_321_600)
  private let id = "0a0a0a0a-0000-4000-8000-000000000001"

  private func tree(_ pairs: [String: String]) -> [String: FileVersion] {
    pairs.mapValues { FileVersion(bytes: Data($0.utf8), commitTime: Date(timeIntervalSince1970: 1_795_000_000)) }
  }

  private func note(_ body: String, updated: String = "2026-11-21T08:00:00Z") -> String {
    "---\nid: \(id)\nupdated: \(updated)\n---\n\(body)"
  }

  func testACopyArrivingWithItsOriginalsIDIsNeverMergedIntoTheOriginal() throws {
    // The copy's path sorts before the original's, so matching by id alone would pair the copy with our note.
    let base = tree(["n/plan.md": note("line one\nline two\n")])
    let ours = tree(["n/plan.md": note("line one\nline two\nours\n", updated: "2026-11-21T09:00:00Z")])
    let theirs = tree([
      "n/plan.md": note("line one\nline two\n"),
      "n/0-copy.md": note("a different note now\n", updated: "2026-11-21T10:00:00Z"),
    ])
    guard
      case .resolved(let result, let report) = SyncPolicy.resolve(
        base: base, ours: ours, theirs: theirs, device: "laptop", now: now)
    else { return XCTFail("not resolved") }
    let text = result.mapValues { String(decoding: $0, as: UTF8.self) }
    XCTAssertEqual(text["n/plan.md"], note("line one\nline two\nours\n", updated: "2026-11-21T09:00:00Z"))
    let copy = try XCTUnwrap(text["n/0-copy.md"])
    XCTAssertTrue(copy.hasSuffix("---\na different note now\n"), copy)
    let copyID = try XCTUnwrap(try FrontMatter.read(copy).id)
    XCTAssertNotEqual(copyID, id)
    XCTAssertTrue(NoteID.isWellFormed(copyID))
    XCTAssertEqual(report.conflicts, [])
    XCTAssertEqual(report.merged, [])
    XCTAssertEqual(report.warnings.count, 1)
    XCTAssertTrue(report.warnings[0].contains("n/0-copy.md"), report.warnings[0])
    XCTAssertEqual(result.count, 2)
  }
}

import Foundation
import XCTest

@testable import NoteStore

/// Sanity bounds (not benchmarks) showing that reading and editing stay linear on very large notes.
final class FrontMatterLargeInputTests: XCTestCase {
  private func seconds(_ work: () throws -> Void) rethrows -> Double {
    let start = Date()
    try work()
    return Date().timeIntervalSince(start)
  }

  func testTwentyMegabyteBodyReadsAndEditsQuickly() throws {
    let line = "Lorem ipsum dolor sit amet, consectetur adipiscing — ünïcödé 🎉 `code` and # not a heading\r\n"
    let lineCount = 20_000_000 / line.utf8.count
    var body = String()
    body.reserveCapacity(lineCount * line.utf8.count + 64)
    for _ in 0..<lineCount { body += line }
    // The only heading sits at the very end, so finding it means scanning the whole body.
    body += "# Last heading\r\n"
    let text = "---\r\ntitle: Big\r\nupdated: 2020-01-01T00:00:00Z\r\n---\r\n" + body
    XCTAssertGreaterThan(text.utf8.count, 19_000_000)

    var metadata: NoteMetadata?
    let readTime = try seconds { metadata = try FrontMatter.read(text) }
    XCTAssertEqual(metadata?.title, "Big")
    XCTAssertEqual(metadata?.firstHeading, "Last heading")

    let stamp = Timestamp(rfc3339: "2026-11-22T10:15:03+01:00")!
    var edited = ""
    let editTime = try seconds {
      edited = try FrontMatter.settingUpdated(stamp, in: text)
      edited = try FrontMatter.setting("id", to: "abc", in: edited)
      edited = try FrontMatter.settingTags(["a", "b"], in: edited)
    }
    let expectedHead = "---\r\nid: abc\r\ntitle: Big\r\nupdated: 2026-11-22T10:15:03+01:00\r\ntags: [a, b]\r\n---\r\n"
    XCTAssertTrue(edited.hasPrefix(expectedHead))
    XCTAssertEqual(edited.utf8.count, expectedHead.utf8.count + body.utf8.count)
    XCTAssertTrue(FrontMatter.body(of: edited) == body[...])

    // Generous bounds for debug builds on a shared machine; a quadratic scan would take minutes.
    XCTAssertLessThan(readTime, 2, "read took \(readTime) s")
    XCTAssertLessThan(editTime, 2, "three edits took \(editTime) s")
  }

  func testLongFrontMatterIsLinear() throws {
    var lines = ["---", "title: Long"]
    for index in 0..<20_000 { lines.append("key\(index): value \(index) # comment") }
    lines.append("tags:")
    for index in 0..<5_000 { lines.append("  - t\(index)") }
    lines.append("---")
    let text = lines.joined(separator: "\n") + "\nbody\n"
    var result = ""
    let time = try seconds {
      result = try FrontMatter.settingTags(["only"], in: text)
      XCTAssertEqual(try FrontMatter.read(result).tags, ["only"])
    }
    XCTAssertTrue(result.hasSuffix("key19999: value 19999 # comment\ntags:\n  - only\n---\nbody\n"))
    XCTAssertLessThan(time, 10, "took \(time) s")
  }

  func testAliasBombDoesNotHangAnEdit() throws {
    // Each level doubles the size of the expanded tree: 2^40 leaves if anything walked it in full.
    var lines = ["---", "l0: &l0 [x, x]"]
    for level in 1...40 { lines.append("l\(level): &l\(level) [*l\(level - 1), *l\(level - 1)]") }
    lines.append("---")
    let text = lines.joined(separator: "\n") + "\n"
    let start = Date()
    XCTAssertNil(try FrontMatter.read(text).title)
    XCTAssertThrowsError(try FrontMatter.setting("title", to: "x", in: text)) { error in
      guard case .cannotEdit(key: "title", _, _)? = error as? FrontMatterError else { return XCTFail("\(error)") }
    }
    XCTAssertLessThan(Date().timeIntervalSince(start), 10)
  }
}

import Foundation
import XCTest

@testable import NoteStore

/// `ParsedNotes.prefetch` reads stored notes one at a time and parses them on every core: each stored file must be
/// read once, and what `read` answers afterwards must be what parsing it on the spot gives.
final class ParsedNotesTests: XCTestCase {
  private final class Reads {
    let lock = NSLock()
    var count: [String: Int] = [:]
    func record(_ id: String) {
      lock.lock()
      count[id, default: 0] += 1
      lock.unlock()
    }
  }

  func testPrefetchReadsEachStoredFileOnceAndParsesAsReadWould() {
    let reads = Reads()
    // Enough for the parallel path (it starts at 64), with duplicates, a note without front matter, broken YAML
    // and bytes that are not UTF-8.
    var texts: [(id: String, data: Data)] = (0..<150).map { i in
      ("n\(i)", Data("---\nid: id-\(i)\nupdated: 2026-11-2\(i % 10)T10:00:00+01:00\ntitle: N \(i)\n---\nbody \(i)\n".utf8))
    }
    texts.append(("plain", Data("no front matter\n".utf8)))
    texts.append(("broken", Data("---\nid: [unclosed\n---\n".utf8)))
    texts.append(("binary", Data([0xff, 0xfe, 0x00, 0x41])))
    func content(_ item: (id: String, data: Data)) -> FileContent {
      .stored(id: item.id) {
        reads.record(item.id)
        return item.data
      }
    }
    let parsed = ParsedNotes()
    parsed.prefetch(texts.map(content) + texts.prefix(40).map(content))
    for item in texts {
      let (text, identity) = parsed.read(content(item))
      let expectedText = String(data: item.data, encoding: .utf8)
      XCTAssertEqual(text, expectedText, item.id)
      let expected = expectedText.flatMap { try? FrontMatter.readIdentity($0) }
      XCTAssertEqual(identity?.id, expected?.id, item.id)
      XCTAssertEqual(identity?.updated?.date, expected?.updated?.date, item.id)
    }
    XCTAssertEqual(parsed.read(content(texts[7])).identity?.id, "id-7")
    XCTAssertTrue(reads.count.values.allSatisfy { $0 == 1 }, "each stored file read once: \(reads.count)")
    XCTAssertEqual(reads.count.count, texts.count)
  }
}

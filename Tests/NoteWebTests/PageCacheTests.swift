import Foundation
import NBTestSupport
import XCTest

@testable import NoteWeb

/// The note pages `nb serve` answers again: kept only while the repository and the page's own files are as they
/// were when it was made.
final class PageCacheTests: XCTestCase {
  private var temp: TemporaryDirectory!
  private var file: String { temp.url.appendingPathComponent("note.md").path }

  override func setUpWithError() throws {
    temp = try TemporaryDirectory()
    try Data("first\n".utf8).write(to: URL(fileURLWithPath: file))
  }

  private func page(_ text: String) -> WebResponse { .html(text) }

  private func keep(_ cache: PageCache, _ text: String, key: String = "/note/note.md") {
    let generation = cache.currentGeneration
    cache.keep(page(text), for: key, files: [file], stamps: [PageCache.Stamp.of(file)], generation: generation)
  }

  func testAPageIsAnsweredAgainUntilTheCacheIsInvalidated() {
    let cache = PageCache()
    XCTAssertNil(cache.page(for: "/note/note.md"))
    keep(cache, "one")
    XCTAssertEqual(cache.page(for: "/note/note.md").map { String(decoding: $0.body, as: UTF8.self) }, "one")
    XCTAssertNil(cache.page(for: "/note/note.md?saved=1"), "the whole request target is the key")
    cache.invalidate()
    XCTAssertNil(cache.page(for: "/note/note.md"))
  }

  func testAWriteToThePagesOwnFileIsSeenAtOnce() throws {
    let cache = PageCache()
    keep(cache, "one")
    // Same size, so only the times (and the inode of an atomic replace) tell.
    try Data("other\n".utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
    XCTAssertNil(cache.page(for: "/note/note.md"))
    keep(cache, "two")
    XCTAssertNotNil(cache.page(for: "/note/note.md"))
    try FileManager.default.removeItem(atPath: file)
    XCTAssertNil(cache.page(for: "/note/note.md"), "a file gone is a change")
  }

  func testAPageMadeWhileSomethingChangedIsNotKept() {
    let cache = PageCache()
    let generation = cache.currentGeneration
    // The watcher saw a change while the page was being made: what it read may be from before the change.
    cache.invalidate()
    cache.keep(
      page("old"), for: "/note/note.md", files: [file], stamps: [PageCache.Stamp.of(file)], generation: generation)
    XCTAssertNil(cache.page(for: "/note/note.md"))
  }

  func testTheCacheStaysWithinItsLimit() {
    let cache = PageCache(limit: 8_000)
    keep(cache, String(repeating: "x", count: 2_000), key: "/note/too-big.md")
    XCTAssertNil(cache.page(for: "/note/too-big.md"), "a page over an eighth of the limit is never kept")
    for i in 0..<20 { keep(cache, String(repeating: "y", count: 900), key: "/note/\(i).md") }
    XCTAssertNotNil(cache.page(for: "/note/19.md"), "the newest page is kept")
    XCTAssertNil(cache.page(for: "/note/0.md"), "older pages made room")
  }
}

import Foundation
import NBTestSupport
import NoteStore
import NoteWatch
import XCTest

@testable import NoteWeb

/// The hub between the repository's feed and the open pages' event streams.
final class LiveUpdatesTests: XCTestCase {
  /// Reads a stream on a task of its own (a cancelled reader would end the stream), keeping what arrives.
  private final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var texts: [String] = []
    private var reader: Task<Void, Never>?

    init(_ stream: AsyncStream<String>) {
      reader = Task { [weak self] in
        for await text in stream { self?.lock.withLock { self?.texts.append(text) } }
      }
    }

    deinit { reader?.cancel() }

    var all: [String] { lock.withLock { texts } }

    /// Polls until `condition` holds or `seconds` pass.
    func wait(_ seconds: TimeInterval, until condition: ([String]) -> Bool) async -> Bool {
      let deadline = Date().addingTimeInterval(seconds)
      while Date() < deadline {
        if condition(all) { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
      }
      return condition(all)
    }
  }

  func testEveryPageGetsEveryChangeAsOneEvent() async {
    let live = LiveUpdates()
    let (first, firstEvents) = live.subscribe()
    let (_, secondEvents) = live.subscribe()
    XCTAssertEqual(live.count, 2)
    var one = firstEvents.makeAsyncIterator()
    var two = secondEvents.makeAsyncIterator()
    let hello = await one.next()
    XCTAssertEqual(hello, "retry: 1000\n: connected\n\n")
    _ = await two.next()
    live.publish(RepositoryFeed.Change(paths: ["work/a \"b\".md", "x\ny.md"]))
    let expected = "event: change\ndata: {\"everything\":false,\"paths\":[\"work/a \\\"b\\\".md\",\"x\\ny.md\"]}\n\n"
    let got = await one.next()
    XCTAssertEqual(got, expected)
    let alsoGot = await two.next()
    XCTAssertEqual(alsoGot, expected)
    live.unsubscribe(first)
    XCTAssertEqual(live.count, 1)
    let ended = await one.next()
    XCTAssertNil(ended, "an ended subscription's stream finishes")
    live.finishAll()
    XCTAssertEqual(live.count, 0)
    let allEnded = await two.next()
    XCTAssertNil(allEnded)
  }

  func testAFileWrittenInTheRepositoryReachesASubscriber() async throws {
    let temp = try TemporaryDirectory(prefix: "nb-web-live")
    let notes = try NoteRepository.initialize(at: temp.url.appendingPathComponent("notes"))
    let live = LiveUpdates()
    try live.listen(to: notes.root)
    let events = Collector(live.subscribe().events)
    let note = try notes.createNote(NoteDraft(title: "Roadmap", notebook: "work", content: "x"))
    let arrived = await events.wait(5) { $0.joined().contains("\"\(note.path)\"") }
    XCTAssertTrue(arrived, "\(events.all)")
    XCTAssertEqual(events.all.first, "retry: 1000\n: connected\n\n")
    XCTAssertTrue(
      events.all.dropFirst().allSatisfy { $0.hasPrefix("event: change\ndata: {") && $0.hasSuffix("}\n\n") },
      "\(events.all)")
  }

  func testAQuietStreamGetsKeepAliveComments() async {
    let live = LiveUpdates(heartbeat: 0.1)
    let events = Collector(live.subscribe().events)
    let beat = await events.wait(5) { $0.count >= 2 }
    XCTAssertTrue(beat)
    XCTAssertEqual(events.all.dropFirst().first, ": keep-alive\n\n")
  }
}

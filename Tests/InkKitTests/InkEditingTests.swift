import Foundation
import NBTestSupport
import XCTest

@testable import InkKit

final class InkEditingTests: XCTestCase {
  func line(_ count: Int, from x: Double = 0) -> [InkPoint] {
    (0..<count).map { InkPoint(x: x + Double($0), y: 0) }
  }

  func testAddPutsAStrokeOnTopOfItsPage() throws {
    var document = InkDocument()
    try document.add(InkStroke(id: "one", points: line(2)))
    try document.add(InkStroke(id: "two", points: line(2)))
    try document.add(InkStroke(id: "other", page: "p2", points: line(2)))
    XCTAssertEqual(document.drawingOrder.map(\.id), ["one", "two", "other"])
    XCTAssertLessThan(document.stroke(id: "one")!.order, document.stroke(id: "two")!.order)
    XCTAssertThrowsError(try document.add(InkStroke(id: "one", points: line(1)))) { error in
      XCTAssertEqual(error as? InkEditError, .duplicateID("one"))
    }
  }

  func testEraseRemovesOnlyThatStroke() throws {
    var document = InkDocument()
    for id in ["a", "b", "c"] { try document.add(InkStroke(id: id, points: line(3))) }
    let before = InkCodec.serialize(document)
    XCTAssertEqual(document.erase(id: "b")?.id, "b")
    XCTAssertNil(document.erase(id: "b"))
    let beforeLines = String(decoding: before, as: UTF8.self).split(separator: "\n")
    let afterLines = String(decoding: InkCodec.serialize(document), as: UTF8.self).split(separator: "\n")
    XCTAssertEqual(afterLines, beforeLines.filter { !$0.contains(#""id":"b""#) })
  }

  func testSplitReplacesAStrokeByPiecesInItsPlace() throws {
    var document = InkDocument()
    for id in ["below", "cut", "above"] { try document.add(InkStroke(id: id, ink: .pencil, points: line(10))) }
    var next = 0
    let ids = try document.split(id: "cut", keeping: [0..<3, 5..<5, 6..<10]) {
      next += 1
      return "piece\(next)"
    }
    XCTAssertEqual(ids, ["piece1", "piece2"])
    XCTAssertEqual(document.drawingOrder.map(\.id), ["below", "piece1", "piece2", "above"])
    XCTAssertEqual(document.stroke(id: "piece1")?.points.map(\.x), [0, 1, 2])
    XCTAssertEqual(document.stroke(id: "piece2")?.points.map(\.x), [6, 7, 8, 9])
    XCTAssertEqual(document.stroke(id: "piece2")?.parent, "cut")
    XCTAssertEqual(document.stroke(id: "piece2")?.ink, .pencil)
    XCTAssertNil(document.stroke(id: "cut"))
    XCTAssertThrowsError(try document.split(id: "below", keeping: [0..<11]))
    // A repeated new id is refused before anything changes.
    let before = document
    XCTAssertThrowsError(try document.split(id: "below", keeping: [0..<2, 3..<5]) { "same" }) { error in
      XCTAssertEqual(error as? InkEditError, .duplicateID("same"))
    }
    XCTAssertEqual(document, before)
    XCTAssertThrowsError(try document.split(id: "gone", keeping: [0..<1]))
  }

  func testMoveRewritesOnlyTheMovedStrokesLine() throws {
    var document = InkDocument()
    for id in ["a", "b", "c", "d"] { try document.add(InkStroke(id: id, points: line(2))) }
    let before = Set(String(decoding: InkCodec.serialize(document), as: UTF8.self).split(separator: "\n"))
    try document.move(id: "d", above: "a")
    XCTAssertEqual(document.drawingOrder.map(\.id), ["a", "d", "b", "c"])
    let after = Set(String(decoding: InkCodec.serialize(document), as: UTF8.self).split(separator: "\n"))
    XCTAssertEqual(after.subtracting(before).count, 1)
    XCTAssertEqual(before.subtracting(after).count, 1)
    try document.move(id: "c", above: nil)
    XCTAssertEqual(document.drawingOrder.map(\.id), ["c", "a", "d", "b"])
    try document.bringToFront(id: "c")
    XCTAssertEqual(document.drawingOrder.map(\.id), ["a", "d", "b", "c"])
  }

  func testFractionalKeysAreAlwaysStrictlyBetween() {
    var generator = SplitMix64(seed: 7)
    var keys = ["a0", "a1"]
    for _ in 0..<3000 {
      let sorted = keys.sorted()
      let slot = Int.random(in: 0...sorted.count, using: &generator)
      let lower = slot == 0 ? nil : sorted[slot - 1]
      let upper = slot == sorted.count ? nil : sorted[slot]
      let key = FractionalIndex.key(between: lower, and: upper)
      XCTAssertTrue(FractionalIndex.isValid(key), key)
      if let lower { XCTAssertLessThan(lower, key) }
      if let upper { XCTAssertLessThan(key, upper, "between \(lower ?? "nil") and \(upper)") }
      XCTAssertNotEqual(key.last, "0")
      keys.append(key)
    }
    XCTAssertLessThan(keys.map(\.count).max()!, 40)
  }

  func testAStrokeAddedOnTopOfAHandWrittenOrderKeyIsStillOnTop() throws {
    var document = InkDocument(strokes: [InkStroke(id: "odd", order: "~", points: line(2))])
    try document.add(InkStroke(id: "new", points: line(2)))
    XCTAssertEqual(document.drawingOrder.map(\.id), ["odd", "new"])
  }
}

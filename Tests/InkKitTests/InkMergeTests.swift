import Foundation
import NBTestSupport
import XCTest

@testable import InkKit

final class InkMergeTests: XCTestCase {
  func stroke(_ id: String, x: Double = 0, color: String = "000000ff", order: String = "a") -> InkStroke {
    InkStroke(
      id: id, order: order, color: InkColor(hex: color)!, points: [InkPoint(x: x, y: 1), InkPoint(x: x + 1, y: 2)])
  }

  func document(_ strokes: [InkStroke]) -> InkDocument { InkDocument(strokes: strokes) }

  func ids(_ document: InkDocument) -> [String] { document.drawingOrder.map(\.id) }

  func testTheIssuesRules() {
    let base = document([stroke("kept"), stroke("erasedByUs"), stroke("erasedByThem"), stroke("recoloured")])
    let ours = document([
      stroke("kept"), stroke("erasedByThem"), stroke("recoloured", color: "ff0000ff"), stroke("oursNew", order: "b"),
    ])
    let theirs = document([
      stroke("kept"), stroke("erasedByUs"), stroke("recoloured", color: "00ff00ff"), stroke("theirsNew", order: "c"),
    ])
    let merged = InkMerge.merge(base: base, ours: ours, theirs: theirs, later: .theirs)
    XCTAssertEqual(ids(merged), ["kept", "recoloured", "oursNew", "theirsNew"])
    XCTAssertEqual(merged.stroke(id: "recoloured")?.color.hex, "00ff00ff", "changed on both sides: the later wins")
    let mergedOurs = InkMerge.merge(base: base, ours: ours, theirs: theirs, later: .ours)
    XCTAssertEqual(mergedOurs.stroke(id: "recoloured")?.color.hex, "ff0000ff")
  }

  func testAnEraseDoesNotLoseAConcurrentChange() {
    let base = document([stroke("s")])
    let ours = document([])
    let theirs = document([stroke("s", x: 5)])
    XCTAssertEqual(InkMerge.merge(base: base, ours: ours, theirs: theirs, later: .ours).strokes, [stroke("s", x: 5)])
    XCTAssertEqual(InkMerge.merge(base: base, ours: theirs, theirs: ours, later: .ours).strokes, [stroke("s", x: 5)])
  }

  func testWithoutAnAncestorEverythingIsKept() {
    let merged = InkMerge.merge(
      base: nil, ours: document([stroke("a")]), theirs: document([stroke("b"), stroke("a")]), later: .unknown)
    XCTAssertEqual(ids(merged), ["a", "b"])
  }

  func testPagesMergeByID() {
    let base = InkDocument(pages: [InkPage(id: "p1", order: "a", width: 100, height: 100)])
    var ours = base
    ours.pages.append(InkPage(id: "p2", order: "b", width: 10, height: 10))
    var theirs = base
    theirs.pages[0].background = "dots"
    let merged = InkMerge.merge(base: base, ours: ours, theirs: theirs, later: .ours)
    XCTAssertEqual(merged.orderedPages.map(\.id), ["p1", "p2"])
    XCTAssertEqual(merged.pages.first { $0.id == "p1" }?.background, "dots")
  }

  func testRecordsOfOtherKindsSharingAnIdAreBothKept() throws {
    let header = #"{"nbink":1,"unit":"pt","q":{"xy":100,"t":1000,"wh":100,"o":1000,"f":1000,"ang":1000}}"#
    let base = header + "\n" + #"{"k":"tag","id":"x","v":1}"# + "\n" + #"{"k":"link","id":"x","to":"y"}"# + "\n"
    let ours = try InkCodec.parse(Data(base.utf8))
    var theirs = ours
    try theirs.add(stroke("new"))
    let merged = InkMerge.merge(base: ours, ours: ours, theirs: theirs, later: .unknown)
    XCTAssertEqual(Set(merged.unknownRecords.map(\.kind)), ["tag", "link"])
    XCTAssertEqual(merged.strokes.map(\.id), ["new"])
  }

  func testSidesWithDifferentScalesMergeToTheSameBytesEitherWay() {
    var fine = document([stroke("a", x: 1.234)])
    fine.scales.xy = 1000
    let coarse = document([stroke("b", x: 2)])
    let one = InkCodec.serialize(InkMerge.merge(base: nil, ours: fine, theirs: coarse, later: .unknown))
    let two = InkCodec.serialize(InkMerge.merge(base: nil, ours: coarse, theirs: fine, later: .unknown))
    XCTAssertEqual(one, two)
    // Nothing the finer side stored is rounded away.
    XCTAssertEqual(try InkCodec.parse(one).stroke(id: "a")?.points.first?.x, 1.234)
  }

  func testUnreadableSidesAreNotGuessedAt() {
    let good = InkCodec.serialize(document([stroke("a")]))
    XCTAssertNil(InkMerge.merge(base: nil, ours: Data("garbage".utf8), theirs: good, later: .ours))
    XCTAssertNil(InkMerge.merge(base: nil, ours: good, theirs: Data("{\"nbink\":9}".utf8), later: .ours))
    // A broken ancestor counts as none: nothing is deleted.
    let merged = InkMerge.merge(
      base: Data("x".utf8), ours: good, theirs: InkCodec.serialize(document([])), later: .ours)
    XCTAssertEqual(merged.flatMap { try? InkCodec.parse($0) }.map(ids), ["a"])
  }

  /// Two devices start from a shared drawing, then each adds strokes (fresh ids) and erases some of the shared ones.
  /// The merge must be the union of the additions minus the erasures, and the same bytes in either direction.
  func testRandomConcurrentEditsMergeToTheSameSetInEitherDirection() {
    var random = SplitMix64(seed: 4242)
    for round in 0..<400 {
      let shared = (0..<Int.random(in: 0...12, using: &random)).map {
        stroke("s\(round)-\($0)", x: Double.random(in: -50...50, using: &random).rounded(), order: "a\($0 % 5 + 1)")
      }
      func device(_ name: String) -> (document: InkDocument, added: Set<String>, erased: Set<String>) {
        var document = document(shared)
        var added = Set<String>()
        var erased = Set<String>()
        for step in 0..<Int.random(in: 0...10, using: &random) {
          if Bool.random(using: &random), let victim = document.strokes.randomElement(using: &random) {
            document.erase(id: victim.id)
            if added.remove(victim.id) == nil { erased.insert(victim.id) }
          } else {
            let id = "\(name)-\(round)-\(step)"
            try! document.add(stroke(id, x: Double(step), color: Bool.random(using: &random) ? "ff0000ff" : "0000ffff"))
            added.insert(id)
          }
        }
        return (document, added, erased)
      }
      let one = device("one")
      let two = device("two")
      let base = document(shared)
      let forward = InkMerge.merge(base: base, ours: one.document, theirs: two.document, later: .unknown)
      let backward = InkMerge.merge(base: base, ours: two.document, theirs: one.document, later: .unknown)
      let expected = Set(shared.map(\.id)).subtracting(one.erased).subtracting(two.erased).union(one.added)
        .union(two.added)
      XCTAssertEqual(Set(forward.strokes.map(\.id)), expected, "round \(round)")
      XCTAssertEqual(forward.strokes.count, expected.count, "round \(round): no duplicates")
      XCTAssertEqual(InkCodec.serialize(forward), InkCodec.serialize(backward), "round \(round)")
      // Through bytes, as the merge driver does, gives the same result.
      let viaBytes = InkMerge.merge(
        base: InkCodec.serialize(base), ours: InkCodec.serialize(one.document),
        theirs: InkCodec.serialize(two.document),
        later: .unknown)
      XCTAssertEqual(viaBytes, InkCodec.serialize(forward), "round \(round)")
    }
  }
}

import Foundation
import XCTest

@testable import InkKit

final class InkCodecTests: XCTestCase {
  // FORMAT.md's own example lines: the contract, written by hand, not by the code under test.
  let header = #"{"nbink":1,"unit":"pt","q":{"xy":100,"t":1000,"wh":100,"o":1000,"f":1000,"ang":1000}}"#
  let page = #"{"k":"page","id":"p1","ord":"a0","w":768,"h":1024,"bg":"dots"}"#
  let stroke =
    #"{"k":"s","id":"0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b","pg":"p1","ord":"a1","ink":"pen","rgba":"1a1a1aff","#
    + #""t0":"2026-11-22T09:07:01.250Z","tf":[1,0,0,1,0,0],"seed":2871,"x":[10234,52,49],"y":[30011,-3,-4],"#
    + #""t":[0,4,4],"w":[210,1,0],"h":[210,1,0],"o":[1000,0,0],"f":[512,9,6],"az":[1204,0,1],"al":[903,0,-1]}"#

  var example: String { [header, page, stroke].joined(separator: "\n") + "\n" }

  func testReadsTheFormatExample() throws {
    let document = try InkCodec.parse(Data(example.utf8))
    XCTAssertEqual(document.scales, .standard)
    XCTAssertEqual(document.pages, [InkPage(id: "p1", order: "a0", width: 768, height: 1024, background: "dots")])
    let stroke = try XCTUnwrap(document.strokes.first)
    XCTAssertEqual(stroke.id, "0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b")
    XCTAssertEqual(stroke.page, "p1")
    XCTAssertEqual(stroke.order, "a1")
    XCTAssertEqual(stroke.ink, .pen)
    XCTAssertEqual(stroke.color, InkColor(red: 0x1a, green: 0x1a, blue: 0x1a, alpha: 0xff))
    XCTAssertEqual(stroke.created, Date(timeIntervalSince1970: 1_795_338_421.25))
    XCTAssertEqual(stroke.transform, .identity)
    XCTAssertEqual(stroke.seed, 2871)
    XCTAssertEqual(stroke.channels, .pencilKit)
    // Deltas summed by hand: x 10234, 10286, 10335 (1/100 pt); f 512, 521, 527 (1/1000).
    func assertClose(_ got: [Double], _ want: [Double], line: UInt = #line) {
      XCTAssertEqual(got.count, want.count, line: line)
      for (a, b) in zip(got, want) { XCTAssertEqual(a, b, accuracy: 1e-9, "\(got)", line: line) }
    }
    assertClose(stroke.points.map(\.x), [102.34, 102.86, 103.35])
    assertClose(stroke.points.map(\.y), [300.11, 300.08, 300.04])
    assertClose(stroke.points.map(\.time), [0, 0.004, 0.008])
    assertClose(stroke.points.map(\.width), [2.1, 2.11, 2.11])
    assertClose(stroke.points.map(\.force), [0.512, 0.521, 0.527])
    assertClose(stroke.points.map(\.altitude), [0.903, 0.903, 0.902])
  }

  func testTheFormatExampleIsCanonical() throws {
    let document = try InkCodec.parse(Data(example.utf8))
    XCTAssertEqual(String(decoding: InkCodec.serialize(document), as: UTF8.self), example)
  }

  func testUnknownKeysAndRecordsArePreservedWhenAStrokeIsRewritten() throws {
    let extended = String(stroke.dropLast()) + #","pressureCurve":{"a":[1.5,null,true]},"z":"é\"q"}"#
    let other = #"{"k":"sticker","id":"st1","png":"abc"}"#
    let text =
      [String(header.dropLast()) + #","app":"Scribble 2"}"#, page, extended, other].joined(separator: "\n") + "\n"
    var document = try InkCodec.parse(Data(text.utf8))
    document.strokes[0].color = InkColor(hex: "ff0000ff")!
    let rewritten = String(decoding: InkCodec.serialize(document), as: UTF8.self)
    let lines = rewritten.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines[0], String(header.dropLast()) + #","app":"Scribble 2"}"#)
    XCTAssertEqual(lines[2], extended.replacingOccurrences(of: "1a1a1aff", with: "ff0000ff"))
    XCTAssertEqual(lines[3], other)
  }

  func testStrokesAreWrittenInDrawingOrderWhateverTheirOrderInMemory() throws {
    func stroke(_ id: String, _ order: String, page: String? = nil) -> InkStroke {
      InkStroke(id: id, page: page, order: order, points: [InkPoint(x: 1, y: 2)])
    }
    let pages = [
      InkPage(id: "second", order: "b", width: 10, height: 10), InkPage(id: "first", order: "a", width: 10, height: 10),
    ]
    let strokes = [
      stroke("s5", "a", page: "second"), stroke("s4", "b", page: "first"), stroke("s3", "a", page: "first"),
      stroke("s2", "a"), stroke("s1", "a"), stroke("s6", "a", page: "nowhere"),
    ]
    let one = InkCodec.serialize(InkDocument(pages: pages, strokes: strokes))
    let two = InkCodec.serialize(InkDocument(pages: pages.reversed(), strokes: strokes.reversed()))
    XCTAssertEqual(one, two)
    let ids = try InkCodec.parse(one).strokes.map(\.id)
    // Implicit page first (by order, then id), then pages by their order, then strokes of unknown pages.
    XCTAssertEqual(ids, ["s1", "s2", "s3", "s4", "s5", "s6"])
  }

  func testRoundTripKeepsEveryPencilKitChannelWithinTheScales() throws {
    let created = Date(timeIntervalSince1970: 1_800_000_000.123)
    let points = (0..<50).map { index in
      let i = Double(index)
      return InkPoint(
        x: 10.004 + i * 1.337, y: -5.5 + i * 0.25, time: i / 240, width: 2.5 + i / 100, height: 2.4, opacity: 0.8,
        force: 0.3 + i / 200, azimuth: -1.2 + i / 50, altitude: 1.1)
    }
    let original = InkStroke(
      id: "a", order: "V", ink: .fountainPen, color: InkColor(hex: "12345680")!, created: created,
      transform: InkTransform(a: 0.866, b: 0.5, c: -0.5, d: 0.866, tx: 12.25, ty: -3.125), seed: -7,
      channels: .pencilKit, points: points, mask: "M0 0L10 10Z", parent: "orig")
    let read = try InkCodec.parse(InkCodec.serialize(InkDocument(strokes: [original]))).strokes[0]
    XCTAssertEqual(read.id, original.id)
    XCTAssertEqual(read.ink, .fountainPen)
    XCTAssertEqual(read.color.hex, "12345680")
    XCTAssertEqual(read.created!.timeIntervalSince1970, created.timeIntervalSince1970, accuracy: 0.00051)
    XCTAssertEqual(read.transform.entries, original.transform.entries)
    XCTAssertEqual(read.seed, -7)
    XCTAssertEqual(read.mask, "M0 0L10 10Z")
    XCTAssertEqual(read.parent, "orig")
    XCTAssertEqual(read.channels, .pencilKit)
    for (got, want) in zip(read.points, original.points) {
      XCTAssertEqual(got.x, want.x, accuracy: 0.0051)
      XCTAssertEqual(got.y, want.y, accuracy: 0.0051)
      XCTAssertEqual(got.time, want.time, accuracy: 0.00051)
      XCTAssertEqual(got.width, want.width, accuracy: 0.0051)
      XCTAssertEqual(got.opacity, want.opacity, accuracy: 0.00051)
      XCTAssertEqual(got.force, want.force, accuracy: 0.00051)
      XCTAssertEqual(got.azimuth, want.azimuth, accuracy: 0.00051)
    }
    // Writing what was read gives the same bytes: canonical.
    let once = InkCodec.serialize(InkDocument(strokes: [read]))
    XCTAssertEqual(InkCodec.serialize(try InkCodec.parse(once)), once)
  }

  func testAStrokeWithOnlyXYStoresOnlyXY() {
    let line = InkCodec.line(
      of: InkStroke(id: "q", order: "a", points: [InkPoint(x: 1, y: 2), InkPoint(x: 1.5, y: 2)]))
    XCTAssertEqual(
      line, #"{"k":"s","id":"q","ord":"a","ink":"pen","rgba":"000000ff","tf":[1,0,0,1,0,0],"x":[100,50],"y":[200,0]}"#)
  }

  // MARK: - Bad input: an error naming the file and line

  func assertError(
    _ body: String, line: Int, contains fragment: String, file: StaticString = #filePath, at: UInt = #line
  ) {
    let text = header + "\n" + body
    XCTAssertThrowsError(try InkCodec.parse(Data(text.utf8), file: "work/roadmap.ink.jsonl"), file: file, line: at) {
      error in
      guard let error = error as? InkFormatError else { return XCTFail("\(error)", file: file, line: at) }
      XCTAssertEqual(error.line, line, "\(error)", file: file, line: at)
      XCTAssertTrue(error.message.contains(fragment), "\(error)", file: file, line: at)
      XCTAssertTrue("\(error)".hasPrefix("work/roadmap.ink.jsonl:\(line): "), "\(error)", file: file, line: at)
    }
  }

  func testMalformedLinesAreNamedByLine() {
    assertError(page + "\n{\"k\":\"s\",\"id\":\"a\",\"x\":[1,2],\"y\":[3,4]\n", line: 3, contains: "'}'")
    assertError("not json\n", line: 2, contains: "'{'")
    assertError("{\"k\":\"s\",\"x\":[1],\"y\":[2]}\n", line: 2, contains: "no \"id\"")
    assertError("{\"k\":\"s\",\"id\":\"\",\"x\":[1],\"y\":[2]}\n", line: 2, contains: "no \"id\"")
    assertError(
      "{\"k\":\"s\",\"id\":\"a\",\"x\":[1,2,3],\"y\":[2,3]}\n", line: 2, contains: "\"y\" has 2 values but \"x\" has 3")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"x\":[1],\"y\":[2],\"f\":[1,2]}\n", line: 2, contains: "\"f\" has 2 values")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"x\":[1.5],\"y\":[2]}\n", line: 2, contains: "1.5, which is not an integer")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"x\":[1e3],\"y\":[2]}\n", line: 2, contains: "not an integer")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"x\":[NaN],\"y\":[2]}\n", line: 2, contains: "NaN, which is not a number")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"x\":[1],\"y\":[Infinity]}\n", line: 2, contains: "not a number")
    assertError(
      "{\"k\":\"s\",\"id\":\"a\",\"x\":[\"1\"],\"y\":[2]}\n", line: 2, contains: "holds \"1\", which is not an integer")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"y\":[2]}\n", line: 2, contains: "no \"x\"")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"x\":[99999999999999999999],\"y\":[2]}\n", line: 2, contains: "too large")
    assertError(
      "{\"k\":\"s\",\"id\":\"a\",\"x\":[9007199254740992,1],\"y\":[2,2]}\n", line: 2, contains: "2^53")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"x\":[1],\"x\":[1],\"y\":[2]}\n", line: 2, contains: "appears twice")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"rgba\":\"black\",\"x\":[1],\"y\":[2]}\n", line: 2, contains: "\"rgba\"")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"tf\":[1,0,0,1],\"x\":[1],\"y\":[2]}\n", line: 2, contains: "6 entries")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"t0\":\"yesterday\",\"x\":[1],\"y\":[2]}\n", line: 2, contains: "RFC 3339")
    assertError("{\"id\":\"a\",\"x\":[1],\"y\":[2]}\n", line: 2, contains: "no \"k\"")
    assertError(
      "{\"k\":\"s\",\"id\":\"a\",\"x\":[1],\"y\":[2]}\n\n{\"k\":\"s\",\"id\":\"a\",\"x\":[1],\"y\":[2]}\n", line: 4,
      contains: "already used on line 2")
    assertError("{\"k\":\"page\",\"w\":1,\"h\":1}\n", line: 2, contains: "no \"id\"")
    assertError("{\"k\":\"s\",\"id\":\"a\",\"x\":[1],\"y\":[2]} trailing\n", line: 2, contains: "after the closing")
  }

  func testTenMillionPointsAreRefusedWithoutBuildingThem() {
    var body = "{\"k\":\"s\",\"id\":\"big\",\"x\":["
    body += String(repeating: "1,", count: 10_000_000 - 1) + "1],\"y\":[0]}\n"
    assertError(body, line: 2, contains: "more than 1000000 points")
  }

  func testHeaderProblems() {
    func headerError(_ text: String, _ fragment: String) {
      XCTAssertThrowsError(try InkCodec.parse(Data(text.utf8), file: "a.ink.jsonl")) { error in
        XCTAssertEqual((error as? InkFormatError)?.line, 1, "\(error)")
        XCTAssertTrue("\(error)".contains(fragment), "\(error)")
      }
    }
    headerError("", "empty")
    headerError("\n", "header")
    headerError(#"{"k":"s","id":"a","x":[1],"y":[2]}"# + "\n", "no \"nbink\"")
    headerError(#"{"nbink":2,"unit":"pt","q":{}}"# + "\n", "version 2 is not supported")
    headerError(#"{"nbink":1,"unit":"px","q":{}}"# + "\n", "unit \"px\"")
    headerError(#"{"nbink":1,"unit":"pt","q":{"xy":0}}"# + "\n", "positive")
  }

  func testCRLFAndAMissingFinalNewlineAreRead() throws {
    let text = header + "\r\n" + page + "\r\n" + stroke
    let document = try InkCodec.parse(Data(text.utf8))
    XCTAssertEqual(document.strokes.count, 1)
    XCTAssertEqual(InkCodec.serialize(document), Data(example.utf8))
  }

  func testANonIntegralTransformGetsAFinerScaleOnItsOwnLineOnly() throws {
    let plain = InkStroke(id: "p", order: "a", points: [InkPoint(x: 1, y: 1)])
    let rotated = InkStroke(
      id: "r", order: "b", transform: InkTransform(a: 0.5, b: 0, c: 0, d: 0.5, tx: 0, ty: 0),
      points: [InkPoint(x: 0, y: 0)])
    let alone = String(decoding: InkCodec.serialize(InkDocument(strokes: [plain])), as: UTF8.self)
    let text = String(decoding: InkCodec.serialize(InkDocument(strokes: [plain, rotated])), as: UTF8.self)
    let lines = text.split(separator: "\n").map(String.init)
    // The header and the other stroke's line are exactly as without the rotated stroke.
    XCTAssertEqual(Array(lines.prefix(2)), alone.split(separator: "\n").map(String.init))
    XCTAssertEqual(lines[0], header)
    XCTAssertTrue(lines[2].contains(#""tf":[500000,0,0,500000,0,0],"tfq":1000000,"x""#), lines[2])
    XCTAssertEqual(try InkCodec.parse(Data(text.utf8)).strokes[1].transform.a, 0.5)
    // Erasing it leaves no trace of the finer scale.
    var document = try InkCodec.parse(Data(text.utf8))
    document.erase(id: "r")
    XCTAssertEqual(String(decoding: InkCodec.serialize(document), as: UTF8.self), alone)
  }

  func testEscapedStringsRoundTrip() throws {
    let odd = InkStroke(id: "a\"b\\c\u{1}é", order: "a", points: [InkPoint(x: 0, y: 0)])
    let data = InkCodec.serialize(InkDocument(strokes: [odd]))
    XCTAssertEqual(try InkCodec.parse(data).strokes[0].id, odd.id)
    let viaJSON = try JSONSerialization.jsonObject(with: Data(InkCodec.line(of: odd).utf8)) as? [String: Any]
    XCTAssertEqual(viaJSON?["id"] as? String, odd.id)
  }
}

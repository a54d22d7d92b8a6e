import Foundation
import NBTestSupport
import XCTest

@testable import InkKit

/// The reMarkable v6 reader against real device files (counts and sample values from rmscene 0.8.0, an independent
/// reader, see shared/testdata/remarkable/README.md) and against blocks built by hand from the layout.
final class InkRemarkableTests: XCTestCase {
  // MARK: Real files

  /// Expected (strokes, points) per file, from the README's rmscene table.
  static let expected: [(file: String, strokes: Int, points: Int)] = [
    ("Color_and_tool_v3.14.4.rm", 25, 1370),
    ("More_color_highlight_shader_v3.15.4.2.rm", 23, 753),
    ("Lines_v2.rm", 10, 469),
    ("Normal_A_stroke_2_layers.rm", 2, 14),
    ("Normal_AB.rm", 0, 0),
  ]

  /// Copies of shared/testdata/remarkable (with rmscene's licence), kept in the repository so every clone has them.
  static let dataDirectory = TestData.url("remarkable")

  func fixture(_ name: String) throws -> Data {
    let url = Self.dataDirectory.appendingPathComponent(name)
    guard FileManager.default.fileExists(atPath: url.path) else {
      XCTFail("missing test data \(url.path): Tests/Fixtures/remarkable is part of the repository; restore it")
      throw CocoaError(.fileNoSuchFile)
    }
    return try Data(contentsOf: url)
  }

  func testStrokeAndPointCountsMatchRmscene() throws {
    for (file, strokes, points) in Self.expected {
      let document = try RemarkableV6.read(try fixture(file), makeID: Self.sequentialIDs())
      XCTAssertEqual(document.strokes.count, strokes, file)
      XCTAssertEqual(document.pointCount, points, file)
      XCTAssertEqual(document.pages.count, 1, file)
    }
  }

  func testPageIsTheScreenInPointsAndStrokesAreOnIt() throws {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let document = try RemarkableV6.read(try fixture("Lines_v2.rm"), makeID: Self.sequentialIDs(), created: date)
    // 1404 × 72/226 = 447.29, 1872 × 72/226 = 596.39.
    XCTAssertEqual(document.pages, [InkPage(id: "id1", order: document.pages[0].order, width: 447, height: 596)])
    XCTAssertEqual(document.strokes.map(\.id), (2...11).map { "id\($0)" })
    XCTAssertTrue(document.strokes.allSatisfy { $0.page == "id1" && $0.created == date && $0.transform.isIdentity })
    let orders = document.strokes.map(\.order)
    XCTAssertEqual(orders, orders.sorted())
    XCTAssertEqual(Set(orders).count, orders.count)
    XCTAssertTrue(orders.allSatisfy(FractionalIndex.isValid))
  }

  func testKnownBallpointStrokeHasPlausibleValues() throws {
    let document = try RemarkableV6.read(try fixture("Lines_v2.rm"))
    // rmscene: stroke 1 is tool 15 (ballpoint 2), colour 0, 43 points, first point x=-530.0439453125,
    // y=90.886474609375, width 8 (quarter pixels), pressure 0.
    let stroke = document.drawingOrder[1]
    XCTAssertEqual(stroke.ink, .pen)
    XCTAssertEqual(stroke.color, InkColor(red: 0, green: 0, blue: 0))
    XCTAssertEqual(stroke.points.count, 43)
    XCTAssertEqual(stroke.channels, [.width, .force, .azimuth])
    let first = stroke.points[0]
    XCTAssertEqual(first.x, (-530.0439453125 + 702) * 72 / 226, accuracy: 1e-9)
    XCTAssertEqual(first.y, 90.886474609375 * 72 / 226, accuracy: 1e-9)
    XCTAssertEqual(first.width, 2 * 72 / 226, accuracy: 1e-9)
    XCTAssertEqual(first.force, 0)
    let page = document.pages[0]
    for point in stroke.points {
      XCTAssertTrue((0...Double(page.width)).contains(point.x) && (0...Double(page.height)).contains(point.y))
      XCTAssertGreaterThan(point.width, 0)
      XCTAssertTrue((0...1).contains(point.force))
      XCTAssertTrue((0...(2 * Double.pi)).contains(point.azimuth))
    }
    XCTAssertEqual(document.strokes.flatMap(\.points).map(\.force).max(), 1)  // rmscene: max pressure 255
  }

  func testHighlighterAndShaderTakeTheirExplicitColour() throws {
    let document = try RemarkableV6.read(try fixture("More_color_highlight_shader_v3.15.4.2.rm"))
    // rmscene: stroke 0 is tool 18 (highlighter 2), colour 9, RGBA (255, 237, 117, 255), width 120 quarter pixels.
    let highlighter = document.drawingOrder[0]
    XCTAssertEqual(highlighter.ink, .highlighter)
    XCTAssertEqual(highlighter.color, InkColor(red: 255, green: 237, blue: 117, alpha: 255))
    XCTAssertEqual(highlighter.points[0].width, 30 * 72 / 226, accuracy: 1e-9)
    XCTAssertEqual(highlighter.points[0].force, 15.0 / 255, accuracy: 1e-12)
    // rmscene lists these shader colours (RGBA) among the file's lines.
    let shaders = document.strokes.filter { $0.ink == .marker }.map(\.color)
    XCTAssertTrue(shaders.contains(InkColor(red: 194, green: 49, blue: 50, alpha: 102)))
    XCTAssertTrue(shaders.contains(InkColor(red: 33, green: 30, blue: 28, alpha: 64)))
    let lines = try RemarkableV6.lines(try fixture("More_color_highlight_shader_v3.15.4.2.rm"))
    // rmscene: the file's tools are ballpoint 2, highlighter 2 and shader.
    XCTAssertEqual(Set(lines.map(\.tool)), [15, 18, 23])
  }

  func testVersion1PointsAreRead() throws {
    // rmscene: the file's line blocks are version 1 (floats); stroke 0 is a fineliner, first point
    // x=-16.33978271484375, y=-30.417510986328125, width 16 quarter pixels, pressure 11.320879776030779/255.
    let lines = try RemarkableV6.lines(try fixture("Normal_A_stroke_2_layers.rm"))
    XCTAssertEqual(lines.map(\.tool), [17, 17])
    XCTAssertEqual(lines[0].points[0].x, -16.33978271484375)
    XCTAssertEqual(lines[0].points[0].y, -30.417510986328125)
    XCTAssertEqual(lines[0].points[0].width, 4, accuracy: 1e-6)
    XCTAssertEqual(lines[0].points[0].pressure, 11.320879776030779 / 255, accuracy: 1e-6)
    XCTAssertEqual(lines[0].thicknessScale, 2)
  }

  // MARK: Bad input

  func testTruncationsFailCleanlyUnlessOnABlockBoundary() throws {
    for (file, strokes, _) in Self.expected {
      let data = try fixture(file)
      let boundaries = Self.blockBoundaries(data)
      XCTAssertTrue(boundaries.contains(data.count), "\(file): the blocks should tile the file")
      // Every length near the start and around each block boundary, and a dense stride elsewhere: the whole range
      // takes seconds in a debug build without finding more.
      let near = boundaries.flatMap { ($0 - 24)...($0 + 24) }
      let lengths = Set(Array(0..<200) + near + Array(stride(from: 0, to: data.count, by: 3))).filter {
        (0..<data.count).contains($0)
      }.sorted()
      for length in lengths {
        let prefix = data.prefix(length)
        do {
          let lines = try RemarkableV6.lines(prefix)
          XCTAssertTrue(boundaries.contains(length), "\(file): prefix of \(length) bytes was accepted")
          XCTAssertLessThanOrEqual(lines.count, strokes)
        } catch let error as RemarkableV6Error {
          XCTAssertFalse(boundaries.contains(length), "\(file): prefix of \(length) bytes is whole blocks: \(error)")
          XCTAssertEqual(error.kind, .truncated, "\(file): prefix of \(length) bytes: \(error)")
          XCTAssertTrue((0...length).contains(error.offset), "\(file) \(length): \(error)")
        }
      }
    }
  }

  func testVersion5IsRejectedByName() {
    var data = Data("reMarkable .lines file, version=5          ".utf8)
    data.append(contentsOf: [1, 0, 0, 0, 0, 0, 0, 0])
    XCTAssertThrowsError(try RemarkableV6.read(data)) { error in
      let error = error as? RemarkableV6Error
      XCTAssertEqual(error?.kind, .unsupportedVersion(5))
      XCTAssertTrue(error?.description.contains("version 5 is not supported") ?? false, "\(String(describing: error))")
      XCTAssertTrue(error?.description.contains("version 6") ?? false)
    }
  }

  func testGarbageIsRejected() {
    var generator = SplitMix64(seed: 42)
    for size in [0, 1, 10, 43, 100, 5000] {
      let garbage = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
      XCTAssertThrowsError(try RemarkableV6.read(garbage)) { error in
        XCTAssertTrue(error is RemarkableV6Error, "\(error)")
      }
    }
    XCTAssertThrowsError(try RemarkableV6.read(Data("<ink xmlns=\"http://www.w3.org/2003/InkML\"/>".utf8))) {
      XCTAssertEqual(($0 as? RemarkableV6Error)?.kind, .notALinesFile)
    }
  }

  func testGarbageBlocksAfterAValidHeaderNeverCrash() {
    var generator = SplitMix64(seed: 7)
    for _ in 0..<2000 {
      var data = Data(Self.header)
      data.append(
        contentsOf: (0..<Int.random(in: 0...200, using: &generator)).map { _ in
          UInt8.random(in: 0...255, using: &generator)
        })
      _ = try? RemarkableV6.read(data)
    }
  }

  func testCorruptedRealFilesNeverCrash() throws {
    var generator = SplitMix64(seed: 2024)
    let data = [UInt8](try fixture("More_color_highlight_shader_v3.15.4.2.rm"))
    for _ in 0..<1500 {
      var copy = data
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        let index = Int.random(in: 43..<copy.count, using: &generator)
        copy[index] = UInt8.random(in: 0...255, using: &generator)
      }
      do {
        _ = try RemarkableV6.read(Data(copy), makeID: { "x" })
      } catch {
        XCTAssertTrue(error is RemarkableV6Error, "\(error)")
      }
    }
  }

  // MARK: Hand-built blocks

  func testHandBuiltLineMapsToTheModel() throws {
    // A v2 line, tool 3 (marker), colour 6 (blue), one point at the screen's top centre, and an explicit
    // colour 0x80112233 (alpha 0x80, red 0x11, green 0x22, blue 0x33).
    let point = Self.f32(0) + Self.f32(0) + [5, 0] + [40, 0] + [255 / 2, 255]
    let data = Self.file(blocks: [
      Self.block(
        type: 5, version: 2,
        body: Self.itemHeader()
          + Self.value(
            lineFields(tool: 3, color: 6, points: point)
              + Self.tag(8, 0x4) + [0x33, 0x22, 0x11, 0x80])),
      Self.block(
        type: 5, version: 2, body: Self.itemHeader() + Self.value(lineFields(tool: 21, color: 6, points: point))),
    ])
    let document = try RemarkableV6.read(data, makeID: Self.sequentialIDs())
    XCTAssertEqual(document.pages.map(\.id), ["id1"])
    XCTAssertEqual(document.strokes.map(\.id), ["id2", "id3"])
    let stroke = document.strokes[0]
    XCTAssertEqual(stroke.ink, .marker)
    XCTAssertEqual(stroke.color, InkColor(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x80))
    XCTAssertEqual(document.strokes[1].ink, .fountainPen)
    XCTAssertEqual(document.strokes[1].color, InkColor(red: 78, green: 105, blue: 201))
    let first = stroke.points[0]
    XCTAssertEqual(first.x, 702 * 72 / 226, accuracy: 1e-9)
    XCTAssertEqual(first.y, 0)
    XCTAssertEqual(first.width, 10 * 72 / 226, accuracy: 1e-9)
    XCTAssertEqual(first.force, 1)
    XCTAssertEqual(first.azimuth, 127 * 2 * Double.pi / 255, accuracy: 1e-12)
  }

  func testDeletedItemsAndOtherBlocksAreSkipped() throws {
    let point = Self.f32(1) + Self.f32(2) + [0, 0, 4, 0, 0, 10]
    let data = Self.file(blocks: [
      Self.block(type: 5, version: 2, body: Self.itemHeader()),  // deleted: no value
      Self.block(type: 7, version: 1, body: [0xde, 0xad, 0xbe, 0xef]),  // text: not read
      Self.block(
        type: 5, version: 2,
        body: Self.itemHeader() + Self.value(lineFields(tool: 99, color: 42, points: point))
          + [1, 2, 3]),  // trailing bytes a newer writer might add
    ])
    let document = try RemarkableV6.read(data)
    XCTAssertEqual(document.strokes.count, 1)
    XCTAssertEqual(document.strokes[0].ink, .pen)
    XCTAssertEqual(document.strokes[0].color, .black)
    XCTAssertEqual(document.strokes[0].points.count, 1)
  }

  func testMalformedBlocksNameTheirOffset() {
    let header = Self.header.count
    // Points sub-block of 13 bytes: not a whole number of 14-byte points.
    let bad = Self.file(blocks: [
      Self.block(
        type: 5, version: 2,
        body: Self.itemHeader() + Self.value(lineFields(tool: 2, color: 0, points: Array(repeating: 0, count: 13))))
    ])
    XCTAssertThrowsError(try RemarkableV6.read(bad)) {
      let error = $0 as? RemarkableV6Error
      XCTAssertEqual(error?.kind, .malformed)
      XCTAssertGreaterThan(error?.offset ?? 0, header)
      XCTAssertTrue(error?.description.contains("byte ") ?? false)
    }
    // A sub-block longer than its block.
    var body = Self.itemHeader()
    body += Self.tag(6, 0xC) + [200, 0, 0, 0, 3]
    XCTAssertThrowsError(try RemarkableV6.read(Self.file(blocks: [Self.block(type: 5, version: 2, body: body)]))) {
      XCTAssertEqual(($0 as? RemarkableV6Error)?.kind, .malformed)
    }
    // A line block of a version this reader does not know.
    let future = Self.file(blocks: [
      Self.block(type: 5, version: 3, body: Self.itemHeader() + Self.value(lineFields(tool: 2, color: 0, points: [])))
    ])
    XCTAssertThrowsError(try RemarkableV6.read(future)) {
      XCTAssertEqual(($0 as? RemarkableV6Error)?.offset, header)
    }
  }

  func testInkTypeOfEveryPen() {
    let expected: [Int: InkType] = [
      2: .pen, 15: .pen, 4: .pen, 17: .pen, 1: .pencil, 14: .pencil, 7: .pencil, 13: .pencil, 3: .marker,
      16: .marker, 5: .highlighter, 18: .highlighter, 21: .fountainPen, 0: .watercolor, 12: .watercolor, 6: .eraser,
      8: .eraser, 999: .pen,
    ]
    for (tool, ink) in expected { XCTAssertEqual(RemarkableV6.inkType(tool: tool), ink, "tool \(tool)") }
  }

  // MARK: Helpers

  /// Ids "id1", "id2", ... in call order.
  static func sequentialIDs() -> () -> String {
    var counter = 0
    return {
      counter += 1
      return "id\(counter)"
    }
  }

  static let header = Array("reMarkable .lines file, version=6          ".utf8)

  /// Offsets where a block ends, walking only the 4-byte lengths of the layout (8-byte block headers).
  static func blockBoundaries(_ data: Data) -> Set<Int> {
    let bytes = [UInt8](data)
    var offset = 43
    var result: Set<Int> = [offset]
    while offset + 8 <= bytes.count {
      let length =
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
        | Int(bytes[offset + 3]) << 24
      offset += 8 + length
      result.insert(offset)
    }
    return result
  }

  static func file(blocks: [[UInt8]]) -> Data { Data(header + blocks.joined()) }

  static func block(type: UInt8, version: UInt8, body: [UInt8]) -> [UInt8] {
    le32(UInt32(body.count)) + [0, 1, version, type] + body
  }

  /// A tag: the varuint of index << 4 | type (7 bits a byte, low first; tags from 8 up take two bytes).
  static func tag(_ index: UInt8, _ type: UInt8) -> [UInt8] {
    let value = Int(index) << 4 | Int(type)
    return value < 0x80 ? [UInt8(value)] : [UInt8(value & 0x7F | 0x80), UInt8(value >> 7)]
  }

  static func id(_ index: UInt8) -> [UInt8] { tag(index, 0xF) + [0, 1] }

  /// Parent, item, left and right ids, and a deleted length of 0.
  static func itemHeader() -> [UInt8] {
    id(1) + id(2) + id(3) + id(4) + tag(5, 0x4) + le32(0)
  }

  /// Sub-block 6 holding an item of type 3 (a line).
  static func value(_ fields: [UInt8]) -> [UInt8] {
    tag(6, 0xC) + le32(UInt32(fields.count + 1)) + [3] + fields
  }

  func lineFields(tool: UInt32, color: UInt32, points: [UInt8]) -> [UInt8] {
    Self.tag(1, 0x4) + Self.le32(tool) + Self.tag(2, 0x4) + Self.le32(color) + Self.tag(3, 0x8)
      + Self.le64(2.0.bitPattern) + Self.tag(4, 0x4) + Self.f32(0) + Self.tag(5, 0xC) + Self.le32(UInt32(points.count))
      + points + Self.id(6)
  }

  static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
  static func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
  static func f32(_ value: Float) -> [UInt8] { le32(value.bitPattern) }
}

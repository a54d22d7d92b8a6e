import Foundation
import NBTestSupport
import XCTest

@testable import InkKit

#if canImport(FoundationXML)
  import FoundationXML
#endif

final class InkRenderTests: XCTestCase {
  // MARK: - Fixtures

  /// A straight stroke of `count` points from `start` to `end`; a width or force channel when given.
  private func line(
    _ id: String, from start: (Double, Double), to end: (Double, Double), count: Int = 21, width: Double? = nil,
    force: Double? = nil, ink: InkType = .pen, color: InkColor = .black, page: String? = nil, order: String = "a0",
    transform: InkTransform = .identity
  ) -> InkStroke {
    var channels: InkChannels = []
    if width != nil { channels.insert(.width) }
    if force != nil { channels.insert(.force) }
    let points = (0..<count).map { index -> InkPoint in
      let t = count == 1 ? 0 : Double(index) / Double(count - 1)
      return InkPoint(
        x: start.0 + (end.0 - start.0) * t, y: start.1 + (end.1 - start.1) * t, width: width ?? 0,
        force: force ?? 1)
    }
    return InkStroke(
      id: id, page: page, order: order, ink: ink, color: color, transform: transform, channels: channels,
      points: points)
  }

  /// A stroke through the given points with a constant width channel.
  private func polyline(_ id: String, _ points: [(Double, Double)], width: Double, order: String = "a0") -> InkStroke {
    InkStroke(
      id: id, order: order, channels: [.width],
      points: points.map { InkPoint(x: $0.0, y: $0.1, width: width) })
  }

  private func extent(_ polygons: [[(x: Double, y: Double)]]) -> InkRect? {
    InkRect(enclosing: polygons.flatMap { $0 })
  }

  /// Shoelace area, positive or negative by winding.
  private func signedArea(_ polygon: [(x: Double, y: Double)]) -> Double {
    var sum = 0.0
    for index in polygon.indices {
      let next = polygon[(index + 1) % polygon.count]
      sum += polygon[index].x * next.y - next.x * polygon[index].y
    }
    return sum / 2
  }

  // MARK: - Outline geometry (expectations by hand)

  func testStraightStrokeOfConstantWidthSpansHalfTheWidthEachSide() {
    let width = 6.0
    let stroke = line("s", from: (10, 50), to: (110, 50), width: width)
    let polygons = StrokeOutline.polygons(of: stroke)
    XCTAssertEqual(polygons.count, 1, "a straight stroke is one piece")
    let box = try! XCTUnwrap(extent(polygons))
    XCTAssertEqual(box.minY, 50 - width / 2, accuracy: 1e-9)
    XCTAssertEqual(box.maxY, 50 + width / 2, accuracy: 1e-9)
    // Round caps reach about half the width beyond each end, never more.
    XCTAssertLessThanOrEqual(box.maxX, 110 + width / 2 + 1e-9)
    XCTAssertGreaterThan(box.maxX, 110 + 0.9 * width / 2)
    XCTAssertGreaterThanOrEqual(box.minX, 10 - width / 2 - 1e-9)
    XCTAssertLessThan(box.minX, 10 - 0.9 * width / 2)
    // Left side forward, caps, right side back: a simple closed loop of area ≈ length × width + a circle.
    let expected = 100 * width + Double.pi * (width / 2) * (width / 2)
    XCTAssertEqual(abs(signedArea(polygons[0])), expected, accuracy: 0.03 * expected)
  }

  func testPathDataStaysWithinTheOutlineAndUsesAtMostTwoDecimals() throws {
    let width = 6.0
    let stroke = line("s", from: (10.123, 50.5), to: (110.456, 50.5), width: width)
    let data = StrokeOutline.pathData(of: stroke)
    XCTAssertNil(data.range(of: #"\.\d{3}"#, options: .regularExpression), data)
    XCTAssertNil(data.range(of: #"[^Mqt0-9 ,.\-Z]"#, options: .regularExpression), data)
    let points = try absolutePoints(ofPath: data)
    XCTAssertFalse(points.isEmpty)
    for point in points {
      XCTAssertGreaterThanOrEqual(point.y, 50.5 - width / 2 - 0.01, "\(point)")
      XCTAssertLessThanOrEqual(point.y, 50.5 + width / 2 + 0.01, "\(point)")
      XCTAssertGreaterThanOrEqual(point.x, 10.123 - width / 2 - 0.01, "\(point)")
      XCTAssertLessThanOrEqual(point.x, 110.456 + width / 2 + 0.01, "\(point)")
    }
    // The sides are straight: curve points on them lie exactly on y = 50.5 ± 3 (to the written 1/100 pt).
    XCTAssertTrue(points.contains { abs($0.y - 53.5) < 0.006 && $0.x > 50 && $0.x < 70 })
    XCTAssertTrue(points.contains { abs($0.y - 47.5) < 0.006 && $0.x > 50 && $0.x < 70 })
  }

  func testPathCurvesAreControlledByTheOutlineVertices() throws {
    // A gentle bend (one piece), so the outline has vertices off any one line.
    let stroke = polyline("b", [(10, 10), (30, 12), (50, 20), (60, 35), (62, 50)], width: 5)
    let polygons = StrokeOutline.polygons(of: stroke)
    XCTAssertEqual(polygons.count, 1)
    let points = try absolutePoints(ofPath: StrokeOutline.pathData(of: stroke))
    // After the M, control and end points alternate; the curves start at the first edge's midpoint, so the first
    // control point is vertex 1 and the last is vertex 0.
    let controls = stride(from: 1, to: points.count, by: 2).map { points[$0] }
    let vertices = polygons[0]
    XCTAssertEqual(controls.count, vertices.count)
    for (control, vertex) in zip(controls, vertices[1...] + [vertices[0]]) {
      XCTAssertEqual(control.x, vertex.x, accuracy: 0.011)
      XCTAssertEqual(control.y, vertex.y, accuracy: 0.011)
    }
  }

  func testSinglePointIsARoundDot() {
    // A pen without a width channel draws 2 pt wide.
    for stroke in [line("dot", from: (30, 40), to: (30, 40), count: 1), line("same", from: (30, 40), to: (30, 40))] {
      let polygons = StrokeOutline.polygons(of: stroke)
      XCTAssertEqual(polygons.count, 1, stroke.id)
      let dot = polygons[0]
      XCTAssertGreaterThanOrEqual(dot.count, 8, stroke.id)
      for vertex in dot {
        XCTAssertEqual(hypot(vertex.x - 30, vertex.y - 40), 1, accuracy: 1e-9, stroke.id)
      }
      // A regular polygon inscribed in the unit circle: area between 0.9π and π.
      let area = abs(signedArea(dot))
      XCTAssertGreaterThan(area, 0.9 * Double.pi, stroke.id)
      XCTAssertLessThanOrEqual(area, Double.pi, stroke.id)
    }
  }

  func testRepeatedPointsDoNotBreakTheOutline() {
    var points: [(Double, Double)] = []
    for x in stride(from: 0.0, through: 40, by: 10) { points += Array(repeating: (x, 20.0), count: 4) }
    let polygons = StrokeOutline.polygons(of: polyline("r", points, width: 4))
    XCTAssertEqual(polygons.count, 1)
    let box = try! XCTUnwrap(extent(polygons))
    XCTAssertEqual(box.minY, 18, accuracy: 1e-9)
    XCTAssertEqual(box.maxY, 22, accuracy: 1e-9)
    XCTAssertTrue(polygons.joined().allSatisfy { $0.x.isFinite && $0.y.isFinite })
  }

  func testHigherForceDrawsWider() {
    // No width channel: the pen's 2 pt, times 1 + thinning × (force − 1) with the default thinning 0.5.
    let light = line("light", from: (0, 0), to: (100, 0), force: 0.5)
    let firm = line("firm", from: (0, 0), to: (100, 0), force: 2)
    let lightBox = try! XCTUnwrap(extent(StrokeOutline.polygons(of: light)))
    let firmBox = try! XCTUnwrap(extent(StrokeOutline.polygons(of: firm)))
    XCTAssertEqual(lightBox.maxY, 0.75, accuracy: 1e-9)
    XCTAssertEqual(firmBox.maxY, 1.5, accuracy: 1e-9)
    XCTAssertEqual(StrokeOutline.radii(of: firm).first, 1.5)
  }

  func testTransformMovesAndScalesTheOutline() {
    let scaled = line(
      "t", from: (0, 0), to: (50, 0), width: 2, transform: InkTransform(a: 2, b: 0, c: 0, d: 2, tx: 10, ty: 100))
    let box = try! XCTUnwrap(extent(StrokeOutline.polygons(of: scaled)))
    XCTAssertEqual(box.minY, 98, accuracy: 1e-9)
    XCTAssertEqual(box.maxY, 102, accuracy: 1e-9)
    XCTAssertGreaterThan(box.maxX, 110)
    XCTAssertLessThanOrEqual(box.maxX, 112 + 1e-9)
  }

  func testSharpTurnsSplitIntoPiecesWoundTheSameWay() {
    let hairpin = polyline("v", [(0, 0), (50, 0), (0, 3)], width: 4)
    let polygons = StrokeOutline.polygons(of: hairpin)
    XCTAssertEqual(polygons.count, 2, "a turn of more than a right angle splits the outline")
    let signs = polygons.map { signedArea($0) > 0 }
    XCTAssertEqual(Set(signs).count, 1, "pieces must wind alike or the non-zero fill cuts holes where they overlap")
    XCTAssertTrue(polygons.joined().allSatisfy { $0.x.isFinite && $0.y.isFinite })
  }

  // MARK: - SVG structure

  func testSVGIsWellFormedXMLWithOnePathPerDrawnStrokeInDrawingOrder() throws {
    var document = InkDocument(pages: [InkPage(id: "p1", order: "a0", width: 300, height: 200)])
    document.strokes = [
      line("c-top", from: (10, 10), to: (50, 10), page: "p1", order: "a2"),
      line("a-bottom", from: (10, 20), to: (50, 20), page: "p1", order: "a0"),
      line("erased", from: (10, 30), to: (50, 30), ink: .eraser, page: "p1", order: "a1"),
      line("odd <&\"'> id", from: (10, 40), to: (50, 40), ink: .other("sparkle"), page: "p1", order: "a3"),
      line(
        "hl", from: (10, 50), to: (50, 50), ink: .highlighter, color: InkColor(red: 255, green: 0, blue: 0, alpha: 128),
        page: "p1", order: "a4"),
      line("marker", from: (10, 60), to: (50, 60), ink: .marker, page: "p1", order: "a5"),
    ]
    let svg = try InkSVG.render(document)
    let elements = try parseXML(svg)
    let root = try XCTUnwrap(elements.first)
    XCTAssertEqual(root.name, "svg")
    XCTAssertEqual(root.attributes["xmlns"], "http://www.w3.org/2000/svg")
    XCTAssertEqual(root.attributes["viewBox"], "0 0 300 200")
    XCTAssertEqual(root.attributes["width"], "300pt")
    XCTAssertEqual(root.attributes["height"], "200pt")
    let paths = elements.filter { $0.name == "path" }
    XCTAssertEqual(paths.map { $0.attributes["data-id"] }, ["a-bottom", "c-top", "odd <&\"'> id", "hl", "marker"])
    // Unknown ink draws as an opaque pen.
    XCTAssertEqual(paths[2].attributes["fill"], "#000000")
    XCTAssertNil(paths[2].attributes["fill-opacity"])
    XCTAssertNil(paths[2].attributes["style"])
    // A highlighter whose colour is already translucent keeps its alpha, 128/255 = 0.502 (not faded twice).
    XCTAssertEqual(paths[3].attributes["fill"], "#ff0000")
    XCTAssertEqual(paths[3].attributes["fill-opacity"], "0.502")
    XCTAssertEqual(paths[3].attributes["style"], "mix-blend-mode:multiply")
    // An opaque marker colour is made see-through: 0.35.
    XCTAssertEqual(paths[4].attributes["fill-opacity"], "0.35")
    XCTAssertEqual(paths[4].attributes["style"], "mix-blend-mode:multiply")
    let background = try XCTUnwrap(elements.first { $0.name == "rect" })
    XCTAssertEqual(background.attributes["fill"], "#ffffff")
  }

  func testControlCharactersInIdsStillMakeValidXML() throws {
    let document = InkDocument(strokes: [line("a\u{1}b\tc", from: (0, 0), to: (10, 0))])
    let paths = try parseXML(try InkSVG.render(document)).filter { $0.name == "path" }
    XCTAssertEqual(paths.map { $0.attributes["data-id"] }, ["a\u{FFFD}b\tc"])
  }

  func testPageWithoutSizeIsFramedByItsStrokesPlusMargin() throws {
    let document = InkDocument(strokes: [line("s", from: (100, 100), to: (200, 150), width: 2)])
    let root = try XCTUnwrap(parseXML(try InkSVG.render(document, options: .init(margin: 10))).first)
    let box = try XCTUnwrap(root.attributes["viewBox"]).split(separator: " ").compactMap { Double($0) }
    XCTAssertEqual(box.count, 4)
    // Stroke from (100,100) to (200,150), 1 pt either side, 10 pt margin, rounded outward to whole points.
    XCTAssertEqual(box[0], 89)
    XCTAssertEqual(box[1], 89)
    XCTAssertEqual(box[0] + box[2], 211)
    XCTAssertEqual(box[1] + box[3], 161)
  }

  func testPageSelection() throws {
    var document = InkDocument(pages: [
      InkPage(id: "p2", order: "a1", width: 100, height: 50), InkPage(id: "p1", order: "a0", width: 200, height: 80),
    ])
    document.strokes = [line("on-p2", from: (10, 10), to: (50, 10), page: "p2")]
    let first = try parseXML(try InkSVG.render(document))
    XCTAssertEqual(first.first?.attributes["viewBox"], "0 0 200 80", "the first page in display order")
    XCTAssertTrue(first.filter { $0.name == "path" }.isEmpty)
    let second = try parseXML(try InkSVG.render(document, page: .page("p2")))
    XCTAssertEqual(second.filter { $0.name == "path" }.map { $0.attributes["data-id"] }, ["on-p2"])
    XCTAssertThrowsError(try InkSVG.render(document, page: .page("nope"))) { error in
      XCTAssertEqual(error as? InkRenderError, .noSuchPage("nope", available: ["p1", "p2"]))
      XCTAssertEqual("\(error)", "the drawing has no page \"nope\"; its pages are \"p1\", \"p2\"")
    }
    XCTAssertThrowsError(try InkSVG.render(document, page: .implicit))
    XCTAssertEqual(InkSVG.pages(of: document), ["p1", "p2"])

    let all = try parseXML(try InkSVG.render(document, page: .all, options: .init(pageGap: 20)))
    XCTAssertEqual(all.first?.attributes["viewBox"], "0 0 200 150")
    let nested = all.dropFirst().filter { $0.name == "svg" }
    XCTAssertEqual(nested.map { $0.attributes["data-page"] }, ["p1", "p2"])
    XCTAssertEqual(nested.map { $0.attributes["y"] }, ["0", "100"])
  }

  func testRendersAfterARoundTripThroughTheCodec() throws {
    let document = InkDocument(strokes: [line("s", from: (0, 0), to: (40, 10), width: 3)])
    let parsed = try InkCodec.parse(InkCodec.serialize(document))
    XCTAssertEqual(try InkSVG.render(parsed), try InkSVG.render(document))
  }

  // MARK: - Pixels from a real renderer (librsvg)

  private let dark: (RGBA) -> Bool = { $0.brightness < 80 }
  private let white: (RGBA) -> Bool = { $0.red > 250 && $0.green > 250 && $0.blue > 250 }

  /// A 200 × 100 pt page, rendered at one pixel per point.
  private func rasterize(_ strokes: [InkStroke], file: StaticString = #filePath, line: UInt = #line) throws
    -> RasterImage
  {
    var document = InkDocument(pages: [InkPage(id: "p", order: "a0", width: 200, height: 100)])
    document.strokes = strokes.map {
      var stroke = $0
      stroke.page = "p"
      return stroke
    }
    let image = try Raster.render(svg: try InkSVG.render(document), width: 200, height: 100)
    XCTAssertEqual(image.width, 200, file: file, line: line)
    XCTAssertEqual(image.height, 100, file: file, line: line)
    return image
  }

  func testRenderedStrokeInksItsAreaAndNothingElse() throws {
    // 10 pt wide along y = 50 from x = 20 to 180: rows 45...54 are inside (pixel centres 45.5 to 54.5).
    let image = try rasterize([line("s", from: (20, 50), to: (180, 50), width: 10)])
    for x in [30, 100, 170] {
      for y in 46...53 { XCTAssertTrue(dark(image.pixel(x, y)), "(\(x), \(y)) \(image.pixel(x, y))") }
      for y in [0, 30, 42, 58, 70, 99] { XCTAssertTrue(white(image.pixel(x, y)), "(\(x), \(y)) \(image.pixel(x, y))") }
      XCTAssertEqual(Double(image.count(column: x, where: dark)), 10, accuracy: 1)
    }
    // Beyond the round caps.
    for x in [0, 10, 190, 199] { XCTAssertTrue(white(image.pixel(x, 50)), "(\(x), 50) \(image.pixel(x, 50))") }
    XCTAssertTrue(dark(image.pixel(17, 50)), "the start cap reaches 5 pt before the first point")
  }

  func testSparseInputKeepsItsCornersSharp() throws {
    // A box drawn with only its four corners (as imported InkML often is), 6 pt wide: the corner square around
    // (20, 20) is inked out to 3 pt, and the inside of the box stays blank right up to the stroke.
    let image = try rasterize([polyline("box", [(20, 20), (80, 20), (80, 80), (20, 80), (20, 20)], width: 6)])
    for (x, y) in [(18, 18), (80, 18), (81, 20), (81, 80), (80, 81), (20, 81), (18, 80), (50, 18), (50, 81)] {
      XCTAssertTrue(dark(image.pixel(x, y)), "(\(x), \(y)) \(image.pixel(x, y))")
    }
    for (x, y) in [(25, 25), (75, 25), (75, 75), (25, 75), (50, 50)] {
      XCTAssertTrue(white(image.pixel(x, y)), "(\(x), \(y)) \(image.pixel(x, y))")
    }
  }

  func testStrokesOnAPageWithoutARecordAreWhatTheFirstPageShows() throws {
    let document = InkDocument(strokes: [line("s", from: (10, 10), to: (50, 10), page: "p1")])
    XCTAssertEqual(InkSVG.pages(of: document), ["p1"])
    let svg = try InkSVG.render(document)
    XCTAssertEqual(svg.components(separatedBy: "<path ").count - 1, 1, svg)
    XCTAssertEqual(InkSVG.pages(of: InkDocument()), [nil], "an empty drawing still shows one empty page")
  }

  func testLongZigZagsCannotBlowUpTheOutline() throws {
    // 10 000 points jumping 20 000 pt back and forth: cut into nib-sized steps without a budget, that would be 10^8
    // centreline points and gigabytes of path.
    let points = (0..<10_000).map { InkPoint(x: $0 % 2 == 0 ? 0 : 20_000, y: Double($0) / 100) }
    let stroke = InkStroke(id: "z", order: "a", points: points)
    let svg = try InkSVG.render(InkDocument(strokes: [stroke]))
    XCTAssertLessThan(svg.utf8.count, 5_000_000)
  }

  func testThickStrokeIsWiderThanThinInPixels() throws {
    let image = try rasterize([
      line("thin", from: (20, 25), to: (180, 25), width: 4),
      line("thick", from: (20, 70), to: (180, 70), width: 16),
    ])
    let thin = (0..<50).filter { dark(image.pixel(100, $0)) }.count
    let thick = (50..<100).filter { dark(image.pixel(100, $0)) }.count
    XCTAssertEqual(Double(thin), 4, accuracy: 1)
    XCTAssertEqual(Double(thick), 16, accuracy: 1)
  }

  func testHighlighterIsTranslucentOverWhiteAndOverInk() throws {
    let red = InkColor(red: 255, green: 0, blue: 0)
    let image = try rasterize([
      line("pen", from: (100, 10), to: (100, 90), width: 6, order: "a0"),
      line("marker", from: (20, 50), to: (180, 50), width: 20, ink: .highlighter, color: red, order: "a1"),
      line("red pen", from: (20, 85), to: (180, 85), width: 6, color: red, order: "a2"),
    ])
    // Over white: a light red, not the full red the pen draws.
    let over = image.pixel(50, 50)
    XCTAssertGreaterThan(over.red, 240, "\(over)")
    XCTAssertGreaterThan(over.green, 120, "\(over)")
    XCTAssertLessThan(over.green, 230, "\(over)")
    XCTAssertEqual(over.green, over.blue)
    let pen = image.pixel(50, 85)
    XCTAssertGreaterThan(pen.red, 240, "\(pen)")
    XCTAssertLessThan(pen.green, 15, "\(pen)")
    // The black line stays visible under the highlighter.
    XCTAssertTrue(dark(image.pixel(100, 50)), "\(image.pixel(100, 50))")
  }

  func testSharpTurnsAndTightLoopsLeaveNoHoles() throws {
    // A hairpin: out along y = 30, back along y = 36, 10 pt wide; the two legs overlap.
    let hairpin = polyline("hairpin", [(20, 30), (150, 30), (20, 36)], width: 10)
    // A circle of radius 3 drawn 14 pt wide: ink covers its centre.
    let loop = polyline(
      "loop",
      (0...40).map { step in
        let angle = 2 * Double.pi * Double(step) / 32
        return (100 + 3 * cos(angle), 75 + 3 * sin(angle))
      }, width: 14)
    let image = try rasterize([hairpin, loop])
    // The legs: y = 30 ± 5 and y = 30 + 6 × (150 − x) / 130 ± 5.
    for (x, rows) in [(40, 26...39), (100, 26...36), (140, 26...34)] {
      for y in rows { XCTAssertTrue(dark(image.pixel(x, y)), "hairpin (\(x), \(y)) \(image.pixel(x, y))") }
    }
    // Round at the turn: pixels within 4 pt of (150, 30) (streamlining may cut the corner by a quarter radius).
    for (x, y) in [(150, 30), (152, 30), (150, 33), (147, 33)] {
      XCTAssertTrue(dark(image.pixel(x, y)), "hairpin (\(x), \(y)) \(image.pixel(x, y))")
    }
    for x in 96...104 {
      for y in 71...79 { XCTAssertTrue(dark(image.pixel(x, y)), "loop (\(x), \(y)) \(image.pixel(x, y))") }
    }
    XCTAssertTrue(white(image.pixel(100, 92)))
    XCTAssertTrue(white(image.pixel(170, 33)))
  }

  func testEraserStrokesAreNotDrawnAndTransformsApply() throws {
    let image = try rasterize([
      line("eraser", from: (20, 20), to: (180, 20), width: 10, ink: .eraser),
      line(
        "moved", from: (0, 0), to: (80, 0), width: 5,
        transform: InkTransform(a: 2, b: 0, c: 0, d: 2, tx: 20, ty: 70)),
    ])
    XCTAssertEqual(image.count(row: 20, where: dark), 0)
    // Drawn from x = 20 to 180 on y = 70, 10 pt wide after the scale.
    XCTAssertTrue(dark(image.pixel(100, 70)))
    XCTAssertTrue(dark(image.pixel(100, 66)))
    XCTAssertTrue(white(image.pixel(100, 60)))
    XCTAssertTrue(white(image.pixel(10, 0)))
  }

  func testMaskClipsTheStroke() throws {
    // The mask keeps x < 100 of a stroke across the whole page.
    var stroke = line("masked", from: (20, 50), to: (180, 50), width: 10)
    stroke.mask = "M0,0H100V100H0Z"
    let image = try rasterize([stroke])
    XCTAssertTrue(dark(image.pixel(60, 50)), "\(image.pixel(60, 50))")
    XCTAssertTrue(white(image.pixel(140, 50)), "\(image.pixel(140, 50))")
    let document = InkDocument(strokes: [stroke])
    let elements = try parseXML(try InkSVG.render(document))
    let clip = try XCTUnwrap(elements.first { $0.name == "clipPath" }?.attributes["id"])
    XCTAssertEqual(
      elements.first { $0.name == "path" && $0.attributes["data-id"] == "masked" }?.attributes["clip-path"],
      "url(#\(clip))")
  }

  // MARK: - Helpers

  private struct Element {
    var name: String
    var attributes: [String: String]
  }

  private final class Collector: NSObject, XMLParserDelegate {
    var elements: [Element] = []
    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      elements.append(Element(name: elementName, attributes: attributes))
    }
  }

  private struct NotXML: Error, CustomStringConvertible {
    var description: String
  }

  /// Every element in document order, from Foundation's XML parser: fails on anything that is not well-formed.
  private func parseXML(_ text: String) throws -> [Element] {
    let parser = XMLParser(data: Data(text.utf8))
    let collector = Collector()
    parser.delegate = collector
    guard parser.parse() else {
      throw NotXML(description: "not well-formed XML: \(String(describing: parser.parserError))\n\(text.prefix(2000))")
    }
    return collector.elements
  }

  private struct BadPath: Error {
    var reason: String
  }

  /// The absolute coordinates of every control and end point in path data made of `M`, `q`, `t` (each repeated)
  /// and `Z`, read by this test's own tokenizer; `t`'s control point is the previous one mirrored (SVG 1.1, 8.3.7).
  private func absolutePoints(ofPath data: String) throws -> [(x: Double, y: Double)] {
    var tokens: [String] = []
    var number = ""
    func flush() {
      if !number.isEmpty { tokens.append(number) }
      number = ""
    }
    for character in data {
      switch character {
      case "M", "q", "t", "Z":
        flush()
        tokens.append(String(character))
      case " ", ",": flush()
      case "-":
        flush()
        number = "-"
      default: number.append(character)
      }
    }
    flush()
    var points: [(x: Double, y: Double)] = []
    var current = (x: 0.0, y: 0.0)
    var start = current
    var lastControl = current
    var command = ""
    var index = 0
    func next() throws -> Double {
      guard index < tokens.count, let value = Double(tokens[index]) else { throw BadPath(reason: "at token \(index)") }
      index += 1
      return value
    }
    while index < tokens.count {
      if ["M", "q", "t", "Z"].contains(tokens[index]) {
        command = tokens[index]
        index += 1
        if command == "Z" {
          current = start
          continue
        }
      }
      switch command {
      case "M":
        current = (try next(), try next())
        start = current
        points.append(current)
      case "q":
        let control = (x: current.x + (try next()), y: current.y + (try next()))
        let end = (x: current.x + (try next()), y: current.y + (try next()))
        points += [control, end]
        current = end
        lastControl = control
      case "t":
        let control = (x: 2 * current.x - lastControl.x, y: 2 * current.y - lastControl.y)
        let end = (x: current.x + (try next()), y: current.y + (try next()))
        points += [control, end]
        current = end
        lastControl = control
      default: throw BadPath(reason: "numbers after \(command)")
      }
    }
    return points
  }
}

import Foundation
import InkKit
import XCTest

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Expected values are worked out by hand from the InkML 1.0 recommendation (units, difference encodings) and
/// written next to each case.
final class InkMLTests: XCTestCase {
  private static let created = Date(timeIntervalSince1970: 1_800_000_000)

  /// Reads with ids s1, s2, ... so tests can name strokes.
  private func read(_ xml: String, file: StaticString = #filePath, line: UInt = #line) throws -> InkDocument {
    var next = 0
    return try InkML.read(Data(xml.utf8), created: Self.created) {
      next += 1
      return "s\(next)"
    }
  }

  private func ink(_ body: String) -> String {
    "<ink xmlns=\"http://www.w3.org/2003/InkML\">\n\(body)\n</ink>"
  }

  private func xy(_ stroke: InkStroke) -> [[Double]] {
    stroke.points.map { [$0.x, $0.y] }
  }

  private func assertClose(
    _ actual: [Double], _ expected: [Double], accuracy: Double = 1e-9, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertEqual(actual.count, expected.count, "\(actual) vs \(expected)", file: file, line: line)
    for (a, e) in zip(actual, expected) {
      XCTAssertEqual(a, e, accuracy: accuracy, "\(actual) vs \(expected)", file: file, line: line)
    }
  }

  private func assertError(
    _ xml: String, line expectedLine: Int?? = .none, contains fragment: String, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertThrowsError(try read(xml), file: file, line: line) { error in
      guard let error = error as? InkMLError else {
        return XCTFail("not an InkMLError: \(error)", file: file, line: line)
      }
      XCTAssertTrue(
        error.description.contains(fragment), "\(error.description) lacks \(fragment)", file: file, line: line)
      XCTAssertFalse(error.description.contains("\n"), "one line: \(error.description)", file: file, line: line)
      if case .some(let expected) = expectedLine {
        XCTAssertEqual(error.line, expected, error.description, file: file, line: line)
      }
    }
  }

  // MARK: Traces

  func testDefaultFormatIsXYAndEveryTraceIsAStroke() throws {
    let document = try read(ink("<trace>10 0, 9 14, 8 28</trace>\n<trace>130 155, 144 159</trace>"))
    XCTAssertEqual(document.strokes.map(\.id), ["s1", "s2"])
    XCTAssertEqual(xy(document.strokes[0]), [[10, 0], [9, 14], [8, 28]])
    XCTAssertEqual(xy(document.strokes[1]), [[130, 155], [144, 159]])
    XCTAssertTrue(document.pages.isEmpty)
    for stroke in document.strokes {
      XCTAssertEqual(stroke.channels, [])
      XCTAssertNil(stroke.page)
      XCTAssertEqual(stroke.created, Self.created)
      XCTAssertEqual(stroke.ink, .pen)
      XCTAssertEqual(stroke.color, .black)
      XCTAssertTrue(stroke.transform.isIdentity)
    }
    XCTAssertLessThan(document.strokes[0].order, document.strokes[1].order)
    XCTAssertEqual(document.drawingOrder.map(\.id), ["s1", "s2"])
  }

  func testSpecExampleWithFirstAndSecondDifferences() throws {
    // InkML §3.2.1's example: 1125 18432 explicit; '23'43 velocities; "7"-8 accelerations, and the later unprefixed
    // values stay second differences.
    //   p2 = p1 + (23, 43)                      = (1148, 18475)
    //   v = (23+7, 43-8) = (30, 35);  p3        = (1178, 18510)
    //   v = (33, 30);                 p4        = (1211, 18540)
    //   v = (40, 27);                 p5        = (1251, 18567)
    //   v = (46, 29);                 p6        = (1297, 18596)
    //   v = (52, 37);                 p7        = (1349, 18633)
    //   v = (55, 43);                 p8        = (1404, 18676)
    let document = try read(ink("<trace>1125 18432,'23'43,\"7\"-8,3-5,7-3,6 2,6 8,3 6</trace>"))
    XCTAssertEqual(
      xy(document.strokes[0]),
      [
        [1125, 18432], [1148, 18475], [1178, 18510], [1211, 18540], [1251, 18567], [1297, 18596], [1349, 18633],
        [1404, 18676],
      ])
  }

  func testExplicitPrefixEndsDifferencesAndPrefixesArePerChannel() throws {
    // X: 10, then '5 → 15, '5 → 20, !3 → 3, 4 → 4 (explicit again).
    // Y: 100 explicit throughout, except "'-1" on point 3 → 99, then "98" is still a first difference → 197.
    let document = try read(ink("<trace>10 100, '5 100, 5 '-1, !3 98, 4 !0</trace>"))
    XCTAssertEqual(xy(document.strokes[0]), [[10, 100], [15, 100], [20, 99], [3, 197], [4, 0]])
  }

  func testSecondDifferenceAfterExplicitValuesUsesTheirVelocity() throws {
    // 0, 10, 30 explicit: the last velocity is 20; "1 → velocity 21 → 51; 0 → still 21 → 72.
    let document = try read(ink("<trace>0 0, 10 0, 30 0, \"1 0, 0 0</trace>"))
    XCTAssertEqual(document.strokes[0].points.map(\.x), [0, 10, 30, 51, 72])
  }

  func testTraceTextMayUseCDATAAndCharacterReferences() throws {
    let document = try read(ink("<trace><![CDATA[1 2,]]>&#32;3&#x20;4</trace>"))
    XCTAssertEqual(xy(document.strokes[0]), [[1, 2], [3, 4]])
  }

  func testValuesMayBeGluedTogetherAndUseExponentsHexAndSpecialValues() throws {
    // "3-5" is 3 and -5; 1e1 is 10; #1F is 31; "*" and "?" keep the previous value.
    let document = try read(ink("<trace>3-5, 1e1 #1F, * -2.5, .5 ?, - 4 +6</trace>"))
    XCTAssertEqual(xy(document.strokes[0]), [[3, -5], [10, 31], [10, -2.5], [0.5, -2.5], [-4, 6]])
  }

  // MARK: Units and channels

  func testLengthUnitsBecomePoints() throws {
    // 1 in = 72 pt; 2.54 cm = 1 in; 25.4 mm = 1 in; 96 px = 1 in; 2540 himetric (0.01 mm) = 1 in; 6 pc = 1 in.
    let units = [
      ("in", "1"), ("cm", "2.54"), ("mm", "25.4"), ("px", "96"), ("himetric", "2540"), ("pt", "72"),
      ("pc", "6"),
    ]
    for (unit, oneInch) in units {
      let xml = ink(
        """
        <traceFormat><channel name="X" type="decimal" units="\(unit)"/><channel name="Y" units="\(unit)"/></traceFormat>
        <trace>\(oneInch) 0, 0 \(oneInch)</trace>
        """)
      let stroke = try read(xml).strokes[0]
      assertClose(xy(stroke).flatMap { $0 }, [72, 0, 0, 72], accuracy: 1e-9)
    }
  }

  func testTimeIsSecondsSinceTheTracesFirstPoint() throws {
    let seconds = try read(
      ink(
        """
        <traceFormat><channel name="X"/><channel name="Y"/><channel name="T" units="s"/></traceFormat>
        <trace>0 0 10, 1 1 10.5, 2 2 11.25</trace>
        """)
    ).strokes[0]
    XCTAssertEqual(seconds.channels, [.time])
    assertClose(seconds.points.map(\.time), [0, 0.5, 1.25])
    // Without units T is milliseconds, the unit capture software writes.
    let millis = try read(
      ink(
        """
        <traceFormat><channel name="X"/><channel name="Y"/><channel name="T"/></traceFormat>
        <trace>0 0 1000, 1 1 1250, 2 2 '250</trace>
        """)
    ).strokes[0]
    assertClose(millis.points.map(\.time), [0, 0.25, 0.5])
  }

  func testForceIsScaledByTheChannelRangeOrTheFilesLargestValue() throws {
    let ranged = try read(
      ink(
        """
        <traceFormat><channel name="X"/><channel name="Y"/><channel name="F" min="0" max="1024"/></traceFormat>
        <trace>0 0 0, 1 1 512, 2 2 1024</trace>
        """)
    ).strokes[0]
    XCTAssertEqual(ranged.channels, [.force])
    assertClose(ranged.points.map(\.force), [0, 0.5, 1])

    let fractions = try read(
      ink(
        """
        <traceFormat><channel name="X"/><channel name="Y"/><channel name="F"/></traceFormat>
        <trace>0 0 0.25, 1 1 0.75</trace>
        """)
    ).strokes[0]
    assertClose(fractions.points.map(\.force), [0.25, 0.75])

    // No range and values above 1: device units, scaled by the largest in the whole file (200).
    let device = try read(
      ink(
        """
        <traceFormat><channel name="X"/><channel name="Y"/><channel name="F"/></traceFormat>
        <trace>0 0 50, 1 1 100</trace>
        <trace>0 0 200</trace>
        """))
    assertClose(device.strokes[0].points.map(\.force), [0.25, 0.5])
    assertClose(device.strokes[1].points.map(\.force), [1])
  }

  func testWidthAnglesIntermittentChannelsAndOrientation() throws {
    let xml = ink(
      """
      <traceFormat>
        <channel name="X" units="mm"/><channel name="Y" units="in" orientation="-ve"/>
        <channel name="W" units="mm"/><channel name="OA"/><channel name="OE" units="rad"/>
        <intermittentChannels><channel name="S" default="T"/><channel name="B1" default="3"/></intermittentChannels>
      </traceFormat>
      <trace>25.4 1 2.54 90 1.5, 0 2 0 180 0.5 F, 0 0 0 0 0 F 7</trace>
      """)
    let stroke = try read(xml).strokes[0]
    XCTAssertEqual(stroke.channels, [.width, .azimuth, .altitude])
    // Y grows upward (-ve): 1 in → -72 pt. W 2.54 mm → 7.2 pt. OA in degrees: 90° → π/2.
    assertClose(xy(stroke).flatMap { $0 }, [72, -72, 0, -144, 0, 0])
    assertClose(stroke.points.map(\.width), [7.2, 0, 0])
    assertClose(stroke.points.map(\.azimuth), [Double.pi / 2, Double.pi, 0])
    assertClose(stroke.points.map(\.altitude), [1.5, 0.5, 0])
  }

  // MARK: Brushes, contexts, groups

  private let brushes = """
    <definitions>
      <brush xml:id="red"><brushProperty name="color" value="#FF0000"/>
        <brushProperty name="width" value="0.5" units="mm"/></brush>
      <brush xml:id="halfBlue"><brushProperty name="color" value="blue"/>
        <brushProperty name="transparency" value="0.5"/></brush>
      <brush xml:id="byteGreen" brushRef="#halfBlue"><brushProperty name="color" value="#0a0"/>
        <brushProperty name="transparency" value="128"/></brush>
      <brush xml:id="hl"><brushProperty name="color" value="#FFFF00"/>
        <brushProperty name="rasterOp" value="maskPen"/></brush>
      <brush xml:id="marker"><brushProperty name="nb:ink" value="marker"/></brush>
      <context xml:id="cm"><traceFormat><channel name="X" units="cm"/><channel name="Y" units="cm"/></traceFormat>
        <brush><brushProperty name="width" value="0.1"/></brush></context>
    </definitions>
    """

  func testBrushesGiveColourTransparencyWidthAndInk() throws {
    let document = try read(
      ink(
        brushes + """
          <trace brushRef="#red">0 0</trace>
          <trace brushRef="#halfBlue">0 0</trace>
          <trace brushRef="byteGreen">0 0</trace>
          <trace brushRef="#hl">0 0</trace>
          <trace brushRef="#marker">0 0</trace>
          <trace contextRef="#cm">1 1</trace>
          """))
    let strokes = document.strokes
    XCTAssertEqual(strokes.count, 6)
    XCTAssertEqual(strokes[0].color, InkColor(red: 255, green: 0, blue: 0))
    XCTAssertEqual(strokes[0].channels, [.width])
    // 0.5 mm = 0.5 × 72 / 25.4 pt.
    XCTAssertEqual(strokes[0].points[0].width, 0.5 * 72 / 25.4, accuracy: 1e-12)
    // Transparency 0.5 → alpha round(127.5) = 128.
    XCTAssertEqual(strokes[1].color, InkColor(red: 0, green: 0, blue: 255, alpha: 128))
    XCTAssertEqual(strokes[1].channels, [])
    // #0a0 is #00aa00; a transparency of 128 is a byte: alpha 255 − 128 = 127.
    XCTAssertEqual(strokes[2].color, InkColor(red: 0, green: 0xaa, blue: 0, alpha: 127))
    XCTAssertEqual(strokes[3].ink, .highlighter)
    XCTAssertEqual(strokes[3].color, InkColor(red: 255, green: 255, blue: 0))
    XCTAssertEqual(strokes[4].ink, .marker)
    XCTAssertEqual(strokes[4].color, .black)
    // The context's brush has no units: its width is in the context's X units (cm): 0.1 cm = 7.2 / 2.54 pt.
    XCTAssertEqual(strokes[5].points[0].width, 7.2 / 2.54, accuracy: 1e-12)
    XCTAssertEqual(strokes[5].points[0].x, 72 / 2.54, accuracy: 1e-12)
  }

  func testTraceGroupsPassTheirBrushAndContextDown() throws {
    let document = try read(
      ink(
        brushes + """
          <traceGroup brushRef="#red">
            <trace>0 0</trace>
            <traceGroup>
              <trace>1 1</trace>
              <traceGroup brushRef="#hl"><trace>2 2</trace></traceGroup>
              <trace brushRef="#marker">3 3</trace>
            </traceGroup>
            <traceGroup contextRef="#cm"><trace>1 0</trace></traceGroup>
          </traceGroup>
          <trace>4 4</trace>
          """))
    let strokes = document.strokes
    XCTAssertEqual(strokes.map(\.color.red), [255, 255, 255, 0, 0, 0])
    XCTAssertEqual(strokes.map(\.ink), [.pen, .pen, .highlighter, .marker, .pen, .pen])
    XCTAssertEqual(xy(strokes[3]), [[3, 3]])
    // The group's context brings its own brush (width 0.1 cm) and its cm coordinates.
    XCTAssertEqual(strokes[4].points[0].x, 72 / 2.54, accuracy: 1e-12)
    XCTAssertEqual(strokes[4].points[0].width, 7.2 / 2.54, accuracy: 1e-12)
    XCTAssertEqual(strokes[5].channels, [])
  }

  func testAContextInInkBecomesCurrentForLaterTraces() throws {
    let document = try read(
      ink(
        """
        <trace>1 1</trace>
        <context><traceFormat><channel name="X" units="in"/><channel name="Y" units="in"/></traceFormat></context>
        <trace>1 1</trace>
        """))
    XCTAssertEqual(xy(document.strokes[0]), [[1, 1]])
    XCTAssertEqual(xy(document.strokes[1]), [[72, 72]])
  }

  func testPenUpTracesDefinitionTracesAndAnnotationsAreNotDrawn() throws {
    let document = try read(
      ink(
        """
        <definitions><trace xml:id="hidden">5 5</trace></definitions>
        <annotation type="truth">hello</annotation>
        <annotationXML><trace>9 9</trace></annotationXML>
        <trace type="penUp">7 7</trace>
        <trace>1 2</trace>
        <other:thing xmlns:other="urn:x"><trace>8 8</trace></other:thing>
        """))
    XCTAssertEqual(document.strokes.map(xy), [[[1, 2]]])
  }

  // MARK: Errors

  func testNotXML() {
    assertError("hello, world", contains: "not well-formed XML")
    assertError("", contains: "empty or not XML")
    assertError("<ink xmlns=\"http://www.w3.org/2003/InkML\"><trace>1 2</ink>", contains: "XML")
    // libxml2's own account of the fault, on one line, with the line it is on.
    assertError(
      "<ink xmlns=\"http://www.w3.org/2003/InkML\">\n<trace>1 2</trace>\n<trace>3 4</tracer>\n</ink>", line: 3,
      contains: "mismatch")
    assertError("<ink xmlns=\"http://www.w3.org/2003/InkML\">\n<trace>1 2</trace>\n", contains: "truncated")
  }

  func testRootMustBeInk() {
    assertError("<svg xmlns=\"http://www.w3.org/2000/svg\"/>", line: 1, contains: "root element is <svg>")
    assertError("<ink xmlns=\"urn:other\"/>", line: 1, contains: "namespace urn:other")
  }

  func testVersion() throws {
    XCTAssertEqual(try read("<ink version=\"1.0\"><trace>1 2</trace></ink>").strokes.count, 1)
    XCTAssertEqual(try read("<ink><trace>1 2</trace></ink>").strokes.count, 1)
    assertError("<ink version=\"2.0\"><trace>1 2</trace></ink>", line: 1, contains: "unsupported InkML version '2.0'")
  }

  func testTooManyValuesInAPoint() {
    assertError(ink("<trace>1 2, 3 4 5</trace>"), line: 2, contains: "point 2 has more values than")
  }

  func testTooFewValuesAndEmptyPoints() {
    assertError(ink("<trace>1 2, 3</trace>"), line: 2, contains: "point 2 has 1 value")
    assertError(ink("<trace>1 2,, 3 4</trace>"), line: 2, contains: "point 2 is empty")
  }

  func testNonNumericValues() {
    assertError(ink("\n<trace xml:id=\"t9\">1 2, 3 abc</trace>"), line: 3, contains: "trace 't9': point 2 has 'abc'")
    assertError(ink("<trace>1 2, 3 4x</trace>"), line: 2, contains: "'4x'")
    assertError(
      ink("<traceFormat><channel name=\"X\" max=\"lots\"/><channel name=\"Y\"/></traceFormat>"), line: 2,
      contains: "max 'lots' is not a number")
  }

  func testUnknownReferencesAndUnits() {
    assertError(ink("<trace brushRef=\"#nope\">1 2</trace>"), line: 2, contains: "brushRef '#nope'")
    assertError(ink("<trace contextRef=\"#nope\">1 2</trace>"), line: 2, contains: "contextRef '#nope'")
    assertError(
      ink("<traceFormat><channel name=\"X\" units=\"furlong\"/><channel name=\"Y\"/></traceFormat>"), line: 2,
      contains: "units 'furlong'")
    assertError(
      ink("<brush><brushProperty name=\"color\" value=\"octarine\"/></brush>"), line: 2, contains: "'octarine'")
  }

  func testTooManyPoints() {
    let limit = InkCodec.maxPointsPerStroke
    var text = String(repeating: "0 0,", count: limit)
    text += "1 1"
    assertError(ink("<trace>\(text)</trace>"), line: 2, contains: "more than \(limit) points")
  }

  func testEveryTruncationIsACleanError() throws {
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <ink xmlns="http://www.w3.org/2003/InkML">
      <definitions><brush xml:id="b"><brushProperty name="color" value="#102030"/></brush></definitions>
      <traceGroup brushRef="#b"><trace xml:id="t1">1 2, '3 4, "1 1</trace></traceGroup>
      </ink>
      """
    XCTAssertEqual(try read(xml).strokes.count, 1)
    let bytes = Array(xml.utf8)
    for length in 0..<bytes.count {
      XCTAssertThrowsError(
        try InkML.read(Data(bytes[0..<length]), makeID: { "x" }), "prefix of \(length) bytes"
      ) { error in
        XCTAssertTrue(error is InkMLError, "prefix of \(length) bytes: \(error)")
      }
    }
  }

  // MARK: Writing

  func testATraceFormatWithHundredsOfChannelsIsRefused() {
    let channels = (0..<65).map { "<channel name=\"C\($0)\"/>" }.joined()
    assertError(
      ink("<traceFormat><channel name=\"X\"/><channel name=\"Y\"/>\(channels)</traceFormat><trace>1 2</trace>"),
      contains: "more than 64 channels")
  }

  private func sampleDocument() -> InkDocument {
    let plain = InkStroke(
      id: "0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b", order: "a1", ink: .pen, color: InkColor(red: 26, green: 26, blue: 26),
      points: [InkPoint(x: 10.25, y: 20.5), InkPoint(x: -3.01, y: 1e3)])
    let rich = InkStroke(
      id: "a&b\"<c>'", order: "a2", ink: .marker, color: InkColor(red: 200, green: 10, blue: 30, alpha: 128),
      channels: [.time, .force, .width, .azimuth, .altitude],
      points: [
        InkPoint(x: 1, y: 2, time: 0, width: 3.5, force: 0.5, azimuth: 0.1, altitude: 1.2),
        InkPoint(x: 1.5, y: 2.25, time: 0.016, width: 4.25, force: 1.75, azimuth: 0.2, altitude: 1.1),
      ])
    let constantWidth = InkStroke(
      id: "s-const", order: "a3", ink: .highlighter, color: InkColor(red: 255, green: 255, blue: 0, alpha: 254),
      channels: [.width], points: [InkPoint(x: 0, y: 0, width: 12), InkPoint(x: 100, y: 0, width: 12)])
    let sameBrush = InkStroke(
      id: "s-same", order: "a4", ink: .pen, color: InkColor(red: 26, green: 26, blue: 26),
      points: [InkPoint(x: 5, y: 5)])
    return InkDocument(strokes: [rich, constantWidth, plain, sameBrush].reversed())
  }

  func testRoundTripKeepsPointsColourInkAndChannels() throws {
    let original = sampleDocument()
    let text = InkML.write(original)
    let back = try read(text)
    let expected = original.drawingOrder
    XCTAssertEqual(back.strokes.count, expected.count)
    for (got, want) in zip(back.strokes, expected) {
      XCTAssertEqual(got.color, want.color, want.id)
      XCTAssertEqual(got.ink, want.ink, want.id)
      XCTAssertEqual(got.channels, want.channels, want.id)
      XCTAssertEqual(got.points.count, want.points.count, want.id)
      for (p, q) in zip(got.points, want.points) {
        // Stored precision: 1/100 pt, 1 ms, 1/1000 of force and radians, 1/100 pt of width.
        XCTAssertEqual(p.x, q.x, accuracy: 0.005)
        XCTAssertEqual(p.y, q.y, accuracy: 0.005)
        XCTAssertEqual(p.time, q.time, accuracy: 0.0005)
        XCTAssertEqual(p.force, q.force, accuracy: 0.0005)
        XCTAssertEqual(p.width, q.width, accuracy: 0.005)
        XCTAssertEqual(p.azimuth, q.azimuth, accuracy: 0.0005)
        XCTAssertEqual(p.altitude, q.altitude, accuracy: 0.0005)
      }
    }
  }

  /// Collects elements and attributes with libxml2 (through XMLParser) independently of the reader under test.
  private final class Collector: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    var texts: [String: String] = [:]
    private var currentTrace: String?
    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      elements.append((elementName, attributes))
      currentTrace = elementName == "trace" ? attributes["xml:id"] : nil
    }
    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
      currentTrace = nil
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) {
      if let currentTrace { texts[currentTrace, default: ""] += string }
    }
  }

  func testWrittenXMLIsWellFormedWithOneTracePerStrokeAndOneBrushPerStyle() throws {
    let text = InkML.write(sampleDocument())
    let parser = XMLParser(data: Data(text.utf8))
    let collector = Collector()
    parser.delegate = collector
    XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    XCTAssertNil(parser.parserError)
    let traces = collector.elements.filter { $0.name == "trace" }
    // Drawing order is by `ord`: rich (a2)... no: plain a1, rich a2, constant a3, same a4.
    XCTAssertEqual(
      traces.map { $0.attributes["xml:id"] },
      ["s-0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b", "s-a_26b_22_3cc_3e_27", "s-s-const", "s-s-same"])
    // plain and sameBrush share (pen, #1a1a1a, no width): three brushes for four strokes.
    XCTAssertEqual(collector.elements.filter { $0.name == "brush" }.count, 3)
    XCTAssertEqual(traces[0].attributes["brushRef"], traces[3].attributes["brushRef"])
    XCTAssertEqual(collector.texts["s-0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b"], "10.25 20.5, -3.01 1000")
    // X Y T(ms) F W OA OE, at 1/100 pt, 1 ms, 1/1000.
    XCTAssertEqual(collector.texts["s-a_26b_22_3cc_3e_27"], "1 2 0 0.5 3.5 0.1 1.2, 1.5 2.25 16 1.75 4.25 0.2 1.1")
    // Constant width goes to the brush, so that trace has only X and Y.
    XCTAssertEqual(collector.texts["s-s-const"], "0 0, 100 0")
    let widths = collector.elements.filter { $0.name == "brushProperty" && $0.attributes["name"] == "width" }
    XCTAssertEqual(widths.map { $0.attributes["value"] }, ["12"])
    XCTAssertEqual(widths.first?.attributes["units"], "pt")
    XCTAssertEqual(collector.elements.first?.name, "ink")
  }

  func testWriterAppliesTheStrokeTransform() throws {
    let stroke = InkStroke(
      id: "t", transform: InkTransform(a: 2, b: 0, c: 0, d: 2, tx: 10, ty: -5), channels: [.width],
      points: [InkPoint(x: 1, y: 1, width: 1.5), InkPoint(x: 2, y: 3, width: 1.5)])
    let back = try read(InkML.write(InkDocument(strokes: [stroke]))).strokes[0]
    // (2·1 + 10, 2·1 − 5) = (12, −3); (2·2 + 10, 2·3 − 5) = (14, 1); width × √(2·2) = 3.
    XCTAssertEqual(xy(back), [[12, -3], [14, 1]])
    XCTAssertEqual(back.points.map(\.width), [3, 3])
  }

  func testEmptyDocumentWritesAnEmptyInk() throws {
    let text = InkML.write(InkDocument())
    XCTAssertTrue(try read(text).strokes.isEmpty)
    XCTAssertTrue(text.contains("<ink xmlns=\"http://www.w3.org/2003/InkML\">"))
  }

  func testLargePageParsesQuickly() throws {
    // 2 000 strokes × 200 points; reports the time rather than asserting on a shared machine.
    let stroke = (0..<200).map { "\($0).25 \($0 * 2).5 \($0 * 4) 0.5" }.joined(separator: ", ")
    let channels = ["X", "Y", "T", "F"].map { "<channel name=\"\($0)\"/>" }.joined()
    let body =
      "<traceFormat>\(channels)</traceFormat>\n"
      + String(repeating: "<trace>\(stroke)</trace>\n", count: 2000)
    let data = Data(ink(body).utf8)
    let start = Date()
    let document = try InkML.read(data, makeID: { "x" })
    let elapsed = Date().timeIntervalSince(start)
    XCTAssertEqual(document.pointCount, 400_000)
    print("InkML: read \(data.count) bytes, 400 000 points in \(Int(elapsed * 1000)) ms")
  }
}

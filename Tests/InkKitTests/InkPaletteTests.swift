import Foundation
import XCTest

@testable import InkKit

/// The drawing palette apps offer, and the page frame they draw into: both must agree with the renderer.
final class InkPaletteTests: XCTestCase {
  private func points(force: [Double]) -> [InkPoint] {
    force.enumerated().map { InkPoint(x: 10 + Double($0.offset) * 7, y: 20 + Double($0.offset % 3), force: $0.element) }
  }

  func testARecordedWidthFromThePaletteDrawsWhatTheForceAloneDraws() throws {
    let forces = [0.2, 0.6, 1.0, 1.4, 2.2, 3.5, 0.0]
    for ink in InkPalette.inks {
      let nominal = InkPalette.nominalWidth(for: ink)
      let byForce = InkStroke(id: "a", ink: ink, channels: [.force], points: points(force: forces))
      var byWidth = byForce
      byWidth.channels = [.force, .width, .height]
      for index in byWidth.points.indices {
        let diameter = InkPalette.diameter(nib: nominal, force: byWidth.points[index].force)
        byWidth.points[index].width = diameter
        byWidth.points[index].height = diameter
      }
      XCTAssertEqual(StrokeOutline.radii(of: byWidth), StrokeOutline.radii(of: byForce), "\(ink)")
      XCTAssertEqual(
        try InkSVG.render(InkDocument(strokes: [byWidth])), try InkSVG.render(InkDocument(strokes: [byForce])), "\(ink)"
      )
    }
  }

  func testDiameterFollowsForceWithinTheRenderersBounds() {
    XCTAssertEqual(InkPalette.diameter(nib: 4, force: 1), 4)
    XCTAssertEqual(InkPalette.diameter(nib: 4, force: 0), 2)
    XCTAssertEqual(InkPalette.diameter(nib: 4, force: 3), 8)
    XCTAssertEqual(InkPalette.diameter(nib: 4, force: 100), 8, "clamped as the renderer clamps")
    XCTAssertEqual(InkPalette.diameter(nib: 4, force: .nan), 4)
  }

  func testThePaletteIsUsable() {
    XCTAssertFalse(InkPalette.inks.contains(.eraser))
    XCTAssertEqual(Set(InkPalette.colors.map(\.name)).count, InkPalette.colors.count)
    XCTAssertTrue(InkPalette.colors.allSatisfy { $0.color.alpha == 255 })
    XCTAssertEqual(InkPalette.widths, InkPalette.widths.sorted())
    XCTAssertTrue(InkPalette.widths.allSatisfy { $0 > 0 })
  }

  /// The frame is the rendering's viewBox, for a page with a size and for one without.
  func testFrameIsTheRenderedViewBox() throws {
    var document = InkDocument()
    try document.addPage(id: "p1", width: 600, height: 800)
    try document.add(InkStroke(id: "s1", points: [InkPoint(x: 40, y: 50), InkPoint(x: 140, y: 90)]))
    try document.add(InkStroke(id: "s2", page: "p1", points: [InkPoint(x: 1, y: 2), InkPoint(x: 3, y: 4)]))
    for selection in [InkSVG.PageSelection.implicit, .page("p1"), .first, .all] {
      let frame = try InkSVG.frame(of: document, page: selection)
      let svg = try InkSVG.render(document, page: selection)
      let viewBox = try XCTUnwrap(svg.range(of: #"viewBox=""#)).upperBound
      let numbers = svg[viewBox...].prefix { $0 != "\"" }.split(separator: " ").compactMap { Double($0) }
      XCTAssertEqual(numbers, [frame.minX, frame.minY, frame.width, frame.height], "\(selection): \(svg.prefix(200))")
    }
    XCTAssertEqual(try InkSVG.frame(of: document, page: .page("p1")), InkRect(minX: 0, minY: 0, maxX: 600, maxY: 800))
    XCTAssertThrowsError(try InkSVG.frame(of: document, page: .page("nope")))
  }
}

import Foundation

/// A page asked for that the drawing does not have.
public enum InkRenderError: Error, Equatable, CustomStringConvertible {
  /// No page record and no stroke has this page id; `available` lists the ids there are.
  case noSuchPage(String, available: [String])
  /// The implicit page was asked for, but every stroke names a page.
  case noImplicitPage(available: [String])

  public var description: String {
    switch self {
    case .noSuchPage(let id, let available):
      "the drawing has no page \"\(id)\"" + InkRenderError.listing(available)
    case .noImplicitPage(let available):
      "the drawing has no strokes outside its pages" + InkRenderError.listing(available)
    }
  }

  private static func listing(_ ids: [String]) -> String {
    ids.isEmpty ? "" : "; its pages are " + ids.map { "\"\($0)\"" }.joined(separator: ", ")
  }
}

/// Renders a drawing as an SVG document: one filled `<path>` per stroke (see `StrokeOutline`), in drawing order.
public enum InkSVG {
  /// Which page or pages to draw.
  public enum PageSelection: Hashable, Sendable {
    /// The first page in display order: the implicit page when a stroke is on it (or there are no page records),
    /// else the first page record.
    case first
    /// The strokes that name no page.
    case implicit
    /// The page with this id (a page record, or an id strokes name without a record).
    case page(String)
    /// Every page, top to bottom, with `Options.pageGap` between them.
    case all
  }

  /// How the drawing looks.
  public struct Options: Hashable, Sendable {
    /// How outlines follow the points.
    public var outline: StrokeOutline.Options
    /// The colour the page is filled with first; nil leaves it transparent.
    public var background: InkColor?
    /// Space (points) around the strokes of a page that has no size of its own.
    public var margin: Double
    /// Space (points) between pages when every page is drawn.
    public var pageGap: Double
    /// The opacity marker and highlighter ink is drawn with (times the colour's alpha).
    public var translucentOpacity: Double
    /// Whether marker and highlighter ink multiplies with what is below (`mix-blend-mode: multiply`), as on paper.
    public var multiplyTranslucent: Bool

    /// Options with each field given.
    public init(
      outline: StrokeOutline.Options = .standard, background: InkColor? = InkColor(red: 255, green: 255, blue: 255),
      margin: Double = 16, pageGap: Double = 24, translucentOpacity: Double = 0.35, multiplyTranslucent: Bool = true
    ) {
      self.outline = outline
      self.background = background
      self.margin = margin
      self.pageGap = pageGap
      self.translucentOpacity = translucentOpacity
      self.multiplyTranslucent = multiplyTranslucent
    }

    /// The defaults: a white page, translucent ink at 0.35.
    public static let standard = Options()
  }

  /// The pages a drawing shows, in display order: nil for the implicit page (first, when any stroke is on it or
  /// there are no page records), then page records, then ids strokes name without a record.
  public static func pages(of document: InkDocument) -> [String?] {
    slots(of: document).map(\.id)
  }

  /// The SVG text of the chosen page(s).
  public static func render(
    _ document: InkDocument, page: PageSelection = .first, options: Options = .standard
  ) throws -> String {
    String(decoding: try renderBytes(document, page: page, options: options), as: UTF8.self)
  }

  /// The SVG as UTF-8 bytes, for writing to a file without another copy.
  public static func renderData(
    _ document: InkDocument, page: PageSelection = .first, options: Options = .standard
  ) throws -> Data {
    Data(try renderBytes(document, page: page, options: options))
  }

  // MARK: - Pages

  /// One page to draw: its id (nil: implicit), its size when it has one, its strokes in drawing order.
  struct Slot {
    var id: String?
    var size: (width: Double, height: Double)?
    var strokes: [InkStroke]
  }

  static func slots(of document: InkDocument) -> [Slot] {
    var groups: [String?: [InkStroke]] = [:]
    for stroke in document.drawingOrder {
      groups[stroke.page, default: []].append(stroke)
    }
    var slots: [Slot] = []
    if groups[nil] != nil || document.pages.isEmpty {
      slots.append(Slot(id: nil, size: nil, strokes: groups[nil] ?? []))
    }
    var seen = Set<String>()
    for page in document.orderedPages where seen.insert(page.id).inserted {
      let size = page.width > 0 && page.height > 0 ? (Double(page.width), Double(page.height)) : nil
      slots.append(Slot(id: page.id, size: size, strokes: groups[page.id] ?? []))
    }
    for id in groups.keys.compactMap({ $0 }).filter({ !seen.contains($0) }).sorted() {
      slots.append(Slot(id: id, size: nil, strokes: groups[id] ?? []))
    }
    return slots
  }

  static func select(_ selection: PageSelection, from document: InkDocument) throws -> [Slot] {
    let all = slots(of: document)
    let available = all.compactMap(\.id)
    switch selection {
    case .all: return all
    case .first: return Array(all.prefix(1))
    case .implicit:
      guard let slot = all.first(where: { $0.id == nil }) else { throw InkRenderError.noImplicitPage(available: available) }
      return [slot]
    case .page(let id):
      guard let slot = all.first(where: { $0.id == id }) else {
        throw InkRenderError.noSuchPage(id, available: available)
      }
      return [slot]
    }
  }

  // MARK: - Writing

  static func renderBytes(_ document: InkDocument, page: PageSelection, options: Options) throws -> [UInt8] {
    let slots = try select(page, from: document)
    var renderer = PageRenderer(options: options)
    // Each page's strokes first, since a page without a size takes its frame from them.
    let pages = slots.map { slot in renderer.render(slot) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(pages.reduce(256) { $0 + $1.body.count + 256 })
    bytes.append(contentsOf: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".utf8)
    bytes.append(contentsOf: "<svg xmlns=\"http://www.w3.org/2000/svg\"".utf8)
    if pages.count == 1, let only = pages.first {
      appendFrame(only.frame, into: &bytes)
      bytes.append(contentsOf: ">\n".utf8)
      appendBackground(only.frame, options: options, into: &bytes)
      bytes.append(contentsOf: only.body)
    } else {
      let width = pages.map(\.frame.width).max() ?? 0
      let gaps = Double(max(pages.count - 1, 0)) * options.pageGap
      let height = pages.reduce(gaps) { $0 + $1.frame.height }
      appendFrame(InkRect(minX: 0, minY: 0, maxX: width, maxY: height), into: &bytes)
      bytes.append(contentsOf: ">\n".utf8)
      var top = 0.0
      for page in pages {
        // A nested viewport per page: its own coordinates, and strokes beyond the page are clipped as on paper.
        bytes.append(contentsOf: "<svg x=\"0\" y=\"".utf8)
        SVGBytes.appendDecimal(top, decimals: 2, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
        appendFrame(page.frame, units: "", into: &bytes)
        if let id = page.id {
          bytes.append(contentsOf: " data-page=\"".utf8)
          SVGBytes.appendAttribute(id, into: &bytes)
          bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(contentsOf: ">\n".utf8)
        appendBackground(page.frame, options: options, into: &bytes)
        bytes.append(contentsOf: page.body)
        bytes.append(contentsOf: "</svg>\n".utf8)
        top += page.frame.height + options.pageGap
      }
    }
    bytes.append(contentsOf: "</svg>\n".utf8)
    return bytes
  }

  /// ` viewBox="x y w h" width="w…" height="h…"`: a point is 1/72 inch, so the document has its physical size.
  private static func appendFrame(_ frame: InkRect, units: String = "pt", into bytes: inout [UInt8]) {
    bytes.append(contentsOf: " viewBox=\"".utf8)
    for (index, value) in [frame.minX, frame.minY, frame.width, frame.height].enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: " ")) }
      SVGBytes.appendDecimal(value, decimals: 2, into: &bytes)
    }
    bytes.append(contentsOf: "\" width=\"".utf8)
    SVGBytes.appendDecimal(frame.width, decimals: 2, into: &bytes)
    bytes.append(contentsOf: units.utf8)
    bytes.append(contentsOf: "\" height=\"".utf8)
    SVGBytes.appendDecimal(frame.height, decimals: 2, into: &bytes)
    bytes.append(contentsOf: units.utf8)
    bytes.append(UInt8(ascii: "\""))
  }

  private static func appendBackground(_ frame: InkRect, options: Options, into bytes: inout [UInt8]) {
    guard let color = options.background else { return }
    bytes.append(contentsOf: "<rect x=\"".utf8)
    SVGBytes.appendDecimal(frame.minX, decimals: 2, into: &bytes)
    bytes.append(contentsOf: "\" y=\"".utf8)
    SVGBytes.appendDecimal(frame.minY, decimals: 2, into: &bytes)
    bytes.append(contentsOf: "\" width=\"".utf8)
    SVGBytes.appendDecimal(frame.width, decimals: 2, into: &bytes)
    bytes.append(contentsOf: "\" height=\"".utf8)
    SVGBytes.appendDecimal(frame.height, decimals: 2, into: &bytes)
    bytes.append(contentsOf: "\" fill=\"".utf8)
    SVGBytes.appendColor(color, into: &bytes)
    bytes.append(UInt8(ascii: "\""))
    appendOpacity(Double(color.alpha) / 255, into: &bytes)
    bytes.append(contentsOf: "/>\n".utf8)
  }

  fileprivate static func appendOpacity(_ opacity: Double, into bytes: inout [UInt8]) {
    guard opacity < 0.9995 else { return }
    bytes.append(contentsOf: " fill-opacity=\"".utf8)
    SVGBytes.appendDecimal(max(opacity, 0), decimals: 3, into: &bytes)
    bytes.append(UInt8(ascii: "\""))
  }
}

/// One rendered page: where it is and its `<path>` elements.
private struct RenderedPage {
  var id: String?
  var frame: InkRect
  var body: [UInt8]
}

/// Renders pages with one set of outline buffers.
private struct PageRenderer {
  let options: InkSVG.Options
  var builder = OutlineBuilder()
  /// Numbers clip paths uniquely across the pages of one document.
  var clipCount = 0

  init(options: InkSVG.Options) {
    self.options = options
  }

  mutating func render(_ slot: InkSVG.Slot) -> RenderedPage {
    var body: [UInt8] = []
    // About 30 bytes per point for a curve on each side; one reservation instead of many regrowths.
    body.reserveCapacity(slot.strokes.reduce(0) { $0 + 30 * $1.points.count + 120 })
    builder.resetBounds()
    for stroke in slot.strokes where stroke.ink != .eraser {
      append(stroke, into: &body)
    }
    return RenderedPage(id: slot.id, frame: frame(of: slot), body: body)
  }

  private func frame(of slot: InkSVG.Slot) -> InkRect {
    if let size = slot.size { return InkRect(minX: 0, minY: 0, maxX: size.width, maxY: size.height) }
    let margin = options.margin.isFinite ? max(options.margin, 0) : 0
    let bounds = builder.bounds
    guard bounds.minX <= bounds.maxX, bounds.minY <= bounds.maxY else {
      return InkRect(minX: 0, minY: 0, maxX: 2 * margin, maxY: 2 * margin)
    }
    // Whole points, so the page's size reads plainly.
    return InkRect(
      minX: (bounds.minX - margin).rounded(.down), minY: (bounds.minY - margin).rounded(.down),
      maxX: (bounds.maxX + margin).rounded(.up), maxY: (bounds.maxY + margin).rounded(.up))
  }

  private mutating func append(_ stroke: InkStroke, into body: inout [UInt8]) {
    builder.centreline(of: stroke, options: options.outline)
    guard builder.runCount > 0 else { return }
    var clipID: Int?
    if let mask = stroke.mask, !mask.isEmpty {
      clipCount += 1
      clipID = clipCount
      body.append(contentsOf: "<clipPath id=\"nb-clip-".utf8)
      SVGBytes.appendInteger(clipCount, into: &body)
      body.append(contentsOf: "\"><path".utf8)
      if !stroke.transform.isIdentity {
        // The mask is in the stroke's own coordinates, like its points.
        let t = stroke.transform
        body.append(contentsOf: " transform=\"matrix(\(t.a) \(t.b) \(t.c) \(t.d) \(t.tx) \(t.ty))\"".utf8)
      }
      body.append(contentsOf: " d=\"".utf8)
      SVGBytes.appendAttribute(mask, into: &body)
      body.append(contentsOf: "\"/></clipPath>\n".utf8)
    }
    body.append(contentsOf: "<path data-id=\"".utf8)
    SVGBytes.appendAttribute(stroke.id, into: &body)
    body.append(contentsOf: "\" fill=\"".utf8)
    SVGBytes.appendColor(stroke.color, into: &body)
    body.append(UInt8(ascii: "\""))
    var opacity = Double(stroke.color.alpha) / 255
    if stroke.channels.contains(.opacity), !stroke.points.isEmpty {
      // One fill for the whole stroke: its mean opacity.
      let mean = stroke.points.reduce(0) { $0 + $1.opacity } / Double(stroke.points.count)
      opacity *= mean.isFinite ? min(max(mean, 0), 1) : 1
    }
    if stroke.ink.isTranslucent {
      opacity *= options.translucentOpacity
      if options.multiplyTranslucent { body.append(contentsOf: " style=\"mix-blend-mode:multiply\"".utf8) }
    }
    InkSVG.appendOpacity(opacity, into: &body)
    if let clipID {
      body.append(contentsOf: " clip-path=\"url(#nb-clip-".utf8)
      SVGBytes.appendInteger(clipID, into: &body)
      body.append(contentsOf: ")\"".utf8)
    }
    body.append(contentsOf: " d=\"".utf8)
    for run in 0..<builder.runCount {
      builder.polygon(run: run)
      builder.writePolygonPath(into: &body)
    }
    body.append(contentsOf: "\"/>\n".utf8)
  }
}

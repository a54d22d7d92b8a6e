import Foundation

/// A page asked for that the drawing does not have.
public enum InkRenderError: Error, Equatable, CustomStringConvertible {
  /// No page record and no stroke has this page id; `available` lists the ids there are.
  case noSuchPage(String, available: [String])
  /// The implicit page was asked for, but every stroke names a page.
  case noImplicitPage(available: [String])

  /// What page is missing and which there are, for a person.
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

/// Renders a drawing as an SVG document: one filled `<path>` per stroke (its outline follows the nib's size and the
/// pressure), in drawing order.
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
    var outline: StrokeOutline.Options = .standard
    /// The colour the page is filled with first; nil leaves it transparent.
    public var background: InkColor?
    /// Space (points) around the strokes of a page that has no size of its own.
    public var margin: Double
    /// Space (points) between pages when every page is drawn.
    public var pageGap: Double
    /// The opacity marker and highlighter ink with an opaque colour is drawn with (a translucent colour keeps its
    /// own alpha).
    public var translucentOpacity: Double
    /// Whether marker and highlighter ink multiplies with what is below (`mix-blend-mode: multiply`), as on paper.
    public var multiplyTranslucent: Bool

    /// Options with each field given.
    public init(
      background: InkColor? = InkColor(red: 255, green: 255, blue: 255), margin: Double = 16, pageGap: Double = 24,
      translucentOpacity: Double = 0.35, multiplyTranslucent: Bool = true
    ) {
      self.background = background
      self.margin = margin
      self.pageGap = pageGap
      self.translucentOpacity = translucentOpacity
      self.multiplyTranslucent = multiplyTranslucent
    }

    /// The defaults: a white page, translucent ink at 0.35.
    public static let standard = Options()
  }

  /// The pages a drawing shows, in display order: nil for the implicit page (first, when any stroke is on it, or
  /// the drawing is empty), then page records, then ids strokes name without a record.
  public static func pages(of document: InkDocument) -> [String?] {
    slots(of: document).map(\.id)
  }

  /// The SVG text of the chosen page(s).
  public static func render(
    _ document: InkDocument, page: PageSelection = .first, options: Options = .standard
  ) throws -> String {
    let parts = try renderParts(document, page: page, options: options)
    return String(unsafeUninitializedCapacity: parts.reduce(0) { $0 + $1.count }) { buffer in
      copy(parts, into: buffer)
    }
  }

  /// The SVG as UTF-8 bytes, for writing to a file (no String in between).
  public static func renderData(
    _ document: InkDocument, page: PageSelection = .first, options: Options = .standard
  ) throws -> Data {
    let parts = try renderParts(document, page: page, options: options)
    var data = Data(count: parts.reduce(0) { $0 + $1.count })
    data.withUnsafeMutableBytes { raw in
      _ = copy(parts, into: raw.bindMemory(to: UInt8.self))
    }
    return data
  }

  /// The `viewBox` ``render(_:page:options:)`` gives the chosen page(s): a page's own size, or for a page without
  /// one the outline of its strokes plus `options.margin`. An app drawing over the rendered page maps its input into
  /// these coordinates, so a stroke lands where the rendering shows it.
  public static func frame(
    of document: InkDocument, page: PageSelection = .first, options: Options = .standard
  ) throws -> InkRect {
    let slots = try select(page, from: document)
    var renderer = PageRenderer(options: options)
    let frames = slots.map { renderer.render($0).frame }
    if frames.count == 1, let only = frames.first { return only }
    let gaps = Double(max(frames.count - 1, 0)) * options.pageGap
    return InkRect(
      minX: 0, minY: 0, maxX: frames.map(\.width).max() ?? 0, maxY: frames.reduce(gaps) { $0 + $1.height })
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
    // The implicit page shows when strokes are on it, or when there is nothing else to show (an empty drawing); not
    // when every stroke names a page, even one without a record.
    if groups[nil] != nil || (groups.isEmpty && document.pages.isEmpty) {
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
      guard let slot = all.first(where: { $0.id == nil }) else {
        throw InkRenderError.noImplicitPage(available: available)
      }
      return [slot]
    case .page(let id):
      guard let slot = all.first(where: { $0.id == id }) else {
        throw InkRenderError.noSuchPage(id, available: available)
      }
      return [slot]
    }
  }

  // MARK: - Writing

  /// Copies the pieces of a document one after the other; returns the length.
  private static func copy(_ parts: [ByteSink], into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
    var offset = 0
    for part in parts {
      guard let source = part.bytes.baseAddress, let target = buffer.baseAddress, part.count > 0 else { continue }
      (target + offset).update(from: source, count: part.count)
      offset += part.count
    }
    return offset
  }

  /// The document as consecutive pieces: the pages' bodies are not copied until the caller joins them.
  static func renderParts(_ document: InkDocument, page: PageSelection, options: Options) throws -> [ByteSink] {
    let slots = try select(page, from: document)
    var renderer = PageRenderer(options: options)
    // Each page's strokes first, since a page without a size takes its frame from them.
    let pages = slots.map { slot in renderer.render(slot) }
    let head = ByteSink(capacity: 512)
    head.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
    head.append("<svg xmlns=\"http://www.w3.org/2000/svg\"")
    var parts: [ByteSink] = [head]
    if pages.count == 1, let only = pages.first {
      appendFrame(only.frame, into: head)
      head.append(">\n")
      appendBackground(only.frame, options: options, into: head)
      parts.append(only.body)
    } else {
      let width = pages.map(\.frame.width).max() ?? 0
      let gaps = Double(max(pages.count - 1, 0)) * options.pageGap
      let height = pages.reduce(gaps) { $0 + $1.frame.height }
      appendFrame(InkRect(minX: 0, minY: 0, maxX: width, maxY: height), into: head)
      head.append(">\n")
      var top = 0.0
      for page in pages {
        // A nested viewport per page: its own coordinates, and strokes beyond the page are clipped as on paper.
        let open = ByteSink(capacity: 256)
        open.append("<svg x=\"0\" y=\"")
        SVGBytes.appendDecimal(top, decimals: 2, into: open)
        open.append(UInt8(ascii: "\""))
        appendFrame(page.frame, units: "", into: open)
        if let id = page.id {
          open.append(" data-page=\"")
          SVGBytes.appendAttribute(id, into: open)
          open.append(UInt8(ascii: "\""))
        }
        open.append(">\n")
        appendBackground(page.frame, options: options, into: open)
        let close = ByteSink(capacity: 16)
        close.append("</svg>\n")
        parts += [open, page.body, close]
        top += page.frame.height + options.pageGap
      }
    }
    let tail = ByteSink(capacity: 16)
    tail.append("</svg>\n")
    parts.append(tail)
    return parts
  }

  /// ` viewBox="x y w h" width="w…" height="h…"`: a point is 1/72 inch, so the document has its physical size.
  private static func appendFrame(_ frame: InkRect, units: String = "pt", into sink: ByteSink) {
    sink.append(" viewBox=\"")
    for (index, value) in [frame.minX, frame.minY, frame.width, frame.height].enumerated() {
      if index > 0 { sink.append(UInt8(ascii: " ")) }
      SVGBytes.appendDecimal(value, decimals: 2, into: sink)
    }
    sink.append("\" width=\"")
    SVGBytes.appendDecimal(frame.width, decimals: 2, into: sink)
    sink.append(units)
    sink.append("\" height=\"")
    SVGBytes.appendDecimal(frame.height, decimals: 2, into: sink)
    sink.append(units)
    sink.append(UInt8(ascii: "\""))
  }

  private static func appendBackground(_ frame: InkRect, options: Options, into sink: ByteSink) {
    guard let color = options.background else { return }
    sink.append("<rect x=\"")
    SVGBytes.appendDecimal(frame.minX, decimals: 2, into: sink)
    sink.append("\" y=\"")
    SVGBytes.appendDecimal(frame.minY, decimals: 2, into: sink)
    sink.append("\" width=\"")
    SVGBytes.appendDecimal(frame.width, decimals: 2, into: sink)
    sink.append("\" height=\"")
    SVGBytes.appendDecimal(frame.height, decimals: 2, into: sink)
    sink.append("\" fill=\"")
    SVGBytes.appendColor(color, into: sink)
    sink.append(UInt8(ascii: "\""))
    appendOpacity(Double(color.alpha) / 255, into: sink)
    sink.append("/>\n")
  }

  fileprivate static func appendOpacity(_ opacity: Double, into sink: ByteSink) {
    guard opacity < 0.9995 else { return }
    sink.append(" fill-opacity=\"")
    SVGBytes.appendDecimal(max(opacity, 0), decimals: 3, into: sink)
    sink.append(UInt8(ascii: "\""))
  }
}

/// One rendered page: where it is and its `<path>` elements.
private struct RenderedPage {
  var id: String?
  var frame: InkRect
  var body: ByteSink
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
    // About 18 bytes per point (a curve step on each side); one allocation instead of many regrowths.
    let body = ByteSink(capacity: slot.strokes.reduce(0) { $0 + 20 * $1.points.count + 160 })
    builder.resetBounds()
    for stroke in slot.strokes where stroke.ink != .eraser {
      append(stroke, into: body)
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

  private mutating func append(_ stroke: InkStroke, into body: ByteSink) {
    builder.centreline(of: stroke, options: options.outline)
    guard builder.runCount > 0 else { return }
    var clipID: Int?
    if let mask = stroke.mask, !mask.isEmpty {
      clipCount += 1
      clipID = clipCount
      body.append("<clipPath id=\"nb-clip-")
      SVGBytes.appendInteger(clipCount, into: body)
      body.append("\"><path")
      if !stroke.transform.isIdentity {
        // The mask is in the stroke's own coordinates, like its points.
        let t = stroke.transform
        body.append(" transform=\"matrix(\(t.a) \(t.b) \(t.c) \(t.d) \(t.tx) \(t.ty))\"")
      }
      body.append(" d=\"")
      SVGBytes.appendAttribute(mask, into: body)
      body.append("\"/></clipPath>\n")
    }
    body.append("<path data-id=\"")
    SVGBytes.appendAttribute(stroke.id, into: body)
    body.append("\" fill=\"")
    SVGBytes.appendColor(stroke.color, into: body)
    body.append(UInt8(ascii: "\""))
    var opacity = Double(stroke.color.alpha) / 255
    if stroke.channels.contains(.opacity), !stroke.points.isEmpty {
      // One fill for the whole stroke: its mean opacity.
      let mean = stroke.points.reduce(0) { $0 + $1.opacity } / Double(stroke.points.count)
      opacity *= mean.isFinite ? min(max(mean, 0), 1) : 1
    }
    if stroke.ink.isTranslucent {
      // A colour that already carries its translucency (a reMarkable shader, a PencilKit marker with alpha) is
      // drawn as it says; only an opaque marker colour is made see-through here, so nothing is faded twice.
      if stroke.color.alpha == 255 { opacity *= options.translucentOpacity }
      if options.multiplyTranslucent { body.append(" style=\"mix-blend-mode:multiply\"") }
    }
    InkSVG.appendOpacity(opacity, into: body)
    if let clipID {
      body.append(" clip-path=\"url(#nb-clip-")
      SVGBytes.appendInteger(clipID, into: body)
      body.append(")\"")
    }
    body.append(" d=\"")
    for run in 0..<builder.runCount {
      builder.polygon(run: run)
      builder.writePolygonPath(into: body)
    }
    body.append("\"/>\n")
  }
}

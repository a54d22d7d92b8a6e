import Foundation

/// Fixed-point scales of an ink file: a channel value is stored as `round(value × scale)`.
///
/// The scales are per file (the header's `q`), so a reader never guesses the precision a writer used.
public struct InkScales: Equatable, Hashable, Sendable {
  /// Units per point for x and y.
  public var xy: Int
  /// Units per second for the time offset `t`.
  public var time: Int
  /// Units per point for the point size `w`, `h`.
  public var size: Int
  /// Units per 1.0 of opacity.
  public var opacity: Int
  /// Units per 1.0 of force.
  public var force: Int
  /// Units per radian for azimuth and altitude.
  public var angle: Int

  /// The scales nb writes: 1/100 pt, 1 ms, 1/1000 of force/opacity/radian.
  public static let standard = InkScales(
    xy: 100, time: 1000, size: 100, opacity: 1000, force: 1000, angle: 1000)

  /// Scales with each field given.
  public init(xy: Int, time: Int, size: Int, opacity: Int, force: Int, angle: Int) {
    self.xy = xy
    self.time = time
    self.size = size
    self.opacity = opacity
    self.force = force
    self.angle = angle
  }
}

/// The tool a stroke was drawn with. Unknown names from newer writers are kept and render as a pen.
public enum InkType: Hashable, Sendable, CustomStringConvertible {
  /// The tools FORMAT.md names.
  case pen, pencil, marker, monoline, fountainPen, watercolor, crayon, highlighter, eraser
  /// A name this build does not know, kept verbatim.
  case other(String)

  /// Every named type, in the order of FORMAT.md.
  public static let known: [InkType] = [
    .pen, .pencil, .marker, .monoline, .fountainPen, .watercolor, .crayon, .highlighter, .eraser,
  ]

  /// The type stored as `name` in a file.
  public init(name: String) {
    self = InkType.known.first { $0.name == name } ?? .other(name)
  }

  /// The name stored in the file.
  public var name: String {
    switch self {
    case .pen: "pen"
    case .pencil: "pencil"
    case .marker: "marker"
    case .monoline: "monoline"
    case .fountainPen: "fountainPen"
    case .watercolor: "watercolor"
    case .crayon: "crayon"
    case .highlighter: "highlighter"
    case .eraser: "eraser"
    case .other(let name): name
    }
  }

  /// Marker and highlighter ink is drawn translucent over what is below it.
  public var isTranslucent: Bool { self == .marker || self == .highlighter }

  /// The name, as written in the file.
  public var description: String { name }
}

/// An sRGB colour with alpha, stored as 8 lower-case hex digits `rrggbbaa`.
public struct InkColor: Hashable, Sendable, CustomStringConvertible {
  /// Red, green, blue, alpha, each 0–255.
  public var red, green, blue, alpha: UInt8

  /// A colour from its four components.
  public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  /// Parses `rrggbbaa` (or `rrggbb`, opaque); nil for anything else.
  public init?(hex: String) {
    let digits = Array(hex.utf8)
    guard digits.count == 8 || digits.count == 6 else { return nil }
    var bytes: [UInt8] = []
    var index = 0
    while index < digits.count {
      guard let high = InkColor.nibble(digits[index]), let low = InkColor.nibble(digits[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
      index += 2
    }
    self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: bytes.count == 4 ? bytes[3] : 255)
  }

  /// Opaque black, the default ink.
  public static let black = InkColor(red: 0, green: 0, blue: 0)

  /// The 8-digit form written to files.
  public var hex: String {
    [red, green, blue, alpha].map { byte in
      let text = String(byte, radix: 16)
      return byte < 16 ? "0" + text : text
    }.joined()
  }

  /// `#rrggbb`, for SVG.
  var cssRGB: String { "#" + String(hex.prefix(6)) }

  /// The hex form, `rrggbbaa`.
  public var description: String { hex }

  private static func nibble(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}

/// An affine transform `[a, b, c, d, tx, ty]` mapping (x, y) to (a·x + c·y + tx, b·x + d·y + ty), as PencilKit's
/// and Core Graphics' `CGAffineTransform`.
public struct InkTransform: Hashable, Sendable {
  /// The six entries.
  public var a, b, c, d, tx, ty: Double

  /// A transform from its entries.
  public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
    self.a = a
    self.b = b
    self.c = c
    self.d = d
    self.tx = tx
    self.ty = ty
  }

  /// The transform that changes nothing.
  public static let identity = InkTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

  /// The entries in file order.
  public var entries: [Double] { [a, b, c, d, tx, ty] }

  /// Whether this is the identity.
  public var isIdentity: Bool { self == .identity }

  /// Maps a point.
  public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
    (a * x + c * y + tx, b * x + d * y + ty)
  }

  /// How much the transform scales lengths (geometric mean of the axes), for stroke widths.
  var lengthScale: Double { (abs(a * d - b * c)).squareRoot() }
}

/// The optional per-point channels a stroke carries (x and y are always present).
public struct InkChannels: OptionSet, Hashable, Sendable {
  /// One bit per channel.
  public let rawValue: UInt16
  /// The channels whose bits are set in `rawValue`.
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// Time offset from the stroke's start, seconds.
  public static let time = InkChannels(rawValue: 1 << 0)
  /// Point width, points.
  public static let width = InkChannels(rawValue: 1 << 1)
  /// Point height, points.
  public static let height = InkChannels(rawValue: 1 << 2)
  /// Opacity, 0–1.
  public static let opacity = InkChannels(rawValue: 1 << 3)
  /// Force (pressure), 0 up; 1 is a normal press.
  public static let force = InkChannels(rawValue: 1 << 4)
  /// Azimuth, radians.
  public static let azimuth = InkChannels(rawValue: 1 << 5)
  /// Altitude, radians.
  public static let altitude = InkChannels(rawValue: 1 << 6)

  /// What PencilKit's `PKStrokePoint` holds.
  public static let pencilKit: InkChannels = [.time, .width, .height, .opacity, .force, .azimuth, .altitude]
}

/// One sampled point of a stroke. Channels the stroke does not carry hold their neutral value and are not stored.
public struct InkPoint: Hashable, Sendable {
  /// Position, points, before the stroke's transform.
  public var x, y: Double
  /// Seconds since the stroke began.
  public var time: Double
  /// The nib's size at this point, points.
  public var width, height: Double
  /// 0 (clear) to 1 (opaque).
  public var opacity: Double
  /// Pressure; 1 is a normal press, 0 none.
  public var force: Double
  /// Pencil angle around the vertical, and its elevation, radians.
  public var azimuth, altitude: Double

  /// A point; unspecified channels take neutral values.
  public init(
    x: Double, y: Double, time: Double = 0, width: Double = 0, height: Double = 0, opacity: Double = 1,
    force: Double = 1, azimuth: Double = 0, altitude: Double = Double.pi / 2
  ) {
    self.x = x
    self.y = y
    self.time = time
    self.width = width
    self.height = height
    self.opacity = opacity
    self.force = force
    self.azimuth = azimuth
    self.altitude = altitude
  }
}

/// A page of a drawing: its size and background. Strokes name their page by `id`.
public struct InkPage: Hashable, Sendable {
  /// Unique among the file's pages.
  public var id: String
  /// Fractional-index key: pages are shown in (`order`, `id`) order.
  public var order: String
  /// Size in points.
  public var width, height: Int
  /// A background name ("dots", "lines", "grid", "blank"...), free-form.
  public var background: String?
  /// Keys this build does not know, with their raw JSON values, in file order; written back unchanged.
  public var extra: [InkExtraField]

  /// A page.
  public init(
    id: String, order: String, width: Int, height: Int, background: String? = nil, extra: [InkExtraField] = []
  ) {
    self.id = id
    self.order = order
    self.width = width
    self.height = height
    self.background = background
    self.extra = extra
  }
}

/// A key and its raw JSON value, kept verbatim from a record this build only partly understands.
public struct InkExtraField: Hashable, Sendable {
  /// The key.
  public var key: String
  /// The value as it appeared in the file (valid compact JSON).
  public var json: String

  /// A field.
  public init(key: String, json: String) {
    self.key = key
    self.json = json
  }
}

/// One stroke: its identity, place in the z-order, style, and points.
public struct InkStroke: Hashable, Sendable {
  /// Unique in the file and stable forever (a UUID for strokes nb makes).
  public var id: String
  /// The page's id, or nil for the single implicit page.
  public var page: String?
  /// Fractional-index key; strokes draw in (page order, `order`, `id`) order.
  public var order: String
  /// The tool.
  public var ink: InkType
  /// The ink colour.
  public var color: InkColor
  /// When the stroke was drawn (millisecond precision is kept).
  public var created: Date?
  /// Applied to every point when drawing.
  public var transform: InkTransform
  /// PencilKit's random seed for textured inks.
  public var seed: Int?
  /// The optional channels present on every point.
  public var channels: InkChannels
  /// The points, in drawing order.
  public var points: [InkPoint]
  /// A clip mask as SVG path data (PencilKit's `mask`).
  public var mask: String?
  /// For a piece of a split stroke: the id of the stroke it was cut from.
  public var parent: String?
  /// Keys this build does not know, in file order; written back unchanged.
  public var extra: [InkExtraField]

  /// A stroke.
  public init(
    id: String, page: String? = nil, order: String = "", ink: InkType = .pen, color: InkColor = .black,
    created: Date? = nil, transform: InkTransform = .identity, seed: Int? = nil, channels: InkChannels = [],
    points: [InkPoint], mask: String? = nil, parent: String? = nil, extra: [InkExtraField] = []
  ) {
    self.id = id
    self.page = page
    self.order = order
    self.ink = ink
    self.color = color
    self.created = created
    self.transform = transform
    self.seed = seed
    self.channels = channels
    self.points = points
    self.mask = mask
    self.parent = parent
    self.extra = extra
  }

  /// The points after the transform.
  public var transformedPoints: [(x: Double, y: Double)] {
    points.map { transform.apply(x: $0.x, y: $0.y) }
  }

  /// The bounding box of the transformed points (without the nib's width); nil without points.
  public var bounds: InkRect? {
    InkRect(enclosing: transformedPoints)
  }
}

/// An axis-aligned rectangle, points.
public struct InkRect: Hashable, Sendable {
  /// Corners.
  public var minX, minY, maxX, maxY: Double

  /// A rectangle from its corners.
  public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
    self.minX = minX
    self.minY = minY
    self.maxX = maxX
    self.maxY = maxY
  }

  /// The smallest rectangle holding every point; nil for none.
  init?(enclosing points: [(x: Double, y: Double)]) {
    guard let first = points.first else { return nil }
    var rect = InkRect(minX: first.x, minY: first.y, maxX: first.x, maxY: first.y)
    for point in points.dropFirst() {
      rect.minX = min(rect.minX, point.x)
      rect.minY = min(rect.minY, point.y)
      rect.maxX = max(rect.maxX, point.x)
      rect.maxY = max(rect.maxY, point.y)
    }
    self = rect
  }

  /// The smallest rectangle holding both.
  func union(_ other: InkRect) -> InkRect {
    InkRect(
      minX: min(minX, other.minX), minY: min(minY, other.minY), maxX: max(maxX, other.maxX),
      maxY: max(maxY, other.maxY))
  }

  /// Width and height.
  public var width: Double { maxX - minX }
  /// Height.
  public var height: Double { maxY - minY }
}

/// A record of a kind this build does not know (`"k"` other than `page`/`s`), kept verbatim.
public struct InkUnknownRecord: Hashable, Sendable {
  /// The whole line, without its newline.
  public var line: String
  /// Its `k`.
  public var kind: String
  /// Its `id`, when it has one (used to merge it like a stroke).
  public var id: String?

  /// A record.
  public init(line: String, kind: String, id: String?) {
    self.line = line
    self.kind = kind
    self.id = id
  }

  /// What identifies the record across versions of the file: its kind and id, or, without an id, the line itself.
  var mergeKey: String { id.map { kind + "\u{0}" + $0 } ?? line }
}

/// The whole content of an ink sidecar: header scales, pages and strokes.
///
/// A value type: edit it with the methods below and write it with `InkCodec.serialize` (NoteStore's
/// `NoteRepository.saveInk` does that for a note's sidecar); nothing here touches the disk. Stroke and page order in the file is always the drawing order, so equal drawings give equal bytes.
public struct InkDocument: Hashable, Sendable {
  /// The format version (`nbink`); this build writes and reads 1.
  public static let formatVersion = 1

  /// The fixed-point scales the file is written with.
  public var scales: InkScales
  /// Keys of the header this build does not know.
  public var headerExtra: [InkExtraField]
  /// Pages (may be empty: then every stroke is on the implicit page).
  public var pages: [InkPage]
  /// Strokes, in any order; `drawingOrder` sorts them.
  public var strokes: [InkStroke]
  /// Records of kinds this build does not know.
  public var unknownRecords: [InkUnknownRecord]

  /// A document.
  public init(
    scales: InkScales = .standard, pages: [InkPage] = [], strokes: [InkStroke] = [],
    headerExtra: [InkExtraField] = [], unknownRecords: [InkUnknownRecord] = []
  ) {
    self.scales = scales
    self.pages = pages
    self.strokes = strokes
    self.headerExtra = headerExtra
    self.unknownRecords = unknownRecords
  }

  /// Whether there is nothing drawn and no page.
  public var isEmpty: Bool { strokes.isEmpty && pages.isEmpty && unknownRecords.isEmpty }

  /// The total number of points.
  public var pointCount: Int { strokes.reduce(0) { $0 + $1.points.count } }

  /// Pages in display order.
  public var orderedPages: [InkPage] {
    pages.sorted { ($0.order, $0.id) < ($1.order, $1.id) }
  }

  /// Strokes in drawing order: (page order, stroke order, id). Strokes of the implicit page come first; strokes
  /// naming a page that has no record come after the known pages, by page id.
  public var drawingOrder: [InkStroke] {
    let pageRank = Dictionary(
      orderedPages.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first })
    func key(_ stroke: InkStroke) -> (Int, String, String, String) {
      guard let page = stroke.page else { return (-1, "", stroke.order, stroke.id) }
      if let rank = pageRank[page] { return (rank, "", stroke.order, stroke.id) }
      return (pageRank.count, page, stroke.order, stroke.id)
    }
    return strokes.map { (key($0), $0) }.sorted { $0.0 < $1.0 }.map(\.1)
  }

  /// The stroke with `id`.
  public func stroke(id: String) -> InkStroke? {
    strokes.first { $0.id == id }
  }

  /// Strokes on one page (nil: the implicit page), in drawing order.
  public func strokes(onPage page: String?) -> [InkStroke] {
    drawingOrder.filter { $0.page == page }
  }

  /// The bounding box of every stroke's points.
  public var bounds: InkRect? {
    strokes.compactMap(\.bounds).reduce(nil) { $0?.union($1) ?? $1 }
  }
}

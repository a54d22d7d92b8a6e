import Foundation

/// Reads reMarkable v6 `.rm` "lines" files (firmware 3.0 and later) into nb's ink model.
///
/// The file is a 43-byte header followed by length-prefixed blocks of tagged values; only the line items (pen
/// strokes) are read, every other block (text, layers, tree nodes...) is skipped by its length. Pure: bytes in,
/// values out.
public enum RemarkableV6 {
  /// The reMarkable 1/2 screen, pixels: the page a v6 file's coordinates refer to.
  static let screenWidth = 1404.0
  /// Screen height, pixels.
  static let screenHeight = 1872.0
  /// Screen resolution, pixels per inch.
  static let pixelsPerInch = 226.0
  /// Points (1/72 inch) per screen pixel.
  static let pointsPerPixel = 72.0 / pixelsPerInch

  /// The strokes of a v6 file as a document with one page the size of the reMarkable screen.
  ///
  /// - Parameters:
  ///   - makeID: mints the page's id (called first) and then each stroke's, in file order.
  ///   - created: the creation instant given to every stroke (the file records none).
  /// - Returns: one page and its strokes, in file order (increasing order keys). Deleted items are left out.
  /// - Throws: `RemarkableV6Error` for a file that is not v6, is truncated, or is malformed.
  public static func read(
    _ data: Data, makeID: () -> String = InkID.make, created: Date = Date()
  ) throws -> InkDocument {
    let lines = try lines(data)
    let page = InkPage(
      id: makeID(), order: FractionalIndex.key(between: nil, and: nil),
      width: Int((screenWidth * pointsPerPixel).rounded()), height: Int((screenHeight * pointsPerPixel).rounded()))
    let keys = FractionalIndex.keys(count: lines.count, between: nil, and: nil)
    let strokes = zip(lines, keys).map { line, key in
      InkStroke(
        id: makeID(), page: page.id, order: key, ink: inkType(tool: line.tool), color: color(of: line),
        created: created, channels: [.width, .force, .azimuth], points: line.points.map(point))
    }
    return InkDocument(pages: [page], strokes: strokes)
  }

  /// A sample in points with the page's top-left corner at (0, 0): v6 x is centred on the screen's middle.
  static func point(_ sample: Point) -> InkPoint {
    InkPoint(
      x: (sample.x + screenWidth / 2) * pointsPerPixel, y: sample.y * pointsPerPixel,
      width: sample.width * pointsPerPixel, force: sample.pressure, azimuth: sample.direction)
  }

  /// nb's ink type for a reMarkable pen id; unknown ids draw as a pen.
  static func inkType(tool: Int) -> InkType {
    switch tool {
    case 2, 15, 4, 17: .pen  // ballpoint, fineliner
    case 1, 14, 7, 13: .pencil  // pencil, mechanical pencil
    case 3, 16: .marker
    case 5, 18: .highlighter
    // The shader lays translucent tone over an area, which is what nb's translucent marker does.
    case 23: .marker
    case 21: .fountainPen  // calligraphy pen
    case 0, 12: .watercolor  // paintbrush
    case 6, 8: .eraser  // eraser, erase area
    default: .pen
    }
  }

  /// The line's colour: its explicit ARGB when the file has one, else the palette colour of its id.
  static func color(of line: Line) -> InkColor {
    if let argb = line.argb {
      return InkColor(
        red: UInt8(truncatingIfNeeded: argb >> 16), green: UInt8(truncatingIfNeeded: argb >> 8),
        blue: UInt8(truncatingIfNeeded: argb), alpha: UInt8(truncatingIfNeeded: argb >> 24))
    }
    return color(id: line.colorID)
  }

  /// The sRGB colour of a palette id (the values the tablet reports for its palette); unknown ids are black.
  static func color(id: Int) -> InkColor {
    switch id {
    case 0: InkColor(red: 0, green: 0, blue: 0)  // black
    case 1: InkColor(red: 144, green: 144, blue: 144)  // grey
    case 2: InkColor(red: 255, green: 255, blue: 255)  // white
    case 3: InkColor(red: 251, green: 247, blue: 25)  // yellow
    case 4: InkColor(red: 0, green: 255, blue: 0)  // green
    case 5: InkColor(red: 255, green: 192, blue: 203)  // pink
    case 6: InkColor(red: 78, green: 105, blue: 201)  // blue
    case 7: InkColor(red: 179, green: 62, blue: 57)  // red
    case 8: InkColor(red: 125, green: 125, blue: 125)  // grey overlap
    // "Highlight" without an explicit colour: the tablet's default highlighter yellow.
    case 9: InkColor(red: 255, green: 237, blue: 117)
    case 10: InkColor(red: 161, green: 216, blue: 125)  // green 2
    case 11: InkColor(red: 139, green: 208, blue: 229)  // cyan
    case 12: InkColor(red: 183, green: 130, blue: 205)  // magenta
    case 13: InkColor(red: 247, green: 232, blue: 81)  // yellow 2
    default: .black
    }
  }
}

import Foundation
import TextFormat

/// An InkML file nb cannot import: what is wrong and, when known, on which line of the XML.
public struct InkMLError: Error, Equatable, CustomStringConvertible {
  /// 1-based line of the XML where the problem was found (nil when the parser gave none).
  public var line: Int?
  /// What is wrong.
  public var message: String

  /// An error.
  public init(line: Int?, message: String) {
    self.line = line
    self.message = message
  }

  /// One line: `InkML line 12: trace 't3': point 4 has 3 values but its format has 2 regular channels`.
  public var description: String {
    if let line { return "InkML line \(line): \(message)" }
    return "InkML: \(message)"
  }
}

/// W3C InkML 1.0 (https://www.w3.org/TR/InkML/): import into and export from nb's ink model.
///
/// Reading understands `<ink>` (the InkML namespace or none), `<definitions>`, `<context>` (with `contextRef`,
/// `traceFormatRef`, `brushRef`, `inkSourceRef`; one written directly in `<ink>` becomes the current context),
/// `<traceFormat>` with regular and intermittent `<channel>`s, `<inkSource>` (for its trace format), `<brush>` with
/// `<brushProperty>` (color, width, transparency, rasterOp, and nb's own `nb:ink`), `<trace>` (explicit, `'`
/// first-difference and `"` second-difference values, `*`/`?`/`T`/`F`) and nested `<traceGroup>`s passing their
/// context and brush down. Other elements (annotations, canvases, traceViews, foreign XML) are skipped. Channels
/// X, Y, W become points (units cm, mm, in, pt, px at 96 to the inch, pc, himetric; none: points), T seconds since
/// the stroke's first point (ms or s; none: ms), F force (scaled by the channel's min/max when it has a max, else
/// kept when every value in the file is at most 1 and scaled by the file's largest value otherwise), OA and OE
/// azimuth and altitude (deg or rad; none: deg). `penUp` traces and traces in `<definitions>` are not drawn.
/// A brush width gives every point that width when the trace has no W channel; a brush transparency above 1 is
/// read as Windows Ink's 0...255 byte, up to 1 as a fraction. InkML 1.0 has no version attribute; a file that carries
/// one must say "1.0" (or "1").
///
/// Writing produces one context per combination of channels the strokes carry (X Y, then T in ms, F with
/// min 0 and max 1, W, OA and OE in radians, all lengths in `pt`, the unit nb stores), one brush per distinct
/// (ink, colour, constant width), and one `<trace xml:id="s-…">` per stroke in drawing order (the stroke id made an
/// XML name), with explicit
/// values at the document's stored precision. The stroke's transform is applied to its points and widths. Pages,
/// point height and opacity, masks, seeds and creation times are not written.
public enum InkML {
  /// InkML's XML namespace.
  static let namespace = "http://www.w3.org/2003/InkML"

  /// Values of a `version` attribute on `<ink>` that the reader accepts (InkML 1.0 defines none).
  static let acceptedVersions: Set<String> = ["1.0", "1"]

  /// The `<brushProperty>` name under which the writer records nb's ink type.
  static let inkProperty = "nb:ink"

  /// The strokes of an InkML document, without pages, ids from `makeID`, order keys increasing in file order, each
  /// stroke's `created` set to `created`. The caller merges them into a note's ink.
  public static func read(
    _ data: Data, created: Date? = nil, makeID: @escaping () -> String = { InkID.make() }
  ) throws -> InkDocument {
    let reader = InkMLReader(makeID: makeID, created: created)
    if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
      throw InkMLError(line: nil, message: "no XML root element: the data is empty or not XML")
    }
    do {
      try XMLStream.read(data, reader.take)
    } catch let failure as InkMLReader.Failure {
      throw InkMLError(line: failure.line, message: failure.message)
    } catch let failure as XMLStream.Failure {
      switch failure.kind {
      case .unavailable:
        throw InkMLError(line: nil, message: "cannot read InkML: \(failure.message)")
      case .malformed where reader.sawRoot && !reader.isComplete:
        throw InkMLError(line: failure.line, message: "the XML ends before </ink> (truncated?): \(failure.message)")
      case .malformed:
        throw InkMLError(line: failure.line, message: "not well-formed XML: \(failure.message)")
      }
    }
    if !reader.sawRoot {
      throw InkMLError(line: nil, message: "no XML root element: the data is empty or not XML")
    }
    if !reader.isComplete {
      throw InkMLError(line: nil, message: "the XML ends before </ink> (truncated?)")
    }
    return InkDocument(strokes: reader.finishedStrokes())
  }

  /// The id a reference names: `#id` (a same-document URI) or a bare id.
  static func reference(_ text: String) -> String {
    text.hasPrefix("#") ? String(text.dropFirst()) : text
  }

  /// `#rgb`, `#rrggbb`, `#rrggbbaa` or one of the sixteen basic CSS colour names.
  static func color(_ text: String) -> InkColor? {
    let trimmed = text.trimmingWhitespaces()
    if trimmed.hasPrefix("#") {
      let digits = trimmed.dropFirst()
      if digits.count == 3 {
        return InkColor(hex: digits.map { "\($0)\($0)" }.joined())
      }
      return InkColor(hex: String(digits))
    }
    let named: [String: String] = [
      "black": "000000", "silver": "c0c0c0", "gray": "808080", "grey": "808080", "white": "ffffff",
      "maroon": "800000", "red": "ff0000", "purple": "800080", "fuchsia": "ff00ff", "green": "008000",
      "lime": "00ff00", "olive": "808000", "yellow": "ffff00", "navy": "000080", "blue": "0000ff",
      "teal": "008080", "aqua": "00ffff",
    ]
    return named[trimmed.lowercased()].flatMap { InkColor(hex: $0) }
  }

  /// `document` as InkML text (UTF-8, `\n` line ends).
  public static func write(_ document: InkDocument) -> String {
    var writer = InkMLWriter(scales: document.scales)
    for stroke in document.drawingOrder { writer.add(stroke) }
    return writer.text()
  }
}

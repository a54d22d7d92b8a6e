import Foundation
import TextFormat

/// What `nb ink info` and `nb show` say about a drawing.
public struct InkSummary: Equatable, Sendable {
  /// Page records.
  public var pages: Int
  /// Strokes.
  public var strokes: Int
  /// Points over all strokes.
  public var points: Int
  /// Strokes per ink type name, most used first (ties by name).
  public var inkTypes: [(name: String, strokes: Int)]
  /// The bounding box of all points, after transforms.
  public var bounds: InkRect?

  /// Summarises a document.
  public init(_ document: InkDocument) {
    pages = document.pages.count
    strokes = document.strokes.count
    points = document.pointCount
    var counts: [String: Int] = [:]
    for stroke in document.strokes { counts[stroke.ink.name, default: 0] += 1 }
    inkTypes = counts.map { (name: $0.key, strokes: $0.value) }.sorted {
      ($0.strokes, $1.name) > ($1.strokes, $0.name)
    }
    bounds = document.bounds
  }

  /// Equal when every count, every ink type with its count, and the bounds are equal.
  public static func == (lhs: InkSummary, rhs: InkSummary) -> Bool {
    lhs.pages == rhs.pages && lhs.strokes == rhs.strokes && lhs.points == rhs.points
      && lhs.inkTypes.map(\.name) == rhs.inkTypes.map(\.name)
      && lhs.inkTypes.map(\.strokes) == rhs.inkTypes.map(\.strokes) && lhs.bounds == rhs.bounds
  }

  /// "12 strokes on 2 pages (1 840 points)".
  public var headline: String {
    let pageText = pages == 0 ? "" : " on \(counted(pages, "page"))"
    return "\(counted(strokes, "stroke"))\(pageText) (\(counted(points, "point")))"
  }
}

/// The readable text git shows for an ink file (`diff=nb-ink` with `nb ink textconv` as textconv): one line per page
/// and per stroke, in drawing order, so a diff reads as strokes added and removed rather than number arrays.
public enum InkTextConv {
  /// The text for the bytes of an ink file; a file that cannot be parsed is described by its error, so a diff still
  /// shows that something is wrong instead of failing.
  public static func text(_ data: Data, file: String? = nil) -> String {
    do {
      return text(try InkCodec.parse(data, file: file))
    } catch {
      return "unreadable ink file: \(error)\n"
    }
  }

  /// The text for a document.
  static func text(_ document: InkDocument) -> String {
    var lines = ["ink: " + InkSummary(document).headline]
    for page in document.orderedPages {
      lines.append("page \(page.id) \(page.width)x\(page.height)pt" + (page.background.map { " \($0)" } ?? ""))
    }
    for stroke in document.drawingOrder {
      var line = "stroke \(stroke.id) \(stroke.ink.name) #\(stroke.color.hex) \(stroke.points.count) pts"
      if let bounds = stroke.bounds {
        line += " at (\(format(bounds.minX)),\(format(bounds.minY)))-(\(format(bounds.maxX)),\(format(bounds.maxY)))"
      }
      if let page = stroke.page { line += " page \(page)" }
      if let parent = stroke.parent { line += " from \(parent)" }
      lines.append(line)
    }
    for record in document.unknownRecords { lines.append("record \(record.id ?? "-"): \(record.line.prefix(80))") }
    return lines.joined(separator: "\n") + "\n"
  }

  /// One decimal: enough to tell strokes apart, short enough to read.
  public static func format(_ value: Double) -> String {
    // Beyond this a Double has no tenths to show (and Int would trap); such a value is someone's corrupt data.
    guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
    let tenths = (value * 10).rounded()
    let whole = Int(tenths) / 10
    let fraction = abs(Int(tenths) % 10)
    let sign = tenths < 0 && whole == 0 ? "-" : ""
    return fraction == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction)"
  }
}

import Foundation
import TextFormat

/// Edits an app makes to a drawing. Each keeps every other stroke's record byte for byte, so a sync merges them
/// stroke by stroke.
extension InkDocument {
  /// Adds a stroke on top of its page. A stroke without an order key gets one above every stroke of its page; an id
  /// already in use is an error (ids are forever).
  public mutating func add(_ stroke: InkStroke) throws {
    guard self.stroke(id: stroke.id) == nil else { throw InkEditError.duplicateID(stroke.id) }
    var stroke = stroke
    if stroke.order.isEmpty { stroke.order = FractionalIndex.key(between: topOrder(onPage: stroke.page), and: nil) }
    strokes.append(stroke)
  }

  /// The highest order key on a page; nil when it has no strokes.
  func topOrder(onPage page: String?) -> String? {
    strokes.lazy.filter { $0.page == page }.map(\.order).max()
  }

  /// Adds an imported drawing: its pages after ours and its strokes on top of their pages, every page and stroke
  /// under a new id from `makeID` (an import is new ink, even when the file came from this very drawing).
  public mutating func addImported(_ other: InkDocument, makeID: () -> String = InkID.make) {
    var pageRename: [String: String] = [:]
    for page in other.orderedPages {
      var page = page
      pageRename[page.id] = makeID()
      page.id = pageRename[page.id]!
      page.order = FractionalIndex.key(between: pages.map(\.order).max(), and: nil)
      pages.append(page)
    }
    // The top of each page, kept as strokes go on: one pass, however many strokes the file has.
    var tops: [String?: String] = [:]
    for stroke in strokes { tops[stroke.page] = max(tops[stroke.page] ?? stroke.order, stroke.order) }
    for stroke in other.drawingOrder {
      var stroke = stroke
      if let page = stroke.page { stroke.page = pageRename[page] ?? page }
      stroke.id = makeID()
      stroke.parent = nil
      stroke.order = FractionalIndex.key(between: tops[stroke.page] ?? nil, and: nil)
      tops[stroke.page] = stroke.order
      strokes.append(stroke)
    }
  }

  /// Adds a page after every other page; returns it.
  @discardableResult
  public mutating func addPage(
    id: String, width: Int, height: Int, background: String? = nil
  ) throws -> InkPage {
    guard !pages.contains(where: { $0.id == id }) else { throw InkEditError.duplicateID(id) }
    let page = InkPage(
      id: id, order: FractionalIndex.key(between: pages.map(\.order).max(), and: nil), width: width, height: height,
      background: background)
    pages.append(page)
    return page
  }

  /// Removes the stroke with `id`; returns it, or nil when there is none.
  @discardableResult
  public mutating func erase(id: String) -> InkStroke? {
    guard let index = strokes.firstIndex(where: { $0.id == id }) else { return nil }
    return strokes.remove(at: index)
  }

  /// Replaces a stroke by pieces of it (what an eraser that cuts through a stroke leaves): each range of point
  /// indices becomes a new stroke with a new id from `makeID`, the same style and place in the z-order, and `from`
  /// naming the original. Returns the new ids. Empty ranges are skipped.
  @discardableResult
  public mutating func split(
    id: String, keeping ranges: [Range<Int>], makeID: () -> String = InkID.make
  ) throws -> [String] {
    guard let index = strokes.firstIndex(where: { $0.id == id }) else { throw InkEditError.noSuchStroke(id) }
    let original = strokes[index]
    for range in ranges where range.lowerBound < 0 || range.upperBound > original.points.count {
      throw InkEditError.rangeOutOfBounds(id: id, range: range, count: original.points.count)
    }
    // Pieces sit between the original's neighbours, in the original's drawing order.
    let neighbours = strokes(onPage: original.page).map(\.order)
    let above = neighbours.filter { $0 > original.order }.min()
    let keys = FractionalIndex.keys(
      count: ranges.filter { !$0.isEmpty }.count, between: original.order, and: above)
    var pieces: [InkStroke] = []
    for (range, key) in zip(ranges.filter { !$0.isEmpty }, keys) {
      var piece = original
      piece.id = makeID()
      piece.order = key
      piece.parent = original.id
      piece.points = Array(original.points[range])
      pieces.append(piece)
    }
    // Every new id is checked before anything changes: a throwing split leaves the drawing as it was.
    var taken = Set(strokes.map(\.id))
    for piece in pieces where !taken.insert(piece.id).inserted { throw InkEditError.duplicateID(piece.id) }
    strokes.remove(at: index)
    strokes.append(contentsOf: pieces)
    return pieces.map(\.id)
  }

  /// Moves a stroke in the z-order of its page: directly above `below` (nil: to the bottom). Only that stroke's
  /// order key changes.
  public mutating func move(id: String, above below: String?) throws {
    guard let index = strokes.firstIndex(where: { $0.id == id }) else { throw InkEditError.noSuchStroke(id) }
    let ordered = strokes(onPage: strokes[index].page).filter { $0.id != id }
    let lower: String?
    let upper: String?
    if let below {
      guard let position = ordered.firstIndex(where: { $0.id == below }) else {
        throw InkEditError.noSuchStroke(below)
      }
      lower = ordered[position].order
      upper = ordered.dropFirst(position + 1).first { $0.order > ordered[position].order }?.order
    } else {
      lower = nil
      upper = ordered.first?.order
    }
    strokes[index].order = FractionalIndex.key(between: lower, and: upper)
  }

  /// Moves a stroke above every other stroke of its page.
  public mutating func bringToFront(id: String) throws {
    guard let stroke = stroke(id: id) else { throw InkEditError.noSuchStroke(id) }
    try move(id: id, above: strokes(onPage: stroke.page).last { $0.id != id }?.id)
  }
}

/// A drawing edit that cannot be made.
public enum InkEditError: Error, Equatable, CustomStringConvertible {
  /// An id that is already taken.
  case duplicateID(String)
  /// No stroke with this id.
  case noSuchStroke(String)
  /// A split range outside the stroke's points.
  case rangeOutOfBounds(id: String, range: Range<Int>, count: Int)

  /// What went wrong, for a person.
  public var description: String {
    switch self {
    case .duplicateID(let id): "an ink record with id '\(id)' already exists; ids are never reused"
    case .noSuchStroke(let id): "no stroke with id '\(id)'"
    case .rangeOutOfBounds(let id, let range, let count):
      "stroke '\(id)' has \(count) points; \(range.lowerBound)..<\(range.upperBound) is outside them"
    }
  }
}

/// Stroke ids: time-ordered UUIDs (version 7), so a file's ids sort roughly by when they were drawn and two devices
/// never mint the same one.
public enum InkID {
  /// A new version-7 UUID for `date`, its random bits from `random`.
  public static func make<R: RandomNumberGenerator>(date: Date, using random: inout R) -> String {
    let millis = UInt64(max(0, date.timeIntervalSince1970 * 1000))
    var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
    for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: millis >> (8 * (5 - UInt64(index)))) }
    bytes[6] = 0x70 | (bytes[6] & 0x0f)
    bytes[8] = 0x80 | (bytes[8] & 0x3f)
    return UUIDText.format(bytes)
  }

  /// A new id from the clock and the system's random source.
  public static func make() -> String {
    var generator = SystemRandomNumberGenerator()
    return make(date: Date(), using: &generator)
  }
}

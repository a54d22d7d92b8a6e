import Foundation

/// Edits an app makes to a drawing. Each keeps every other stroke's record byte for byte, so a sync merges them
/// stroke by stroke.
extension InkDocument {
  /// Adds a stroke on top of its page. A stroke without an order key gets one above every stroke of its page; an id
  /// already in use is an error (ids are forever).
  public mutating func add(_ stroke: InkStroke) throws {
    guard self.stroke(id: stroke.id) == nil else { throw InkEditError.duplicateID(stroke.id) }
    var stroke = stroke
    if stroke.order.isEmpty {
      let top = strokes.lazy.filter { $0.page == stroke.page }.map(\.order).max()
      stroke.order = FractionalIndex.key(between: top, and: nil)
    }
    strokes.append(stroke)
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
    let hex = bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    let parts = [
      hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
      hex.dropFirst(20),
    ]
    return parts.joined(separator: "-")
  }

  /// A new id from the clock and the system's random source.
  public static func make() -> String {
    var generator = SystemRandomNumberGenerator()
    return make(date: Date(), using: &generator)
  }
}

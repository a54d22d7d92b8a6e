import Foundation

/// The 3-way merge of two versions of a drawing against their common ancestor, record by record (FORMAT.md: "a 3-way
/// set merge by stroke id").
///
/// Per id: a record added on either side is kept; deleted on one side and untouched on the other, it is deleted;
/// deleted on one side and changed on the other, the change is kept (nothing drawn is lost to a concurrent erase of
/// an older version); changed (or added) differently on both sides, the later version wins. Pages and records of
/// unknown kinds merge the same way. The result's file order is the drawing order, so merging in either direction
/// gives the same bytes.
public enum InkMerge {
  /// Which side's version of a record changed on both sides is kept.
  public enum Later: Sendable {
    /// Our side was edited later.
    case ours
    /// Their side was edited later.
    case theirs
    /// No edit times are known (a git merge driver sees only three files): the version whose canonical line sorts
    /// last wins, an arbitrary but direction-independent choice.
    case unknown
  }

  /// Merges `ours` and `theirs` against `base` (nil: no common ancestor, as when both sides added the sidecar).
  public static func merge(base: InkDocument?, ours: InkDocument, theirs: InkDocument, later: Later) -> InkDocument {
    // The finer of the two sides' scales, channel by channel: nothing either side stored is rounded away, and the
    // choice does not depend on which side is "ours".
    let scales = InkScales(
      xy: max(ours.scales.xy, theirs.scales.xy), time: max(ours.scales.time, theirs.scales.time),
      size: max(ours.scales.size, theirs.scales.size), opacity: max(ours.scales.opacity, theirs.scales.opacity),
      force: max(ours.scales.force, theirs.scales.force), angle: max(ours.scales.angle, theirs.scales.angle))
    func pick<T>(_ one: T, _ two: T, line: (T) -> String) -> T {
      switch later {
      case .ours: one
      case .theirs: two
      case .unknown: line(one) >= line(two) ? one : two
      }
    }
    let strokes = merge3(
      base: base?.strokes ?? [], ours: ours.strokes, theirs: theirs.strokes, key: \.id
    ) { pick($0, $1) { InkCodec.line(of: $0, scales: scales) } }
    let pages = merge3(base: base?.pages ?? [], ours: ours.pages, theirs: theirs.pages, key: \.id) {
      pick($0, $1) { "\($0)" }
    }
    let unknown = merge3(
      base: base?.unknownRecords ?? [], ours: ours.unknownRecords, theirs: theirs.unknownRecords,
      key: \.mergeKey
    ) { pick($0, $1, line: \.line) }
    let headerExtra = merge3(
      base: base?.headerExtra ?? [], ours: ours.headerExtra, theirs: theirs.headerExtra, key: \.key
    ) { pick($0, $1, line: \.json) }
    return InkDocument(
      scales: scales, pages: pages, strokes: strokes, headerExtra: headerExtra, unknownRecords: unknown)
  }

  /// Merges the bytes of three versions. Returns nil when a version cannot be parsed, or the result could not be
  /// (two sides together beyond the point limits): the caller then keeps both versions whole instead of guessing.
  public static func merge(base: Data?, ours: Data, theirs: Data, later: Later) -> Data? {
    guard let oursDocument = try? InkCodec.parse(ours), let theirsDocument = try? InkCodec.parse(theirs) else {
      return nil
    }
    // An unreadable ancestor is treated as none: every stroke then counts as added, so nothing is deleted by a
    // guess.
    let baseDocument = base.flatMap { try? InkCodec.parse($0) }
    let merged = InkCodec.serialize(
      merge(base: baseDocument, ours: oursDocument, theirs: theirsDocument, later: later))
    // Two sides each within the limits can add up beyond them; a file nb could not read back is not written.
    guard (try? InkCodec.parse(merged)) != nil else { return nil }
    return merged
  }

  static func merge3<T: Equatable>(
    base: [T], ours: [T], theirs: [T], key: (T) -> String, pick: (T, T) -> T
  ) -> [T] {
    func index(_ items: [T]) -> [String: T] {
      Dictionary(items.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
    }
    let baseByKey = index(base)
    let oursByKey = index(ours)
    let theirsByKey = index(theirs)
    var keys = Set(oursByKey.keys)
    keys.formUnion(theirsByKey.keys)
    var result: [T] = []
    for id in keys.sorted() {
      let old = baseByKey[id]
      let mine = oursByKey[id]
      let yours = theirsByKey[id]
      let kept: T?
      if mine == yours {
        kept = mine
      } else if mine == old {
        kept = yours
      } else if yours == old {
        kept = mine
      } else if let mine, let yours {
        kept = pick(mine, yours)
      } else {
        // Deleted on one side, changed on the other: keep the change.
        kept = mine ?? yours
      }
      if let kept { result.append(kept) }
    }
    return result
  }
}

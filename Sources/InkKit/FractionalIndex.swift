/// Order keys that always have room between them, so moving one stroke in the z-order rewrites only that stroke's
/// line, and two devices inserting at the same place each get a key without coordinating.
///
/// Keys are non-empty strings over the 62 digits `0-9A-Za-z` compared byte by byte (which is also how `String`'s `<`
/// orders ASCII), never ending in `0` so that a key strictly between any two distinct keys exists.
public enum FractionalIndex {
  static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
  static let base = digits.count

  private static func value(_ byte: UInt8) -> Int? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A")) + 10
    case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a")) + 36
    default: nil
    }
  }

  /// Whether `key` is usable as an order key.
  static func isValid(_ key: String) -> Bool {
    !key.isEmpty && key.utf8.allSatisfy { value($0) != nil }
  }

  /// A key strictly between `lower` and `upper` (nil: unbounded on that side). Requires `lower < upper` when both
  /// are given. Keys read from a file may hold other bytes (someone's hand edit); the result is then still above
  /// `lower` — what adding on top needs — but may not be below such an `upper`.
  static func key(between lower: String?, and upper: String?) -> String {
    let candidate = digitKey(between: lower, and: upper)
    if let lower, !(lower < candidate) { return lower + "V" }
    return candidate
  }

  private static func digitKey(between lower: String?, and upper: String?) -> String {
    let low = (lower ?? "").utf8.map { value($0) ?? 0 }
    let high = upper.map { $0.utf8.map { value($0) ?? (base - 1) } }
    var result: [Int] = []
    var index = 0
    // Walk the common prefix, then take a digit in the gap; when there is no gap, copy low's digit and go on with
    // an unbounded upper side.
    var upperBounded = high != nil
    while true {
      let lowDigit = index < low.count ? low[index] : 0
      let highDigit = upperBounded ? (index < high!.count ? high![index] : 0) : base
      if lowDigit == highDigit {
        if index >= max(low.count, high?.count ?? 0) {
          // Only for an upper key ending in "0" (never made here): nothing fits below it, so go above lower.
          upperBounded = false
          continue
        }
        result.append(lowDigit)
        index += 1
        continue
      }
      if highDigit - lowDigit > 1 {
        result.append((lowDigit + highDigit) / 2)
        break
      }
      // Adjacent digits: keep low's digit and find room above the rest of low.
      result.append(lowDigit)
      index += 1
      upperBounded = false
      // Above the rest of low: skip low's top digits.
      while index < low.count && low[index] == base - 1 {
        result.append(base - 1)
        index += 1
      }
      let next = index < low.count ? low[index] : 0
      result.append((next + base) / 2 == next ? next + 1 : (next + base) / 2)
      break
    }
    return String(decoding: result.map { digits[$0] }, as: UTF8.self)
  }

  /// `count` increasing keys, all strictly between `lower` and `upper`.
  public static func keys(count: Int, between lower: String?, and upper: String?) -> [String] {
    var keys: [String] = []
    var previous = lower
    for _ in 0..<count {
      let next = key(between: previous, and: upper)
      keys.append(next)
      previous = next
    }
    return keys
  }
}

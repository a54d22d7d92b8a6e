import Foundation
import XCTest

@testable import NBCLI

/// A listing's `--json` is written element by element (`writeJSONArray`); its bytes must be those `printJSON` gives
/// the whole array.
final class JSONArrayStreamTests: XCTestCase {
  private struct Element: Encodable {
    var path: String
    var tags: [String]
    var score: Double?
    var nested: [[Int]]
    var empty: [String: Int]
  }

  private func whole<T: Encodable>(_ values: [T]) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(values) + Data("\n".utf8)
  }

  private func streamed<T: Encodable>(_ values: [T]) throws -> Data {
    var out = Data()
    try writeJSONArray({ element in for value in values { try element(value) } }, to: { out.append($0) })
    return out
  }

  func testStreamedBytesAreTheWholeArraysBytes() throws {
    let values = (0..<3_000).map { i in
      Element(
        path: "work/n\(i).md", tags: i % 3 == 0 ? [] : ["a/b", "line\nbreak \"q\""], score: i % 2 == 0 ? nil : 1.5,
        nested: i % 5 == 0 ? [] : [[i, i + 1]], empty: [:])
    }
    for count in [0, 1, 2, 3_000] {
      XCTAssertEqual(try streamed(Array(values.prefix(count))), try whole(Array(values.prefix(count))), "\(count)")
    }
  }
}

import NBTestSupport
import XCTest

@testable import NoteStore

/// The table a pass over every link keeps per note rowid answers as a dictionary would, whatever order and spread
/// the rowids come in: dense ones in an array, far ones in a dictionary, and one kept far away still found after the
/// array grew past it.
final class RowidTableTests: XCTestCase {
  func testItAnswersAsADictionaryWouldForRowidsInAnyOrderAndSpread() {
    var random = SplitMix64(seed: 11)
    var table = RowidTable<Int>()
    var reference: [Int64: Int] = [:]
    // Far ones first (kept aside while the table is small), then a dense run that grows past them, then overwrites
    // and removals anywhere.
    var rowids: [Int64] = [9_000, 50_000, 1 << 40, 0, 7]
    rowids += (1...20_000).map { Int64($0) }
    rowids += (0..<5_000).map { _ in Int64(random.next() % 60_000) }
    for (step, rowid) in rowids.enumerated() {
      let value: Int? = step % 17 == 0 && step > 5 ? nil : step
      table[rowid] = value
      reference[rowid] = value
    }
    XCTAssertEqual(table.count, reference.count)
    for rowid in Set(rowids).union([-1, 60_001, 1 << 41]) {
      XCTAssertEqual(table[rowid], reference[rowid], "rowid \(rowid)")
    }
  }
}

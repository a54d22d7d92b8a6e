import Foundation
import NBTestSupport
import XCTest

@testable import GitKit

/// The checksum a patch hashes on another core with the entry count it expects (``SpeculativeChecksum``): whether
/// the count comes out as expected or not, the patched index must carry the checksum and the states of its own
/// bytes, as a patch without it makes them.
final class SpeculativeChecksumTests: GitKitTestCase {
  private func indexBytes() throws -> [UInt8] {
    Array(try Data(contentsOf: workTree.appendingPathComponent(".git/index")))
  }

  private func upsert(_ path: String, _ round: Int) -> IndexPatchOperation {
    var record = IndexEntryRecord(mode: 0o100644, id: Array(repeating: UInt8(round), count: 20), path: [])
    record.path = Array(path.utf8)
    return .upsert(record)
  }

  private func remove(_ path: String) -> IndexPatchOperation {
    .remove(path: Array(path.utf8), descendants: true)
  }

  private func words(_ states: [SHA1]) -> [[Int]] {
    states.map { state in
      let (a, b, c, d, e) = state.words
      return [Int(a), Int(b), Int(c), Int(d), Int(e), state.length]
    }
  }

  func testAPatchChecksumsItsOwnBytesWhateverTheCountComesOutAs() throws {
    try git.run("init", "-q")
    // Enough entries for several checkpoint intervals (64 KiB), in folders that sort early, in the middle and late.
    for index in 0..<4_000 {
      try write("m/\(index / 400)/a-long-name-that-fills-the-index-faster-\(index).md", "\(index)\n")
    }
    try write("m/0/folder/inner.md", "inner\n")
    try write("m/9/folder/inner.md", "inner\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "seed")
    let existing = "m/7/a-long-name-that-fills-the-index-faster-3000.md"
    let cases: [(String, [IndexPatchOperation])] = [
      ("an addition that sorts last", [upsert("z.md", 1)]),
      ("an addition that sorts first", [upsert("a.md", 2)]),
      ("an addition in the middle", [upsert("m/7/new.md", 3)]),
      ("two additions", [upsert("a.md", 4), upsert("z.md", 4)]),
      ("a removal", [remove(existing)]),
      // The count comes out otherwise than expected: the states hashed with it must not be used.
      ("an edit", [upsert(existing, 5)]),
      ("an addition and an edit", [upsert("z.md", 6), upsert(existing, 6)]),
      ("a removed folder", [remove("m/9/folder")]),
      ("a removed folder of many entries", [remove("m/3")]),
      ("the removal of a path not in the index", [remove("nothing.md")]),
    ]
    let minimum = IndexFile.speculativeChecksumMinimumSize
    defer { IndexFile.speculativeChecksumMinimumSize = minimum }
    for version in ["2", "4"] {
      try git.run("update-index", "--index-version", version)
      let snapshot = try XCTUnwrap(IndexFile.verify(try indexBytes()))
      XCTAssertGreaterThan(snapshot.bytes.count, 3 * IndexFile.checkpointInterval)
      for (what, operations) in cases {
        IndexFile.speculativeChecksumMinimumSize = 0
        let speculated = try IndexFile.patch(snapshot, operations, racyCutoff: nil)
        IndexFile.speculativeChecksumMinimumSize = .max
        let plain = try IndexFile.patch(snapshot, operations, racyCutoff: nil)
        let context = "version \(version), \(what)"
        // Not XCTAssertEqual: it would print both indexes.
        XCTAssertTrue(speculated.bytes == plain.bytes, context)
        let verified = try XCTUnwrap(IndexFile.verify(speculated.bytes), "\(context): the checksum is wrong")
        XCTAssertEqual(words(speculated.checkpoints), words(verified.checkpoints), context)
        XCTAssertEqual(words(speculated.checkpoints), words(plain.checkpoints), context)
      }
    }
  }

  /// The states the other core reaches are those of the old bytes with the new count, interval by interval, up to
  /// where it was stopped; a file shorter than one interval gives none.
  func testTheStatesAreThoseOfTheBytesWithTheNewCount() throws {
    var rng = SplitMix64(seed: 41)
    let interval = IndexFile.checkpointInterval
    let bytes = (0..<(3 * interval + 1_000)).map { _ in UInt8.random(in: 0...255, using: &rng) }
    let states = SpeculativeChecksum(bytes, entryCount: 0x0102_0304).finish()
    var expected = bytes
    expected.replaceSubrange(8..<12, with: [1, 2, 3, 4])
    let full = IndexFile.checksum(expected, bodyCount: expected.count - 20, resumingFrom: [], unchangedPrefix: 0)
    XCTAssertGreaterThan(states.count, 0)
    XCTAssertLessThanOrEqual(states.count, full.checkpoints.count)
    XCTAssertEqual(words(states), words(Array(full.checkpoints.prefix(states.count))))
    XCTAssertEqual(SpeculativeChecksum(Array(bytes.prefix(interval - 1)), entryCount: 1).finish().count, 0)
  }
}

import XCTest

@testable import InboxKit

/// A seeded synthetic inbox: notebooks with vocabularies of their own, shared noise words, and some items that
/// borrow a word from another notebook (people's notes are not clean).
struct SyntheticCorpus {
  static let notebooks = ["work", "home", "health", "money", "travel"]
  static let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pu"]

  /// `count` pseudo-words unique to `prefix` (letters only: the tokenizer drops digit-only words).
  static func vocabulary(_ prefix: String, count: Int, offset: Int = 0) -> [String] {
    (offset..<(offset + count)).map { index in
      prefix + syllables[index % 10] + syllables[(index / 10) % 10] + syllables[(index / 100) % 10]
    }
  }

  static let noise = vocabulary("qx", count: 60)

  /// One item's text for `notebook`, its topic words drawn from `topic`.
  static func text(topic: [String], others: [[String]], using generator: inout SplitMix64) -> String {
    let length = 6 + Int(generator.next() % 9)
    var words: [String] = []
    for _ in 0..<length {
      let roll = generator.next() % 100
      if roll < 30 {
        words.append(topic[Int(generator.next() % UInt64(topic.count))])
      } else if roll < 38 {
        let other = others[Int(generator.next() % UInt64(others.count))]
        words.append(other[Int(generator.next() % UInt64(other.count))])
      } else {
        words.append(noise[Int(generator.next() % UInt64(noise.count))])
      }
    }
    return words.joined(separator: " ")
  }

  /// `count` items spread over the notebooks, each notebook's topic words its first 40.
  static func make(count: Int, seed: UInt64) -> [(notebook: String, text: String)] {
    var generator = SplitMix64(seed: seed)
    let vocabularies = notebooks.map { vocabulary(String($0.prefix(3)), count: 40) }
    return (0..<count).map { index in
      let which = index % notebooks.count
      let others = vocabularies.enumerated().filter { $0.offset != which }.map(\.element)
      return (notebooks[which], text(topic: vocabularies[which], others: others, using: &generator))
    }
  }
}

final class EvaluationTests: XCTestCase {
  func testSplitMix64MatchesTheReferenceOutputs() {
    // The first outputs for seed 0 of the reference C implementation (computed independently with Python).
    var generator = SplitMix64(seed: 0)
    XCTAssertEqual(
      [generator.next(), generator.next(), generator.next()],
      [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
  }

  func testTopOneWellAboveChance() {
    let result = Evaluation.run(SyntheticCorpus.make(count: 500, seed: 7), seed: 42)
    print("evaluation:", result)
    XCTAssertEqual(result.items, 100)
    // Chance is 0.2 with five notebooks.
    XCTAssertGreaterThan(result.top1, 0.7)
    XCTAssertGreaterThanOrEqual(result.top3, result.top1)
    XCTAssertEqual(Evaluation.run(SyntheticCorpus.make(count: 500, seed: 7), seed: 42), result)
  }

  func testLearnsWordsFirstSeenInTheInbox() {
    // The held-out items (the positions after the shuffle's first 80 %) use topic words training never saw.
    let count = 600
    var order = Array(0..<count)
    var shuffler = SplitMix64(seed: 3)
    Evaluation.shuffle(&order, using: &shuffler)
    let heldOut = Set(order[480...])
    var generator = SplitMix64(seed: 11)
    let notebooks = SyntheticCorpus.notebooks
    let old = notebooks.map { SyntheticCorpus.vocabulary(String($0.prefix(3)), count: 40) }
    let new = notebooks.map { SyntheticCorpus.vocabulary(String($0.prefix(3)), count: 15, offset: 500) }
    let corpus: [(notebook: String, text: String)] = (0..<count).map { index in
      let which = index % notebooks.count
      let vocabularies = heldOut.contains(index) ? new : old
      let others = vocabularies.enumerated().filter { $0.offset != which }.map(\.element)
      return (
        notebooks[which],
        SyntheticCorpus.text(topic: vocabularies[which], others: others, using: &generator)
      )
    }
    let result = Evaluation.run(corpus, seed: 3)
    print("evaluation, new words in the inbox:", result)
    XCTAssertEqual(result.items, 120)
    XCTAssertGreaterThan(result.lastQuarterTop1, result.firstQuarterTop1 + 0.1)
  }

  func testDegenerateCorpora() {
    XCTAssertEqual(
      Evaluation.run([], seed: 1),
      EvaluationResult(items: 0, top1: 0, top3: 0, lastQuarterTop1: 0, firstQuarterTop1: 0))
    let one = [(notebook: "a", text: "")]
    XCTAssertEqual(Evaluation.run(one, seed: 1, trainFraction: .nan).items, 1)
    XCTAssertEqual(Evaluation.run(one, seed: 1, trainFraction: 5).items, 0)
    // Nothing trained: the first suggestion is empty, so the item is a miss; the second one is a hit.
    let two = [(notebook: "a", text: "alpha beta"), (notebook: "a", text: "alpha beta")]
    let result = Evaluation.run(two, seed: 1, trainFraction: -1)
    XCTAssertEqual(result, EvaluationResult(items: 2, top1: 0.5, top3: 0.5, lastQuarterTop1: 1, firstQuarterTop1: 0))
  }
}

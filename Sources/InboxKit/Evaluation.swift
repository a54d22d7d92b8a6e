import Foundation

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator, so that a shuffle, and a benchmark's numbers, are
/// the same on every machine and every run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  /// The generator's state; the next output is a function of it alone.
  public var state: UInt64

  /// A generator starting at `seed`.
  public init(seed: UInt64) {
    state = seed
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

/// How well suggestions did over the held-out items of a corpus.
public struct EvaluationResult: Equatable, Sendable {
  /// How many held-out items were suggested for.
  public var items: Int
  /// The fraction whose true notebook was suggested first (0 when there were no items).
  public var top1: Double
  /// The fraction whose true notebook was among the first three.
  public var top3: Double
  /// `top1` over the last quarter of the held-out items: after the model learnt from the first three quarters.
  public var lastQuarterTop1: Double
  /// `top1` over the first quarter of the held-out items.
  public var firstQuarterTop1: Double

  /// A result as given.
  public init(items: Int, top1: Double, top3: Double, lastQuarterTop1: Double, firstQuarterTop1: Double) {
    self.items = items
    self.top1 = top1
    self.top3 = top3
    self.lastQuarterTop1 = lastQuarterTop1
    self.firstQuarterTop1 = firstQuarterTop1
  }
}

/// The accuracy benchmark: what a user filing their inbox would see.
public enum Evaluation {
  /// Shuffles `corpus` with `SplitMix64(seed:)` (Fisher–Yates), trains `InboxClassifier` on the first
  /// `trainFraction` of it (clamped to [0, 1]; NaN counts as 0.8) with `noteWeight`, then goes through the rest in
  /// order: suggests among every trained notebook, scores top-1 and top-3, and trains the item into its true
  /// notebook with `correctionWeight` when the first suggestion was wrong, else `acceptedWeight`.
  ///
  /// The quarters are `max(1, items / 4)` items long (they overlap when there are fewer than 4 items).
  public static func run(
    _ corpus: [(notebook: String, text: String)], seed: UInt64, trainFraction: Double = 0.8
  ) -> EvaluationResult {
    run(corpus, seed: seed, trainFraction: trainFraction, model: InboxClassifier.self)
  }

  /// `run` with another model (`InboxCentroidClassifier.self`), trained and scored the same way, so two models'
  /// results on one corpus and seed compare item for item.
  public static func run<Model: InboxSuggester>(
    _ corpus: [(notebook: String, text: String)], seed: UInt64, trainFraction: Double = 0.8, model: Model.Type
  ) -> EvaluationResult {
    var items = corpus
    var generator = SplitMix64(seed: seed)
    shuffle(&items, using: &generator)
    let fraction = trainFraction.isNaN ? 0.8 : min(max(trainFraction, 0), 1)
    let trainCount = min(Int((Double(items.count) * fraction).rounded(.down)), items.count)
    var classifier = Model()
    for item in items[..<trainCount] {
      classifier.train(item.text, notebook: item.notebook, weight: InboxClassifier.noteWeight)
    }
    var hits: [(top1: Bool, top3: Bool)] = []
    for item in items[trainCount...] {
      let ranked = classifier.suggest(item.text, among: nil).prefix(3).map(\.notebook)
      let top1 = ranked.first == item.notebook
      hits.append((top1, ranked.contains(item.notebook)))
      // As nb counts a filed item: a note of its notebook, plus its decision on top.
      let weight = InboxClassifier.noteWeight + (top1 ? InboxClassifier.acceptedWeight : InboxClassifier.correctionWeight)
      classifier.train(item.text, notebook: item.notebook, weight: weight)
    }
    let quarter = max(1, hits.count / 4)
    return EvaluationResult(
      items: hits.count,
      top1: rate(hits.map(\.top1)),
      top3: rate(hits.map(\.top3)),
      lastQuarterTop1: rate(hits.suffix(quarter).map(\.top1)),
      firstQuarterTop1: rate(hits.prefix(quarter).map(\.top1)))
  }

  /// Fisher–Yates with the generator's bits taken modulo the range: the bias is below 2⁻⁴⁰ for any real corpus,
  /// and unlike `shuffle(using:)` the order does not depend on the standard library's algorithm.
  public static func shuffle<Element>(_ items: inout [Element], using generator: inout SplitMix64) {
    guard items.count > 1 else { return }
    for index in stride(from: items.count - 1, to: 0, by: -1) {
      let other = Int(generator.next() % UInt64(index + 1))
      items.swapAt(index, other)
    }
  }

  private static func rate(_ hits: [Bool]) -> Double {
    hits.isEmpty ? 0 : Double(hits.filter { $0 }.count) / Double(hits.count)
  }
}

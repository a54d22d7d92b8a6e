import Foundation

/// What one notebook has been trained on: weighted feature counts.
public struct NotebookCounts: Codable, Equatable, Sendable {
  /// Weighted occurrences of each feature; a feature whose count falls to 0 is removed.
  public var terms: [String: Double]
  /// The sum of `terms`' values.
  public var total: Double
  /// The summed weights of the texts trained in (the notebook's prior).
  public var documents: Double

  /// Counts as given; `init()` is an untrained notebook.
  public init(terms: [String: Double] = [:], total: Double = 0, documents: Double = 0) {
    self.terms = terms
    self.total = total
    self.documents = documents
  }
}

/// A multinomial naive Bayes classifier over `InboxText.features`, with Laplace smoothing and weighted training,
/// that suggests which notebook an inbox item belongs in.
///
/// Training is incremental and reversible: every weight is rounded to a multiple of 1/1024 first, so that all sums
/// are exact in `Double` and removing a text (the same weight, negated) gives back bit-for-bit the counts before it
/// was added; a term, and a notebook, whose count reaches 0 is removed so the model never fills with zeros.
///
/// Suggested weights (the caller trains each kind of text with one): every note in a notebook `noteWeight`; an
/// inbox decision on top of its note, `decisionWeight(base: correctionWeight or acceptedWeight, age:)`, so that what
/// the user said recently outweighs what they wrote long ago.
public struct InboxClassifier: Codable, Equatable, Sendable {
  /// Per notebook, what it was trained on.
  public private(set) var notebooks: [String: NotebookCounts]
  /// Per feature, how many notebooks have it: kept by `train`, so that a suggestion need not gather the vocabulary
  /// of every notebook again (at 100 notebooks that was most of its time).
  public private(set) var vocabulary: [String: Int]
  /// Distinct features of the whole model that this one does not hold (a slice, see `init(slice:vocabularySize:)`):
  /// they count in the smoothing's vocabulary size all the same.
  public private(set) var unseenVocabulary: Int = 0

  /// The number of distinct features the model was trained on: the smoothing's vocabulary size.
  public var vocabularySize: Int { vocabulary.count + unseenVocabulary }

  /// The weight of an ordinary note in its notebook.
  public static let noteWeight: Double = 1
  /// The weight of a decision where the user filed an item somewhere other than suggested (or with no
  /// suggestion): a correction says the model was wrong, so it counts three notes' worth.
  public static let correctionWeight: Double = 3
  /// The weight of a decision that accepted the suggestion: confirmed, but the model already knew.
  public static let acceptedWeight: Double = 1.5
  /// After this long a decision counts half as much (180 days): habits drift, notebooks get repurposed.
  public static let decisionHalfLife: TimeInterval = 180 * 86_400

  /// The temperature applied to the per-feature mean log-likelihood before the softmax (see `suggest`), chosen on
  /// the seeded synthetic corpus of the tests (500 items trained, 500 suggested; right/all per top probability):
  /// at 6 every bin was under-confident (0.6–0.8: 93 % right); at 15 the bins were about right (0.2–0.4: 44 %,
  /// 0.4–0.6: 54 %, 0.6–0.8: 63 %, ≥ 0.8: 94 %); at 12, the value kept, 0.2–0.4: 33 %, 0.4–0.6: 58 %,
  /// 0.6–0.8: 72 %, ≥ 0.8: 96 % (339 of 354). It leans to the cautious side because real notes are noisier than
  /// synthetic ones, and a confident wrong suggestion costs the user more than a hesitant right one.
  public static let temperature: Double = 12

  /// An untrained classifier.
  public init() {
    notebooks = [:]
    vocabulary = [:]
  }

  /// A classifier holding these counts (as a cache stored them); the vocabulary is counted from them.
  public init(notebooks: [String: NotebookCounts]) {
    self.notebooks = notebooks
    var vocabulary: [String: Int] = [:]
    for counts in notebooks.values {
      for feature in counts.terms.keys { vocabulary[feature, default: 0] += 1 }
    }
    self.vocabulary = vocabulary
  }

  /// A slice of a larger model, as a store of counts answers it: `notebooks` hold only some features' counts (every
  /// feature a suggestion or an explanation will look at, with every notebook's count of it) but their whole
  /// `total` and `documents`; `vocabularySize` is the whole model's number of distinct features. Suggestions for
  /// texts whose features are all in the slice are exactly those of the whole model.
  public init(slice notebooks: [String: NotebookCounts], vocabularySize: Int) {
    self.init(notebooks: notebooks)
    unseenVocabulary = max(vocabularySize - vocabulary.count, 0)
  }

  /// `base` decayed by age with `decisionHalfLife`: `base × 0.5^(age / halfLife)`. A negative age (another
  /// device's clock ahead) counts as 0, an infinite age as 0 weight, NaN as the base.
  public static func decisionWeight(base: Double, age: TimeInterval) -> Double {
    guard base.isFinite else { return 0 }
    guard !age.isNaN, age > 0 else { return base }
    guard age.isFinite else { return 0 }
    return base * pow(0.5, age / decisionHalfLife)
  }

  /// Adds (weight > 0) or removes (weight < 0, for a note that changed or left) one text's features.
  ///
  /// The weight is rounded to a multiple of 1/1024 and clamped to ±1,000,000; a weight that rounds to 0 changes
  /// nothing. Counts never go below 0: removing more than was added removes the term.
  public mutating func train(_ text: String, notebook: String, weight: Double = 1) {
    guard weight.isFinite else { return }
    let quantized = (min(max(weight, -1_000_000), 1_000_000) * 1024).rounded() / 1024
    guard quantized != 0 else { return }
    var counts = notebooks[notebook] ?? NotebookCounts()
    let tally = Self.tally(InboxText.features(text))
    var added = 0.0
    for (feature, occurrences) in tally {
      let old = counts.terms[feature] ?? 0
      let new = max(old + quantized * occurrences, 0)
      counts.terms[feature] = new > 0 ? new : nil
      added += new - old
      if old == 0 && new > 0 { vocabulary[feature, default: 0] += 1 }
      if old > 0 && new == 0 {
        let left = (vocabulary[feature] ?? 1) - 1
        vocabulary[feature] = left > 0 ? left : nil
      }
    }
    counts.total = max(counts.total + added, 0)
    counts.documents = max(counts.documents + quantized, 0)
    if counts.terms.isEmpty { counts.total = 0 }
    notebooks[notebook] = counts.documents == 0 && counts.terms.isEmpty ? nil : counts
  }

  /// A suggested notebook and how likely it is.
  public struct Candidate: Equatable, Sendable {
    /// The notebook's name.
    public var notebook: String
    /// Its probability among the candidates, in [0, 1].
    public var probability: Double

    /// A candidate as given.
    public init(notebook: String, probability: Double) {
      self.notebook = notebook
      self.probability = probability
    }
  }

  /// Candidates among `allowed` (nil: every notebook with counts), most probable first (ties by name); the
  /// probabilities are in [0, 1] and sum to 1. An allowed notebook with no counts is a candidate too, known only
  /// through smoothing.
  ///
  /// Calibration: naive Bayes sums one log-likelihood per feature as if they were independent, so a long note gets
  /// near-certain probabilities whether or not it is right. The score of a notebook is therefore its log prior plus
  /// `temperature` × the *mean* per-feature log-likelihood (the sum divided by the number of known features), and
  /// the probabilities are the softmax of those scores. Features no candidate has seen are ignored; a text without
  /// any known feature gets the priors (Laplace-smoothed document weights).
  public func suggest(_ text: String, among allowed: Set<String>? = nil) -> [Candidate] {
    let features = InboxText.features(text)
    return ranking(among: allowed, features: Set(features)).rank(features).candidates
  }

  /// What ranks many texts against this model at once: the candidates' names, priors and denominators worked out
  /// once, and for each of `features` the candidates that have it. Texts made of other features are ranked as if
  /// those were unknown.
  public func ranking(among allowed: Set<String>? = nil, features: Set<String>) -> Ranking {
    let names = Self.sorted(allowed.map(Array.init) ?? Array(notebooks.keys))
    let counts = names.map { notebooks[$0] ?? NotebookCounts() }
    let documentSum = counts.reduce(0) { $0 + $1.documents }
    let vocabularySize = Double(self.vocabularySize)
    // A feature only left-out notebooks have is no evidence for any candidate: it gets no posting. Built from
    // whichever side is smaller: the features × candidates lookups, or the candidates' terms (a slice holds few).
    var postings: [String: [(notebook: Int, count: Double)]] = [:]
    let terms = counts.reduce(0) { $0 + $1.terms.count }
    if terms <= features.count * counts.count {
      for (index, notebook) in counts.enumerated() {
        for (feature, count) in notebook.terms where features.contains(feature) {
          postings[feature, default: []].append((index, count))
        }
      }
    } else {
      for feature in features where vocabulary[feature] != nil {
        var having: [(notebook: Int, count: Double)] = []
        for (index, notebook) in counts.enumerated() {
          if let count = notebook.terms[feature] { having.append((index, count)) }
        }
        if !having.isEmpty { postings[feature] = having }
      }
    }
    return Ranking(
      names: names,
      priors: counts.map { log(($0.documents + 1) / (documentSum + Double(counts.count))) },
      logDenominators: counts.map { log($0.total + vocabularySize) },
      postings: postings)
  }

  /// Ranks texts against one model (see ``InboxClassifier/ranking(among:features:)``).
  ///
  /// A notebook's score is its log prior + `temperature` × the mean over the text's known features of
  /// log((count + 1) / (total + vocabulary)); a feature the notebook lacks adds log(1) = 0 to the sum of
  /// log(count + 1), so only the (feature, notebook) pairs with a count are visited.
  public struct Ranking: Sendable {
    let names: [String]
    let priors: [Double]
    let logDenominators: [Double]
    let postings: [String: [(notebook: Int, count: Double)]]

    /// The candidates for a text's features (as `InboxText.features` gives them), most probable first (ties by
    /// name), and how many of its feature occurrences some candidate has seen (0: the ranking is the priors).
    public func rank(_ features: [String]) -> (candidates: [Candidate], knownFeatures: Double) {
      guard !names.isEmpty else { return ([], 0) }
      var known = 0.0
      var logCounts = Array(repeating: 0.0, count: names.count)
      for (feature, occurrences) in InboxClassifier.tally(features) {
        guard let having = postings[feature] else { continue }
        known += occurrences
        for (notebook, count) in having { logCounts[notebook] += occurrences * log(count + 1) }
      }
      let scores = names.indices.map { index -> Double in
        guard known > 0 else { return priors[index] }
        let likelihood = logCounts[index] - known * logDenominators[index]
        return priors[index] + InboxClassifier.temperature * likelihood / known
      }
      let top = scores.max() ?? 0
      let exponentials = scores.map { exp($0 - top) }
      let sum = exponentials.reduce(0, +)
      let candidates = zip(names, exponentials).map { Candidate(notebook: $0, probability: $1 / sum) }
      let ranked = candidates.enumerated().sorted { left, right in
        left.element.probability != right.element.probability
          ? left.element.probability > right.element.probability : left.offset < right.offset
      }.map(\.element)
      return (ranked, known)
    }
  }

  /// The features that pushed `notebook` up most against the others: (feature, contribution in log-odds),
  /// strongest first, only those that pushed it up.
  ///
  /// A feature's contribution is its occurrences in the text × (log P(feature | notebook) − log P(feature | every
  /// other notebook's counts pooled)), both Laplace-smoothed over the whole vocabulary: the raw naive Bayes
  /// evidence, before `suggest`'s length normalisation and temperature. Ties are broken by feature.
  public func explain(_ text: String, notebook: String, top: Int = 8) -> [(feature: String, weight: Double)] {
    guard top > 0 else { return [] }
    let mine = notebooks[notebook] ?? NotebookCounts()
    // Only the text's features are pooled over the other notebooks (not every term they have): the vocabulary is
    // kept by `train`, so its size needs no pass over the notebooks either.
    let tally = Self.tally(InboxText.features(text)).filter { vocabulary[$0.key] != nil }
    var othersTotal = 0.0
    var othersTerms: [String: Double] = [:]
    for (name, counts) in notebooks where name != notebook {
      othersTotal += counts.total
      for feature in tally.keys {
        if let count = counts.terms[feature] { othersTerms[feature, default: 0] += count }
      }
    }
    let vocabularySize = Double(self.vocabularySize)
    var contributions: [(feature: String, weight: Double)] = []
    for (feature, occurrences) in tally {
      let inMine = log(((mine.terms[feature] ?? 0) + 1) / (mine.total + vocabularySize))
      let inOthers = log(((othersTerms[feature] ?? 0) + 1) / (othersTotal + vocabularySize))
      let weight = occurrences * (inMine - inOthers)
      if weight > 0 { contributions.append((feature, weight)) }
    }
    contributions.sort { $0.weight != $1.weight ? $0.weight > $1.weight : Self.precedes($0.feature, $1.feature) }
    return Array(contributions.prefix(top))
  }


  static func tally(_ features: [String]) -> [String: Double] {
    var tally: [String: Double] = [:]
    for feature in features { tally[feature, default: 0] += 1 }
    return tally
  }

  /// Byte order: the same on every device, unlike locale-aware comparison.
  static func precedes(_ left: String, _ right: String) -> Bool {
    left.utf8.lexicographicallyPrecedes(right.utf8)
  }

  static func sorted(_ names: [String]) -> [String] {
    names.sorted(by: precedes)
  }
}

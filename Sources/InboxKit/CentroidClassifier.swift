import Foundation

/// What `Evaluation` needs of a model: an untrained one, weighted training, ranked suggestions.
public protocol InboxSuggester {
  /// An untrained model.
  init()
  /// Adds (weight > 0) or removes (weight < 0) one text in `notebook`.
  mutating func train(_ text: String, notebook: String, weight: Double)
  /// Candidates among `allowed` (nil: every trained notebook), most probable first, probabilities summing to 1.
  func suggest(_ text: String, among allowed: Set<String>?) -> [InboxClassifier.Candidate]
}

extension InboxClassifier: InboxSuggester {}

/// The alternative model the benchmark compares `InboxClassifier` with: TF-IDF nearest centroid over words and
/// character 3- and 4-grams of each word (`#<de`, `#den`, … `#st>`: the `#` keeps them apart from words), which
/// can match word forms naive Bayes sees as unrelated (`invoice`/`invoices`, typos).
///
/// A notebook's centroid is the weighted sum of its texts' term counts; a text's similarity to a notebook is the
/// cosine between the text's and the centroid's TF-IDF vectors (IDF = ln((N + 1) / (df + 1)) + 1 over the weighted
/// document count N), and the probabilities are the softmax of `temperature` × similarity. Weights are rounded to
/// multiples of 1/1024 as in `InboxClassifier`, so removing a text gives back exactly the counts before it.
public struct InboxCentroidClassifier: Codable, Equatable, Sendable, InboxSuggester {
  /// Per notebook, the weighted term counts of its texts (`documents`: their summed weights).
  public var notebooks: [String: NotebookCounts]
  /// Per term, the summed weights of the texts that contain it.
  public var documentFrequency: [String: Double]
  /// The summed weights of every text trained in.
  public var documents: Double

  /// The softmax temperature on cosine similarities (in [0, 1]), set on the tests' seeded synthetic corpus (500
  /// items trained, 500 suggested; right/all per top probability): at 20 every bin was under-confident (0.6–0.8:
  /// 95 % right); at 35, the value kept, 0.2–0.4: 30 %, 0.4–0.6: 61 %, 0.6–0.8: 78 %, ≥ 0.8: 98 % (387 of 394);
  /// 50 was no better calibrated.
  public static let temperature: Double = 35

  /// An untrained classifier.
  public init() {
    notebooks = [:]
    documentFrequency = [:]
    documents = 0
  }

  /// The terms of `text`: `InboxText.words`, then each word's character 3- and 4-grams with `<` and `>` at its ends.
  public static func terms(_ text: String) -> [String] {
    let words = InboxText.words(text)
    var terms = words
    for word in words {
      let scalars = Array(("<" + word + ">").unicodeScalars)
      for size in 3...4 where scalars.count >= size {
        for start in 0...(scalars.count - size) {
          terms.append("#" + String(String.UnicodeScalarView(scalars[start..<(start + size)])))
        }
      }
    }
    return terms
  }

  /// Adds (weight > 0) or removes (weight < 0) one text's terms; as `InboxClassifier.train`.
  public mutating func train(_ text: String, notebook: String, weight: Double = 1) {
    guard weight.isFinite else { return }
    let quantized = (min(max(weight, -1_000_000), 1_000_000) * 1024).rounded() / 1024
    guard quantized != 0 else { return }
    var counts = notebooks[notebook] ?? NotebookCounts()
    let tally = InboxClassifier.tally(Self.terms(text))
    var added = 0.0
    for (term, occurrences) in tally {
      let old = counts.terms[term] ?? 0
      let new = max(old + quantized * occurrences, 0)
      counts.terms[term] = new > 0 ? new : nil
      added += new - old
      let frequency = max((documentFrequency[term] ?? 0) + quantized, 0)
      documentFrequency[term] = frequency > 0 ? frequency : nil
    }
    counts.total = counts.terms.isEmpty ? 0 : max(counts.total + added, 0)
    counts.documents = max(counts.documents + quantized, 0)
    notebooks[notebook] = counts.documents == 0 && counts.terms.isEmpty ? nil : counts
    documents = max(documents + quantized, 0)
  }

  /// Candidates among `allowed` (nil: every notebook with counts), most probable first (ties by name); an allowed
  /// notebook without counts has similarity 0.
  public func suggest(_ text: String, among allowed: Set<String>? = nil) -> [InboxClassifier.Candidate] {
    let names = InboxClassifier.sorted(allowed.map(Array.init) ?? Array(notebooks.keys))
    guard !names.isEmpty else { return [] }
    func idf(_ term: String) -> Double {
      log((documents + 1) / ((documentFrequency[term] ?? 0) + 1)) + 1
    }
    var queryWeights: [String: Double] = [:]
    for (term, count) in InboxClassifier.tally(Self.terms(text)) { queryWeights[term] = count * idf(term) }
    let queryNorm = queryWeights.values.reduce(0) { $0 + $1 * $1 }.squareRoot()
    let similarities = names.map { name -> Double in
      guard queryNorm > 0, let counts = notebooks[name] else { return 0 }
      var dot = 0.0
      var norm = 0.0
      for (term, count) in counts.terms {
        let weight = count * idf(term)
        norm += weight * weight
        if let queryWeight = queryWeights[term] { dot += weight * queryWeight }
      }
      return norm > 0 ? dot / (norm.squareRoot() * queryNorm) : 0
    }
    let best = similarities.max() ?? 0
    let exponentials = similarities.map { exp(Self.temperature * ($0 - best)) }
    let sum = exponentials.reduce(0, +)
    let candidates = zip(names, exponentials).map { InboxClassifier.Candidate(notebook: $0, probability: $1 / sum) }
    return candidates.enumerated().sorted { left, right in
      left.element.probability != right.element.probability
        ? left.element.probability > right.element.probability : left.offset < right.offset
    }.map(\.element)
  }
}

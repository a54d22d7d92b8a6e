import Foundation
import GRDB
import InboxKit

/// A suggested notebook for an inbox item and how sure the classifier is.
public struct InboxSuggestion: Equatable, Sendable {
  public var notebook: String
  /// A calibrated probability in [0, 1].
  public var confidence: Double

  public init(notebook: String, confidence: Double) {
    self.notebook = notebook
    self.confidence = confidence
  }
}

/// What the classifier says about one item: its suggestion (nil below the threshold) and the top candidates.
public struct InboxAdvice: Equatable, Sendable {
  public var suggestion: InboxSuggestion?
  /// The three most likely notebooks, even below the threshold.
  public var candidates: [InboxSuggestion]
  /// Who made the suggestion: the classifier, or the device's inbox command (see `InboxCommand.swift`).
  public var source: InboxSuggestionSource = .classifier
}

extension NoteRepository {
  /// Below this confidence an item shows no suggestion (`inbox: {threshold: 0.6}` in `.nb/config.yaml`).
  public var inboxThreshold: Double {
    Double(config.inboxSettings["threshold"] ?? "").flatMap { (0...1).contains($0) ? $0 : nil } ?? 0.5
  }

  /// The notebooks an item may be filed into: every notebook but the inbox itself and those whose
  /// `.notebook.yaml` says `inbox: false`.
  func inboxBins() throws -> Set<String> {
    var bins = Set<String>()
    for notebook in try notebooks() where notebook.path != config.defaultNotebook {
      let settings = NotebookSettings.read(at: absolute(notebook.path + "/" + Self.notebookSettingsFile))
      if settings?.inboxAllowed == false { continue }
      bins.insert(notebook.path)
    }
    return bins
  }

  /// The classifier trained on every note outside the inbox (title, tags and body, from the index: no note file is
  /// read), the notebooks' descriptions, and the filing decisions (corrections weigh more, recent ones more than
  /// old). Kept under `.git/nb/inbox/` and rebuilt only when the notes or the decisions changed.
  func inboxClassifier() throws -> InboxClassifier {
    let decisionsPath = absolute(Self.inboxDecisionsFile)
    let decisionsStamp = FileSystem.lstatInfo(decisionsPath).map { "\($0.size)-\($0.modifiedNanoseconds)" } ?? "-"
    let signature = try index.read { db -> String in
      let row = try Row.fetchOne(db, sql: "SELECT count(*), total(size), total(mtime), max(mtime) FROM note")
      let parts: [String] = (0..<4).map { index in (row?[index] as DatabaseValue?).map { "\($0)" } ?? "" }
      return parts.joined(separator: "|") + "|" + decisionsStamp + "|" + config.defaultNotebook
    }
    if let inboxModel, inboxModel.signature == signature { return inboxModel.classifier }
    let directory = gitDirectory.appendingPathComponent("nb/inbox")
    let cache = directory.appendingPathComponent("model.txt")
    if let data = try? FileSystem.read(cache.path), let cached = InboxModelFile.decode(data, signature: signature) {
      inboxModel = (signature, cached)
      return cached
    }
    var classifier = InboxClassifier()
    let inbox = config.defaultNotebook
    try index.read { db in
      let rows = try Row.fetchCursor(
        db, sql: "SELECT n.dir, n.title, n.tags, f.body FROM note n JOIN fts f ON f.rowid = n.rowid")
      while let row = try rows.next() {
        let dir: String = row[0]
        guard !dir.isEmpty, dir != inbox else { continue }
        let tags = NoteIndex.split(row[2]).joined(separator: " ")
        classifier.train("\(row[1] as String) \(tags) \(row[3] as String? ?? "")", notebook: dir)
      }
    }
    for notebook in try notebooks() {
      let settings = NotebookSettings.read(at: absolute(notebook.path + "/" + Self.notebookSettingsFile))
      if let description = settings?.description, !description.isEmpty {
        classifier.train(description, notebook: notebook.path, weight: InboxClassifier.correctionWeight)
      }
    }
    let now = clock()
    let (decisions, _) = try inboxDecisions()
    // One query for every note with an id: where each decided item is now, and the note itself to train on.
    var byID: [String: Note] = [:]
    for note in try index.notes(where: "n.note_id IS NOT NULL") { if let id = note.id { byID[id] = note } }
    for decision in DecisionLog.effective(decisions, currentNotebook: { byID[$0]?.notebook }) {
      guard let note = byID[decision.item] else { continue }
      let text = "\(note.title) \(note.tags.joined(separator: " ")) \((try? body(of: note)) ?? "")"
      let base = decision.accepted ? InboxClassifier.acceptedWeight : InboxClassifier.correctionWeight
      // The note already counts once as an ordinary note of its notebook; a decision adds what it says more.
      let weight = InboxClassifier.decisionWeight(base: base, age: now.timeIntervalSince(decision.time)) - 1
      if weight > 0 { classifier.train(text, notebook: decision.chosen, weight: weight) }
    }
    inboxModel = (signature, classifier)
    // Derived data: a cache that cannot be written is rebuilt next time, never an error.
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try? AtomicFile.write(InboxModelFile.encode(signature: signature, classifier), to: cache, durable: false)
    return classifier
  }

  /// The classifier's advice for one item, among the notebooks items may go to.
  public func advice(for item: Note) throws -> InboxAdvice {
    try advice(for: [item])[0]
  }

  /// Advice for several items with one classifier.
  public func advice(for items: [Note]) throws -> [InboxAdvice] {
    guard !items.isEmpty else { return [] }
    let classifier = try inboxClassifier()
    let bins = try inboxBins()
    let threshold = inboxThreshold
    let advice = try items.map { item in
      let text = "\(item.title) \(item.tags.joined(separator: " ")) \(try body(of: item))"
      let candidates = classifier.suggest(text, among: bins).prefix(3).map {
        InboxSuggestion(notebook: $0.notebook, confidence: $0.probability)
      }
      // Without one word any notebook has seen, a probability is only the priors (1 when there is one notebook):
      // no evidence, no suggestion.
      let known = InboxText.features(text).contains { feature in
        bins.contains { classifier.notebooks[$0]?.terms[feature] != nil }
      }
      let top = candidates.first.flatMap { known && $0.confidence >= threshold ? $0 : nil }
      return InboxAdvice(suggestion: top, candidates: Array(candidates))
    }
    return try consultLocalCommand(items, advice)
  }

  /// The words that pushed each candidate notebook, strongest first.
  public func explain(_ item: Note) throws -> [(notebook: String, confidence: Double, words: [(String, Double)])] {
    let classifier = try inboxClassifier()
    let text = "\(item.title) \(item.tags.joined(separator: " ")) \(try body(of: item))"
    return classifier.suggest(text, among: try inboxBins()).prefix(3).map { candidate in
      (
        candidate.notebook, candidate.probability,
        classifier.explain(text, notebook: candidate.notebook).map { ($0.feature, $0.weight) }
      )
    }
  }
}

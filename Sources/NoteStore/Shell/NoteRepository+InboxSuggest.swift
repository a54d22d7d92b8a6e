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
  func inboxBins() throws -> Set<String> { try inboxBinsAndDescriptions().bins }

  /// A classifier that answers for texts made of `features` exactly as one trained on every note outside the inbox
  /// (title, tags and body), the notebooks' descriptions, and the filing decisions that won (corrections weigh
  /// more, recent ones more than old) would: a slice of the counts the index keeps (`NoteIndex+Inbox.swift`),
  /// built the first time and then kept up to date note by note. No note file is read. Commits made by any tool are
  /// always counted; uncommitted edits only in the inbox (as ``inboxItems()`` reads it) and wherever another
  /// command has read them: an edit in progress elsewhere counts once it is saved with nb, committed, or seen.
  func inboxClassifier(for features: Set<String>, descriptions: [String: String]) throws -> InboxClassifier {
    let inbox = config.defaultNotebook
    var features = features
    for description in descriptions.values { features.formUnion(InboxText.features(description)) }
    let decisionsPath = absolute(Self.inboxDecisionsFile)
    let stamp = FileSystem.lstatInfo(decisionsPath).map { "\($0.size)-\($0.modifiedNanoseconds)" } ?? "-"
    let now = clock()
    func slice(_ db: Database) throws -> InboxClassifier {
      let (notebooks, vocabulary) = try NoteIndex.inboxSlice(db, features: features, now: now)
      return InboxClassifier(slice: notebooks, vocabularySize: vocabulary)
    }
    var classifier: InboxClassifier
    if let current = try index.read(scope: inbox, { db -> InboxClassifier? in
      guard try NoteIndex.inboxCountsExclusion(db) == inbox, try NoteIndex.decidedCountsAreCurrent(db, stamp: stamp)
      else { return nil }
      return try slice(db)
    }) {
      classifier = current
    } else {
      do {
        classifier = try index.write(scope: inbox) { db in
          if try NoteIndex.inboxCountsExclusion(db) != inbox {
            try NoteIndex.buildInboxCounts(db, excluding: inbox) { done, total in
              self.progress?("Training the inbox model", done, total)
            }
          }
          if try !NoteIndex.decidedCountsAreCurrent(db, stamp: stamp) {
            let (decisions, consulted) = try countedDecisions(db, now: now)
            try NoteIndex.storeDecidedCounts(db, decisions, consulted: consulted, stamp: stamp, epoch: now)
          }
          return try slice(db)
        }
      } catch let error as DatabaseError {
        // An index that cannot be written (a read-only repository) still answers: every count made in memory.
        notice?("the inbox model cannot be kept in the index (\(NoteIndex.describe(error))); counting every note")
        classifier = try index.read { db in try inMemoryInboxClassifier(db, now: now) }
      }
    }
    for (notebook, description) in descriptions.sorted(by: { $0.key < $1.key }) {
      classifier.train(description, notebook: notebook, weight: InboxClassifier.correctionWeight)
    }
    return classifier
  }

  /// The filing decisions that count, each with its decided note's text and its weight at `now`; and every decided
  /// item looked up (with its folder and mtime, nil when no note has its id), to tell later when they changed.
  private func countedDecisions(_ db: Database, now: Date) throws -> (
    [NoteIndex.CountedDecision], [String: (dir: String?, mtime: Int64?)]
  ) {
    let (decisions, _) = try inboxDecisions()
    let ids = Set(decisions.map { $0.item.lowercased() })
    let found = try NoteIndex.decidedNotes(db, foldedIDs: ids.sorted())
    var consulted: [String: (dir: String?, mtime: Int64?)] = [:]
    for id in ids { consulted[id] = (found[id]?.dir, found[id]?.mtime) }
    let counted = DecisionLog.effective(decisions, currentNotebook: { found[$0.lowercased()]?.dir }).compactMap {
      decision -> NoteIndex.CountedDecision? in
      let id = decision.item.lowercased()
      guard let note = found[id] else { return nil }
      let base = decision.accepted ? InboxClassifier.acceptedWeight : InboxClassifier.correctionWeight
      return NoteIndex.CountedDecision(
        foldedID: id, dir: note.dir, mtime: note.mtime, notebook: decision.chosen, text: note.text,
        weight: InboxClassifier.decisionWeight(base: base, age: now.timeIntervalSince(decision.time)))
    }
    return (counted, consulted)
  }

  /// The whole model, counted in memory from the index's text (when the counts cannot be stored).
  private func inMemoryInboxClassifier(_ db: Database, now: Date) throws -> InboxClassifier {
    var notebooks: [String: NotebookCounts] = [:]
    try NoteIndex.countNotebooks(db, excluding: config.defaultNotebook, progress: nil) { notebooks[$0] = $1 }
    var classifier = InboxClassifier(notebooks: notebooks)
    for decision in try countedDecisions(db, now: now).0 {
      classifier.train(decision.text, notebook: decision.notebook, weight: decision.weight)
    }
    return classifier
  }

  /// The descriptions of the notebooks items may go to (`description:` in `.notebook.yaml`), and those notebooks.
  func inboxBinsAndDescriptions() throws -> (bins: Set<String>, descriptions: [String: String]) {
    var bins = Set<String>()
    var descriptions: [String: String] = [:]
    for notebook in try notebooks() {
      let settings = NotebookSettings.read(at: absolute(notebook.path + "/" + Self.notebookSettingsFile))
      if let description = settings?.description, !description.isEmpty { descriptions[notebook.path] = description }
      if notebook.path != config.defaultNotebook, settings?.inboxAllowed != false { bins.insert(notebook.path) }
    }
    return (bins, descriptions)
  }

  /// The classifier's advice for one item, among the notebooks items may go to.
  public func advice(for item: Note) throws -> InboxAdvice {
    try advice(for: [item])[0]
  }

  /// Advice for several items with one classifier.
  public func advice(for items: [Note]) throws -> [InboxAdvice] {
    guard !items.isEmpty else { return [] }
    let texts = try items.map { "\($0.title) \($0.tags.joined(separator: " ")) \(try body(of: $0))" }
    let features = texts.map(InboxText.features)
    let (bins, descriptions) = try inboxBinsAndDescriptions()
    let wanted = Set(features.joined())
    let ranking = try inboxClassifier(for: wanted, descriptions: descriptions).ranking(among: bins, features: wanted)
    let threshold = inboxThreshold
    let ranked = features.map { ranking.rank($0) }
    let rankings = ranked.map(\.candidates)
    let advice = ranked.map { ranked in
      let candidates = ranked.candidates.prefix(3).map {
        InboxSuggestion(notebook: $0.notebook, confidence: $0.probability)
      }
      // Without one word any notebook has seen, a probability is only the priors (1 when there is one notebook):
      // no evidence, no suggestion.
      let top = candidates.first.flatMap { ranked.knownFeatures > 0 && $0.confidence >= threshold ? $0 : nil }
      return InboxAdvice(suggestion: top, candidates: Array(candidates))
    }
    return try consultLocalCommand(
      items, advice, rankings: rankings, bins: bins, descriptions: descriptions)
  }

  /// The words that pushed each candidate notebook, strongest first.
  public func explain(_ item: Note) throws -> [(notebook: String, confidence: Double, words: [(String, Double)])] {
    let text = "\(item.title) \(item.tags.joined(separator: " ")) \(try body(of: item))"
    let (bins, descriptions) = try inboxBinsAndDescriptions()
    let classifier = try inboxClassifier(for: Set(InboxText.features(text)), descriptions: descriptions)
    return classifier.suggest(text, among: bins).prefix(3).map { candidate in
      (
        candidate.notebook, candidate.probability,
        classifier.explain(text, notebook: candidate.notebook).map { ($0.feature, $0.weight) }
      )
    }
  }
}

import Foundation

/// How the suggestions did for one notebook.
public struct NotebookStats: Equatable, Sendable {
  /// The notebook items were filed into.
  public var notebook: String
  /// Items filed where nb suggested.
  public var accepted: Int
  /// Items filed somewhere other than nb suggested.
  public var corrected: Int
  /// Items filed with no suggestion.
  public var noSuggestion: Int

  /// Stats as given.
  public init(notebook: String, accepted: Int, corrected: Int, noSuggestion: Int) {
    self.notebook = notebook
    self.accepted = accepted
    self.corrected = corrected
    self.noSuggestion = noSuggestion
  }
}

/// `nb inbox stats`: per notebook, how often the suggestion was taken.
public enum InboxStats {
  /// Per chosen notebook, the decisions within the last `days` (time ≥ now − days × 86,400 s), sorted by notebook
  /// name (bytewise). Decisions after `now` count: another device's clock may run ahead, and they are recent.
  /// `days` ≤ 0 counts only decisions at or after `now`.
  public static func compute(_ decisions: [InboxDecision], now: Date, days: Int) -> [NotebookStats] {
    let cutoff = now.timeIntervalSince1970 - Double(max(days, 0)) * 86_400
    var stats: [String: NotebookStats] = [:]
    for decision in decisions where decision.time.timeIntervalSince1970 >= cutoff {
      var entry =
        stats[decision.chosen] ?? NotebookStats(notebook: decision.chosen, accepted: 0, corrected: 0, noSuggestion: 0)
      if decision.suggested == nil {
        entry.noSuggestion += 1
      } else if decision.accepted {
        entry.accepted += 1
      } else {
        entry.corrected += 1
      }
      stats[decision.chosen] = entry
    }
    return stats.values.sorted { $0.notebook.utf8.lexicographicallyPrecedes($1.notebook.utf8) }
  }
}

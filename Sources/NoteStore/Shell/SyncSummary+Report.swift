import TextFormat

/// What a sync did, in the words `nb sync` prints and `nb serve`'s Sync button shows: one wording for both.
extension SyncSummary {
  /// One thing a sync did beyond its outcome, for a person: a kind, shown as a label, and the text after it.
  public struct ReportLine: Equatable, Sendable {
    /// What the line is about.
    public enum Kind: String, Sendable {
      /// Notes edited outside nb, committed before the exchange (the text lists them).
      case saved
      /// The remote moved between the fetch and the push: the sync started over.
      case retried
      /// A note merged line by line.
      case merged
      /// A note deleted on one side and edited on the other, kept.
      case kept
      /// A conflict: which version kept the path, where the other is.
      case conflict
      /// A link the merge rewrote to follow a note renamed on the other side.
      case relinked
      /// Anything else worth reading.
      case warning
    }
    /// What the line is about.
    public var kind: Kind
    /// The words after the label.
    public var text: String

    /// The label a person reads before the text: `merged`, `saved first:`, `warning:`; empty for ``Kind/retried``.
    public var label: String {
      switch kind {
      case .saved: "saved first:"
      case .retried: ""
      case .warning: "warning:"
      default: kind.rawValue
      }
    }
  }

  /// The outcome in a few words, after "Synced with origin/main: ": `received 2 commits, sent 1 commit, merged`.
  public var outcomeText: String {
    switch outcome {
    case .upToDate: return "already up to date"
    case .published: return "published \(counted(sent, "commit")) (a new branch on the remote)"
    case .pushed: return "sent \(counted(sent, "commit"))"
    case .fastForwarded: return "received \(counted(received, "commit"))"
    case .merged where dryRun: return "fetch the remote's new commits and merge them with this device's"
    case .merged: return "received \(counted(received, "commit")), sent \(counted(sent, "commit")), merged"
    }
  }

  /// Everything else the sync did, one line each, in the order `nb sync` prints them: saved first, a retry, the
  /// notes merged, kept and in conflict, the links rewritten, then warnings.
  public var reportLines: [ReportLine] {
    var lines: [ReportLine] = []
    if !saved.isEmpty { lines.append(ReportLine(kind: .saved, text: saved.joined(separator: ", "))) }
    if attempts > 1 {
      lines.append(
        ReportLine(
          kind: .retried,
          text: "the remote moved before the push landed; started over from the fetch (\(counted(attempts, "attempt")))"
        ))
    }
    lines += merged.map { ReportLine(kind: .merged, text: $0) }
    lines += resurrected.map { ReportLine(kind: .kept, text: "\($0) (edited here, deleted there, or the other way)") }
    lines += conflicts.map {
      ReportLine(
        kind: .conflict,
        text: "\($0.path): the \($0.winner == .ours ? "local" : "remote") version kept the path; the other is in "
          + $0.loserPath)
    }
    // A link the other device wrote to a note this sync renamed: where it was rewritten, so nothing changes in a
    // note unannounced.
    lines += followedLinks.map {
      ReportLine(kind: .relinked, text: "\($0.path):\($0.line): \($0.old) -> \($0.new) (its note was renamed or moved)")
    }
    lines += warnings.map { ReportLine(kind: .warning, text: $0) }
    return lines
  }
}

import Foundation
import TextFormat

/// Resolves what a person typed as a NOTE argument to one note, by the documented precedence:
/// a repository path (with or without `.md`), then an id or an id prefix of at least 4 characters,
/// then a title or file stem (case-insensitive). Each level either decides or passes to the next;
/// several matches on one level are an ambiguity, never a guess.
enum NoteSelector {
  /// The outcome of resolving a selector.
  enum Resolution: Equatable, Sendable {
    /// Exactly one note matched.
    case found(Note)
    /// Nothing matched.
    case none
    /// Several notes matched on the deciding level.
    case ambiguous([Note])
  }

  /// The shortest id prefix accepted, so that a short word is not mistaken for an id.
  static let minimumIDPrefix = 4

  /// Resolves `selector` among `notes`.
  static func resolve(_ selector: String, in notes: [Note]) -> Resolution {
    let trimmed = selector.trimmingWhitespaces()
    guard !trimmed.isEmpty else { return .none }

    var pathForm = trimmed
    while pathForm.hasPrefix("./") { pathForm.removeFirst(2) }
    let withExtension = pathForm.hasSuffix(".md") ? pathForm : pathForm + ".md"
    if let byPath = notes.first(where: { $0.path == withExtension }) { return .found(byPath) }

    let lowered = trimmed.lowercased()
    if let exact = notes.filter({ $0.id?.lowercased() == lowered }).single { return .found(exact) }
    if lowered.count >= minimumIDPrefix, lowered.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
      let prefixed = notes.filter { $0.id?.lowercased().hasPrefix(lowered) ?? false }
      if prefixed.count == 1 { return .found(prefixed[0]) }
      if prefixed.count > 1 { return .ambiguous(prefixed.sorted { $0.path < $1.path }) }
    }

    let byName = notes.filter {
      $0.title.lowercased() == lowered || $0.stem.lowercased() == lowered
        || $0.aliases.contains { $0.lowercased() == lowered }
    }
    if byName.count == 1 { return .found(byName[0]) }
    if byName.count > 1 { return .ambiguous(byName.sorted { $0.path < $1.path }) }
    return .none
  }
}

extension Array {
  fileprivate var single: Element? { count == 1 ? self[0] : nil }
}

import Foundation

/// Reads the query language into a ``QueryExpression``.
///
/// STUB (to be replaced by the full parser): words separated by spaces, all required.
enum QueryParser {
  /// Parses `text`; relative dates (`today`, `-7d`) count from `now` in `timeZone`.
  static func parse(_ text: String, now: Date, timeZone: TimeZone) throws -> QueryExpression {
    let words = text.split(whereSeparator: { $0.isWhitespace }).map {
      QueryExpression.text(TextMatch(kind: .word, text: String($0)))
    }
    switch words.count {
    case 0: return .all
    case 1: return words[0]
    default: return .and(words)
    }
  }
}

import TextFormat

/// Turns a word or a `key:value` token into its ``QueryExpression``.
enum QueryTerms {
  private static func error(column: Int, length: Int, _ message: String) -> QueryError {
    QueryError(query: "", column: column, length: length, message: message)
  }

  private static let starMessage = "a * must end a word, as in plan*"

  /// A bare word: `plan`, `plan*` (a prefix) or `#work` (the tag filter).
  static func word(_ text: String, token: QueryToken) throws(QueryError) -> QueryExpression {
    if text.hasPrefix("#") {
      let tag = String(text.dropFirst())
      guard !tag.isEmpty else {
        throw error(column: token.column, length: token.length, "a # needs a tag name right after it, as in #work")
      }
      return .filter(.tag(tag))
    }
    return .text(try match(text, quoted: false, field: .any, column: token.column))
  }

  /// A word, a prefix (`plan*`) or, when it was quoted, a phrase; `column` is where `text` starts.
  private static func match(_ text: String, quoted: Bool, field: TextMatch.Field, column: Int) throws(QueryError)
    -> TextMatch
  {
    if quoted { return TextMatch(kind: .phrase, text: text, field: field) }
    guard text.hasSuffix("*") else { return TextMatch(kind: .word, text: text, field: field) }
    let stem = text.dropLast()
    // `**` and `*` have nothing to complete; the index could only answer them by matching everything.
    guard !stem.isEmpty, !stem.hasSuffix("*") else {
      throw error(column: column, length: text.count, starMessage)
    }
    return TextMatch(kind: .prefix, text: String(stem), field: field)
  }

  /// `key:value`; `valueColumn` is where the value (inside any quotes) starts.
  static func filter(
    key: String, value: String, quoted: Bool, token: QueryToken, valueColumn: Int, dates: QueryDateParser
  ) throws(QueryError) -> QueryExpression {
    guard let known = QueryFilterKey(rawValue: key.lowercased()) else {
      throw error(
        column: token.column, length: key.count + 1,
        "unknown filter '\(key):'; use \(QueryFilterKey.listing) (to search the text, quote it: \"\(key):…\")")
    }
    let valueError = { (message: String) in
      error(column: valueColumn, length: value.count, message)
    }
    guard !value.allSatisfy(\.isWhitespace) else {
      throw error(
        column: token.column, length: token.length,
        "\(key): needs a value right after the colon, as in \(example(known))")
    }
    switch known {
    case .tag:
      let tag = value.hasPrefix("#") ? String(value.dropFirst()) : value
      guard !tag.isEmpty else {
        throw error(column: token.column, length: token.length, "\(key): needs a tag name, as in tag:work")
      }
      return .filter(.tag(tag))
    case .notebook:
      let trimmed = value.drop { $0 == "/" }.reversed().drop { $0 == "/" }.reversed()
      guard !trimmed.isEmpty else {
        throw error(
          column: token.column, length: token.length, "\(key): needs a notebook path, as in notebook:work/projects")
      }
      return .filter(.notebook(String(trimmed)))
    case .title:
      return .text(try match(value, quoted: quoted, field: .title, column: valueColumn))
    case .path:
      return .filter(.path(value))
    case .id:
      guard value.hasSuffix("*") else { return .filter(.id(value, prefix: false)) }
      let stem = value.dropLast()
      guard !stem.isEmpty, !stem.hasSuffix("*") else {
        throw valueError("id: needs the start of an id before the *, as in id:3f2a*")
      }
      return .filter(.id(String(stem), prefix: true))
    case .created, .updated:
      let field: DateField = known == .created ? .created : .updated
      return .filter(.date(field, try dates.range(value, column: valueColumn)))
    case .has:
      switch value.lowercased() {
      case "ink": return .filter(.hasInk)
      case "unresolved": return .filter(.hasUnresolved)
      default: throw valueError("unknown value '\(value)' for \(key):; use has:ink or has:unresolved")
      }
    case .is:
      switch value.lowercased() {
      case "conflict": return .filter(.isConflict)
      case "orphan": return .filter(.isOrphan)
      case "dead-end": return .filter(.isDeadEnd)
      default: throw valueError("unknown value '\(value)' for \(key):; use is:conflict, is:orphan or is:dead-end")
      }
    case .linksTo, .linkedBy, .related, .mentions:
      let selector = value.trimmingWhitespaces()
      switch known {
      case .linksTo: return .filter(.linksTo(selector))
      case .linkedBy: return .filter(.linkedBy(selector))
      case .related: return .filter(.related(selector))
      default: return .filter(.mentions(selector))
      }
    }
  }

  private static func example(_ key: QueryFilterKey) -> String {
    switch key {
    case .tag: "tag:work"
    case .notebook: "notebook:work/projects"
    case .title: "title:plan or title:\"quarterly plan\""
    case .path: "path:2026"
    case .id: "id:3f2a or id:3f*"
    case .created: "created:>=2026-01-01"
    case .updated: "updated:-7d.."
    case .has: "has:ink"
    case .is: "is:conflict"
    case .linksTo: "links-to:work/roadmap"
    case .linkedBy: "linked-by:roadmap"
    case .related: "related:roadmap"
    case .mentions: "mentions:\"Quarterly plan\""
    }
  }
}

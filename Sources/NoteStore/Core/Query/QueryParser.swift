import Foundation

/// Reads the query language (see ``QueryLanguage/help``) into a ``QueryExpression``.
///
/// Grammar, loosest first: `or := and ("OR" and)*`, `and := unary ("AND"? unary)*`,
/// `unary := "-" unary | "(" or ")" | term`. Nested ands and ors are flattened and a group of one is its element, so
/// equal queries give equal trees.
enum QueryParser {
  /// Parses `text`; relative dates (`today`, `-7d`) count from `now` in `timeZone`. The empty query is `.all`.
  static func parse(
    _ text: String, now: Date, timeZone: @escaping @autoclosure () -> TimeZone
  ) throws(QueryError) -> QueryExpression {
    do {
      var parser = Parser(tokens: try QueryLexer.tokens(text), dates: QueryDateParser(now: now, timeZone: timeZone()))
      return try parser.query()
    } catch {
      // Inner errors leave the query empty; the column is all they know.
      var error = error
      error.query = text
      throw error
    }
  }

  /// `parts` joined by AND, flattening nested ANDs; a single part is returned as is.
  static func and(_ parts: [QueryExpression]) -> QueryExpression {
    let flat = parts.flatMap { part -> [QueryExpression] in
      if case .and(let inner) = part { return inner }
      return [part]
    }
    return flat.count == 1 ? flat[0] : .and(flat)
  }

  /// `parts` joined by OR, flattening nested ORs; a single part is returned as is.
  static func or(_ parts: [QueryExpression]) -> QueryExpression {
    let flat = parts.flatMap { part -> [QueryExpression] in
      if case .or(let inner) = part { return inner }
      return [part]
    }
    return flat.count == 1 ? flat[0] : .or(flat)
  }
}

/// Recursive descent over the tokens.
private struct Parser {
  let tokens: [QueryToken]
  let dates: QueryDateParser
  var index = 0

  init(tokens: [QueryToken], dates: QueryDateParser) {
    self.tokens = tokens
    self.dates = dates
  }

  private var peek: QueryToken? { index < tokens.count ? tokens[index] : nil }

  private static func error(_ token: QueryToken, _ message: String) -> QueryError {
    QueryError(query: "", column: token.column, length: token.length, message: message)
  }

  private static let orMessage = "OR needs a search term on each side, as in plan OR roadmap"
  private static let andMessage = "AND needs a search term on each side, as in plan AND roadmap"

  /// Whether `token` can begin an operand of AND or OR.
  private static func startsOperand(_ token: QueryToken?) -> Bool {
    switch token?.kind {
    case nil, .or, .and, .closeParenthesis: false
    default: true
    }
  }

  mutating func query() throws(QueryError) -> QueryExpression {
    guard !tokens.isEmpty else { return .all }
    let expression = try or(opening: nil)
    if let stray = peek {
      throw Self.error(stray, "this ) has no matching (; remove it or add a ( before it")
    }
    return expression
  }

  /// `opening` is the `(` this expression sits in, if any.
  private mutating func or(opening: QueryToken?) throws(QueryError) -> QueryExpression {
    if let token = peek {
      switch token.kind {
      case .or: throw Self.error(token, Self.orMessage)
      case .and: throw Self.error(token, Self.andMessage)
      case .closeParenthesis:
        guard let opening else {
          throw Self.error(token, "this ) has no matching (; remove it or add a ( before it")
        }
        throw QueryError(
          query: "", column: opening.column, length: token.column + token.length - opening.column,
          message: "empty parentheses; put search terms inside or remove them")
      default: break
      }
    } else if let opening {
      throw Self.error(opening, "this ( is never closed; add a ) after the terms it groups")
    }
    var parts = [try and()]
    while let token = peek, token.kind == .or {
      index += 1
      guard Self.startsOperand(peek) else { throw Self.error(token, Self.orMessage) }
      parts.append(try and())
    }
    return QueryParser.or(parts)
  }

  private mutating func and() throws(QueryError) -> QueryExpression {
    var parts = [try unary()]
    while let token = peek {
      switch token.kind {
      case .or, .closeParenthesis: return QueryParser.and(parts)
      case .and:
        index += 1
        guard Self.startsOperand(peek) else { throw Self.error(token, Self.andMessage) }
      default: break
      }
      parts.append(try unary())
    }
    return QueryParser.and(parts)
  }

  private mutating func unary() throws(QueryError) -> QueryExpression {
    // `or` and `and` only call this where a token that starts an operand is next, and the lexer only makes a `-`
    // into `.not` when a term or `(` follows it directly; the guard keeps a slip there from trapping.
    guard let token = peek else {
      throw QueryError(
        query: "", column: tokens.last?.column ?? 1,
        message: "a search term is missing at the end")
    }
    index += 1
    switch token.kind {
    case .not:
      return .not(try unary())
    case .openParenthesis:
      let inner = try or(opening: token)
      guard peek?.kind == .closeParenthesis else {
        throw Self.error(token, "this ( is never closed; add a ) after the terms it groups")
      }
      index += 1
      return inner
    case .word(let text):
      return try QueryTerms.word(text, token: token)
    case .phrase(let text):
      return .text(TextMatch(kind: .phrase, text: text))
    case .filter(let key, let value, let quoted, let valueColumn):
      return try QueryTerms.filter(
        key: key, value: value, quoted: quoted, token: token, valueColumn: valueColumn, dates: dates)
    case .or, .and, .closeParenthesis:
      throw Self.error(token, "a search term is missing here")
    }
  }
}

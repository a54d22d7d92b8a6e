import TextFormat

/// One piece of query text and where it sits (1-based column and length in `Character`s), so errors can point at it.
struct QueryToken: Equatable, Sendable {
  enum Kind: Equatable, Sendable {
    case openParenthesis
    case closeParenthesis
    /// Uppercase `OR`.
    case or
    /// Uppercase `AND`.
    case and
    /// A `-` directly before a term or `(`.
    case not
    /// Unquoted text that is not a filter: `plan`, `plan*`, `#work`, `e-mail`, `http://x`.
    case word(String)
    /// The text between double quotes, quotes removed.
    case phrase(String)
    /// `key:value`; the key as typed (made of two or more ASCII letters), the value without its quotes.
    case filter(key: String, value: String, quoted: Bool, valueColumn: Int)
  }

  var kind: Kind
  var column: Int
  var length: Int
}

/// Splits query text into ``QueryToken``s.
///
/// Parentheses and whitespace always separate tokens. A double quote opens a phrase only where a token starts
/// (after an optional `-`) or right after a filter's `key:`; inside a word it is an ordinary character, so
/// `5'11"` is a word rather than a phrase that never ends.
struct QueryLexer {
  private let characters: [Character]
  private var position = 0
  private var tokens: [QueryToken] = []

  /// Reads all of `text`.
  static func tokens(_ text: String) throws(QueryError) -> [QueryToken] {
    var lexer = QueryLexer(characters: Array(text))
    try lexer.run()
    return lexer.tokens
  }

  /// Where the link filter (`links-to:`, `linked-by:`, `related:`, `mentions:`) whose value is `value` sits in
  /// `text`: its column and length, for an error about the note it names.
  static func place(ofFilterValue value: String, in text: String) -> (column: Int, length: Int)? {
    let links: Set<QueryFilterKey> = [.linksTo, .linkedBy, .related, .mentions]
    for token in (try? tokens(text)) ?? [] {
      guard case .filter(let key, let written, _, _) = token.kind,
        let known = QueryFilterKey(rawValue: key.lowercased()), links.contains(known),
        written.trimmingWhitespaces() == value
      else { continue }
      return (token.column, token.length)
    }
    return nil
  }

  private init(characters: [Character]) {
    self.characters = characters
  }

  private func error(at index: Int, length: Int = 1, _ message: String) -> QueryError {
    QueryError(query: String(characters), column: index + 1, length: length, message: message)
  }

  private func isSeparator(_ character: Character) -> Bool {
    character.isWhitespace || character == "(" || character == ")"
  }

  private mutating func emit(_ kind: QueryToken.Kind, from start: Int, to end: Int) {
    tokens.append(QueryToken(kind: kind, column: start + 1, length: end - start))
  }

  private mutating func run() throws(QueryError) {
    // After `-` the next word is never a keyword: `-OR` excludes the word "OR".
    var afterNot = false
    while position < characters.count {
      let character = characters[position]
      let start = position
      if character.isWhitespace {
        position += 1
        afterNot = false
        continue
      }
      switch character {
      case "(":
        position += 1
        emit(.openParenthesis, from: start, to: position)
      case ")":
        position += 1
        emit(.closeParenthesis, from: start, to: position)
      case "-":
        let next = position + 1 < characters.count ? characters[position + 1] : nil
        guard let next, !next.isWhitespace, next != ")" else {
          throw error(at: start, "a lone - excludes nothing; put it right before a word, as in -draft")
        }
        position += 1
        emit(.not, from: start, to: position)
        afterNot = true
        continue
      case "\"":
        let text = try quoted()
        guard !text.allSatisfy(\.isWhitespace) else {
          throw error(at: start, length: position - start, "empty phrase; put words between the quotes")
        }
        emit(.phrase(text), from: start, to: position)
      default:
        try bare(keywords: !afterNot)
      }
      afterNot = false
    }
  }

  /// Reads `"…"` starting at the opening quote; `position` ends after the closing one. Inside, two quotes in a
  /// row stand for one (`notebook:"say ""hi"""`), so any text can be a quoted value.
  private mutating func quoted() throws(QueryError) -> String {
    let open = position
    var value = ""
    var index = open + 1
    while index < characters.count {
      if characters[index] == "\"" {
        guard index + 1 < characters.count, characters[index + 1] == "\"" else {
          position = index + 1
          return value
        }
        value.append("\"")
        index += 2
        continue
      }
      value.append(characters[index])
      index += 1
    }
    throw error(at: open, "this quote is never closed; add a closing \"")
  }

  /// Reads a word, a keyword or a filter starting at `position`.
  private mutating func bare(keywords: Bool) throws(QueryError) {
    let start = position
    var colon: Int?
    while position < characters.count, !isSeparator(characters[position]) {
      if characters[position] == ":", colon == nil {
        colon = position
        if QueryFilterKey.isKeyShaped(characters[start..<position]), position + 1 < characters.count,
          characters[position + 1] == "\""
        {
          let key = String(characters[start..<position])
          let valueColumn = position + 3
          position += 1
          let value = try quoted()
          emit(.filter(key: key, value: value, quoted: true, valueColumn: valueColumn), from: start, to: position)
          return
        }
      }
      position += 1
    }
    let text = String(characters[start..<position])
    if keywords, text == "OR" {
      emit(.or, from: start, to: position)
    } else if keywords, text == "AND" {
      emit(.and, from: start, to: position)
    } else if let colon, QueryFilterKey.isKeyShaped(characters[start..<colon]) {
      let key = String(characters[start..<colon])
      let value = String(characters[(colon + 1)..<position])
      // `https://…` and `ftp://…` are searched as words: only a known key may take a value starting with `/`.
      if QueryFilterKey(rawValue: key.lowercased()) == nil, value.hasPrefix("/") {
        emit(.word(text), from: start, to: position)
      } else {
        emit(.filter(key: key, value: value, quoted: false, valueColumn: colon + 2), from: start, to: position)
      }
    } else {
      emit(.word(text), from: start, to: position)
    }
  }
}

/// The filter keys (`tag:`, `notebook:` …), lowercase.
enum QueryFilterKey: String, CaseIterable, Sendable {
  case tag
  case notebook
  case title
  case path
  case id
  case created
  case updated
  case has
  case `is`
  case linksTo = "links-to"
  case linkedBy = "linked-by"
  case related
  case mentions

  /// Whether `key` looks like a filter key: two or more ASCII letters, or one of the keys with a dash
  /// (`links-to`, `linked-by`, in any case).
  ///
  /// Anything else before a colon makes the token a plain word, so times (`12:30`), Windows paths (`C:\notes`),
  /// `a:b`, `re-read:` and non-ASCII text (`東京:駅`) can be searched without quotes. A key-shaped prefix that is not
  /// a known key is an error rather than a word, so a typo such as `tga:work` is not silently searched as text.
  static func isKeyShaped(_ key: ArraySlice<Character>) -> Bool {
    if key.count >= 2 && key.allSatisfy({ $0.isASCII && $0.isLetter }) { return true }
    return key.contains("-") && Self(rawValue: String(key).lowercased()) != nil
  }

  /// The list the "unknown filter" error gives.
  static let listing = """
    tag:, notebook:, title:, path:, id:, created:, updated:, links-to:, linked-by:, related:, mentions:, \
    has:ink, has:unresolved, is:conflict, is:orphan, is:dead-end
    """
}

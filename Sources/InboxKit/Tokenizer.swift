import Foundation
import TextFormat

/// The words and features the inbox classifier sees in a note's text.
///
/// Words are what a person would call the note's words: lowercased, diacritics folded
/// (`Café` → `cafe`, `ß` → `ss`, full-width forms → ASCII), split on anything that is not a letter, a digit or a
/// combining mark. Noise that says nothing about where a note belongs is dropped:
/// - YAML front matter, except the values of `title`, `tags`, `tag` and `aliases` (ids and dates would tie a note to
///   when it was captured, not to what it is about);
/// - URLs, reduced to their host's words (`https://www.dentist-bridge.co.uk/a?b=1` → `dentist bridge`): paths and
///   queries are ids, the host says who the link is about;
/// - HTML tags (`<br/>`, `<div class="x">`) and entities (`&nbsp;`); Markdown punctuation falls away in the split;
/// - words of one character, words of digits only (dates, times, amounts), words longer than 40 characters (hashes,
///   base64, minified code: no one files by them), and a small list of English stopwords.
///
/// Scripts written without spaces (Chinese, Japanese) come out as one word per run of letters; that is a known limit.
public enum InboxText {
  /// The note's words in order, as described on the type.
  public static func words(_ text: String) -> [String] {
    let content = Self.content(text)
    // Case folding also lowercases (and maps ß to ss); width folding maps full-width letters and digits to ASCII.
    let folded = content.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    var scanner = WordScanner(scalars: Array(folded.unicodeScalars))
    return scanner.run()
  }

  /// The classifier's features: every word, then every pair of adjacent words joined by one space
  /// (`"dentist bridge"`), adjacency counted after noise and stopwords are dropped.
  public static func features(_ text: String) -> [String] {
    let words = Self.words(text)
    var features = words
    features.reserveCapacity(words.count * 2)
    if words.count > 1 {
      for index in 1..<words.count {
        features.append(words[index - 1] + " " + words[index])
      }
    }
    return features
  }

  /// Common English words that carry no topic; kept small so that short notes keep their few real words.
  static let stopwords: Set<String> = [
    "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "being", "but", "by", "can", "could", "did", "do", "does", "doing", "for", "from", "had", "has",
    "have", "having", "he", "her", "here", "hers", "him", "his", "how", "if", "in", "into", "is", "it", "its",
    "just", "me", "more", "most", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or",
    "other", "our", "ours", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that",
    "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too",
    "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your", "yours",
  ]

  /// Host labels that name no one: the web prefix and generic second-level domains (`co.uk`, `com.au`).
  static let hostNoise: Set<String> = ["www", "com", "org", "net", "co", "ac", "gov", "edu"]

  /// Longest word kept, in Unicode scalars.
  static let maximumWordLength = 40

  /// Whether `word` (already folded) is kept as a word.
  static func keeps(_ word: String) -> Bool {
    let scalars = word.unicodeScalars
    guard scalars.count > 1, scalars.count <= maximumWordLength, word.count > 1 else { return false }
    guard !scalars.allSatisfy({ $0.properties.generalCategory == .decimalNumber }) else { return false }
    return !stopwords.contains(word)
  }

  /// The text the words come from: the body, preceded by the front matter values that describe the note.
  static func content(_ text: String) -> String {
    let bytes = text.utf8
    var start = bytes.startIndex
    // A byte order mark before the front matter fence is not part of the text.
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = bytes.index(start, offsetBy: 3) }
    guard let (firstLine, afterFirst) = line(in: text, from: start), isFence(firstLine, closing: false) else {
      return text
    }
    var kept: [Substring] = []
    var inList = false
    var position = afterFirst
    while let (current, next) = line(in: text, from: position) {
      if isFence(current, closing: true) {
        kept.append(text[next...])
        return kept.joined(separator: "\n")
      }
      let trimmed = current.drop(while: { $0 == " " || $0 == "\t" })
      if trimmed.count < current.count || current.hasPrefix("-") {
        // An indented line or a list item belongs to the key above it.
        if inList { kept.append(current) }
      } else if let colon = current.firstIndex(of: ":") {
        let key = current[..<colon].trimmingWhitespaces().lowercased()
        let describes = ["title", "tags", "tag", "aliases"].contains(key)
        let value = current[current.index(after: colon)...]
        if describes { kept.append(value) }
        inList = describes
      } else {
        inList = false
      }
      position = next
    }
    // No closing fence: not front matter after all, the whole text is the body.
    return text
  }

  /// The line starting at `start` (without its `\n` or `\r\n`) and where the next one starts; nil at the end.
  private static func line(in text: String, from start: String.Index) -> (Substring, String.Index)? {
    let bytes = text.utf8
    guard start < bytes.endIndex else { return nil }
    let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
    var end = newline
    if end > start, bytes[bytes.index(before: end)] == UInt8(ascii: "\r") { end = bytes.index(before: end) }
    let next = newline < bytes.endIndex ? bytes.index(after: newline) : newline
    return (text[start..<end], next)
  }

  private static func isFence(_ line: Substring, closing: Bool) -> Bool {
    let trimmed = line.trimmingWhitespaces()
    return trimmed == "---" || (closing && trimmed == "...")
  }
}

/// One pass over folded text: words, URLs reduced to host words, HTML tags and entities skipped.
private struct WordScanner {
  let scalars: [Unicode.Scalar]
  var position = 0
  var words: [String] = []

  init(scalars: [Unicode.Scalar]) {
    self.scalars = scalars
  }

  mutating func run() -> [String] {
    var word = String.UnicodeScalarView()
    while position < scalars.count {
      let scalar = scalars[position]
      if isWordScalar(scalar) {
        if word.isEmpty, let end = urlEnd(at: position) {
          emitHost(from: position, to: end)
          position = end
          continue
        }
        word.append(scalar)
        position += 1
        continue
      }
      emit(&word)
      if scalar == "<", let end = tagEnd(at: position) {
        position = end
      } else if scalar == "&", let end = entityEnd(at: position) {
        position = end
      } else {
        position += 1
      }
    }
    emit(&word)
    return words
  }

  private mutating func emit(_ word: inout String.UnicodeScalarView) {
    guard !word.isEmpty else { return }
    let text = String(word)
    if InboxText.keeps(text) { words.append(text) }
    word = String.UnicodeScalarView()
  }

  private func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.isASCII {
      return ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || ("A"..."Z").contains(scalar)
    }
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber:
      return true
    case .nonspacingMark, .spacingMark:
      // Marks left after folding belong to their letter (Devanagari, Thai vowel signs).
      return true
    default:
      return false
    }
  }

  private func matches(_ literal: String, at index: Int) -> Bool {
    var offset = index
    for scalar in literal.unicodeScalars {
      guard offset < scalars.count, scalars[offset] == scalar else { return false }
      offset += 1
    }
    return true
  }

  /// Where a URL starting at `index` ends: `scheme://…` or `www.…`, up to whitespace or a bracket or quote.
  private func urlEnd(at index: Int) -> Int? {
    guard index == 0 || !isWordScalar(scalars[index - 1]) else { return nil }
    var cursor = index
    if !matches("www.", at: index) {
      while cursor < scalars.count, cursor - index < 32, isSchemeScalar(scalars[cursor]) { cursor += 1 }
      guard cursor > index, matches("://", at: cursor) else { return nil }
    }
    while cursor < scalars.count, !isURLTerminator(scalars[cursor]) { cursor += 1 }
    return cursor
  }

  private func isSchemeScalar(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "+" || scalar == "." || scalar == "-"
  }

  private func isURLTerminator(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.properties.isWhitespace { return true }
    return "<>\"'`()[]{}|\\".unicodeScalars.contains(scalar)
  }

  /// The host's words: labels split on `.` and `-`, without the top-level domain and generic labels.
  private mutating func emitHost(from start: Int, to end: Int) {
    var hostStart = start
    if let scheme = (start..<end).first(where: { matches("://", at: $0) }) { hostStart = scheme + 3 }
    var hostEnd = hostStart
    while hostEnd < end, !"/?#".unicodeScalars.contains(scalars[hostEnd]) { hostEnd += 1 }
    var host = String(String.UnicodeScalarView(scalars[hostStart..<hostEnd]))
    // user:password@host:port → host
    if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
    if let colon = host.firstIndex(of: ":") { host = String(host[..<colon]) }
    var labels = host.split(separator: ".").map(String.init)
    if labels.count > 1 { labels.removeLast() }
    for label in labels where !InboxText.hostNoise.contains(label) {
      for part in label.split(separator: "-") where InboxText.keeps(String(part)) {
        words.append(String(part))
      }
    }
  }

  /// Where an HTML tag (`<a …>`, `</p>`, `<!-- … -->` on one line) starting at `index` ends, or nil when `<` is
  /// just a character (`a < b`) or opens an autolink (`<https://…>`, whose host is wanted).
  private func tagEnd(at index: Int) -> Int? {
    let next = index + 1
    guard next < scalars.count else { return nil }
    let opener = scalars[next]
    guard ("a"..."z").contains(opener) || opener == "/" || opener == "!" else { return nil }
    if urlEnd(at: next) != nil { return nil }
    var cursor = next
    while cursor < scalars.count, cursor - index < 512 {
      let scalar = scalars[cursor]
      if scalar == ">" { return cursor + 1 }
      if scalar == "\n" || scalar == "<" { return nil }
      cursor += 1
    }
    return nil
  }

  /// Where an entity (`&amp;`, `&#233;`) starting at `index` ends.
  private func entityEnd(at index: Int) -> Int? {
    var cursor = index + 1
    while cursor < scalars.count, cursor - index <= 10 {
      let scalar = scalars[cursor]
      if scalar == ";" { return cursor > index + 1 ? cursor + 1 : nil }
      guard ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "#" else { return nil }
      cursor += 1
    }
    return nil
  }
}

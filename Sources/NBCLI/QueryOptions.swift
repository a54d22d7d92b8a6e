import ArgumentParser
import Foundation
import NoteStore

extension NoteQuery.Sort: ExpressibleByArgument {}

/// Sort and page options `search` and `list` share.
struct QueryOptions: ParsableArguments {
  @Option(help: "Sort by \(NoteQuery.Sort.allCases.map(\.rawValue).joined(separator: ", ")).")
  var sort: NoteQuery.Sort?

  @Flag(help: "Reverse the order.")
  var reverse = false

  @Option(help: "At most this many notes.")
  var limit: Int?

  @Flag(help: "Every matching note (search shows the best 20 unless told otherwise).")
  var all = false

  @Option(help: "Skip this many notes first (for paging).")
  var offset: Int = 0

  func validate() throws {
    if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    if offset < 0 { throw ValidationError("--offset must be 0 or more") }
    if all && limit != nil { throw ValidationError("--all and --limit cannot go together; give one") }
  }

  /// The query for `text`, with this command's default sort and limit where none was given.
  func query(_ text: String, defaultSort: NoteQuery.Sort, defaultLimit: Int?) -> NoteQuery {
    NoteQuery(
      text, sort: sort ?? defaultSort, reverse: reverse, limit: all ? nil : limit ?? defaultLimit, offset: offset)
  }

  /// What ``query(_:defaultSort:defaultLimit:)`` makes when none of the options was given (their defaults above).
  static func unset(_ text: String, defaultSort: NoteQuery.Sort, defaultLimit: Int?) -> NoteQuery {
    NoteQuery(text, sort: defaultSort, reverse: false, limit: defaultLimit, offset: 0)
  }
}

/// The query words of a command line. `-draft` is query syntax, not an option, so the words are collected with
/// whatever ArgumentParser did not recognise; a `--word` is still most likely a mistyped option.
func queryText(_ words: [String]) throws -> String {
  if let option = words.first(where: { $0.hasPrefix("--") && $0.count > 2 }) {
    throw ValidationError("unknown option '\(option)'; to search for it, quote it inside the query: '\"\(option)\"'")
  }
  return joinedWithoutLookup(words.filter { $0 != "--" }, separator: " ")
}

/// The JSON shape of one search or list result: a note's keys plus how it matched.
struct HitJSON: Encodable {
  var note: NoteJSON
  var score: Double?
  var snippet: String?
  var highlights: [[Int]]
  var hasInk: Bool

  init(_ hit: NoteHit) {
    note = NoteJSON(hit.note)
    score = hit.score
    snippet = hit.snippet?.text
    highlights = hit.snippet?.highlights.map { [$0.lowerBound, $0.upperBound] } ?? []
    hasInk = hit.hasInk
  }

  enum CodingKeys: String, CodingKey {
    case score, snippet, highlights
    case hasInk = "has_ink"
  }

  func encode(to encoder: Encoder) throws {
    try note.encode(to: encoder)
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(score, forKey: .score)
    try c.encode(snippet, forKey: .snippet)
    try c.encode(highlights, forKey: .highlights)
    try c.encode(hasInk, forKey: .hasInk)
  }
}

/// A snippet on one line with its matches in bold yellow (on a terminal; plain text otherwise).
func snippetLine(_ snippet: NoteSnippet) -> String {
  let scalars = Array(snippet.text.unicodeScalars)
  var out = ""
  var position = 0
  func plain(_ range: Range<Int>) -> String {
    var s = String.UnicodeScalarView()
    s.append(contentsOf: scalars[range])
    return String(s)
  }
  for highlight in snippet.highlights.sorted(by: { $0.lowerBound < $1.lowerBound }) {
    let start = min(max(highlight.lowerBound, position), scalars.count)
    let end = min(max(highlight.upperBound, start), scalars.count)
    out += plain(position..<start) + Style.bold(Style.yellow(plain(start..<end)))
    position = end
  }
  return out + plain(position..<scalars.count)
}

import Foundation
import TextFormat

/// What nb and the device's own inbox command (`inbox: {command: ...}` in `$XDG_CONFIG_HOME/nb/config.yaml`) say to
/// each other, and how its answers are kept under `.git/nb/inbox/command-answers`. Pure functions over values; the
/// process, the device settings and the files are in `Shell/InboxCommand.swift`.
///
/// The request is one JSON object and a line break on the command's standard input (keys sorted, `/` unescaped):
///
/// ```
/// {"candidates":[{"confidence":0.912,"description":"teeth, doctors","notebook":"health"},...],
///  "item":{"id":"<uuid>"|null,"path":"inbox/x.md","tags":["a"],"text":"<body>","title":"..."},
///  "notebooks":["health","work"]}
/// ```
///
/// The answer is the first non-empty line of its standard output, trimmed: a notebook, optionally followed by a tab
/// and a confidence from 0 to 1.
enum InboxCommandExchange {
  /// The item as the command sees it: `text` is the body (no front matter), cut to ``textLimit`` bytes.
  struct Item: Equatable, Encodable {
    var path: String
    var id: String?
    var title: String
    var tags: [String]
    var text: String

    func encode(to encoder: Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(path, forKey: .path)
      // Every key is always present: `null`, not a missing key.
      if let id { try container.encode(id, forKey: .id) } else { try container.encodeNil(forKey: .id) }
      try container.encode(title, forKey: .title)
      try container.encode(tags, forKey: .tags)
      try container.encode(text, forKey: .text)
    }

    enum CodingKeys: String, CodingKey { case path, id, title, tags, text }
  }

  /// A notebook as the classifier ranks it, with its `.notebook.yaml` description (nil when it has none).
  struct Candidate: Equatable, Encodable {
    var notebook: String
    var confidence: Double
    var description: String?

    func encode(to encoder: Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(notebook, forKey: .notebook)
      // Three decimals, as `nb inbox --json` prints confidences.
      try container.encode((confidence * 1000).rounded() / 1000, forKey: .confidence)
      if let description {
        try container.encode(description, forKey: .description)
      } else {
        try container.encodeNil(forKey: .description)
      }
    }

    enum CodingKeys: String, CodingKey { case notebook, confidence, description }
  }

  /// What the command printed: a notebook as written (trimmed) and the confidence when it gave one.
  struct Answer: Equatable {
    var notebook: String
    var confidence: Double?
  }

  /// At most this many bytes of an item's body go to the command (the search index keeps as much).
  static let textLimit = 1 << 20

  /// `text` cut to at most `limit` UTF-8 bytes, between two Unicode scalars.
  static func capped(_ text: String, limit: Int = textLimit) -> String {
    let bytes = text.utf8
    guard bytes.count > limit else { return text }
    var end = bytes.index(bytes.startIndex, offsetBy: limit)
    // Step back over continuation bytes (10xxxxxx) to the start of a scalar.
    while end > bytes.startIndex, bytes[end] & 0xC0 == 0x80 { end = bytes.index(before: end) }
    return String(decoding: bytes[..<end], as: UTF8.self)
  }

  private struct Request: Encodable {
    var item: Item
    var candidates: [Candidate]
    var notebooks: [String]
  }

  private static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }

  /// The request for `item`: `candidates` best first, `notebooks` every notebook it may be filed into (sorted).
  static func request(item: Item, candidates: [Candidate], notebooks: [String]) -> Data {
    // Strings, numbers and arrays of them always encode.
    var data = (try? encoder().encode(Request(item: item, candidates: candidates, notebooks: notebooks))) ?? Data()
    data.append(0x0A)
    return data
  }

  /// How the command's standard output reads: an answer, or why it is none.
  enum Reading: Equatable {
    case answer(Answer)
    case unreadable(String)
  }

  /// The answer in `output`: its first non-empty line, trimmed; a tab then separates the notebook from a
  /// confidence (a number from 0 to 1). Invalid UTF-8 is replaced, so a stray byte shows in the warning.
  static func reading(_ output: Data) -> Reading {
    let text = String(decoding: output, as: UTF8.self)
    guard
      let first = text.split(whereSeparator: \.isNewline)
        .first(where: { !$0.trimmingWhitespaces().isEmpty })
    else { return .unreadable("printed no notebook") }
    // Trailing white space goes, tabs too; a leading tab stays: it separates a confidence from no notebook.
    var line = Substring(first)
    while let last = line.last, last == " " || last == "\t" || last == "\r" { line.removeLast() }
    while line.first == " " { line.removeFirst() }
    let whole = String(line)
    guard let tab = line.lastIndex(of: "\t") else { return .answer(Answer(notebook: whole, confidence: nil)) }
    let notebook = line[..<tab].trimmingWhitespaces()
    let number = line[line.index(after: tab)...].trimmingWhitespaces()
    guard let confidence = Double(number), (0...1).contains(confidence) else {
      return .unreadable("printed '\(shortened(whole))': '\(shortened(number))' is not a confidence from 0 to 1")
    }
    guard !notebook.isEmpty else { return .unreadable("printed a confidence but no notebook") }
    return .answer(Answer(notebook: notebook, confidence: confidence))
  }

  /// The notebook among `bins` an answer names: the same path (a leading or trailing `/` aside), else the only one
  /// that differs from it in case alone; nil when none is.
  static func notebook(_ answer: Answer, among bins: Set<String>) -> String? {
    let name = answer.notebook.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
    if bins.contains(name) { return name }
    let folded = bins.filter { $0.lowercased() == name.lowercased() }
    return folded.count == 1 ? folded.first : nil
  }

  /// What an answer depends on, as bytes to hash into its cache key: the command's arguments, the item's title, tags
  /// and text, and the notebooks it may go to with their descriptions. Not the classifier's ranking, which changes
  /// with every note saved; not the item's path or id, which say nothing about where it belongs.
  static func keyMaterial(arguments: [String], item: Item, notebooks: [Candidate]) -> Data {
    struct Material: Encodable {
      var version = 1
      var arguments: [String]
      var title: String
      var tags: [String]
      var text: String
      var notebooks: [[String]]
    }
    let bins = notebooks.sorted { $0.notebook < $1.notebook }.map {
      [$0.notebook] + ($0.description.map { [$0] } ?? [])
    }
    let material = Material(arguments: arguments, title: item.title, tags: item.tags, text: item.text, notebooks: bins)
    return (try? encoder().encode(material)) ?? Data()
  }

  /// The first line of the answers file; a file that starts otherwise is ignored and replaced.
  static let cacheHeader = "nb-inbox-command-answers 1"

  /// One line of the answers file: `<key><TAB><confidence, or -><TAB><notebook as printed>` and a line break. The
  /// notebook comes last, so a tab in it reads back; it never holds a line break (it was one line).
  static func cacheLine(key: String, _ answer: Answer) -> String {
    "\(key)\t\(answer.confidence.map { "\($0)" } ?? "-")\t\(answer.notebook)\n"
  }

  /// The answers in an answers file, oldest first (a key may repeat: the last line counts); nil when the file does
  /// not start with ``cacheHeader``. A line that does not read (cut short by a crash) is skipped.
  static func cacheEntries(_ data: Data) -> [(key: String, answer: Answer)]? {
    var lines = data.split(separator: 0x0A, omittingEmptySubsequences: true)[...]
    guard let first = lines.popFirst(), String(decoding: first, as: UTF8.self) == cacheHeader else { return nil }
    var entries: [(key: String, answer: Answer)] = []
    for line in lines {
      let fields = String(decoding: line, as: UTF8.self).split(
        separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
      guard fields.count == 3, fields[0].count == 64, fields[0].allSatisfy(\.isHexDigit), !fields[2].isEmpty else {
        continue
      }
      let confidence: Double?
      if fields[1] == "-" {
        confidence = nil
      } else if let value = Double(fields[1]), (0...1).contains(value) {
        confidence = value
      } else {
        continue
      }
      entries.append((String(fields[0]), Answer(notebook: String(fields[2]), confidence: confidence)))
    }
    return entries
  }

  /// The whole answers file for `entries` (the newest `limit` keys, oldest first).
  static func cacheFile(_ entries: [(key: String, answer: Answer)], limit: Int) -> Data {
    var newest: [(key: String, answer: Answer)] = []
    var seen = Set<String>()
    for entry in entries.reversed() where newest.count < limit && seen.insert(entry.key).inserted {
      newest.append(entry)
    }
    return Data((cacheHeader + "\n" + newest.reversed().map { cacheLine(key: $0.key, $0.answer) }.joined()).utf8)
  }

  /// `text` on one line and at most 80 characters, for a warning.
  static func shortened(_ text: String) -> String {
    let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
    return line.count > 80 ? line.prefix(79) + "…" : line
  }
}

import Foundation
import NBTestSupport
import XCTest
import Yams

@testable import NoteStore

/// Random front matters, random edits, and the editing rule checked independently of the code under test: the
/// generator knows which lines each key owns, so the expected layout of the result is computed by splitting lines.
final class FrontMatterPropertyTests: XCTestCase {
  /// One generated top-level entry: its key and lines (without line breaks).
  private struct Entry {
    var key: String
    var lines: [String]
    /// False after block scalars, whose content an indented comment line would join.
    var allowsIndentedFiller = true
  }

  private struct Case {
    var bom: Bool
    var eol: String
    /// nil: no front matter at all.
    var block: [(text: String, owner: String?)]?
    var body: String
    var keys: [String]

    var text: String {
      var text = bom ? "\u{FEFF}" : ""
      if let block {
        text += "---" + eol
        for line in block { text += line.text + eol }
        text += "---" + eol
      }
      return text + body
    }
  }

  private enum Edit {
    case updated(Timestamp)
    case tags([String])
    case title(String)
    case id(String)
    case remove(String)
  }

  func testRandomEditsKeepEveryOtherByte() throws {
    var random = SplitMix64(seed: 20_261_122)
    var checked = 0
    for iteration in 0..<3000 {
      let testCase = makeCase(&random)
      let edit = makeEdit(&random, keys: testCase.keys)
      try check(testCase, edit, iteration: iteration)
      checked += 1
    }
    XCTAssertEqual(checked, 3000)
  }

  // MARK: - Checking

  private func check(_ testCase: Case, _ edit: Edit, iteration: Int) throws {
    let text = testCase.text
    let label = "case \(iteration): \(edit)\n\(text)"
    let result: String
    switch edit {
    case .updated(let stamp): result = try FrontMatter.settingUpdated(stamp, in: text)
    case .tags(let tags): result = try FrontMatter.settingTags(tags, in: text)
    case .title(let title): result = try FrontMatter.setting("title", to: YAMLScalar.format(title), in: text)
    case .id(let id): result = try FrontMatter.setting("id", to: id, in: text)
    case .remove(let key): result = try FrontMatter.removing(key, in: text)
    }

    let targetKey: String?
    var insertFirst = false
    switch edit {
    case .updated: targetKey = firstPresent(["updated", "modified", "lastmod", "last_modified_at"], testCase.keys)
    case .tags: targetKey = firstPresent(["tags", "tag", "keywords"], testCase.keys)
    case .title: targetKey = "title"
    case .id:
      targetKey = "id"
      insertFirst = !testCase.keys.contains("id")
    case .remove(let key): targetKey = key
    }
    let target = targetKey!
    let resultLines = splitLines(result)
    let bomPrefix = testCase.bom ? "\u{FEFF}" : ""

    guard let block = testCase.block else {
      if case .remove = edit {
        XCTAssertEqual(result, text, label)
        return
      }
      // A minimal block at the start, in the body's line ending style, then the untouched text.
      let bodyEOL = bodyLineEnding(testCase.body)
      let bodyLines = splitLines(testCase.body)
      XCTAssertGreaterThanOrEqual(resultLines.count, 3 + bodyLines.count, label)
      XCTAssertEqual(resultLines.first, bomPrefix + "---" + bodyEOL, label)
      XCTAssertEqual(Array(resultLines.suffix(bodyLines.count)), bodyLines, label)
      let newBlock = resultLines.dropFirst().dropLast(bodyLines.count)
      XCTAssertEqual(newBlock.last, "---" + bodyEOL, label)
      for line in newBlock { XCTAssertTrue(line.hasSuffix(bodyEOL) && !line.dropLast(bodyEOL.count).contains("\r")) }
      XCTAssertEqual(newBlock.count, 2, label)
      XCTAssertTrue(newBlock.first?.hasPrefix(target + ":") ?? false, label)
      try checkReadBack(result, edit, label: label)
      return
    }

    // (1) Lines outside the edited key are byte-identical and in order; (4) the body too, as it is part of them.
    let head = [bomPrefix + "---" + testCase.eol]
    let closingAndBody = ["---" + testCase.eol] + splitLines(testCase.body)
    let owned = block.indices.filter { block[$0].owner == target }
    let blockLines = block.map { $0.text + testCase.eol }
    let before: [String]
    let after: [String]
    if let first = owned.first, let last = owned.last {
      XCTAssertEqual(owned.count, last - first + 1, "generator: owned lines must be contiguous")
      before = head + blockLines[..<first]
      after = Array(blockLines[(last + 1)...]) + closingAndBody
    } else if insertFirst {
      before = head
      after = blockLines + closingAndBody
    } else {
      before = head + blockLines
      after = closingAndBody
    }
    XCTAssertGreaterThanOrEqual(resultLines.count, before.count + after.count, label)
    XCTAssertEqual(Array(resultLines.prefix(before.count)), before, label)
    XCTAssertEqual(Array(resultLines.suffix(after.count)), after, label)
    let newLines = Array(resultLines.dropFirst(before.count).dropLast(after.count))
    if case .remove = edit {
      XCTAssertEqual(newLines, [], label)
    } else {
      XCTAssertFalse(newLines.isEmpty, label)
      XCTAssertTrue(newLines.first?.hasPrefix(target) ?? false, label)
    }
    // (5) New lines follow the block's line endings.
    for line in newLines {
      XCTAssertTrue(line.hasSuffix(testCase.eol), label)
      XCTAssertFalse(line.dropLast(testCase.eol.count).contains("\r"), label)
    }

    // (3) Every other key parses to the same value, in the same order.
    let oldBlock = blockLines.joined()
    let newBlockLines = resultLines.dropFirst(1).dropLast(closingAndBody.count)
    let oldPairs = try pairs(oldBlock)
    let newPairs = try pairs(newBlockLines.joined())
    let oldOthers = oldPairs.filter { $0.0 != target }
    let newOthers = newPairs.filter { $0.0 != target }
    XCTAssertEqual(oldOthers.map(\.0), newOthers.map(\.0), label)
    XCTAssertEqual(oldOthers.map(\.1), newOthers.map(\.1), label)
    if case .remove = edit {
      XCTAssertFalse(newPairs.contains { $0.0 == target }, label)
    }
    // (2) The edited key reads back as the new value.
    try checkReadBack(result, edit, label: label)
  }

  private func checkReadBack(_ result: String, _ edit: Edit, label: String) throws {
    let metadata = try FrontMatter.read(result)
    switch edit {
    case .updated(let stamp): XCTAssertEqual(metadata.updated?.rfc3339, stamp.rfc3339, label)
    case .tags(let tags): XCTAssertEqual(metadata.tags, tags, label)
    case .title(let title):
      let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
      XCTAssertEqual(metadata.title, trimmed.isEmpty ? nil : trimmed, label)
    case .id(let id): XCTAssertEqual(metadata.id, id, label)
    case .remove: break
    }
  }

  private func pairs(_ yaml: String) throws -> [(String, Node)] {
    guard let root = try Yams.compose(yaml: yaml) else { return [] }
    let mapping = try XCTUnwrap(root.mapping)
    return mapping.map { ($0.key.scalar?.string ?? "?", $0.value) }
  }

  private func firstPresent(_ keys: [String], _ present: [String]) -> String {
    keys.first { present.contains($0) } ?? keys[0]
  }

  /// Splits after every `\n` (a CRLF line keeps its `\r\n`), over Unicode scalars rather than Characters, where
  /// `\r\n` would be a single grapheme.
  private func splitLines(_ text: String) -> [String] {
    var lines: [String] = []
    var current = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      current.append(scalar)
      if scalar == "\n" {
        lines.append(String(current))
        current = String.UnicodeScalarView()
      }
    }
    if !current.isEmpty { lines.append(String(current)) }
    return lines
  }

  private func bodyLineEnding(_ body: String) -> String {
    guard let newline = body.unicodeScalars.firstIndex(of: "\n") else { return "\n" }
    return newline > body.unicodeScalars.startIndex
      && body.unicodeScalars[body.unicodeScalars.index(before: newline)]
        == "\r"
      ? "\r\n" : "\n"
  }

  // MARK: - Generating

  private func pick<T>(_ options: [T], _ random: inout SplitMix64) -> T {
    options[Int(random.next() % UInt64(options.count))]
  }

  private func chance(_ percent: UInt64, _ random: inout SplitMix64) -> Bool {
    random.next() % 100 < percent
  }

  private func word(_ random: inout SplitMix64) -> String {
    pick(["alpha", "beta", "gamma", "work", "Ünï", "x1", "release-2", "emoji🎉", "a_b", "k8s"], &random)
  }

  private func randomString(_ random: inout SplitMix64) -> String {
    let alphabet = Array(" abcXYZ:#-'\"\\,[]{}é🎉\t&*!|>%@`?~01".unicodeScalars)
    var scalars = String.UnicodeScalarView()
    for _ in 0..<Int(random.next() % 12) { scalars.append(pick(alphabet, &random)) }
    return String(scalars)
  }

  private func timestampText(_ random: inout SplitMix64) -> String {
    let day = 1 + Int(random.next() % 28)
    let hour = Int(random.next() % 24)
    let base = String(format: "2025-%02d-%02d", 1 + Int(random.next() % 12), day)
    switch random.next() % 4 {
    case 0: return base
    case 1: return base + String(format: "T%02d:15:03+01:00", hour)
    case 2: return "\"" + base + String(format: " %02d:00:00Z", hour) + "\""
    default: return base + String(format: "T%02d:59:59.5-07:30", hour)
    }
  }

  private func comment(_ random: inout SplitMix64) -> String {
    pick(["# note: keep", "#", "# title: not a key", "# --- not a delimiter", "#tags: [x]"], &random)
  }

  private func titleEntry(_ random: inout SplitMix64) -> Entry {
    switch random.next() % 6 {
    case 0: return Entry(key: "title", lines: ["title: " + YAMLScalar.format(randomString(&random))])
    case 1: return Entry(key: "title", lines: ["title: 'It''s \(word(&random))'  # quoted"])
    case 2: return Entry(key: "title", lines: ["title: \"multi", "  line \\\"title\\\" # in quotes\""])
    case 3:
      return Entry(
        key: "title", lines: ["title: >-", "  folded", "  # content, not a comment"], allowsIndentedFiller: false)
    case 4: return Entry(key: "title", lines: ["title:", "  on the next line"])
    default: return Entry(key: "title", lines: ["title:    \(word(&random)) words   # c"])
    }
  }

  private func tagsEntry(_ key: String, _ random: inout SplitMix64) -> Entry {
    let a = word(&random)
    let b = word(&random) + "2"
    switch random.next() % 6 {
    case 0: return Entry(key: key, lines: ["\(key): [\(a), \(b)]"])
    case 1: return Entry(key: key, lines: ["\(key): [\(a),", "  \"\(b)\" ]  # multi-line flow"])
    case 2:
      let dash = pick(["- ", "  - ", "    -   ", "-  "], &random)
      var lines = ["\(key):" + (chance(30, &random) ? "  # block" : ""), dash + a]
      if chance(40, &random) { lines.append(pick(["# between items", "  # between items"], &random)) }
      lines.append(dash + "'\(b)'")
      return Entry(key: key, lines: lines)
    case 3: return Entry(key: key, lines: ["\(key): \(a) \(b)"])
    case 4: return Entry(key: key, lines: ["\(key): \(a), \(b)"])
    default: return Entry(key: key, lines: ["\(key): \"#\(a) #\(b)\""])
    }
  }

  private func unknownEntry(_ key: String, _ random: inout SplitMix64) -> Entry {
    switch random.next() % 9 {
    case 0: return Entry(key: key, lines: ["\(key): post"])
    case 1:
      return Entry(
        key: key, lines: ["\(key):", "  a: 1", "  title: inner", "  b:", "    - x", "    # inner", "    - y: z"])
    case 2: return Entry(key: key, lines: ["\(key):", "- name: a", "  n: 1", "- name: b"])
    case 3: return Entry(key: key, lines: ["\(key): {image: a.png, alt: \"x, y\"}   # flow map"])
    case 4:
      return Entry(
        key: key, lines: ["\(key): |", "  line one", "  # not a comment", "", "  # tail content"],
        allowsIndentedFiller: false)
    case 5: return Entry(key: key, lines: ["\(key): 10"])
    case 6: return Entry(key: key, lines: ["\(key):"])
    case 7: return Entry(key: key, lines: ["\"\(key)\": [a,", "  b]"])
    default: return Entry(key: key, lines: ["\(key): &anchor", "  deep: {x: [1, 2]}"])
    }
  }

  private func makeCase(_ random: inout SplitMix64) -> Case {
    let eol = chance(40, &random) ? "\r\n" : "\n"
    let bom = chance(20, &random)
    var bodyLines: [String] = []
    for _ in 0..<Int(random.next() % 6) {
      bodyLines.append(
        pick(["# Heading", "text: with colon", "---", "...", "```", "", "  - item", "title: fake", "é🎉"], &random))
    }
    var body = bodyLines.joined(separator: eol)
    if !bodyLines.isEmpty && chance(80, &random) { body += eol }
    if chance(10, &random) {
      // No front matter; the body must then not start with a line that would open one.
      if body.hasPrefix("---") { body = "x" + body }
      return Case(bom: bom, eol: eol, block: nil, body: body, keys: [])
    }

    var entries: [Entry] = []
    var used = Set<String>()
    func add(_ entry: Entry) {
      guard !used.contains(entry.key) else { return }
      used.insert(entry.key)
      entries.append(entry)
    }
    for _ in 0..<Int(random.next() % 9) {
      switch random.next() % 8 {
      case 0: add(titleEntry(&random))
      case 1: add(Entry(key: "id", lines: ["id: " + pick(["0193f6a2-8c01-7e55", "\"quoted-id\"", "id-3"], &random)]))
      case 2:
        let key = pick(["updated", "modified", "lastmod", "last_modified_at"], &random)
        add(Entry(key: key, lines: ["\(key): \(timestampText(&random))"]))
      case 3:
        let key = pick(["created", "date"], &random)
        add(Entry(key: key, lines: ["\(key): \(timestampText(&random))"]))
      case 4: add(tagsEntry(pick(["tags", "tag", "keywords"], &random), &random))
      case 5: add(Entry(key: "aliases", lines: ["aliases: [\(word(&random))]"]))
      default:
        let key = pick(["layout", "draft", "meta", "author", "weight", "series", "extra", "cover", "toc"], &random)
        add(unknownEntry(key, &random))
      }
    }
    entries.shuffle(using: &random)

    var block: [(text: String, owner: String?)] = []
    func filler(indentedAllowed: Bool) {
      for _ in 0..<Int(random.next() % 3) {
        switch random.next() % 3 {
        case 0: block.append(("", nil))
        case 1: block.append((comment(&random), nil))
        default: block.append(((indentedAllowed ? "   " : "") + comment(&random), nil))
        }
      }
    }
    filler(indentedAllowed: true)
    // Removing the key after a block scalar would make a following indented comment part of that scalar (an edit
    // nb refuses, see FrontMatterEditTests), so after the first block scalar only column-0 filler is generated.
    var indentedAllowed = true
    for entry in entries {
      for line in entry.lines { block.append((line, entry.key)) }
      indentedAllowed = indentedAllowed && entry.allowsIndentedFiller
      filler(indentedAllowed: indentedAllowed)
    }
    return Case(bom: bom, eol: eol, block: block, body: body, keys: entries.map(\.key))
  }

  private func makeEdit(_ random: inout SplitMix64, keys: [String]) -> Edit {
    switch random.next() % 5 {
    case 0:
      let seconds = 1_700_000_000 + Double(random.next() % 100_000_000)
      return .updated(
        Timestamp(date: Date(timeIntervalSince1970: seconds), offsetSeconds: pick([0, 3600, -16_200], &random)))
    case 1:
      var tags: [String] = []
      for _ in 0..<(1 + Int(random.next() % 4)) {
        let tag = pick(["a", "b c", "x,y", "yes", "ünï", "[z]", "2024", "k8s", "q\"t", "ta:g"], &random)
        if !tags.contains(tag) { tags.append(tag) }
      }
      return .tags(tags)
    case 2: return .title(randomString(&random))
    case 3: return .id(pick(["0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b", "new-id"], &random))
    default:
      let candidates = keys + ["absent"]
      return .remove(pick(candidates, &random))
    }
  }
}

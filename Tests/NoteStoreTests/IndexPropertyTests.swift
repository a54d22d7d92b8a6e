import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// Random small repositories × random query trees: the index's answer equals a brute-force evaluation over what was
/// written, with a tokenizer of its own (split on what is not a letter or digit, fold case and diacritics).
///
/// The vocabulary keeps the two tokenizations in agreement: words are separated by spaces, no CJK word shares a
/// bigram with another, and a CJK word is only ever queried whole.
final class IndexPropertyTests: NoteRepositoryTestCase {
  static let latin = [
    "apple", "Banana", "cherry", "Café", "crème", "naïve", "résumé", "plan", "planning", "x1", "ZEBRA",
  ]
  static let cjk = ["東京", "大阪", "日本語", "ひらがな", "서울"]
  static let vocabulary = latin + cjk
  static let tags = ["red", "Blue", "red/dark", "work/x", "work"]
  static let notebooks = ["", "a", "a/b", "c"]
  static let day: TimeInterval = 86_400
  static let epoch: TimeInterval = 1_767_225_600  // 2026-01-01T00:00:00Z

  struct Model {
    var path: String
    var title: String
    var tags: [String]
    var body: String
    var created: Date?
    var hasInk: Bool
    var isConflict: Bool
    var notebook: String { RepoPaths.directory(of: path) }
  }

  static func fold(_ text: String) -> String {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
  }

  static func tokens(_ text: String) -> [String] {
    text.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map { fold(String($0)) }
  }

  static func matches(_ match: TextMatch, _ note: Model) -> Bool {
    let fields = match.field == .title ? [note.title] : [note.title, note.tags.joined(separator: " "), note.body]
    let wanted = tokens(match.text)
    guard !wanted.isEmpty else { return false }
    for field in fields {
      let have = tokens(field)
      switch match.kind {
      case .word, .phrase:
        guard have.count >= wanted.count else { continue }
        for start in 0...(have.count - wanted.count) where Array(have[start..<(start + wanted.count)]) == wanted {
          return true
        }
      case .prefix:
        guard have.count >= wanted.count else { continue }
        for start in 0...(have.count - wanted.count) {
          let window = Array(have[start..<(start + wanted.count)])
          if window.dropLast() == wanted.dropLast(), window.last!.hasPrefix(wanted.last!) { return true }
        }
      }
    }
    return false
  }

  static func evaluate(_ expression: QueryExpression, _ note: Model) -> Bool {
    switch expression {
    case .all: return true
    case .text(let match): return matches(match, note)
    case .not(let inner): return !evaluate(inner, note)
    case .and(let parts): return parts.allSatisfy { evaluate($0, note) }
    case .or(let parts): return parts.contains { evaluate($0, note) }
    case .filter(let filter):
      switch filter {
      case .tag(let tag):
        let key = NoteRepository.tagKey(tag)
        return note.tags.contains {
          let t = $0.lowercased(); return t == key || t.hasPrefix(key + "/")
        }
      case .notebook(let notebook):
        return notebook.isEmpty || note.notebook == notebook || note.notebook.hasPrefix(notebook + "/")
      case .path(let text): return note.path.lowercased().contains(text.lowercased())
      case .id: return false
      case .date(_, let range): return note.created.map(range.contains) ?? false
      case .hasInk: return note.hasInk
      case .isConflict: return note.isConflict
      // The model's notes hold no links (and link filters are not generated).
      case .linksTo, .linkedBy, .related, .mentions, .hasUnresolved: return false
      case .isOrphan, .isDeadEnd: return true
      }
    }
  }

  struct Generator {
    var random: SplitMix64

    mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
    mutating func count(_ range: ClosedRange<Int>) -> Int {
      range.lowerBound + Int(random.next() % UInt64(range.count))
    }

    mutating func words(_ range: ClosedRange<Int>) -> [String] { (0..<count(range)).map { _ in pick(vocabulary) } }

    mutating func note(path: String) -> Model {
      Model(
        path: path, title: words(1...2).joined(separator: " "),
        tags: Array(Set((0..<count(0...2)).map { _ in pick(tags) })).sorted(),
        body: (0..<count(0...3)).map { _ in words(0...5).joined(separator: " ") }.joined(separator: "\n"),
        created: chance(70) ? Date(timeIntervalSince1970: epoch + Double(count(0...5)) * day) : nil,
        hasInk: chance(20), isConflict: chance(15))
    }

    mutating func variant(_ word: String) -> String {
      switch random.next() % 4 {
      case 0: return word.uppercased()
      case 1: return word.lowercased()
      case 2: return IndexPropertyTests.fold(word)
      default: return word
      }
    }

    mutating func text() -> TextMatch {
      switch random.next() % 5 {
      case 0:
        let word = pick(latin)
        return TextMatch(kind: .prefix, text: variant(String(word.prefix(count(2...max(2, word.count))))))
      case 1:
        return TextMatch(kind: .phrase, text: "\(variant(pick(vocabulary))) \(variant(pick(vocabulary)))")
      case 2:
        return TextMatch(kind: .word, text: variant(pick(vocabulary)), field: .title)
      default:
        return TextMatch(kind: .word, text: variant(pick(vocabulary)))
      }
    }

    mutating func filter() -> QueryFilter {
      switch random.next() % 6 {
      case 0: return .tag(pick(["red", "RED", "#blue", "work", "red/dark", "work/x", "none"]))
      case 1: return .notebook(pick(notebooks.filter { !$0.isEmpty } + ["a/b/c"]))
      case 2: return .hasInk
      case 3: return .isConflict
      case 4: return .path(pick(["a/", "B/", ".md", "n1"]))
      default:
        let lower = chance(70) ? Date(timeIntervalSince1970: epoch + Double(count(0...5)) * day) : nil
        let upper = chance(70) ? Date(timeIntervalSince1970: epoch + Double(count(0...6)) * day) : nil
        return .date(
          .created, DateRange(lower: lower, lowerInclusive: chance(50), upper: upper, upperInclusive: chance(50)))
      }
    }

    mutating func expression(depth: Int) -> QueryExpression {
      if depth == 0 || chance(35) { return chance(55) ? .text(text()) : .filter(filter()) }
      switch random.next() % 4 {
      case 0: return .not(expression(depth: depth - 1))
      case 1: return .or((0..<count(2...3)).map { _ in expression(depth: depth - 1) })
      default: return .and((0..<count(2...3)).map { _ in expression(depth: depth - 1) })
      }
    }
  }

  func write(_ note: Model) throws {
    var text = "---\ntitle: \(note.title)\n"
    if !note.tags.isEmpty { text += "tags: [\(note.tags.joined(separator: ", "))]\n" }
    if let created = note.created {
      text += "created: \(Timestamp(date: created, offsetSeconds: 0).rfc3339)\n"
    }
    if note.isConflict { text += "conflict_of: 00000000-0000-4000-8000-000000000000\n" }
    text += "---\n" + note.body + "\n"
    try write(note.path, text)
    let ink = url(String(note.path.dropLast(3)) + RepoPaths.inkSuffix)
    if note.hasInk {
      try Data("{}\n".utf8).write(to: ink)
    } else {
      try? FileManager.default.removeItem(at: ink)
    }
  }

  func testIndexAgreesWithBruteForce() throws {
    for seed in UInt64(1)...12 {
      var generator = Generator(random: SplitMix64(seed: seed))
      var notes: [String: Model] = [:]
      for i in 0..<generator.count(4...10) {
        let path = RepoPaths.join(generator.pick(Self.notebooks), "n\(i).md")
        notes[path] = generator.note(path: path)
      }
      for note in notes.values { try write(note) }
      for round in 0..<3 {
        if round > 0 {
          // Edits between rounds: rewritten, deleted and new notes, some committed with the git CLI.
          for path in notes.keys.sorted() where generator.chance(30) {
            if generator.chance(30) {
              try FileManager.default.removeItem(at: url(path))
              try? FileManager.default.removeItem(at: url(String(path.dropLast(3)) + RepoPaths.inkSuffix))
              notes[path] = nil
            } else {
              notes[path] = generator.note(path: path)
              try write(notes[path]!)
            }
          }
          let path = RepoPaths.join(generator.pick(Self.notebooks), "r\(round)-\(seed).md")
          notes[path] = generator.note(path: path)
          try write(notes[path]!)
          if generator.chance(50) {
            try git.run("add", "-A")
            try git.run("commit", "-q", "-m", "round \(round)")
          }
        }
        XCTAssertEqual(try repository.allNotes().map(\.path), notes.keys.sorted(), "seed \(seed)")
        for _ in 0..<40 {
          let expression = generator.expression(depth: 3)
          let expected = notes.values.filter { Self.evaluate(expression, $0) }.map(\.path).sorted()
          let actual = try repository.notes(matching: expression, sort: .path).map(\.note.path)
          XCTAssertEqual(actual, expected, "seed \(seed) round \(round): \(expression)")
          XCTAssertEqual(try repository.index.count(expression), expected.count)
        }
      }
      // The next seed starts from an empty work tree.
      for path in notes.keys {
        try FileManager.default.removeItem(at: url(path))
        try? FileManager.default.removeItem(at: url(String(path.dropLast(3)) + RepoPaths.inkSuffix))
      }
    }
  }

  /// Two instances (separate connections, as two processes would have) refreshing and writing at once leave an
  /// index that agrees with the disk.
  func testConcurrentRefreshesLeaveASoundIndex() throws {
    for i in 0..<300 { try write("bulk/\(i % 7)/n\(i).md", "# N\(i)\n\nword\(i % 13) shared\n") }
    let first = try openAnother()
    let second = try openAnother()
    let group = DispatchGroup()
    final class Errors: @unchecked Sendable {
      let lock = NSLock()
      var all: [Error] = []
      func add(_ error: Error) {
        lock.lock()
        all.append(error)
        lock.unlock()
      }
    }
    let errors = Errors()
    for (index, repository) in [first, second].enumerated() {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        do {
          for round in 0..<5 {
            _ = try repository.notes(matching: .text(TextMatch(kind: .word, text: "shared")))
            try Data("# Edit \(index) \(round)\n\nround\(round) by\(index)\n".utf8).write(
              to: self.url("bulk/edit\(index).md"))
            _ = try repository.allNotes()
          }
        } catch {
          errors.add(error)
        }
      }
    }
    group.wait()
    XCTAssertTrue(errors.all.isEmpty, "\(errors.all)")
    let fresh = try openAnother()
    XCTAssertEqual(try fresh.allNotes().count, 302)
    XCTAssertEqual(try fresh.allNotes(), fresh.scanner.notes(in: "", recursive: true))
    XCTAssertEqual(try fresh.count(matching: NoteQuery("shared")), 300)
    XCTAssertEqual(try fresh.count(matching: NoteQuery("round4")), 2)
  }
}

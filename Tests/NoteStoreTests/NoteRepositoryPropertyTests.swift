import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// A seeded random walk of ~200 operations checked against a small in-memory model written from the documented
/// rules (slugs, numbering, tag normalisation, what each operation does to paths), never from nb's output.
final class NoteRepositoryPropertyTests: NoteRepositoryTestCase {
  private struct ModelNote: Equatable {
    var id: String
    var title: String
    var tags: [String]
  }

  private typealias SeededRandom = SplitMix64

  private var notes: [String: ModelNote] = [:]
  private var notebooks: Set<String> = ["inbox"]
  private var lastUpdated: [String: Date] = [:]
  private var expectedCommits = 0

  private let titles = ["Alpha", "Beta Note", "Gamma", "Alpha!"]
  private let notebookNames = ["inbox", "nb-a", "nb-b", "nb-a/sub", "nb-c/deep/er"]
  private let tagPool = ["red", "green", "blue", "Red"]

  private func slug(_ title: String) -> String {
    // Written by hand for the vocabulary above: lower case, runs of other characters become "-", trimmed.
    ["Alpha": "alpha", "Beta Note": "beta-note", "Gamma": "gamma", "Alpha!": "alpha"][title]!
  }

  private func addNotebook(_ path: String) {
    var prefix = ""
    for component in path.split(separator: "/") {
      prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
      notebooks.insert(prefix)
    }
  }

  private func normalized(_ tags: [String]) -> [String] {
    var result: [String] = []
    for tag in tags where !result.contains(tag) { result.append(tag) }
    return result
  }

  private func key(_ tag: String) -> String { tag.lowercased() }

  func testRandomOperationsMatchModel() throws {
    var random = SeededRandom(seed: 20_261_122)
    expectedCommits = try commitCount()
    for step in 0..<200 {
      clock.advance(TimeInterval(random.below(9) - 5))  // sometimes backwards
      let description = try randomStep(&random)
      try check(step: step, description)
    }
    try assertCleanAndSound()
    XCTAssertGreaterThan(notes.count + expectedCommits, 50, "the walk should have done real work")
  }

  /// Performs one random operation on both the repository and the model; returns what it did.
  private func randomStep(_ random: inout SeededRandom) throws -> String {
    let paths = notes.keys.sorted()
    let operation = paths.isEmpty ? 0 : random.below(12)
    switch operation {
    case 0, 1:
      let title = random.pick(titles)
      let notebook = random.pick(notebookNames)
      let tags = (0..<random.below(3)).map { _ in random.pick(tagPool) }
      let created = try repository.createNote(NoteDraft(title: title, notebook: notebook, tags: tags))
      var candidate = slug(title)
      var n = 1
      func taken(_ name: String) -> Bool {
        notes[notebook + "/" + name + ".md"] != nil || notebooks.contains(notebook + "/" + name)
      }
      while taken(candidate) {
        n += 1
        candidate = slug(title) + "-\(n)"
      }
      let path = notebook + "/" + candidate + ".md"
      XCTAssertEqual(created.path, path)
      addNotebook(notebook)
      notes[path] = ModelNote(id: created.id ?? "", title: title, tags: normalized(tags))
      expectedCommits += 1
      return "create \(path)"
    case 2:
      let path = random.pick(paths)
      let title = random.pick(titles)
      try repository.update(try repository.resolve(path), NoteChange(title: title))
      if notes[path]!.title != title { expectedCommits += 1 }
      notes[path]!.title = title
      return "retitle \(path) \(title)"
    case 3:
      let path = random.pick(paths)
      let tags = (0..<random.below(4)).map { _ in random.pick(tagPool) }
      try repository.update(try repository.resolve(path), NoteChange(tags: tags))
      if notes[path]!.tags != normalized(tags) { expectedCommits += 1 }
      notes[path]!.tags = normalized(tags)
      return "set tags \(path) \(tags)"
    case 4:
      let path = random.pick(paths)
      try repository.update(try repository.resolve(path), NoteChange(append: "line \(random.next())\n"))
      expectedCommits += 1
      return "append \(path)"
    case 5:
      let path = random.pick(paths)
      let notebook = random.pick(notebookNames)
      let target = notebook + "/" + RepoPaths.lastComponent(of: path)
      if target == path {
        try repository.move(try repository.resolve(path), to: notebook)
      } else if notes[target] != nil {
        try assertRefusedWithNothingChanged { _ = try repository.move(try repository.resolve(path), to: notebook) }
      } else {
        try repository.move(try repository.resolve(path), to: notebook)
        addNotebook(notebook)
        notes[target] = notes.removeValue(forKey: path)
        expectedCommits += 1
      }
      return "move \(path) -> \(notebook)"
    case 6:
      let path = random.pick(paths)
      try repository.delete(try repository.resolve(path))
      notes[path] = nil
      expectedCommits += 1
      return "delete \(path)"
    case 7:
      let path = random.pick(paths)
      let tag = random.pick(tagPool)
      try repository.addTag(tag, to: try repository.resolve(path))
      if !notes[path]!.tags.contains(where: { key($0) == key(tag) }) {
        notes[path]!.tags.append(tag)
        expectedCommits += 1
      }
      return "add tag \(tag) to \(path)"
    case 8:
      let path = random.pick(paths)
      let tag = random.pick(tagPool)
      try repository.removeTag(tag, from: try repository.resolve(path))
      let remaining = notes[path]!.tags.filter { key($0) != key(tag) }
      if remaining != notes[path]!.tags { expectedCommits += 1 }
      notes[path]!.tags = remaining
      return "remove tag \(tag) from \(path)"
    case 9:
      let old = random.pick(tagPool)
      let new = random.pick(tagPool + ["purple"])
      let changed = try repository.renameTag(old, to: new)
      var affected = 0
      for (path, note) in notes where note.tags.contains(where: { key($0) == key(old) }) {
        affected += 1
        var result: [String] = []
        for tag in note.tags {
          let replacement = key(tag) == key(old) ? new : tag
          if !result.contains(where: { key($0) == key(replacement) }) { result.append(replacement) }
        }
        notes[path]!.tags = result
      }
      XCTAssertEqual(changed, affected)
      if affected > 0 { expectedCommits += 1 }
      return "rename tag \(old) -> \(new)"
    case 10:
      // Notebook operations: rename one to a fresh name, or delete one with everything in it.
      let candidates = notebooks.filter { $0 != "inbox" }.sorted()
      guard !candidates.isEmpty else { return "no notebook to change" }
      let source = random.pick(candidates)
      if random.chance(50) {
        let target = "moved-\(random.below(1000))"
        guard !notebooks.contains(target) else { return "skip rename to existing \(target)" }
        try repository.renameNotebook(source, to: target)
        func moved(_ path: String) -> String { target + path.dropFirst(source.count) }
        notebooks = Set(notebooks.map { RepoPaths.isInside($0, directory: source) ? moved($0) : $0 })
        notes = Dictionary(
          uniqueKeysWithValues: notes.map {
            (RepoPaths.isInside($0.key, directory: source) ? moved($0.key) : $0.key, $0.value)
          })
        expectedCommits += 1
        return "rename notebook \(source) -> \(target)"
      } else {
        try repository.deleteNotebook(source, recursive: true)
        notebooks = notebooks.filter { !RepoPaths.isInside($0, directory: source) }
        notes = notes.filter { !RepoPaths.isInside($0.key, directory: source) }
        expectedCommits += 1
        return "delete notebook \(source)"
      }
    default:
      let tag = random.pick(tagPool)
      let changed = try repository.deleteTag(tag)
      var affected = 0
      for (path, note) in notes where note.tags.contains(where: { key($0) == key(tag) }) {
        affected += 1
        notes[path]!.tags = note.tags.filter { key($0) != key(tag) }
      }
      XCTAssertEqual(changed, affected)
      if affected > 0 { expectedCommits += 1 }
      return "delete tag \(tag)"
    }
  }

  private func check(step: Int, _ description: String) throws {
    let context = "step \(step): \(description)"
    let actual = try repository.allNotes()
    XCTAssertEqual(actual.map(\.path), notes.keys.sorted(), context)
    for note in actual {
      guard let expected = notes[note.path] else { continue }
      XCTAssertEqual(ModelNote(id: note.id ?? "", title: note.title, tags: note.tags), expected, context)
      XCTAssertNil(note.warning, context)
      let updated = try XCTUnwrap(note.updated?.date, context)
      if let previous = lastUpdated[expected.id] { XCTAssertGreaterThanOrEqual(updated, previous, context) }
      lastUpdated[expected.id] = updated
    }
    XCTAssertEqual(try repository.notebooks().map(\.path), notebooks.sorted(), context)
    XCTAssertEqual(try commitCount(), expectedCommits, context)
    if step % 50 == 49 { try assertCleanAndSound() }
  }
}

extension SplitMix64 {
  fileprivate mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
  fileprivate mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
  fileprivate mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

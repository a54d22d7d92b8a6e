import LinkKit
import XCTest

/// Name keys: a resolver over only the files that share a link's key answers it as one over every file does, which
/// is what lets an index resolve the links to one file without every path.
final class NameKeyTests: XCTestCase {
  func testKeysOfFiles() {
    XCTAssertEqual(LinkResolver.nameKey(path: "Notes/Plan.MD"), "plan")
    XCTAssertEqual(LinkResolver.nameKey(path: "img/Saturn.png"), "saturn.png")
    XCTAssertEqual(LinkResolver.nameKey(path: "a.md.md"), "a")
    XCTAssertEqual(LinkResolver.nameKey(path: "v1.2.md"), "v1.2")
    // NFD and NFC spell one key.
    XCTAssertEqual(LinkResolver.nameKey(path: "Cafe\u{301}.md"), LinkResolver.nameKey(path: "Café.md"))
    XCTAssertEqual(LinkResolver.nameKey(path: "Café.md").utf8.count, "café".utf8.count)
  }

  func testKeysOfTargets() {
    XCTAssertEqual(LinkResolver.nameKey(target: "Plan", from: "a.md"), "plan")
    XCTAssertEqual(LinkResolver.nameKey(target: "Projects/Plan.md", from: "a.md"), "plan")
    XCTAssertEqual(LinkResolver.nameKey(target: "/Projects/Plan", from: "a.md"), "plan")
    XCTAssertEqual(LinkResolver.nameKey(target: "", from: "a.md"), "")
    XCTAssertEqual(LinkResolver.nameKey(target: "Projects/", from: "a.md"), "")
    // `.` and `..` are resolved first: the last component that counts may be a folder of the path, or of the note.
    XCTAssertEqual(LinkResolver.nameKey(target: "Projects/Plan/x/..", from: "a.md"), "plan")
    XCTAssertEqual(LinkResolver.nameKey(target: "./..", from: "Work/Deep/n.md"), "work")
    XCTAssertEqual(LinkResolver.nameKey(target: "../../..", from: "Work/n.md"), "")
  }

  static let folders = ["", "a", "a/b", "A", "c/a/b", "Notes", "Zürich", "a/B"]
  static let names = [
    "Plan", "plan", "PLAN", "Café", "Cafe\u{301}", "v1.2", "Notes", "a", "b", "x.md", "index", "Road map",
  ]
  static let extensions = [".md", ".md", ".md", ".MD", ".png", ".pdf", "", ".md.md"]

  func testResolvingOverTheFilesOfOneKeyIsResolvingOverAll() {
    var checked = 0
    var resolved = 0
    var ambiguous = 0
    for seed in UInt64(1)...400 {
      var random = SplitMix64(seed: seed)
      let paths = Self.paths(&random)
      let all = LinkResolver(paths: paths)
      var byKey: [String: [String]] = [:]
      for path in paths { byKey[LinkResolver.nameKey(path: path), default: []].append(path) }
      let sources = paths.filter { $0.lowercased().hasSuffix(".md") } + ["n.md", "a/b/deep.md", "Zürich/n.md"]
      for _ in 0..<60 {
        let source = sources.randomElement(using: &random)!
        let target = Self.target(paths.randomElement(using: &random)!, source, &random)
        let key = LinkResolver.nameKey(target: target, from: source)
        let expected = all.resolve(target: target, from: source)
        let subset = LinkResolver(paths: byKey[key] ?? []).resolve(target: target, from: source)
        XCTAssertEqual(subset, expected, "seed \(seed): \(target) from \(source) (key \(key)) in \(paths)")
        if let path = expected.path { XCTAssertEqual(LinkResolver.nameKey(path: path), key) }
        checked += 1
        if expected.path != nil { resolved += 1 }
        if expected.isAmbiguous { ambiguous += 1 }
      }
    }
    // The cases are not vacuous: most links resolve, some by a tie-break.
    XCTAssertEqual(checked, 24_000)
    XCTAssertGreaterThan(resolved, 10_000)
    XCTAssertGreaterThan(ambiguous, 1_000)
  }

  /// Where `resolveFromAnywhere` answers, every note gets that answer; it answers for most links.
  func testResolutionFromAnywhereIsTheSameFromEveryNote() {
    var answered = 0
    var asked = 0
    for seed in UInt64(1)...300 {
      var random = SplitMix64(seed: seed)
      let paths = Self.paths(&random)
      let resolver = LinkResolver(paths: paths)
      let sources = Self.folders.map { $0.isEmpty ? "n.md" : $0 + "/n.md" } + paths.filter { $0.hasSuffix(".md") }
      for _ in 0..<40 {
        let target = Self.target(paths.randomElement(using: &random)!, sources.randomElement(using: &random)!, &random)
        asked += 1
        guard let shared = resolver.resolveFromAnywhere(target: target) else { continue }
        answered += 1
        for source in sources {
          XCTAssertEqual(
            resolver.resolve(target: target, from: source), shared, "seed \(seed): \(target) from \(source)")
        }
      }
    }
    XCTAssertGreaterThan(answered, asked / 2)
    XCTAssertNil(LinkResolver(paths: ["a/x.md"]).resolveFromAnywhere(target: "./x"))
    XCTAssertNil(LinkResolver(paths: ["a/x.md"]).resolveFromAnywhere(target: ""))
    XCTAssertNil(LinkResolver(paths: ["a/x.md", "b/x.md"]).resolveFromAnywhere(target: "x"))
    XCTAssertEqual(LinkResolver(paths: ["x.md", "b/x.md"]).resolveFromAnywhere(target: "x"), .note("x.md"))
    XCTAssertEqual(LinkResolver(paths: ["a/x.md"]).resolveFromAnywhere(target: "y"), .unresolved)
  }

  /// The positions `find` gives are the files `resolve` names, with the same ambiguity, from every note; and
  /// `findFromAnywhere` answers exactly where `resolveFromAnywhere` does.
  func testFindingByPositionIsResolving() {
    var files = 0
    var ambiguous = 0
    for seed in UInt64(1)...300 {
      var random = SplitMix64(seed: seed)
      let paths = Self.paths(&random)
      let resolver = LinkResolver(paths: paths)
      let sources = resolver.paths.filter { $0.lowercased().hasSuffix(".md") } + ["n.md", "a/b/deep.md"]
      for _ in 0..<40 {
        let source = sources.randomElement(using: &random)!
        let target = Self.target(paths.randomElement(using: &random)!, source, &random)
        let expected = resolver.resolve(target: target, from: source)
        let context = "seed \(seed): \(target) from \(source)"
        switch resolver.find(target: target, from: source) {
        case .file(let index, let isAmbiguous):
          files += 1
          if isAmbiguous { ambiguous += 1 }
          XCTAssertEqual(resolver.paths[index], expected.path, context)
          XCTAssertEqual(isAmbiguous, expected.isAmbiguous, context)
          XCTAssertEqual(resolver.isNote(at: index), expected == .note(expected.path!, others: expected.others))
        case .unresolved: XCTAssertEqual(expected, .unresolved, context)
        }
        let shared = resolver.resolveFromAnywhere(target: target)
        switch resolver.findFromAnywhere(target: target) {
        case nil: XCTAssertNil(shared, context)
        case .unresolved: XCTAssertEqual(shared, .unresolved, context)
        case .file(let index, let isAmbiguous):
          XCTAssertEqual(shared?.path, resolver.paths[index], context)
          XCTAssertEqual(shared?.isAmbiguous, isAmbiguous, context)
        }
      }
    }
    XCTAssertGreaterThan(files, 5_000)
    XCTAssertGreaterThan(ambiguous, 500)
    // A link into the same note finds the note when it is one of the files.
    let resolver = LinkResolver(paths: ["a/n.md", "x.png"])
    XCTAssertEqual(resolver.find(target: "", from: "a/n.md"), .file(0, isAmbiguous: false))
    XCTAssertEqual(resolver.find(target: "", from: "b/n.md"), .unresolved)
    XCTAssertFalse(resolver.isNote(at: 1))
  }

  /// Relative targets are joined to the note's folder component by component, by bytes.
  func testRelativeTargetsJoinTheNotesFolder() {
    let resolver = LinkResolver(paths: ["a/b/x.md", "a/y.md", "z.md", "a/b/c/w.png"])
    XCTAssertEqual(resolver.resolve(target: "./x", from: "a/b/n.md"), .note("a/b/x.md"))
    XCTAssertEqual(resolver.resolve(target: "../y.md", from: "a/b/n.md"), .note("a/y.md"))
    XCTAssertEqual(resolver.resolve(target: "../../z", from: "a/b/n.md"), .note("z.md"))
    XCTAssertEqual(resolver.resolve(target: ".//./c//w.png", from: "a/b/n.md"), .attachment("a/b/c/w.png"))
    XCTAssertEqual(resolver.resolve(target: "./c/../x", from: "a/b/n.md"), .note("a/b/x.md"))
    XCTAssertEqual(resolver.resolve(target: "../../../z", from: "a/b/n.md"), .unresolved)
    XCTAssertEqual(resolver.resolve(target: "..", from: "n.md"), .unresolved)
    XCTAssertEqual(resolver.resolve(target: "./..", from: "a/n.md"), .unresolved)
    XCTAssertEqual(LinkResolver.nameKey(target: "./c/../x", from: "a/b/n.md"), "x")
    XCTAssertEqual(LinkResolver.nameKey(target: "../..", from: "a/b/n.md"), "")
    XCTAssertEqual(LinkResolver.nameKey(target: "./Café", from: "Zürich/n.md"), "café")
  }

  /// 3 to 30 files in the folders above, named from the names and extensions above (cases and spellings that collide).
  static func paths(_ random: inout SplitMix64) -> [String] {
    (0..<Int.random(in: 3...30, using: &random)).map { _ in
      let folder = folders.randomElement(using: &random)!
      let name = names.randomElement(using: &random)! + extensions.randomElement(using: &random)!
      return folder.isEmpty ? name : folder + "/" + name
    }
  }

  /// A way to name `path` from `source`: bare, with or without an extension, a tail, from the root, relative, with
  /// `.`/`..` inside, another case, a folder, climbing out, or another file's name.
  static func target(_ path: String, _ source: String, _ random: inout SplitMix64) -> String {
    let base = path.lowercased().hasSuffix(".md") && Bool.random(using: &random) ? String(path.dropLast(3)) : path
    let components = base.split(separator: "/").map(String.init)
    switch Int.random(in: 0..<12, using: &random) {
    case 0, 1: return components.last!
    case 2: return components.suffix(2).joined(separator: "/")
    case 3: return base
    case 4: return "/" + base
    case 5: return base.uppercased()
    case 6: return base + "/x/.."
    case 7: return "./" + components.last! + "/."
    case 8: return components.dropLast().joined(separator: "/") + "/"
    case 9: return "../../../" + base
    case 10: return names.randomElement(using: &random)! + [".md", "", ".png"].randomElement(using: &random)!
    default:
      let from = source.split(separator: "/").dropLast().map(String.init)
      var common = 0
      while common < from.count, common < components.count - 1, from[common] == components[common] { common += 1 }
      let relative = (Array(repeating: "..", count: from.count - common) + components[common...]).joined(separator: "/")
      return relative.hasPrefix("..") ? relative : "./" + relative
    }
  }
}

import LinkKit
import XCTest

/// Random vaults, random links in every form, a random move: after the rewrite every link that resolved before
/// resolves, with the new resolver from the note's new place, to the same file at its new path — never newly
/// ambiguous — and no byte outside a link's path changed.
final class RewritePropertyTests: XCTestCase {
  static let folders = ["", "a", "a/b", "B", "c/d/e", "Notes", "Zeta zone", "a/B"]
  static let names = ["Plan", "plan", "Notes", "Café", "v1.2", "Road map", "Ideas", "Q3 (draft)", "Zürich", "index"]
  static let extensions = [".md", ".md", ".md", ".md", ".png", ".pdf"]

  func testEveryResolvedLinkStillReachesItsFile() {
    var checked = 0
    var rewritten = 0
    for seed in UInt64(1)...300 {
      var random = SplitMix64(seed: seed)
      let paths = Self.vault(&random)
      let (moves, added) = Self.change(paths, &random)
      var texts: [String: String] = [:]
      for path in paths where path.hasSuffix(".md") { texts[path] = Self.note(at: path, linking: paths, &random) }
      let before = LinkResolver(paths: paths)
      let after = LinkResolver(paths: paths.map { moves[$0] ?? $0 } + added)
      for (source, text) in texts.sorted(by: { $0.key < $1.key }) {
        let newSource = moves[source] ?? source
        let result = LinkRewriter.rewrite(
          text, source: source, newSource: moves[source], moves: moves, before: before, after: after)
        let context =
          "seed \(seed), \(source) -> \(newSource), moves \(moves), added \(added)\n\(text)\n=>\n\(result.text)"
        assertOnlyEditsChanged(text, result)
        XCTAssertEqual(result.unwritable, [], context)
        let old = LinkScanner.links(in: text)
        let new = LinkScanner.links(in: result.text)
        XCTAssertEqual(old.count, new.count, context)
        guard old.count == new.count else { continue }
        rewritten += result.edits.count
        for (was, now) in zip(old, new) {
          XCTAssertEqual(was.kind, now.kind, context)
          XCTAssertEqual(was.headings, now.headings, context)
          XCTAssertEqual(was.block, now.block, context)
          XCTAssertEqual(was.display, now.display, context)
          XCTAssertEqual(was.line, now.line, context)
          let resolved = before.resolve(was, from: source)
          guard let target = resolved.path else { continue }
          let expected = moves[target] ?? target
          let reached = after.resolve(now, from: newSource)
          XCTAssertEqual(reached.path, expected, "link \(was.target) -> \(now.target): \(context)")
          // A path from the root stays one.
          let written = Self.trimmingSlash(was.target).lowercased()
          if written.contains("/"), !written.hasPrefix("."), [written, written + ".md"].contains(target.lowercased()) {
            let spelled = Self.trimmingSlash(now.target).lowercased()
            XCTAssertTrue([spelled, spelled + ".md"].contains(expected.lowercased()), "\(now.target): \(context)")
          }
          if !resolved.isAmbiguous {
            XCTAssertFalse(reached.isAmbiguous, "link \(was.target) -> \(now.target) now ambiguous: \(context)")
          }
          checked += 1
        }
      }
    }
    print("checked \(checked) resolved links, \(rewritten) rewritten")
    XCTAssertGreaterThan(checked, 10_000)
    XCTAssertGreaterThan(rewritten, 1_000)
  }

  /// 5–25 files, no two paths equal ignoring case.
  static func vault(_ random: inout SplitMix64) -> [String] {
    var paths: [String] = []
    var taken = Set<String>()
    for _ in 0..<Int.random(in: 5...25, using: &random) {
      let folder = folders.randomElement(using: &random)!
      let name = names.randomElement(using: &random)! + extensions.randomElement(using: &random)!
      let path = folder.isEmpty ? name : folder + "/" + name
      if taken.insert(path.lowercased()).inserted { paths.append(path) }
    }
    return paths
  }

  /// Moves (a rename, a move to another folder, a folder rename; one to three of them) and sometimes a new file.
  static func change(_ paths: [String], _ random: inout SplitMix64) -> ([String: String], [String]) {
    var moves: [String: String] = [:]
    var final = Set(paths.map { $0.lowercased() })
    func move(_ path: String, to new: String) {
      guard moves[path] == nil, !final.contains(new.lowercased()) else { return }
      final.remove((moves[path] ?? path).lowercased())
      final.insert(new.lowercased())
      moves[path] = new
    }
    for _ in 0..<Int.random(in: 1...3, using: &random) {
      let path = paths.randomElement(using: &random)!
      let folder = String(path.split(separator: "/").dropLast().joined(separator: "/"))
      let name = String(path.split(separator: "/").last!)
      let ext = name.hasSuffix(".md") ? ".md" : String(name[name.lastIndex(of: ".")!...])
      switch Int.random(in: 0..<4, using: &random) {
      case 0:
        let renamed = (names + ["Brand new", "Saturn V"]).randomElement(using: &random)! + ext
        move(path, to: folder.isEmpty ? renamed : folder + "/" + renamed)
      case 1:
        let other = (folders + ["Archive/2024"]).randomElement(using: &random)!
        move(path, to: other.isEmpty ? name : other + "/" + name)
      case 2:
        guard !folder.isEmpty else { continue }
        let renamed = ["Renamed", "Archive/Old", "a/b/c", "B"].randomElement(using: &random)!
        let inside = paths.filter { $0.hasPrefix(folder + "/") }
        // All or nothing: a folder rename that collides is skipped.
        let targets = inside.map { renamed + $0.dropFirst(folder.count) }
        let others = final.subtracting(inside.map { $0.lowercased() })
        guard inside.allSatisfy({ moves[$0] == nil }),
          Set(targets.map { $0.lowercased() }).isDisjoint(with: others)
        else { continue }
        for (old, new) in zip(inside, targets) {
          final.remove(old.lowercased())
          final.insert(new.lowercased())
          moves[old] = new
        }
      default:
        let renamed = names.randomElement(using: &random)! + ext
        let other = folders.randomElement(using: &random)!
        move(path, to: other.isEmpty ? renamed : other + "/" + renamed)
      }
    }
    var added: [String] = []
    if Bool.random(using: &random) {
      let folder = (folders + ["New"]).randomElement(using: &random)!
      let name = names.randomElement(using: &random)! + ".md"
      let path = folder.isEmpty ? name : folder + "/" + name
      if !final.contains(path.lowercased()) { added.append(path) }
    }
    return (moves, added)
  }

  /// A note of prose and 8–20 links in every form, some unresolved, some in code, some in front matter.
  static func note(at source: String, linking paths: [String], _ random: inout SplitMix64) -> String {
    var text = ""
    if Int.random(in: 0..<3, using: &random) == 0 {
      text +=
        "---\ntitle: x\nrelated: \"\(wiki(target(paths.randomElement(using: &random)!, source, &random)))\"\n---\n"
    }
    for _ in 0..<Int.random(in: 8...20, using: &random) {
      let path = paths.randomElement(using: &random)!
      var written = target(path, source, &random)
      if Int.random(in: 0..<12, using: &random) == 0 { written = "Nowhere " + written }
      let fragment = ["", "", "#Part one", "#^b1", "#H1#H2"].randomElement(using: &random)!
      let display = ["", "", "|shown", "|100x145"].randomElement(using: &random)!
      let link: String
      switch Int.random(in: 0..<7, using: &random) {
      case 0: link = wiki(written + fragment + display)
      case 1: link = "!" + wiki(written + fragment + display)
      case 2: link = "[shown](\(encode(written))\(encode(fragment)))"
      case 3: link = "[shown](<\(written)\(fragment)>)"
      case 4: link = "![alt](\(encode(written)))"
      case 5: link = "| cell | \(wiki(written + fragment + display.replacingOccurrences(of: "|", with: "\\|"))) |"
      default: link = "[[#Part one]]"
      }
      let filler = ["Some text ", "- item ", "> quote ", "", "Ünïcödé 🚀 "].randomElement(using: &random)!
      switch Int.random(in: 0..<10, using: &random) {
      case 0: text += "```\n\(link)\n```\n"
      case 1: text += "`\(link)` and \(link)\n"
      default: text += filler + link + (Bool.random(using: &random) ? "\n" : "\r\n")
      }
    }
    return text
  }

  static func wiki(_ inner: String) -> String { "[[" + inner + "]]" }

  static func trimmingSlash(_ target: String) -> String {
    target.hasPrefix("/") ? String(target.drop(while: { $0 == "/" })) : target
  }

  /// How a link may name `path` from `source`: bare, with or without `.md`, a tail, the whole path, `/` from the
  /// root, or relative.
  static func target(_ path: String, _ source: String, _ random: inout SplitMix64) -> String {
    let isNote = path.hasSuffix(".md")
    let base = isNote && Bool.random(using: &random) ? String(path.dropLast(3)) : path
    let components = base.split(separator: "/").map(String.init)
    switch Int.random(in: 0..<6, using: &random) {
    case 0, 1: return components.last!
    case 2: return components.suffix(2).joined(separator: "/")
    case 3: return base
    case 4: return "/" + base
    default:
      let from = source.split(separator: "/").dropLast().map(String.init)
      var common = 0
      while common < from.count, common < components.count - 1, from[common] == components[common] { common += 1 }
      let relative = (Array(repeating: "..", count: from.count - common) + components[common...]).joined(separator: "/")
      return relative.hasPrefix("..") ? relative : "./" + relative
    }
  }

  static func encode(_ text: String) -> String {
    text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: " ", with: "%20")
  }
}

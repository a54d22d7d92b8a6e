import LinkKit
import XCTest

/// Input that must neither trap nor take long: unclosed links, floods of syntax, self links, cycles, odd names.
final class BadInputTests: XCTestCase {
  /// Seconds `body` takes.
  func time(_ body: () -> Void) -> Double {
    let start = Date()
    body()
    return Date().timeIntervalSince(start)
  }

  func testUnclosedLinks() {
    XCTAssertEqual(LinkScanner.links(in: "[[Never closed"), [])
    XCTAssertEqual(LinkScanner.links(in: "[[a\n]] [[b]]").map(\.target), ["b"])
    XCTAssertEqual(LinkScanner.links(in: "[[a [[b]] c]]").map(\.target), ["b"])
    XCTAssertEqual(LinkScanner.links(in: "[[[x]]]").map(\.target), ["x"])
    XCTAssertEqual(LinkScanner.links(in: "![[").count, 0)
    XCTAssertEqual(LinkScanner.links(in: "[x](never closed.md").count, 0)
    XCTAssertEqual(LinkScanner.links(in: "[x](<never closed.md)").count, 0)
    XCTAssertEqual(LinkScanner.links(in: "[").count, 0)
    XCTAssertEqual(LinkScanner.links(in: "]").count, 0)
    XCTAssertEqual(LinkScanner.links(in: "").count, 0)
  }

  func testFloodsOfSyntaxStayLinear() {
    let size = 400_000
    let floods = [
      String(repeating: "[[", count: size / 2),
      String(repeating: "[[a", count: size / 3) + "]]",
      String(repeating: "[", count: size) + "x" + String(repeating: "]", count: size),
      String(repeating: "![", count: size / 2),
      String(repeating: "](", count: size / 2),
      (1...2_000).map { String(repeating: "`", count: $0) + "x" }.joined(),
      String(repeating: "`a", count: size / 2),
      String(repeating: "\\[", count: size / 2),
      String(repeating: "[x](", count: size / 4),
      String(repeating: "[x](<", count: size / 5),
      String(repeating: "[x](a (", count: size / 7),
      String(repeating: "[x](a \"", count: size / 7) + "[x](a)",
      "---\n" + String(repeating: "k: \"[[", count: size / 6) + "\n---\n",
      String(repeating: "```\n", count: size / 4),
    ]
    for flood in floods {
      var links: [NoteLink] = []
      let seconds = time { links = LinkScanner.links(in: flood) }
      XCTAssertLessThan(seconds, 2, "\(flood.prefix(12))…")
      XCTAssertLessThanOrEqual(links.count, 1)
    }
  }

  func testGarbageNeverTraps() {
    var generator = SplitMix64(seed: 7)
    let alphabet = Array("[]()!#|^`\\<>\"' \n-:/.%a".utf8)
    for _ in 0..<300 {
      let bytes = (0..<Int.random(in: 0..<200, using: &generator)).map { _ in alphabet.randomElement(using: &generator)!
      }
      let text = String(decoding: bytes, as: UTF8.self)
      let links = LinkScanner.links(in: text)
      let utf8 = Array(text.utf8)
      for link in links {
        XCTAssertTrue(link.range.lowerBound >= 0 && link.range.upperBound <= utf8.count, text)
        XCTAssertTrue(link.range.contains(link.targetRange.lowerBound) || link.targetRange.isEmpty, text)
        XCTAssertTrue(link.targetRange.upperBound <= link.range.upperBound, text)
      }
      _ = LinkScanner.anchors(in: text)
      _ = LinkScanner.aliases(in: text)
    }
    let binary = String(decoding: (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 151) }, as: UTF8.self)
    _ = LinkScanner.links(in: binary)
  }

  func testHundredThousandLinksInOneNote() {
    var text = "---\nrelated: \"[[Index]]\"\n---\n"
    for index in 0..<50_000 {
      text += "- [[Note \(index)|n\(index)]] and [other](Folder%20\(index % 100)/Other%20\(index).md)\n"
    }
    var links: [NoteLink] = []
    let seconds = time { links = LinkScanner.links(in: text) }
    print("100 001 links (\(text.utf8.count / 1024) KiB) scanned in \(Int(seconds * 1000)) ms")
    XCTAssertEqual(links.count, 100_001)
    XCTAssertEqual(links[100_000].target, "Folder 99/Other 49999.md")
    XCTAssertEqual(links[100_000].line, 50_003)
    XCTAssertLessThan(seconds, 5)

    let paths = (0..<50_000).flatMap { ["Notes/Note \($0).md", "Folder \($0 % 100)/Other \($0).md"] } + ["Index.md"]
    var resolver = LinkResolver(paths: [])
    let build = time { resolver = LinkResolver(paths: paths) }
    var resolved = 0
    let resolving = time {
      for link in links where resolver.resolve(link, from: "Big.md").path != nil { resolved += 1 }
    }
    print(
      "resolver over \(paths.count) paths built in \(Int(build * 1000)) ms;",
      "100 001 links resolved in \(Int(resolving * 1000)) ms"
    )
    XCTAssertEqual(resolved, 100_001)

    var moves: [String: String] = [:]
    for index in stride(from: 0, to: 50_000, by: 2) { moves["Notes/Note \(index).md"] = "Archive/Note \(index).md" }
    moves["Folder 7/Other 7.md"] = "Folder 7/Renamed 7.md"
    let after = LinkResolver(paths: paths.map { moves[$0] ?? $0 })
    var rewrite = LinkRewrite(text: "", edits: [], unwritable: [])
    let rewriting = time {
      rewrite = LinkRewriter.rewrite(text, source: "Big.md", moves: moves, before: resolver, after: after)
    }
    print("rewrite of 100 001 links, \(rewrite.edits.count) edits, in \(Int(rewriting * 1000)) ms")
    // Bare names stay bare after a move; only the renamed file's link changes.
    XCTAssertEqual(rewrite.edits.map(\.new), ["Folder%207/Renamed%207.md"])
    assertOnlyEditsChanged(text, rewrite)
  }

  func testLinkToItselfAndCycles() {
    let paths = ["A.md", "B.md"]
    let before = LinkResolver(paths: paths)
    let a = "[[A]] [[#Top]] [[B]] ![[A#^x]]"
    let b = "[[A]] [[B|me]]"
    XCTAssertEqual(
      LinkScanner.links(in: a).map { before.resolve($0, from: "A.md") },
      [.note("A.md"), .note("A.md"), .note("B.md"), .note("A.md")])
    // Both notes of the cycle renamed at once: each link follows its note.
    let moves = ["A.md": "Alpha.md", "B.md": "Beta.md"]
    let after = LinkResolver(paths: ["Alpha.md", "Beta.md"])
    XCTAssertEqual(
      LinkRewriter.rewrite(a, source: "A.md", newSource: "Alpha.md", moves: moves, before: before, after: after).text,
      "[[Alpha]] [[#Top]] [[Beta]] ![[Alpha#^x]]")
    XCTAssertEqual(
      LinkRewriter.rewrite(b, source: "B.md", newSource: "Beta.md", moves: moves, before: before, after: after).text,
      "[[Alpha]] [[Beta|me]]")
  }

  func testClimbingOutIsNeverFollowedNorRewritten() {
    let paths = ["a/Note.md", "Outside.md"]
    let text = "[x](../../Outside.md) [y](../../../etc/passwd) [[../../../Outside]]"
    let resolver = LinkResolver(paths: paths)
    XCTAssertEqual(
      LinkScanner.links(in: text).map { resolver.resolve($0, from: "a/Note.md") },
      [.unresolved, .unresolved, .unresolved])
    let after = LinkResolver(paths: ["a/Note.md", "Moved.md"])
    let result = LinkRewriter.rewrite(
      text, source: "a/Note.md", moves: ["Outside.md": "Moved.md"], before: resolver, after: after)
    XCTAssertEqual(result.text, text)
  }

  /// Obsidian forbids `#`, `|`, `^`, `:` and brackets in names; a file so named still exists, and the forms that
  /// can name it do.
  func testNamesObsidianForbids() {
    let paths = ["C# notes.md", "C.md", "Either|or.md", "x^y.md", "[draft].md", "draft.md", "a:b.md"]
    let resolver = LinkResolver(paths: paths)
    func resolve(_ link: String) -> LinkResolution { resolver.resolve(LinkScanner.links(in: link)[0], from: "i.md") }
    // In a wiki link `#` starts a heading and `|` the shown text...
    XCTAssertEqual(resolve("[[C# notes]]"), .note("C.md"))
    XCTAssertEqual(LinkScanner.links(in: "[[C# notes]]")[0].headings, ["notes"])
    XCTAssertEqual(resolve("[[Either|or]]").path, nil)
    // ...`^` only after `#`, and `:` is just a character here.
    XCTAssertEqual(resolve("[[x^y]]"), .note("x^y.md"))
    XCTAssertEqual(resolve("[[a:b]]"), .note("a:b.md"))
    // `[[[draft]]]` is the inner link.
    XCTAssertEqual(resolve("[[[draft]]]"), .note("draft.md"))
    // A Markdown link names any of them, percent-encoded.
    XCTAssertEqual(resolve("[x](C%23%20notes.md)"), .note("C# notes.md"))
    XCTAssertEqual(resolve("[x](Either%7Cor.md)"), .note("Either|or.md"))
    XCTAssertEqual(resolve("[x](<[draft].md>)"), .note("[draft].md"))
  }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a seeded generator, so a failure replays on every machine.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

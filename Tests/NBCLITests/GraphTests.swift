import Foundation
import NBTestSupport
import XCTest

/// `nb graph --json | --dot` through the built `nb`: the notes a query selects and the links among them, the DOT
/// read back by Graphviz itself.
final class GraphTests: NBCLITestCase {
  /// Five notes (two named alike) and an attachment; links in several forms, leaving `notebook:work`, into the note
  /// itself, to the attachment, unresolved.
  private func makeVault() throws {
    try makeRepository()
    try write(
      "work/Roadmap.md",
      """
      ---
      title: Roadmap
      ---
      # Goals
      See [[Ideas]], [[#Goals]], ![[chart.png]], [[Nowhere]] and [the brief](../Brief.md).
      This is the [[Roadmap]], and these the [[archive/Ideas|old ideas]].

      """)
    try write("work/Ideas.md", "# Ideas\n[[Roadmap]] and [[Roadmap#Goals|its goals]]\n[[Brief]]\n")
    try write("Brief.md", "The [[work/Roadmap]].\n")
    try write("Lonely.md", "Nothing links here.\n")
    try write("archive/Ideas.md", "Named like work/Ideas.md.\n")
    try write("assets/chart.png", Data([0x89, 0x50]))
  }

  /// `(source, line, path)` of each link in a `--json` graph.
  private func edges(_ graph: [String: Any]) -> [String] {
    (graph["links"] as? [[String: Any]] ?? []).map {
      "\($0["source"] as? String ?? "?"):\($0["line"] as? Int ?? 0) -> \($0["path"] as? String ?? "?")"
    }
  }

  func testJSONHoldsTheNotesAndEveryLinkAmongThem() throws {
    try makeVault()
    let graph = try jsonObject("graph", "--json")
    XCTAssertEqual(Set(graph.keys), ["notes", "links"])
    let notes = try XCTUnwrap(graph["notes"] as? [[String: Any]])
    XCTAssertEqual(
      notes.map { $0["path"] as? String },
      ["Brief.md", "Lonely.md", "archive/Ideas.md", "work/Ideas.md", "work/Roadmap.md"])
    // The same note objects as `nb list --json` prints.
    XCTAssertEqual(Set(notes[0].keys), Set(try jsonArray("list", "--json")[0].keys))
    XCTAssertEqual(
      edges(graph),
      [
        "Brief.md:1 -> work/Roadmap.md", "work/Ideas.md:2 -> work/Roadmap.md", "work/Ideas.md:2 -> work/Roadmap.md",
        "work/Ideas.md:3 -> Brief.md", "work/Roadmap.md:5 -> work/Ideas.md", "work/Roadmap.md:5 -> Brief.md",
        "work/Roadmap.md:6 -> archive/Ideas.md",
      ])
    let links = try XCTUnwrap(graph["links"] as? [[String: Any]])
    // Each link as `nb links --json` shows it, every key present.
    XCTAssertEqual(Set(links[0].keys), Set(try jsonArray("links", "Brief", "--json")[0].keys))
    XCTAssertEqual(links[2]["headings"] as? [String], ["Goals"])
    XCTAssertEqual(links[2]["display"] as? String, "its goals")
    XCTAssertEqual(links[5]["target"] as? String, "../Brief.md")
    XCTAssertEqual(links[5]["kind"] as? String, "markdown")
  }

  func testAQuerySelectsTheNotesAndOnlyLinksBetweenThemRemain() throws {
    try makeVault()
    let work = try jsonObject("graph", "--json", "notebook:work")
    XCTAssertEqual(
      (work["notes"] as? [[String: Any]])?.map { $0["path"] as? String }, ["work/Ideas.md", "work/Roadmap.md"])
    XCTAssertEqual(
      edges(work),
      [
        "work/Ideas.md:2 -> work/Roadmap.md", "work/Ideas.md:2 -> work/Roadmap.md",
        "work/Roadmap.md:5 -> work/Ideas.md",
      ])
    // The link to archive/Ideas.md leaves the selection although a selected note has its name.
    // Another filter of the query language, and one matching nothing: every key still there.
    XCTAssertEqual(edges(try jsonObject("graph", "--json", "linked-by:Brief")), [])
    let empty = try jsonObject("graph", "--json", "no-such-word")
    XCTAssertEqual((empty["notes"] as? [Any])?.count, 0)
    XCTAssertEqual((empty["links"] as? [Any])?.count, 0)
  }

  func testDotIsADigraphGraphvizReadsBack() throws {
    try makeRepository()
    // Names and titles DOT would choke on unquoted: spaces, quotes, a backslash, a keyword, a non-ASCII letter.
    try write("a b/node.md", "---\ntitle: Say \"hi\" \\ there\n---\n[[Zoë]] [[Zoë]] [[Zoë#x]]\n")
    try write("Zoë.md", "[[a b/node]]\n")
    try write("graph.md", "---\ntitle: edge\n---\n[[node]]\n")
    let result = try nbSucceeds("graph", "--dot")
    XCTAssert(result.stdout.hasPrefix("digraph notes {\n"), result.stdout)
    let dot: URL
    do {
      dot = try ProcessRunner.resolve("dot")
    } catch {
      return XCTFail("Graphviz is not installed; install Debian's graphviz (apt-get install graphviz) to run this test")
    }
    // Graphviz's own reading of it, as JSON: node names and labels, and edges by node index.
    let parsed = try ProcessRunner.run(dot, arguments: ["-Tjson"], stdin: result.stdoutData, timeout: 60)
    XCTAssertEqual(parsed.status, 0, parsed.stderr)
    let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: parsed.stdoutData) as? [String: Any])
    let nodes = try XCTUnwrap(object["objects"] as? [[String: Any]])
    let names = nodes.map { $0["name"] as? String ?? "?" }
    // A label keeps its escapes as an attribute (`\\` is one backslash once drawn, below).
    XCTAssertEqual(
      Dictionary(uniqueKeysWithValues: zip(names, nodes.map { $0["label"] as? String ?? "?" })),
      ["a b/node.md": "Say \"hi\" \\\\ there", "graph.md": "edge", "Zoë.md": "Zoë"])
    let pairs = (object["edges"] as? [[String: Any]] ?? []).map { edge in
      names[edge["tail"] as? Int ?? 0] + " -> " + names[edge["head"] as? Int ?? 0]
    }
    // Three links from one note to another are one edge.
    XCTAssertEqual(pairs.sorted(), ["Zoë.md -> a b/node.md", "a b/node.md -> Zoë.md", "graph.md -> a b/node.md"])
    let svg = try ProcessRunner.run(dot, arguments: ["-Tsvg"], stdin: result.stdoutData, timeout: 60)
    XCTAssert(svg.stdout.contains(">Say &quot;hi&quot; \\ there</text>"), svg.stdout)
  }

  func testOneFormatMustBeChosen() throws {
    try makeVault()
    for arguments in [["graph"], ["graph", "--json", "--dot"]] {
      let result = try nb(arguments: arguments)
      XCTAssertNotEqual(result.status, 0)
      XCTAssert(result.stderr.contains("give one of --json or --dot"), result.stderr)
      XCTAssertEqual(result.stdout, "")
    }
  }
}

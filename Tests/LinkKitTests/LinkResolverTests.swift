import LinkKit
import XCTest

/// Resolution: case, paths from the root, bare names, extensions, the tie-break, relative paths.
final class LinkResolverTests: XCTestCase {
  func resolve(_ link: String, from source: String, in paths: [String]) -> LinkResolution {
    LinkResolver(paths: paths).resolve(LinkScanner.links(in: link)[0], from: source)
  }

  func testCaseInsensitive() {
    let paths = ["Physics/Kepler's Laws.md", "img/Saturn.JPG"]
    XCTAssertEqual(resolve("[[kepler's laws]]", from: "a.md", in: paths), .note("Physics/Kepler's Laws.md"))
    XCTAssertEqual(resolve("[[PHYSICS/KEPLER'S LAWS.MD]]", from: "a.md", in: paths), .note("Physics/Kepler's Laws.md"))
    XCTAssertEqual(resolve("![[saturn.jpg]]", from: "a.md", in: paths), .attachment("img/Saturn.JPG"))
  }

  func testWhereOnlyCaseDiffersTheMatchingCaseWins() {
    let paths = ["notes/plan.md", "notes/Plan.md"]
    XCTAssertEqual(
      resolve("[[notes/Plan]]", from: "a.md", in: paths), .note("notes/Plan.md", others: ["notes/plan.md"]))
    XCTAssertEqual(
      resolve("[[notes/plan]]", from: "a.md", in: paths), .note("notes/plan.md", others: ["notes/Plan.md"]))
  }

  func testPathFromTheRootOrBareName() {
    let paths = ["Projects/Apollo/Launch plan.md", "Launch plan.md", "Index.md"]
    XCTAssertEqual(
      resolve("[[Projects/Apollo/Launch plan]]", from: "Index.md", in: paths), .note("Projects/Apollo/Launch plan.md"))
    // The root file is what the bare name's path says: not ambiguous.
    XCTAssertEqual(
      resolve(
        "[[Launch plan]]", from: "Projects/Apollo/x.md", in: ["Launch plan.md", "Projects/Apollo/Launch plan.md"]),
      .note("Launch plan.md"))
    XCTAssertEqual(resolve("[[Index]]", from: "Projects/Apollo/x.md", in: paths), .note("Index.md"))
    // A Markdown link reaches a bare name anywhere too (the help vault's `![…](bases-noshadow.png)`).
    XCTAssertEqual(
      resolve("![x](Saturn.png)", from: "Guides/Sky.md", in: ["Attachments/Saturn.png"]),
      .attachment("Attachments/Saturn.png"))
    // A leading `/` means the root only.
    XCTAssertEqual(resolve("[x](/Launch%20plan.md)", from: "a.md", in: paths), .note("Launch plan.md"))
    XCTAssertEqual(resolve("[x](/Apollo/Launch%20plan.md)", from: "a.md", in: paths), .unresolved)
  }

  func testPathTailMatchesFolderByFolder() {
    let paths = ["Projects/Apollo/Launch plan.md", "Projects/Gemini/Launch plan.md", "Old/Apollo-2/Launch plan.md"]
    XCTAssertEqual(
      resolve("[[Apollo/Launch plan]]", from: "Index.md", in: paths), .note("Projects/Apollo/Launch plan.md"))
    XCTAssertEqual(resolve("[[llo/Launch plan]]", from: "Index.md", in: paths), .unresolved)
  }

  func testMdOptionalForNotesExtensionRequiredForOtherFiles() {
    let paths = ["Mission report.pdf", "Mission report.md", "Saturn.png", "v1.2.md", "Diagram.canvas"]
    XCTAssertEqual(resolve("[[Mission report]]", from: "a.md", in: paths), .note("Mission report.md"))
    XCTAssertEqual(resolve("[[Mission report.md]]", from: "a.md", in: paths), .note("Mission report.md"))
    XCTAssertEqual(
      resolve("![[Mission report.pdf#page=3]]", from: "a.md", in: paths), .attachment("Mission report.pdf"))
    XCTAssertEqual(resolve("![[Saturn]]", from: "a.md", in: paths), .unresolved)
    XCTAssertEqual(resolve("![[Saturn.png|100x145]]", from: "a.md", in: paths), .attachment("Saturn.png"))
    XCTAssertEqual(resolve("[[v1.2]]", from: "a.md", in: paths), .note("v1.2.md"))
    XCTAssertEqual(resolve("![[Diagram.canvas]]", from: "a.md", in: paths), .attachment("Diagram.canvas"))
    XCTAssertEqual(resolve("[x](Mission%20report)", from: "a.md", in: paths), .note("Mission report.md"))
  }

  /// The help vault's own case: `Obsidian Sync/Security and privacy.md` and `Obsidian Publish/Security and
  /// privacy.md`, each linked bare from its own folder.
  func testTieBreakOwnFolderFirst() {
    let paths = ["Sync/Security.md", "Publish/Security.md", "a/b/Security.md"]
    XCTAssertEqual(
      resolve("[[Security]]", from: "Sync/Overview.md", in: paths),
      .note("Sync/Security.md", others: ["a/b/Security.md", "Publish/Security.md"]))
    XCTAssertEqual(
      resolve("[[Security]]", from: "Publish/Overview.md", in: paths),
      .note("Publish/Security.md", others: ["a/b/Security.md", "Sync/Security.md"]))
  }

  func testTieBreakThenShortestPathThenLowercasedPath() {
    let paths = ["zzzz/Note.md", "a/b/Note.md", "Archive/Note.md", "c/d/Note.md"]
    // Shortest path string: `a/b/Note.md` (11 bytes) over `zzzz/Note.md` (12), not fewest folders.
    XCTAssertEqual(
      resolve("[[Note]]", from: "Index.md", in: paths),
      .note("a/b/Note.md", others: ["c/d/Note.md", "zzzz/Note.md", "Archive/Note.md"]))
    // An ancestor folder counts for nothing: from `zzzz/deep/`, still the shortest.
    XCTAssertEqual(resolve("[[Note]]", from: "zzzz/deep/x.md", in: paths).path, "a/b/Note.md")
    XCTAssertEqual(resolve("[[Note]]", from: "zzzz/x.md", in: paths).path, "zzzz/Note.md")
    // Same length: the lowercased path in byte order, so the order of `paths` never matters.
    XCTAssertEqual(resolve("[[N]]", from: "x.md", in: ["b/N.md", "A/N.md", "a/N.md"]).path, "A/N.md")
    XCTAssertEqual(resolve("[[N]]", from: "x.md", in: ["a/N.md", "A/N.md", "b/N.md"]).path, "A/N.md")
  }

  func testExactRootPathBeatsTheOwnFolder() {
    let paths = ["Note.md", "zzzz/Note.md"]
    XCTAssertEqual(resolve("[[Note]]", from: "zzzz/x.md", in: paths), .note("Note.md"))
    XCTAssertEqual(resolve("[[zzzz/Note]]", from: "zzzz/x.md", in: paths), .note("zzzz/Note.md"))
  }

  func testRelativeMarkdownLinks() {
    let paths = ["Guides/Sky/Saturn.md", "Guides/Moons.md", "Saturn.md", "Attachments/ring.png"]
    XCTAssertEqual(resolve("[x](../Moons.md)", from: "Guides/Sky/Saturn.md", in: paths), .note("Guides/Moons.md"))
    XCTAssertEqual(resolve("[x](./Saturn.md)", from: "Guides/Sky/Saturn.md", in: paths), .note("Guides/Sky/Saturn.md"))
    XCTAssertEqual(
      resolve("![x](../../Attachments/ring.png)", from: "Guides/Sky/Saturn.md", in: paths),
      .attachment("Attachments/ring.png"))
    // Explicitly relative: only that path, no name search.
    XCTAssertEqual(resolve("[x](./Moons.md)", from: "Guides/Sky/Saturn.md", in: paths), .unresolved)
    // Relative to the note's folder without `./`: the own-folder step.
    XCTAssertEqual(resolve("[x](Sky/Saturn.md)", from: "Guides/Moons.md", in: paths), .note("Guides/Sky/Saturn.md"))
    // Wiki links read `../` the same way.
    XCTAssertEqual(resolve("[[../Moons]]", from: "Guides/Sky/Saturn.md", in: paths), .note("Guides/Moons.md"))
  }

  func testClimbingOutOfTheRepositoryIsUnresolved() {
    let paths = ["secret.md", "a/b.md"]
    XCTAssertEqual(resolve("[x](../secret.md)", from: "top.md", in: paths), .unresolved)
    XCTAssertEqual(resolve("[x](../../secret.md)", from: "a/b.md", in: paths), .unresolved)
    XCTAssertEqual(resolve("[[a/../../secret]]", from: "a/b.md", in: paths), .unresolved)
    XCTAssertEqual(resolve("[x](../secret.md)", from: "a/b.md", in: paths), .note("secret.md"))
    XCTAssertEqual(resolve("[[a/./../secret]]", from: "x.md", in: paths), .note("secret.md"))
  }

  func testUnresolvedIsReportedNotAnError() {
    XCTAssertEqual(resolve("[[Not yet written]]", from: "a.md", in: []), .unresolved)
    XCTAssertEqual(resolve("[[Folder/]]", from: "a.md", in: ["Folder/x.md"]), .unresolved)
    XCTAssertNil(LinkResolution.unresolved.path)
    XCTAssertFalse(LinkResolution.unresolved.isAmbiguous)
  }

  func testUnicodeNormalisationDoesNotMatter() {
    let nfd = "Cafe\u{301}.md"
    XCTAssertEqual(resolve("[[Caf\u{E9}]]", from: "a.md", in: [nfd]), .note(nfd))
  }

  func testShortestUnambiguousName() {
    let resolver = LinkResolver(paths: [
      "Projects/Apollo/Launch plan.md", "Projects/Gemini/Launch plan.md", "Notes/Unique.md", "Root.md",
      "Attachments/Saturn.png", "Sky/Saturn.png", "Sync/Security.md", "Publish/Security.md",
    ])
    XCTAssertEqual(resolver.shortestUnambiguousName(for: "Notes/Unique.md", from: "x.md"), "Unique")
    XCTAssertEqual(resolver.shortestUnambiguousName(for: "Root.md", from: "x.md"), "Root")
    XCTAssertEqual(
      resolver.shortestUnambiguousName(for: "Projects/Apollo/Launch plan.md", from: "x.md"), "Apollo/Launch plan")
    XCTAssertEqual(resolver.shortestUnambiguousName(for: "Sky/Saturn.png", from: "x.md"), "Sky/Saturn.png")
    // From its own folder the bare name would reach it, but only by the tie-break: not unambiguous.
    XCTAssertEqual(resolver.shortestUnambiguousName(for: "Sync/Security.md", from: "Sync/Overview.md"), "Sync/Security")
    XCTAssertEqual(resolver.shortestUnambiguousName(for: "Missing/File.md", from: "x.md"), "Missing/File")
  }
}

import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `nb links`, `nb backlinks`, `nb check links` and the link filters of the query language, end to end through the
/// built `nb`, on small vaults written for these tests.
final class LinksTests: NBCLITestCase {
  /// A vault of notes linking each other in every form Obsidian reads, with attachments.
  private func makeVault() throws {
    try makeRepository()
    try write(
      "work/Roadmap.md",
      """
      ---
      title: Roadmap
      aliases: [Plan of record]
      related: "[[Ideas]]"
      ---
      # Goals
      Ship it. ^goal1

      See [[#Goals]] and [[Ideas#Later|later ideas]], ![[chart.png|300]] and [the brief](../Brief.md).

      """)
    try write(
      "Ideas.md",
      """
      # Ideas
      Back to [[Roadmap]], to [[work/Roadmap#Goals]] and [[Roadmap#^goal1]].
      ![[Roadmap]] is embedded; [spec](<work/Roadmap.md>) too, and ![img](assets/chart.png).
      `[[Roadmap]]` in code is no link, nor is \\[[Roadmap]].
      [[Nowhere]] is not written yet.

      """)
    try write("Brief.md", "The brief names the Roadmap without linking it, and the plan of record.\n")
    try write("Lonely.md", "Nothing links here and this links nowhere.\n")
    try write("assets/chart.png", Data([0x89, 0x50, 0x4E, 0x47]))
  }

  // MARK: - links

  func testLinksListsEveryFormWithWhatItReaches() throws {
    try makeVault()
    let links = try jsonArray("links", "work/Roadmap", "--json")
    XCTAssertEqual(links.map { $0["target"] as? String }, ["Ideas", "", "Ideas", "chart.png", "../Brief.md"])
    XCTAssertEqual(links.map { $0["kind"] as? String }, ["wiki", "wiki", "wiki", "embed", "markdown"])
    XCTAssertEqual(links.map { $0["line"] as? Int }, [4, 9, 9, 9, 9])
    XCTAssertEqual(
      links.map { $0["path"] as? String }, ["Ideas.md", "work/Roadmap.md", "Ideas.md", "assets/chart.png", "Brief.md"])
    XCTAssertEqual(links.map { $0["resolution"] as? String }, ["note", "note", "note", "attachment", "note"])
    XCTAssertEqual(links.map { $0["front_matter"] as? Bool }, [true, false, false, false, false])
    XCTAssertEqual(links[1]["headings"] as? [String], ["Goals"])
    XCTAssertEqual(links[2]["headings"] as? [String], ["Later"])
    XCTAssertEqual(links[2]["display"] as? String, "later ideas")
    XCTAssertEqual(links[3]["display"] as? String, "300")
    XCTAssertEqual(links[4]["display"] as? String, "the brief")
    XCTAssertEqual(links[0]["text"] as? String, "related: \"[[Ideas]]\"")

    let ideas = try jsonArray("links", "Ideas", "--json")
    XCTAssertEqual(ideas.count, 7, "code spans and escaped brackets are no links: \(ideas)")
    XCTAssertEqual(ideas.last?["target"] as? String, "Nowhere")
    XCTAssertEqual(ideas.last?["resolution"] as? String, "unresolved")
    XCTAssertTrue(ideas.last?["path"] is NSNull)
    XCTAssertEqual(ideas[2]["block"] as? String, "goal1")
    XCTAssertEqual(ideas[4]["kind"] as? String, "markdown")
    XCTAssertEqual(ideas[5]["kind"] as? String, "image")
    XCTAssertEqual(ideas[5]["path"] as? String, "assets/chart.png")

    // Text: line, kind, the link as written, where it goes; no colour off a terminal.
    let text = try nbSucceeds("links", "Ideas").stdout
    XCTAssertTrue(text.contains("2  wiki      Roadmap  -> work/Roadmap.md"), text)
    XCTAssertTrue(text.contains("2  wiki      work/Roadmap#Goals  -> work/Roadmap.md"), text)
    XCTAssertTrue(text.contains("2  wiki      Roadmap#^goal1  -> work/Roadmap.md"), text)
    XCTAssertTrue(text.contains("5  wiki      Nowhere  unresolved"), text)
    XCTAssertFalse(text.contains("\u{1B}["), "colour off a terminal")
    let own = try nbSucceeds("links", "work/Roadmap").stdout
    XCTAssertTrue(own.contains("wiki      #Goals  (this note)"), own)
    XCTAssertTrue(own.contains("(front matter)"), own)
  }

  // MARK: - backlinks

  func testBacklinksFindEveryFormWithLineAndText() throws {
    try makeVault()
    let backlinks = try jsonArray("backlinks", "work/Roadmap.md", "--json")
    XCTAssertEqual(
      backlinks.map { "\($0["source"] as? String ?? "?"):\($0["line"] as? Int ?? 0)" },
      ["Ideas.md:2", "Ideas.md:2", "Ideas.md:2", "Ideas.md:3", "Ideas.md:3", "work/Roadmap.md:9"])
    XCTAssertEqual(
      backlinks.map { $0["kind"] as? String }, ["wiki", "wiki", "wiki", "embed", "markdown", "wiki"])
    XCTAssertEqual(
      backlinks[0]["text"] as? String, "Back to [[Roadmap]], to [[work/Roadmap#Goals]] and [[Roadmap#^goal1]].")
    XCTAssertEqual(backlinks[0]["source_title"] as? String, "Ideas")
    XCTAssertEqual(backlinks.last?["target"] as? String, "", "a link into the note itself")
    // A title selects the note as any NOTE does.
    XCTAssertEqual(try jsonArray("backlinks", "roadmap", "--json").count, 6)

    let text = try nbSucceeds("backlinks", "work/Roadmap").stdout
    XCTAssertTrue(text.hasPrefix("Ideas.md:2  Back to [[Roadmap]]"), text)
    XCTAssertEqual(try nbSucceeds("backlinks", "work/Roadmap", "--count").stdout, "2\n")
    let counts = try jsonObject("backlinks", "work/Roadmap", "--count", "--json")
    XCTAssertEqual(counts["notes"] as? Int, 2)
    XCTAssertEqual(counts["links"] as? Int, 6)

    // An attachment's backlinks, by path.
    let chart = try jsonArray("backlinks", "assets/chart.png", "--json")
    XCTAssertEqual(chart.map { $0["source"] as? String }, ["Ideas.md", "work/Roadmap.md"])
    XCTAssertEqual(try jsonArray("backlinks", "Lonely", "--json").count, 0)
  }

  func testBacklinksFollowEditsMadeOutsideNb() throws {
    try makeVault()
    XCTAssertEqual(try nbSucceeds("backlinks", "Lonely", "--count").stdout, "0\n")
    // An editor saves a new link (no nb, no commit): the next command sees it.
    try write("Brief.md", "Now the brief links [[Lonely]].\n")
    XCTAssertEqual(try nbSucceeds("backlinks", "Lonely").stdout, "Brief.md:1  Now the brief links [[Lonely]].\n")
    // A commit by git itself, a new note linking, and the link edited away again.
    try write("notes/New.md", "Also [[lonely]].\n")
    try gitCommitAll()
    XCTAssertEqual(try nbSucceeds("backlinks", "Lonely", "--count").stdout, "2\n")
    try write("Brief.md", "No links any more.\n")
    XCTAssertEqual(try nbSucceeds("backlinks", "Lonely").stdout, "notes/New.md:1  Also [[lonely]].\n")
    // The linking note deleted.
    try FileManager.default.removeItem(at: url("notes/New.md"))
    XCTAssertEqual(try nbSucceeds("backlinks", "Lonely", "--count").stdout, "0\n")
  }

  /// Answering backlinks opens no note: the index alone answers (Linux: inotify reports every file opened in the
  /// watched folders). The index is brought up to date by stat data, which opens nothing either.
  func testBacklinksOpenNoNote() throws {
    #if os(Linux)
      try makeVault()
      // Past the racy window (a file read within 2 s of its write is read again next time), then indexed.
      Thread.sleep(forTimeInterval: 2.2)
      try nbSucceeds("list")
      let watcher = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      XCTAssertGreaterThanOrEqual(watcher, 0)
      defer { close(watcher) }
      for folder in ["", "work", "assets"] {
        XCTAssertGreaterThanOrEqual(inotify_add_watch(watcher, url(folder).path, UInt32(IN_OPEN)), 0)
      }
      let answer = try nbSucceeds("backlinks", "work/Roadmap.md", "--json").stdout
      XCTAssertTrue(answer.contains("Ideas.md"))
      var opened: [String] = []
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let count = Glibc.read(watcher, &buffer, buffer.count)
        if count <= 0 { break }
        var offset = 0
        while offset < count {
          let length = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8 | Int(buffer[offset + 14]) << 16
          let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
          if !nameBytes.isEmpty { opened.append(String(decoding: nameBytes, as: UTF8.self)) }
          offset += 16 + length
        }
      }
      XCTAssertEqual(opened.filter { $0.hasSuffix(".md") }, [], "notes opened to answer backlinks")
    #endif
  }

  // MARK: - check links

  func testCheckLinksReportsUnresolvedAndAmbiguousWithExitStatus() throws {
    try makeRepository()
    try write("a/Plan.md", "# Plan\n")
    try write("index.md", "Start at [[Plan]].\n")
    var result = try nb("check", "links")
    XCTAssertEqual(result.status, 0, result.stderr)
    XCTAssertEqual(
      result.stdout, "1 link in 1 of 2 notes: 1 to notes, 0 within a note, 0 to attachments; 0 unresolved, 0 ambiguous\n")

    // A note nb adds with the same name has the bare link written longer in the same commit (RenameLinksTests);
    // a file of that name from elsewhere (an editor, a sync) makes it ambiguous: the shorter path still wins, but
    // CI hears of it.
    try nbSucceeds("add", "Plan", "--notebook", "c", "--content", "a plan nb adds")
    XCTAssertEqual(try String(decoding: read("index.md"), as: UTF8.self), "Start at [[a/Plan]].\n")
    XCTAssertEqual(try nb("check", "links").status, 0)
    try nbSucceeds("delete", "c/plan")
    try write("index.md", "Start at [[Plan]].\n")
    try write("b/deeper/plan.md", "another plan\n")
    result = try nb("check", "links")
    XCTAssertEqual(result.status, 1, result.stderr)
    XCTAssertTrue(
      result.stdout.hasPrefix("index.md:1: ambiguous wiki link 'Plan' reaches a/Plan.md; also b/deeper/plan.md\n"),
      result.stdout)
    XCTAssertEqual(try nb("backlinks", "a/Plan", "--count").stdout, "1\n")

    try write("index.md", "Start at [[a/Plan]], then [[Missing#Part]] and ![](img/none.png).\n")
    result = try nb("check", "links", "--json")
    XCTAssertEqual(result.status, 1)
    let check = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    XCTAssertEqual(
      Set(check.keys),
      ["links", "notes", "notes_with_links", "to_notes", "same_note", "to_attachments", "unresolved", "ambiguous",
       "problems"])
    XCTAssertEqual(check["links"] as? Int, 3)
    XCTAssertEqual(check["unresolved"] as? Int, 2)
    XCTAssertEqual(check["ambiguous"] as? Int, 0)
    let problems = try XCTUnwrap(check["problems"] as? [[String: Any]])
    XCTAssertEqual(problems.map { $0["target"] as? String }, ["Missing", "img/none.png"])
    XCTAssertEqual(problems.map { $0["problem"] as? String }, ["unresolved", "unresolved"])
    XCTAssertEqual(problems.first?["headings"] as? [String], ["Part"])
    for problem in problems { XCTAssertEqual(Set(problem.keys), Self.linkKeys.union(["problem"])) }

    // The attachment arrives (outside nb): that link resolves; `nb check` alone is `nb check links`.
    try write("img/none.png", Data([1]))
    result = try nb("check")
    XCTAssertEqual(result.status, 1)
    XCTAssertTrue(result.stdout.contains("index.md:1: unresolved wiki link 'Missing#Part' reaches no file"))
    XCTAssertFalse(result.stdout.contains("none.png"), result.stdout)
    try write("index.md", "Fixed.\n")
    XCTAssertEqual(try nb("check", "links").status, 0)
  }

  func testCheckUsageErrorsExit2() throws {
    try makeRepository()
    for arguments in [["check", "links", "--bogus"], ["check", "links", "extra"], ["check", "nothing"]] {
      let result = try nb(arguments: arguments)
      XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
      XCTAssertTrue(result.stderr.hasPrefix("Error: "), result.stderr)
    }
    let outside = try nb("check", "links", "--dir", temp.file("nowhere").path)
    XCTAssertEqual(outside.status, 2, outside.stderr)
    // The other commands' errors name their argument.
    let missing = try nb("backlinks", "No such note")
    XCTAssertEqual(missing.status, 1)
    XCTAssertTrue(missing.stderr.contains("no note matches 'No such note'"), missing.stderr)
    XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)
    XCTAssertEqual(try nb("links", "nope").status, 1)
  }

  // MARK: - Query filters

  func testLinkFiltersComposeWithTheQueryLanguage() throws {
    try makeVault()
    try write(
      "Cousin.md",
      """
      ---
      tags: [x]
      ---
      Also about [[Ideas]], and the Roadmap, unlinked.

      """)
    func paths(_ query: String) throws -> [String] {
      try jsonArray("list", query, "--json").compactMap { $0["path"] as? String }
    }
    XCTAssertEqual(try paths("links-to:work/Roadmap"), ["Ideas.md", "work/Roadmap.md"])
    XCTAssertEqual(try paths("links-to:Roadmap -links-to:Roadmap"), [])
    XCTAssertEqual(try paths("links-to:assets/chart.png"), ["Ideas.md", "work/Roadmap.md"])
    XCTAssertEqual(try paths("linked-by:Ideas"), ["work/Roadmap.md"])
    XCTAssertEqual(try paths("linked-by:work/Roadmap"), ["Brief.md", "Ideas.md", "work/Roadmap.md"])
    XCTAssertEqual(try paths("links-to:Ideas tag:x"), ["Cousin.md"])
    XCTAssertEqual(try paths("has:unresolved"), ["Ideas.md"])
    XCTAssertEqual(try paths("is:orphan"), ["Lonely.md"])
    XCTAssertEqual(try paths("is:dead-end"), ["Brief.md", "Lonely.md"])
    XCTAssertEqual(try paths("-is:dead-end"), ["Cousin.md", "Ideas.md", "work/Roadmap.md"])
    // Cousin links to Ideas as Roadmap does, and neither links to the other.
    XCTAssertEqual(try paths("related:Cousin"), ["work/Roadmap.md"])
    // Brief and Cousin name the Roadmap (by title or alias) without linking it; Ideas links it.
    XCTAssertEqual(try paths("mentions:Roadmap"), ["Brief.md", "Cousin.md"])
    XCTAssertEqual(try nbSucceeds("search", "--count", "links-to:Roadmap OR is:orphan").stdout, "3\n")
    XCTAssertEqual(try nbSucceeds("search", "--count", "notebook:work links-to:Roadmap").stdout, "1\n")

    // A NOTE that names nothing is a query error at its filter, exit 2.
    let result = try nb("search", "tag:x links-to:\"No such\"")
    XCTAssertEqual(result.status, 2)
    XCTAssertEqual(
      result.stderr,
      "Error: query column 7 ('links-to:\"No such\"'): no note matches 'No such'; give a path, id or title "
        + "(or a file's path); see 'nb help search'\n")
    XCTAssertEqual(try nb("list", "linked-by:assets/chart.png").status, 2, "only notes have links")
  }

  // MARK: - Bad input

  func testBadInputs() throws {
    try makeRepository()
    let outside = temp.file("secret.md")
    try "outside the repository\n".write(to: outside, atomically: true, encoding: .utf8)
    try write(
      "a/Self.md",
      """
      [[Self]] links itself; [[ never closed
      [up](../../secret.md) and [[../../secret]] climb out of the repository.
      [[Other]] and back.

      """)
    try write("Other.md", "[[a/Self]] closes a cycle.\n")
    let links = try jsonArray("links", "a/Self", "--json")
    XCTAssertEqual(links.map { $0["target"] as? String }, ["Self", "../../secret.md", "../../secret", "Other"])
    XCTAssertEqual(
      links.map { $0["path"] as? String }, ["a/Self.md", nil, nil, "Other.md"], "never followed out of the repository")
    // A link to itself is a backlink of itself; a cycle is two backlinks, nothing loops.
    XCTAssertEqual(
      try jsonArray("backlinks", "a/Self", "--json").map { $0["source"] as? String }, ["Other.md", "a/Self.md"])
    XCTAssertEqual(try jsonArray("list", "is:orphan", "--json").count, 0)
    // A note linking only itself links nowhere else.
    try write("Alone.md", "[[Alone]] and [[#Top]]\n")
    XCTAssertEqual(try jsonArray("list", "is:orphan", "--json").compactMap { $0["path"] as? String }, ["Alone.md"])

    // 100 000 links in one note, all to one note: each a row, counted and listed.
    var flood = ""
    for i in 0..<100_000 { flood += i % 5 == 4 ? "[[Other]]\n" : "[[Other]] " }
    try write("Flood.md", flood)
    let check = try nb("check", "links", "--json")
    let counts = try XCTUnwrap(JSONSerialization.jsonObject(with: check.stdoutData) as? [String: Any])
    XCTAssertEqual(counts["links"] as? Int, 100_007)
    XCTAssertEqual(counts["unresolved"] as? Int, 2)
    XCTAssertEqual(try nbSucceeds("backlinks", "Other", "--count").stdout, "2\n")
    let flooded = try jsonObject("backlinks", "Other", "--count", "--json")
    XCTAssertEqual(flooded["links"] as? Int, 100_001)
    let listed = try nbSucceeds("links", "Flood").stdout.split(separator: "\n")
    XCTAssertEqual(listed.count, 100_000)
    XCTAssertEqual(listed.last, "20000  wiki      Other  -> Other.md")
    let backlinks = try nbSucceeds("backlinks", "Other").stdout.split(separator: "\n")
    XCTAssertEqual(backlinks.last, "a/Self.md:3  [[Other]] and back.")
    XCTAssertEqual(backlinks[backlinks.count - 2], "Flood.md:20000  [[Other]] [[Other]] [[Other]] [[Other]] [[Other]]")

    // One line of 100 000 links: each link's text is a window around it, not the whole line (which would make the
    // index quadratic in the line's length).
    try write("Flood.md", String(repeating: "[[Other]] ", count: 100_000))
    XCTAssertEqual(try jsonObject("backlinks", "Other", "--count", "--json")["links"] as? Int, 100_001)
    try write("Wide.md", String(repeating: "[[Other]] ", count: 1000))
    let windows = try jsonArray("links", "Wide", "--json")
    XCTAssertEqual(windows.count, 1000)
    let middle = try XCTUnwrap(windows[500]["text"] as? String)
    XCTAssertTrue(middle.hasPrefix("…") && middle.hasSuffix("…") && middle.utf8.count < 200, middle)
    XCTAssertTrue(middle.contains("[[Other]] [[Other]] [[Other]]"), middle)
  }

  func testCaseAccentsAndAttachmentFolders() throws {
    try makeRepository()
    // The file's name decomposed (as macOS writes it), the link precomposed and in capitals.
    try write("Cafe\u{301}.md", "# Café\n")
    try write("menu.md", "Lunch at [[CAFÉ]].\n")
    XCTAssertEqual(try jsonArray("backlinks", "Cafe\u{301}", "--json").map { $0["source"] as? String }, ["menu.md"])
    // `nb attach` links a file in the note's attachment folder; the index knows that folder's files.
    try write("scan.pdf", Data([0x25, 0x50, 0x44, 0x46]))
    try nbSucceeds("attach", "menu", url("scan.pdf").path)
    let links = try jsonArray("links", "menu", "--json")
    XCTAssertEqual(links.last?["path"] as? String, "menu.files/scan.pdf", "\(links)")
    XCTAssertEqual(
      try jsonArray("backlinks", "menu.files/scan.pdf", "--json").map { $0["source"] as? String }, ["menu.md"])
    try FileManager.default.removeItem(at: url("menu.files/scan.pdf"))
    XCTAssertEqual(try jsonArray("links", "menu", "--json").last?["resolution"] as? String, "unresolved")
  }

  /// The keys every link object has, in `links`, `backlinks` and `check links` (README's JSON table).
  static let linkKeys: Set<String> = [
    "source", "source_title", "line", "kind", "target", "headings", "block", "display", "front_matter", "text",
    "resolution", "path", "others", "ambiguous",
  ]

  func testJSONShapes() throws {
    try makeVault()
    for arguments in [["links", "Ideas", "--json"], ["backlinks", "work/Roadmap", "--json"]] {
      let links = try jsonArray(arguments: arguments)
      XCTAssertFalse(links.isEmpty)
      for link in links {
        XCTAssertEqual(Set(link.keys), Self.linkKeys, "\(arguments)")
        XCTAssertTrue(link["others"] is [String])
        XCTAssertTrue(link["headings"] is [String])
        XCTAssertTrue(link["ambiguous"] is Bool)
        XCTAssertTrue(link["block"] is NSNull || link["block"] is String)
        XCTAssertTrue(link["display"] is NSNull || link["display"] is String)
      }
    }
    XCTAssertEqual(try nbSucceeds("links", "Lonely", "--json").stdout, "[\n\n]\n")
  }
}

import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Writing links: `nb rename`, `nb move`, `nb notebook rename` and `nb add` keep every link working, in the same
/// commit, changing nothing but the bytes of the links that had to change. End to end through the built `nb`, on
/// vaults shaped like a real one (nested folders, one name in two folders, embeds with sizes, headings, block ids,
/// tables, percent-encoded and `<…>` Markdown links) — written for these tests.
final class RenameLinksTests: NBCLITestCase {
  /// A vault named the way Obsidian names notes (file name = title, no front matter), as a person wrote it.
  private func makeVault() throws {
    try makeRepository()
    try write("Research notes/Old name.md", "Old name's own text.\n\n## Part two\nA block. ^b7e9\n")
    try write(
      "Index.md",
      """
      # Index
      See [[Old name]], [[old name|shown text]] and [[Old name#Part two]] — also ![[Old name#^b7e9]].
      | Column | Link |
      |---|---|
      | one | [[Old name\\|cell text]] |
      Markdown: [a](Research%20notes/Old%20name.md), [b](<Research notes/Old name.md>), [c](Research%20notes/Old%20name#Part%20two "t").
      Not [[Old named]], nor `[[Old name]]` in code.
      ![[Apollo.png|100x145]] and [[Apollo]] stay.

      """)
    try write(
      "Projects/Deep/Nested.md",
      """
      ---
      related: "[[Old name]]"
      tags: [x]
      ---
      Relative: [up](../../Research%20notes/Old%20name.md) and [[Research notes/Old name|by path]].

      """)
    try write("Projects/Apollo.md", "Apollo in projects. Links [[Old name#^b7e9]].\n")
    try write("Archive/Apollo.md", "Apollo archived.\n")
    try write("Apollo.png", Data([0x89, 0x50, 0x4E, 0x47]))
    try write("Research notes/Old named.md", "A different note.\n")
    try write("Lonely.md", "Links [[Index]] only.\n")
    try gitCommitAll("vault")
  }

  /// How many links `nb check links` finds unresolved (the vault holds one ambiguous `[[Apollo]]` on purpose, so
  /// its exit status is 1 whatever a rename does).
  private func brokenLinks(file: StaticString = #filePath, line: UInt = #line) throws -> Int {
    let check = try nb("check", "links", "--json")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: check.stdoutData) as? [String: Any], check.stderr, file: file, line: line)
    return try XCTUnwrap(json["unresolved"] as? Int, "\(json)", file: file, line: line)
  }

  /// The files the last commit changed, as `git diff --name-status --no-renames` lists them (the real git CLI).
  private func lastCommitChanges() throws -> [String] {
    try git.run("diff", "--name-status", "--no-renames", "HEAD~1", "HEAD")
      .split(separator: "\n").map { String($0).replacingOccurrences(of: "\t", with: " ") }
  }

  /// Every word git's word diff says the last commit removed or added in `path`: `[-old-]{+new+}` pairs.
  private func wordChanges(_ path: String) throws -> [String] {
    let diff = try git.run(
      "diff", "--word-diff=plain", "--word-diff-regex=[^][()|#<>\"! ]+", "HEAD~1", "HEAD", "--", path)
    let pattern = try NSRegularExpression(pattern: "\\[-[^\\]]*-\\]|\\{\\+[^}]*\\+\\}")
    let range = NSRange(diff.startIndex..., in: diff)
    return pattern.matches(in: diff, range: range).compactMap { Range($0.range, in: diff).map { String(diff[$0]) } }
  }

  func testRenameRewritesOnlyTheLinkBytesInOneCommit() throws {
    try makeVault()
    let commits = try commitCount()
    let before = try snapshot()
    let result = try jsonObject("rename", "Research notes/Old name", "New name", "--json")
    XCTAssertEqual(result["from"] as? String, "Research notes/Old name.md")
    XCTAssertEqual(result["to"] as? String, "Research notes/New name.md", "named by its title, so named as typed")
    XCTAssertEqual(result["title"] as? String, "New name")
    XCTAssertEqual(result["update_links"] as? Bool, true)
    XCTAssertEqual(result["commit"] as? String, try git.revParse("HEAD"))
    XCTAssertEqual((result["unwritable"] as? [Any])?.count, 0)
    XCTAssertEqual((result["unreadable"] as? [Any])?.count, 0)
    let rewritten = try XCTUnwrap(result["rewritten"] as? [[String: Any]])
    XCTAssertEqual(
      rewritten.map { $0["path"] as? String }, ["Index.md", "Projects/Apollo.md", "Projects/Deep/Nested.md"])
    XCTAssertEqual(rewritten.map { $0["links"] as? Int }, [8, 1, 3])
    XCTAssertEqual(rewritten.map { $0["disambiguated"] as? Int }, [0, 0, 0])
    XCTAssertEqual(try commitCount(), commits + 1, "one commit")

    // Byte for byte: each file is what it was with exactly the link paths replaced.
    XCTAssertEqual(
      try String(decoding: read("Index.md"), as: UTF8.self),
      """
      # Index
      See [[New name]], [[New name|shown text]] and [[New name#Part two]] — also ![[New name#^b7e9]].
      | Column | Link |
      |---|---|
      | one | [[New name\\|cell text]] |
      Markdown: [a](Research%20notes/New%20name.md), [b](<Research notes/New name.md>), [c](Research%20notes/New%20name#Part%20two "t").
      Not [[Old named]], nor `[[Old name]]` in code.
      ![[Apollo.png|100x145]] and [[Apollo]] stay.

      """)
    XCTAssertEqual(
      try String(decoding: read("Projects/Deep/Nested.md"), as: UTF8.self),
      """
      ---
      related: "[[New name]]"
      tags: [x]
      ---
      Relative: [up](../../Research%20notes/New%20name.md) and [[Research notes/New name|by path]].

      """)
    XCTAssertEqual(
      try String(decoding: read("Projects/Apollo.md"), as: UTF8.self), "Apollo in projects. Links [[New name#^b7e9]].\n"
    )
    // The renamed note itself has no front matter and no heading: its bytes are the same, under the new name.
    XCTAssertEqual(try read("Research notes/New name.md"), before.files["Research notes/Old name.md"])

    // git as the oracle: exactly these files in the commit, and every changed word a link's old or new name.
    XCTAssertEqual(
      try lastCommitChanges().sorted(),
      [
        "A Research notes/New name.md", "D Research notes/Old name.md", "M Index.md", "M Projects/Apollo.md",
        "M Projects/Deep/Nested.md",
      ])
    for path in ["Index.md", "Projects/Apollo.md", "Projects/Deep/Nested.md"] {
      let words = try wordChanges(path)
      XCTAssertFalse(words.isEmpty, path)
      for word in words {
        // Removed words are the old name's, added ones the new name's: git sees no other change.
        let removed = word.hasPrefix("[-")
        XCTAssert(
          removed ? word.lowercased().contains("old") : word.contains("New"),
          "\(path): git shows a change outside a link: \(word)")
      }
    }
    // Every other file, byte for byte.
    let after = try snapshot()
    for (path, data) in before.files
    where !["Index.md", "Projects/Apollo.md", "Projects/Deep/Nested.md", "Research notes/Old name.md"].contains(path)
      && !path.hasPrefix(".git/")
    {
      XCTAssertEqual(after.files[path], data, "\(path) changed")
    }
    // Nothing left broken, and the backlinks follow.
    XCTAssertEqual(try brokenLinks(), 0)
    XCTAssertEqual(try jsonObject("backlinks", "Research notes/New name", "--count", "--json")["links"] as? Int, 12)
  }

  func testBareLinksToAnotherNoteBecomeTheShortestUnambiguousPath() throws {
    try makeVault()
    try write("Home.md", "Go to [[Gemini]], [[Target]] and [[Target|the target]]; ![[Target#Goals]].\n")
    try write("Space/Gemini.md", "Gemini.\n")
    try write("Work/2024/Target.md", "The only Target so far.\n")
    try gitCommitAll("more")
    // Space/Gemini is renamed Target: the bare links that meant Work/2024/Target must now say which.
    let result = try nb("rename", "Space/Gemini", "Target", "--json")
    XCTAssertEqual(result.status, 0, result.stderr)
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    let rewritten = try XCTUnwrap(json["rewritten"] as? [[String: Any]])
    XCTAssertEqual(rewritten.map { $0["path"] as? String }, ["Home.md"])
    XCTAssertEqual(rewritten.map { $0["links"] as? Int }, [4])
    XCTAssertEqual(rewritten.map { $0["disambiguated"] as? Int }, [3])
    // `[[Gemini]]` follows its note; `Target` is two notes now, so even the renamed one is written with its folder.
    XCTAssertEqual(
      try String(decoding: read("Home.md"), as: UTF8.self),
      "Go to [[Space/Target]], [[2024/Target]] and [[2024/Target|the target]]; ![[2024/Target#Goals]].\n")
    // Said on standard error, one line per link.
    XCTAssertEqual(
      result.stderr.split(separator: "\n").filter { $0.contains("made it ambiguous") }.count, 3, result.stderr)
    XCTAssert(result.stderr.contains("Home.md:1: link 'Target' rewritten as '2024/Target'"), result.stderr)
    XCTAssertEqual(try brokenLinks(), 0)
  }

  func testAddingANoteKeepsExistingBareLinksWhereTheyPointed() throws {
    try makeRepository()
    try write("Projects/Plan.md", "The plan.\n")
    try write("Index.md", "[[Plan]], [[Plan#Steps|steps]] and [p](Plan.md) and [[Plan.md]].\n")
    try gitCommitAll("seed")
    let commits = try commitCount()
    // A new `Plan` at the root is what `[[Plan]]` would reach first: the links keep reaching Projects/Plan.
    let added = try nb("add", "Plan", "--notebook", "", "--content", "A new root plan.")
    XCTAssertEqual(added.status, 0, added.stderr)
    XCTAssertEqual(try commitCount(), commits + 1, "the note and the rewritten links in one commit")
    XCTAssertEqual(
      try String(decoding: read("Index.md"), as: UTF8.self),
      "[[Projects/Plan]], [[Projects/Plan#Steps|steps]] and [p](Projects/Plan.md) and [[Projects/Plan.md]].\n")
    XCTAssertEqual(try lastCommitChanges().sorted(), ["A plan.md", "M Index.md"])
    XCTAssertEqual(added.stderr.split(separator: "\n").count, 4, added.stderr)
    XCTAssert(added.stderr.contains("Index.md:1: link 'Plan' rewritten as 'Projects/Plan'"), added.stderr)
    // --json says the same, every key present.
    try write("Projects/Goal.md", "Goal.\n")
    try write("Other.md", "[[Goal]] [[Goal|g]]\n")
    try gitCommitAll("goal")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: try nbSucceeds("add", "Goal", "--notebook", "", "--json").stdoutData)
        as? [String: Any])
    XCTAssertEqual(json["path"] as? String, "goal.md")
    XCTAssertEqual((json["disambiguated"] as? [[String: Any]])?.map { $0["path"] as? String }, ["Other.md"])
    XCTAssertEqual((json["disambiguated"] as? [[String: Any]])?.map { $0["links"] as? Int }, [2])
    XCTAssertEqual(try String(decoding: read("Other.md"), as: UTF8.self), "[[Projects/Goal]] [[Projects/Goal|g]]\n")
    let plain = try XCTUnwrap(
      JSONSerialization.jsonObject(with: try nbSucceeds("add", "Unrelated", "--json").stdoutData) as? [String: Any])
    XCTAssertEqual((plain["disambiguated"] as? [Any])?.count, 0)
    // `[p](Plan.md)` too: resolved as Obsidian resolves, ignoring case, the new root plan.md would take it.
    XCTAssertEqual(try brokenLinks(), 0)
  }

  func testRenameOntoAnExistingNameIsRefusedWithNothingChanged() throws {
    try makeVault()
    try assertRefused(
      ["rename", "Research notes/Old name", "Old named"],
      mentioning: ["Research notes/Old named.md", "already exists", "choose another title"])
    // An nb note is named by its slug: a title whose slug is taken is refused too.
    try nbSucceeds("add", "Roadmap", "--notebook", "work")
    try nbSucceeds("add", "Other", "--notebook", "work")
    try assertRefused(
      ["rename", "work/other", "ROADMAP"], mentioning: ["work/roadmap.md", "already exists", "choose another title"])
    // Unknown note, empty title: one line each, nothing changed.
    try assertRefused(["rename", "nowhere", "X"], mentioning: ["nowhere"])
    try assertRefused(["rename", "work/other", "  "], mentioning: ["title"])
  }

  func testNamesObsidianForbidsAreRefusedOrSlugged() throws {
    try makeVault()
    for bad in ["C# notes", "a|b", "Ref ^1", "[draft]", "x:y"] {
      try assertRefused(
        ["rename", "Research notes/Old name", bad], mentioning: ["Obsidian forbids", "choose a title"])
    }
    // A note nb named by slug keeps its title as typed; the file name drops the characters.
    try nbSucceeds("add", "Roadmap", "--notebook", "work")
    let renamed = try jsonObject("rename", "work/roadmap", "C# | notes [v2]", "--json")
    XCTAssertEqual(renamed["to"] as? String, "work/c-notes-v2.md")
    XCTAssertEqual(renamed["title"] as? String, "C# | notes [v2]")
  }

  func testFrontMatterTitleAndMatchingHeadingFollowTheRename() throws {
    try makeRepository()
    try nbSucceeds(
      "add", "Weekly sync", "--notebook", "work", "--template", "meeting", env: ["NB_NOW": "2026-01-02T10:00:00Z"])
    try write("Other.md", "See [[weekly-sync]] and [m](work/weekly-sync.md).\n")
    try write("Free.md", "---\ntitle: Free form\n---\n# A heading of my own\nbody\n")
    try gitCommitAll("other")
    let before = try String(decoding: read("work/weekly-sync.md"), as: UTF8.self)
    XCTAssert(before.contains("# Weekly sync\n"), before)
    let renamed = try nbSucceeds(
      "rename", "work/weekly-sync", "Monthly sync", "--json", env: ["NB_NOW": "2026-02-03T10:00:00Z"])
    let result = try XCTUnwrap(JSONSerialization.jsonObject(with: renamed.stdoutData) as? [String: Any])
    XCTAssertEqual(result["to"] as? String, "work/monthly-sync.md")
    let after = try String(decoding: read("work/monthly-sync.md"), as: UTF8.self)
    XCTAssert(after.contains("title: Monthly sync\n"), after)
    XCTAssert(after.contains("# Monthly sync\n"), after)
    XCTAssert(after.contains("updated: 2026-02-03"), "an edit of an nb note is stamped: \(after)")
    XCTAssertEqual(
      try String(decoding: read("Other.md"), as: UTF8.self), "See [[monthly-sync]] and [m](work/monthly-sync.md).\n")
    // A heading that is not the title is the person's text: only `title:` and the file name change.
    try nbSucceeds("rename", "Free", "Bound form")
    let free = try String(decoding: read("bound-form.md"), as: UTF8.self)
    XCTAssert(free.contains("\ntitle: Bound form\n"), free)
    XCTAssert(free.contains("# A heading of my own\nbody\n"), free)
  }

  func testNoUpdateLinksLeavesThemAsTheyWere() throws {
    try makeVault()
    let index = try read("Index.md")
    let result = try nbSucceeds("rename", "Research notes/Old name", "New name", "--no-update-links", "--json")
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    XCTAssertEqual(json["update_links"] as? Bool, false)
    XCTAssertEqual((json["rewritten"] as? [Any])?.count, 0)
    XCTAssertEqual(try read("Index.md"), index)
    XCTAssertEqual(try lastCommitChanges().sorted(), ["A Research notes/New name.md", "D Research notes/Old name.md"])
    XCTAssertEqual(try brokenLinks(), 12, "the links are broken now, as asked")
  }

  func testMoveRewritesLinksToItAndItsOwnRelativeLinks() throws {
    try makeVault()
    try write("work/Roadmap.md", "[brief](../Brief.md), [[Brief]], [idx](<../Index.md>) and ![img](../Apollo.png).\n")
    try write("Brief.md", "[r](work/Roadmap.md) [[work/Roadmap|the roadmap]] [[Roadmap]].\n")
    try gitCommitAll("work")
    let result = try jsonObject("move", "work/Roadmap", "work/archive/2024", "--json")
    XCTAssertEqual(result["to"] as? String, "work/archive/2024/Roadmap.md")
    XCTAssertEqual(
      try String(decoding: read("work/archive/2024/Roadmap.md"), as: UTF8.self),
      "[brief](../../../Brief.md), [[Brief]], [idx](<../../../Index.md>) and ![img](../../../Apollo.png).\n")
    XCTAssertEqual(
      try String(decoding: read("Brief.md"), as: UTF8.self),
      "[r](work/archive/2024/Roadmap.md) [[work/archive/2024/Roadmap|the roadmap]] [[Roadmap]].\n")
    XCTAssertEqual(
      try lastCommitChanges().sorted(),
      [
        "A work/archive/2024/.notebook.yaml", "A work/archive/2024/Roadmap.md", "A work/archive/.notebook.yaml",
        "D work/Roadmap.md", "M Brief.md",
      ].sorted())
    XCTAssertEqual(try brokenLinks(), 0)
  }

  func testNotebookRenameRewritesLinksIntoAndOutOfIt() throws {
    try makeVault()
    let result = try nb("notebook", "rename", "Projects", "areas/space", "--json")
    XCTAssertEqual(result.status, 0, result.stderr)
    // Links into it: a path from the root follows; bare names that are still unique stay bare.
    XCTAssertEqual(
      try String(decoding: read("areas/space/Deep/Nested.md"), as: UTF8.self),
      """
      ---
      related: "[[Old name]]"
      tags: [x]
      ---
      Relative: [up](../../../Research%20notes/Old%20name.md) and [[Research notes/Old name|by path]].

      """)
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    XCTAssertEqual(
      (json["rewritten"] as? [[String: Any]])?.map { $0["path"] as? String }, ["areas/space/Deep/Nested.md"])
    XCTAssertEqual(try brokenLinks(), 0)
    try write("Map.md", "[[areas/space/Apollo]] and [d](areas/space/Deep/Nested.md)\n")
    try gitCommitAll("map")
    try nbSucceeds("notebook", "rename", "areas", "zones")
    XCTAssertEqual(
      try String(decoding: read("Map.md"), as: UTF8.self),
      "[[zones/space/Apollo]] and [d](zones/space/Deep/Nested.md)\n")
  }

  func testSameNameInTwoFoldersFollowsTheOwnFolderRule() throws {
    // As the help vault's `Obsidian Sync/` and `Obsidian Publish/` each hold a `Security and privacy` note, linked
    // bare from inside each folder: the bare link reaches its own folder's note, and a move out of the folder must
    // keep it there.
    try makeRepository()
    try write("Sync/Security and privacy.md", "Sync security.\n")
    try write("Publishing/Security and privacy.md", "Publish security.\n")
    try write(
      "Publishing/Overview.md", "Read [[Security and privacy#Encryption|security]] and [[Sync/Security and privacy]].\n"
    )
    try gitCommitAll("two folders")
    try nbSucceeds("move", "Publishing/Overview", "archive")
    XCTAssertEqual(
      try String(decoding: read("archive/Overview.md"), as: UTF8.self),
      "Read [[Publishing/Security and privacy#Encryption|security]] and [[Sync/Security and privacy]].\n")
    XCTAssertEqual(try brokenLinks(), 0)
  }

  func testNotebookRenameMovesAttachmentsAndTheirLinksFollow() throws {
    try makeRepository()
    try write("Attachments/Chart 1.png", Data([0x89, 0x50, 0x4E, 0x47]))
    try write(
      "Report.md", "![[Chart 1.png|300]] ![chart](Attachments/Chart%201.png) ![[Attachments/Chart 1.png|100x145]]\n")
    try gitCommitAll("attachments")
    let result = try nbSucceeds("notebook", "rename", "Attachments", "media")
    XCTAssert(result.stdout.contains("rewrote 2 links in 1 note"), result.stdout)
    XCTAssertEqual(
      try String(decoding: read("Report.md"), as: UTF8.self),
      "![[Chart 1.png|300]] ![chart](media/Chart%201.png) ![[media/Chart 1.png|100x145]]\n")
    XCTAssertEqual(try brokenLinks(), 0)
  }

  func testANoteNbCannotParseHasItsLinkBytesRewrittenAndNothingElse() throws {
    try makeVault()
    let broken = "---\ntitle: [unclosed\nrelated: \"[[Old name]]\"\n---\nBody links [[Old name|it]].\n"
    try write("Broken.md", broken)
    try gitCommitAll("broken")
    let result = try jsonObject("rename", "Research notes/Old name", "New name", "--json")
    XCTAssert(((result["rewritten"] as? [[String: Any]]) ?? []).contains { $0["path"] as? String == "Broken.md" })
    XCTAssertEqual(
      try String(decoding: read("Broken.md"), as: UTF8.self),
      broken.replacingOccurrences(of: "[[Old name", with: "[[New name"))
  }

  func testTagRenameLeavesEveryLinkAlone() throws {
    // No link form names a tag (`#x` in a wiki link is a heading, and tags are no files), so a tag rename
    // rewrites front matter `tags` only.
    try makeVault()
    try write("Tagged.md", "---\ntags: [x]\n---\n[[Old name#x]] [[x]] #x\n")
    try gitCommitAll("tagged")
    try nbSucceeds("tag", "rename", "x", "y")
    XCTAssert(try String(decoding: read("Tagged.md"), as: UTF8.self).contains("[[Old name#x]] [[x]] #x\n"))
  }

  /// Links written in edits nobody committed — saved by vim (a new file renamed over the note), written in place
  /// (nano, VS Code), in a new note — after the index last saw the tree are rewritten like any other: the rename
  /// looks at the work tree as it is, not at the last commit or at what the index last recorded.
  func testLinksInUncommittedEditsAreRewritten() throws {
    try makeVault()
    // The index is built and up to date before the edits, so only a look at the work tree can find them.
    try nbSucceeds("backlinks", "Research notes/Old name")
    let lonely = "Links [[Index]] only.\nAnd now [[Old name#Part two]] too.\n"
    try write("Lonely.md.tmp-vim", lonely)
    XCTAssertEqual(rename(url("Lonely.md.tmp-vim").path, url("Lonely.md").path), 0)
    let handle = try FileHandle(forWritingTo: url("Archive/Apollo.md"))
    try handle.write(contentsOf: Data("Apollo archived. [x](../Research%20notes/Old%20name.md)\n".utf8))
    try handle.close()
    try write("Drafts/New idea.md", "An idea about [[Old name|the old one]].\n")
    let result = try jsonObject("rename", "Research notes/Old name", "New name", "--json")
    let rewritten = try XCTUnwrap(result["rewritten"] as? [[String: Any]]).compactMap { $0["path"] as? String }
    XCTAssert(
      Set(["Lonely.md", "Archive/Apollo.md", "Drafts/New idea.md"]).isSubset(of: Set(rewritten)), "\(rewritten)")
    XCTAssertEqual(
      try String(decoding: read("Lonely.md"), as: UTF8.self),
      "Links [[Index]] only.\nAnd now [[New name#Part two]] too.\n")
    XCTAssertEqual(
      try String(decoding: read("Archive/Apollo.md"), as: UTF8.self),
      "Apollo archived. [x](../Research%20notes/New%20name.md)\n")
    XCTAssertEqual(
      try String(decoding: read("Drafts/New idea.md"), as: UTF8.self), "An idea about [[New name|the old one]].\n")
    XCTAssertEqual(try brokenLinks(), 0)
  }

  func testKilledRenameLeavesAllOrNothing() throws {
    try makeRepository()
    let count = 300
    for i in 0..<count { try write("notes/n\(i).md", "Note \(i) links [[Target A]] and [t](../Target%20A.md).\n") }
    try write("Target A.md", "The target.\n")
    try gitCommitAll("seed")
    var current = "Target A"
    let started = Date()
    try nbSucceeds("rename", current, "Target B")
    let duration = Date().timeIntervalSince(started)
    current = "Target B"
    var tries = 0
    let deadline = Date().addingTimeInterval(25)
    while Date() < deadline {
      tries += 1
      let next = current == "Target A" ? "Target B" : "Target A"
      let process = try launchNB(["rename", current, next])
      Thread.sleep(forTimeInterval: Double.random(in: 0...(duration * 1.1)))
      process.terminate(SIGKILL)
      _ = try process.wait(timeout: 120)
      try nbSucceeds("save")
      XCTAssertEqual(try git.statusPorcelain(), "", "try \(tries): the work tree differs from HEAD")
      let linkingNew = ((try? git.run("grep", "-l", "\\[\\[\(next)\\]\\]", "HEAD", "--", "notes")) ?? "")
        .split(separator: "\n").count
      let linkingOld = ((try? git.run("grep", "-l", "\\[\\[\(current)\\]\\]", "HEAD", "--", "notes")) ?? "")
        .split(separator: "\n").count
      let fileNew = FileManager.default.fileExists(atPath: url(next + ".md").path)
      XCTAssert(
        (linkingNew == count && linkingOld == 0 && fileNew) || (linkingNew == 0 && linkingOld == count && !fileNew),
        "try \(tries): \(linkingOld) notes link \(current), \(linkingNew) link \(next), new file: \(fileNew)")
      if fileNew { current = next }
    }
    XCTAssertEqual(try brokenLinks(), 0)
    try git.fsck()
  }
}

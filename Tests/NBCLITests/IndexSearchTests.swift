import Foundation
import NBTestSupport
import XCTest

/// The search index through the built `nb`: fresh after every kind of change a person or another tool makes,
/// repaired when damaged, and answering what a scan of the files answers. The git CLI makes the foreign changes.
final class IndexSearchTests: NBCLITestCase {
  private var indexDirectory: URL { url(".git/nb/index") }

  /// Paths `nb search QUERY --json --limit 0` finds, sorted.
  private func found(_ query: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
    let result = try nb("search", query, "--json", "--all")
    XCTAssertEqual(result.status, 0, "nb search \(query): \(result.stderr)", file: file, line: line)
    let array = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]], file: file, line: line)
    return array.compactMap { $0["path"] as? String }.sorted()
  }

  /// Paths in the order `nb search` ranks them.
  private func ranked(_ query: String) throws -> [String] {
    let result = try nbSucceeds("search", query, "--json")
    let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]])
    return array.compactMap { $0["path"] as? String }
  }

  private func note(_ title: String, tags: [String] = [], body: String) -> String {
    "---\ntitle: \(title)\ntags: [\(tags.joined(separator: ", "))]\n---\n\(body)\n"
  }

  // MARK: - Freshness

  func testAnUncommittedEditNewFileAndDeletionAreSearchableAtOnce() throws {
    try makeRepository()
    try write("work/a.md", note("Alpha", body: "the zebra crossing"))
    try write("work/b.md", note("Beta", body: "a quiet lagoon"))
    try gitCommitAll()
    XCTAssertEqual(try found("zebra"), ["work/a.md"])
    // Edited in place by another editor, never committed.
    try write("work/a.md", note("Alpha", body: "the okapi crossing"))
    XCTAssertEqual(try found("zebra"), [])
    XCTAssertEqual(try found("okapi"), ["work/a.md"])
    try write("work/deep/c.md", note("Gamma", body: "okapi again"))
    XCTAssertEqual(try found("okapi"), ["work/a.md", "work/deep/c.md"])
    try FileManager.default.removeItem(at: url("work/a.md"))
    XCTAssertEqual(try found("okapi"), ["work/deep/c.md"])
    XCTAssertEqual(
      try jsonArray("list", "--json").compactMap { $0["path"] as? String }, ["work/b.md", "work/deep/c.md"])
  }

  func testGitCommitResetAndCheckoutByTheGitCLIAreFollowed() throws {
    try makeRepository()
    try write("notes/one.md", note("One", body: "first heron"))
    try gitCommitAll("one")
    XCTAssertEqual(try found("heron"), ["notes/one.md"])
    try write("notes/two.md", note("Two", body: "second heron"))
    try gitCommitAll("two")
    XCTAssertEqual(try found("heron"), ["notes/one.md", "notes/two.md"])
    try git.run("reset", "-q", "--hard", "HEAD~1")
    XCTAssertEqual(try found("heron"), ["notes/one.md"])

    try git.run("checkout", "-q", "-b", "other")
    try write("notes/three.md", note("Three", body: "a third heron on another branch"))
    try gitCommitAll("three")
    XCTAssertEqual(try found("heron"), ["notes/one.md", "notes/three.md"])
    try git.run("checkout", "-q", "main")
    XCTAssertEqual(try found("heron"), ["notes/one.md"])
    try git.run("checkout", "-q", "other")
    XCTAssertEqual(try found("third"), ["notes/three.md"])
    XCTAssertEqual(try nbSucceeds("search", "--count", "heron").stdout, "2\n")
  }

  func testSyncBringingRemoteChangesIsSearchable() throws {
    try makeRepository()
    try write("notes/local.md", note("Local", body: "kestrel at home"))
    try nbSucceeds("save")
    let remotes = try temp.directory("remotes")
    let bare = remotes.appendingPathComponent("r.git")
    try GitCLI(workTree: remotes, home: home).run("init", "-q", "--bare", "--initial-branch=main", "r.git")
    try nbSucceeds("remote", "add", "origin", bare.path)
    try nbSucceeds("sync")
    XCTAssertEqual(try found("kestrel"), ["notes/local.md"])

    try GitCLI(workTree: remotes, home: home).run("clone", "-q", bare.path, "other")
    let otherRoot = remotes.appendingPathComponent("other")
    let other = try GitCLI(workTree: otherRoot, home: home)
    try Data(note("Remote", body: "kestrel far away").utf8).write(
      to: otherRoot.appendingPathComponent("notes/remote.md"))
    try FileManager.default.removeItem(at: otherRoot.appendingPathComponent("notes/local.md"))
    try other.run("add", "-A")
    try other.run("commit", "-q", "-m", "from the other device")
    try other.run("push", "-q", "origin", "main")

    try nbSucceeds("sync")
    XCTAssertEqual(try found("kestrel"), ["notes/remote.md"])
  }

  // MARK: - Damage

  func testADeletedTruncatedOrGarbageIndexIsRebuiltAndSaysSo() throws {
    try makeRepository()
    for i in 0..<30 {
      try write(
        "n/\(i).md",
        note("Note \(i)", tags: i % 3 == 0 ? ["three"] : [], body: "common word \(i % 2 == 0 ? "even" : "odd")"))
    }
    try gitCommitAll()
    let evens = (0..<30).filter { $0 % 2 == 0 }.map { "n/\($0).md" }.sorted()
    XCTAssertEqual(try found("even"), evens)
    let database = try XCTUnwrap(
      FileManager.default.contentsOfDirectory(atPath: indexDirectory.path).first { $0.hasSuffix(".sqlite") },
      "the index lives under .git/nb/index")
    let file = indexDirectory.appendingPathComponent(database)

    let damages: [(String, () throws -> Void)] = [
      ("deleted", { try FileManager.default.removeItem(at: self.indexDirectory) }),
      (
        "truncated",
        {
          let handle = try FileHandle(forWritingTo: file)
          try handle.truncate(atOffset: 1000)
          try handle.close()
        }
      ),
      ("garbage", { try Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: file) }),
    ]
    for (name, damage) in damages {
      _ = try found("even")  // the index exists again before each damage
      // Remove WAL side files too when damaging, as a crash or a careless copy would leave them inconsistent.
      try damage()
      let result = try nb("search", "even", "--json", "--all")
      XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
      let paths = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]])
        .compactMap { $0["path"] as? String }.sorted()
      XCTAssertEqual(paths, evens, name)
      if name != "deleted" {
        XCTAssert(result.stderr.contains("index"), "\(name): no notice of the repair: \(result.stderr)")
      }
      XCTAssertEqual(try nbSucceeds("search", "--count", "tag:three").stdout, "10\n", name)
    }
    XCTAssertEqual(try git.statusPorcelain(), "", "the index is never in the work tree")
  }

  func testTwoProcessesIndexingAtOnceBothAnswerRight() throws {
    try makeRepository()
    for i in 0..<400 { try write("n/\(i / 50)/\(i).md", note("Note \(i)", body: "word\(i % 7) filler text")) }
    try gitCommitAll()
    let processes = try (0..<4).map { i in
      try launchNB(i % 2 == 0 ? ["reindex"] : ["search", "--count", "word3"])
    }
    for process in processes {
      let result = try process.wait(timeout: 120)
      XCTAssertEqual(result.status, 0, result.stderr)
    }
    XCTAssertEqual(try nbSucceeds("search", "--count", "word3").stdout, "\((0..<400).filter { $0 % 7 == 3 }.count)\n")
  }

  func testAKillDuringAFullIndexIsRepairedByTheNextCommand() throws {
    try makeRepository()
    for i in 0..<3000 {
      let body = String(repeating: "lorem ipsum dolor \(i % 11) ", count: 20) + (i % 5 == 0 ? "marker" : "")
      try write("bulk/\(i / 100)/\(i).md", note("Bulk \(i)", body: body))
    }
    try gitCommitAll()
    let started = Date()
    try nbSucceeds("reindex")
    let duration = Date().timeIntervalSince(started)
    for attempt in 0..<4 {
      let process = try launchNB(["reindex"])
      Thread.sleep(forTimeInterval: duration * Double(attempt + 1) / 5)
      process.terminate(SIGKILL)
      _ = try process.wait(timeout: 60)
      XCTAssertEqual(try nbSucceeds("search", "--count", "marker").stdout, "600\n", "attempt \(attempt)")
    }
  }

  // MARK: - The language

  func testQueryForms() throws {
    try makeRepository()
    try write(
      "work/plan.md",
      "---\ntitle: Quarterly plan\ntags: [planning, work/q3]\ncreated: 2026-01-10T09:00:00Z\nupdated: 2026-02-01T09:00:00Z\n---\nThe roadmap for the quarter.\n"
    )
    try write(
      "work/draft.md",
      "---\ntitle: Draft\ntags: [planning, draft]\ncreated: 2025-12-01T09:00:00Z\nupdated: 2025-12-02T09:00:00Z\n---\nA roadmap draft with planets.\n"
    )
    try write(
      "life/trip.md",
      "---\ntitle: Trip\ntags: [travel]\ncreated: 2026-03-01T09:00:00Z\nupdated: 2026-03-05T09:00:00Z\n---\nPlan the trip; quarterly budget.\n"
    )
    try write("life/ink.md", "---\ntitle: Sketch\n---\nA drawing.\n")
    try write("life/ink.ink.jsonl", "{\"nb-ink\":1}\n")
    try write(
      "work/plan.conflict-20260101T000000Z-laptop.md",
      "---\ntitle: Quarterly plan (conflict)\nconflict_of: abc\n---\nThe roadmap, older.\n")
    try gitCommitAll()
    let plan = "work/plan.md"
    let draft = "work/draft.md"
    let trip = "life/trip.md"
    let copy = "work/plan.conflict-20260101T000000Z-laptop.md"
    XCTAssertEqual(try found("roadmap"), [copy, draft, plan].sorted())
    XCTAssertEqual(try found("roadmap quarter"), [plan])
    XCTAssertEqual(try found("\"quarterly plan\""), [copy, plan].sorted())
    XCTAssertEqual(try found("plan*"), [copy, draft, plan, trip].sorted(), "plan, planets, planning tag")
    XCTAssertEqual(try found("trip OR draft"), [draft, trip].sorted())
    XCTAssertEqual(try found("roadmap -draft"), [copy, plan])
    XCTAssertEqual(try found("roadmap -tag:draft"), [copy, plan])
    XCTAssertEqual(try found("(trip OR budget) quarterly"), [trip])
    XCTAssertEqual(try found("tag:planning"), [draft, plan])
    XCTAssertEqual(try found("tag:work"), [plan], "a nested tag is under its parent")
    XCTAssertEqual(try found("#travel"), [trip])
    XCTAssertEqual(try found("notebook:work"), [copy, draft, plan].sorted())
    XCTAssertEqual(try found("notebook:life -has:ink"), [trip])
    XCTAssertEqual(try found("title:plan"), [copy, plan])
    XCTAssertEqual(try found("path:trip"), [trip])
    XCTAssertEqual(try found("updated:>=2026-01-01"), [plan, trip].sorted())
    XCTAssertEqual(try found("updated:<2026-01-01"), [draft])
    XCTAssertEqual(try found("created:2026-01-01..2026-02-28"), [plan])
    XCTAssertEqual(try found("created:2026-03-01"), [trip])
    XCTAssertEqual(try found("has:ink"), ["life/ink.md"])
    XCTAssertEqual(try found("is:conflict"), [copy])
    XCTAssertEqual(try found("-is:conflict roadmap"), [draft, plan])
    XCTAssertEqual(try found("roadmap tag:planning notebook:work -draft updated:>=2026-01-01"), [plan])
    XCTAssertEqual(
      try jsonArray("list", "tag:planning", "--json", "--sort", "updated").compactMap { $0["path"] as? String },
      [plan, draft], "list takes the same query, newest first")
    XCTAssertEqual(try nbSucceeds("search", "--count", "roadmap").stdout, "3\n")

    // Ids: exact (any case) or a prefix; relative dates against a note updated just now.
    let added = try jsonObject("add", "Fresh", "--content", "new today", "--json")
    let id = try XCTUnwrap(added["id"] as? String)
    let fresh = try XCTUnwrap(added["path"] as? String)
    XCTAssertEqual(try found("id:\(id.uppercased())"), [fresh])
    XCTAssertEqual(try found("id:\(id.prefix(6))*"), [fresh])
    XCTAssertEqual(try found("id:\(id.prefix(6))"), [], "without * an id must be whole")
    XCTAssertEqual(try found("updated:today"), [fresh])
    XCTAssertEqual(try found("updated:>=-7d"), [fresh])
    XCTAssertEqual(try found("updated:yesterday"), [])
    XCTAssertEqual(try found("created:..yesterday"), [draft, plan, trip].sorted())
  }

  func testBadQueriesAreOneLineErrorsWithExitStatus2() throws {
    try makeRepository()
    try write("a.md", note("A", body: "text"))
    try gitCommitAll()
    let cases: [(String, [String])] = [
      ("\"unclosed phrase", ["column 1"]),
      ("(a OR b", ["column 1"]),
      ("a OR b)", ["column 7"]),
      ("roadmap foo:bar", ["column 9", "foo:"]),
      ("updated:>=2026-13-01", ["2026-13-01"]),
      ("updated:soon", ["soon"]),
      ("tag:", ["tag:"]),
      ("a OR", ["OR"]),
    ]
    for (query, needles) in cases {
      let result = try assertNothingChanged(query) { try nb("search", query) }
      XCTAssertEqual(result.status, 2, "\(query): \(result.stderr)")
      assertOneLineError(result, mentioning: needles)
    }
    for blank in ["", "  "] {
      let empty = try nb("search", blank)
      XCTAssertEqual(empty.status, 2)
      assertOneLineError(empty, mentioning: ["empty"])
    }
    XCTAssertEqual(try nb("list", "notebook:").status, 2)
  }

  func testDiacriticsCJKPrefixAndEmoji() throws {
    try makeRepository()
    try write("a.md", note("Café notes", body: "Meeting at the café with Müller, a naïve plan."))
    // The same word decomposed (NFD), as macOS file names and some editors write it.
    try write("b.md", note("Other", body: "Cafe\u{301} au lait"))
    try write("c.md", note("日本語", body: "東京都の天気は晴れです。明日は雨。"))
    try write("d.md", note("中文", body: "我们今天讨论了项目计划和预算。"))
    try write("e.md", note("Party 🎉", body: "emoji 🎉🎉 everywhere 👩‍👩‍👧 family"))
    try gitCommitAll()
    XCTAssertEqual(try found("cafe"), ["a.md", "b.md"])
    XCTAssertEqual(try found("CAFÉ"), ["a.md", "b.md"])
    XCTAssertEqual(try found("muller"), ["a.md"])
    XCTAssertEqual(try found("naive"), ["a.md"])
    XCTAssertEqual(try found("東京"), ["c.md"])
    XCTAssertEqual(try found("天気"), ["c.md"])
    XCTAssertEqual(try found("晴れです"), ["c.md"])
    XCTAssertEqual(try found("项目计划"), ["d.md"])
    XCTAssertEqual(try found("预算"), ["d.md"])
    XCTAssertEqual(try found("计项"), [], "the characters, not in that order")
    XCTAssertEqual(try found("雨"), ["c.md"], "one character")
    XCTAssertEqual(try found("meet*"), ["a.md"])
    XCTAssertEqual(try found("everywhere"), ["e.md"])
    XCTAssertEqual(try found("🎉"), try found("🎉"), "an emoji query answers, whatever it finds")
    XCTAssertEqual(try found("family"), ["e.md"])
  }

  func testATitleMatchRanksAboveABodyOnlyMatch() throws {
    try makeRepository()
    try write("body.md", note("Unrelated", body: "some text about gardening and more text about other things"))
    try write("title.md", note("Gardening", body: "short"))
    try write("tag.md", note("Other", tags: ["gardening"], body: "nothing much"))
    try gitCommitAll()
    let order = try ranked("gardening")
    XCTAssertEqual(order.last, "body.md", "\(order)")
    XCTAssertEqual(Set(order), ["body.md", "title.md", "tag.md"])
    let hit = try XCTUnwrap(try jsonArray("search", "gardening", "--json").first { $0["path"] as? String == "body.md" })
    XCTAssert((hit["snippet"] as? String)?.contains("gardening") == true, "\(hit)")
    XCTAssertNotNil(hit["score"] as? Double)
    for key in ["path", "id", "title", "notebook", "tags", "created", "updated", "score", "snippet"] {
      XCTAssert(hit.keys.contains(key), "missing \(key)")
    }
  }

  // MARK: - Counts and a brute-force oracle

  /// Random repositories and random queries: the index answers exactly what a scan of the files answers.
  func testCountsAndAnswersEqualAFullScan() throws {
    try makeRepository()
    var random = SplitMix64(seed: 20_261_124)
    func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    let words = ["apple", "banana", "cherry", "délice", "Müller", "naïve", "orange", "pear", "plum", "quince", "rose"]
    let tags = ["red", "green", "blue", "work/q1", "work/q2"]
    let notebooks = ["", "a", "a/b", "c"]
    var files: [String: (tags: [String], words: Set<String>, notebook: String)] = [:]
    for i in 0..<120 {
      let notebook = pick(notebooks)
      let path = (notebook.isEmpty ? "" : notebook + "/") + "n\(i).md"
      let noteTags = Array(Set((0..<Int(random.next() % 3)).map { _ in pick(tags) })).sorted()
      let body = (0..<(1 + Int(random.next() % 6))).map { _ in pick(words) }
      try write(path, note("Note \(i)", tags: noteTags, body: body.joined(separator: " ")))
      files[path] = (noteTags, Set(body.map(fold) + ["note", "\(i)"]), notebook)
    }
    try gitCommitAll()

    // Counts.
    var tagCounts: [String: Int] = [:]
    for file in files.values { for tag in file.tags { tagCounts[tag, default: 0] += 1 } }
    let listed = try jsonArray("tag", "list", "--json", "--counts")
    XCTAssertEqual(
      Dictionary(uniqueKeysWithValues: listed.map { ($0["tag"] as! String, $0["count"] as! Int) }), tagCounts)
    let notebookJSON = try jsonArray("notebook", "list", "--json", "--counts")
    for entry in notebookJSON {
      let path = entry["path"] as! String
      XCTAssertEqual(entry["notes"] as? Int, files.values.filter { $0.notebook == path }.count, path)
      XCTAssertEqual(
        entry["total"] as? Int, files.values.filter { $0.notebook == path || $0.notebook.hasPrefix(path + "/") }.count,
        path)
    }

    // Queries.
    for _ in 0..<25 {
      var parts: [(String, (String) -> Bool)] = []
      for _ in 0..<(1 + Int(random.next() % 3)) {
        switch random.next() % 4 {
        case 0:
          let word = pick(words)
          parts.append((word, { files[$0]!.words.contains(fold(word)) }))
        case 1:
          let word = pick(words)
          parts.append(("-" + word, { !files[$0]!.words.contains(fold(word)) }))
        case 2:
          let tag = pick(tags)
          parts.append(("tag:" + tag, { files[$0]!.tags.contains { $0 == tag || $0.hasPrefix(tag + "/") } }))
        default:
          let notebook = pick(notebooks.filter { !$0.isEmpty })
          parts.append(
            (
              "notebook:" + notebook,
              { files[$0]!.notebook == notebook || files[$0]!.notebook.hasPrefix(notebook + "/") }
            ))
        }
      }
      let query = parts.map(\.0).joined(separator: " ")
      let expected = files.keys.filter { path in parts.allSatisfy { $0.1(path) } }.sorted()
      XCTAssertEqual(try found(query), expected, query)
      XCTAssertEqual(try nbSucceeds("search", "--count", query).stdout, "\(expected.count)\n", query)
    }
  }
}

/// Case and diacritics folded, as the oracle compares words.
private func fold(_ word: String) -> String {
  word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
}

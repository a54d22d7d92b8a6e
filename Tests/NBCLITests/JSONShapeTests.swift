import Foundation
import NBTestSupport
import XCTest

/// The documented `--json` shapes: every key present (null when unknown), with the documented type, so a script can
/// rely on them. Key lists are written from the README's documentation, not from nb's output.
final class JSONShapeTests: NBCLITestCase {
  func testListNoteShape() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work", "--tags", "planning", "--content", "text")
    // A note nb did not write (no front matter at all) still has every key, with nulls.
    try write("inbox/loose.md", "just text\n")
    let notes = try jsonArray("list", "--json")
    XCTAssertEqual(notes.count, 2)
    for note in notes {
      XCTAssertTrue(
        Set(note.keys).isSuperset(of: Self.noteKeys), "missing keys: \(Self.noteKeys.subtracting(note.keys))")
      XCTAssertTrue(note["path"] is String)
      XCTAssertTrue(note["title"] is String)
      XCTAssertTrue(note["notebook"] is String)
      XCTAssertTrue(note["tags"] is [String])
      XCTAssertTrue(note["aliases"] is [String])
    }
    let loose = try XCTUnwrap(notes.first { $0["path"] as? String == "inbox/loose.md" })
    XCTAssertTrue(loose["id"] is NSNull)
    XCTAssertTrue(loose["created"] is NSNull)
    XCTAssertTrue(loose["updated"] is NSNull)
    XCTAssertEqual(loose["title"] as? String, "loose")
    XCTAssertEqual(loose["notebook"] as? String, "inbox")
    let roadmap = try XCTUnwrap(notes.first { $0["path"] as? String == "work/roadmap.md" })
    try assertLowercaseUUID(roadmap["id"])
    try assertRFC3339(roadmap["created"])
    try assertRFC3339(roadmap["updated"])
    XCTAssertEqual(roadmap["tags"] as? [String], ["planning"])
    XCTAssertEqual(roadmap["notebook"] as? String, "work")
  }

  func testStatusShape() throws {
    try makeRepository()
    var status = try jsonObject("status", "--json")
    XCTAssertEqual(
      Set(status.keys),
      [
        "root", "branch", "operation", "head", "clean", "changes", "warnings", "upstream", "ahead", "behind",
        "last_sync",
      ])
    // Without a remote there is nothing to be ahead of, and no sync yet.
    for key in ["upstream", "ahead", "behind", "last_sync"] { XCTAssertTrue(status[key] is NSNull, key) }
    XCTAssertEqual(status["root"] as? String, root.path)
    XCTAssertEqual(status["branch"] as? String, "main")
    XCTAssertTrue(status["operation"] is NSNull)
    XCTAssertEqual(status["clean"] as? Bool, true)
    XCTAssertEqual((status["changes"] as? [Any])?.count, 0)
    XCTAssertEqual((status["warnings"] as? [Any])?.count, 0)
    let head = try XCTUnwrap(status["head"] as? [String: Any])
    XCTAssertEqual(Set(head.keys), ["commit", "subject", "author", "email", "date"])
    XCTAssertEqual(head["commit"] as? String, try git.revParse("HEAD"))
    XCTAssertEqual(head["subject"] as? String, "nb: init")
    XCTAssertEqual(head["author"] as? String, GitCLI.userName)
    XCTAssertEqual(head["email"] as? String, GitCLI.userEmail)
    try assertRFC3339(head["date"])

    try write("inbox/new.md", "hello\n")
    status = try jsonObject("status", "--json")
    XCTAssertEqual(status["clean"] as? Bool, false)
    let changes = try XCTUnwrap(status["changes"] as? [[String: Any]])
    XCTAssertEqual(changes.count, 1)
    XCTAssertEqual(Set(changes[0].keys), ["path", "kind", "staged"])
    XCTAssertEqual(changes[0]["path"] as? String, "inbox/new.md")
    XCTAssertEqual(changes[0]["kind"] as? String, "added")
    XCTAssertEqual(changes[0]["staged"] as? Bool, false)
  }

  func testHistoryShape() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "one")
    try nbSucceeds("move", "roadmap", "work")
    let entries = try jsonArray("history", "work/roadmap.md", "--json")
    XCTAssertEqual(entries.count, 2)
    for entry in entries {
      XCTAssertEqual(
        Set(entry.keys), ["commit", "subject", "author", "email", "date", "path", "previous_path", "change"])
      try assertRFC3339(entry["date"])
      XCTAssertEqual(entry["author"] as? String, GitCLI.userName)
      XCTAssertEqual(entry["email"] as? String, GitCLI.userEmail)
    }
    XCTAssertEqual(entries[0]["previous_path"] as? String, "inbox/roadmap.md")
    XCTAssertTrue(entries[1]["previous_path"] is NSNull)
  }

  func testNotebookListShape() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work/projects", "--content", "x")
    let notebooks = try jsonArray("notebook", "list", "--json")
    for notebook in notebooks {
      XCTAssertEqual(Set(notebook.keys), ["path", "title", "parent", "notes", "total"])
      XCTAssertTrue(notebook["notes"] is Int)
    }
    XCTAssertEqual(notebooks.compactMap { $0["path"] as? String }, ["inbox", "work", "work/projects"])
    XCTAssertEqual(notebooks.compactMap { $0["parent"] as? String }, ["", "", "work"])
    XCTAssertEqual(notebooks.compactMap { $0["notes"] as? Int }, [0, 0, 1])
    XCTAssertEqual(notebooks.compactMap { $0["total"] as? Int }, [0, 1, 1], "with the children's notes")
    XCTAssertEqual(notebooks.compactMap { $0["title"] as? String }, ["inbox", "work", "projects"])
  }

  func testSaveShape() throws {
    try makeRepository()
    try write("inbox/loose.md", "just text\n")
    let saved = try jsonObject("save", "--json")
    XCTAssertEqual(
      Set(saved.keys), ["committed", "paths", "notes", "removed", "unstamped", "new_ids", "changed_again"])
    XCTAssertEqual(saved["committed"] as? Bool, true)
    XCTAssertEqual(saved["notes"] as? [String], ["inbox/loose.md"])
    XCTAssertEqual(saved["changed_again"] as? [String], [])
    let nothing = try jsonObject("save", "--json")
    XCTAssertEqual(nothing["committed"] as? Bool, false)
    XCTAssertEqual(nothing["paths"] as? [String], [])
  }

  func testTagListShape() throws {
    try makeRepository()
    try nbSucceeds("add", "A", "--tags", "x,y", "--content", "a")
    try nbSucceeds("add", "B", "--tags", "y", "--content", "b")
    let tags = try jsonArray("tag", "list", "--json")
    for tag in tags { XCTAssertEqual(Set(tag.keys), ["tag", "count"]) }
    // Most used first, then by name.
    XCTAssertEqual(tags.compactMap { $0["tag"] as? String }, ["y", "x"])
    XCTAssertEqual(tags.compactMap { $0["count"] as? Int }, [2, 1])
  }

  func testShowJSONCarriesTheBody() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "line one\nline two")
    let note = try jsonObject("show", "roadmap", "--json")
    XCTAssertTrue(Set(note.keys).isSuperset(of: Self.noteKeys.union(["body"])))
    XCTAssertEqual(note["body"] as? String, "line one\nline two\n")
  }

  /// Keys whose value is absent are still present, as null: Swift's synthesized Encodable would drop them.
  func testAbsentValuesArePresentAsNull() throws {
    try makeRepository()
    let added = try jsonObject("add", "Roadmap", "--content", "text", "--json")
    let listed = try XCTUnwrap(try jsonArray("list", "--json").first)
    let found = try XCTUnwrap(try jsonArray("search", "text", "--json").first)
    for (command, note) in [("add", added), ("list", listed), ("search", found)] {
      for key in ["conflict_of", "warning"] {
        XCTAssertTrue(note[key] is NSNull, "\(command) --json: \(key) should be null, is \(note[key] ?? "missing")")
      }
    }
    // A listing has no words to rank by or to quote: score and snippet are there, as null.
    for key in ["score", "snippet"] {
      XCTAssertTrue(listed[key] is NSNull, "list --json: \(key) should be null, is \(listed[key] ?? "missing")")
    }
    XCTAssertNotNil(found["score"] as? Double, "search --json ranks")
    XCTAssertEqual(found["snippet"] as? String, "text")
    XCTAssertEqual(found["highlights"] as? [[Int]], [[0, 4]])
    let shown = try jsonObject("show", "roadmap", "--json")
    for key in ["conflict_of", "warning", "ink"] {
      XCTAssertTrue(shown[key] is NSNull, "show --json: \(key) should be null, is \(shown[key] ?? "missing")")
    }

    // A page without a background and a file without strokes: `background` and `bounds` are null.
    try write(
      "inbox/roadmap.ink.jsonl",
      InkTests.header + "\n" + #"{"k":"page","id":"p1","ord":"a1","w":60000,"h":80000}"# + "\n")
    let info = try jsonObject("ink", "info", "roadmap", "--json")
    XCTAssertTrue(info["bounds"] is NSNull, "ink info --json: bounds is \(info["bounds"] ?? "missing")")
    let page = try XCTUnwrap((info["pages"] as? [[String: Any]])?.first)
    XCTAssertTrue(page["background"] is NSNull, "ink info --json: background is \(page["background"] ?? "missing")")

    // A push to an empty remote merges nothing, so there is no backup reference.
    let bare = temp.file("remote.git")
    _ = try git.run("init", "--bare", "--quiet", bare.path)
    try nbSucceeds("remote", "add", "origin", bare.path)
    let synced = try jsonObject("sync", "--json")
    XCTAssertTrue(synced["backup_ref"] is NSNull, "sync --json: backup_ref is \(synced["backup_ref"] ?? "missing")")
  }

  /// `sync --json` carries every documented key in every outcome (absent values as null), and each conflict its five;
  /// the other device is the git CLI in a clone of the same bare remote.
  func testSyncShape() throws {
    try makeRepository()
    let path = try addNote("Roadmap", content: "line one\nline two\n")
    let bare = temp.file("remote.git")
    _ = try git.run("init", "--bare", "--quiet", bare.path)
    try nbSucceeds("remote", "add", "origin", bare.path)
    var outcomes: [String] = []
    func sync(_ extra: String...) throws -> [String: Any] {
      let summary = try XCTUnwrap(try json(["sync", "--json"] + extra) as? [String: Any])
      XCTAssertEqual(Set(summary.keys), Self.syncKeys, "sync --json \(extra)")
      outcomes.append(summary["outcome"] as? String ?? "?")
      return summary
    }
    let other = temp.file("other")
    let plain = try GitCLI(workTree: other, home: home)
    try GitCLI(workTree: temp.directory("clones"), home: home).run("clone", "-q", bare.path, other.path)
    func plainEdit(_ old: String, _ new: String) throws {
      try plain.run("pull", "-q", "--no-rebase")
      let file = other.appendingPathComponent(path)
      let text = try String(contentsOf: file, encoding: .utf8)
      try Data(text.replacingOccurrences(of: old, with: new).utf8).write(to: file)
      try plain.run("commit", "-q", "-am", "edit by hand")
      try plain.run("push", "-q", "origin", "HEAD:main")
    }

    XCTAssertTrue(try sync()["backup_ref"] is NSNull, "published")
    XCTAssertTrue(try sync()["backup_ref"] is NSNull, "up to date")
    try plainEdit("line one\n", "line one, by hand\n")
    try write(path, try text(path).replacingOccurrences(of: "line one\n", with: "line one, with nb\n"))
    let dryRun = try sync("--dry-run")
    XCTAssertEqual(dryRun["dry_run"] as? Bool, true)
    XCTAssertTrue(dryRun["backup_ref"] is NSNull, "a dry run keeps no backup")
    let merged = try sync()
    XCTAssertNotNil(merged["backup_ref"] as? String)
    let conflicts = try XCTUnwrap(merged["conflicts"] as? [[String: Any]])
    XCTAssertEqual(conflicts.count, 1)
    XCTAssertEqual(conflicts.first.map { Set($0.keys) }, ["path", "winner", "loser", "kept_at", "reason"])
    try plainEdit("line two\n", "line two, by hand\n")
    _ = try sync()
    try write(path, try text(path) + "line three\n")
    _ = try sync()
    XCTAssertEqual(outcomes, ["published", "up-to-date", "merged", "merged", "fast-forwarded", "pushed"])
  }

  /// The keys of `sync --json` the README documents.
  static let syncKeys: Set<String> = [
    "outcome", "remote", "dry_run", "received", "sent", "saved", "merged", "conflicts", "resurrected", "warnings",
    "backup_ref", "attempts", "links_followed",
  ]

  /// The keys every note listing documents.
  static let noteKeys: Set<String> = ["path", "id", "title", "notebook", "tags", "created", "updated", "aliases"]
}

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

  /// The keys every note listing documents.
  static let noteKeys: Set<String> = ["path", "id", "title", "notebook", "tags", "created", "updated", "aliases"]
}

// MARK: - Helpers shared by the command tests

extension NBCLITestCase {
  /// Runs `nb <args>` (which must succeed) and parses its standard output as one JSON document.
  func json(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Any {
    let result = try nb(arguments: args)
    XCTAssertEqual(result.status, 0, "nb \(args.joined(separator: " ")): \(result.stderr)", file: file, line: line)
    return try JSONSerialization.jsonObject(with: result.stdoutData, options: [.fragmentsAllowed])
  }

  /// `json` for a command printing an object.
  func jsonObject(_ args: String..., file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
    try XCTUnwrap(try json(args, file: file, line: line) as? [String: Any], file: file, line: line)
  }

  /// `json` for a command printing an array of objects.
  func jsonArray(_ args: String..., file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
    try XCTUnwrap(try json(args, file: file, line: line) as? [[String: Any]], file: file, line: line)
  }

  /// `jsonArray` with an argument array.
  func jsonArray(arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
    try XCTUnwrap(try json(arguments, file: file, line: line) as? [[String: Any]], file: file, line: line)
  }

  /// A note as `nb show --json` describes it.
  func noteJSON(_ selector: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
    try jsonObject("show", selector, "--json", file: file, line: line)
  }

  /// A string field of a JSON object, failing the test when absent.
  func string(_ object: [String: Any], _ key: String, file: StaticString = #filePath, line: UInt = #line) throws
    -> String
  {
    try XCTUnwrap(object[key] as? String, "no string '\(key)' in \(object)", file: file, line: line)
  }

  /// The text of a repository-relative file.
  func text(_ relative: String) throws -> String {
    String(decoding: try read(relative), as: UTF8.self)
  }

  /// Checks with the real git that exactly one commit was made since there were `before` commits, with this
  /// subject, exactly these `Nb-Note-Id` trailers (as git parses them) and exactly these
  /// `git show --name-status --no-renames` lines (`"A\tpath"`); and that the work tree is clean and
  /// `git fsck --strict` passes.
  func assertOneCommit(
    since before: Int, subject: String, noteIDs: [String], files: [String], file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    XCTAssertEqual(try commitCount(), before + 1, "expected exactly one new commit", file: file, line: line)
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%s").trimmingCharacters(in: .newlines), subject, file: file, line: line)
    let trailers = try git.run("log", "-1", "--format=%(trailers:key=Nb-Note-Id,valueonly,separator=%x0A)")
      .split(separator: "\n").map(String.init)
    XCTAssertEqual(trailers.sorted(), noteIDs.sorted(), "Nb-Note-Id trailers", file: file, line: line)
    // git matches trailer keys case-insensitively; the documented spelling is checked on the raw message.
    let message = try git.run("log", "-1", "--format=%B").split(separator: "\n").map(String.init)
    for id in noteIDs {
      XCTAssert(
        message.contains("Nb-Note-Id: \(id)"), "no 'Nb-Note-Id: \(id)' line in \(message)", file: file, line: line)
    }
    let changed = try git.run("show", "--name-status", "--no-renames", "--format=", "HEAD")
      .split(separator: "\n").map(String.init)
    XCTAssertEqual(changed.sorted(), files.sorted(), "files in the commit", file: file, line: line)
    try assertCleanAndSound(file: file, line: line)
  }

  /// Runs `body` and checks that no commit was made and the work tree is still clean.
  @discardableResult
  func assertNoCommit<T>(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T) throws -> T {
    let head = try git.revParse("HEAD")
    let value = try body()
    XCTAssertEqual(try git.revParse("HEAD"), head, "a no-op must not commit", file: file, line: line)
    XCTAssertEqual(try git.statusPorcelain(), "", file: file, line: line)
    return value
  }

  /// `git status --porcelain` is empty and `git fsck --strict` passes.
  func assertCleanAndSound(file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(try git.statusPorcelain(), "", "work tree not clean", file: file, line: line)
    XCTAssertNoThrow(try git.fsck(), file: file, line: line)
  }

  /// Parses an RFC 3339 timestamp with a numeric offset or `Z`, failing the test otherwise.
  @discardableResult
  func assertRFC3339(_ value: Any?, file: StaticString = #filePath, line: UInt = #line) throws -> Date {
    let text = try XCTUnwrap(value as? String, "not a string: \(String(describing: value))", file: file, line: line)
    let pattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"#
    XCTAssertNotNil(
      text.range(of: pattern, options: .regularExpression), "not RFC 3339: \(text)", file: file, line: line)
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return try XCTUnwrap(formatter.date(from: text), "unparsable: \(text)", file: file, line: line)
  }

  /// A lower-case UUID, as FORMAT.md requires for `id`.
  func assertLowercaseUUID(_ value: Any?, file: StaticString = #filePath, line: UInt = #line) throws {
    let text = try XCTUnwrap(value as? String, file: file, line: line)
    XCTAssertNotNil(UUID(uuidString: text), "not a UUID: \(text)", file: file, line: line)
    XCTAssertEqual(text, text.lowercased(), file: file, line: line)
  }

  /// The lines of `new` that differ from `old`, as `(old, new)` pairs; both must have the same number of lines.
  func changedLines(_ old: String, _ new: String, file: StaticString = #filePath, line: UInt = #line)
    -> [(String, String)]
  {
    let a = old.split(separator: "\n", omittingEmptySubsequences: false)
    let b = new.split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertEqual(a.count, b.count, "line count changed:\n\(old)\n---\n\(new)", file: file, line: line)
    return zip(a, b).filter { $0 != $1 }.map { (String($0), String($1)) }
  }
}

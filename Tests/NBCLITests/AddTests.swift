import Foundation
import NBTestSupport
import XCTest

/// `nb add`: the file it writes (byte for byte, per FORMAT.md), where it goes, and the one commit it makes.
final class AddTests: NBCLITestCase {
  func testAddWritesTheDocumentedFileInOneCommit() throws {
    try makeRepository()
    let before = try commitCount()
    let start = Date(timeIntervalSinceNow: -1)
    let result = try nbSucceeds(
      "add", "Roadmap", "--notebook", "work/projects", "--tags", "planning,q3", "--content", "First draft", "--json")
    let end = Date(timeIntervalSinceNow: 1)
    let note = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    let id = try string(note, "id")
    try assertLowercaseUUID(id)
    let created = try string(note, "created")
    let createdDate = try assertRFC3339(created)
    XCTAssert((start...end).contains(createdDate), "created \(created) is not now")
    XCTAssertEqual(note["updated"] as? String, created, "a new note is created and updated at once")
    XCTAssertEqual(note["path"] as? String, "work/projects/roadmap.md")
    XCTAssertEqual(note["notebook"] as? String, "work/projects")
    XCTAssertEqual(note["title"] as? String, "Roadmap")
    XCTAssertEqual(note["tags"] as? [String], ["planning", "q3"])

    try assertOneCommit(
      since: before, subject: "nb: add work/projects/roadmap.md", noteIDs: [id],
      files: ["A\twork/.notebook.yaml", "A\twork/projects/.notebook.yaml", "A\twork/projects/roadmap.md"])
    let expected = """
      ---
      id: \(id)
      title: Roadmap
      created: \(created)
      updated: \(created)
      tags: [planning, q3]
      ---
      First draft

      """
    XCTAssertEqual(try text("work/projects/roadmap.md"), expected)
    XCTAssertEqual(try git.show("HEAD", path: "work/projects/roadmap.md"), expected, "the commit holds the same bytes")
    for notebook in ["work", "work/projects"] {
      let settings = try text("\(notebook)/.notebook.yaml")
      XCTAssert(settings.hasPrefix("created: ") && settings.hasSuffix("\n"), settings)
      try assertRFC3339(String(settings.dropFirst("created: ".count).dropLast()))
    }
  }

  func testDefaultNotebookIsInboxAndPipedInputIsTheBody() throws {
    try makeRepository()
    let before = try commitCount()
    let output = try nbSucceeds("add", "Standup", stdin: "line one\nline two\n").stdout
    let words = output.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    XCTAssertEqual(words.first, "inbox/standup.md", "prints the path, then the id")
    let id = try XCTUnwrap(words.last)
    try assertOneCommit(
      since: before, subject: "nb: add inbox/standup.md", noteIDs: [id], files: ["A\tinbox/standup.md"])
    let note = try noteJSON("inbox/standup.md")
    XCTAssertEqual(note["id"] as? String, id)
    let created = try string(note, "created")
    // No tags given: no tags line; the piped text is the whole body, its final newline not doubled.
    XCTAssertEqual(
      try text("inbox/standup.md"),
      "---\nid: \(id)\ntitle: Standup\ncreated: \(created)\nupdated: \(created)\n---\nline one\nline two\n")
  }

  func testTitleComesFromTheFirstHeading() throws {
    try makeRepository()
    let before = try commitCount()
    try nbSucceeds("add", "--content", "# From Heading\n\nSome text")
    let note = try noteJSON("inbox/from-heading.md")
    XCTAssertEqual(note["title"] as? String, "From Heading")
    let id = try string(note, "id")
    try assertOneCommit(
      since: before, subject: "nb: add inbox/from-heading.md", noteIDs: [id], files: ["A\tinbox/from-heading.md"])
    let created = try string(note, "created")
    XCTAssertEqual(
      try text("inbox/from-heading.md"),
      "---\nid: \(id)\ntitle: From Heading\ncreated: \(created)\nupdated: \(created)\n---\n"
        + "# From Heading\n\nSome text\n"
    )
  }

  func testSlugClashGetsANumberAndLeavesTheFirstNoteAlone() throws {
    try makeRepository()
    let first = try addNote("Roadmap", content: "one")
    let firstBytes = try read(first)
    let second = try addNote("Roadmap", content: "two")
    let third = try addNote("Roadmap", content: "three")
    XCTAssertEqual([first, second, third], ["inbox/roadmap.md", "inbox/roadmap-2.md", "inbox/roadmap-3.md"])
    XCTAssertEqual(try read(first), firstBytes)
    let ids = try [first, second, third].map { try string(try noteJSON($0), "id") }
    XCTAssertEqual(Set(ids).count, 3, "each note has its own id")
    XCTAssertEqual(try git.logSubjects().prefix(3), ["nb: add \(third)", "nb: add \(second)", "nb: add \(first)"])
    XCTAssertTrue(try text(third).hasSuffix("---\nthree\n"))
    try assertCleanAndSound()
  }

  func testTitleThatIsNotPlainYAMLIsDoubleQuoted() throws {
    try makeRepository()
    let title = "Q3: plan #1"
    let path = try addNote(title, content: "x")
    // ": " and " #" would change the meaning of a plain YAML scalar, so the title must be quoted.
    let written = try text(path)
    XCTAssert(written.split(separator: "\n").contains("title: \"Q3: plan #1\""), written)
    XCTAssertEqual(try noteJSON(path)["title"] as? String, title)
  }

  func testNewNotebookKeepsTheTypedNameAsItsTitle() throws {
    try makeRepository()
    let before = try commitCount()
    let output = try nbSucceeds("add", "Plan", "--notebook", "My Projects", "--content", "x").stdout
    XCTAssertTrue(output.hasPrefix("my-projects/plan.md "), output)
    let id = try string(try noteJSON("my-projects/plan.md"), "id")
    try assertOneCommit(
      since: before, subject: "nb: add my-projects/plan.md", noteIDs: [id],
      files: ["A\tmy-projects/.notebook.yaml", "A\tmy-projects/plan.md"])
    let settings = try text("my-projects/.notebook.yaml").split(separator: "\n")
    XCTAssertTrue(settings.contains("title: My Projects"), "\(settings)")
    // The next add with the same typed name reuses the directory rather than making another.
    try nbSucceeds("add", "Other", "--notebook", "My Projects", "--content", "y")
    XCTAssertTrue(FileManager.default.fileExists(atPath: url("my-projects/other.md").path))
  }

  func testMeetingTemplateKeepsItsOwnFrontMatterLines() throws {
    try makeRepository()
    let path = try XCTUnwrap(
      try nbSucceeds("add", "Standup", "--notebook", "work", "--template", "meeting", "--content=- item").stdout
        .split(separator: " ").first.map(String.init))
    XCTAssertEqual(path, "work/standup.md")
    let note = try noteJSON(path)
    let id = try string(note, "id")
    let created = try string(note, "created")
    let text = try text(path)
    // The template's own key stays; nb adds id first and its other keys after the template's.
    XCTAssertTrue(
      text.hasPrefix(
        "---\nid: \(id)\ntype: meeting\ntitle: Standup\ncreated: \(created)\nupdated: \(created)\n---\n# Standup\n"),
      text)
    XCTAssertTrue(text.contains("## Agenda\n\n- item\n"), text)
    try assertCleanAndSound()
  }
}

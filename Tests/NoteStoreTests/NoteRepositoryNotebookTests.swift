import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

final class NoteRepositoryNotebookTests: NoteRepositoryTestCase {
  func testCreateWithDisplayTitleForSluggedName() throws {
    let notebook = try repository.createNotebook("My Projects")
    XCTAssertEqual(notebook.path, "my-projects")
    XCTAssertEqual(notebook.title, "My Projects")
    XCTAssertEqual(
      try read("my-projects/.notebook.yaml"), "created: 2026-11-22T10:07:01+01:00\ntitle: My Projects\n")
    XCTAssertEqual(try lastSubject(), "nb: create notebook my-projects")
    XCTAssertEqual(try changedFiles(), ["A\tmy-projects/.notebook.yaml"])
    let listed = try repository.notebooks().first { $0.path == "my-projects" }
    XCTAssertEqual(listed?.title, "My Projects")
    // The display name finds the slugged directory again.
    _ = try repository.createNote(NoteDraft(title: "Inside", notebook: "My Projects"))
    XCTAssertEqual(try repository.notes(inNotebook: "My Projects").map(\.path), ["my-projects/inside.md"])
    try assertCleanAndSound()
  }

  func testNestedCreateIsOneCommitWithSettingsInEachLevel() throws {
    let before = try commitCount()
    let notebook = try repository.createNotebook("work/clients/Big Co")
    XCTAssertEqual(notebook.path, "work/clients/big-co")
    XCTAssertEqual(try commitCount(), before + 1)
    XCTAssertEqual(
      try changedFiles(),
      ["A\twork/.notebook.yaml", "A\twork/clients/.notebook.yaml", "A\twork/clients/big-co/.notebook.yaml"])
    XCTAssertEqual(try read("work/.notebook.yaml"), "created: 2026-11-22T10:07:01+01:00\n")
    XCTAssertEqual(
      try read("work/clients/big-co/.notebook.yaml"), "created: 2026-11-22T10:07:01+01:00\ntitle: Big Co\n")
    XCTAssertEqual(try repository.rootNotebooks().map(\.path), ["inbox", "work"])
    XCTAssertEqual(try repository.children(of: "work").map(\.path), ["work/clients"])
    try assertRefusedWithNothingChanged { _ = try repository.createNotebook("work/clients") }
    try assertCleanAndSound()
  }

  func testBadNotebookNamesAreRefused() throws {
    for name in ["", "/", ".", "..", "a/../b", ".git", "x/.nb", "...", "bad\u{7}"] {
      try assertRefusedWithNothingChanged { _ = try repository.createNotebook(name) }
    }
  }

  func testRenameMovesEverythingKeepsIdsInOneCommit() throws {
    let a = try repository.createNote(NoteDraft(title: "Alpha", notebook: "work", content: "a\n"))
    let b = try repository.createNote(NoteDraft(title: "Beta", notebook: "work/projects", content: "b\n"))
    let aBytes = try readData(a.path)
    let bBytes = try readData(b.path)
    let before = try commitCount()
    try repository.renameNotebook("work", to: "archive/old-work")
    XCTAssertEqual(try commitCount(), before + 1)
    XCTAssertEqual(try lastSubject(), "nb: rename notebook work -> archive/old-work")
    XCTAssertEqual(Set(try trailerIDs()), Set([a.id!, b.id!]))
    XCTAssertFalse(exists("work"))
    XCTAssertEqual(try readData("archive/old-work/alpha.md"), aBytes)
    XCTAssertEqual(try readData("archive/old-work/projects/beta.md"), bBytes)
    let notes = try repository.allNotes()
    XCTAssertEqual(notes.map(\.path), ["archive/old-work/alpha.md", "archive/old-work/projects/beta.md"])
    XCTAssertEqual(notes.map(\.id), [a.id, b.id])
    // git sees pure renames of every file that was in the notebook.
    let changes = try changedFiles(renames: true)
    XCTAssertTrue(changes.contains("R100\twork/alpha.md\tarchive/old-work/alpha.md"), "\(changes)")
    XCTAssertTrue(changes.contains("R100\twork/projects/beta.md\tarchive/old-work/projects/beta.md"), "\(changes)")
    // The identical .notebook.yaml files may pair up any way in git's rename detection, so compare the trees.
    XCTAssertEqual(
      try git.run("ls-tree", "-r", "--name-only", "HEAD", "archive", "work"),
      "archive/.notebook.yaml\narchive/old-work/.notebook.yaml\narchive/old-work/alpha.md\n"
        + "archive/old-work/projects/.notebook.yaml\narchive/old-work/projects/beta.md\n")
    try assertCleanAndSound()
  }

  func testRenameRefusals() throws {
    _ = try repository.createNote(NoteDraft(title: "Alpha", notebook: "work"))
    _ = try repository.createNotebook("taken")
    try assertRefusedWithNothingChanged { try repository.renameNotebook("", to: "x") }
    try assertRefusedWithNothingChanged { try repository.renameNotebook("work", to: "work/inner") }
    try assertRefusedWithNothingChanged { try repository.renameNotebook("work", to: "taken") }
    try assertRefusedWithNothingChanged { try repository.renameNotebook("missing", to: "x") }
    try assertRefusedWithNothingChanged { try repository.renameNotebook("work", to: "../x") }
  }

  func testDeleteCascadeNeedsRecursive() throws {
    let a = try repository.createNote(NoteDraft(title: "Alpha", notebook: "work"))
    let b = try repository.createNote(NoteDraft(title: "Beta", notebook: "work/deep"))
    try write("work/deep/picture.png", Data([0x89, 0x50, 0x4E, 0x47]))
    try git.run("add", "work/deep/picture.png")
    try git.run("commit", "-q", "-m", "attachment")
    let error = try assertRefusedWithNothingChanged { try repository.deleteNotebook("work", recursive: false) }
    guard case .notebookNotEmpty(let path, _)? = error else { return XCTFail(String(describing: error)) }
    XCTAssertEqual(path, "work")

    try repository.deleteNotebook("work", recursive: true)
    XCTAssertFalse(exists("work"))
    XCTAssertEqual(try lastSubject(), "nb: delete notebook work (2 notes)")
    XCTAssertEqual(Set(try trailerIDs()), Set([a.id!, b.id!]))
    XCTAssertEqual(
      try changedFiles(),
      [
        "D\twork/.notebook.yaml", "D\twork/alpha.md", "D\twork/deep/.notebook.yaml", "D\twork/deep/beta.md",
        "D\twork/deep/picture.png",
      ])
    XCTAssertEqual(try git.run("ls-tree", "-r", "--name-only", "HEAD", "work"), "")
    try assertCleanAndSound()
  }

  func testDeleteEmptyNotebookWithoutRecursive() throws {
    _ = try repository.createNotebook("empty")
    try repository.deleteNotebook("empty", recursive: false)
    XCTAssertFalse(exists("empty"))
    XCTAssertEqual(try changedFiles(), ["D\tempty/.notebook.yaml"])
  }

  func testDeleteRefusesRootAndUncommittedEdits() throws {
    let note = try repository.createNote(NoteDraft(title: "Alpha", notebook: "work"))
    try assertRefusedWithNothingChanged { try repository.deleteNotebook("", recursive: true) }
    try assertRefusedWithNothingChanged { try repository.deleteNotebook("/", recursive: true, force: true) }
    try write(note.path, try read(note.path) + "not saved\n")
    try assertRefusedWithNothingChanged { try repository.deleteNotebook("work", recursive: true) }
    try repository.deleteNotebook("work", recursive: true, force: true)
    XCTAssertFalse(exists("work"))
    try assertCleanAndSound()
  }
}

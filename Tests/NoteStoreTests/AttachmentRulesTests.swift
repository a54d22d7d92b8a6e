import XCTest

@testable import NoteStore

/// The pure rules of format 2: which directory is an attachment folder, the link line, the copy's name, and the
/// migration's steps.
final class AttachmentRulesTests: XCTestCase {
  func testAttachmentFolderIsTheStemWithFiles() {
    XCTAssertEqual(RepoPaths.attachmentFolder(of: "work/plan.md"), "work/plan.files")
    XCTAssertEqual(RepoPaths.attachmentFolder(of: "plan.md"), "plan.files")
    XCTAssertEqual(RepoPaths.attachmentOwner(ofFolder: "work/plan.files"), "work/plan.md")
    XCTAssertNil(RepoPaths.attachmentOwner(ofFolder: "work/plan"))
    XCTAssertNil(RepoPaths.attachmentOwner(ofFolder: "work/.files"), "nothing before .files")
    XCTAssertNil(RepoPaths.attachmentOwner(ofFolder: ".hidden.files"))
  }

  func testAFolderIsAnAttachmentFolderOnlyWithItsNoteBesideIt() {
    let notes: Set<String> = ["work/plan.md", "work/plan.files/inner.md", "work/plan.files/deep.md"]
    XCTAssertTrue(RepoPaths.isAttachmentFolder("work/plan.files", isNote: notes.contains))
    XCTAssertFalse(RepoPaths.isAttachmentFolder("work/other.files", isNote: notes.contains), "no other.md")
    XCTAssertTrue(RepoPaths.isInsideAttachmentFolder("work/plan.files/inner.md", isNote: notes.contains))
    XCTAssertTrue(RepoPaths.isInsideAttachmentFolder("work/plan.files/a/b.png", isNote: notes.contains))
    XCTAssertFalse(RepoPaths.isInsideAttachmentFolder("work/plan.md", isNote: notes.contains))
    XCTAssertFalse(RepoPaths.isInsideAttachmentFolder("work/other.files/x.md", isNote: notes.contains))
    XCTAssertFalse(RepoPaths.isInsideAttachmentFolder("work/plan.files", isNote: notes.contains), "the folder itself")
    // The outermost folder is the one that counts, even when a `.files` directory inside it has a note beside it.
    XCTAssertEqual(
      RepoPaths.attachmentFolder(containing: "work/plan.files/deep.files/x.png", isNote: notes.contains),
      "work/plan.files")
  }

  func testLinkLinePercentEncodesWhatWouldBreakTheLink() {
    XCTAssertEqual(AttachmentLinks.markdown(name: "photo.jpg", folder: "plan.files"), "[photo.jpg](plan.files/photo.jpg)")
    XCTAssertEqual(
      AttachmentLinks.markdown(name: "my file (1).txt", folder: "plan.files"),
      "[my file (1).txt](plan.files/my%20file%20%281%29.txt)")
    XCTAssertEqual(
      AttachmentLinks.markdown(name: "a]b#c?d%e<f>.pdf", folder: "my plan.files"),
      "[a\\]b#c?d%e<f>.pdf](my%20plan.files/a%5Db%23c%3Fd%25e%3Cf%3E.pdf)")
    XCTAssertEqual(AttachmentLinks.markdown(name: "café.png", folder: "x.files"), "[café.png](x.files/café.png)")
  }

  func testRetargetingFollowsARenamedFolderOnly() {
    let text = "see [a b](plan.files/a%20b)\nand [c](<plan.files/c d>)\nnot [d](other.files/d) nor plan.files/x\n"
    XCTAssertEqual(
      AttachmentLinks.retargeting(text, from: "plan.files", to: "new plan.files"),
      "see [a b](new%20plan.files/a%20b)\nand [c](<new plan.files/c d>)\nnot [d](other.files/d) nor plan.files/x\n")
  }

  func testUniqueNameNumbersBeforeTheExtension() {
    let taken: Set<String> = ["a.png", "a-2.png", "README", ".env"]
    XCTAssertEqual(AttachmentLinks.unique("b.png", taken: taken.contains), "b.png")
    XCTAssertEqual(AttachmentLinks.unique("a.png", taken: taken.contains), "a-3.png")
    XCTAssertEqual(AttachmentLinks.unique("README", taken: taken.contains), "README-2")
    XCTAssertEqual(AttachmentLinks.unique(".env", taken: taken.contains), ".env-2")
  }

  func testSettingFormatChangesOnlyThatLine() {
    XCTAssertEqual(
      FormatMigration.settingFormat(2, in: "# c\nformat: 1\ndefault_notebook: inbox\n"),
      "# c\nformat: 2\ndefault_notebook: inbox\n")
    XCTAssertEqual(FormatMigration.settingFormat(2, in: "format: 1  # mine\r\nx: 1\r\n"), "format: 2 # mine\r\nx: 1\r\n")
    XCTAssertEqual(FormatMigration.settingFormat(2, in: "# c\ndefault_notebook: a\n"), "# c\nformat: 2\ndefault_notebook: a\n")
    XCTAssertEqual(FormatMigration.settingFormat(2, in: ""), "format: 2\n")
  }

  func testPlanFromOneListsOutermostFoldersBesideNotes() {
    let tree = FormatMigration.Tree(
      directories: ["work", "work/plan.files", "work/plan.files/x.files", "work/lonely.files", "assets.files"],
      markdownFiles: ["work/plan.md", "work/plan.files/x.md", "assets.md"])
    let plan = FormatMigration.plan(from: 1, configText: "format: 1\n", tree: tree)
    XCTAssertEqual(plan.from, 1)
    XCTAssertEqual(plan.to, 2)
    XCTAssertEqual(plan.steps.count, 1)
    XCTAssertEqual(plan.configText, "format: 2\n")
    XCTAssertEqual(
      plan.attachmentFolders,
      [MigratedFolder(folder: "assets.files", note: "assets.md"), MigratedFolder(folder: "work/plan.files", note: "work/plan.md")])
    XCTAssertFalse(plan.isEmpty)
  }

  func testPlanAtTheNewestFormatIsEmpty() {
    let plan = FormatMigration.plan(
      from: 2, configText: "format: 2\n", tree: .init(directories: ["a.files"], markdownFiles: ["a.md"]))
    XCTAssertTrue(plan.isEmpty)
    XCTAssertEqual(plan.configText, "format: 2\n")
    XCTAssertEqual(plan.attachmentFolders, [])
    XCTAssertNil(FormatMigration.step(from: RepositoryFormat.newest), "no step past the newest format")
  }
}

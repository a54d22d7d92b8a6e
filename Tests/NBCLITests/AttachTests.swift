import Foundation
import NBTestSupport
import XCTest

/// `nb attach` and attachment folders end to end: the copy, the link lines, one commit, and the folder travelling
/// with its note through move, rename and delete, checked with the git CLI.
final class AttachTests: NBCLITestCase {
  override func setUpWithError() throws {
    try super.setUpWithError()
    try makeRepository()
  }

  /// Writes a file outside the repository and returns its path.
  func outside(_ name: String, _ data: Data) throws -> String {
    let url = temp.file("outside").appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url)
    return url.path
  }

  func testAttachCopiesLinksStampsAndCommitsOnce() throws {
    let path = try addNote("Plan", notebook: "work", content: "first line")
    let id = try string(try noteJSON(path), "id")
    let before = try noteJSON(path)["updated"] as? String
    let photo = try outside("photo.jpg", Data([0xFF, 0xD8, 0x00, 0x01]))
    let spaced = try outside("my notes (v2).txt", Data("text\n".utf8))
    let count = try commitCount()
    Thread.sleep(forTimeInterval: 1.1)
    let result = try nbSucceeds("attach", path, photo, spaced, "--json")
    let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    XCTAssertEqual(json?["note"] as? String, "work/plan.md")
    let listed = json?["attachments"] as? [[String: Any]] ?? []
    XCTAssertEqual(listed.map { $0["path"] as? String }, ["work/plan.files/photo.jpg", "work/plan.files/my notes (v2).txt"])
    XCTAssertEqual(listed.map { $0["bytes"] as? Int }, [4, 5])
    XCTAssertEqual(try read("work/plan.files/photo.jpg"), Data([0xFF, 0xD8, 0x00, 0x01]))
    let text = try self.text("work/plan.md")
    XCTAssert(
      text.hasSuffix(
        "---\nfirst line\n[photo.jpg](plan.files/photo.jpg)\n[my notes (v2).txt](plan.files/my%20notes%20%28v2%29.txt)\n"),
      text)
    XCTAssertNotEqual(try noteJSON(path)["updated"] as? String, before, "attach stamps updated like any edit")
    try assertOneCommit(
      since: count, subject: "nb: attach 2 files to work/plan.md", noteIDs: [id],
      files: ["A\twork/plan.files/my notes (v2).txt", "A\twork/plan.files/photo.jpg", "M\twork/plan.md"])
  }

  func testANameAlreadyThereGetsANumberAndNoLinkLeavesTheBody() throws {
    let path = try addNote("Plan", content: "body")
    let first = try outside("a/scan.pdf", Data("one".utf8))
    let second = try outside("b/scan.pdf", Data("two".utf8))
    try nbSucceeds("attach", path, first)
    let body = try text(path)
    let count = try commitCount()
    let result = try nbSucceeds("attach", path, second, first, "--no-link")
    XCTAssertEqual(result.stdout, "inbox/plan.files/scan-2.pdf\ninbox/plan.files/scan-3.pdf\n")
    XCTAssertEqual(try text("inbox/plan.files/scan-2.pdf"), "two")
    XCTAssertEqual(try text("inbox/plan.files/scan-3.pdf"), "one")
    // Only `updated` changed in the note: no link lines.
    let changed = try text(path).split(separator: "\n").filter { !body.split(separator: "\n").contains($0) }
    XCTAssertEqual(changed.count, 1, "\(changed)")
    XCTAssert(changed.first?.hasPrefix("updated: ") == true, "\(changed)")
    XCTAssertEqual(try commitCount(), count + 1)
  }

  func testShowListsAttachmentsAndTheKeyIsAlwaysThere() throws {
    let path = try addNote("Plan", content: "body")
    let none = try noteJSON(path)["attachments"] as? [Any]
    XCTAssertEqual(none?.count, 0, "present and empty without attachments")
    try nbSucceeds("attach", path, try outside("a.txt", Data("abc".utf8)))
    let shown = try noteJSON(path)["attachments"] as? [[String: Any]]
    XCTAssertEqual(shown?.map { $0["path"] as? String }, ["inbox/plan.files/a.txt"])
    XCTAssertEqual(shown?.map { $0["bytes"] as? Int }, [3])
    let human = try nbSucceeds("show", path).stdout
    XCTAssert(human.contains("inbox/plan.files/a.txt"), human)
  }

  func testTheFolderIsNoNotebookAndItsMarkdownIsNoNote() throws {
    let path = try addNote("Plan", notebook: "work", content: "body")
    try nbSucceeds("attach", path, try outside("readme.md", Data("# Not a note\nzebra\n".utf8)))
    let notebooks = try jsonArray("notebook", "list", "--json").map { $0["path"] as? String }
    XCTAssertEqual(notebooks, ["inbox", "work"])
    let listed = try jsonArray("list", "--json").map { $0["path"] as? String }
    XCTAssertEqual(listed, ["work/plan.md"])
    XCTAssertEqual(try nbSucceeds("search", "--count", "zebra").stdout, "0\n")
    // An edit to the attachment is the user's data: save commits it as it is, without stamping it.
    try write("work/plan.files/readme.md", "# Not a note\nzebra two\n")
    let count = try commitCount()
    try nbSucceeds("save")
    XCTAssertEqual(try commitCount(), count + 1)
    XCTAssertEqual(try text("work/plan.files/readme.md"), "# Not a note\nzebra two\n")
    XCTAssertEqual(
      try git.run("show", "--name-status", "--format=", "HEAD"), "M\twork/plan.files/readme.md\n")
    XCTAssertEqual(try git.statusPorcelain(), "")
    // The same directory without its note is an ordinary notebook.
    try nbSucceeds("delete", path)
    try write("other.files/n.md", "---\ntitle: N\n---\n")
    let after = try jsonArray("notebook", "list", "--json").map { $0["path"] as? String }
    XCTAssert(after.contains("other.files"), "\(after)")
  }

  func testMoveRenameAndDeleteTakeTheFolder() throws {
    let path = try addNote("Plan", notebook: "work", content: "body")
    let id = try string(try noteJSON(path), "id")
    try nbSucceeds("attach", path, try outside("a b.png", Data([1, 2, 3])))
    var count = try commitCount()
    try nbSucceeds("move", path, "archive")
    try assertOneCommit(
      since: count, subject: "nb: move work/plan.md -> archive/", noteIDs: [id],
      files: [
        "D\twork/plan.md", "D\twork/plan.files/a b.png", "A\tarchive/plan.md", "A\tarchive/plan.files/a b.png",
        "A\tarchive/.notebook.yaml",
      ])
    XCTAssertFalse(FileManager.default.fileExists(atPath: url("work/plan.files").path))
    count = try commitCount()
    try nbSucceeds("move", "archive/plan.md", "archive/roadmap.md")
    XCTAssertEqual(try commitCount(), count + 1)
    XCTAssertEqual(try read("archive/roadmap.files/a b.png"), Data([1, 2, 3]))
    XCTAssert(try text("archive/roadmap.md").hasSuffix("[a b.png](roadmap.files/a%20b.png)\n"), "the link follows")
    XCTAssertEqual(try git.statusPorcelain(), "")
    count = try commitCount()
    try nbSucceeds("delete", "archive/roadmap.md")
    try assertOneCommit(
      since: count, subject: "nb: delete archive/roadmap.md", noteIDs: [id],
      files: ["D\tarchive/roadmap.md", "D\tarchive/roadmap.files/a b.png"])
    XCTAssertFalse(FileManager.default.fileExists(atPath: url("archive/roadmap.files").path), "no empty folder left")
  }

  func testAMoveOntoAnExistingFolderIsRefused() throws {
    let path = try addNote("Plan", notebook: "work", content: "body")
    try nbSucceeds("attach", path, try outside("a.txt", Data("a".utf8)))
    try write("archive/plan.files/x.txt", "someone else's")
    try gitCommitAll()
    try assertRefused(["move", path, "archive"], mentioning: ["archive/plan.files"])
  }

  func testBadFilesAreRefusedWithNothingWritten() throws {
    let path = try addNote("Plan", content: "body")
    try assertRefused(["attach", path, temp.file("missing.png").path], mentioning: ["missing.png", "no such file"])
    let directory = temp.file("adir")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try assertRefused(["attach", path, directory.path], mentioning: ["adir", "is a directory"])
    try assertRefused(["attach", path, url(".git/HEAD").path], mentioning: [".git/HEAD", "inside the repository's .git"])
    // A sparse file: 50 MB and one byte without writing them.
    let big = try outside("big.iso", Data())
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
    try handle.truncate(atOffset: 50 * 1024 * 1024 + 1)
    try handle.close()
    try assertRefused(["attach", path, big], mentioning: ["big.iso", "50 MB", "git-lfs"])
    // One bad file among good ones: none is copied.
    let good = try outside("good.txt", Data("ok".utf8))
    try assertRefused(["attach", path, good, directory.path], mentioning: ["adir"])
    try assertRefused(["attach", "no-such-note", good], mentioning: ["no-such-note"])
  }
}

import Foundation
import NBTestSupport
import XCTest

/// The rename-versus-new-link race through two real clones of a bare remote and the built `nb`: one device renames
/// or moves a note, the other writes links to its old name, and the merge commit holds the links rewritten to the
/// new name — checked with the git CLI byte for byte — and the summary says so.
final class SyncLinkFollowTests: TwoDeviceTestCase {
  /// `nb check links --json` on a device: every link resolves (exit 0).
  private func assertLinksResolve(_ device: Device, file: StaticString = #filePath, line: UInt = #line) throws {
    let result = try device.nb(["check", "links", "--json"])
    XCTAssertEqual(result.status, 0, "[\(device.name)] \(result.stdout)\(result.stderr)", file: file, line: line)
  }

  /// `git diff --name-status -M` between two commits, sorted, similarity scores dropped (`R100` -> `R`): a rename
  /// may also have restamped the note.
  private func changes(_ device: Device, _ from: String, _ to: String) throws -> [String] {
    try device.git.run("diff", "--name-status", "-M", from, to).split(separator: "\n").map { row in
      row.hasPrefix("R") ? "R" + row.drop { $0 != "\t" } : String(row)
    }.sorted()
  }

  func testTheyRenamedWeLinkedTheOldName() throws {
    let notes = try share([
      Seed(title: "Plan", notebook: "work", content: "## Goals\nship\n"), Seed(title: "Other", content: "x\n"),
    ])
    let plan = notes[0].path
    XCTAssertEqual(plan, "work/plan.md")
    // The laptop renames the file as an editor would; its sync commits and pushes the rename.
    try FileManager.default.moveItem(
      at: a.root.appendingPathComponent(plan), to: a.root.appendingPathComponent("work/roadmap.md"))
    try a.sync()
    // Meanwhile the desktop links the old name, in several forms, next to a link that is not affected.
    let ideas = try b.add("Ideas", content: "See [[plan]], [[work/plan#Goals|the goals]] and [[other]].\n")
    let written = try b.read(ideas.path)
    let merged = try b.sync()
    XCTAssertEqual(merged.outcome, "merged")
    let line = written.components(separatedBy: "\n").firstIndex { $0.hasPrefix("See ") }! + 1
    XCTAssertEqual(
      merged.links_followed,
      [
        .init(path: ideas.path, line: line, old: "plan", new: "roadmap"),
        .init(path: ideas.path, line: line, old: "work/plan", new: "work/roadmap"),
      ])

    // The merge commit holds the rewritten links and nothing else changed: against the desktop's own commit, the
    // rename came in and the note changed in exactly those bytes; against the laptop's, only the new note arrived.
    let expected = written.replacingOccurrences(of: "[[plan]]", with: "[[roadmap]]")
      .replacingOccurrences(of: "[[work/plan#", with: "[[work/roadmap#")
    XCTAssertNotEqual(expected, written)
    XCTAssertEqual(try b.git.show("HEAD", path: ideas.path), expected)
    XCTAssertEqual(try b.git.show("HEAD^1", path: ideas.path), written)
    XCTAssertEqual(try changes(b, "HEAD^1", "HEAD"), ["M\t\(ideas.path)", "R\twork/plan.md\twork/roadmap.md"].sorted())
    XCTAssertEqual(try changes(b, "HEAD^2", "HEAD"), ["A\t\(ideas.path)"])
    XCTAssertEqual(try b.git.show("HEAD", path: "work/roadmap.md"), try b.git.show("HEAD^2", path: "work/roadmap.md"))
    XCTAssert(try b.git.run("log", "-1", "--format=%B").contains("Nb-Note-Id: \(ideas.id)"))

    try a.sync()
    try assertConverged(exempt: [ideas.id])
    XCTAssertEqual(try a.read(ideas.path), expected)
    try assertLinksResolve(a)
    try assertLinksResolve(b)
  }

  func testWeMovedTheyLinkedTheOldPathInAPercentEncodedMarkdownLink() throws {
    try share([Seed(title: "Other", content: "x\n")])
    // A note whose file name has a space (written as any editor would), shared by both devices.
    try a.write("work/Big plan.md", "---\ntitle: Big plan\n---\nbody\n")
    try settle()
    // The laptop links it from inbox/ by its path, percent-encoded, from the root and relative, and pushes first.
    let links = try a.add(
      "Links", content: "[the plan](work/Big%20plan.md) [same](../work/Big%20plan.md) [[Big plan]] [x](other.md)\n")
    XCTAssertEqual(links.path, "inbox/links.md")
    let written = try a.read(links.path)
    try a.sync()
    // The desktop moves the note to another folder, then syncs: it merges the laptop's new links.
    try b.ok("move", "work/Big plan", "archive")
    XCTAssert(FileManager.default.fileExists(atPath: b.root.appendingPathComponent("archive/Big plan.md").path))
    let result = try b.nb(["sync", "--device", b.name])
    XCTAssertEqual(result.status, 0, result.stderr)
    let line = written.components(separatedBy: "\n").firstIndex { $0.hasPrefix("[the plan]") }! + 1
    XCTAssert(
      result.stdout.contains(
        "  relinked  \(links.path):\(line): work/Big%20plan.md -> archive/Big%20plan.md (its note was renamed or moved)"
      ),
      result.stdout)
    XCTAssert(
      result.stdout.contains("  relinked  \(links.path):\(line): ../work/Big%20plan.md -> ../archive/Big%20plan.md"),
      result.stdout)
    // The bare name still reaches the moved note and the link to another note still works: both untouched.
    let expected = written.replacingOccurrences(of: "(work/Big%20plan.md)", with: "(archive/Big%20plan.md)")
      .replacingOccurrences(of: "(../work/Big%20plan.md)", with: "(../archive/Big%20plan.md)")
    XCTAssertEqual(try b.git.show("HEAD", path: links.path), expected)
    XCTAssertEqual(
      try changes(b, "HEAD^2", "HEAD"),
      ["A\tarchive/.notebook.yaml", "M\t\(links.path)", "R\twork/Big plan.md\tarchive/Big plan.md"].sorted())
    XCTAssertEqual(try changes(b, "HEAD^1", "HEAD"), ["A\t\(links.path)"])
    try a.sync()
    try assertConverged(exempt: [links.id])
    try assertLinksResolve(a)
  }

  func testASyncWithoutRenamesRewritesNothingAndSaysSo() throws {
    try share([Seed(title: "Plan", content: "x\n")])
    try a.add("Mine", content: "[[plan]]\n")
    try a.sync()
    try b.add("Yours", content: "[[plan]] [[nowhere]]\n")
    let merged = try b.sync()
    XCTAssertEqual(merged.outcome, "merged")
    XCTAssertEqual(merged.links_followed, [])
  }
}

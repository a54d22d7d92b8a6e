import Foundation
import NBTestSupport
import XCTest

/// Files nb did not write, meeting `nb sync`: a note copied with plain git on another device, and a note nb cannot
/// stamp on this one.
final class SyncForeignFilesTests: TwoDeviceTestCase {
  func testSyncNeverMergesTwoNotesBecauseTheyShareAnID() throws {
    let shared = try share([Seed(title: "Plan", content: "line one\nline two\n")])[0]
    // Device B has only git: it copies the note (to a path that sorts first) and rewrites the copy's body.
    let original = try String(contentsOf: b.root.appendingPathComponent(shared.path), encoding: .utf8)
    let copyPath = "inbox/0-copy.md"
    let copy = original.replacingOccurrences(of: "line one\nline two\n", with: "a different note now\n")
    try copy.write(to: b.root.appendingPathComponent(copyPath), atomically: true, encoding: .utf8)
    try b.git.run("add", copyPath)
    try b.git.run("commit", "-q", "-m", "copy of the plan")
    try b.git.run("push", "-q", "origin", "HEAD:main")
    // Device A edits the original with nb.
    try a.ok("edit", shared.path, "--append", "ours")

    let summary = try a.sync()
    XCTAssertEqual(summary.outcome, "merged")
    XCTAssertEqual(summary.conflicts.count, 0)
    XCTAssert(summary.warnings.contains { $0.contains(copyPath) }, "\(summary.warnings)")
    let mine = try String(contentsOf: a.root.appendingPathComponent(shared.path), encoding: .utf8)
    XCTAssert(mine.hasSuffix("line one\nline two\nours\n"), mine)
    XCTAssertFalse(mine.contains("a different note"), mine)
    let arrived = try String(contentsOf: a.root.appendingPathComponent(copyPath), encoding: .utf8)
    XCTAssert(arrived.hasSuffix("---\na different note now\n"), arrived)
    XCTAssertFalse(arrived.contains(shared.id), "the copy has an id of its own:\n\(arrived)")
    // The id names one note again, on both devices once B has synced.
    let shown = try a.ok("show", shared.id, "--json")
    XCTAssert(shown.stdout.contains("\"path\" : \"\(shared.path)\""), shown.stdout)
    try b.sync()
    try assertConverged()
  }

  func testSyncCommitsANoteItCannotStampAndSaysSo() throws {
    let shared = try share([Seed(title: "Plan", content: "line one\n")])[0]
    let broken = "---\ntitle: Plan\nkey: : x\n---\nedited by hand\n"
    try broken.write(to: a.root.appendingPathComponent(shared.path), atomically: true, encoding: .utf8)
    let summary = try a.sync()
    XCTAssertEqual(summary.outcome, "pushed")
    XCTAssert(
      summary.warnings.contains { $0.contains("\(shared.path):3") && $0.contains("unchanged") }, "\(summary.warnings)")
    XCTAssertEqual(try a.git.show("origin/main", path: shared.path), broken)
  }

  func testAnAppsSettingsChangedOnBothDevicesKeepTheNewerWithoutACopy() throws {
    try share([Seed(title: "Plan", content: "line one\n")])
    try a.write(".obsidian/app.json", "{\"theme\": \"base\"}\n")
    try a.ok("save")
    try settle()
    try a.write(".obsidian/app.json", "{\"theme\": \"laptop\"}\n")
    try a.ok("save")
    try a.sync()
    // Commit times have whole seconds: the tablet's change is surely the later one.
    Thread.sleep(forTimeInterval: 1.1)
    try b.write(".obsidian/app.json", "{\"theme\": \"tablet\"}\n")
    try b.ok("save")

    let merged = try b.sync()
    XCTAssertEqual(merged.outcome, "merged")
    XCTAssertEqual(merged.conflicts.count, 0)
    XCTAssert(
      merged.warnings.contains { $0.hasPrefix("'.obsidian/app.json' changed on both devices") }, "\(merged.warnings)")
    try a.sync()
    for device in [a!, b!] {
      XCTAssertEqual(try device.git.show("HEAD", path: ".obsidian/app.json"), "{\"theme\": \"tablet\"}\n")
      let files = try device.git.run("ls-files").split(separator: "\n")
      XCTAssertFalse(files.contains { $0.contains("conflict") }, "no copy next to the settings: \(files)")
    }
    // The laptop's version stays in history: the merge's other parent.
    XCTAssertEqual(try b.git.show("HEAD^2", path: ".obsidian/app.json"), "{\"theme\": \"laptop\"}\n")
    try assertConverged()
  }
}

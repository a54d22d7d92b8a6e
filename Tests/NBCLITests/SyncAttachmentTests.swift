import Foundation
import NBTestSupport
import XCTest

/// Attachments meeting `nb sync` through two real clones: added on both devices, both arrive; the same binary
/// changed on both, both versions are kept (the later at the path, the other in history), as for any non-note file.
final class SyncAttachmentTests: TwoDeviceTestCase {
  /// A file outside both repositories to attach.
  func source(_ name: String, _ data: Data) throws -> String {
    let url = temp.file("sources-\(UUID().uuidString)").appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url)
    return url.path
  }

  func testAttachmentsAddedOnBothDevicesBothArriveAndNoCopyTakesThem() throws {
    let plan = try share([Seed(title: "Plan", content: "line one\n")])[0]
    try a.ok("attach", plan.path, try source("laptop.png", Data([0x89, 0x50, 1])))
    Thread.sleep(forTimeInterval: 1.1)
    try b.ok("attach", plan.path, try source("tablet.png", Data([0x89, 0x50, 2])))
    try a.sync()
    try b.sync()
    try a.sync()
    try assertConverged()
    let folder = RepoPathsForTest.folder(of: plan.path)
    for device in [a!, b!] {
      let files = try device.git.run("ls-files").split(separator: "\n").map(String.init)
      XCTAssert(files.contains("\(folder)/laptop.png"), "\(files)")
      XCTAssert(files.contains("\(folder)/tablet.png"), "\(files)")
      // Both link lines were appended at the same place: whatever the merge made of the note, a conflict copy (if
      // any) has no folder of its own, and the note's folder holds both files.
      XCTAssertEqual(files.filter { $0.contains(".files/") && !$0.hasPrefix(folder + "/") }, [], "\(files)")
    }
    // Both links survive somewhere in the notes (the note itself or its conflict copy): nothing lost.
    let notes = try a.git.run("grep", "-l", "-e", "laptop.png", "-e", "tablet.png", "HEAD", "--", "*.md")
    XCTAssertFalse(notes.isEmpty)
  }

  func testABinaryAttachmentChangedOnBothDevicesKeepsBothVersions() throws {
    let plan = try share([Seed(title: "Plan", content: "line one\n")])[0]
    try a.ok("attach", plan.path, try source("photo.bin", Data([0, 1, 2, 0xFF])))
    try settle()
    let path = RepoPathsForTest.folder(of: plan.path) + "/photo.bin"
    try Data([0, 0xAA, 0xFF]).write(to: a.root.appendingPathComponent(path))
    try a.ok("save")
    try a.sync()
    // Commit times have whole seconds: the tablet's change is surely the later one.
    Thread.sleep(forTimeInterval: 1.1)
    try Data([0, 0xBB, 0xFF]).write(to: b.root.appendingPathComponent(path))
    try b.ok("save")

    let merged = try b.sync()
    XCTAssertEqual(merged.outcome, "merged")
    XCTAssertEqual(merged.conflicts.count, 0)
    try a.sync()
    try assertConverged()
    for device in [a!, b!] {
      XCTAssertEqual(try Data(contentsOf: device.root.appendingPathComponent(path)), Data([0, 0xBB, 0xFF]))
    }
    // The laptop's version is kept too: the merge's other parent holds it, byte for byte.
    let laptop = try b.git.run("rev-parse", "HEAD^2:\(path)").trimmingCharacters(in: .whitespacesAndNewlines)
    let expected = try b.git.run(arguments: ["hash-object", "--stdin"], stdin: Data([0, 0xAA, 0xFF]))
      .trimmingCharacters(in: .whitespacesAndNewlines)
    XCTAssertEqual(laptop, expected)
  }
}

/// The attachment folder's path, written out here rather than asked of nb.
enum RepoPathsForTest {
  static func folder(of notePath: String) -> String { String(notePath.dropLast(3)) + ".files" }
}

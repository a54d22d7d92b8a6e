import Foundation
import NBTestSupport
import XCTest

/// A note without `updated` (edited and committed by another git tool) is timed by the author time of the last
/// commit that changed it on each side: that decides which version keeps the path.
final class SyncCommitTimeTests: TwoDeviceTestCase {
  func testWithoutUpdatedTheLaterCommitKeepsThePath() throws {
    let notes = try share([
      Seed(title: "Laptop Later", content: SyncTableScenarios.fiveLines),
      Seed(title: "Desktop Later", content: SyncTableScenarios.fiveLines),
    ])
    // Hours apart and in the past, so that neither is an untrusted future time and the order is unambiguous.
    let laptopHours = [-1.0, -3.0]
    let desktopHours = [-3.0, -1.0]
    for (device, hours) in [(a!, laptopHours), (b!, desktopHours)] {
      for (note, offset) in zip(notes, hours) {
        let text = try device.read(note.path)
        let withoutUpdated = text.components(separatedBy: "\n").filter { !$0.hasPrefix("updated: ") }
          .joined(separator: "\n")
        try device.write(
          note.path, withoutUpdated.replacingOccurrences(of: "line two", with: "line two, \(device.name)"))
        let date = ISO8601DateFormatter().string(from: Date().addingTimeInterval(offset * 3600))
        _ = try device.git.run("commit", "-q", "--date", date, "-m", "edit \(note.path) by hand", note.path)
      }
    }

    let summaries = try syncAll([b, a, b])
    let merge = summaries[1]
    XCTAssertEqual(merge.outcome, "merged")
    let winners = Dictionary(uniqueKeysWithValues: merge.conflicts.map { ($0.path, $0.winner) })
    // The merge runs on the laptop: "ours" is the laptop's version.
    XCTAssertEqual(winners[notes[0].path], "ours", "the laptop committed later: \(merge.conflicts)")
    XCTAssertEqual(winners[notes[1].path], "theirs", "the desktop committed later: \(merge.conflicts)")
    for device in [a!, b!] {
      XCTAssertTrue(try device.read(notes[0].path).contains("line two, laptop"))
      XCTAssertTrue(try device.read(notes[1].path).contains("line two, desktop"))
      for conflict in merge.conflicts {
        XCTAssertTrue(FileManager.default.fileExists(atPath: device.root.appendingPathComponent(conflict.kept_at).path))
      }
    }
    try assertConverged()
  }
}

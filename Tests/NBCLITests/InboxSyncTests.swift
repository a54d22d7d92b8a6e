import Foundation
import NBTestSupport
import XCTest

/// The decisions file merges through `nb sync`: both devices' lines are kept, in time order, with no conflict.
final class InboxSyncTests: TwoDeviceTestCase {
  private func at(_ device: Device, _ time: String) -> [String: String] {
    ["NB_NOW": "2026-11-24T\(time):00+01:00", "TZ": "Europe/Berlin"]
  }

  private func run(_ device: Device, _ time: String, _ args: String..., file: StaticString = #filePath, line: UInt = #line)
    throws
  {
    let result = try device.nb(args, env: at(device, time))
    XCTAssertEqual(result.status, 0, "[\(device.name)] nb \(args) failed: \(result.stderr)", file: file, line: line)
  }

  private func decisions(_ device: Device) throws -> [String] {
    try device.read(".nb/inbox/decisions.jsonl").split(separator: "\n").map(String.init)
  }

  func testDecisionsFromBothDevicesAreKept() throws {
    try share([])
    try run(a, "09:00", "notebook", "create", "health")
    try run(a, "09:00", "notebook", "create", "work")
    try run(a, "09:01", "capture", "call the dentist")
    try run(a, "09:02", "capture", "write the report")
    try run(a, "09:03", "capture", "first filed")
    try run(a, "09:04", "inbox", "file", "inbox/first-filed.md", "work")
    try settle()
    try run(a, "10:00", "inbox", "file", "inbox/call-the-dentist.md", "health")
    try run(b, "11:00", "inbox", "file", "inbox/write-the-report.md", "work")
    let tips = [try a.head(), try b.head()]
    try syncAll([a, b, a])
    for device in [a!, b!] {
      let lines = try decisions(device)
      XCTAssertEqual(lines.count, 3, lines.joined(separator: "\n"))
      XCTAssertEqual(
        lines.map { $0.contains("\"chosen\":\"work\"") ? "work" : "health" }, ["work", "health", "work"],
        "in time order: 09:04, 10:00, 11:00")
      XCTAssertTrue(lines[1].hasPrefix("{\"time\":\"2026-11-24T09:00:00Z\""), lines[1])
      XCTAssertTrue(lines[2].hasPrefix("{\"time\":\"2026-11-24T10:00:00Z\""), lines[2])
    }
    XCTAssertTrue(FileManager.default.fileExists(atPath: a.root.appendingPathComponent("health/call-the-dentist.md").path))
    XCTAssertTrue(FileManager.default.fileExists(atPath: a.root.appendingPathComponent("work/write-the-report.md").path))
    try assertConverged(tips: tips)
  }

  /// Two devices file one item to different notebooks: the note ends where the later filing put it, both decisions
  /// stay in the file, and the classifier learns only from the one that won (the other notebook gains nothing).
  func testTheSameItemFiledOnBothDevicesKeepsBothDecisionsAndOnlyTheWinnerTrains() throws {
    try share([])
    try run(a, "09:00", "notebook", "create", "health")
    try run(a, "09:00", "notebook", "create", "errands")
    try run(a, "09:00", "add", "Checkup", "--notebook", "health", "--content", "blood pressure and the pharmacy")
    try run(a, "09:00", "add", "Groceries", "--notebook", "errands", "--content", "milk bread and stamps")
    try run(a, "09:01", "capture", "call the dentist about the bridge")
    try settle()
    try run(a, "10:00", "inbox", "file", "inbox/call-the-dentist-about-the-bridge.md", "health")
    try run(b, "11:00", "inbox", "file", "inbox/call-the-dentist-about-the-bridge.md", "errands")
    try syncAll([a, b, a])
    for device in [a!, b!] {
      let winner = FileManager.default.fileExists(
        atPath: device.root.appendingPathComponent("errands/call-the-dentist-about-the-bridge.md").path)
        ? "errands" : "health"
      let loser = winner == "errands" ? "health" : "errands"
      XCTAssertEqual(try decisions(device).count, 2)
      try run(device, "12:00", "capture", "dentist bridge")
      let listing = try device.nb(["inbox", "--json"], env: at(device, "12:01"))
      XCTAssertEqual(listing.status, 0, listing.stderr)
      let items = try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
      let probe = try XCTUnwrap(items.first { $0["title"] as? String == "dentist bridge" })
      let candidates = try XCTUnwrap(probe["candidates"] as? [[String: Any]])
      let confidence = Dictionary(
        uniqueKeysWithValues: candidates.map { ($0["notebook"] as? String ?? "", $0["confidence"] as? Double ?? -1) })
      XCTAssertEqual(candidates.first?["notebook"] as? String, winner, "[\(device.name)] \(candidates)")
      // Counted, the losing correction (weight 3 of these very words) gives its notebook 12 %; not counted, it has
      // none of these words and gets under 0.1 %.
      XCTAssertLessThan(try XCTUnwrap(confidence[loser]), 0.03, "[\(device.name)] \(candidates)")
    }
    try syncAll([a, b, a])
    let filed = FileManager.default.fileExists(
      atPath: a.root.appendingPathComponent("errands/call-the-dentist-about-the-bridge.md").path)
      ? "errands/call-the-dentist-about-the-bridge.md" : "health/call-the-dentist-about-the-bridge.md"
    try assertConverged(exempt: Set([try XCTUnwrap(TwoDeviceTestCase.frontMatterValue("id", in: try a.read(filed)))]))
  }
}

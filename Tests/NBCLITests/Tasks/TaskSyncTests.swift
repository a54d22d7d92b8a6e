import Foundation
import NBTestSupport
import XCTest

/// The sync policy holds for tasks, through two real clones and a bare remote: fields changed on different devices
/// are both kept (key by key), ticks on different subtasks both land (line by line), a repeating task completed on
/// both devices advances once, and a tick beats a delete (edit beats delete).
final class TaskSyncTests: TwoDeviceTestCase {
  /// Device A works at 10:00, device B at 11:00, the same Tuesday in Berlin.
  private func at(_ device: Device, _ time: String) -> [String: String] {
    ["NB_NOW": "2026-11-24T\(time):00+01:00", "TZ": "Europe/Berlin", "NB_DIR": device.root.path]
  }

  @discardableResult
  private func run(
    _ device: Device, _ time: String, _ args: String..., file: StaticString = #filePath, line: UInt = #line
  ) throws -> ProcessResult {
    let result = try device.nb(args, env: at(device, time))
    XCTAssertEqual(result.status, 0, "[\(device.name)] nb \(args) failed: \(result.stderr)", file: file, line: line)
    return result
  }

  /// Shares one task, added on A, with B.
  private func shareTask(_ args: String...) throws -> (path: String, id: String) {
    try share([])
    let out = try a.nb(["task", "add"] + args, env: at(a, "09:00"))
    XCTAssertEqual(out.status, 0, out.stderr)
    let words = out.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    try settle()
    return (words[0], words[1])
  }

  private func value(_ key: String, _ path: String, on device: Device) throws -> String? {
    Self.frontMatterValue(key, in: try device.read(path))
  }

  func testDoneOnOneDeviceWhileTheDueDateChangesOnTheOther() throws {
    let (path, id) = try shareTask("Report", "--due", "2026-11-30")
    try run(a, "10:00", "task", "done", path)
    try run(b, "11:00", "task", "edit", path, "--due", "2026-12-04")
    let tips = [try a.head(), try b.head()]
    try syncAll([a, b, a])
    for device in [a!, b!] {
      XCTAssertEqual(try value("status", path, on: device), "done")
      XCTAssertEqual(try value("completedDate", path, on: device), "2026-11-24")
      XCTAssertEqual(try value("due", path, on: device), "2026-12-04")
    }
    XCTAssertEqual(try a.conflicts().count, 0)
    try assertConverged(tips: tips, exempt: [id])
  }

  func testSubtasksTickedOnBothDevicesKeepBothTicks() throws {
    let (path, id) = try shareTask("Ship", "--subtask", "write notes", "--subtask", "tag release", "--subtask", "mail")
    try run(a, "10:00", "task", "done", path, "--subtask", "1")
    try run(b, "11:00", "task", "done", path, "--subtask", "3")
    let tips = [try a.head(), try b.head()]
    try syncAll([a, b, a])
    for device in [a!, b!] {
      let text = try device.read(path)
      XCTAssertTrue(text.hasSuffix("- [x] write notes\n- [ ] tag release\n- [x] mail\n"), text)
    }
    try assertConverged(tips: tips, exempt: [id])
  }

  func testARepeatingTaskCompletedOnBothDevicesAdvancesOnce() throws {
    let (path, id) = try shareTask("Review", "--due", "2026-11-23", "--repeat", "weekly")
    try run(a, "10:00", "task", "done", path)
    try run(b, "11:00", "task", "done", path)
    XCTAssertEqual(try value("due", path, on: a), "2026-11-30")
    XCTAssertEqual(try value("due", path, on: b), "2026-11-30")
    let tips = [try a.head(), try b.head()]
    try syncAll([a, b, a])
    for device in [a!, b!] {
      XCTAssertEqual(try value("due", path, on: device), "2026-11-30", "one advance, not two")
      XCTAssertEqual(try value("complete_instances", path, on: device), "[\"2026-11-24\"]")
      XCTAssertEqual(try value("status", path, on: device), "open")
    }
    XCTAssertEqual(try a.conflicts().count, 0)
    try assertConverged(tips: tips, exempt: [id])
  }

  func testARepeatingTaskCompletedOnDifferentDaysStillAdvancesOnce() throws {
    let (path, id) = try shareTask("Review", "--due", "2026-11-23", "--repeat", "weekly")
    try run(a, "10:00", "task", "done", path)
    let next = try b.nb(
      ["task", "done", path],
      env: ["NB_NOW": "2026-11-25T08:00:00+01:00", "TZ": "Europe/Berlin", "NB_DIR": b.root.path])
    XCTAssertEqual(next.status, 0, next.stderr)
    let tips = [try a.head(), try b.head()]
    try syncAll([a, b, a])
    for device in [a!, b!] {
      XCTAssertEqual(try value("due", path, on: device), "2026-11-30", "one advance, not two")
    }
    try assertConverged(tips: tips, exempt: [id])
  }

  func testATickBeatsADelete() throws {
    let (path, _) = try shareTask("Chore", "--subtask", "sweep")
    try run(a, "10:00", "delete", path)
    try run(b, "11:00", "task", "done", path)
    try syncAll([a, b, a])
    for device in [a!, b!] {
      XCTAssertTrue(FileManager.default.fileExists(atPath: device.root.appendingPathComponent(path).path))
      XCTAssertEqual(try value("status", path, on: device), "done")
    }
    try assertConverged()
  }
}

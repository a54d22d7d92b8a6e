import Foundation
import XCTest

@testable import FileWatch

#if canImport(Glibc)
  import Glibc
#endif

/// The pure parts: decoding raw inotify buffers, the polling diff, the notices. No files, no threads.
final class InotifyDecodingTests: XCTestCase {
  /// One record as the kernel lays it out, the name NUL-padded to `length` bytes.
  private func record(wd: Int32, mask: UInt32, cookie: UInt32 = 0, name: String = "", length: Int? = nil) -> [UInt8] {
    var bytes: [UInt8] = []
    withUnsafeBytes(of: wd) { bytes += $0 }
    withUnsafeBytes(of: mask) { bytes += $0 }
    withUnsafeBytes(of: cookie) { bytes += $0 }
    let nameBytes = Array(name.utf8)
    let padded = length ?? (nameBytes.isEmpty ? 0 : (nameBytes.count / 16 + 1) * 16)
    withUnsafeBytes(of: UInt32(padded)) { bytes += $0 }
    bytes += nameBytes + [UInt8](repeating: 0, count: padded - nameBytes.count)
    return bytes
  }

  func testDecodesRecordsWithVariableNameLengths() {
    let buffer =
      record(wd: 1, mask: InotifyMask.create.rawValue, name: "a.md")
      + record(wd: 2, mask: InotifyMask([.movedFrom, .isDirectory]).rawValue, cookie: 77, name: "notebook")
      + record(wd: 2, mask: InotifyMask([.movedTo, .isDirectory]).rawValue, cookie: 77, name: "renamed-notebook")
      + record(wd: 1, mask: InotifyMask.deleteSelf.rawValue)  // no name: the watched directory itself
      + record(wd: 3, mask: InotifyMask.closeWrite.rawValue, name: "exactly16bytes.m", length: 32)
      + record(wd: 4, mask: InotifyMask.modify.rawValue, name: "é ü.md")
    XCTAssertEqual(
      InotifyRecord.decode(buffer),
      [
        InotifyRecord(wd: 1, mask: .create, cookie: 0, name: "a.md"),
        InotifyRecord(wd: 2, mask: [.movedFrom, .isDirectory], cookie: 77, name: "notebook"),
        InotifyRecord(wd: 2, mask: [.movedTo, .isDirectory], cookie: 77, name: "renamed-notebook"),
        InotifyRecord(wd: 1, mask: .deleteSelf, cookie: 0, name: ""),
        InotifyRecord(wd: 3, mask: .closeWrite, cookie: 0, name: "exactly16bytes.m"),
        InotifyRecord(wd: 4, mask: .modify, cookie: 0, name: "é ü.md"),
      ])
  }

  /// The overflow record the kernel queues when events were dropped: wd -1, no name.
  func testDecodesAQueueOverflowRecord() {
    let buffer =
      record(wd: 5, mask: InotifyMask.modify.rawValue, name: "n.md")
      + record(wd: -1, mask: InotifyMask.queueOverflow.rawValue)
    let records = InotifyRecord.decode(buffer)
    XCTAssertEqual(records.count, 2)
    XCTAssertEqual(records[1].wd, -1)
    XCTAssertTrue(records[1].mask.contains(.queueOverflow))
    XCTAssertEqual(records[1].name, "")
  }

  func testATruncatedRecordAtTheEndIsDropped() {
    let whole = record(wd: 1, mask: InotifyMask.create.rawValue, name: "a.md")
    let cut = record(wd: 1, mask: InotifyMask.create.rawValue, name: "b.md")
    XCTAssertEqual(InotifyRecord.decode(whole + cut.prefix(20)).map(\.name), ["a.md"])
    XCTAssertEqual(InotifyRecord.decode(whole + cut.prefix(8)).map(\.name), ["a.md"])
    XCTAssertEqual(InotifyRecord.decode([]), [])
  }

  #if os(Linux)
    /// The decoder's constants are spelled out for portability; they must be the kernel's.
    func testMaskConstantsAreGlibcs() {
      let pairs: [(InotifyMask, Int32)] = [
        (.modify, IN_MODIFY), (.attrib, IN_ATTRIB), (.closeWrite, IN_CLOSE_WRITE), (.movedFrom, IN_MOVED_FROM),
        (.movedTo, IN_MOVED_TO), (.create, IN_CREATE), (.delete, IN_DELETE), (.deleteSelf, IN_DELETE_SELF),
        (.moveSelf, IN_MOVE_SELF), (.unmount, IN_UNMOUNT), (.queueOverflow, IN_Q_OVERFLOW),
        (.ignored, IN_IGNORED), (.onlyDirectory, IN_ONLYDIR), (.dontFollow, IN_DONT_FOLLOW),
        (.excludeUnlinked, IN_EXCL_UNLINK), (.isDirectory, IN_ISDIR),
      ]
      for (mask, glibc) in pairs { XCTAssertEqual(mask.rawValue, UInt32(bitPattern: glibc)) }
      XCTAssertEqual(InotifyRecord.headerSize, MemoryLayout<inotify_event>.size)
    }
  #endif

  func testPollingDiff() {
    func file(_ inode: UInt64, size: Int64 = 1, mtime: Int64 = 1, mode: UInt32 = 0o100644) -> EntryStat {
      EntryStat(device: 1, inode: inode, size: size, modifiedNanoseconds: mtime, mode: mode, isDirectory: false)
    }
    func dir(_ inode: UInt64, mtime: Int64 = 1) -> EntryStat {
      EntryStat(device: 1, inode: inode, size: 4096, modifiedNanoseconds: mtime, mode: 0o40755, isDirectory: true)
    }
    let old: [String: EntryStat] = [
      "same.md": file(1), "grown.md": file(2), "touched.md": file(3), "replaced.md": file(4), "chmod.md": file(5),
      "gone": dir(10), "gone/x.md": file(11), "kept": dir(12), "flip": file(13),
    ]
    let new: [String: EntryStat] = [
      "same.md": file(1), "grown.md": file(2, size: 9), "touched.md": file(3, mtime: 2), "replaced.md": file(40),
      "chmod.md": file(5, mode: 0o100755), "kept": dir(12, mtime: 5), "kept/new.md": file(20), "flip": dir(21),
      "fresh": dir(22), "fresh/a.md": file(23),
    ]
    XCTAssertEqual(
      PollingSource.diff(from: old, to: new).map(\.description),
      [
        "removed gone/x.md", "removed gone/", "removed flip",
        "created flip/", "created fresh/", "created fresh/a.md", "created kept/new.md",
        "modified chmod.md", "modified grown.md", "modified replaced.md", "modified touched.md",
      ])
    XCTAssertEqual(PollingSource.diff(from: new, to: new), [])
  }

  func testNotices() {
    XCTAssertEqual(
      Notice.watchLimit(limit: 8192, watched: 8192, pollInterval: 1),
      "the per-user inotify watch limit (fs.inotify.max_user_watches = 8192) was reached after 8192 directories; "
        + "polling every 1 s instead; raise it with 'sudo sysctl fs.inotify.max_user_watches=524288'")
    XCTAssertEqual(
      Notice.instanceLimit(limit: 128, pollInterval: 0.5),
      "the per-user inotify instance limit (fs.inotify.max_user_instances = 128) was reached; polling every 0.5 s "
        + "instead; raise it with 'sudo sysctl fs.inotify.max_user_instances=1024'")
    XCTAssertFalse(Notice.watchLimit(limit: nil, watched: 1, pollInterval: 2).contains("\n"))
  }

  func testPathHelpers() {
    XCTAssertEqual(FileSystem.join("", "a"), "a")
    XCTAssertEqual(FileSystem.join("a/b", "c"), "a/b/c")
    XCTAssertTrue(FileSystem.isWithin("a/b", "a"))
    XCTAssertTrue(FileSystem.isWithin("a", "a"))
    XCTAssertFalse(FileSystem.isWithin("ab", "a"))
    XCTAssertFalse(FileSystem.isWithin("a", "a/b"))
    XCTAssertTrue(FileSystem.isWithin("anything", ""))
  }
}

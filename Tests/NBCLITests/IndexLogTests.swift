import Foundation
import NBTestSupport
import XCTest

/// The index's write-ahead log (`.git/nb/index/notes.sqlite-wal`) stays short across many short nb processes, and
/// emptying it never makes a command wait for a reader. Every process reads the whole log when it opens the index,
/// so a log that only grew (SQLite's own automatic checkpoint never empties it when each process is the index's
/// first connection) made every command slower than the one before.
final class IndexLogTests: NBCLITestCase {
  private var log: URL { root.appendingPathComponent(".git/nb/index/notes.sqlite-wal") }

  private func logSize() -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: log.path))?[.size] as? Int) ?? 0
  }

  func testTheLogStaysShortAcrossManyCommands() throws {
    try makeRepository()
    var largest = 0
    for i in 1...60 {
      try nbSucceeds("add", "Note \(i)", "--notebook", "log", "--content", "body \(i) " + String(repeating: "x", count: 2000))
      largest = max(largest, logSize())
    }
    // 128 pages of 4 KiB before it is emptied, plus what one command adds: far below the 3 MB it grew to.
    XCTAssertLessThan(largest, 1 << 20, "the log reached \(largest) bytes")
    XCTAssertEqual(try jsonArray(arguments: ["list", "log", "--json"]).count, 60)
  }

  func testAReaderHoldingTheLogNeverMakesAWriterWait() throws {
    try XCTSkipUnless((try? ProcessRunner.resolve("python3")) != nil, "python3 (its sqlite3 module) holds the reader")
    try makeRepository()
    try nbSucceeds("add", "First", "--content", "1")
    let ready = temp.file("reader-ready")
    // Another process in a read transaction on the index, as a paged `nb list` is, until it is killed.
    let reader = try ProcessRunner.launch(
      "python3",
      arguments: [
        "-c",
        """
        import sqlite3, sys, time
        db = sqlite3.connect(sys.argv[1], isolation_level=None)
        db.execute("BEGIN")
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        open(sys.argv[2], "w").close()
        time.sleep(120)
        """,
        root.appendingPathComponent(".git/nb/index/notes.sqlite").path, ready.path,
      ])
    defer { reader.terminate(SIGKILL) }
    let deadline = Date().addingTimeInterval(30)
    while !FileManager.default.fileExists(atPath: ready.path) && Date() < deadline { usleep(20_000) }
    XCTAssertTrue(FileManager.default.fileExists(atPath: ready.path), "the reader never started")
    let started = Date()
    for i in 1...25 {
      let result = try nb(
        arguments: ["add", "Held \(i)", "--content", String(repeating: "y", count: 3000)], timeout: 60)
      XCTAssertEqual(result.status, 0, result.stderr)
    }
    // 25 commands whose log passes the threshold while the reader holds it: none waits out the busy timeout.
    XCTAssertLessThan(Date().timeIntervalSince(started), 50)
    reader.terminate(SIGKILL)
    _ = try? reader.wait(timeout: 10)
    try nbSucceeds("add", "After", "--content", "z")
    XCTAssertLessThan(logSize(), 1 << 20, "the log was not emptied once the reader had gone")
  }
}

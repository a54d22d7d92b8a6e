import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// Staging a batch of files: flushed to disk file by file for a few, by one flush of the file system for many
/// (Linux), and either way whole once installed, with nothing left behind when the batch fails half-way.
final class AtomicFileTests: XCTestCase {
  private var temp: TemporaryDirectory!

  override func setUpWithError() throws {
    temp = try TemporaryDirectory()
  }

  override func tearDownWithError() throws {
    temp = nil
  }

  private func leftovers(in directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).filter(AtomicFile.isTemporary).sorted()
  }

  /// `FileSystem.makeDirectory` is `mkdir -p` with mkdir itself: FileManager's `createDirectory` with intermediate
  /// directories is the oracle for each case, made side by side in two folders.
  func testMakeDirectoryDoesWhatFileManagerDoes() throws {
    let ours = try temp.directory("ours").path
    let oracle = try temp.directory("oracle").path
    for base in [ours, oracle] {
      try Data("x".utf8).write(to: URL(fileURLWithPath: base + "/file"))
      try FileManager.default.createDirectory(atPath: base + "/existing/inner", withIntermediateDirectories: true)
    }
    let cases = [
      "new", "deep/er/and/deeper", "existing", "existing/inner", "existing/inner/more", "trailing/slash/",
      "double//slash", "file", "file/below", "dots/./and/../here",
    ]
    for relative in cases {
      let made = Result { try FileSystem.makeDirectory(ours + "/" + relative) }
      let expected = Result {
        try FileManager.default.createDirectory(atPath: oracle + "/" + relative, withIntermediateDirectories: true)
      }
      switch (made, expected) {
      case (.success, .success): break
      case (.failure(let error), .failure):
        XCTAssertTrue("\(error)".contains(ours + "/" + relative), "the error names the path: \(error)")
      default: XCTFail("\(relative): nb \(made), FileManager \(expected)")
      }
    }
    func tree(_ base: String) -> [String] {
      (FileManager.default.enumerator(atPath: base)?.allObjects as? [String] ?? []).map { path in
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: base + "/" + path, isDirectory: &isDirectory)
        return path + (isDirectory.boolValue ? "/" : "")
      }.sorted()
    }
    XCTAssertEqual(tree(ours), tree(oracle))
    XCTAssertTrue(tree(ours).contains("deep/er/and/deeper/"), "\(tree(ours))")
    XCTAssertEqual(FileSystem.parentDirectory(of: "/"), nil)
    XCTAssertEqual(FileSystem.parentDirectory(of: "/a"), "/")
    XCTAssertEqual(FileSystem.parentDirectory(of: "a"), nil)
    XCTAssertEqual(FileSystem.parentDirectory(of: "a/b//"), "a")
    try FileSystem.makeDirectory(containing: ours + "/for/a/file.md")
    XCTAssertEqual(FileSystem.statInfo(ours + "/for/a")?.isDirectory, true)
    XCTAssertNil(FileSystem.statInfo(ours + "/for/a/file.md"), "the file itself is not made")
  }

  /// `Data(utf8Of:)` is `Data(text.utf8)` without the runtime's conformance scan: the same bytes for any text,
  /// bridged or native, empty or not.
  func testDataOfUTF8IsTheStringsUTF8() {
    var random = SystemRandomNumberGenerator()
    let pieces = [
      "", "a", "é", "漢字", "👩‍👩‍👧", "\u{0}", "\r\n", "---\nid: x\n---\n", String(repeating: "z", count: 100),
    ]
    var texts = pieces + [NSString(string: "bridged é") as String, String(repeating: "long ", count: 10_000)]
    for _ in 0..<500 {
      let count = Int.random(in: 0...12, using: &random)
      texts.append((0..<count).map { _ in pieces.randomElement(using: &random)! }.joined())
    }
    for text in texts {
      XCTAssertEqual(Data(utf8Of: text), Data(text.utf8), text)
    }
  }

  func testABatchIsWholeOnceInstalledBelowAndAboveTheFlushThreshold() throws {
    let directory = try temp.directory("notes")
    for count in [1, AtomicFile.fileSystemFlushMinimum - 1, AtomicFile.fileSystemFlushMinimum, 300] {
      let files = (0..<count).map { i in
        (data: Data("note \(i) of \(count)\n".utf8), target: directory.appendingPathComponent("n\(i).md").path)
      }
      let staged = try AtomicFile.stage(files)
      XCTAssertEqual(staged.count, count)
      XCTAssertEqual(try leftovers(in: directory).count, count, "staged, not yet installed")
      for file in staged { try AtomicFile.install(file) }
      XCTAssertEqual(try leftovers(in: directory), [])
      for file in files { XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file.target)), file.data) }
    }
  }

  /// Files replaced by installs are held open only until ``ReplacedFiles/wait()``: none is left open after it, however
  /// many more than it holds at once a batch replaces.
  func testReplacedFilesAreAllClosedAfterTheWait() throws {
    let directory = try temp.directory("notes")
    func openDescriptors() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
    let targets = (0..<300).map { directory.appendingPathComponent("n\($0).md").path }
    for target in targets { try Data("old\n".utf8).write(to: URL(fileURLWithPath: target)) }
    let before = try openDescriptors()
    let replaced = ReplacedFiles()
    let staged = try AtomicFile.stage(targets.map { (Data("new\n".utf8), $0) })
    for file in staged { try AtomicFile.install(file, releasing: replaced) }
    replaced.wait()
    XCTAssertEqual(try openDescriptors(), before)
    for target in targets { XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: target)), Data("new\n".utf8)) }
    XCTAssertEqual(try leftovers(in: directory), [])
  }

  func testAFailedBatchLeavesNothingBehind() throws {
    let directory = try temp.directory("notes")
    var files = (0..<40).map { i in
      (data: Data("note \(i)\n".utf8), target: directory.appendingPathComponent("n\(i).md").path)
    }
    // A target whose folder does not exist: its temporary file cannot be made, after 30 others were written.
    files[30].target = directory.appendingPathComponent("missing/n30.md").path
    XCTAssertThrowsError(try AtomicFile.stage(files))
    XCTAssertEqual(try leftovers(in: directory), [])
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
  }
}

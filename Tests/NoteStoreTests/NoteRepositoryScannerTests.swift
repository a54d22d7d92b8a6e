import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// Listings come from the index in `.git/nb/index` (the scanner's cache in `.git/nb/cache` serves save and status):
/// neither may ever answer with stale or different data.
final class NoteRepositoryScannerTests: NoteRepositoryTestCase {
  /// The cache's files: one per directory that holds notes.
  private var cacheFiles: [URL] {
    let directory = url(".git/nb/cache/notes-v2")
    return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
      .map { directory.appendingPathComponent($0) }
  }

  private func corruptCache(with bytes: Data) throws {
    for file in cacheFiles { try bytes.write(to: file) }
  }

  private var indexFile: URL { url(".git/nb/index/notes.sqlite") }

  private func corruptIndex(with bytes: Data) throws {
    try bytes.write(to: indexFile)
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexFile.path + suffix) }
  }

  /// Sets a file's mtime `secondsAgo` in the past, outside the scanner's "too recent to trust" window.
  private func age(_ relative: String, secondsAgo: TimeInterval) throws {
    try FileManager.default.setAttributes(
      [.modificationDate: Date().addingTimeInterval(-secondsAgo)], ofItemAtPath: url(relative).path)
  }

  private func inode(_ relative: String) throws -> UInt64 {
    let attributes = try FileManager.default.attributesOfItem(atPath: url(relative).path)
    return (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
  }

  private func writeInPlace(_ relative: String, _ text: String) throws {
    let handle = try FileHandle(forWritingTo: url(relative))
    try handle.write(contentsOf: Data(text.utf8))
    try handle.truncate(atOffset: UInt64(text.utf8.count))
    try handle.close()
  }

  func testSameSizeEditOutsideNbIsNoticedByMtime() throws {
    try write("inbox/alpha.md", "---\ntitle: Alpha\ntags: [one]\n---\nbody\n")
    try write("inbox/other.md", "# Other\n")
    try age("inbox/alpha.md", secondsAgo: 100)
    try age("inbox/other.md", secondsAgo: 100)
    XCTAssertEqual(try repository.allNotes().map(\.title), ["Alpha", "Other"])
    // The listing was remembered.
    XCTAssertTrue(FileManager.default.fileExists(atPath: indexFile.path))

    let sizeBefore = try readData("inbox/alpha.md").count
    let inodeBefore = try inode("inbox/alpha.md")
    try writeInPlace("inbox/alpha.md", "---\ntitle: Bravo\ntags: [two]\n---\nbody\n")
    try age("inbox/alpha.md", secondsAgo: 50)
    XCTAssertEqual(try readData("inbox/alpha.md").count, sizeBefore)
    XCTAssertEqual(try inode("inbox/alpha.md"), inodeBefore)

    let notes = try repository.allNotes()
    XCTAssertEqual(notes.map(\.title), ["Bravo", "Other"])
    XCTAssertEqual(notes.first?.tags, ["two"])
    // A fresh instance (reading the cache file from disk) agrees.
    XCTAssertEqual(try openAnother().allNotes(), notes)
  }

  func testDeletingOrCorruptingTheCacheChangesNothing() throws {
    _ = try repository.createNote(NoteDraft(title: "One", tags: ["a", "b"], content: "x\n"))
    _ = try repository.createNote(NoteDraft(title: "Two", notebook: "deep/er"))
    // Values that stress the cache's line format: tabs, backslashes, newlines, unit separators in a title and tags.
    try write(
      "odd.md",
      "---\ntitle: \"Tab\\there \\\\ back\\nslash\\u001F!\"\ntags: [\"x\\\\y\", z]\naliases: Also Known\n---\n")
    try write("inbox/broken.md", "---\ntitle: [unclosed\n---\n")
    for path in ["inbox/one.md", "deep/er/two.md", "odd.md", "inbox/broken.md"] {
      try age(path, secondsAgo: 100)
    }
    let first = try repository.allNotes()
    XCTAssertEqual(first.count, 4)
    let odd = try XCTUnwrap(first.first { $0.path == "odd.md" })
    XCTAssertEqual(odd.title, "Tab\there \\ back\nslash\u{1F}!")
    XCTAssertEqual(odd.tags, ["x\\y", "z"])
    XCTAssertEqual(odd.aliases, ["Also Known"])
    XCTAssertNotNil(first.first { $0.path == "inbox/broken.md" }?.warning)
    // The scanner behind save and status fills its cache.
    let saved = first
    XCTAssertEqual(repository.scanner.notes(in: "", recursive: true), first)
    XCTAssertEqual(cacheFiles.count, 3, "one cache file per directory holding notes: root, inbox, deep/er")

    // Served from the index by a new instance.
    XCTAssertEqual(try openAnother().allNotes(), saved)
    try FileManager.default.removeItem(at: url(".git/nb/cache"))
    try FileManager.default.removeItem(at: url(".git/nb/index"))
    XCTAssertEqual(try openAnother().allNotes(), saved)
    XCTAssertEqual(try openAnother().allNotes(), saved)
    try corruptCache(with: Data("nb-notes-cache 2\tinbox\ngarbage\tline\n\u{0}\u{1}".utf8))
    try corruptIndex(with: Data("SQLite format 3\u{0}garbage\tline\n\u{0}\u{1}".utf8))
    XCTAssertEqual(try openAnother().allNotes(), saved)
    XCTAssertNoThrow(try openAnother().status())
    try corruptCache(with: Data([0xFF, 0xFE, 0x00]))
    try corruptIndex(with: Data([0xFF, 0xFE, 0x00]))
    XCTAssertEqual(try openAnother().allNotes(), saved)
    // The cache is device-local: never committed, never shown as a change.
    XCTAssertEqual(try git.statusPorcelain().contains(".git"), false)
  }

  /// Enough notes the cache does not know (300, in three notebooks and the root) that they are read on several
  /// threads: each must be what reading its file alone gives, the cache must then hold every one, and a second walk
  /// must answer the same from it.
  func testNotesTheCacheLacksAreReadTogetherAsEachAlone() throws {
    var paths: [String] = []
    for index in 0..<300 {
      let notebook = ["", "a/", "b/c/", "d/"][index % 4]
      let path = "\(notebook)n\(index).md"
      let text =
        index % 7 == 0
        ? "---\ntitle: [broken \(index)\n---\n" : "---\nid: id-\(index)\ntitle: Note \(index)\ntags: [t\(index % 5)]\n---\nbody\n"
      try write(path, text)
      try age(path, secondsAgo: 100)
      paths.append(path)
    }
    let alone = paths.sorted().map { NoteScanner.readNote(root: repository.root.path, path: $0) }
    let first = repository.scanner.notes(in: "", recursive: true)
    XCTAssertEqual(first, alone)
    XCTAssertEqual(cacheFiles.count, 4, "one cache file per directory holding notes")
    XCTAssertEqual(repository.scanner.notes(in: "", recursive: true), alone)
    XCTAssertEqual(try openAnother().scanner.notes(in: "", recursive: true), alone)
  }

  func testDeletedAndAddedFilesAreSeenDespiteTheCache() throws {
    _ = try repository.createNote(NoteDraft(title: "Stays"))
    let gone = try repository.createNote(NoteDraft(title: "Goes"))
    try age("inbox/stays.md", secondsAgo: 100)
    try age(gone.path, secondsAgo: 100)
    XCTAssertEqual(try repository.allNotes().map(\.path), ["inbox/goes.md", "inbox/stays.md"])
    try FileManager.default.removeItem(at: url(gone.path))
    try write("inbox/new.md", "# New\n")
    XCTAssertEqual(try repository.allNotes().map(\.path), ["inbox/new.md", "inbox/stays.md"])
    // A file replaced by another with the same size and mtime is a new inode: seen too.
    try write(
      "inbox/stays.md", try read("inbox/stays.md").replacingOccurrences(of: "title: Stays", with: "title: Swaps"))
    try age("inbox/stays.md", secondsAgo: 100)
    XCTAssertEqual(try repository.allNotes().map(\.title).sorted(), ["New", "Swaps"])
  }

  func testLargeNoteListsAndSavesInReasonableTime() throws {
    // 50 MB of body: listing reads only the head, and save's edits stay linear.
    let line = String(repeating: "lorem ipsum dolor sit amet ", count: 3) + "\n"
    let body = String(repeating: line, count: 50_000_000 / line.utf8.count)
    try write("inbox/huge.md", "---\ntitle: Huge\n---\n" + body)
    let started = Date()
    XCTAssertEqual(try repository.allNotes().map(\.title), ["Huge"])
    let result = try repository.save()
    XCTAssertEqual(result.notes, ["inbox/huge.md"])
    let text = try read("inbox/huge.md")
    XCTAssertTrue(text.hasPrefix("---\nid: "))
    XCTAssertTrue(text.contains("\ntitle: Huge\nupdated: 2026-11-22T10:07:01+01:00\n---\nlorem"))
    XCTAssertEqual(text.utf8.count, 20 + 41 + 35 + body.utf8.count, "only the id and updated lines were added")
    XCTAssertLessThan(Date().timeIntervalSince(started), 60, "a 50 MB note must not take minutes")
    try assertCleanAndSound()
  }
}

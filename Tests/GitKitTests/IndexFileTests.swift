import Foundation
import NBTestSupport
import XCTest

@testable import GitKit

/// The byte-level index patcher behind `commit(paths:)`, with the real git CLI as the oracle.
final class IndexFileTests: GitKitTestCase {
  // MARK: SHA-1

  func testSHA1KnownVectors() {
    func hex(_ text: String) -> String {
      Array(text.utf8).withUnsafeBytes { SHA1.hash($0) }.map { String(format: "%02x", $0) }.joined()
    }
    // FIPS 180 examples.
    XCTAssertEqual(hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    XCTAssertEqual(hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d")
    XCTAssertEqual(
      hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"), "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    XCTAssertEqual(hex(String(repeating: "a", count: 1_000_000)), "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
  }

  func testSHA1MatchesSha1sumAroundBlockBoundariesAndResumes() throws {
    var rng = SplitMix64(seed: 7)
    for length in [1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, IndexFile.checkpointInterval * 2 + 77] {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
      let expected = try ProcessRunner.run("sha1sum", arguments: [], stdin: Data(bytes)).stdout.prefix(40)
      let digest = IndexFile.checksum(bytes, bodyCount: bytes.count, resumingFrom: [], unchangedPrefix: 0)
      XCTAssertEqual(digest.digest.map { String(format: "%02x", $0) }.joined(), String(expected), "length \(length)")
      // Resuming from the kept states over a changed tail gives the digest of the changed bytes.
      var changed = bytes
      changed[length - 1] ^= 0xFF
      let resumed = IndexFile.checksum(
        changed, bodyCount: changed.count, resumingFrom: digest.checkpoints, unchangedPrefix: length - 1)
      let fresh = IndexFile.checksum(changed, bodyCount: changed.count, resumingFrom: [], unchangedPrefix: 0)
      XCTAssertEqual(resumed.digest, fresh.digest, "length \(length)")
      XCTAssertEqual(resumed.checkpoints.count, fresh.checkpoints.count)
    }
  }

  /// The SHA extensions' rounds (CSHA1) and the Swift rounds agree on every block count, from any state; the
  /// vectors above check whichever this CPU runs, sha1sum the whole digests.
  func testSHA1ExtensionsAndSwiftRoundsAgree() throws {
    try XCTSkipUnless(SHA1.accelerated, "this CPU has no SHA extensions: only the Swift rounds run here")
    var rng = SplitMix64(seed: 11)
    var plain = SHA1()
    var fast = SHA1()
    for blocks in [1, 2, 3, 7, 64, 1, 300] {
      let bytes = (0..<(blocks * 64)).map { _ in UInt8.random(in: 0...255, using: &rng) }
      bytes.withUnsafeBytes { raw in
        plain.updateBlocks(raw.baseAddress!, count: raw.count, accelerated: false)
        fast.updateBlocks(raw.baseAddress!, count: raw.count, accelerated: true)
      }
      XCTAssertTrue(plain.words == fast.words, "after \(blocks) more blocks")
      XCTAssertEqual(plain.length, fast.length)
    }
    let tail = [UInt8](repeating: 0x61, count: 37)
    XCTAssertEqual(
      tail.withUnsafeBytes { plain.finish($0.baseAddress!, count: $0.count) },
      tail.withUnsafeBytes { fast.finish($0.baseAddress!, count: $0.count) })
  }

  /// The replaced entries a patch hands back are found by path (binary search over the index's order), and a path
  /// that had none is not.
  func testPreviousEntriesAreFoundByPath() {
    var rng = SplitMix64(seed: 17)
    let all = Set(
      (0..<300).map { _ in "d\(Int.random(in: 0..<9, using: &rng))/n-\(Int.random(in: 0..<999, using: &rng)).md" }
    )
    .map { Array($0.utf8) }.sorted { IndexFile.lexicographicallyPrecedes($0, $1) }
    var previous = PreviousEntries()
    var kept: [[UInt8]: UInt8] = [:]
    for (index, path) in all.enumerated() where index % 3 != 0 {
      let id = UInt8(index % 251)
      previous.append(path, IndexEntryRecord(mode: 0o100644, id: Array(repeating: id, count: 20), path: path))
      kept[path] = id
    }
    for path in all + [[], Array("a".utf8), Array("zz".utf8)] {
      XCTAssertEqual(previous[path]?.id.first, kept[path], String(decoding: path, as: UTF8.self))
    }
  }

  // MARK: Property test against git

  /// Nested paths that sort around each other (`-` and `.` sort before `/`), and non-ASCII names.
  private let pool = [
    "a", "a-b", "a.b", "a/b", "a/b/c", "a/b-c", "a/c.md", "ab", "b.md", "b/x.md", "b/y/z.md", "é.md", "é/ü.md",
    "日本/メモ.md", "z/z/z/z.md", "Z.md", "a/b.c/d", "0",
  ]

  func testRandomSavesMatchGitForIndexVersion2() throws { try runRandomSaves(indexVersion: 2, seed: 2) }
  func testRandomSavesMatchGitForIndexVersion3() throws { try runRandomSaves(indexVersion: 3, seed: 3) }
  func testRandomSavesMatchGitForIndexVersion4MadeByGit() throws { try runRandomSaves(indexVersion: 4, seed: 4) }
  func testRandomSavesMatchGitForIndexVersion4MadeByGitKit() throws {
    try runRandomSaves(indexVersion: nil, seed: 5)
  }

  /// The same saves with the hashed lookup of touched directories, which a patch uses for many operations, instead
  /// of the direct comparison it uses for a few.
  func testRandomSavesMatchGitThroughTheHashedLookup() throws {
    let limit = IndexFile.directLookupLimit
    IndexFile.directLookupLimit = 0
    defer { IndexFile.directLookupLimit = limit }
    try runRandomSaves(indexVersion: 2, seed: 6)
  }

  /// Random creations, edits and deletions of `pool` paths, one commit each; after every commit the index must be
  /// what git itself builds from the same work tree, and git must find everything consistent.
  private func runRandomSaves(indexVersion: Int?, seed: UInt64, steps: Int = 40) throws {
    var rng = SplitMix64(seed: seed)
    let repo: Repository
    if let indexVersion {
      try git.run("init", "-q")
      try write("seed.md", "seed\n")
      try write("a/b/keep.md", "keep\n")
      try git.run("add", "-A")
      try git.run("commit", "-q", "-m", "seed")
      try git.run("update-index", "--index-version", String(indexVersion))
      if indexVersion == 3 {
        // git writes version 3 only while some entry has extended flags: keep one skip-worktree entry around.
        try git.run("update-index", "--skip-worktree", "seed.md")
      }
      repo = try Repository.open(at: workTree)
    } else {
      repo = try makeRepository()
    }
    var files = Set<String>()
    if indexVersion != nil { files = ["seed.md", "a/b/keep.md"] }
    let store = CountingIndexFileStore.attached(to: repo)
    let writesBefore = store.writes
    var committed = 0

    for step in 0..<steps {
      // `git write-tree` refills the TREE extension, so every step checks that the patcher invalidates it.
      try git.run("write-tree")
      var touched = Set<String>()
      for _ in 0..<Int.random(in: 1...3, using: &rng) {
        let path = pool.randomElement(using: &rng)!
        // One decision per path and step: a later pick must not re-create what an earlier one deleted.
        if touched.contains(where: { $0 == path || $0.hasPrefix(path + "/") || path.hasPrefix($0 + "/") }) {
          continue
        }
        if files.contains(path) && Bool.random(using: &rng) {
          try remove(path)
          files.remove(path)
          touched.insert(path)
          continue
        }
        let below = files.filter { $0.hasPrefix(path + "/") }
        if !below.isEmpty {
          // Deleting a whole directory and committing its path removes every entry below it.
          if Bool.random(using: &rng) {
            try FileManager.default.removeItem(at: workTree.appendingPathComponent(path))
            files.subtract(below)
            touched.insert(path)
            // Sometimes name some of the deleted files too: overlapping removals in one commit.
            touched.formUnion(below.filter { _ in Bool.random(using: &rng) })
          }
          continue
        }
        // A file replacing a directory (or the reverse) in one commit is beyond git_tree_create_updated, and nb
        // never does it (notes end in .md, notebooks do not): not what this test is about.
        if files.contains(where: { path.hasPrefix($0 + "/") }) { continue }
        try removeEmptyDirectories(around: path)
        try write(path, "step \(step) \(path)\n" + String(repeating: "x", count: Int.random(in: 0...40, using: &rng)))
        files.insert(path)
        touched.insert(path)
      }
      if touched.isEmpty { continue }
      committed += 1
      try repo.commit(paths: Array(touched).shuffled(using: &rng), message: "step \(step)")
      try assertIndexMatchesGit("step \(step), version \(indexVersion.map(String.init) ?? "GitKit"), \(touched)")
    }
    XCTAssertGreaterThan(committed, steps / 2)
    XCTAssertEqual(store.writes - writesBefore, committed, "every save went through the patcher")
    if indexVersion == 3 {
      XCTAssertEqual(IndexFile.readUInt32(try indexBytes(), 4), 3)
    }
  }

  /// The index equals a fresh one git builds from the work tree (`git add -A`, same stat data and ids), and
  /// status, the staged diff, the TREE extension and fsck all agree.
  private func assertIndexMatchesGit(_ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(try git.statusPorcelain(), "", context, file: file, line: line)
    XCTAssertTrue(try git.result(["diff", "--cached", "--quiet"]).succeeded, context, file: file, line: line)
    XCTAssertEqual(try git.run("write-tree"), try git.revParse("HEAD^{tree}") + "\n", context, file: file, line: line)
    let ours = try git.run("ls-files", "-s", "--debug")
    let fresh = temp.file("fresh-index-\(UUID().uuidString)").path
    var environment = git.environment
    environment["GIT_INDEX_FILE"] = fresh
    for args in [["add", "-A"], ["ls-files", "-s", "--debug"]] {
      let result = try ProcessRunner.run(
        "git", arguments: ["-C", workTree.path] + args, environment: environment)
      XCTAssertTrue(result.succeeded, result.stderr, file: file, line: line)
      if args[0] == "ls-files" {
        XCTAssertEqual(
          normalizedDebug(ours), normalizedDebug(result.stdout), context, file: file, line: line)
      }
    }
    try git.fsck()
  }

  /// The version 3 fixture keeps `seed.md` skip-worktree (git writes version 3 only while some entry has extended
  /// flags); a fresh `git add -A` cannot reproduce that bit, so it is the one difference allowed.
  private func normalizedDebug(_ text: String) -> [String] {
    lines(text).map { $0.replacingOccurrences(of: "\tflags: 40004000", with: "\tflags: 0") }
  }

  private func removeEmptyDirectories(around path: String) throws {
    // A directory left empty by earlier deletions would make writing a file of the same name fail.
    let url = workTree.appendingPathComponent(path)
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
      try FileManager.default.removeItem(at: url)
    }
    var parent = url.deletingLastPathComponent()
    while parent.path.count > workTree.path.count {
      if FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory), !isDirectory.boolValue {
        try FileManager.default.removeItem(at: parent)
      }
      parent = parent.deletingLastPathComponent()
    }
  }

  private func indexBytes() throws -> [UInt8] {
    Array(try Data(contentsOf: workTree.appendingPathComponent(".git/index")))
  }

  // MARK: Fallbacks and special cases

  func testCorruptChecksumIsRefusedAndTheFileIsNotRewritten() throws {
    let repo = try makeRepository()
    try write("a.md", "a\n")
    try repo.commit(paths: ["a.md"], message: "one")
    for position in [-1, 20] {
      var bytes = try indexBytes()
      let index = position < 0 ? bytes.count + position : position
      bytes[index] ^= 0x01
      try Data(bytes).write(to: workTree.appendingPathComponent(".git/index"))
      try write("b.md", "b\n")
      let fresh = try Repository.open(at: workTree)
      XCTAssertThrowsError(try fresh.commit(paths: ["b.md"], message: "two"), "byte \(index)")
      XCTAssertEqual(try indexBytes(), bytes, "byte \(index)")
      XCTAssertEqual(try commitCount(), 1)
      bytes[index] ^= 0x01
      try Data(bytes).write(to: workTree.appendingPathComponent(".git/index"))
    }
  }

  func testSplitIndexFallsBackToLibgit2WithoutTouchingIt() throws {
    try git.run("init", "-q")
    try write("a.md", "a\n")
    try git.run("add", "a.md")
    try git.run("commit", "-q", "-m", "one")
    try git.run("update-index", "--split-index")
    let before = try indexBytes()
    XCTAssertTrue(before.starts(with: Array("DIRC".utf8)))
    let repo = try Repository.open(at: workTree)
    let store = CountingIndexFileStore.attached(to: repo)
    let writes = store.writes
    try write("b.md", "b\n")
    // libgit2 1.5 cannot read a split index either; what matters is that the patcher declined and nothing broke.
    do {
      try repo.commit(paths: ["b.md"], message: "two")
    } catch {
      XCTAssertEqual(try indexBytes(), before)
    }
    XCTAssertEqual(store.writes, writes)
    try git.fsck()
    XCTAssertTrue(["", "?? b.md\n"].contains(try git.statusPorcelain()))
  }

  /// A `git add` that rewrites the index between the patcher's read and its write is not undone: the commit is
  /// made again from the index as git left it, so what git staged stays staged and only the path asked for is
  /// committed.
  func testAnIndexReplacedBeforeThePatchersWriteIsKept() throws {
    let repo = try makeRepository()
    try write("a.md", "a\n")
    try write("b.md", "b\n")
    try repo.commit(paths: ["a.md", "b.md"], message: "one")
    let store = CountingIndexFileStore.attached(to: repo)
    try write("a.md", "a, edited\n")
    try write("b.md", "b, staged by git\n")
    store.beforeNextWrite { try self.git.run("add", "b.md") }
    XCTAssertNotNil(try repo.commit(paths: ["a.md"], message: "two"))
    XCTAssertEqual(try git.run("diff", "--cached", "--name-only"), "b.md\n")
    XCTAssertEqual(try git.run("show", "--name-only", "--format=", "HEAD"), "a.md\n")
    XCTAssertEqual(try git.run("show", "HEAD:a.md"), "a, edited\n")
    try git.fsck()
  }

  /// The table reads every path of git's own index in versions 2, 3 and 4 (where, below version 4, paths are read
  /// in place, their length taken from the flags), including paths of 0xFFF bytes and more, whose flags say only
  /// "long": git lists the same paths in the same order.
  func testTheTableReadsEveryPathGitWroteInEachVersion() throws {
    try git.run("init", "-q")
    for path in ["a.md", "notes/b.md", "notes/deep/c.md", "z.md"] { try write(path, "\(path)\n") }
    try git.run("add", "-A")
    let blob = try git.run("hash-object", "-w", "a.md").trimmingCharacters(in: .whitespacesAndNewlines)
    // No file can have such a path here (PATH_MAX), but the index can hold one.
    let long = (0..<17).map { String(repeating: Character(String($0 % 10)), count: 250) }.joined(separator: "/")
    for path in [long + "/x.md", String(long.prefix(0xFFF - 3)) + ".md", "notes/" + long + ".md"] {
      try git.run("update-index", "--add", "--cacheinfo", "100644,\(blob),\(path)")
    }
    let expected = lines(try git.run("ls-files"))
    XCTAssertTrue(expected.contains { $0.utf8.count == 0xFFF }, "a path of exactly 0xFFF bytes")
    XCTAssertTrue(expected.contains { $0.utf8.count > 0xFFF })
    for version in ["2", "3", "4"] {
      // git writes version 3 only while some entry has extended flags.
      if version == "3" { try git.run("update-index", "--skip-worktree", "z.md") }
      try git.run("update-index", "--index-version", version)
      let table = try IndexTable(try XCTUnwrap(IndexFile.verify(try indexBytes())))
      XCTAssertEqual(table.version, UInt32(version))
      XCTAssertEqual(table.entries.map(table.pathString), expected, "version \(version)")
      XCTAssertEqual(table.entries.map { lowercaseHex(Array(table.id($0))) }.first, blob)
    }
  }

  /// The table a patch gathers while it writes is the table decoded from what it wrote, entry for entry: over
  /// random upserts and removals (of files and of whole directories), with racily clean entries smudged at random,
  /// in index versions 2, 3 (an entry with extended flags) and 4.
  func testThePatchsTableIsTheTableOfWhatItWrote() throws {
    try git.run("init", "-q")
    var rng = SplitMix64(seed: 29)
    var pool: [String] = []
    for folder in ["", "a/", "a/b/", "c/", "c/d/e/"] {
      for name in ["x.md", "y.md", "z-\(folder.count).md"] { pool.append(folder + name) }
    }
    for path in pool { try write(path, "\(path)\n") }
    try git.run("add", "-A")
    try git.run("write-tree")
    for version in ["2", "3", "4"] {
      if version == "3" { try git.run("update-index", "--skip-worktree", "x.md") }
      try git.run("update-index", "--index-version", version)
      let snapshot = try XCTUnwrap(IndexFile.verify(try indexBytes()))
      for round in 0..<40 {
        var operations: [IndexPatchOperation] = []
        var used = Set<String>()
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
          let candidates = pool + ["a", "c/d", "new/n.md", "a/new.md", "c/d/e/new.md", "0.md"]
          let path = candidates.randomElement(using: &rng)!
          guard !used.contains(where: { $0.hasPrefix(path) || path.hasPrefix($0) }), path != "x.md" else {
            continue
          }
          used.insert(path)
          if ["a", "c/d"].contains(path) || Bool.random(using: &rng) && pool.contains(path) {
            operations.append(.remove(path: Array(path.utf8), descendants: true))
          } else {
            var record = IndexEntryRecord(mode: 0o100644, id: Array(repeating: UInt8(round), count: 20), path: [])
            record.path = Array(path.utf8)
            record.mtimeSeconds = UInt32(round)
            operations.append(.upsert(record))
          }
        }
        var smudges = SplitMix64(seed: UInt64(round))
        let patched = try IndexFile.patch(
          snapshot, operations, racyCutoff: 0, buildTable: true,
          isRacilyModified: { _ in Bool.random(using: &smudges) })
        let built = try XCTUnwrap(patched.table)
        let decoded = try IndexTable(IndexFile.Snapshot(bytes: patched.bytes, checkpoints: []))
        let context =
          "version \(version), round \(round): \(operations.map { String(decoding: $0.path, as: UTF8.self) })"
        XCTAssertEqual(built.version, decoded.version, context)
        XCTAssertEqual(built.entriesEnd, decoded.entriesEnd, context)
        XCTAssertEqual(built.cacheTree, decoded.cacheTree, context)
        XCTAssertEqual(built.hasUnusualEntries, decoded.hasUnusualEntries, context)
        XCTAssertEqual(built.entries.count, decoded.entries.count, context)
        for (a, b) in zip(built.entries, decoded.entries) {
          XCTAssertEqual(a.offset, b.offset, context)
          XCTAssertEqual(a.flags, b.flags, context)
          XCTAssertEqual(a.extendedFlags, b.extendedFlags, context)
          XCTAssertEqual(built.pathString(a), decoded.pathString(b), context)
          XCTAssertEqual(Array(built.id(a)), Array(decoded.id(b)), context)
        }
      }
    }
  }

  func testUntrackedCacheIsDroppedAndStatusStaysRight() throws {
    try git.run("init", "-q")
    try write("a.md", "a\n")
    try write("notes/x.md", "x\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "one")
    try git.run("config", "core.untrackedCache", "true")
    try git.run("update-index", "--untracked-cache")
    try write("notes/untracked.md", "u\n")
    XCTAssertEqual(try git.statusPorcelain(), "?? notes/untracked.md\n")
    XCTAssertTrue(contains(try indexBytes(), "UNTR"))

    let repo = try Repository.open(at: workTree)
    let store = CountingIndexFileStore.attached(to: repo)
    let writes = store.writes
    try write("notes/y.md", "y\n")
    try repo.commit(paths: ["notes/y.md"], message: "two")
    XCTAssertEqual(store.writes, writes + 1)
    XCTAssertFalse(contains(try indexBytes(), "UNTR"))
    XCTAssertTrue(contains(try indexBytes(), "TREE"))
    XCTAssertEqual(try git.statusPorcelain(), "?? notes/untracked.md\n")
    try assertIndexMatchesGitIgnoringUntracked()
  }

  private func assertIndexMatchesGitIgnoringUntracked() throws {
    try remove("notes/untracked.md")
    try assertIndexMatchesGit("untracked cache")
  }

  func testConflictStagesOnATouchedPathFallBackToLibgit2() throws {
    try git.run("init", "-q")
    try write("a.md", "base\n")
    try git.run("add", "a.md")
    try git.run("commit", "-q", "-m", "base")
    XCTAssertEqual(try IndexFile.hasConflicts(try XCTUnwrap(IndexFile.verify(try indexBytes()))), false)
    let bytes = try conflicted(try indexBytes(), path: "a.md")
    let snapshot = try XCTUnwrap(IndexFile.verify(bytes))
    XCTAssertEqual(try IndexFile.hasConflicts(snapshot), true)
    XCTAssertThrowsError(
      try IndexFile.patch(snapshot, [.remove(path: Array("a.md".utf8), descendants: true)], racyCutoff: nil)
    ) { XCTAssertTrue($0 is IndexNotHandled, "\($0)") }
    try Data(bytes).write(to: workTree.appendingPathComponent(".git/index"))
    XCTAssertEqual(lines(try git.run("ls-files", "-u")).count, 2)

    let repo = try Repository.open(at: workTree)
    let store = CountingIndexFileStore.attached(to: repo)
    XCTAssertTrue(try repo.hasConflicts())
    XCTAssertEqual(store.hasConflicts(workTree.appendingPathComponent(".git/index").path), true)
    let writes = store.writes
    try write("a.md", "resolved\n")
    try repo.commit(paths: ["a.md"], message: "resolve")
    XCTAssertEqual(store.writes, writes, "libgit2 resolved it, not the patcher")
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertFalse(try repo.hasConflicts())
  }

  func testConflictScanAgreesWithGitInEveryIndexVersion() throws {
    try git.run("init", "-q")
    for name in ["a.md", "b/c.md", "d.md"] { try write(name, "base\n") }
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "base")
    try git.run("checkout", "-q", "-b", "other")
    try write("b/c.md", "other\n")
    try git.run("commit", "-q", "-am", "other")
    try git.run("checkout", "-q", "main")
    try write("b/c.md", "main\n")
    try git.run("commit", "-q", "-am", "main")
    XCTAssertFalse(try git.result(["merge", "-q", "other"]).succeeded)
    for version in ["2", "3", "4"] {
      try git.run("update-index", "--index-version", version)
      XCTAssertFalse(try git.run("ls-files", "-u").isEmpty)
      XCTAssertEqual(try IndexFile.hasConflicts(try XCTUnwrap(IndexFile.verify(try indexBytes()))), true, version)
    }
    try git.run("merge", "--abort")
    for version in ["2", "4"] {
      try git.run("update-index", "--index-version", version)
      XCTAssertEqual(try IndexFile.hasConflicts(try XCTUnwrap(IndexFile.verify(try indexBytes()))), false, version)
    }
  }

  /// A one-entry version 2 index with that entry turned into conflict stages 2 and 3, checksum recomputed.
  private func conflicted(_ original: [UInt8], path: String) throws -> [UInt8] {
    XCTAssertEqual(IndexFile.readUInt32(original, 4), 2)
    XCTAssertEqual(IndexFile.readUInt32(original, 8), 1)
    let size = (62 + path.utf8.count + 8) & ~7
    var stage2 = Array(original[12..<(12 + size)])
    stage2[60] |= 0x20
    var stage3 = stage2
    stage3[60] |= 0x10
    var bytes = Array(original[0..<12]) + stage2 + stage3
    bytes.replaceSubrange(8..<12, with: [0, 0, 0, 2])
    bytes += IndexFile.checksum(bytes, bodyCount: bytes.count, resumingFrom: [], unchangedPrefix: 0).digest
    return bytes
  }

  func testGitDirectoryComponentsAreLeftToLibgit2ToRefuse() throws {
    let repo = try makeRepository()
    let store = CountingIndexFileStore.attached(to: repo)
    let writes = store.writes
    for path in ["sub/.git/config", "sub/.GIT/x", "sub/git~1/x", "sub/.git./x", "sub/GIT~1 ./x"] {
      try write(path, "x\n")
      XCTAssertThrowsError(try repo.commit(paths: [path], message: "bad"), path)
    }
    XCTAssertEqual(store.writes, writes)
    XCTAssertTrue(try git.run("ls-files").isEmpty)
  }

  func testAttributesFromTheWorkTreeAndFromTheIndexApplyAsInGit() throws {
    let repo = try makeRepository()
    try write(".gitattributes", "*.txt text eol=lf\n")
    try write("sub/.gitattributes", "*.crlf text eol=crlf\n")
    try repo.commit(paths: [".gitattributes", "sub/.gitattributes"], message: "attributes")
    // The nested file is deleted from the work tree but still in the index: git (and libgit2) then read the
    // index's copy, which the patcher must make visible while hashing.
    try remove("sub/.gitattributes")
    try write("a.txt", "one\r\ntwo\r\n")
    try write("sub/b.txt", "three\r\n")
    try write("sub/c.crlf", "four\r\n")
    let store = CountingIndexFileStore.attached(to: repo)
    let writes = store.writes
    try repo.commit(paths: ["a.txt", "sub/b.txt", "sub/c.crlf"], message: "text")
    XCTAssertEqual(store.writes, writes + 1)
    // `text` stores LF whatever the eol: only the index's sub/.gitattributes says so for c.crlf.
    XCTAssertEqual(try git.show("HEAD", path: "a.txt"), "one\ntwo\n")
    XCTAssertEqual(try git.show("HEAD", path: "sub/b.txt"), "three\n")
    XCTAssertEqual(try git.show("HEAD", path: "sub/c.crlf"), "four\n")
    // And `git add` of the same files (attributes from work tree, then index) stores the same entries.
    let files = ["a.txt", "sub/b.txt", "sub/c.crlf"]
    let ours = try git.run(arguments: ["ls-files", "-s"] + files)
    try git.run(arguments: ["rm", "--cached", "-q"] + files)
    try git.run(arguments: ["add"] + files)
    XCTAssertEqual(try git.run(arguments: ["ls-files", "-s"] + files), ours)
    XCTAssertEqual(try git.statusPorcelain(), " D sub/.gitattributes\n")
  }

  func testCachedAttributeFilesFollowCommitsInTheSameProcess() throws {
    let repo = try makeRepository()
    try write("a.txt", "a\r\n")
    try repo.commit(paths: ["a.txt"], message: "no attributes yet")
    XCTAssertEqual(try git.show("HEAD", path: "a.txt"), "a\r\n")
    try write("sub/.gitattributes", "*.txt text\n")
    try repo.commit(paths: ["sub/.gitattributes"], message: "attributes")
    try remove("sub/.gitattributes")  // from now on only the index has it
    try write("sub/b.txt", "b\r\n")
    try repo.commit(paths: ["sub/b.txt"], message: "normalized")
    XCTAssertEqual(try git.show("HEAD", path: "sub/b.txt"), "b\n")
    // Removing the directory removes the index's attribute file too: new files there are stored as they are.
    try FileManager.default.removeItem(at: workTree.appendingPathComponent("sub"))
    try repo.commit(paths: ["sub"], message: "drop sub")
    try write("sub/c.txt", "c\r\n")
    try repo.commit(paths: ["sub/c.txt"], message: "as is")
    XCTAssertEqual(try git.show("HEAD", path: "sub/c.txt"), "c\r\n")
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testRacilyCleanEntryIsSmudgedWhenItChangedUnseen() throws {
    let repo = try makeRepository()
    try repo.setConfig("core.trustctime", "false")
    let past = Date(timeIntervalSince1970: 1_600_000_000)
    try write("a.md", "aaaa\n")
    try setModificationDate(past, "a.md")
    try repo.commit(paths: ["a.md"], message: "one")
    // Same size, same mtime, same inode: only the contents tell the new version apart, and the index was written
    // in the same second as the entry, so git would have re-read the file...
    try Data("bbbb\n".utf8).write(to: workTree.appendingPathComponent("a.md"))
    try setModificationDate(past, "a.md")
    try FileManager.default.setAttributes(
      [.modificationDate: past], ofItemAtPath: workTree.appendingPathComponent(".git/index").path)
    XCTAssertEqual(try git.run("diff-files", "--name-only"), "a.md\n")
    // ...until another save rewrites the index later: then the entry must be smudged or git trusts it.
    try write("b.md", "b\n")
    try repo.commit(paths: ["b.md"], message: "two")
    XCTAssertEqual(try git.statusPorcelain(), " M a.md\n")
  }

  private func setModificationDate(_ date: Date, _ path: String) throws {
    try FileManager.default.setAttributes(
      [.modificationDate: date], ofItemAtPath: workTree.appendingPathComponent(path).path)
  }

  func testRepeatedSavesUseTheCachedIndexAndLibgit2SeesThem() throws {
    let repo = try makeRepository()
    let store = CountingIndexFileStore.attached(to: repo)
    try write("a.md", "a\n")
    try repo.commit(paths: ["a.md"], message: "one")
    XCTAssertEqual(try repo.indexPaths(), ["a.md"])  // libgit2 loads the index now
    let reads = store.diskReads
    for i in 0..<3 {
      try write("n\(i).md", "\(i)\n")
      try repo.commit(paths: ["n\(i).md"], message: "n\(i)")
    }
    XCTAssertEqual(store.diskReads, reads, "our own writes are not re-read")
    XCTAssertEqual(try repo.indexPaths(), ["a.md", "n0.md", "n1.md", "n2.md"])
    // git rewriting the index invalidates the cache.
    try write("g.md", "g\n")
    try git.run("add", "g.md")
    try write("n3.md", "3\n")
    try repo.commit(paths: ["n3.md"], message: "n3")
    XCTAssertEqual(store.diskReads, reads + 1)
    XCTAssertEqual(try git.statusPorcelain(), "A  g.md\n")
  }

  private func contains(_ bytes: [UInt8], _ text: String) -> Bool {
    let needle = Array(text.utf8)
    guard bytes.count >= needle.count else { return false }
    return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
  }
}

final class RawObjectIDTests: XCTestCase {
  /// The raw id's hex is what git prints for the same bytes: the empty blob's id, every nibble value, and zeros.
  func testRawBytesBecomeGitsHexDigits() {
    let emptyBlob: [UInt8] = [
      0xe6, 0x9d, 0xe2, 0x9b, 0xb2, 0xd1, 0xd6, 0x43, 0x4b, 0x8b, 0x29, 0xae, 0x77, 0x5a, 0xd8, 0xc2, 0xe4, 0x8c, 0x53,
      0x91,
    ]
    XCTAssertEqual(ObjectID(raw: emptyBlob).hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
    XCTAssertEqual(ObjectID(raw: emptyBlob[...]), ObjectID(hex: "E69DE29BB2D1D6434B8B29AE775AD8C2E48C5391"))
    XCTAssertEqual(lowercaseHex([0x00, 0x0f, 0xf0, 0xff, 0x5a]), "000ff0ff5a")
  }
}

import Foundation
import XCTest

@testable import GitKit

/// The index file's SHA-1 states kept between processes (``IndexCheckpoints``): taken only for the very version of
/// the index they were made for, and what a commit resumes from them must be an index git accepts.
final class IndexCheckpointsTests: GitKitTestCase {
  private let relative = "nb/cache/index-checkpoints"
  private var indexPath: String { workTree.appendingPathComponent(".git/index").path }
  private var checkpointsPath: String { workTree.appendingPathComponent(".git/" + relative).path }

  /// A store as a new process has it: nothing in memory, the states on disk allowed.
  private func newProcessStore() -> CountingIndexFileStore {
    let store = CountingIndexFileStore()
    store.checkpointsRelativePath = relative
    // The small indexes of these tests (a few hundred kilobytes) are kept too.
    store.checkpointsMinimumSize = 0
    return store
  }

  private func seed(_ count: Int) throws {
    try git.run("init", "-q")
    // Enough entries for the index to span several checkpoint intervals (64 KiB).
    for index in 0..<count {
      try write("n/\(index / 100)/a-long-name-that-fills-the-index-faster-\(index).md", "note \(index)\n")
    }
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "seed")
  }

  private func loaded(_ store: IndexFileStore, file: StaticString = #filePath, line: UInt = #line) throws
    -> IndexFile.Snapshot
  {
    guard case .success(let loaded) = store.load(indexPath) else {
      XCTFail("the index did not load", file: file, line: line)
      throw CocoaError(.fileReadCorruptFile)
    }
    return loaded.snapshot
  }

  private func words(_ states: [SHA1]) -> [[Int]] {
    states.map { state in
      let (a, b, c, d, e) = state.words
      return [Int(a), Int(b), Int(c), Int(d), Int(e), state.length]
    }
  }

  func testAVerifiedIndexIsNotVerifiedAgainUntilItChanges() throws {
    try seed(1_500)
    let first = newProcessStore()
    let verified = try loaded(first)
    XCTAssertEqual(first.verified, 1)
    XCTAssertGreaterThan(verified.checkpoints.count, 2, "the index spans several intervals")
    XCTAssertTrue(FileManager.default.fileExists(atPath: checkpointsPath))

    let second = newProcessStore()
    let trusted = try loaded(second)
    XCTAssertEqual(second.verified, 0, "the kept states vouch for the same version")
    XCTAssertEqual(trusted.bytes, verified.bytes)
    XCTAssertEqual(words(trusted.checkpoints), words(verified.checkpoints))

    // Without the setting nothing is read from the file, nor for an index below the size that pays.
    let plain = CountingIndexFileStore()
    _ = try loaded(plain)
    XCTAssertEqual(plain.verified, 1)
    let small = newProcessStore()
    small.checkpointsMinimumSize = verified.bytes.count + 1
    _ = try loaded(small)
    XCTAssertEqual(small.verified, 1)

    // git replaces the index: another identity, verified again, and the states follow.
    try write("n/new.md", "new\n")
    try git.run("add", "n/new.md")
    let third = newProcessStore()
    let after = try loaded(third)
    XCTAssertEqual(third.verified, 1)
    XCTAssertEqual(words(after.checkpoints), words(IndexFile.verify(after.bytes)!.checkpoints))
    let fourth = newProcessStore()
    _ = try loaded(fourth)
    XCTAssertEqual(fourth.verified, 0)
  }

  /// A process killed between writing its temporary file and renaming it leaves `<file>.<pid>.tmp`: the next save
  /// removes it once that process is gone, and leaves a live process's write and every other file alone.
  func testATemporaryFileAKilledProcessLeftIsSweptAndALiveOnesIsNot() throws {
    try seed(300)
    let directory = (checkpointsPath as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    // No process has this id (above Linux's largest), and the parent of this test process is alive.
    let dead = checkpointsPath + ".99999999.tmp"
    let live = checkpointsPath + ".\(getppid()).tmp"
    let unrelated = [checkpointsPath + ".x.tmp", checkpointsPath + ".99999999.tmp.keep", directory + "/other.1.tmp"]
    for path in [dead, live] + unrelated {
      XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
    }
    _ = try loaded(newProcessStore())
    XCTAssertTrue(FileManager.default.fileExists(atPath: checkpointsPath), "the states were kept")
    XCTAssertFalse(FileManager.default.fileExists(atPath: dead))
    for path in [live] + unrelated { XCTAssertTrue(FileManager.default.fileExists(atPath: path), path) }
    XCTAssertFalse(FileManager.default.fileExists(atPath: checkpointsPath + ".\(getpid()).tmp"))
  }

  func testADamagedOrWrongCheckpointsFileIsIgnored() throws {
    try seed(1_500)
    let snapshot = try loaded(newProcessStore())
    let good = try Data(contentsOf: URL(fileURLWithPath: checkpointsPath))
    var info = stat()
    XCTAssertEqual(stat(indexPath, &info), 0)
    let identity = IndexFileStore.Identity(info)

    var damaged: [(String, Data)] = []
    var flipped = good
    flipped[flipped.count / 2] ^= 0x01
    damaged.append(("a flipped byte", flipped))
    damaged.append(("cut short", good.prefix(good.count - 7)))
    damaged.append(("empty", Data()))
    // Well-formed and checksummed, but the last state does not finish into the index's checksum.
    var wrongLast = snapshot.checkpoints
    wrongLast[wrongLast.count - 1] = SHA1(words: (1, 2, 3, 4, 5), length: wrongLast[wrongLast.count - 1].length)
    IndexCheckpoints.save(
      checkpointsPath, identity: identity, bytes: snapshot.bytes, states: wrongLast, hasConflicts: false)
    damaged.append(("a wrong last state", try Data(contentsOf: URL(fileURLWithPath: checkpointsPath))))
    // One state too few.
    IndexCheckpoints.save(
      checkpointsPath, identity: identity, bytes: snapshot.bytes, states: Array(snapshot.checkpoints.dropLast()),
      hasConflicts: false)
    damaged.append(("a state missing", try Data(contentsOf: URL(fileURLWithPath: checkpointsPath))))
    // Made for another version of the file (another ctime).
    var other = identity
    other.ctimeNanoseconds += 1
    IndexCheckpoints.save(
      checkpointsPath, identity: other, bytes: snapshot.bytes, states: snapshot.checkpoints, hasConflicts: false)
    damaged.append(("another identity", try Data(contentsOf: URL(fileURLWithPath: checkpointsPath))))
    // Version 1's layout: no conflicts byte, under its own checksum.
    let withoutConflicts = Array(good.dropLast(21))
    damaged.append(("no conflicts byte", Data(withoutConflicts + withoutConflicts.withUnsafeBytes { SHA1.hash($0) })))
    // A conflicts byte that means nothing.
    let unknownByte = Array(good.dropLast(21)) + [3]
    damaged.append(("a conflicts byte of 3", Data(unknownByte + unknownByte.withUnsafeBytes { SHA1.hash($0) })))
    // Longer than the states: what a write in place must cut off.
    damaged.append(("good, then more", good + Data(repeating: 0x5A, count: 9_000)))

    var inode = stat()
    for (what, bytes) in damaged {
      try bytes.write(to: URL(fileURLWithPath: checkpointsPath))
      XCTAssertEqual(stat(checkpointsPath, &inode), 0)
      let store = newProcessStore()
      XCTAssertEqual(try loaded(store).bytes, snapshot.bytes, what)
      XCTAssertEqual(store.verified, 1, "\(what): the index was not verified")
      XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: checkpointsPath)), good, "\(what): not made again")
      // Made again over the same file: a rename would have freed the old one's blocks.
      var after = stat()
      XCTAssertEqual(stat(checkpointsPath, &after), 0)
      XCTAssertEqual(after.st_ino, inode.st_ino, "\(what): replaced, not written over")
    }
  }

  /// Commits in "new processes" (a new store and repository each time) resume the checksum from the states the
  /// one before kept: git must accept every index they write (fsck verifies the checksum), and agree with it.
  func testCommitsResumingFromKeptStatesWriteIndexesGitAccepts() throws {
    try seed(1_500)
    for step in 0..<8 {
      let store = newProcessStore()
      let repository = try Repository.open(at: workTree)
      repository.indexFileStore = store
      // An edit (an addition changes the entry count in the header: nothing is resumed) early, in the middle and
      // late in the index: each resumes from another state.
      let note = [0, 1_450, 550, 999][step % 4]
      let path = "n/\(note / 100)/a-long-name-that-fills-the-index-faster-\(note).md"
      try write(path, "step \(step)\n")
      try repository.commit(paths: [path], message: "step \(step)")
      XCTAssertEqual(store.writes, 1, "step \(step): the patcher wrote the index")
      XCTAssertEqual(store.verified, step == 0 ? 1 : 0, "step \(step): verified although the states were kept")
      // Read-only git commands: one that rewrote the index would make the next step verify it, rightly.
      XCTAssertTrue(try git.result(["fsck", "--no-dangling"]).succeeded, "step \(step): git refuses the index")
      XCTAssertEqual(try git.run("--no-optional-locks", "status", "--porcelain"), "", "step \(step)")
      XCTAssertTrue(try git.result(["--no-optional-locks", "diff", "--cached", "--quiet"]).succeeded, "step \(step)")
      XCTAssertTrue(try git.run("ls-files").contains(path), "step \(step)")
    }
  }

  /// Whether the index has conflicts is kept with its states: a new process's save need not walk every entry to
  /// ask. Found when the index is verified, and known after a commit that patched an index without conflicts.
  func testWhetherTheIndexHasConflictsIsKeptWithItsStates() throws {
    try seed(1_500)
    let verifying = newProcessStore()
    guard case .success(let verified) = verifying.load(indexPath) else { return XCTFail("the index did not load") }
    XCTAssertEqual(verifying.verified, 1)
    XCTAssertEqual(verified.derived.hasConflicts, false, "found when verified")
    guard case .success(let trusted) = newProcessStore().load(indexPath) else { return XCTFail("no load") }
    XCTAssertEqual(trusted.derived.hasConflicts, false, "kept for the next process")

    // A commit through the patcher keeps it for the index it writes.
    let store = newProcessStore()
    let repository = try Repository.open(at: workTree)
    repository.indexFileStore = store
    let path = "n/0/a-long-name-that-fills-the-index-faster-0.md"
    try write(path, "changed\n")
    try repository.commit(paths: [path], message: "change")
    XCTAssertEqual(store.writes, 1)
    let afterCommit = newProcessStore()
    guard case .success(let committed) = afterCommit.load(indexPath) else { return XCTFail("no load") }
    XCTAssertEqual(afterCommit.verified, 0)
    XCTAssertEqual(committed.derived.hasConflicts, false)

    // A merge that stops on a conflict: git writes the index, the next process verifies it and finds them.
    try git.run("checkout", "-q", "-b", "other")
    try write(path, "other side\n")
    try git.run("commit", "-q", "-am", "other")
    try git.run("checkout", "-q", "-")
    try write(path, "this side\n")
    try git.run("commit", "-q", "-am", "this")
    XCTAssertFalse(try git.result(["merge", "-q", "other"]).succeeded, "the merge stops on the conflict")
    let conflicted = newProcessStore()
    guard case .success(let found) = conflicted.load(indexPath) else { return XCTFail("no load") }
    XCTAssertEqual(conflicted.verified, 1)
    XCTAssertEqual(found.derived.hasConflicts, true)
    let next = newProcessStore()
    guard case .success(let kept) = next.load(indexPath) else { return XCTFail("no load") }
    XCTAssertEqual(next.verified, 0)
    XCTAssertEqual(kept.derived.hasConflicts, true, "kept for the next process")
    XCTAssertEqual(next.hasConflicts(indexPath), true)
  }
}

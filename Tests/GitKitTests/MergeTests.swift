import Foundation
import GitKit
import NBTestSupport
import XCTest

/// Commit graph queries, tree maps, merge commits, references and safe checkout, each checked with the git CLI.
final class MergeTests: GitKitTestCase {
  @discardableResult
  func commitFile(_ repo: Repository, _ path: String, _ text: String) throws -> ObjectID {
    try write(path, text)
    return try XCTUnwrap(try repo.commit(paths: [path], message: "edit \(path)"))
  }

  func id(_ hex: String) throws -> ObjectID { try XCTUnwrap(ObjectID(hex: hex)) }

  /// Two branches diverging from a base: main gets two commits, `theirs` three.
  func diverged(_ repo: Repository) throws -> (base: ObjectID, ours: ObjectID, theirs: ObjectID) {
    let base = try commitFile(repo, "a.md", "a\n")
    try git.run("checkout", "-q", "-b", "theirs")
    for i in 1...3 {
      try write("t\(i).md", "t\n")
      try git.run("add", "t\(i).md")
      try git.run("commit", "-q", "-m", "t\(i)")
    }
    let theirs = try id(try git.revParse("HEAD"))
    try git.run("checkout", "-q", "main")
    try commitFile(repo, "o1.md", "o\n")
    let ours = try commitFile(repo, "o2.md", "o\n")
    return (base, ours, theirs)
  }

  /// `git ls-tree -r <rev>` as a map, the oracle for tree reads and writes.
  func lsTree(_ rev: String) throws -> [String: TreeEntry] {
    var map: [String: TreeEntry] = [:]
    for line in lines(try git.run("ls-tree", "-r", "-z", rev).replacingOccurrences(of: "\0", with: "\n")) {
      let parts = line.split(separator: "\t", maxSplits: 1)
      let fields = parts[0].split(separator: " ")
      let mode = try XCTUnwrap(FileMode(rawValue: try XCTUnwrap(UInt32(fields[0], radix: 8))))
      map[String(parts[1])] = TreeEntry(id: try id(String(fields[2])), mode: mode)
    }
    return map
  }

  func testAheadBehindMergeBaseAndDescendantAgreeWithGit() throws {
    let repo = try makeRepository()
    let (base, ours, theirs) = try diverged(repo)
    let counts = try repo.aheadBehind(local: ours, upstream: theirs)
    let oracle = lines(try git.run("rev-list", "--left-right", "--count", "\(ours.hex)...\(theirs.hex)"))[0]
      .split(separator: "\t").map { Int($0)! }
    XCTAssertEqual([counts.ahead, counts.behind], oracle)
    XCTAssertEqual([counts.ahead, counts.behind], [2, 3])
    XCTAssertEqual(try repo.mergeBase(ours, theirs)?.hex, try git.run("merge-base", ours.hex, theirs.hex).trimmed)
    XCTAssertEqual(try repo.mergeBase(ours, theirs), base)
    XCTAssertTrue(try repo.isDescendant(ours, of: base))
    XCTAssertFalse(try repo.isDescendant(ours, of: theirs))
    XCTAssertFalse(try repo.isDescendant(base, of: base))
    XCTAssertEqual(try repo.reference(named: "refs/heads/theirs"), theirs)
    XCTAssertEqual(try repo.reference(named: "HEAD"), ours)
    XCTAssertNil(try repo.reference(named: "refs/heads/nope"))
  }

  func testUnrelatedHistoriesHaveNoMergeBase() throws {
    let repo = try makeRepository()
    let ours = try commitFile(repo, "a.md", "a\n")
    try git.run("checkout", "-q", "--orphan", "other")
    try git.run("rm", "-q", "-r", "--cached", ".")
    try write("z.md", "z\n")
    try git.run("add", "z.md")
    try git.run("commit", "-q", "-m", "unrelated")
    let other = try id(try git.revParse("HEAD"))
    XCTAssertNil(try repo.mergeBase(ours, other))
    XCTAssertFalse(try git.result(["merge-base", ours.hex, other.hex]).succeeded)
  }

  func testTreeEntriesMatchLsTree() throws {
    let repo = try makeRepository()
    try write("inbox/a.md", "a\n")
    try write("work/projects/deep/b.md", "b\n")
    try write("run.sh", "#!/bin/sh\n")
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o755], ofItemAtPath: workTree.appendingPathComponent("run.sh").path)
    try FileManager.default.createSymbolicLink(
      atPath: workTree.appendingPathComponent("link").path, withDestinationPath: "inbox/a.md")
    try git.run("add", ".")
    try git.run("commit", "-q", "-m", "files")
    let head = try id(try git.revParse("HEAD"))
    let entries = try repo.treeEntries(ofCommit: head)
    XCTAssertEqual(entries, try lsTree("HEAD"))
    XCTAssertEqual(entries["run.sh"]?.mode, .executable)
    XCTAssertEqual(entries["link"]?.mode, .link)
    XCTAssertEqual(try repo.blob(try XCTUnwrap(entries["work/projects/deep/b.md"]).id), Data("b\n".utf8))
  }

  func testWriteTreeRoundTripsThroughGit() throws {
    let repo = try makeRepository()
    try write("inbox/a.md", "a\n")
    try write("inbox/old/gone.md", "gone\n")
    try write("keep/k.md", "k\n")
    let base = try XCTUnwrap(try repo.commit(paths: ["inbox/a.md", "inbox/old/gone.md", "keep/k.md"], message: "base"))
    var entries = try repo.treeEntries(ofCommit: base)
    // A removal that empties a directory, an edit, a new nested file, a mode change.
    entries["inbox/old/gone.md"] = nil
    entries["inbox/a.md"] = TreeEntry(id: try repo.writeBlob(Data("a2\r\n".utf8)))
    entries["new/deeper/n.md"] = TreeEntry(id: try repo.writeBlob(Data("n\n".utf8)))
    entries["keep/k.md"]?.mode = .executable

    let tree = try repo.writeTree(entries, base: base)
    XCTAssertEqual(try lsTree(tree.hex), entries)
    XCTAssertEqual(lines(try git.run("ls-tree", "-d", "--name-only", tree.hex)), ["inbox", "keep", "new"])
    XCTAssertEqual(try git.run("cat-file", "-p", "\(tree.hex):inbox/a.md"), "a2\r\n")
    // Without a base the same map gives the same tree: tree ids depend on content only.
    XCTAssertEqual(try repo.writeTree(entries, base: nil), tree)
    // Unchanged map: the base's own tree.
    XCTAssertEqual(
      try repo.writeTree(try repo.treeEntries(ofCommit: base), base: base).hex, try git.revParse("\(base.hex)^{tree}"))
    // A file may replace a directory.
    var replaced = entries
    replaced["new/deeper/n.md"] = nil
    replaced["new"] = TreeEntry(id: try repo.writeBlob(Data("file now\n".utf8)))
    XCTAssertEqual(try lsTree(try repo.writeTree(replaced, base: base).hex), replaced)
    try git.fsck()
  }

  /// The loose object files under `.git/objects/xx/`.
  func looseObjects() throws -> [String] {
    let objects = workTree.appendingPathComponent(".git/objects")
    return try FileManager.default.contentsOfDirectory(atPath: objects.path)
      .filter { $0.count == 2 }
      .flatMap { directory in
        try FileManager.default.contentsOfDirectory(atPath: objects.appendingPathComponent(directory).path)
          .map { directory + $0 }
      }
  }

  func testWriteTreeUpdatingWritesNewObjectsAsOnePack() throws {
    let repo = try makeRepository()
    try write("inbox/a.md", "a\n")
    try write("inbox/old/gone.md", "gone\n")
    try write("keep/k.md", "k\n")
    try write("was-file", "f\n")
    try write("was-dir/x.md", "x\n")
    let base = try XCTUnwrap(
      try repo.commit(
        paths: ["inbox/a.md", "inbox/old/gone.md", "keep/k.md", "was-file", "was-dir/x.md"], message: "base"))
    let before = Set(try looseObjects())
    let large = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let kept = try XCTUnwrap(try repo.treeEntries(ofCommit: base)["keep/k.md"])
    let changes: [String: NewTreeFile?] = [
      // A removal that empties a directory, an edit, new nested files (one bigger than a stored block, one empty),
      // a mode change of a stored blob, a file replacing a directory and a directory replacing a file.
      "inbox/old/gone.md": nil,
      "inbox/a.md": .bytes(Data("a2\r\n".utf8), mode: .blob),
      "new/deeper/n.md": .bytes(Data("n\n".utf8), mode: .blob),
      "new/large.bin": .bytes(large, mode: .blob),
      "new/empty": .bytes(Data(), mode: .blob),
      "keep/k.md": .stored(TreeEntry(id: kept.id, mode: .executable)),
      "was-dir/x.md": nil,
      "was-dir": .bytes(Data("now a file\n".utf8), mode: .blob),
      "was-file": nil,
      "was-file/inside.md": .bytes(Data("inside\n".utf8), mode: .blob),
    ]
    let tree = try repo.writeTree(updating: base, with: changes)

    XCTAssertEqual(Set(try looseObjects()), before, "no loose object was written")
    let listed = try lsTree(tree.hex)
    XCTAssertEqual(
      Set(listed.keys),
      ["inbox/a.md", "keep/k.md", "new/deeper/n.md", "new/large.bin", "new/empty", "was-dir", "was-file/inside.md"])
    XCTAssertEqual(listed["keep/k.md"], TreeEntry(id: kept.id, mode: .executable))
    XCTAssertEqual(try git.run("cat-file", "-p", "\(tree.hex):inbox/a.md"), "a2\r\n")
    XCTAssertEqual(try repo.blob(try XCTUnwrap(listed["new/large.bin"]).id), large)
    XCTAssertEqual(try repo.blob(try XCTUnwrap(listed["new/empty"]).id), Data())
    XCTAssertEqual(lines(try git.run("ls-tree", "-d", "--name-only", tree.hex)), ["inbox", "keep", "new", "was-file"])
    // The same tree through libgit2's own writer: ids depend on content alone.
    XCTAssertEqual(try repo.writeTree(listed, base: nil), tree)
    // Nothing to change: the base's tree, and no pack.
    let packs = try FileManager.default.contentsOfDirectory(
      atPath: workTree.appendingPathComponent(".git/objects/pack").path)
    XCTAssertEqual(try repo.writeTree(updating: base, with: [:]).hex, try git.revParse("\(base.hex)^{tree}"))
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: workTree.appendingPathComponent(".git/objects/pack").path),
      packs)
    // Removing everything gives the empty tree.
    let all = try repo.treeEntries(ofCommit: base).mapValues { _ in NewTreeFile?.none }
    XCTAssertEqual(try repo.writeTree(updating: base, with: all).hex, "4b825dc642cb6eb9a060e54bf8d69288fbee4904")
    try git.fsck()
  }

  func testMergeCommitWithTwoParentsAndBackupReference() throws {
    let repo = try makeRepository()
    let (_, ours, theirs) = try diverged(repo)
    let combined = try repo.treeEntries(ofCommit: ours).merging(try repo.treeEntries(ofCommit: theirs)) { a, _ in a }
    let tree = try repo.writeTree(combined, base: ours)
    let author = Signature(
      name: "Device A", email: "a@example.com", date: Date(timeIntervalSince1970: 1_800_000_000),
      timeZoneOffsetMinutes: 60)
    let merge = try repo.createCommit(tree: tree, parents: [ours, theirs], message: "Merge sync", author: author)
    // Nothing moved yet.
    XCTAssertEqual(try repo.headCommitID(), ours)
    XCTAssertEqual(try git.run("log", "-1", "--format=%P", merge.hex), "\(ours.hex) \(theirs.hex)\n")
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%an <%ae> %at %ai%n%s", merge.hex),
      "Device A <a@example.com> 1800000000 2027-01-15 09:00:00 +0100\nMerge sync\n")
    XCTAssertEqual(
      lines(try git.run("ls-tree", "-r", "--name-only", merge.hex)),
      ["a.md", "o1.md", "o2.md", "t1.md", "t2.md", "t3.md"])

    try repo.setReference("refs/nb/backup/20261122T101500Z", to: ours, message: "nb sync: backup", expected: .some(nil))
    XCTAssertEqual(
      try git.run("for-each-ref", "--format=%(objectname) %(refname)", "refs/nb"),
      "\(ours.hex) refs/nb/backup/20261122T101500Z\n")
    // Must-not-exist refuses to overwrite; compare-and-swap checks the old value.
    XCTAssertThrowsError(
      try repo.setReference("refs/nb/backup/20261122T101500Z", to: merge, message: "x", expected: .some(nil)))
    XCTAssertThrowsError(
      try repo.setReference("refs/nb/backup/20261122T101500Z", to: merge, message: "x", expected: theirs))
    try repo.setReference("refs/nb/backup/20261122T101500Z", to: merge, message: "x", expected: ours)
    XCTAssertEqual(try repo.references(matching: "refs/nb/backup/*"), ["refs/nb/backup/20261122T101500Z": merge])
    try repo.deleteReference("refs/nb/backup/20261122T101500Z")
    try repo.deleteReference("refs/nb/backup/20261122T101500Z")
    XCTAssertEqual(try git.run("for-each-ref", "refs/nb"), "")
    try git.fsck()
  }

  func testSafeCheckoutFastForwardsAndKeepsUnrelatedEdits() throws {
    let repo = try makeRepository()
    let first = try commitFile(repo, "a.md", "a\n")
    try write("notes/b.md", "b\n")
    try write("gone.md", "gone\n")
    let second = try XCTUnwrap(try repo.commit(paths: ["notes/b.md", "gone.md"], message: "two"))
    // Move the branch back with the CLI, as if `second` had arrived by fetch.
    try git.run("reset", "-q", "--hard", first.hex)
    XCTAssertFalse(exists("notes/b.md"))
    try git.run("update-ref", "refs/remotes/origin/main", second.hex)
    try write("a.md", "edited, unrelated to the incoming commit\n")

    XCTAssertEqual(try repo.checkoutSafely(second, expected: first, message: "fast-forward"), .checkedOut)
    XCTAssertEqual(try git.revParse("HEAD"), second.hex)
    XCTAssertEqual(try String(contentsOf: workTree.appendingPathComponent("notes/b.md"), encoding: .utf8), "b\n")
    XCTAssertEqual(
      try String(contentsOf: workTree.appendingPathComponent("a.md"), encoding: .utf8),
      "edited, unrelated to the incoming commit\n")
    XCTAssertEqual(try git.statusPorcelain(), " M a.md\n")

    // A later commit deleting an unedited file removes it.
    try git.run("rm", "-q", "--cached", "gone.md")
    try git.run("commit", "-q", "-m", "delete")
    let third = try id(try git.revParse("HEAD"))
    try git.run("reset", "-q", "--soft", second.hex)
    try git.run("reset", "-q", "gone.md")
    XCTAssertEqual(try repo.checkoutSafely(third, expected: second, message: "fast-forward"), .checkedOut)
    XCTAssertFalse(exists("gone.md"))
    XCTAssertEqual(try git.statusPorcelain(), " M a.md\n")
    try git.fsck()
  }

  /// Files that do not shrink are written over in place, the others emptied first, in two passes: both give git's
  /// work tree, and an edit in the way of either blocks both before anything is written.
  func testSafeCheckoutWritesGrowingFilesInPlaceAndTheOthersAfresh() throws {
    let repo = try makeRepository()
    try write("grows.md", "short\n")
    try write("same-size.md", "1234\n")
    try write("shrinks.md", "a much longer first version\n")
    try write("mode.sh", "echo\n")
    try write("gone/old.md", "old\n")
    let first = try XCTUnwrap(
      try repo.commit(paths: ["grows.md", "same-size.md", "shrinks.md", "mode.sh", "gone/old.md"], message: "one"))
    try write("grows.md", "short, and then a good deal longer\n")
    try write("same-size.md", "abcd\n")
    try write("shrinks.md", "short\n")
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o755], ofItemAtPath: workTree.appendingPathComponent("mode.sh").path)
    try FileManager.default.removeItem(at: workTree.appendingPathComponent("gone"))
    try write("new/deep/n.md", "new\n")
    try write("gone", "a file where a directory was\n")
    try git.run("add", "-A")
    try git.run("commit", "-q", "-m", "two")
    let second = try id(try git.revParse("HEAD"))
    try git.run("reset", "-q", "--hard", first.hex)

    // An edit in the way of a file that is emptied first: nothing is written, not even the in-place ones.
    try write("shrinks.md", "my edit\n")
    XCTAssertEqual(
      try repo.checkoutSafely(second, expected: first, message: "ff"), .blocked(conflicts: ["shrinks.md"]))
    XCTAssertEqual(try String(contentsOf: workTree.appendingPathComponent("grows.md"), encoding: .utf8), "short\n")
    XCTAssertFalse(exists("new/deep/n.md"))
    XCTAssertEqual(try git.statusPorcelain(), " M shrinks.md\n")
    // And one in the way of a file written in place.
    try write("shrinks.md", "a much longer first version\n")
    try write("grows.md", "mine\n")
    XCTAssertEqual(try repo.checkoutSafely(second, expected: first, message: "ff"), .blocked(conflicts: ["grows.md"]))
    XCTAssertEqual(
      try String(contentsOf: workTree.appendingPathComponent("shrinks.md"), encoding: .utf8),
      "a much longer first version\n")
    try write("grows.md", "short\n")

    // Each file written or removed is reported, counted across both passes, all before the branch moves. libgit2
    // removes a file whose mode changes before writing it again, so `mode.sh` counts twice.
    var reports: [(count: Int, head: String)] = []
    XCTAssertEqual(
      try repo.checkoutSafely(second, expected: first, message: "ff") { written in
        reports.append((written, (try? self.git.revParse("HEAD")) ?? "?"))
      }, .checkedOut)
    let changed = lines(try git.run("diff", "--name-only", "--no-renames", first.hex, second.hex))
    XCTAssertEqual(reports.map(\.count), Array(1...changed.count + 1), "changed: \(changed)")
    XCTAssertEqual(Set(reports.map(\.head)), [first.hex])
    XCTAssertEqual(try git.revParse("HEAD"), second.hex)
    XCTAssertEqual(try git.statusPorcelain(), "")
    for (path, text) in [
      ("grows.md", "short, and then a good deal longer\n"), ("same-size.md", "abcd\n"), ("shrinks.md", "short\n"),
      ("new/deep/n.md", "new\n"), ("gone", "a file where a directory was\n"),
    ] {
      XCTAssertEqual(try String(contentsOf: workTree.appendingPathComponent(path), encoding: .utf8), text, path)
    }
    XCTAssertEqual(lines(try git.run("ls-files", "-s")), lines(try git.run("ls-tree", "-r", "HEAD")).map { line in
      // `ls-files -s` prints mode, id, stage and path; `ls-tree` mode, type, id and path.
      let parts = line.split(separator: "\t", maxSplits: 1)
      let fields = parts[0].split(separator: " ")
      return "\(fields[0]) \(fields[2]) 0\t\(parts[1])"
    })
    try git.fsck()
  }

  func testSafeCheckoutRefusesToOverwriteAnEditedFile() throws {
    let repo = try makeRepository()
    let first = try commitFile(repo, "a.md", "a\n")
    let second = try commitFile(repo, "a.md", "incoming\n")
    try git.run("reset", "-q", "--hard", first.hex)
    try write("a.md", "my unsaved edit\n")
    try write("new.md", "untracked here\n")
    try git.run("update-ref", "refs/remotes/origin/main", second.hex)

    XCTAssertEqual(
      try repo.checkoutSafely(second, expected: first, message: "fast-forward"), .blocked(conflicts: ["a.md"]))
    XCTAssertEqual(
      try String(contentsOf: workTree.appendingPathComponent("a.md"), encoding: .utf8), "my unsaved edit\n")
    XCTAssertEqual(try git.revParse("HEAD"), first.hex)
    XCTAssertEqual(try git.statusPorcelain(), " M a.md\n?? new.md\n")

    // An untracked file where the incoming commit adds one is not overwritten either.
    try write("a.md", "a\n")
    var entries = try repo.treeEntries(ofCommit: first)
    entries["n2.md"] = TreeEntry(id: try repo.writeBlob(Data("theirs\n".utf8)))
    let addsN2 = try repo.createCommit(tree: try repo.writeTree(entries, base: first), parents: [first], message: "n2")
    try write("n2.md", "mine too\n")
    XCTAssertEqual(try repo.checkoutSafely(addsN2, expected: first, message: "ff"), .blocked(conflicts: ["n2.md"]))
    XCTAssertEqual(try String(contentsOf: workTree.appendingPathComponent("n2.md"), encoding: .utf8), "mine too\n")
    XCTAssertEqual(try git.revParse("HEAD"), first.hex)

    // The branch moved since the caller looked: refuse.
    XCTAssertThrowsError(try repo.checkoutSafely(second, expected: second, message: "ff")) { error in
      XCTAssertEqual((error as? GitError)?.code, -15, "\(error)")
    }
  }
}

extension MergeTests {
  /// `git merge-file -p ours base theirs`: its output when it exits 0 (clean), nil when it reports conflicts.
  func gitMergeFile(base: String, ours: String, theirs: String) throws -> String? {
    try temp.write("mf/base", base)
    try temp.write("mf/ours", ours)
    try temp.write("mf/theirs", theirs)
    let dir = temp.file("mf").path
    let result = try git.result(["merge-file", "-p", dir + "/ours", dir + "/base", dir + "/theirs"])
    return result.status == 0 ? result.stdout : nil
  }

  func testMergeTextAgreesWithGitMergeFile() throws {
    let base = "title\n\none\ntwo\nthree\nfour\nfive\n"
    let cases: [(String, String)] = [
      ("title\n\nONE\ntwo\nthree\nfour\nfive\n", "title\n\none\ntwo\nthree\nfour\nFIVE\n"),  // apart
      ("title\n\none\nTWO\nthree\nfour\nfive\n", "title\n\none\n2\nthree\nfour\nfive\n"),  // same line
      ("title\r\n\r\none\n", "title\n\none\ntwo\nthree\nfour\nfive\nsix\n"),  // CRLF vs append
      ("", "title\n\none\ntwo\nthree\nfour\nfive\nsix\n"),  // emptied vs appended
      (base, base),
    ]
    for (ours, theirs) in cases {
      let merged = try Repository.mergeText(base: Data(base.utf8), ours: Data(ours.utf8), theirs: Data(theirs.utf8))
      let oracle = try gitMergeFile(base: base, ours: ours, theirs: theirs)
      XCTAssertEqual(merged.map { String(decoding: $0, as: UTF8.self) }, oracle, "ours: \(ours.debugDescription)")
    }
    // The first case merges both edits; the second is a conflict and yields no text at all.
    XCTAssertEqual(
      try Repository.mergeText(base: Data(base.utf8), ours: Data(cases[0].0.utf8), theirs: Data(cases[0].1.utf8)),
      Data("title\n\nONE\ntwo\nthree\nfour\nFIVE\n".utf8))
    XCTAssertNil(
      try Repository.mergeText(base: Data(base.utf8), ours: Data(cases[1].0.utf8), theirs: Data(cases[1].1.utf8)))
  }

  func testSafeCheckoutOnAnUnbornBranchJoinsAnExistingHistory() throws {
    // Another device's history arrives in a fresh repository (nb clone / first sync joining a remote).
    let source = try temp.directory("source")
    let sourceGit = try GitCLI(workTree: source, home: home)
    try sourceGit.run("init", "-q", "-b", "main")
    try temp.write("source/inbox/a.md", "a\n")
    try temp.write("source/b.md", "b\n")
    try sourceGit.run("add", ".")
    try sourceGit.run("commit", "-q", "-m", "theirs")
    let repo = try makeRepository()
    try git.run("fetch", "-q", source.path, "main:refs/remotes/origin/main")
    let theirs = try XCTUnwrap(try repo.reference(named: "refs/remotes/origin/main"))

    try write("b.md", "an untracked local file in the way\n")
    XCTAssertEqual(try repo.checkoutSafely(theirs, expected: nil, message: "join"), .blocked(conflicts: ["b.md"]))
    XCTAssertTrue(repo.isHeadUnborn)
    XCTAssertEqual(
      try String(contentsOf: workTree.appendingPathComponent("b.md"), encoding: .utf8),
      "an untracked local file in the way\n")

    try remove("b.md")
    XCTAssertEqual(try repo.checkoutSafely(theirs, expected: nil, message: "join"), .checkedOut)
    XCTAssertEqual(try git.revParse("refs/heads/main"), theirs.hex)
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertEqual(try String(contentsOf: workTree.appendingPathComponent("inbox/a.md"), encoding: .utf8), "a\n")
  }
}

extension String {
  fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

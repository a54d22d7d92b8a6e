import Foundation
import NBTestSupport
import XCTest

@testable import GitKit

/// Reading git's plain files without libgit2 (`GitFiles`), checked against the git CLI and libgit2 on the same
/// repository: every answer either agrees with them or is nil.
final class GitFilesTests: GitKitTestCase {
  private var files: GitFiles { GitFiles(gitDirectory: workTree.appendingPathComponent(".git")) }

  private func commit(_ path: String, _ text: String, message: String) throws {
    try write(path, text)
    _ = try git.run("add", path)
    _ = try git.run("commit", "-q", "-m", message)
  }

  func testHeadOnABranchUnbornDetachedAndPacked() throws {
    _ = try git.run("init", "-q", "-b", "main")
    XCTAssertEqual(files.head(), .branch("main"))
    XCTAssertEqual(files.headCommit(), .some(nil), "an unborn branch has no commit, and the files say so")

    try commit("a.md", "a\n", message: "first")
    let first = try git.revParse("HEAD")
    XCTAssertEqual(files.headCommit(), .some(ObjectID(hex: first)))
    XCTAssertEqual(files.resolve("refs/heads/main")?.hex, first)

    // Packed: the loose ref is gone, packed-refs holds it (with a peeled tag line beside it).
    _ = try git.run("tag", "-a", "v1", "-m", "tag")
    _ = try git.run("pack-refs", "--all")
    XCTAssertFalse(exists(".git/refs/heads/main"))
    XCTAssertEqual(files.headCommit(), .some(ObjectID(hex: first)))
    XCTAssertEqual(files.resolve("refs/tags/v1")?.hex, try git.revParse("v1"))

    try commit("b.md", "b\n", message: "second")
    let second = try git.revParse("HEAD")
    XCTAssertEqual(files.headCommit(), .some(ObjectID(hex: second)), "a loose ref wins over packed-refs")

    _ = try git.run("checkout", "-q", "--detach", first)
    XCTAssertEqual(files.head(), .detached(ObjectID(hex: first)!))
    XCTAssertEqual(files.headCommit(), .some(ObjectID(hex: first)))

    _ = try git.run("checkout", "-q", "main")
    XCTAssertNil(files.resolve("refs/heads/nothing"))
    XCTAssertNil(files.resolve("refs/heads/../../HEAD"), "a name climbing out of refs/ is never read")
  }

  func testALinkedWorktreeReadsItsOwnHeadAndTheSharedRefs() throws {
    _ = try git.run("init", "-q", "-b", "main")
    try commit("a.md", "a\n", message: "first")
    let linked = temp.url.appendingPathComponent("linked")
    _ = try git.run("worktree", "add", "-q", "-b", "side", linked.path)
    let gitDirectory = workTree.appendingPathComponent(".git/worktrees/linked")
    let files = GitFiles(gitDirectory: gitDirectory)
    XCTAssertEqual(files.head(), .branch("side"))
    XCTAssertEqual(files.headCommit(), .some(ObjectID(hex: try git.revParse("HEAD"))))
    XCTAssertEqual(
      URL(fileURLWithPath: files.commonDirectory).standardizedFileURL.resolvingSymlinksInPath().path,
      workTree.appendingPathComponent(".git").resolvingSymlinksInPath().path)
    XCTAssertNotNil(files.looseCommit(try XCTUnwrap(ObjectID(hex: try git.revParse("HEAD")))))
  }

  func testStateFollowsTheFilesGitLeaves() throws {
    _ = try git.run("init", "-q", "-b", "main")
    try commit("a.md", "base\n", message: "base")
    XCTAssertEqual(files.state, .none)
    _ = try git.run("checkout", "-q", "-b", "side")
    try commit("a.md", "side\n", message: "side")
    _ = try git.run("checkout", "-q", "main")
    try commit("a.md", "main\n", message: "main")
    let merge = try git.result(["merge", "-q", "side"])
    XCTAssertNotEqual(merge.status, 0, "the merge was meant to stop on its conflict")
    let repository = try Repository.open(at: workTree)
    XCTAssertEqual(files.state, .merge)
    XCTAssertEqual(files.state, repository.state)
    _ = try git.run("merge", "--abort")
    XCTAssertEqual(files.state, .none)

    let rebase = try git.result(["rebase", "side"])
    XCTAssertNotEqual(rebase.status, 0)
    XCTAssertEqual(files.state, .rebase)
    XCTAssertEqual(files.state, repository.state)
    _ = try git.run("rebase", "--abort")

    let pick = try git.result(["cherry-pick", "side"])
    XCTAssertNotEqual(pick.status, 0)
    XCTAssertEqual(files.state, .cherryPick)
    XCTAssertEqual(files.state, repository.state)
    _ = try git.run("cherry-pick", "--abort")

    _ = try git.run("bisect", "start")
    XCTAssertEqual(files.state, .bisect)
    XCTAssertEqual(files.state, repository.state)
    _ = try git.run("bisect", "reset")
    XCTAssertEqual(files.state, .none)
  }

  func testLooseCommitsParseAsLibGit2AndGitReadThem() throws {
    _ = try git.run("init", "-q", "-b", "main")
    let repository = try Repository.open(at: workTree)
    let messages = [
      "plain subject",
      "subject\n\nbody line one\nbody line two",
      "\n\n  a subject that\nwraps onto two lines  \n\nand a body",
      "ünïcödé — subject ✓",
    ]
    for (number, message) in messages.enumerated() {
      try write("n\(number).md", "\(number)\n")
      _ = try git.run("add", ".")
      _ = try git.run(arguments: ["commit", "-q", "--cleanup=verbatim", "-m", message])
      let id = try XCTUnwrap(ObjectID(hex: try git.revParse("HEAD")))
      let parsed = try XCTUnwrap(files.looseCommit(id), "commit \(number) was not read")
      let expected = try repository.commit(id)
      XCTAssertEqual(parsed, expected, "commit \(number)")
      XCTAssertEqual(
        parsed.summary, try git.run("log", "-1", "--format=%s").trimmingCharacters(in: .newlines),
        "commit \(number)'s subject")
    }
    // A signed commit's armour is a header continued over several lines; it must not end the headers.
    let tree = try git.revParse("HEAD^{tree}")
    let parent = try git.revParse("HEAD")
    let raw = """
      tree \(tree)
      parent \(parent)
      author A U Thor <author@example.com> 1700000000 +0130
      committer C O Mitter <committer@example.com> 1700000100 -0800
      gpgsig -----BEGIN PGP SIGNATURE-----
       
       iQEzBAABCAAdFiEE
       -----END PGP SIGNATURE-----

      signed subject

      """
    let signed = try git.run(arguments: ["hash-object", "-t", "commit", "-w", "--stdin"], stdin: Data(raw.utf8))
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let signedID = try XCTUnwrap(ObjectID(hex: signed))
    let parsed = try XCTUnwrap(files.looseCommit(signedID))
    XCTAssertEqual(parsed, try repository.commit(signedID))
    XCTAssertEqual(parsed.author.timeZoneOffsetMinutes, 90)
    XCTAssertEqual(parsed.committer.timeZoneOffsetMinutes, -480)
    XCTAssertEqual(parsed.summary, "signed subject")

    // Packed, the commit is libgit2's to read: the files give no answer rather than a wrong one.
    let head = try XCTUnwrap(ObjectID(hex: try git.revParse("HEAD")))
    XCTAssertNotNil(files.looseCommit(head))
    _ = try git.run("gc", "-q")
    XCTAssertNil(files.looseCommit(head))
    // Not a commit at all.
    let blob = try git.run(arguments: ["hash-object", "-w", "--stdin"], stdin: Data("blob text\n".utf8))
      .trimmingCharacters(in: .whitespacesAndNewlines)
    XCTAssertNil(files.looseCommit(try XCTUnwrap(ObjectID(hex: blob))))
  }

  func testTreesOfLooseObjectsDiffAsGitDiffTree() throws {
    _ = try git.run("init", "-q", "-b", "main")
    try commit("a.md", "a\n", message: "first")
    try write("dir/b.md", "b\n")
    try write("dir/sub/c.md", "c\n")
    try write("becomes-dir", "file\n")
    try write("link-target.md", "t\n")
    _ = try git.run("add", ".")
    _ = try git.run("commit", "-q", "-m", "second")
    _ = try git.run("tag", "second")
    try write("a.md", "a changed\n")
    try remove("dir/sub/c.md")
    try write("dir/sub/d.md", "d\n")
    try remove("becomes-dir")
    try write("becomes-dir/inside.md", "inside\n")
    try FileManager.default.createSymbolicLink(
      atPath: workTree.appendingPathComponent("link.md").path, withDestinationPath: "link-target.md")
    _ = try git.run("add", "-A")
    _ = try git.run("commit", "-q", "-m", "third")
    func tree(_ rev: String) throws -> ObjectID { try XCTUnwrap(ObjectID(hex: try git.revParse("\(rev)^{tree}"))) }
    func diffTree(_ old: String?, _ new: String) throws -> Set<String> {
      let arguments = old.map { ["diff-tree", "-r", "--name-only", $0, new] } ?? ["ls-tree", "-r", "--name-only", new]
      return Set(try git.run(arguments: arguments).split(separator: "\n").map(String.init))
    }
    XCTAssertEqual(files.changedPaths(fromTree: try tree("second"), toTree: try tree("HEAD")), try diffTree("second", "HEAD"))
    XCTAssertEqual(files.changedPaths(fromTree: try tree("HEAD~2"), toTree: try tree("HEAD")), try diffTree("HEAD~2", "HEAD"))
    XCTAssertEqual(files.changedPaths(fromTree: nil, toTree: try tree("HEAD")), try diffTree(nil, "HEAD"))
    XCTAssertEqual(files.changedPaths(fromTree: try tree("HEAD"), toTree: try tree("HEAD")), [])

    let head = try tree("HEAD")
    let link = try XCTUnwrap(files.entry(at: "link.md", inTree: head) ?? nil)
    XCTAssertEqual(link.mode, 0o120000)
    XCTAssertEqual(link.id.hex, try git.revParse("HEAD:link.md"))
    XCTAssertEqual(try XCTUnwrap(files.entry(at: "dir/sub", inTree: head) ?? nil).isTree, true)
    XCTAssertEqual(files.entry(at: "dir/nothing.md", inTree: head), .some(nil))
    XCTAssertEqual(files.entry(at: "a.md/below", inTree: head), .some(nil))
    let blob = try XCTUnwrap(files.entry(at: "dir/sub/d.md", inTree: head) ?? nil)
    XCTAssertEqual(files.looseBlob(blob.id), Array("d\n".utf8))
    XCTAssertNil(files.looseBlob(head), "a tree is not a blob")

    _ = try git.run("gc", "-q")
    XCTAssertNil(files.changedPaths(fromTree: try tree("HEAD~1"), toTree: head), "packed trees are libgit2's")
    XCTAssertNil(files.entry(at: "a.md", inTree: head))
  }

  func testADamagedLooseObjectIsNoAnswer() throws {
    _ = try git.run("init", "-q", "-b", "main")
    try commit("a.md", "a\n", message: "first")
    let id = try git.revParse("HEAD")
    let path = workTree.appendingPathComponent(".git/objects/\(id.prefix(2))/\(id.dropFirst(2))")
    var bytes = try Data(contentsOf: path)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path.path)
    bytes[bytes.count / 2] ^= 0xFF
    try bytes.write(to: path)
    XCTAssertNil(files.looseCommit(try XCTUnwrap(ObjectID(hex: id))))
    try Data().write(to: path)
    XCTAssertNil(files.looseCommit(try XCTUnwrap(ObjectID(hex: id))))
  }

  func testTheConfigDigestChangesWithAnyConfigFileAndRefusesIncludes() throws {
    _ = try git.run("init", "-q", "-b", "main")
    let environment = ["HOME": home.path]
    let first = try XCTUnwrap(files.configDigest(environment: environment))
    XCTAssertEqual(files.configDigest(environment: environment), first, "the same files give the same digest")
    _ = try git.run("config", "core.trustctime", "false")
    let second = try XCTUnwrap(files.configDigest(environment: environment))
    XCTAssertNotEqual(second, first)
    let global = home.appendingPathComponent(".gitconfig")
    let globalText = (try? String(contentsOf: global, encoding: .utf8)) ?? ""
    try (globalText + "[core]\n\tfilemode = false\n").write(to: global, atomically: true, encoding: .utf8)
    XCTAssertNotEqual(files.configDigest(environment: environment), second, "the global config counts")
    try (globalText + "[Include]\n\tpath = other\n").write(to: global, atomically: true, encoding: .utf8)
    XCTAssertNil(files.configDigest(environment: environment), "an include's target is not in the digest")
  }

  func testZlibInflatesWhatGitDeflated() throws {
    let zlib = try XCTUnwrap(Zlib.shared)
    var compressed: [UInt8] = []
    let text = Array(String(repeating: "a line of a note\n", count: 2_000).utf8)
    let stream = try XCTUnwrap(Zlib.Stream(zlib, level: 6))
    try text.withUnsafeBytes { try stream.compress($0, into: &compressed, storeIfIncompressible: false) }
    XCTAssertEqual(compressed.withUnsafeBytes { zlib.inflate($0, limit: 1 << 20) }, text)
    XCTAssertNil(compressed.withUnsafeBytes { zlib.inflate($0, limit: 1_000) }, "longer than the limit")
    XCTAssertNil(compressed.dropLast(10).withUnsafeBytes { zlib.inflate($0, limit: 1 << 20) }, "cut short")
  }
}

import Foundation
import NBTestSupport
import XCTest

/// `nb status`, and how every command finds its repository: `--dir`, `NB_DIR`, the enclosing repository of the
/// working directory, `~/notes`; none → a message pointing at `nb init`.
final class StatusTests: NBCLITestCase {
  func testCleanRepository() throws {
    try makeRepository()
    let output = try assertNoCommit { try nbSucceeds("status").stdout }
    let head = try git.revParse("HEAD")
    XCTAssertTrue(output.contains("Repository \(root.path)"), output)
    XCTAssertTrue(output.contains("On branch main"), output)
    XCTAssertTrue(output.contains(String(head.prefix(8)) + " nb: init"), output)
    XCTAssertTrue(output.contains("Nothing to save"), output)
  }

  func testUncommittedChangesAreListedAsGitSeesThem() throws {
    try makeRepository()
    try nbSucceeds("add", "Kept", "--content", "x")
    try nbSucceeds("add", "Gone", "--content", "y")
    try write("inbox/kept.md", try text("inbox/kept.md") + "edited\n")
    try FileManager.default.removeItem(at: url("inbox/gone.md"))
    try write("inbox/new.md", "new\n")
    let status = try jsonObject("status", "--json")
    XCTAssertEqual(status["clean"] as? Bool, false)
    let changes = try XCTUnwrap(status["changes"] as? [[String: Any]])
    let kinds = Dictionary(
      uniqueKeysWithValues: changes.compactMap { change in
        (change["path"] as? String).map { ($0, change["kind"] as? String ?? "") }
      })
    XCTAssertEqual(kinds, ["inbox/kept.md": "modified", "inbox/gone.md": "deleted", "inbox/new.md": "added"])
    // The oracle: git reports the same three paths.
    let gitPaths = try git.statusPorcelain().split(separator: "\n").map { String($0.dropFirst(3)) }
    XCTAssertEqual(Set(gitPaths), Set(kinds.keys))
    let text = try nbSucceeds("status").stdout
    XCTAssertTrue(text.contains("nb save"), text)
    for path in kinds.keys { XCTAssertTrue(text.contains(path), text) }
  }

  // MARK: - Finding the repository

  private func statusRoot(_ args: [String], cwd: URL? = nil, env: [String: String] = [:]) throws -> String? {
    let result = try runner.run(args + ["--json"], cwd: cwd, env: env)
    XCTAssertEqual(result.status, 0, result.stderr)
    let object = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]
    return object?["root"] as? String
  }

  func testDiscoveryOrder() throws {
    try makeRepository()
    let other = temp.file("other")
    XCTAssertEqual(try runner.run(["init", other.path]).status, 0)
    let elsewhere = try temp.directory("elsewhere")
    // --dir wins over NB_DIR and the working directory.
    XCTAssertEqual(
      try statusRoot(["status", "--dir", other.path], cwd: root, env: ["NB_DIR": root.path]), other.path)
    // NB_DIR wins over the working directory.
    XCTAssertEqual(try statusRoot(["status"], cwd: root, env: ["NB_DIR": other.path]), other.path)
    // The enclosing repository of the working directory, from deep inside it.
    let deep = try temp.directory("notes/work/projects")
    XCTAssertEqual(try statusRoot(["status"], cwd: deep), root.path)
    XCTAssertEqual(try statusRoot(["status"], cwd: other), other.path)
    // A relative --dir is taken from the working directory.
    XCTAssertEqual(try statusRoot(["status", "--dir", "../other"], cwd: elsewhere), other.path)
  }

  func testDefaultIsNotesInHome() throws {
    XCTAssertEqual(try runner.run(["init", home.appendingPathComponent("notes").path]).status, 0)
    let elsewhere = try temp.directory("elsewhere")
    XCTAssertEqual(try statusRoot(["status"], cwd: elsewhere), home.appendingPathComponent("notes").path)
    // `~` in --dir is the HOME nb runs with.
    XCTAssertEqual(
      try statusRoot(["status", "--dir", "~/notes"], cwd: elsewhere), home.appendingPathComponent("notes").path)
  }

  func testNoRepositorySaysNbInit() throws {
    let elsewhere = try temp.directory("elsewhere")
    for args in [["status"], ["list"], ["add", "X", "--content", "y"]] {
      let result = try runner.run(args, cwd: elsewhere)
      XCTAssertNotEqual(result.status, 0)
      XCTAssertTrue(result.stderr.contains("nb init"), "nb \(args): \(result.stderr)")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: home.appendingPathComponent("notes").path))
    let explicit = try runner.run(["list", "--dir", elsewhere.path])
    XCTAssertNotEqual(explicit.status, 0)
    XCTAssertTrue(explicit.stderr.contains("nb init"), explicit.stderr)
    XCTAssertTrue(explicit.stderr.contains(elsewhere.path), "names where it looked: \(explicit.stderr)")
  }
}

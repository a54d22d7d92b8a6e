import Foundation
import NBTestSupport
import XCTest

/// `nb sync` over HTTPS-style basic auth tells the user's git credential helpers what became of their answer, as
/// git does: `git credential reject` erases a stored password the server refused, `git credential approve` is told
/// of one it accepted, and `NB_GIT_TOKEN` is never handed to a helper to store. The helpers are the real ones, set
/// up in the test's HOME: git's `store` (`~/.git-credentials`) behind a script that logs each call it gets.
final class SyncCredentialHelperTests: NBCLITestCase {
  var server: GitHTTPServer!
  var bare: GitCLI!
  /// What the logging helper was called with, a line per call: `get`, or `store`/`erase` with the user and password.
  var helperLog: URL!

  override func setUpWithError() throws {
    try super.setUpWithError()
    try XCTSkipUnless(GitHTTPServer.isAvailable, "python3 is needed for the HTTP test server")
    try makeRepository()
    try addNote("Roadmap", content: "Plans\n")
    let served = try temp.directory("served")
    let bareURL = served.appendingPathComponent("notes.git")
    _ = try git.run("init", "--bare", "--quiet", bareURL.path)
    bare = try GitCLI(workTree: bareURL, home: home)
    // Only alice with the password `right` gets in, as a server that checks the user.
    server = try GitHTTPServer(basePath: served, environment: git.environment, basicAuth: ("alice", "right"))
    try nbSucceeds("remote", "add", "origin", server.url("notes.git"))

    helperLog = temp.file("helper.log")
    let script = temp.file("log-helper.sh")
    let text = """
      #!/bin/sh
      # A credential helper that only listens: it answers no `get`, and logs what git tells it.
      line="$1"
      while IFS= read -r field && [ -n "$field" ]; do
        case "$field" in username=*|password=*) line="$line $field" ;; esac
      done
      echo "$line" >> '\(helperLog.path)'

      """
    try Data(text.utf8).write(to: script)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
    // The logger first, so it sees every `get` before `store` answers it; `store` and `erase` go to both.
    try git.run("config", "--global", "--add", "credential.helper", "!\(script.path)")
    try git.run("config", "--global", "--add", "credential.helper", "store")
  }

  override func tearDownWithError() throws {
    server?.stop()
    server = nil
    try super.tearDownWithError()
  }

  /// Stores `password` for alice at the server in `~/.git-credentials`, as `git credential approve` would have.
  private func storePassword(_ password: String) throws {
    try Data("http://alice:\(password)@127.0.0.1:\(server.port)\n".utf8).write(to: credentialsFile)
  }

  private var credentialsFile: URL { home.appendingPathComponent(".git-credentials") }

  private var helperCalls: [String] {
    guard let data = FileManager.default.contents(atPath: helperLog.path) else { return [] }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  /// What `git credential fill` answers for the server now from `store` alone (the logger left out, so this look
  /// is not logged as nb's), or nil when nothing is stored.
  private func storedPassword() throws -> String? {
    let query = "protocol=http\nhost=127.0.0.1:\(server.port)\npath=notes.git\n\n"
    var environment = git.environment
    environment["GIT_TERMINAL_PROMPT"] = "0"
    let result = try ProcessRunner.run(
      "git", arguments: ["-c", "credential.helper=", "-c", "credential.helper=store", "credential", "fill"],
      environment: environment, stdin: Data(query.utf8))
    guard result.succeeded else { return nil }
    return result.stdout.split(separator: "\n").first { $0.hasPrefix("password=") }.map {
      String($0.dropFirst("password=".count))
    }
  }

  /// A stored password the server refuses is erased (`reject`), the token gets through with the user the helper
  /// named, and the token is not stored: the next `fill` knows nothing.
  func testARefusedStoredPasswordIsErasedAndTheTokenIsNotStored() throws {
    try storePassword("stale")
    try nbSucceeds("sync", env: ["NB_GIT_TOKEN": "right"])
    XCTAssertEqual(try bare.revParse("refs/heads/main"), try git.revParse("HEAD"), "the sync published")

    let stored = (try? String(contentsOf: credentialsFile, encoding: .utf8)) ?? ""
    XCTAssertFalse(stored.contains("stale"), "the refused password is still stored:\n\(stored)")
    XCTAssertFalse(stored.contains("right"), "the token was stored:\n\(stored)")
    XCTAssertNil(try storedPassword())
    // The fetch asked the helpers, and had them erase the refused answer; the push asked again and got nothing.
    let calls = helperCalls
    XCTAssertEqual(calls.filter { $0.hasPrefix("erase") }, ["erase username=alice password=stale"], "\(calls)")
    XCTAssertEqual(calls.first, "get")
    XCTAssertEqual(calls.dropFirst().first, "erase username=alice password=stale")
    XCTAssertFalse(calls.contains { $0.hasPrefix("store") }, "NB_GIT_TOKEN must not be approved: \(calls)")
  }

  /// Without a token a refused stored password is still erased, and the sync fails saying the credentials were
  /// refused; nothing changed in the repository.
  func testARefusedStoredPasswordIsErasedEvenWhenTheSyncFails() throws {
    try storePassword("stale")
    let before = try snapshot()
    let result = try nb("sync")
    XCTAssertNotEqual(result.status, 0)
    XCTAssertNotEqual(result.status, 3)
    XCTAssertTrue(result.stderr.contains("refused the credentials"), result.stderr)
    XCTAssertEqual(try snapshot(), before)
    XCTAssertNil(try storedPassword())
    XCTAssertEqual(helperCalls, ["get", "erase username=alice password=stale"])
  }

  /// A stored password the server accepts is approved after each operation it got through, and stays stored;
  /// nothing is erased.
  func testAnAcceptedStoredPasswordIsApprovedAndKept() throws {
    try storePassword("right")
    try nbSucceeds("sync", env: ["NB_GIT_TOKEN": "not-needed"])
    XCTAssertEqual(try bare.revParse("refs/heads/main"), try git.revParse("HEAD"), "the sync published")
    XCTAssertEqual(try storedPassword(), "right")
    let store = "store username=alice password=right"
    // Publishing lists the remote once more afterwards (to see its HEAD): each operation asks, then approves.
    let calls = helperCalls
    XCTAssertFalse(calls.isEmpty)
    XCTAssertEqual(calls, Array(repeating: ["get", store], count: calls.count / 2).flatMap { $0 }, "\(calls)")

    try FileManager.default.removeItem(at: helperLog)
    try addNote("Standup", content: "Notes\n")
    try nbSucceeds("sync", env: ["NB_GIT_TOKEN": "not-needed"])
    XCTAssertEqual(try bare.revParse("refs/heads/main"), try git.revParse("HEAD"), "the sync pushed")
    XCTAssertEqual(helperCalls, ["get", store, "get", store], "the fetch's, then the push's")
    XCTAssertEqual(try storedPassword(), "right")
  }
}

import Foundation
import NBTestSupport
import XCTest

/// A remote that cannot be used is explained in the user's words: what happened, the URL, what to try, and no
/// libgit2 function name or code. Each case changes nothing in the repository.
final class SyncErrorMessageTests: NBCLITestCase {
  override func setUpWithError() throws {
    try super.setUpWithError()
    try makeRepository()
    try addNote("Roadmap", content: "Plans\n")
  }

  /// Runs `nb sync` against `url`, checks the one-line error names the URL and `words`, leaks no libgit2 internals,
  /// exits with `status` (or any failure but the offline 3 when nil) and changed nothing.
  func assertSyncFails(
    url: String, status: Int32?, words: [String], file: StaticString = #filePath, line: UInt = #line
  ) throws {
    try nbSucceeds("remote", "add", "origin", url)
    let before = try snapshot()
    let result = try nb(arguments: ["sync"])
    if let status {
      XCTAssertEqual(result.status, status, result.stderr, file: file, line: line)
    } else {
      XCTAssertNotEqual(result.status, 0, result.stderr, file: file, line: line)
      XCTAssertNotEqual(result.status, 3, "the server answered, so this is not 'offline'", file: file, line: line)
    }
    let message = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
    XCTAssertTrue(message.contains(url), "should name \(url): \(message)", file: file, line: line)
    for word in words {
      XCTAssertTrue(message.contains(word), "should say \(word): \(message)", file: file, line: line)
    }
    XCTAssertFalse(message.contains("git_"), "libgit2 internals leaked: \(message)", file: file, line: line)
    XCTAssertFalse(message.contains("status code"), "HTTP internals leaked: \(message)", file: file, line: line)
    XCTAssertEqual(message.split(separator: "\n").count, 1, message, file: file, line: line)
    XCTAssertEqual(try snapshot(), before, "a failed sync changed the repository", file: file, line: line)
  }

  func testMissingLocalPathIsOfflineAndAsksAboutTheDisk() throws {
    try assertSyncFails(
      url: temp.file("unmounted/notes.git").path, status: 3, words: ["does not exist", "mounted", "nothing was sent"])
  }

  func testAHostThatDoesNotAnswerIsOfflineAndSaysWhatToCheck() throws {
    // A port nothing listens on: the connection is refused, as for a server that is down.
    let port = try LocalPort.free()
    try assertSyncFails(
      url: "git://127.0.0.1:\(port)/notes.git", status: 3,
      words: ["did not answer", "check the network connection", "nothing was sent"])
  }

  func testHTTPNotFoundSaysSoAndHowToFixTheURL() throws {
    try XCTSkipUnless(GitHTTPServer.isAvailable, "python3 is needed for the HTTP test server")
    let served = try temp.directory("served")
    let server = try GitHTTPServer(basePath: served, environment: git.environment)
    defer { server.stop() }
    try assertSyncFails(url: server.url("missing.git"), status: nil, words: ["no repository", "nb remote set-url"])
  }

  func testHTTPAuthenticationRefusedSaysWhatToCheck() throws {
    try XCTSkipUnless(GitHTTPServer.isAvailable, "python3 is needed for the HTTP test server")
    let served = try temp.directory("served")
    _ = try git.run("init", "--bare", "--quiet", served.appendingPathComponent("notes.git").path)
    let server = try GitHTTPServer(basePath: served, environment: git.environment, basicAuth: ("alice", "right"))
    defer { server.stop() }
    try assertSyncFails(url: server.url("notes.git"), status: nil, words: ["refused the credentials", "NB_GIT_TOKEN"])
  }

  // MARK: - NB_GIT_TOKEN and the user name

  /// A bare repository served over HTTP by a server that accepts only alice with the password `right` (as servers
  /// that check the user do: a token with the wrong user is refused).
  private func serverCheckingTheUser() throws -> (server: GitHTTPServer, bare: GitCLI) {
    try XCTSkipUnless(GitHTTPServer.isAvailable, "python3 is needed for the HTTP test server")
    let served = try temp.directory("served")
    let bare = served.appendingPathComponent("notes.git")
    _ = try git.run("init", "--bare", "--quiet", bare.path)
    let server = try GitHTTPServer(basePath: served, environment: git.environment, basicAuth: ("alice", "right"))
    return (server, try GitCLI(workTree: bare, home: home))
  }

  /// Checks with the real git that the remote's `main` is this repository's HEAD.
  private func assertPublished(to bare: GitCLI, file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(try bare.revParse("refs/heads/main"), try git.revParse("HEAD"), file: file, line: line)
  }

  func testTheTokenGoesWithTheUserTheURLNames() throws {
    let (server, bare) = try serverCheckingTheUser()
    defer { server.stop() }
    try nbSucceeds("remote", "add", "origin", "http://alice@127.0.0.1:\(server.port)/notes.git")
    try nbSucceeds("sync", env: ["NB_GIT_TOKEN": "right"])
    try assertPublished(to: bare)
  }

  func testWithoutAUserInTheURLTheTokenGoesWithTheUserGitCredentialKnows() throws {
    let (server, bare) = try serverCheckingTheUser()
    defer { server.stop() }
    // The user's helper knows alice, with a password that no longer works: the token is tried with her name.
    try git.run("config", "--global", "credential.helper", "store")
    try Data("http://alice:stale@127.0.0.1:\(server.port)\n".utf8).write(
      to: home.appendingPathComponent(".git-credentials"))
    try nbSucceeds("remote", "add", "origin", server.url("notes.git"))
    try nbSucceeds("sync", env: ["NB_GIT_TOKEN": "right"])
    try assertPublished(to: bare)
  }

  /// With no user anywhere, the token goes with GitHub's `x-access-token`; a server that checks the user refuses
  /// it, and the message says what to check (the README says to put the user in the URL).
  func testWithoutAnyUserAServerThatChecksItRefusesTheToken() throws {
    let (server, _) = try serverCheckingTheUser()
    defer { server.stop() }
    try nbSucceeds("remote", "add", "origin", server.url("notes.git"))
    let before = try snapshot()
    let result = try nb("sync", env: ["NB_GIT_TOKEN": "right"])
    assertOneLineError(result, mentioning: [server.url("notes.git"), "refused the credentials", "NB_GIT_TOKEN"])
    XCTAssertNotEqual(result.status, 3)
    XCTAssertEqual(try snapshot(), before)
  }
}

import Foundation
import NBTestSupport
import XCTest

@testable import GitKit

/// What a server made of each offered credential reaches the credentials (`git credential approve` / `reject` in
/// the standard chain): first without a server, then against smart HTTP with basic auth.
final class CredentialFeedbackTests: RemoteTestCase {
  /// What a feedback or report closure was told, in order.
  final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    func record(_ entry: String) {
      lock.lock()
      entries.append(entry)
      lock.unlock()
    }
    var all: [String] {
      lock.lock()
      defer { lock.unlock() }
      return entries
    }
  }

  /// A stand-in for the user's helper: answers `answer` until told to reject it, then nothing (as `store` does
  /// once the line is erased); logs every call.
  final class Helper: @unchecked Sendable {
    let log = Recorder()
    private let lock = NSLock()
    private var stored: (username: String, password: String)?
    init(_ stored: (username: String, password: String)?) { self.stored = stored }

    func fill(_ url: String) -> (username: String, password: String)? {
      log.record("get \(url)")
      lock.lock()
      defer { lock.unlock() }
      return stored
    }

    func report(_ url: String, _ answer: (username: String, password: String), _ verdict: CredentialVerdict) {
      log.record("\(verdict == .accepted ? "store" : "erase") \(url) \(answer.username):\(answer.password)")
      lock.lock()
      if verdict == .refused { stored = nil }
      lock.unlock()
    }

    func credentials(token: String? = nil) -> Credentials {
      Credentials.standard(
        environment: token.map { ["NB_GIT_TOKEN": $0] } ?? [:], fillCredential: { self.fill($0) },
        reportCredential: { self.report($0, $1, $2) })
    }
  }

  private static func request(_ url: String, attempt: Int) -> CredentialRequest {
    CredentialRequest(url: url, usernameFromURL: nil, allowed: .userPassword, attempt: attempt)
  }

  // MARK: - Without a server

  /// A refused helper answer is rejected; the token behind it is still offered next although the helper, having
  /// erased its answer, no longer knows one; the token's own verdict is never handed to the helper.
  func testTheHelpersAnswerIsReportedAndTheTokenIsNot() {
    let url = "https://example.com/notes.git"
    let helper = Helper(("alice", "stale"))
    let credentials = helper.credentials(token: "tok")
    let first = Self.request(url, attempt: 1)
    let stale = credentials.answer(first)
    XCTAssertEqual(stale?.description, "password for alice")
    credentials.report(.refused, of: stale!, for: first)
    let second = Self.request(url, attempt: 2)
    let token = credentials.answer(second)
    guard case .userPassword("alice", "tok") = token else { return XCTFail("expected alice's token, got \(token!)") }
    credentials.report(.accepted, of: token!, for: second)
    XCTAssertEqual(helper.log.all, ["get \(url)", "erase \(url) alice:stale"])
  }

  /// An accepted helper answer is approved; the helper is asked once per operation (its first request), not again
  /// for the following ones.
  func testAnAcceptedHelperAnswerIsApproved() {
    let url = "https://example.com/notes.git"
    let helper = Helper(("alice", "right"))
    let credentials = helper.credentials()
    let first = Self.request(url, attempt: 1)
    let right = credentials.answer(first)!
    _ = credentials.answer(Self.request(url, attempt: 2))
    credentials.report(.accepted, of: right, for: first)
    XCTAssertEqual(helper.log.all, ["get \(url)", "store \(url) alice:right"])
    _ = credentials.answer(Self.request(url, attempt: 1))
    XCTAssertEqual(helper.log.all.filter { $0.hasPrefix("get") }.count, 2, "a new operation asks the helper again")
  }

  /// A credential the helper did not give (a custom one, an ssh key) is never reported to it.
  func testOtherCredentialsAreNotReported() {
    let helper = Helper(nil)
    let credentials = helper.credentials(token: "tok")
    let request = Self.request("https://example.com/notes.git", attempt: 1)
    credentials.report(.refused, of: .userPassword(username: "x-access-token", password: "tok"), for: request)
    credentials.report(.accepted, of: .sshAgent(username: "git"), for: request)
    XCTAssertEqual(helper.log.all, [])
  }

  /// What `git credential` is asked: protocol, host with its port, path without the leading slash, the URL's user.
  func testHelperQuery() {
    XCTAssertEqual(
      Credentials.helperQuery("https://alice@example.com:8443/team/notes.git"),
      "protocol=https\nhost=example.com:8443\npath=team/notes.git\nusername=alice\n")
    XCTAssertEqual(Credentials.helperQuery("http://127.0.0.1/"), "protocol=http\nhost=127.0.0.1\n")
    XCTAssertNil(Credentials.helperQuery("git@example.com:notes.git"))
  }

  // MARK: - Against smart HTTP with basic auth

  private func serverAcceptingAlice() throws -> (GitHTTPServer, Repository) {
    try XCTSkipUnless(GitHTTPServer.isAvailable, "python3 is needed for the HTTP test server")
    let server = try GitHTTPServer(basePath: serverRoot, environment: git.environment, basicAuth: ("alice", "right"))
    try makeBare()
    let repo = try makeRepository()
    try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: server.url("notes.git"))
    return (server, repo)
  }

  /// The server's 401 after an answer refuses it; the connection that got through accepts the answer it carried.
  /// A push's second request (the pack) reuses the accepted answer, so nothing is refused twice or asked again.
  func testVerdictsFollowTheServer() throws {
    let (server, repo) = try serverAcceptingAlice()
    defer { server.stop() }
    let verdicts = Recorder()
    let wrongThenRight = Credentials(
      maxAttempts: 3,
      provider: { request in
        .userPassword(username: "alice", password: request.attempt == 1 ? "wrong" : "right")
      },
      feedback: { request, credential, verdict in
        guard case .userPassword(_, let password) = credential else { return }
        verdicts.record("\(request.attempt) \(password) \(verdict.rawValue)")
      })
    XCTAssertEqual(try repo.push(remote: "origin", refspecs: ["main"], credentials: wrongThenRight).succeeded, true)
    XCTAssertEqual(verdicts.all, ["1 wrong refused", "2 right accepted"])
    // A fetch that downloads (its pack request after the advertisement) is asked and told no more than that.
    let other = try otherDevice(cloning: serverRoot.appendingPathComponent("notes.git").path)
    let theirs = try otherCommitsAndPushes(other, "b.md", "b\n")
    let fetched = try repo.fetch(remote: "origin", credentials: wrongThenRight)
    XCTAssertEqual(fetched.updatedReferences.map(\.new), [try id(theirs)])
    XCTAssertEqual(verdicts.all.count, 4)
    XCTAssertEqual(verdicts.all.suffix(2), ["1 wrong refused", "2 right accepted"])

    let alwaysWrong = Credentials(
      maxAttempts: 2, provider: { _ in .userPassword(username: "alice", password: "wrong") },
      feedback: { request, _, verdict in verdicts.record("\(request.attempt) wrong \(verdict.rawValue)") })
    XCTAssertThrowsError(try repo.fetch(remote: "origin", credentials: alwaysWrong))
    XCTAssertEqual(verdicts.all.suffix(2), ["1 wrong refused", "2 wrong refused"])
  }

  /// The standard chain over HTTP: a stale stored password is erased and the token gets through unreported; a
  /// right one is approved once per operation.
  func testTheStandardChainTellsTheHelper() throws {
    let (server, repo) = try serverAcceptingAlice()
    defer { server.stop() }
    let url = server.url("notes.git")
    let stale = Helper(("alice", "stale"))
    XCTAssertTrue(
      try repo.push(remote: "origin", refspecs: ["main"], credentials: stale.credentials(token: "right"))
        .succeeded)
    XCTAssertEqual(stale.log.all, ["get \(url)", "erase \(url) alice:stale"])

    let right = Helper(("alice", "right"))
    try repo.fetch(remote: "origin", credentials: right.credentials(token: "other"))
    XCTAssertEqual(right.log.all, ["get \(url)", "store \(url) alice:right"])
  }
}

import Foundation
import GitKit
import NBTestSupport
import XCTest

/// Fetch and push against real servers on 127.0.0.1: `git daemon` (git://) and `git http-backend` (smart HTTP).
final class RemoteServerTests: RemoteTestCase {
  /// The shared scenario: first push to an empty remote, a fetch of another device's commit, a non-fast-forward
  /// push rejected per reference, then a fast-forward push that lands, all checked with the git CLI.
  private func exerciseFetchAndPush(url: String) throws {
    let bare = try makeBare()
    let repo = try makeRepository()
    let first = try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: url)
    XCTAssertTrue(try repo.listRemote("origin").isEmpty)
    XCTAssertEqual(try repo.push(remote: "origin", refspecs: ["main"]).references.map(\.status), [.updated])
    let remote = try bareGit(bare)
    XCTAssertEqual(try remote.revParse("main"), first.hex)

    let other = try otherDevice(cloning: url)
    let theirs = try otherCommitsAndPushes(other, "b.md", "b\n")
    let fetched = try repo.fetch(remote: "origin")
    XCTAssertEqual(
      fetched.updatedReferences, [ReferenceUpdate(name: "refs/remotes/origin/main", old: first, new: try id(theirs))])
    XCTAssertEqual(fetched.listing.defaultBranch, "refs/heads/main")

    let ours = try commitFile(repo, "c.md", "c\n")
    XCTAssertEqual(
      try repo.push(remote: "origin", refspecs: ["main"]).references.map(\.status), [.rejectedNonFastForward])
    XCTAssertEqual(try remote.revParse("main"), theirs)

    // Build the merge the sync would make (both parents) and push it: a fast-forward for the remote.
    let merged = try repo.writeTree(
      try repo.treeEntries(ofCommit: try id(theirs)).merging(
        try repo.treeEntries(ofCommit: ours)
      ) { a, _ in a }, base: ours)
    let merge = try repo.createCommit(tree: merged, parents: [ours, try id(theirs)], message: "merge")
    XCTAssertEqual(try repo.checkoutSafely(merge, expected: ours, message: "merge"), .checkedOut)
    XCTAssertEqual(try repo.push(remote: "origin", refspecs: ["main"]).references.map(\.status), [.updated])
    XCTAssertEqual(try remote.revParse("main"), merge.hex)
    XCTAssertEqual(lines(try remote.run("ls-tree", "-r", "--name-only", "main")), ["a.md", "b.md", "c.md"])
    try remote.fsck()
    try git.fsck()
  }

  func testGitDaemonFetchAndPush() throws {
    let daemon = try GitDaemon(basePath: serverRoot, environment: git.environment)
    defer { daemon.stop() }
    try exerciseFetchAndPush(url: daemon.url("notes.git"))
  }

  func testServerSideRejectionIsReportedPerReference() throws {
    let daemon = try GitDaemon(basePath: serverRoot, environment: git.environment)
    defer { daemon.stop() }
    let bare = try makeBare()
    let hook = bare.appendingPathComponent("hooks/pre-receive")
    try Data("#!/bin/sh\necho 'notes are frozen' >&2\nexit 1\n".utf8).write(to: hook)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook.path)

    let repo = try makeRepository()
    try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: daemon.url("notes.git"))
    let result = try repo.push(remote: "origin", refspecs: ["main"])
    XCTAssertEqual(result.references.count, 1)
    guard case .rejectedByServer(let reason) = result.references[0].status else {
      return XCTFail("expected a server rejection, got \(result.references[0].status)")
    }
    // What `git push` shows as "! [remote rejected] main -> main (pre-receive hook declined)", with the hook's own
    // text that git shows as "remote: notes are frozen".
    XCTAssertEqual(reason, "pre-receive hook declined; the server said: notes are frozen")
    XCTAssertFalse(try bareGit(bare).result(["rev-parse", "--verify", "--quiet", "main"]).succeeded)
    // The remote-tracking branch does not claim a push that did not happen.
    XCTAssertNil(try repo.reference(named: "refs/remotes/origin/main"))
  }

  /// Another device's push lands after the remote advertised its branch but before it moved it (a pre-receive hook
  /// pushes from another clone, deterministically): receive-pack refuses with "failed to update ref", and the push
  /// reports the race as the non-fast-forward it is, so a caller fetches, merges and retries.
  func testAPushThatLosesTheRaceIsANonFastForward() throws {
    let daemon = try GitDaemon(basePath: serverRoot, environment: git.environment)
    defer { daemon.stop() }
    let bare = try makeBare()
    let repo = try makeRepository()
    let base = try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: daemon.url("notes.git"))
    XCTAssertEqual(try repo.push(remote: "origin", refspecs: ["main"]).references.map(\.status), [.updated])
    let other = try otherDevice(cloning: daemon.url("notes.git"))
    let hook = try RacingPushHook.install(
      in: bare, other: other.workTree, times: 1,
      prepare: "echo b > b.md && git add b.md && git commit -q -m 'other device'")

    let ours = try commitFile(repo, "c.md", "c\n")
    let raced = try repo.push(remote: "origin", refspecs: ["main"])
    XCTAssertEqual(hook.runs, ["moved 1"])
    XCTAssertEqual(raced.references.map(\.status), [.rejectedNonFastForward])
    XCTAssertEqual(raced.references.first?.remoteOld, base, "the value the push was based on")
    let theirs = try other.revParse("HEAD")
    XCTAssertEqual(try bareGit(bare).revParse("main"), theirs, "the other device's push is what landed")
    XCTAssertEqual(try repo.reference(named: "refs/remotes/origin/main"), base, "no claim of a push that failed")
    XCTAssertEqual(try repo.headCommitID(), ours)

    // The hook lets the next push through: after the fetch and a merge it lands.
    try repo.fetch(remote: "origin")
    let merged = try repo.writeTree(
      try repo.treeEntries(ofCommit: try id(theirs)).merging(try repo.treeEntries(ofCommit: ours)) { a, _ in a },
      base: ours)
    let merge = try repo.createCommit(tree: merged, parents: [ours, try id(theirs)], message: "merge")
    XCTAssertEqual(try repo.checkoutSafely(merge, expected: ours, message: "merge"), .checkedOut)
    XCTAssertEqual(try repo.push(remote: "origin", refspecs: ["main"]).references.map(\.status), [.updated])
    XCTAssertEqual(hook.runs, ["moved 1", "accepted 2"])
    XCTAssertEqual(try bareGit(bare).revParse("main"), merge.hex)
  }

  func testSmartHTTPFetchAndPush() throws {
    try XCTSkipUnless(GitHTTPServer.isAvailable, "python3 is needed for the HTTP test server")
    let server = try GitHTTPServer(basePath: serverRoot, environment: git.environment)
    defer { server.stop() }
    try exerciseFetchAndPush(url: server.url("notes.git"))
  }

  func testHTTPAuthenticationAttemptsAreBounded() throws {
    try XCTSkipUnless(GitHTTPServer.isAvailable, "python3 is needed for the HTTP test server")
    let server = try GitHTTPServer(
      basePath: serverRoot, environment: git.environment, basicAuth: ("alice", "right"))
    defer { server.stop() }
    try makeBare()
    let repo = try makeRepository()
    try repo.addRemote(name: "origin", url: server.url("notes.git"))

    // A provider that always answers wrongly: libgit2 alone would ask forever.
    final class Counter: @unchecked Sendable { var calls = 0 }
    let counter = Counter()
    let wrong = Credentials(maxAttempts: 3) { _ in
      counter.calls += 1
      return .userPassword(username: "alice", password: "wrong")
    }
    XCTAssertThrowsError(try repo.fetch(remote: "origin", credentials: wrong)) { error in
      let remoteError = error as? RemoteError
      XCTAssertEqual(remoteError?.kind, .authentication, "\(error)")
      XCTAssertFalse("\(error)".contains("wrong"), "the password must not appear in \(error)")
    }
    XCTAssertEqual(counter.calls, 3)

    // The standard chain: the helper knows nothing, NB_GIT_TOKEN holds the right secret.
    let standard = Credentials.standard(environment: ["NB_GIT_TOKEN": "right"]) { _ in nil }
    XCTAssertThrowsError(try repo.fetch(remote: "origin", credentials: standard)) { error in
      // The token goes with the default user name, which this server does not accept.
      XCTAssertEqual((error as? RemoteError)?.kind, .authentication, "\(error)")
    }
    try repo.setRemoteURL(
      name: "origin", url: server.url("notes.git").replacingOccurrences(of: "://", with: "://alice@"))
    XCTAssertTrue(try repo.fetch(remote: "origin", credentials: standard).listing.isEmpty)
    let helper = Credentials.standard(environment: [:]) { _ in ("alice", "right") }
    XCTAssertTrue(try repo.fetch(remote: "origin", credentials: helper).listing.isEmpty)

    // No user in the URL, a helper that knows the user but holds a stale password: the token goes with that user.
    try repo.setRemoteURL(name: "origin", url: server.url("notes.git"))
    let staleHelper = Credentials.standard(environment: ["NB_GIT_TOKEN": "right"]) { _ in ("alice", "stale") }
    XCTAssertTrue(try repo.fetch(remote: "origin", credentials: staleHelper).listing.isEmpty)
  }
}

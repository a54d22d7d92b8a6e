import Foundation
import GitKit
import NBTestSupport
import XCTest

final class RemoteTests: RemoteTestCase {
  func testRemoteConfigurationMatchesGitRemote() throws {
    let repo = try makeRepository()
    XCTAssertEqual(try repo.remotes(), [])
    try repo.addRemote(name: "origin", url: "/srv/notes.git")
    try repo.addRemote(name: "backup", url: "git://example.invalid/notes")
    try repo.setRemoteURL(name: "backup", url: "file:///mnt/usb/notes.git", pushURL: "file:///mnt/usb2/notes.git")
    XCTAssertEqual(
      try repo.remotes(),
      [
        Remote(name: "backup", url: "file:///mnt/usb/notes.git", pushURL: "file:///mnt/usb2/notes.git"),
        Remote(name: "origin", url: "/srv/notes.git"),
      ])
    XCTAssertEqual(
      lines(try git.run("remote", "-v")),
      [
        "backup\tfile:///mnt/usb/notes.git (fetch)", "backup\tfile:///mnt/usb2/notes.git (push)",
        "origin\t/srv/notes.git (fetch)", "origin\t/srv/notes.git (push)",
      ])
    XCTAssertEqual(try git.run("config", "remote.origin.fetch"), "+refs/heads/*:refs/remotes/origin/*\n")
    try repo.removeRemote(name: "backup")
    XCTAssertEqual(lines(try git.run("remote")), ["origin"])
    XCTAssertNil(try repo.remote(named: "backup"))
    XCTAssertThrowsError(try repo.addRemote(name: "origin", url: "/elsewhere"))
  }

  func testFirstPushToEmptyRemoteByPath() throws {
    let bare = try makeBare()
    let repo = try makeRepository()
    let head = try commitFile(repo, "inbox/a.md", "a\n")
    try repo.addRemote(name: "origin", url: bare.path)

    let before = try repo.listRemote("origin")
    XCTAssertTrue(before.isEmpty)
    XCTAssertEqual(before.references, [:])

    let result = try repo.push(remote: "origin", refspecs: ["main"])
    XCTAssertEqual(
      result.references,
      [
        PushedReference(
          source: "refs/heads/main", destination: "refs/heads/main", remoteOld: nil, local: head, status: .updated)
      ])
    XCTAssertTrue(result.succeeded)
    try repo.setUpstream(of: "main", remote: "origin", remoteBranch: "main")

    let remote = try bareGit(bare)
    XCTAssertEqual(try remote.revParse("refs/heads/main"), head.hex)
    XCTAssertEqual(try remote.run("show", "main:inbox/a.md"), "a\n")
    // The remote-tracking branch moved with the push, and git sees the upstream we configured.
    XCTAssertEqual(try git.revParse("refs/remotes/origin/main"), head.hex)
    XCTAssertEqual(try git.run("rev-parse", "--abbrev-ref", "main@{upstream}"), "origin/main\n")
    XCTAssertEqual(try repo.upstreamTrackingReference(of: "main"), "refs/remotes/origin/main")
    XCTAssertEqual(repo.upstream(of: "main")?.remote, "origin")
    XCTAssertEqual(repo.upstream(of: "main")?.branch, "refs/heads/main")

    let after = try repo.listRemote("origin")
    XCTAssertFalse(after.isEmpty)
    XCTAssertEqual(after.references["refs/heads/main"], head)
    XCTAssertEqual(after.defaultBranch, "refs/heads/main")

    // Pushing again sends nothing.
    XCTAssertEqual(try repo.push(remote: "origin", refspecs: ["main"]).references.map(\.status), [.upToDate])
    try remote.fsck()
    try git.fsck()
  }

  func testRemoteWhoseDefaultBranchIsMaster() throws {
    let bare = try makeBare(branch: "master")
    let seed = try otherDevice(cloning: bare.path, name: "seed")
    try Data("x\n".utf8).write(to: seed.workTree.appendingPathComponent("x.md"))
    try seed.run("add", "x.md")
    try seed.run("commit", "-q", "-m", "seed")
    try seed.run("push", "-q", "origin", "HEAD:refs/heads/master")

    let repo = try makeRepository()
    try repo.addRemote(name: "origin", url: "file://" + bare.path)
    let fetched = try repo.fetch(remote: "origin")
    XCTAssertEqual(fetched.listing.defaultBranch, "refs/heads/master")
    XCTAssertEqual(fetched.listing.references.keys.sorted(), ["refs/heads/master"])
    XCTAssertEqual(try repo.reference(named: "refs/remotes/origin/master")?.hex, try seed.revParse("HEAD"))
    XCTAssertNil(try repo.reference(named: "refs/remotes/origin/main"))
  }

  func testFetchReceivesNewCommitsOverFileURL() throws {
    let bare = try makeBare()
    let repo = try makeRepository()
    let first = try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: "file://" + bare.path)
    XCTAssertTrue(try repo.push(remote: "origin", refspecs: ["main"]).succeeded)

    let other = try otherDevice(cloning: "file://" + bare.path)
    let theirs = try otherCommitsAndPushes(other, "b.md", "b\n")

    var progressCalls = 0
    let result = try repo.fetch(remote: "origin", credentials: .none) { _ in progressCalls += 1 }
    XCTAssertEqual(
      result.updatedReferences, [ReferenceUpdate(name: "refs/remotes/origin/main", old: first, new: try id(theirs))])
    XCTAssertGreaterThan(result.receivedObjects, 0)
    XCTAssertEqual(try git.revParse("refs/remotes/origin/main"), theirs)
    // Fetch touches neither the branch nor the work tree.
    XCTAssertEqual(try repo.headCommitID(), first)
    XCTAssertFalse(exists("b.md"))
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertGreaterThan(progressCalls, 0)

    // Nothing new: no reference moves.
    XCTAssertEqual(try repo.fetch(remote: "origin").updatedReferences, [])
    try git.fsck()
  }

  /// `git fetch` writes `FETCH_HEAD`, and so does this fetch by default; a caller that never reads it can have it
  /// left empty (libgit2 truncates it either way), and the remote-tracking branch still moves.
  func testFetchWritesFetchHeadUnlessToldNotTo() throws {
    let bare = try makeBare()
    let repo = try makeRepository()
    try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: "file://" + bare.path)
    XCTAssertTrue(try repo.push(remote: "origin", refspecs: ["main"]).succeeded)
    let other = try otherDevice(cloning: "file://" + bare.path)
    let fetchHead = workTree.appendingPathComponent(".git/FETCH_HEAD").path

    let second = try otherCommitsAndPushes(other, "b.md", "b\n")
    try repo.fetch(remote: "origin")
    XCTAssertEqual(try git.revParse("FETCH_HEAD"), second)

    let third = try otherCommitsAndPushes(other, "c.md", "c\n")
    try repo.fetch(remote: "origin", updateFetchHead: false)
    XCTAssertEqual(try git.revParse("refs/remotes/origin/main"), third)
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: fetchHead)).count, 0)
    try git.fsck()
  }

  func testPushRejectedWhenRemoteMovedIsReportedPerReference() throws {
    let bare = try makeBare()
    let repo = try makeRepository()
    try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: bare.path)
    XCTAssertTrue(try repo.push(remote: "origin", refspecs: ["main"]).succeeded)
    let other = try otherDevice(cloning: bare.path)
    let theirs = try otherCommitsAndPushes(other, "b.md", "b\n")
    let ours = try commitFile(repo, "c.md", "c\n")
    // A second branch that is a plain fast-forward goes through in the same push.
    try git.run("branch", "side", ours.hex)

    // The remote's commit is unknown locally.
    let result = try repo.push(remote: "origin", refspecs: ["refs/heads/main:refs/heads/main", "side"])
    XCTAssertEqual(result.references.map(\.status), [.rejectedNonFastForward, .updated])
    XCTAssertEqual(result.rejected.map(\.destination), ["refs/heads/main"])
    XCTAssertEqual(result.references[0].remoteOld?.hex, theirs)
    XCTAssertFalse(result.succeeded)
    let remote = try bareGit(bare)
    XCTAssertEqual(try remote.revParse("refs/heads/main"), theirs)
    XCTAssertEqual(try remote.revParse("refs/heads/side"), ours.hex)

    // Still rejected once fetched (now known locally, but not an ancestor).
    try repo.fetch(remote: "origin")
    XCTAssertEqual(
      try repo.push(remote: "origin", refspecs: ["main"]).references.map(\.status), [.rejectedNonFastForward])
    XCTAssertEqual(try remote.revParse("refs/heads/main"), theirs)

    // Force is never done.
    XCTAssertThrowsError(try repo.push(remote: "origin", refspecs: ["+main"])) { error in
      XCTAssertEqual((error as? RemoteError)?.kind, .invalidRefspec)
    }
    XCTAssertEqual(try remote.revParse("refs/heads/main"), theirs)
    try remote.fsck()
  }

  func testUnreachableRemotesAreNetworkErrorsAndChangeNothing() throws {
    let repo = try makeRepository()
    let head = try commitFile(repo, "a.md", "a\n")
    let port = try LocalPort.free()
    try repo.addRemote(name: "refused", url: "git://127.0.0.1:\(port)/notes.git")
    try repo.addRemote(name: "unplugged", url: temp.file("no-such-disk/notes.git").path)
    try repo.addRemote(name: "unpluggedURL", url: "file://" + temp.file("no-such-disk/notes.git").path)
    try repo.addRemote(name: "nohost", url: "git://nb-test-host.invalid/notes.git")
    for name in ["refused", "unplugged", "unpluggedURL", "nohost"] {
      XCTAssertThrowsError(try repo.fetch(remote: name), name) { error in
        XCTAssertEqual((error as? RemoteError)?.isNetwork, true, "\(name): \(error)")
      }
      XCTAssertThrowsError(try repo.push(remote: name, refspecs: ["main"]), name) { error in
        XCTAssertEqual((error as? RemoteError)?.isNetwork, true, "\(name): \(error)")
      }
    }
    XCTAssertEqual(try repo.headCommitID(), head)
    XCTAssertEqual(lines(try git.run("for-each-ref", "--format=%(refname)")), ["refs/heads/main"])
    // A mistyped scheme is not "offline": the user has to fix it.
    try repo.addRemote(name: "typo", url: "htps://example.com/notes.git")
    XCTAssertThrowsError(try repo.fetch(remote: "typo")) { error in
      XCTAssertEqual((error as? RemoteError)?.kind, .other, "\(error)")
    }
  }

  func testStandardCredentialOrder() throws {
    let sshHome = try temp.directory("keys-home")
    try temp.write("keys-home/.ssh/id_ed25519", "not a real key")
    try temp.write("keys-home/.ssh/id_ed25519.pub", "not a real key")
    try temp.write("keys-home/.ssh/id_rsa", "not a real key")
    let environment = ["HOME": sshHome.path, "SSH_AUTH_SOCK": "/tmp/agent.sock", "NB_GIT_TOKEN": "tok"]
    let credentials = Credentials.standard(environment: environment) { _ in ("alice", "helper-secret") }

    func ask(_ url: String, _ allowed: CredentialRequest.Kinds, _ attempt: Int) -> String? {
      let request = CredentialRequest(url: url, usernameFromURL: "git", allowed: allowed, attempt: attempt)
      return credentials.answer(request)?.description
    }
    XCTAssertEqual(
      (1...4).map { ask("ssh://git@host/notes.git", .sshKey, $0) },
      [
        "ssh-agent (git)", "ssh key \(sshHome.path)/.ssh/id_ed25519 (git)",
        "ssh key \(sshHome.path)/.ssh/id_rsa (git)", nil,
      ])
    XCTAssertEqual(
      (1...3).map { ask("https://host/notes.git", .userPassword, $0) },
      ["password for alice", "password for git", nil])
    // Descriptions never carry the secret.
    XCTAssertFalse(String(describing: Credential.userPassword(username: "u", password: "s3cret")).contains("s3cret"))
  }
}

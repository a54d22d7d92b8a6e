import Foundation
import GitKit
import NBTestSupport
import XCTest

/// Fetch and push over ssh against a real `sshd` on 127.0.0.1 (NBTestSupport's `SSHServer`), with throw-away keys.
///
/// libgit2 reads `$HOME/.ssh/known_hosts` (the environment variable, not the configuration search path), so the test
/// process's HOME points at the test's `home` while a test runs: `installClient(home:)` puts the key and the trusted
/// host key there, and the machine's own `~/.ssh` is neither read nor written.
final class RemoteSSHTests: RemoteTestCase {
  var server: SSHServer!
  private var savedHOME: String?

  override func setUpWithError() throws {
    try super.setUpWithError()
    try XCTSkipUnless(SSHServer.isAvailable, "openssh-server and openssh-client are needed for the ssh tests")
    savedHOME = ProcessInfo.processInfo.environment["HOME"]
    setenv("HOME", home.path, 1)
    server = try SSHServer(directory: try temp.directory("sshd"))
  }

  override func tearDownWithError() throws {
    server?.stop()
    server = nil
    if let savedHOME { setenv("HOME", savedHOME, 1) } else { unsetenv("HOME") }
    try super.tearDownWithError()
  }

  /// The authorised client key, as an explicit credential for the server's user.
  var keyFile: Credentials {
    let (user, pub, key) = (server.user, server.clientPublicKey, server.clientPrivateKey)
    return Credentials(maxAttempts: 2) { _ in
      .sshKeyFile(username: user, publicKey: pub, privateKey: key, passphrase: nil)
    }
  }

  /// Counts how often a provider was asked (the closure is @Sendable; the tests call it from one thread).
  final class Counter: @unchecked Sendable { var calls = 0 }

  func testFetchAndPushWithKeyFile() throws {
    try server.installClient(home: home)
    let bare = try makeBare()
    let repo = try makeRepository()
    let first = try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: server.url(bare.path))
    XCTAssertTrue(try repo.listRemote("origin", credentials: keyFile).isEmpty)
    XCTAssertEqual(
      try repo.push(remote: "origin", refspecs: ["main"], credentials: keyFile).references.map(\.status), [.updated])
    let remote = try bareGit(bare)
    XCTAssertEqual(try remote.revParse("main"), first.hex)

    // The other device reaches the bare repository by path: the git CLI is the oracle, not a second ssh client.
    let other = try otherDevice(cloning: bare.path)
    let theirs = try otherCommitsAndPushes(other, "b.md", "b\n")
    let fetched = try repo.fetch(remote: "origin", credentials: keyFile)
    XCTAssertEqual(
      fetched.updatedReferences, [ReferenceUpdate(name: "refs/remotes/origin/main", old: first, new: try id(theirs))])
    XCTAssertEqual(fetched.listing.defaultBranch, "refs/heads/main")
    XCTAssertEqual(try repo.reference(named: "refs/remotes/origin/main"), try id(theirs))

    try commitFile(repo, "c.md", "c\n")
    XCTAssertEqual(
      try repo.push(remote: "origin", refspecs: ["main"], credentials: keyFile).references.map(\.status),
      [.rejectedNonFastForward])
    XCTAssertEqual(try remote.revParse("main"), theirs, "a rejected push must not move the remote")
    try remote.fsck()
    try git.fsck()
  }

  func testStandardCredentialsUseTheKeyFileInHome() throws {
    try server.installClient(home: home)
    let bare = try makeBare()
    let repo = try makeRepository()
    let first = try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: server.url(bare.path))
    // No SSH_AUTH_SOCK: the machine's own agent must not be what makes this pass.
    let standard = Credentials.standard(environment: ["HOME": home.path]) { _ in nil }
    XCTAssertEqual(
      try repo.push(remote: "origin", refspecs: ["main"], credentials: standard).references.map(\.status), [.updated])
    XCTAssertEqual(try bareGit(bare).revParse("main"), first.hex)
  }

  func testUnknownHostKeyIsRefusedAndNothingChanges() throws {
    try server.installClient(home: home, trustHost: false)
    let bare = try makeBare()
    let remote = try bareGit(bare)
    let seed = try otherDevice(cloning: bare.path, name: "seed")
    let theirs = try otherCommitsAndPushes(seed, "b.md", "b\n")
    let repo = try makeRepository()
    try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: server.url(bare.path))
    let localBefore = try git.run("for-each-ref", "--format=%(refname) %(objectname)")
    let remoteBefore = try remote.run("for-each-ref", "--format=%(refname) %(objectname)")

    // The fingerprint the message must name, as OpenSSH itself prints it.
    let keygen = try ProcessRunner.run(
      "ssh-keygen",
      arguments: [
        "-l", "-E", "sha256", "-f",
        server.directory.appendingPathComponent(
          "ssh_host_ed25519_key.pub"
        ).path,
      ])
    let fingerprint = try XCTUnwrap(
      keygen.stdout.split(separator: " ").first(where: { $0.hasPrefix("SHA256:") }).map(String.init))

    let counter = Counter()
    let counting = Credentials(maxAttempts: 3) { [keyFile] request in
      counter.calls += 1
      return keyFile.answer(request)
    }
    func assertHostKeyRefusal(_ body: () throws -> Void, _ what: String) {
      XCTAssertThrowsError(try body(), what) { error in
        let remoteError = error as? RemoteError
        XCTAssertEqual(remoteError?.kind, .hostKey, "\(what): \(error)")
        let message = remoteError?.underlying.message ?? ""
        XCTAssertTrue(message.contains("known_hosts"), "\(what): \(message)")
        XCTAssertTrue(
          message.contains("`ssh-keyscan -p \(server.port) 127.0.0.1`"),
          "\(what) should say how to trust the key, port included: \(message)")
        XCTAssertTrue(message.contains(fingerprint), "\(what) should name \(fingerprint): \(message)")
        XCTAssertFalse(message.contains("CHANGED"), "an unknown host is not a changed one: \(message)")
      }
    }
    assertHostKeyRefusal({ _ = try repo.fetch(remote: "origin", credentials: counting) }, "fetch")
    assertHostKeyRefusal({ _ = try repo.push(remote: "origin", refspecs: ["main"], credentials: counting) }, "push")
    assertHostKeyRefusal({ _ = try repo.listRemote("origin", credentials: counting) }, "ls-remote")
    XCTAssertEqual(counter.calls, 0, "no credential may be offered to an untrusted host")
    XCTAssertEqual(try git.run("for-each-ref", "--format=%(refname) %(objectname)"), localBefore)
    XCTAssertEqual(try remote.run("for-each-ref", "--format=%(refname) %(objectname)"), remoteBefore)
    XCTAssertEqual(try remote.revParse("main"), theirs)

    // Following the advice literally (OpenSSH's ssh-keyscan, its output added to known_hosts) makes the fetch work.
    let scan = try ProcessRunner.run(
      "ssh-keyscan", arguments: ["-p", String(server.port), "-t", "ed25519", "127.0.0.1"], timeout: 30)
    XCTAssertTrue(scan.succeeded, scan.stderr)
    let knownHosts = try FileHandle(forWritingTo: home.appendingPathComponent(".ssh/known_hosts"))
    try knownHosts.seekToEnd()
    try knownHosts.write(contentsOf: scan.stdoutData)
    try knownHosts.close()
    XCTAssertEqual(
      try repo.fetch(remote: "origin", credentials: keyFile).updatedReferences.map(\.new), [try id(theirs)])
  }

  func testChangedHostKeyIsRefused() throws {
    try server.installClient(home: home)
    // known_hosts holds another key for the same host and port: what a man-in-the-middle looks like.
    let impostor = server.directory.appendingPathComponent("impostor")
    try SSHServer.generateKey(at: impostor)
    let impostorKey = try String(contentsOf: impostor.appendingPathExtension("pub"), encoding: .utf8)
      .split(separator: " ").prefix(2).joined(separator: " ")
    try Data("[127.0.0.1]:\(server.port) \(impostorKey)\n".utf8).write(
      to: home.appendingPathComponent(".ssh/known_hosts"))
    let bare = try makeBare()
    let repo = try makeRepository()
    try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: server.url(bare.path))
    let knownFingerprint = try fingerprint(of: impostor.appendingPathExtension("pub"))
    let offeredFingerprint = try fingerprint(of: server.directory.appendingPathComponent("ssh_host_ed25519_key.pub"))
    func assertChangedKeyRefusal(_ what: String) {
      XCTAssertThrowsError(try repo.push(remote: "origin", refspecs: ["main"], credentials: keyFile), what) { error in
        XCTAssertEqual((error as? RemoteError)?.kind, .hostKey, "\(error)")
        let message = (error as? RemoteError)?.underlying.message ?? ""
        XCTAssertTrue(message.contains("CHANGED"), "\(what): \(message)")
        XCTAssertTrue(message.contains("attack"), "\(what): \(message)")
        XCTAssertTrue(message.contains(knownFingerprint), "\(what) should show the known key: \(message)")
        XCTAssertTrue(message.contains(offeredFingerprint), "\(what) should show the offered key: \(message)")
        XCTAssertTrue(message.contains("`ssh-keygen -R '[127.0.0.1]:\(server.port)'`"), "\(what): \(message)")
        XCTAssertFalse(message.contains("ssh-keyscan"), "adding the offered key would trust an impostor: \(message)")
      }
    }
    assertChangedKeyRefusal("plain known_hosts")
    // Debian's ssh_config hashes host names (HashKnownHosts yes); the entry must still be recognised.
    let hashed = try ProcessRunner.run(
      "ssh-keygen", arguments: ["-H", "-f", home.appendingPathComponent(".ssh/known_hosts").path])
    XCTAssertTrue(hashed.succeeded, hashed.stderr)
    XCTAssertTrue(
      try String(contentsOf: home.appendingPathComponent(".ssh/known_hosts"), encoding: .utf8).hasPrefix("|1|"))
    assertChangedKeyRefusal("hashed known_hosts")
    XCTAssertFalse(try bareGit(bare).result(["rev-parse", "--verify", "--quiet", "main"]).succeeded)
  }

  /// The SHA256 fingerprint of a public key file, as OpenSSH prints it.
  func fingerprint(of publicKey: URL) throws -> String {
    let keygen = try ProcessRunner.run("ssh-keygen", arguments: ["-l", "-E", "sha256", "-f", publicKey.path])
    return try XCTUnwrap(
      keygen.stdout.split(separator: " ").first(where: { $0.hasPrefix("SHA256:") }).map(String.init), keygen.stderr)
  }

  func testWrongKeyFailsAuthenticationAfterBoundedAttempts() throws {
    try server.installClient(home: home)
    let wrongKey = temp.file("wrong_ed25519")
    try SSHServer.generateKey(at: wrongKey)
    let bare = try makeBare()
    let repo = try makeRepository()
    try commitFile(repo, "a.md", "a\n")
    try repo.addRemote(name: "origin", url: server.url(bare.path))

    // A provider that always offers the wrong key: libgit2 alone would ask forever.
    let counter = Counter()
    let user = server.user
    let wrong = Credentials(maxAttempts: 3) { _ in
      counter.calls += 1
      return .sshKeyFile(
        username: user, publicKey: wrongKey.appendingPathExtension("pub"), privateKey: wrongKey, passphrase: nil)
    }
    let started = Date()
    XCTAssertThrowsError(try repo.push(remote: "origin", refspecs: ["main"], credentials: wrong)) { error in
      let remoteError = error as? RemoteError
      XCTAssertEqual(remoteError?.kind, .authentication, "\(error)")
      XCTAssertTrue("\(error)".contains(wrongKey.path), "the message should say which key was tried: \(error)")
    }
    XCTAssertEqual(counter.calls, 3)
    XCTAssertLessThan(Date().timeIntervalSince(started), 20)

    // A bound below what the server tolerates: GitKit, not the server, ends the attempts.
    counter.calls = 0
    let twice = Credentials(maxAttempts: 2, provider: { request in wrong.answer(request) })
    XCTAssertThrowsError(try repo.fetch(remote: "origin", credentials: twice)) { error in
      XCTAssertEqual((error as? RemoteError)?.kind, .authentication, "\(error)")
      XCTAssertTrue("\(error)".contains("authentication to \(server.url(bare.path)) failed"), "\(error)")
    }
    XCTAssertEqual(counter.calls, 2)
    XCTAssertFalse(try bareGit(bare).result(["rev-parse", "--verify", "--quiet", "main"]).succeeded)

    // The standard chain with a HOME that holds only the wrong key: each candidate once, then a clean failure.
    let otherHome = try temp.directory("other-home")
    try FileManager.default.createDirectory(
      at: otherHome.appendingPathComponent(".ssh"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: wrongKey, to: otherHome.appendingPathComponent(".ssh/id_ed25519"))
    let standard = Credentials.standard(environment: ["HOME": otherHome.path]) { _ in nil }
    XCTAssertThrowsError(try repo.fetch(remote: "origin", credentials: standard)) { error in
      XCTAssertEqual((error as? RemoteError)?.kind, .authentication, "\(error)")
    }
  }
}

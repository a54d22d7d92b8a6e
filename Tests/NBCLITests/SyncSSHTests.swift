import Foundation
import NBTestSupport
import XCTest

/// The conflict table over ssh: a real `sshd` on 127.0.0.1 (NBTestSupport's `SSHServer`) serving the bare remote by
/// absolute path, each device's HOME holding the throw-away client key as `~/.ssh/id_ed25519` and the server's host
/// key in `~/.ssh/known_hosts`, so nb finds both exactly as it would on a person's machine (no agent).
///
/// `SyncTransport` has no ssh case (that enum is not this file's), so the base class runs with `.path`, which starts
/// nothing, and this class starts sshd itself and overrides the URL the devices use.
final class SyncTableSSHTests: SyncTableScenarios {
  var server: SSHServer?

  override var transport: SyncTransport { .path }

  override func setUpWithError() throws {
    try super.setUpWithError()
    try XCTSkipUnless(SSHServer.isAvailable, "openssh-server and openssh-client are needed for the ssh tests")
    let server = try SSHServer(directory: try temp.directory("sshd"))
    self.server = server
    for device in [a!, b!] { try server.installClient(home: device.runner.home) }
  }

  override func tearDownWithError() throws {
    server?.stop()
    server = nil
    try super.tearDownWithError()
  }

  override func remoteURL(_ name: String = "r.git") -> String {
    server!.url(remotes.appendingPathComponent(name).path)
  }

  func testURLIsSSH() throws {
    // Guards the override: without it every scenario below would silently run over a plain path.
    XCTAssertTrue(remoteURL().hasPrefix("ssh://"), remoteURL())
    try share([Seed(title: "Alpha", content: Self.fiveLines)])
    XCTAssertEqual(try a.git.run("remote", "get-url", "origin").trimmingCharacters(in: .newlines), remoteURL())
    XCTAssertEqual(try b.git.run("remote", "get-url", "origin").trimmingCharacters(in: .newlines), remoteURL())
  }

  func testChangedOnOneSideOnly() throws { try scenarioChangedOnOneSideOnly() }
  func testBothChangedDifferentParts() throws { try scenarioBothChangedDifferentParts() }
  func testBothChangedSameLines() throws { try scenarioBothChangedSameLines() }
  func testEditedOnOneSideDeletedOnTheOther() throws { try scenarioEditedOnOneSideDeletedOnTheOther() }
  func testRenamedOnOneSideEditedOnTheOther() throws { try scenarioRenamedOnOneSideEditedOnTheOther() }
  func testRenamedToDifferentPlacesOnBoth() throws { try scenarioRenamedToDifferentPlacesOnBoth() }
  func testBothAddedAtTheSamePath() throws { try scenarioBothAddedAtTheSamePath() }
  func testInkSidecars() throws { try scenarioInkSidecars() }
  func testMassDeletionNeedsForce() throws { try scenarioMassDeletionNeedsForce() }
  // sshd runs git-receive-pack, so the bare repository's pre-receive hook can refuse, as with git daemon.
  func testServerRejectsPush() throws { try scenarioServerRejectsPush() }

  /// A device that does not know the server's host key: `nb sync` refuses before sending anything, says how to
  /// trust the key, is not "offline", and changes nothing on either side; once trusted, the same sync goes through.
  func testUntrustedHostKeyIsRefusedByNbSync() throws {
    let note = try share([Seed(title: "Alpha", content: Self.fiveLines)])[0]
    try a.replaceLine(note.path, "line one", with: "line one, laptop")
    try a.ok("save")
    try server!.installClient(home: a.runner.home, trustHost: false)
    let before = try a.fullSnapshot()
    let remoteBefore = try bareGit.run("for-each-ref", "--format=%(refname) %(objectname)")

    let refused = try a.nb(["sync", "--device", a.name])
    XCTAssertNotEqual(refused.status, 0, "an untrusted host must not look like success")
    XCTAssertNotEqual(refused.status, 3, "an untrusted host key is not 'offline'")
    XCTAssertTrue(refused.stderr.contains("known_hosts"), refused.stderr)
    XCTAssertFalse(refused.stderr.contains("CHANGED"), "an unknown host is not a changed one: \(refused.stderr)")
    XCTAssertTrue(
      refused.stderr.contains("ssh-keyscan -p \(server!.port) 127.0.0.1"),
      "the message should say how to trust it: \(refused.stderr)")
    XCTAssertEqual(try a.fullSnapshot(), before, "a refused sync changed the device")
    XCTAssertEqual(try bareGit.run("for-each-ref", "--format=%(refname) %(objectname)"), remoteBefore)

    try server!.installClient(home: a.runner.home, trustHost: true)
    XCTAssertEqual(try a.sync().outcome, "pushed")
    try b.sync()
    try assertConverged(tips: [try a.head()])
  }

  /// A device whose known_hosts records another key for the server (what an impostor looks like): `nb sync` says
  /// the key CHANGED and may be an attack, shows both fingerprints, gives `ssh-keygen -R` only with that warning and
  /// never the unknown-host `ssh-keyscan` advice, and changes nothing on either side.
  func testChangedHostKeyIsReportedAsPossibleAttackByNbSync() throws {
    let note = try share([Seed(title: "Alpha", content: Self.fiveLines)])[0]
    try a.replaceLine(note.path, "line one", with: "line one, laptop")
    try a.ok("save")
    let impostor = temp.file("impostor_ed25519")
    try SSHServer.generateKey(at: impostor)
    let impostorKey = try String(contentsOf: impostor.appendingPathExtension("pub"), encoding: .utf8)
      .split(separator: " ").prefix(2).joined(separator: " ")
    try Data("[127.0.0.1]:\(server!.port) \(impostorKey)\n".utf8).write(
      to: a.runner.home.appendingPathComponent(".ssh/known_hosts"))
    let before = try a.fullSnapshot()
    let remoteBefore = try bareGit.run("for-each-ref", "--format=%(refname) %(objectname)")

    let refused = try a.nb(["sync", "--device", a.name])
    XCTAssertNotEqual(refused.status, 0, "a changed host key must not look like success")
    XCTAssertNotEqual(refused.status, 3, "a changed host key is not 'offline'")
    XCTAssertTrue(refused.stderr.contains("CHANGED"), refused.stderr)
    XCTAssertTrue(refused.stderr.contains("attack"), refused.stderr)
    for key in [
      impostor.appendingPathExtension("pub"), server!.directory.appendingPathComponent("ssh_host_ed25519_key.pub"),
    ] {
      let keygen = try ProcessRunner.run("ssh-keygen", arguments: ["-l", "-E", "sha256", "-f", key.path])
      let fingerprint = try XCTUnwrap(keygen.stdout.split(separator: " ").first { $0.hasPrefix("SHA256:") })
      XCTAssertTrue(refused.stderr.contains(fingerprint), "should show \(fingerprint): \(refused.stderr)")
    }
    XCTAssertTrue(refused.stderr.contains("ssh-keygen -R '[127.0.0.1]:\(server!.port)'"), refused.stderr)
    XCTAssertFalse(refused.stderr.contains("ssh-keyscan"), "that advice would trust the impostor: \(refused.stderr)")
    XCTAssertEqual(try a.fullSnapshot(), before, "a refused sync changed the device")
    XCTAssertEqual(try bareGit.run("for-each-ref", "--format=%(refname) %(objectname)"), remoteBefore)
  }

  /// A device whose only key is not authorised: `nb sync` fails with an authentication error in bounded time (no
  /// endless retries), is not "offline", and changes nothing.
  func testUnauthorisedKeyFailsQuickly() throws {
    try share([Seed(title: "Alpha", content: Self.fiveLines)])
    try b.add("Beta", content: "from the desktop\n")
    let ssh = b.runner.home.appendingPathComponent(".ssh")
    for name in ["id_ed25519", "id_ed25519.pub"] {
      try FileManager.default.removeItem(at: ssh.appendingPathComponent(name))
    }
    try SSHServer.generateKey(at: ssh.appendingPathComponent("id_ed25519"))
    let before = try b.fullSnapshot()
    let remoteBefore = try bareGit.run("for-each-ref", "--format=%(refname) %(objectname)")

    let started = Date()
    let refused = try b.nb(["sync", "--device", b.name])
    XCTAssertLessThan(Date().timeIntervalSince(started), 30, "authentication retries must be bounded")
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertNotEqual(refused.status, 3, "a refused key is not 'offline'")
    XCTAssertTrue(refused.stderr.contains("authentication"), refused.stderr)
    XCTAssertTrue(refused.stderr.contains("id_ed25519"), "the message should name the key tried: \(refused.stderr)")
    XCTAssertTrue(refused.stderr.contains(remoteURL()), "the message should name the URL: \(refused.stderr)")
    XCTAssertTrue(refused.stderr.contains("authorised"), "the message should say what to check: \(refused.stderr)")
    XCTAssertFalse(refused.stderr.contains("git_"), "libgit2 internals leaked: \(refused.stderr)")
    XCTAssertEqual(try b.fullSnapshot(), before, "a refused sync changed the device")
    XCTAssertEqual(try bareGit.run("for-each-ref", "--format=%(refname) %(objectname)"), remoteBefore)
  }
}

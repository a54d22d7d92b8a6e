import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Debian's OpenSSH `sshd` on 127.0.0.1 and a free high port, with throw-away ed25519 keys: a host key, and one
/// client key that is the only one authorised. Only public-key login as the current user is allowed. Repositories
/// are addressed by absolute path as `ssh://<user>@127.0.0.1:<port>/<abs path>`. Stopped on `stop()` or deinit.
///
/// Everything (keys, config, pid file, log) lives in the `directory` given to `init`, so a test's temp directory
/// removes it all. A client is set up by `installClient(home:)`, which writes the key and a `known_hosts` entry the
/// way a person who trusted this server would have them.
public final class SSHServer {
  /// The port sshd listens on.
  public let port: Int
  /// The user clients log in as (the user running the tests: root in CI).
  public let user: String
  /// The host's public key as it appears in `known_hosts`: `ssh-ed25519 AAAA...`.
  public let hostPublicKey: String
  /// The authorised client key's private half (OpenSSH format, no passphrase).
  public let clientPrivateKey: URL
  /// The authorised client key's public half.
  public let clientPublicKey: URL
  /// The directory holding the server's keys, config and log.
  public let directory: URL
  private let process: LaunchedProcess
  private var stopped = false

  /// Where Debian's openssh-server installs the daemon.
  public static let sshdPath = "/usr/sbin/sshd"

  /// True when `sshd` and `ssh-keygen` are installed (Debian: `openssh-server`, `openssh-client`).
  public static var isAvailable: Bool {
    FileManager.default.isExecutableFile(atPath: sshdPath) && (try? ProcessRunner.resolve("ssh-keygen")) != nil
  }

  /// Generates the keys, writes the config, starts `sshd -D -e` and waits until it accepts connections.
  ///
  /// - Parameter directory: an empty directory the server owns for its lifetime (created if missing).
  public init(directory: URL) throws {
    self.directory = directory
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    user = Self.currentUser()
    let hostKey = directory.appendingPathComponent("ssh_host_ed25519_key")
    try Self.generateKey(at: hostKey, comment: "nb-test-host")
    hostPublicKey = try Self.publicKeyText(hostKey.appendingPathExtension("pub"))
    clientPrivateKey = directory.appendingPathComponent("client_ed25519")
    clientPublicKey = clientPrivateKey.appendingPathExtension("pub")
    try Self.generateKey(at: clientPrivateKey, comment: "nb-test-client")
    let authorized = directory.appendingPathComponent("authorized_keys")
    try FileManager.default.copyItem(at: clientPublicKey, to: authorized)

    // sshd refuses to start without its privilege-separation directory, which a fresh container lacks. Only root
    // can create it and only root's sshd needs it, so a failure here is left for sshd to report.
    try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)

    port = try LocalPort.free()
    let config = directory.appendingPathComponent("sshd_config")
    // StrictModes no: temp directories are world-readable parents of the key files, which sshd would reject.
    // No PAM and no password/keyboard-interactive: only the throw-away key may log in, and a container has no PAM
    // session set-up to speak of.
    let lines = [
      "ListenAddress 127.0.0.1",
      "Port \(port)",
      "HostKey \(hostKey.path)",
      "AuthorizedKeysFile \(authorized.path)",
      "PubkeyAuthentication yes",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PermitRootLogin prohibit-password",
      "PermitEmptyPasswords no",
      "UsePAM no",
      "StrictModes no",
      "PidFile \(directory.appendingPathComponent("sshd.pid").path)",
      "MaxAuthTries 6",
      "X11Forwarding no",
      "AllowTcpForwarding no",
      "PrintMotd no",
      "LogLevel VERBOSE",
    ]
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: config)
    // sshd closes every inherited descriptor, including the one Foundation's Process watches to learn that a child
    // exited; Foundation then blocks in waitpid() on sshd and no other child's exit is ever noticed (the tests hang).
    // A small shell keeps that descriptor open, forwards SIGTERM, and also stops sshd when the test process dies
    // without reaching tearDown (a crash or a timeout kill), so no server outlives its test.
    process = try ProcessRunner.launch(
      "/bin/sh", arguments: ["-c", Self.supervisor, Self.sshdPath, config.path])
    try LocalPort.waitUntilListening(port, process: process)
  }

  /// `ssh://<user>@127.0.0.1:<port><absolutePath>`.
  public func url(_ absolutePath: String) -> String { "ssh://\(user)@127.0.0.1:\(port)\(absolutePath)" }

  /// The `known_hosts` line that trusts this server: `[127.0.0.1]:<port> ssh-ed25519 AAAA...`.
  public var knownHostsLine: String { "[127.0.0.1]:\(port) \(hostPublicKey)" }

  /// Sets up `home/.ssh` for a client: `id_ed25519` (+ `.pub`) is the authorised key, `known_hosts` holds
  /// `knownHostsLine` when `trustHost` (an empty file otherwise). Existing files are replaced.
  public func installClient(home: URL, trustHost: Bool = true) throws {
    let ssh = home.appendingPathComponent(".ssh")
    try FileManager.default.createDirectory(at: ssh, withIntermediateDirectories: true)
    for (source, name) in [(clientPrivateKey, "id_ed25519"), (clientPublicKey, "id_ed25519.pub")] {
      let target = ssh.appendingPathComponent(name)
      try? FileManager.default.removeItem(at: target)
      try FileManager.default.copyItem(at: source, to: target)
    }
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o600], ofItemAtPath: ssh.appendingPathComponent("id_ed25519").path)
    try Data((trustHost ? knownHostsLine + "\n" : "").utf8).write(to: ssh.appendingPathComponent("known_hosts"))
  }

  /// What sshd logged so far (`-e` sends its log to stderr, which is only readable once it exited, so this reads
  /// nothing while it runs; kept for failure messages after `stop()`).
  public private(set) var log = ""

  /// Stops the server (idempotent). Connections already accepted finish on their own; the tests make none that
  /// outlive the operation that opened them.
  public func stop() {
    guard !stopped else { return }
    stopped = true
    process.terminate(SIGTERM)
    log = (try? process.wait(timeout: 10))?.stderr ?? ""
  }

  deinit { stop() }

  /// `sh -c` script: `$0` is sshd (an absolute path, since sshd re-executes itself per connection), `$1` the config.
  static let supervisor = """
    "$0" -D -e -f "$1" &
    pid=$!
    trap 'kill $pid 2>/dev/null; wait $pid; exit 0' TERM INT
    while kill -0 $pid 2>/dev/null; do
      kill -0 $PPID 2>/dev/null || { kill $pid; wait $pid; exit 0; }
      sleep 0.2
    done
    wait $pid
    """

  /// Generates a passphrase-less ed25519 key pair at `url` and `url.pub` with `ssh-keygen`.
  public static func generateKey(at url: URL, comment: String = "nb-test") throws {
    let result = try ProcessRunner.run(
      "ssh-keygen", arguments: ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", url.path], timeout: 30)
    guard result.succeeded else {
      throw GitServerError(description: "ssh-keygen failed (\(result.status)): \(result.stderr)")
    }
  }

  /// The first two fields (`type base64`) of a `.pub` file, without the comment.
  static func publicKeyText(_ url: URL) throws -> String {
    let text = try String(contentsOf: url, encoding: .utf8)
    return text.split(separator: " ").prefix(2).joined(separator: " ")
  }

  /// The login name of the effective user, from the password database (HOME and USER may be test values).
  static func currentUser() -> String {
    if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
    return ProcessInfo.processInfo.environment["USER"] ?? "root"
  }
}

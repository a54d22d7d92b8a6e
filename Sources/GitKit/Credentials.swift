import CLibGit2
import Foundation

/// What a server asked for when it wanted credentials.
public struct CredentialRequest: Sendable, Equatable {
  /// The kinds of credential the transport accepts for this request.
  public struct Kinds: OptionSet, Sendable, Hashable {
    /// The raw `git_credential_t` bits.
    public let rawValue: UInt32
    /// Creates a set from libgit2's bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// A user name and a password or token (HTTPS).
    public static let userPassword = Kinds(rawValue: GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue)
    /// An ssh key, from the agent or from files.
    public static let sshKey = Kinds(rawValue: GIT_CREDENTIAL_SSH_KEY.rawValue)
    /// Just a user name (ssh asks for it first when the URL has none).
    public static let username = Kinds(rawValue: GIT_CREDENTIAL_USERNAME.rawValue)
    /// The platform's default (Negotiate/NTLM).
    public static let platformDefault = Kinds(rawValue: GIT_CREDENTIAL_DEFAULT.rawValue)
  }

  /// The URL being contacted.
  public var url: String
  /// The user name written in the URL (`git@` in `git@host:path`), if any.
  public var usernameFromURL: String?
  /// What the transport accepts.
  public var allowed: Kinds
  /// 1 for the first request of an operation, 2 after the first answer was refused, ...
  public var attempt: Int

  /// Creates a request (GitKit makes these; public for tests and custom providers).
  public init(url: String, usernameFromURL: String?, allowed: Kinds, attempt: Int) {
    self.url = url
    self.usernameFromURL = usernameFromURL
    self.allowed = allowed
    self.attempt = attempt
  }
}

/// One answer to a `CredentialRequest`.
///
/// `description` names the kind and the user only, never a password, token or passphrase, so it is safe to show.
public enum Credential: Sendable, CustomStringConvertible {
  /// Ask the running ssh-agent (`SSH_AUTH_SOCK`).
  case sshAgent(username: String)
  /// A private key file (and optionally its `.pub` and passphrase).
  case sshKeyFile(username: String, publicKey: URL?, privateKey: URL, passphrase: String?)
  /// User name and password or token, for HTTPS.
  case userPassword(username: String, password: String)
  /// Only the user name, for ssh's first round trip.
  case username(String)

  /// `"ssh-agent (git)"`, `"ssh key ~/.ssh/id_ed25519 (git)"`, `"password for alice"`: no secrets.
  public var description: String {
    switch self {
    case .sshAgent(let user): return "ssh-agent (\(user))"
    case .sshKeyFile(let user, _, let key, _): return "ssh key \(key.path) (\(user))"
    case .userPassword(let user, _): return "password for \(user)"
    case .username(let user): return "user name \(user)"
    }
  }

  /// The kind this credential satisfies.
  var kind: CredentialRequest.Kinds {
    switch self {
    case .sshAgent, .sshKeyFile: return .sshKey
    case .userPassword: return .userPassword
    case .username: return .username
    }
  }

  /// Builds the libgit2 credential; libgit2 takes ownership of it.
  func make() -> (OpaquePointer?, Int32) {
    var out: OpaquePointer?
    let rc: Int32
    switch self {
    case .sshAgent(let user):
      rc = git_credential_ssh_key_from_agent(&out, user)
    case .sshKeyFile(let user, let publicKey, let privateKey, let passphrase):
      rc = git_credential_ssh_key_new(&out, user, publicKey?.path, privateKey.path, passphrase)
    case .userPassword(let user, let password):
      rc = git_credential_userpass_plaintext_new(&out, user, password)
    case .username(let user):
      rc = git_credential_username_new(&out, user)
    }
    return (out, rc)
  }
}

/// Where credentials come from during a fetch or push: a closure asked once per attempt.
///
/// libgit2 asks again every time the server refuses an answer and never gives up by itself, so GitKit stops
/// after `maxAttempts` requests (user-name-only requests not counted) and fails with `RemoteError.Kind
/// .authentication`. Returning nil from the closure gives up at once.
public struct Credentials: Sendable {
  /// Answers one request; nil means "nothing (more) to offer".
  public typealias Provider = @Sendable (CredentialRequest) -> Credential?

  /// The most requests answered in one operation.
  public var maxAttempts: Int
  let provider: Provider

  /// A provider closure with an attempt bound.
  public init(maxAttempts: Int = 5, provider: @escaping Provider) {
    self.maxAttempts = maxAttempts
    self.provider = provider
  }

  /// What this source offers for `request` (the closure, without the attempt bound).
  public func answer(_ request: CredentialRequest) -> Credential? { provider(request) }

  /// Offers nothing: anonymous access only (local paths, `git://`, public HTTPS).
  public static let none = Credentials(maxAttempts: 0) { _ in nil }

  /// The order of the sync issue: ssh-agent, then `~/.ssh/id_ed25519`, `~/.ssh/id_rsa` for ssh; `git credential
  /// fill` (the user's own helper, never prompting), then `NB_GIT_TOKEN` for HTTPS. Each candidate is offered
  /// once; when all were refused the operation fails.
  ///
  /// - Parameters:
  ///   - environment: where `HOME`, `SSH_AUTH_SOCK` and `NB_GIT_TOKEN` are read (the process's by default).
  ///   - fillCredential: runs the helper lookup for an HTTPS URL; the default spawns `git credential fill`.
  public static func standard(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    fillCredential: @escaping @Sendable (String) -> (username: String, password: String)? = gitCredentialFill
  ) -> Credentials {
    Credentials(maxAttempts: 6) { request in
      let candidates = standardCandidates(for: request, environment: environment, fillCredential: fillCredential)
      let index = request.attempt - 1
      return index < candidates.count ? candidates[index] : nil
    }
  }

  /// The candidate list for one request, in the order they are tried.
  static func standardCandidates(
    for request: CredentialRequest, environment: [String: String],
    fillCredential: @Sendable (String) -> (username: String, password: String)?
  ) -> [Credential] {
    var candidates: [Credential] = []
    if request.allowed.contains(.sshKey) {
      let user = request.usernameFromURL ?? "git"
      if let socket = environment["SSH_AUTH_SOCK"], !socket.isEmpty { candidates.append(.sshAgent(username: user)) }
      if let home = environment["HOME"], !home.isEmpty {
        for name in ["id_ed25519", "id_rsa"] {
          let key = URL(fileURLWithPath: home).appendingPathComponent(".ssh/\(name)")
          guard FileManager.default.fileExists(atPath: key.path) else { continue }
          let pub = key.appendingPathExtension("pub")
          candidates.append(
            .sshKeyFile(
              username: user, publicKey: FileManager.default.fileExists(atPath: pub.path) ? pub : nil,
              privateKey: key, passphrase: nil))
        }
      }
    }
    if request.allowed.contains(.userPassword) {
      // Asked on every HTTPS request (at most maxAttempts), so a refused answer never shifts the order.
      let filled = fillCredential(request.url)
      if let filled {
        candidates.append(.userPassword(username: filled.username, password: filled.password))
      }
      if let token = environment["NB_GIT_TOKEN"], !token.isEmpty {
        // Servers that check the user need the right one: the URL's, else the one the helper knows (its stored
        // password may be stale while the user is right). Only then a default: hosts that ignore the user name
        // for a token accept anything, and GitHub documents x-access-token.
        let user = request.usernameFromURL ?? filled?.username ?? "x-access-token"
        candidates.append(.userPassword(username: user, password: token))
      }
    }
    return candidates
  }

  /// `git credential fill` for `url` with prompting disabled; nil when no helper knows the URL.
  ///
  /// This is the one place nb runs the git executable: it lets the user's configured helper (a keychain, a
  /// stored token) answer without nb ever storing the secret itself.
  public static let gitCredentialFill: @Sendable (String) -> (username: String, password: String)? = { url in
    guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
    else { return nil }
    var input = "protocol=\(scheme)\nhost=\(host)\(components.port.map { ":\($0)" } ?? "")\n"
    let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
    if !path.isEmpty { input += "path=\(path)\n" }
    if let user = components.user { input += "username=\(user)\n" }
    input += "\n"

    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "credential", "fill"]
    var env = ProcessInfo.processInfo.environment
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_ASKPASS"] = ""
    env["SSH_ASKPASS"] = ""
    process.environment = env
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
    try? stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    var username: String?
    var password: String?
    for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
      if line.hasPrefix("username=") { username = String(line.dropFirst("username=".count)) }
      if line.hasPrefix("password=") { password = String(line.dropFirst("password=".count)) }
    }
    guard let username, let password, !password.isEmpty else { return nil }
    return (username, password)
  }
}

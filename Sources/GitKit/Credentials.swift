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

/// What a server made of a credential GitKit offered.
public enum CredentialVerdict: String, Sendable, Equatable {
  /// A request carrying it got through (the connection was made, the operation went on).
  case accepted
  /// The server asked again after it was offered (HTTP 401, an ssh key refused), or authentication failed with it.
  case refused
}

/// Where credentials come from during a fetch or push: a closure asked once per attempt, and optionally one told
/// what the server made of each answer.
///
/// libgit2 asks again every time the server refuses an answer and never gives up by itself, so GitKit stops
/// after `maxAttempts` requests (user-name-only requests not counted) and fails with `RemoteError.Kind
/// .authentication`. Returning nil from the closure gives up at once.
public struct Credentials: Sendable {
  /// Answers one request; nil means "nothing (more) to offer".
  public typealias Provider = @Sendable (CredentialRequest) -> Credential?
  /// Told, once per offered credential, whether the server accepted or refused it (no verdict when the operation
  /// failed for another reason before that was known: an unreachable host says nothing about a password).
  public typealias Feedback = @Sendable (CredentialRequest, Credential, CredentialVerdict) -> Void

  /// The most requests answered in one operation.
  public var maxAttempts: Int
  let provider: Provider
  let feedback: Feedback?

  /// A provider closure with an attempt bound, and an optional closure told each answer's fate.
  public init(maxAttempts: Int = 5, provider: @escaping Provider, feedback: Feedback? = nil) {
    self.maxAttempts = maxAttempts
    self.provider = provider
    self.feedback = feedback
  }

  /// What this source offers for `request` (the closure, without the attempt bound).
  public func answer(_ request: CredentialRequest) -> Credential? { provider(request) }

  /// Tells the feedback closure what became of `credential`, offered for `request` (GitKit's remote operations
  /// call this; public for tests and custom callers).
  public func report(_ verdict: CredentialVerdict, of credential: Credential, for request: CredentialRequest) {
    feedback?(request, credential, verdict)
  }

  /// Offers nothing: anonymous access only (local paths, `git://`, public HTTPS).
  public static let none = Credentials(maxAttempts: 0) { _ in nil }

  /// A user name and password as a credential helper holds them.
  public typealias HelperAnswer = (username: String, password: String)

  /// The order of the sync issue: ssh-agent, then `~/.ssh/id_ed25519`, `~/.ssh/id_rsa` for ssh; `git credential
  /// fill` (the user's own helper, never prompting), then `NB_GIT_TOKEN` for HTTPS. Each candidate is offered
  /// once; when all were refused the operation fails.
  ///
  /// What the helper answered is reported back to it as git does after each HTTP request: `git credential
  /// reject` when the server refused it, so a stored token that stopped working is erased rather than offered
  /// (and refused) on every sync; `git credential approve` when it was accepted, so a helper that keeps
  /// credentials for a while (`cache`) or records their use keeps it. The `NB_GIT_TOKEN` answer is never
  /// reported: git approves only what came from its helpers or its own prompt, and storing a token the user put
  /// in the environment (often a CI secret) into `~/.git-credentials` would keep it after they removed it there.
  ///
  /// - Parameters:
  ///   - environment: where `HOME`, `SSH_AUTH_SOCK` and `NB_GIT_TOKEN` are read (the process's by default).
  ///   - fillCredential: runs the helper lookup for an HTTPS URL; the default spawns `git credential fill`.
  ///   - reportCredential: tells the helpers the verdict on what `fillCredential` answered for a URL; the default
  ///     spawns `git credential approve` or `git credential reject`.
  public static func standard(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    fillCredential: @escaping @Sendable (String) -> HelperAnswer? = gitCredentialFill,
    reportCredential: @escaping @Sendable (String, HelperAnswer, CredentialVerdict) -> Void = gitCredentialReport
  ) -> Credentials {
    let filled = FilledCredentials(fill: fillCredential)
    return Credentials(
      maxAttempts: 6,
      provider: { request in
        let candidates = standardCandidates(
          for: request, environment: environment, fillCredential: filled.answer, knownUser: filled.user)
        let index = request.attempt - 1
        return index < candidates.count ? candidates[index] : nil
      },
      feedback: { request, credential, verdict in
        // Only the helper's own answer goes back to it (a token with the same user and password is that answer).
        guard case .userPassword(let username, let password) = credential,
          let answer = filled.lookup(request.url), answer.username == username, answer.password == password
        else { return }
        reportCredential(request.url, answer, verdict)
      })
  }

  /// The helper's answers, by URL. Asked on an operation's first request and kept for the following ones: a
  /// refused answer is rejected (erased) at once, and asking again would then shorten the candidate list and skip
  /// the token behind it. The user the helper named is kept for as long as this value lives (a whole sync: its
  /// fetch and its push), so the token still goes with that user after the helper's stale password was erased.
  private final class FilledCredentials: @unchecked Sendable {
    private let fill: @Sendable (String) -> HelperAnswer?
    private let lock = NSLock()
    private var answers: [String: HelperAnswer?] = [:]
    private var users: [String: String] = [:]

    init(fill: @escaping @Sendable (String) -> HelperAnswer?) { self.fill = fill }

    /// The helper's answer for the request's URL: asked again on an operation's first attempt (a new operation may
    /// follow an erase or a new `git credential approve` elsewhere), else what it said before.
    func answer(_ request: CredentialRequest) -> HelperAnswer? {
      if request.attempt > 1 {
        lock.lock()
        let known = answers[request.url]
        lock.unlock()
        if let known { return known }
      }
      let answer = fill(request.url)
      lock.lock()
      answers[request.url] = .some(answer)
      if let answer { users[request.url] = answer.username }
      lock.unlock()
      return answer
    }

    /// The user the helper last named for `url`, even when it no longer knows a password for it.
    func user(_ url: String) -> String? {
      lock.lock()
      defer { lock.unlock() }
      return users[url]
    }

    /// What the helper last answered for `url`, without asking it.
    func lookup(_ url: String) -> HelperAnswer? {
      lock.lock()
      defer { lock.unlock() }
      return answers[url] ?? nil
    }
  }

  /// The candidate list for one request, in the order they are tried.
  static func standardCandidates(
    for request: CredentialRequest, environment: [String: String],
    fillCredential: (CredentialRequest) -> HelperAnswer?, knownUser: (String) -> String?
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
      // The same list on every request of an operation (the helper's answer is kept), so a refused answer never
      // shifts the order.
      let filled = fillCredential(request)
      if let filled {
        candidates.append(.userPassword(username: filled.username, password: filled.password))
      }
      if let token = environment["NB_GIT_TOKEN"], !token.isEmpty {
        // Servers that check the user need the right one: the URL's, else the one the helper knows (its stored
        // password may be stale while the user is right), or knew before that stale password was erased. Only
        // then a default: hosts that ignore the user name for a token accept anything, and GitHub documents
        // x-access-token.
        let user = request.usernameFromURL ?? filled?.username ?? knownUser(request.url) ?? "x-access-token"
        candidates.append(.userPassword(username: user, password: token))
      }
    }
    return candidates
  }

  /// `git credential fill` for `url` with prompting disabled; nil when no helper knows the URL.
  ///
  /// This and ``gitCredentialReport`` are the one place nb runs the git executable: they let the user's configured
  /// helper (a keychain, a stored token) answer, and keep it, without nb ever storing the secret itself.
  public static let gitCredentialFill: @Sendable (String) -> HelperAnswer? = { url in
    guard let query = helperQuery(url), let output = runGitCredential("fill", input: query + "\n") else {
      return nil
    }
    var username: String?
    var password: String?
    for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
      if line.hasPrefix("username=") { username = String(line.dropFirst("username=".count)) }
      if line.hasPrefix("password=") { password = String(line.dropFirst("password=".count)) }
    }
    guard let username, let password, !password.isEmpty else { return nil }
    return (username, password)
  }

  /// `git credential approve` (accepted) or `git credential reject` (refused) for what a helper answered for
  /// `url`: the same protocol, host, path and user `fill` was asked with, and the password it gave. Failures are
  /// ignored — a helper that cannot store or erase changes nothing about the fetch or push that already happened.
  public static let gitCredentialReport: @Sendable (String, HelperAnswer, CredentialVerdict) -> Void = {
    url, answer, verdict in
    guard let query = helperQuery(url) else { return }
    // The URL's own user is in the query already; the helper's answer carries the same one or the only one.
    let user = query.contains("\nusername=") ? "" : "username=\(answer.username)\n"
    let action = verdict == .accepted ? "approve" : "reject"
    _ = runGitCredential(action, input: query + user + "password=\(answer.password)\n\n")
  }

  /// The `key=value` lines (each ending in a newline) `git credential` is asked about for an HTTP(S) URL; nil for a
  /// URL without a scheme and host.
  static func helperQuery(_ url: String) -> String? {
    guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
    else { return nil }
    var input = "protocol=\(scheme)\nhost=\(host)\(components.port.map { ":\($0)" } ?? "")\n"
    let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
    if !path.isEmpty { input += "path=\(path)\n" }
    if let user = components.user { input += "username=\(user)\n" }
    return input
  }

  /// Runs `git credential <action>` with `input` on stdin and prompting disabled; its stdout, or nil when it could
  /// not run or failed.
  private static func runGitCredential(_ action: String, input: String) -> Data? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "credential", action]
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
    return process.terminationStatus == 0 ? output : nil
  }
}

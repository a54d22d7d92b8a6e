import CLibGit2
import Foundation

/// Why a fetch, push or listing of a remote failed.
///
/// The kinds exist because the caller reacts differently: an unreachable remote is "try again later, nothing
/// changed" (nb's offline queue, a distinct exit code), an authentication or host-key failure needs the user.
public struct RemoteError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The class of failure.
  public enum Kind: Sendable, Equatable {
    /// The remote could not be reached: connection refused, unknown host, timeout, network down, or a local remote
    /// path that does not exist (an unmounted disk). Nothing was changed.
    case network
    /// The server answered but has no repository at that URL (HTTP 404, "does not appear to be a git repository").
    case notFound
    /// Every credential offered was refused, or there was none to offer.
    case authentication
    /// The ssh host key is not in `~/.ssh/known_hosts` or does not match it; the message says how to trust it.
    case hostKey
    /// The server's TLS certificate did not verify.
    case certificate
    /// A push refspec asked for something GitKit never does (force, deletion) or named no local reference.
    case invalidRefspec
    /// Any other failure (protocol error, server error, corrupt data, ...).
    case other
  }

  /// The class of failure.
  public let kind: Kind
  /// The remote's name (or URL when anonymous).
  public let remote: String
  /// The failing call and libgit2's text; for `.hostKey` and `.authentication` the message is GitKit's own.
  public let underlying: GitError
  /// The URL that was contacted ("" when the failure came before one was known).
  public let url: String

  /// Creates an error (GitKit makes these; public for tests and fakes).
  public init(kind: Kind, remote: String, underlying: GitError, url: String = "") {
    self.kind = kind
    self.remote = remote
    self.underlying = underlying
    self.url = url
  }

  /// True when the remote was simply unreachable, so the caller should keep its local commits for later.
  public var isNetwork: Bool { kind == .network }

  /// `"remote origin: <kind>: git_remote_connect failed (-1): failed to connect to ..."`.
  public var description: String {
    "remote \(remote): \(kind): \(underlying)"
  }
}

/// One reference a fetch or push moved in this repository.
public struct ReferenceUpdate: Sendable, Equatable {
  /// The full reference name, e.g. `refs/remotes/origin/main`.
  public var name: String
  /// The value before; nil when the reference is new.
  public var old: ObjectID?
  /// The value after; nil when the reference was deleted.
  public var new: ObjectID?

  /// Creates an update value.
  public init(name: String, old: ObjectID?, new: ObjectID?) {
    self.name = name
    self.old = old
    self.new = new
  }
}

/// Transfer counters libgit2 reports while receiving a pack.
public struct TransferProgress: Sendable, Equatable {
  /// Objects in the pack, once known.
  public var totalObjects: Int
  /// Objects received so far.
  public var receivedObjects: Int
  /// Objects hashed and stored so far.
  public var indexedObjects: Int
  /// Bytes received so far.
  public var receivedBytes: Int

  /// Creates a progress value.
  public init(totalObjects: Int, receivedObjects: Int, indexedObjects: Int, receivedBytes: Int) {
    self.totalObjects = totalObjects
    self.receivedObjects = receivedObjects
    self.indexedObjects = indexedObjects
    self.receivedBytes = receivedBytes
  }
}

/// State shared between a Swift operation and libgit2's C callbacks, passed as the callbacks' payload.
final class RemoteCallbackContext {
  let credentials: Credentials
  let progress: ((TransferProgress) -> Void)?
  /// The URL being contacted (set once the remote is looked up).
  var url = ""
  var attempts = 0
  var offered: [String] = []
  /// The credential offered last and the request it answered, until the server's verdict on it is known: refused
  /// when libgit2 asks again, accepted once a connection with it was made.
  var unsettled: (request: CredentialRequest, credential: Credential)?
  var authenticationFailure: String?
  var hostKeyFailure: String?
  var certificateFailure: String?
  var tipUpdates: [ReferenceUpdate] = []
  /// refname -> server's rejection text (nil: accepted), from push_update_reference.
  var pushStatuses: [String: String?] = [:]
  /// What the server printed on the side band (`remote: ...` in git's output): a hook's reason for refusing a
  /// push arrives only here, the per-reference status says just "pre-receive hook declined".
  var serverText = ""

  init(credentials: Credentials, progress: ((TransferProgress) -> Void)?) {
    self.credentials = credentials
    self.progress = progress
  }

  /// Callbacks with this context as payload; the caller keeps the context alive for the whole operation.
  func callbacks() throws -> git_remote_callbacks {
    var callbacks = git_remote_callbacks()
    try check(
      "git_remote_init_callbacks", git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION)))
    callbacks.payload = Unmanaged.passUnretained(self).toOpaque()
    callbacks.credentials = credentialCallback
    callbacks.certificate_check = certificateCallback
    callbacks.update_tips = updateTipsCallback
    callbacks.push_update_reference = pushUpdateReferenceCallback
    callbacks.sideband_progress = sidebandCallback
    if progress != nil { callbacks.transfer_progress = transferProgressCallback }
    return callbacks
  }

  /// Tells the credentials what became of the unsettled one, once.
  func settle(_ verdict: CredentialVerdict) {
    guard let (request, credential) = unsettled else { return }
    unsettled = nil
    credentials.report(verdict, of: credential, for: request)
  }

  /// Turns a failed libgit2 call into a `RemoteError`, preferring what the callbacks learned over libgit2's text.
  /// An authentication failure is the verdict on the credential offered last; any other failure says nothing
  /// about it, so it stays unreported.
  func error(_ function: String, _ rc: Int32, remote: String) -> RemoteError {
    let error = classify(function, rc, remote: remote)
    if error.kind == .authentication { settle(.refused) }
    return error
  }

  private func classify(_ function: String, _ rc: Int32, remote: String) -> RemoteError {
    var klass: Int32 = -1
    if let last = git_error_last() { klass = last.pointee.klass }
    let gitError = GitError.last(function, rc)
    if let hostKeyFailure {
      return RemoteError(
        kind: .hostKey, remote: remote, underlying: GitError(function: function, code: rc, message: hostKeyFailure),
        url: url)
    }
    if let authenticationFailure {
      return RemoteError(
        kind: .authentication, remote: remote,
        underlying: GitError(function: function, code: rc, message: authenticationFailure), url: url)
    }
    if let certificateFailure {
      return RemoteError(
        kind: .certificate, remote: remote,
        underlying: GitError(function: function, code: rc, message: certificateFailure), url: url)
    }
    if rc == GIT_EAUTH.rawValue {
      // An ssh server that gives up on a client (sshd's MaxAuthTries) drops the connection before libgit2 asks the
      // callback again, so libssh2's text ("Failed getting response") would be all the user sees; say what was tried.
      guard !offered.isEmpty else {
        return RemoteError(kind: .authentication, remote: remote, underlying: gitError, url: url)
      }
      let message =
        "authentication to \(url) failed (tried \(offered.joined(separator: ", "))): \(gitError.message)"
      return RemoteError(
        kind: .authentication, remote: remote, underlying: GitError(function: function, code: rc, message: message),
        url: url)
    }
    if rc == GIT_ECERTIFICATE.rawValue {
      return RemoteError(kind: .certificate, remote: remote, underlying: gitError, url: url)
    }
    if Self.isMissingLocalPath(url) {
      // libgit2 takes a path it cannot find for an unknown URL scheme; for nb it is a disk that is not mounted.
      return RemoteError(kind: .network, remote: remote, underlying: gitError, url: url)
    }
    if rc == GIT_EINVALIDSPEC.rawValue || gitError.message.contains("unsupported URL protocol")
      || gitError.message.contains("unknown scheme")
    {
      return RemoteError(kind: .other, remote: remote, underlying: gitError, url: url)
    }
    if Self.looksNotFound(gitError.message) {
      return RemoteError(kind: .notFound, remote: remote, underlying: gitError, url: url)
    }
    if klass == Int32(GIT_ERROR_NET.rawValue) || Self.looksUnreachable(gitError.message) {
      return RemoteError(kind: .network, remote: remote, underlying: gitError, url: url)
    }
    return RemoteError(kind: .other, remote: remote, underlying: gitError, url: url)
  }

  /// True for a local remote (a path or `file://` URL) whose directory does not exist.
  static func isMissingLocalPath(_ url: String) -> Bool {
    let path: String
    if url.hasPrefix("file://") {
      path = URL(string: url)?.path ?? String(url.dropFirst("file://".count))
    } else if url.hasPrefix("/") || url.hasPrefix("./") || url.hasPrefix("../") || url.hasPrefix("~/") {
      path = (url as NSString).expandingTildeInPath
    } else {
      return false
    }
    return !FileManager.default.fileExists(atPath: path)
  }

  /// The port of an `ssh://` URL when it is not ssh's default 22 (scp-like `user@host:path` URLs have none).
  static func sshPort(_ url: String) -> Int? {
    guard url.hasPrefix("ssh://") || url.hasPrefix("ssh+git://") || url.hasPrefix("git+ssh://"),
      let port = URLComponents(string: url)?.port, port != 22
    else { return nil }
    return port
  }

  /// The advice for a host whose key differs from the one known_hosts records. Unlike an unknown host, adding
  /// the offered key would trust whoever answered, so this says it may be an attack, shows both fingerprints for
  /// comparing with the administrator's, and gives the step that forgets the old key only behind that warning.
  static func changedHostKeyMessage(host: String, port: Int?, known: [String], offered: String?) -> String {
    let entry = port.map { "[\(host)]:\($0)" } ?? host
    let portOption = port.map { "-p \($0) " } ?? ""
    return "the ssh host key of \(entry) has CHANGED: ~/.ssh/known_hosts records \(known.joined(separator: ", ")) "
      + "but the server offered \(offered ?? "another key"). This may be an attack (someone in the middle "
      + "impersonating the server); nothing was sent. Check the new fingerprint with the server's administrator; "
      + "only if they confirm the key was replaced, remove the old one with `ssh-keygen -R '\(entry)'`, connect "
      + "once with `ssh \(portOption)\(host)` to accept the new one, then retry."
  }

  /// The server's side-band lines worth showing a person: progress counters ("Resolving deltas: 50% (1/2)") are
  /// left out, what a hook printed is kept.
  var serverLines: [String] {
    serverText.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { line in
        guard !line.isEmpty else { return false }
        guard let colon = line.range(of: ": ") else { return true }
        let rest = line[colon.upperBound...]
        return !(rest.first?.isNumber == true && rest.contains("%"))
      }
  }

  /// A server's rejection of one reference, with what the server printed (a hook's reason) when it printed any.
  func rejection(_ status: String) -> String {
    let lines = serverLines
    return lines.isEmpty ? status : "\(status); the server said: \(lines.joined(separator: " / "))"
  }

  /// The server's "no such repository", which libgit2 reports as text only: smart HTTP's status code, the
  /// `git-upload-pack` error git prints over ssh and `git daemon`.
  static func looksNotFound(_ message: String) -> Bool {
    let text = message.lowercased()
    return ["status code: 404", "does not appear to be a git repository", "repository not found", "no such repository"]
      .contains { text.contains($0) }
  }

  /// libgit2 files some connection failures under other classes (ssh's socket, the local transport's missing
  /// path), so the text decides for those.
  static func looksUnreachable(_ message: String) -> Bool {
    let text = message.lowercased()
    return [
      "failed to connect", "connection refused", "failed to resolve address", "could not resolve host",
      "timed out", "network is unreachable", "no route to host", "could not find repository",
      "failed to start ssh session", "connection reset",
    ].contains { text.contains($0) }
  }
}

private func context(_ payload: UnsafeMutableRawPointer?) -> RemoteCallbackContext? {
  payload.map { Unmanaged<RemoteCallbackContext>.fromOpaque($0).takeUnretainedValue() }
}

private let credentialCallback: git_credential_acquire_cb = { out, url, usernameFromURL, allowed, payload in
  guard let out, let context = context(payload) else { return GIT_PASSTHROUGH.rawValue }
  let request = CredentialRequest(
    url: url.map { String(cString: $0) } ?? "",
    usernameFromURL: usernameFromURL.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 },
    allowed: CredentialRequest.Kinds(rawValue: allowed), attempt: context.attempts + 1)
  // ssh asks for the user name on its own round trip; answering it is not an authentication attempt.
  if request.allowed == .username {
    let (credential, rc) = Credential.username(request.usernameFromURL ?? "git").make()
    out.pointee = credential
    return rc
  }
  // Asked again: the server refused what was offered last (libgit2 asks only after a 401 or a refused key).
  context.settle(.refused)
  context.attempts += 1
  let answer = context.attempts <= context.credentials.maxAttempts ? context.credentials.provider(request) : nil
  guard let answer, !request.allowed.intersection(answer.kind).isEmpty else {
    let tried =
      context.offered.isEmpty ? "no credentials were available" : "tried " + context.offered.joined(separator: ", ")
    context.authenticationFailure = "authentication to \(request.url) failed (\(tried))"
    git_error_set_str(Int32(GIT_ERROR_CALLBACK.rawValue), context.authenticationFailure)
    return GIT_EAUTH.rawValue
  }
  context.offered.append(answer.description)
  let (credential, rc) = answer.make()
  if rc == 0 { context.unsettled = (request, answer) }
  out.pointee = credential
  return rc
}

private let certificateCallback: git_transport_certificate_check_cb = { cert, valid, host, payload in
  // libgit2 has already checked known_hosts / the TLS chain; `valid` is its verdict, which we never loosen.
  if valid != 0 { return 0 }
  guard let context = context(payload) else { return GIT_ECERTIFICATE.rawValue }
  let hostName = host.map { String(cString: $0) } ?? "the server"
  if let cert, cert.pointee.cert_type == GIT_CERT_HOSTKEY_LIBSSH2 {
    let hostkey = UnsafeRawPointer(cert).assumingMemoryBound(to: git_cert_hostkey.self).pointee
    let offered =
      hostkey.type.rawValue & GIT_CERT_SSH_SHA256.rawValue != 0
      ? KnownHosts.fingerprint(sha256: withUnsafeBytes(of: hostkey.hash_sha256) { [UInt8]($0) }) : nil
    let port = RemoteCallbackContext.sshPort(context.url)
    let known = KnownHosts.forHost(hostName, port: port).keys
    if !known.isEmpty {
      context.hostKeyFailure = RemoteCallbackContext.changedHostKeyMessage(
        host: hostName, port: port, known: known.map(KnownHosts.fingerprint(ofKey:)), offered: offered)
    } else {
      // Without the port the advice would fetch the key of the server on port 22, which is not this one.
      let portOption = port.map { "-p \($0) " } ?? ""
      context.hostKeyFailure =
        "the ssh host key of \(hostName)\(offered.map { " (\($0))" } ?? "") is not trusted: it is missing from "
        + "~/.ssh/known_hosts. If you trust this server, connect once with `ssh \(portOption)"
        + "\(hostName)` and accept the key (or add the output of `ssh-keyscan \(portOption)\(hostName)` to "
        + "~/.ssh/known_hosts), then retry."
    }
    git_error_set_str(Int32(GIT_ERROR_SSH.rawValue), context.hostKeyFailure)
  } else {
    context.certificateFailure = "the TLS certificate of \(hostName) did not verify"
    git_error_set_str(Int32(GIT_ERROR_SSL.rawValue), context.certificateFailure)
  }
  return GIT_ECERTIFICATE.rawValue
}

private let updateTipsCallback:
  @convention(c) (UnsafePointer<CChar>?, UnsafePointer<git_oid>?, UnsafePointer<git_oid>?, UnsafeMutableRawPointer?)
    -> Int32 = { refname, old, new, payload in
      guard let context = context(payload), let refname else { return 0 }
      func id(_ oid: UnsafePointer<git_oid>?) -> ObjectID? {
        guard let oid, git_oid_is_zero(oid) == 0 else { return nil }
        return ObjectID(oid)
      }
      context.tipUpdates.append(ReferenceUpdate(name: String(cString: refname), old: id(old), new: id(new)))
      return 0
    }

private let pushUpdateReferenceCallback: git_push_update_reference_cb = { refname, status, payload in
  guard let context = context(payload), let refname else { return 0 }
  context.pushStatuses[String(cString: refname)] = .some(status.map { String(cString: $0) })
  return 0
}

private let sidebandCallback: git_transport_message_cb = { text, length, payload in
  guard let context = context(payload), let text, length > 0 else { return 0 }
  let bytes = UnsafeRawBufferPointer(start: text, count: Int(length))
  context.serverText += String(decoding: bytes, as: UTF8.self)
  return 0
}

private let transferProgressCallback: git_indexer_progress_cb = { stats, payload in
  guard let context = context(payload), let stats else { return 0 }
  let value = stats.pointee
  context.progress?(
    TransferProgress(
      totalObjects: Int(value.total_objects), receivedObjects: Int(value.received_objects),
      indexedObjects: Int(value.indexed_objects), receivedBytes: Int(value.received_bytes)))
  return 0
}

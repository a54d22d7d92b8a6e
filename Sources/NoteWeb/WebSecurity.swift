import Foundation
import NoteStore

/// Who may use the server, from where, and what every answer carries.
///
/// Notes are untrusted input and the server listens on the user's machine, where any web page the user opens may
/// send it requests. Every request must name the server by its own address (`Host`: a rebinding DNS name never
/// does), carry the session's token (a cookie set from the printed URL, or a header for scripts), and a
/// state-changing one must come from a page of this server (`Origin`) with the CSRF token those pages carry.
public struct WebSecurity: Sendable {
  /// The session token, printed with the URL; random per run.
  public let token: String
  /// The token the server's own forms carry and every cookie-authenticated POST must send back.
  public let csrfToken: String
  /// The port the server is bound to: part of every accepted `Host` and `Origin`.
  public let port: Int
  /// Whether every write answers 403.
  public var readOnly: Bool
  /// The largest request body accepted, in bytes.
  public var bodyLimit: Int
  /// Further names of this server, without the port (`192.168.1.5`, `laptop.local`): the addresses other devices
  /// reach it by when it listens beyond loopback.
  public var otherHosts: [String] = []
  /// Sign-in with a password (`nb serve --listen` beyond this machine), nil for the token alone.
  public var passwordLogin: PasswordLogin?
  /// Whether the server answers HTTPS (`nb serve --tls-cert`): the session cookie is then `Secure`, so a browser
  /// never sends it over plain HTTP, and a POST's `Origin` must be `https://` this server.
  public var secure = false

  /// The policy every answer carries: only this server's own script, styles and images (and `data:` images), no
  /// plugin, no framing, forms only to this server.
  public static let contentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

  /// A policy for attachments: nothing runs even when one is opened on its own (a sandboxed, opaque origin).
  public static let filePolicy = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox"

  /// A gate for a server on `port`, with fresh random tokens unless given.
  public init(
    port: Int, token: String = WebSecurity.randomToken(), csrfToken: String = WebSecurity.randomToken(),
    readOnly: Bool = false, bodyLimit: Int = 20 << 20
  ) {
    self.port = port
    self.token = token
    self.csrfToken = csrfToken
    self.readOnly = readOnly
    self.bodyLimit = bodyLimit
  }

  /// 32 bytes from the system's cryptographic generator, as 64 hexadecimal digits.
  public static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
  }

  /// The cookie's name: cookies are shared by every port of a host, so each server has its own.
  public var cookieName: String { "nb_token_\(port)" }

  /// The `Host` values this server answers to. On its scheme's default port (443 for HTTPS, 80 for HTTP) a browser
  /// leaves the port out of `Host` and `Origin`, so each name is also accepted without it.
  public var hosts: [String] {
    let names = (["127.0.0.1", "localhost"] + otherHosts).map { $0.contains(":") ? "[\($0)]" : $0 }
    let withPort = names.map { $0 + ":\(port)" }
    return port == (secure ? 443 : 80) ? withPort + names : withPort
  }

  /// `http` or `https`: what this server's own pages' `Origin` starts with.
  public var scheme: String { secure ? "https" : "http" }

  /// The session cookie's `Set-Cookie` value.
  private var sessionCookie: String {
    "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
  }

  /// How a request that may go on proved it may.
  public enum Credential: Equatable, Sendable {
    /// The session cookie: a browser, which sends it on its own, so a POST also needs the CSRF token.
    case cookie
    /// `Authorization: Bearer` or `X-NB-Token`: a script, which no other page can make a browser send.
    case header
    /// None: only the sign-in page and its form (``passwordLogin``) are let through without one.
    case signIn
  }

  /// What to do with a request: let it through, or answer it at once.
  public enum Verdict: Sendable {
    case allow(Credential)
    case answer(WebResponse)
  }

  /// The checks every request passes before any route runs, in order: the `Host`, the method, a `?token=` to turn
  /// into a cookie, the credential, the body's size, then for a POST read-only mode, `Origin` and the CSRF token.
  public func check(_ request: WebRequest) -> Verdict {
    guard let host = request.header("Host")?.lowercased(), hosts.contains(host) else {
      return .answer(.text("Forbidden: the Host header must be one of \(hosts.joined(separator: ", "))", status: 403))
    }
    guard ["GET", "HEAD", "POST"].contains(request.method) else {
      return .answer(
        WebResponse(
          status: 405, headers: [("Allow", "GET, HEAD, POST"), ("Content-Type", "text/plain; charset=utf-8")],
          body: Data("Method not allowed\n".utf8)))
    }
    if let offered = request.queryValue("token") {
      guard Self.same(offered, token) else { return .answer(.text("Forbidden: wrong token", status: 403)) }
      // The token leaves the address bar and the history: the cookie carries it from here on.
      let rest = request.queryItems.filter { $0.name != "token" }
      let query = rest.map { WebPath.queryValue($0.name) + "=" + WebPath.queryValue($0.value) }.joined(separator: "&")
      var response = WebResponse.redirect(String(request.path) + (query.isEmpty ? "" : "?" + query))
      response.headers.append(("Set-Cookie", sessionCookie))
      return .answer(response)
    }
    if let login = passwordLogin, request.path == "/login" {
      guard request.method == "POST" else { return .allow(.signIn) }
      // No CSRF token before a session exists; another site's form still cannot post here (Origin), and a guess
      // costs a failed sign-in.
      guard let origin = request.header("Origin")?.lowercased(),
        hosts.contains(where: { origin == scheme + "://" + $0 })
      else { return .answer(.text("Forbidden: a sign-in must come from this server's own page", status: 403)) }
      if let wait = login.waitBeforeTrying(client: request.client) {
        return .answer(
          WebResponse(
            status: 429, headers: [("Retry-After", "\(wait)"), ("Content-Type", "text/plain; charset=utf-8")],
            body: Data("Too many failed sign-ins from this address; try again in \(wait) s\n".utf8)))
      }
      return .allow(.signIn)
    }
    let credential: Credential
    if let offered = headerToken(request) {
      guard Self.same(offered, token) else { return .answer(.text("Forbidden: wrong token", status: 403)) }
      credential = .header
    } else if let offered = cookie(cookieName, in: request) {
      guard Self.same(offered, token) else {
        return .answer(
          .text("Forbidden: the session cookie is from another run; open the URL nb serve printed", status: 403))
      }
      credential = .cookie
    } else if passwordLogin != nil, request.method != "POST" {
      return .answer(.redirect("/login"))
    } else {
      return .answer(
        WebResponse(
          status: 401, headers: [("WWW-Authenticate", "Bearer"), ("Content-Type", "text/plain; charset=utf-8")],
          body: Data("Unauthorized: open the URL nb serve printed (it carries the session token)\n".utf8)))
    }
    if request.body.count > bodyLimit {
      return .answer(.text("Request body larger than \(bodyLimit) bytes", status: 413))
    }
    guard request.method == "POST" else { return .allow(credential) }
    if readOnly { return .answer(.text("Forbidden: the server is read-only", status: 403)) }
    // A browser sends Origin with every POST; a script may omit it, but one that sends it must send this server.
    // Under this server's own `Referrer-Policy: no-referrer` a browser sends `Origin: null` even from this server's
    // pages (the Fetch standard's origin serialisation), so "null" is taken only with `Sec-Fetch-Site:
    // same-origin`, which no page can forge. Any other Sec-Fetch-Site (cross-site, same-site: another port of
    // 127.0.0.1, none: not from a page) is refused whatever Origin says.
    let origin = request.header("Origin")?.lowercased()
    let fetchSite = request.header("Sec-Fetch-Site")?.lowercased()
    if let fetchSite, fetchSite != "same-origin" {
      return .answer(.text("Forbidden: cross-origin request (Sec-Fetch-Site: \(fetchSite))", status: 403))
    }
    if let origin, !hosts.contains(where: { origin == scheme + "://" + $0 }), !(origin == "null" && fetchSite != nil) {
      return .answer(.text("Forbidden: cross-origin request", status: 403))
    }
    if credential == .cookie {
      guard origin != nil else { return .answer(.text("Forbidden: a POST needs an Origin header", status: 403)) }
      let sent = request.header("X-NB-CSRF") ?? request.formValue("csrf")
      guard let sent, Self.same(sent, csrfToken) else {
        return .answer(.text("Forbidden: missing or wrong CSRF token; reload the page", status: 403))
      }
    }
    return .allow(credential)
  }

  /// The answer to a sign-in form (``check(_:)`` let it through): the session cookie and home for the right
  /// password; the wrong one is counted against the client's address.
  public func signIn(_ request: WebRequest) -> (response: WebResponse?, failed: Bool) {
    guard let login = passwordLogin else { return (nil, false) }
    guard let password = request.formValue("password"), login.hash.matches(password) else {
      login.recordFailure(client: request.client)
      return (nil, true)
    }
    login.recordSuccess(client: request.client)
    var response = WebResponse.redirect("/")
    response.headers.append(("Set-Cookie", sessionCookie))
    return (response, false)
  }

  /// `response` with the headers every answer carries (a response's own policy, e.g. ``filePolicy``, is kept).
  public func finish(_ response: WebResponse) -> WebResponse {
    // No Strict-Transport-Security, even over HTTPS: a browser applies it to the host name whatever the port (RFC
    // 6797 8.3), so once `https://localhost:8643` had sent it, a plain-HTTP `nb serve` on the same machine
    // (`http://localhost:8642`, the default) could no longer be opened in that browser until it expired. The
    // Secure cookie already keeps the session off plain HTTP.
    var response = response
    if response.header("Content-Security-Policy") == nil {
      response.headers.append(("Content-Security-Policy", Self.contentSecurityPolicy))
    }
    response.headers.append(("X-Content-Type-Options", "nosniff"))
    response.headers.append(("Referrer-Policy", "no-referrer"))
    response.headers.append(("X-Frame-Options", "DENY"))
    response.headers.append(("Cache-Control", "no-store"))
    return response
  }

  private func headerToken(_ request: WebRequest) -> String? {
    if let value = request.header("X-NB-Token") { return value }
    guard let authorization = request.header("Authorization") else { return nil }
    let parts = authorization.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    return parts[1].trimmingCharacters(in: .whitespaces)
  }

  private func cookie(_ name: String, in request: WebRequest) -> String? {
    for field in request.headers where field.name.caseInsensitiveCompare("Cookie") == .orderedSame {
      for pair in field.value.split(separator: ";") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
          return parts[1].trimmingCharacters(in: .whitespaces)
        }
      }
    }
    return nil
  }

  /// Compares in time that depends on the lengths only, so a wrong guess tells nothing of how close it was.
  static func same(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for index in x.indices { difference |= x[index] ^ y[index] }
    return difference == 0
  }
}

/// Password sign-in for a server other devices reach: the password's hash, and failed sign-ins counted per client
/// address so a guesser gets a few tries a minute (``limit`` in ``window``), then 429 until the oldest one ages out.
public final class PasswordLogin: @unchecked Sendable {
  /// The password's hash.
  public let hash: PasswordHash
  /// Failed sign-ins allowed per client address within ``window``.
  public let limit: Int
  /// How long a failed sign-in counts.
  public let window: TimeInterval
  /// The time; a test sets its own.
  public var clock: @Sendable () -> Date = { Date() }
  private let lock = NSLock()
  private var failures: [String: [Date]] = [:]

  /// Sign-in against `hash`: `limit` failures per client in `window` seconds.
  public init(hash: PasswordHash, limit: Int = 5, window: TimeInterval = 60) {
    self.hash = hash
    self.limit = limit
    self.window = window
  }

  /// Seconds the client must wait before trying again, nil when it may try now.
  func waitBeforeTrying(client: String?) -> Int? {
    lock.lock()
    defer { lock.unlock() }
    let now = clock()
    let recent = (failures[client ?? ""] ?? []).filter { now.timeIntervalSince($0) < window }
    failures[client ?? ""] = recent.isEmpty ? nil : recent
    guard recent.count >= limit, let oldest = recent.first else { return nil }
    return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
  }

  func recordFailure(client: String?) {
    lock.lock()
    defer { lock.unlock() }
    let now = clock()
    failures[client ?? "", default: []].append(now)
    // Bounded however many addresses try: those whose failures aged out go first.
    if failures.count > 10_000 {
      failures = failures.filter { $0.value.contains { now.timeIntervalSince($0) < window } }
      if failures.count > 10_000 { failures.removeAll() }
    }
  }

  func recordSuccess(client: String?) {
    lock.lock()
    defer { lock.unlock() }
    failures[client ?? ""] = nil
  }
}

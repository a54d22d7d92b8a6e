import Foundation
import NoteWeb
import XCTest

/// The gate every request passes: Host, token, cookie, Origin, CSRF, body size, read-only.
final class WebSecurityTests: XCTestCase {
  private let security = WebSecurity(port: 8642, token: "t0k", csrfToken: "csrf")

  private func request(
    _ method: String = "GET", _ target: String = "/", host: String? = "127.0.0.1:8642",
    _ headers: [(String, String)] = [], body: String = ""
  ) -> WebRequest {
    var fields = headers.map { (name: $0.0, value: $0.1) }
    if let host { fields.insert(("Host", host), at: 0) }
    return WebRequest(method: method, target: target, headers: fields, body: Data(body.utf8))
  }

  private func request(_ headers: [(String, String)], host: String? = "127.0.0.1:8642") -> WebRequest {
    request("GET", "/", host: host, headers)
  }

  private func status(_ request: WebRequest) -> Int {
    switch security.check(request) {
    case .allow: 200
    case .answer(let response): response.status
    }
  }

  func testHostMustNameThisServer() {
    let cookie = [("Cookie", "nb_token_8642=t0k")]
    XCTAssertEqual(status(request(host: "127.0.0.1:8642", cookie)), 200)
    XCTAssertEqual(status(request(host: "LOCALHOST:8642", cookie)), 200)
    for host in ["evil.example:8642", "127.0.0.1:8643", "127.0.0.1", "localhost", "[::1]:8642", "0.0.0.0:8642"] {
      XCTAssertEqual(status(request(host: host, cookie)), 403, host)
    }
    XCTAssertEqual(status(request(host: nil, cookie)), 403)
  }

  func testTokenIsRequired() {
    XCTAssertEqual(status(request()), 401)
    XCTAssertEqual(status(request([("Cookie", "nb_token_8642=wrong")])), 403)
    XCTAssertEqual(status(request([("Cookie", "nb_token_9999=t0k")])), 401, "another port's cookie")
    XCTAssertEqual(status(request([("Authorization", "Bearer wrong")])), 403)
    XCTAssertEqual(status(request([("Authorization", "Bearer t0k")])), 200)
    XCTAssertEqual(status(request([("X-NB-Token", "t0k")])), 200)
    XCTAssertEqual(status(request([("Cookie", "a=b; nb_token_8642=t0k; c=d")])), 200)
  }

  func testTokenInTheURLBecomesACookieAndLeavesTheURL() {
    guard case .answer(let response) = security.check(request("GET", "/search?q=a+b&token=t0k&page=2")) else {
      return XCTFail("no redirect")
    }
    XCTAssertEqual(response.status, 303)
    XCTAssertEqual(response.header("Location"), "/search?q=a%20b&page=2")
    XCTAssertEqual(response.header("Set-Cookie"), "nb_token_8642=t0k; Path=/; HttpOnly; SameSite=Strict")
    XCTAssertEqual(status(request("GET", "/?token=nope")), 403)
  }

  func testPostNeedsThisOriginAndTheCSRFTokenWithACookie() {
    let cookie = ("Cookie", "nb_token_8642=t0k")
    let form = ("Content-Type", "application/x-www-form-urlencoded")
    let origin = ("Origin", "http://127.0.0.1:8642")
    XCTAssertEqual(status(request("POST", "/x", [cookie, form, origin], body: "csrf=csrf&a=1")), 200)
    XCTAssertEqual(
      status(request("POST", "/x", [cookie, form, ("Origin", "http://localhost:8642")], body: "csrf=csrf")), 200)
    XCTAssertEqual(
      status(request("POST", "/x", [cookie, form, ("Origin", "https://evil.example")], body: "csrf=csrf")), 403)
    XCTAssertEqual(status(request("POST", "/x", [cookie, form, ("Origin", "null")], body: "csrf=csrf")), 403)
    // What Chromium sends from this server's own pages under its no-referrer policy: Origin null, and Fetch
    // Metadata that no page can forge.
    let sameOrigin = ("Sec-Fetch-Site", "same-origin")
    XCTAssertEqual(
      status(request("POST", "/x", [cookie, form, ("Origin", "null"), sameOrigin], body: "csrf=csrf")), 200)
    XCTAssertEqual(
      status(request("POST", "/x", [cookie, form, ("Origin", "null"), sameOrigin], body: "csrf=wrong")), 403)
    for site in ["same-site", "cross-site", "none"] {
      XCTAssertEqual(
        status(request("POST", "/x", [cookie, form, ("Origin", "null"), ("Sec-Fetch-Site", site)], body: "csrf=csrf")),
        403, site)
      XCTAssertEqual(
        status(request("POST", "/x", [cookie, form, origin, ("Sec-Fetch-Site", site)], body: "csrf=csrf")), 403, site)
    }
    XCTAssertEqual(
      status(request("POST", "/x", [cookie, form, ("Origin", "https://evil.example"), sameOrigin], body: "csrf=csrf")),
      403)
    XCTAssertEqual(status(request("POST", "/x", [cookie, form], body: "csrf=csrf")), 403, "no Origin")
    XCTAssertEqual(status(request("POST", "/x", [cookie, form, origin], body: "csrf=wrong")), 403)
    XCTAssertEqual(status(request("POST", "/x", [cookie, form, origin], body: "a=1")), 403)
    XCTAssertEqual(status(request("POST", "/x", [cookie, origin, ("X-NB-CSRF", "csrf")])), 200)
    // A script with the token in a header needs neither, but may not claim another origin.
    XCTAssertEqual(status(request("POST", "/x", [("X-NB-Token", "t0k")])), 200)
    XCTAssertEqual(status(request("POST", "/x", [("X-NB-Token", "t0k"), ("Origin", "https://evil.example")])), 403)
  }

  func testOverHTTPSTheCookieIsSecureAndPostsComeFromHTTPSOrigins() {
    var https = WebSecurity(port: 8643, token: "t0k", csrfToken: "csrf")
    https.secure = true
    func status(_ request: WebRequest) -> Int {
      switch https.check(request) {
      case .allow: 200
      case .answer(let response): response.status
      }
    }
    guard case .answer(let welcome) = https.check(request("GET", "/?token=t0k", host: "127.0.0.1:8643")) else {
      return XCTFail("no redirect")
    }
    XCTAssertEqual(welcome.header("Set-Cookie"), "nb_token_8643=t0k; Path=/; HttpOnly; SameSite=Strict; Secure")
    let cookie = ("Cookie", "nb_token_8643=t0k")
    let form = ("Content-Type", "application/x-www-form-urlencoded")
    for origin in ["https://127.0.0.1:8643", "https://localhost:8643"] {
      XCTAssertEqual(
        status(request("POST", "/x", host: "127.0.0.1:8643", [cookie, form, ("Origin", origin)], body: "csrf=csrf")),
        200, origin)
    }
    // The plain-HTTP origin of the same address and port is another origin (RFC 6454: the scheme counts).
    for origin in ["http://127.0.0.1:8643", "http://localhost:8643", "https://127.0.0.1:8642"] {
      XCTAssertEqual(
        status(request("POST", "/x", host: "127.0.0.1:8643", [cookie, form, ("Origin", origin)], body: "csrf=csrf")),
        403, origin)
    }
    XCTAssertEqual(
      status(
        request("POST", "/x", host: "127.0.0.1:8643", [("X-NB-Token", "t0k"), ("Origin", "http://127.0.0.1:8643")])),
      403, "a script may not claim the plain-HTTP origin either")
    // And the plain server refuses the https:// one.
    let plainCookie = ("Cookie", "nb_token_8642=t0k")
    let fromHTTPS = ("Origin", "https://127.0.0.1:8642")
    XCTAssertEqual(self.status(request("POST", "/x", [plainCookie, form, fromHTTPS], body: "csrf=csrf")), 403)
    XCTAssertNil(https.finish(WebResponse(status: 200)).header("Strict-Transport-Security"))
  }

  func testOnTheSchemesDefaultPortTheHostMayLeaveThePortOut() {
    var https = WebSecurity(port: 443, token: "t0k", csrfToken: "csrf")
    https.secure = true
    XCTAssertTrue(https.hosts.contains("localhost") && https.hosts.contains("127.0.0.1:443"), "\(https.hosts)")
    let cookie = ("Cookie", "nb_token_443=t0k")
    guard case .allow = https.check(request("GET", "/", host: "localhost", [cookie])) else {
      return XCTFail("Host without the default port refused")
    }
    let post = request(
      "POST", "/x", host: "127.0.0.1", [cookie, ("Origin", "https://127.0.0.1"), ("X-NB-CSRF", "csrf")])
    guard case .allow = https.check(post) else { return XCTFail("Origin without the default port refused") }
    // 443 is not plain HTTP's default, nor 80 HTTPS's: there the port must be named.
    XCTAssertFalse(WebSecurity(port: 443, token: "t0k").hosts.contains("localhost"))
    XCTAssertTrue(WebSecurity(port: 80, token: "t0k").hosts.contains("localhost"))
    XCTAssertFalse(https.hosts.contains("localhost:80"))
  }

  func testReadOnlyRefusesEveryPost() {
    var readOnly = security
    readOnly.readOnly = true
    guard case .answer(let response) = readOnly.check(request("POST", "/x", [("X-NB-Token", "t0k")])) else {
      return XCTFail("a POST went through a read-only server")
    }
    XCTAssertEqual(response.status, 403)
    guard case .allow = readOnly.check(request("GET", "/", [("X-NB-Token", "t0k")])) else {
      return XCTFail("a read-only server refused a GET")
    }
  }

  func testOtherMethodsAndOversizedBodiesAreRefused() {
    XCTAssertEqual(status(request("PUT", "/", [("X-NB-Token", "t0k")])), 405)
    XCTAssertEqual(status(request("DELETE", "/", [("X-NB-Token", "t0k")])), 405)
    var small = security
    small.bodyLimit = 4
    guard case .answer(let response) = small.check(request("POST", "/x", [("X-NB-Token", "t0k")], body: "12345")) else {
      return XCTFail("an oversized body went through")
    }
    XCTAssertEqual(response.status, 413)
  }

  func testEveryAnswerCarriesTheSecurityHeaders() {
    let finished = security.finish(WebResponse(status: 200))
    XCTAssertEqual(finished.header("Content-Security-Policy"), WebSecurity.contentSecurityPolicy)
    XCTAssertTrue(WebSecurity.contentSecurityPolicy.contains("script-src 'self'"))
    XCTAssertFalse(WebSecurity.contentSecurityPolicy.contains("unsafe"))
    XCTAssertEqual(finished.header("X-Content-Type-Options"), "nosniff")
    XCTAssertEqual(finished.header("Referrer-Policy"), "no-referrer")
  }

  func testTokensAreRandom() {
    let a = WebSecurity.randomToken()
    XCTAssertEqual(a.count, 64)
    XCTAssertNotEqual(a, WebSecurity.randomToken())
  }
}

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

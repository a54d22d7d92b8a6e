import Foundation
import NBTestSupport
import NoteStore
import XCTest

@testable import NoteWeb

/// A server other devices reach (`nb serve --listen 0.0.0.0:PORT`): the addresses it answers to, the sign-in with
/// the password for a session cookie, and failed sign-ins limited per client address. In process, at a set time.
final class PasswordLoginTests: XCTestCase {
  private final class Clock: @unchecked Sendable {
    var now = Date(timeIntervalSince1970: 1_800_000_000)
  }

  private var temp: TemporaryDirectory!
  private var app: NoteWebApp!
  private let clock = Clock()
  private let origin = ("Origin", "http://192.168.1.5:8642")

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "nb-web-login")
    let notes = try NoteRepository.initialize(at: temp.url.appendingPathComponent("notes"))
    var security = WebSecurity(port: 8642, token: "t", csrfToken: "c")
    security.otherHosts = ["192.168.1.5", "laptop.local", "fe80::1"]
    let login = PasswordLogin(hash: PasswordHash(password: "open sesame", salt: [1, 2, 3], iterations: 10))
    let clock = self.clock
    login.clock = { clock.now }
    security.passwordLogin = login
    app = NoteWebApp(repository: notes, security: security)
  }

  private func send(
    _ method: String, _ target: String, host: String = "192.168.1.5:8642", client: String = "192.168.1.20",
    _ headers: [(String, String)] = [], form: [(String, String)]? = nil
  ) -> WebResponse {
    var fields = [(name: "Host", value: host)] + headers.map { (name: $0.0, value: $0.1) }
    var body = Data()
    if let form {
      fields.append(("Content-Type", "application/x-www-form-urlencoded"))
      body = Data(form.map { "\($0.0)=\(WebPath.queryValue($0.1))" }.joined(separator: "&").utf8)
    }
    return app.respond(to: WebRequest(method: method, target: target, headers: fields, body: body, client: client))
  }

  private func signIn(_ password: String, client: String = "192.168.1.20") -> WebResponse {
    send("POST", "/login", client: client, [origin], form: [("password", password)])
  }

  func testTheServerAnswersToItsOtherAddressesOnly() {
    for host in ["192.168.1.5:8642", "LAPTOP.local:8642", "[fe80::1]:8642", "127.0.0.1:8642", "localhost:8642"] {
      XCTAssertEqual(send("GET", "/", host: host, [("X-NB-Token", "t")]).status, 200, host)
    }
    for host in ["evil.example:8642", "192.168.1.6:8642", "192.168.1.5:8643", "fe80::1:8642"] {
      XCTAssertEqual(send("GET", "/", host: host, [("X-NB-Token", "t")]).status, 403, host)
    }
  }

  func testAPageWithoutASessionLeadsToTheSignInAndTheRightPasswordGivesOne() throws {
    let page = send("GET", "/note/x.md")
    XCTAssertEqual(page.status, 303)
    XCTAssertEqual(page.header("Location"), "/login")
    let form = send("GET", "/login")
    XCTAssertEqual(form.status, 200)
    let html = String(decoding: form.body, as: UTF8.self)
    XCTAssertTrue(html.contains(#"<input type="password" id="password" name="password""#), html)
    XCTAssertFalse(html.contains(#"value="c""#), "no CSRF token before a session")
    XCTAssertFalse(html.contains("<footer>notes") || html.contains("Sign in to notes"), "nor the folder's name")
    XCTAssertTrue(html.contains("not encrypted"), html)

    let wrong = signIn("open sesame!")
    XCTAssertEqual(wrong.status, 401)
    XCTAssertNil(wrong.header("Set-Cookie"))
    let right = signIn("open sesame")
    XCTAssertEqual(right.status, 303)
    XCTAssertEqual(right.header("Location"), "/")
    let cookie = try XCTUnwrap(right.header("Set-Cookie"))
    XCTAssertTrue(cookie.hasPrefix("nb_token_8642=t;") && cookie.contains("HttpOnly"), cookie)
    XCTAssertEqual(send("GET", "/", [("Cookie", "nb_token_8642=t")]).status, 200)
    // A POST with that cookie still needs this server's Origin and the page's CSRF token.
    XCTAssertEqual(
      send("POST", "/capture", [("Cookie", "nb_token_8642=t"), origin], form: [("text", "x")]).status, 403)
  }

  func testOverHTTPSTheSignInPageSaysNothingOfAnUnencryptedConnection() throws {
    var security = app.security
    security.secure = true
    let https = NoteWebApp(repository: app.repository, security: security)
    func send(_ method: String, _ headers: [(String, String)], form: String = "") -> WebResponse {
      https.respond(
        to: WebRequest(
          method: method, target: "/login", headers: [("Host", "192.168.1.5:8642")] + headers.map { ($0.0, $0.1) },
          body: Data(form.utf8), client: "192.168.1.20"))
    }
    let page = send("GET", [])
    XCTAssertEqual(page.status, 200)
    XCTAssertFalse(String(decoding: page.body, as: UTF8.self).contains("not encrypted"))
    let form = ("Content-Type", "application/x-www-form-urlencoded")
    XCTAssertEqual(send("POST", [form, origin], form: "password=open+sesame").status, 403, "the http:// origin")
    let right = send("POST", [form, ("Origin", "https://192.168.1.5:8642")], form: "password=open+sesame")
    XCTAssertEqual(right.status, 303)
    XCTAssertEqual(right.header("Set-Cookie"), "nb_token_8642=t; Path=/; HttpOnly; SameSite=Strict; Secure")
  }

  func testASignInMustComeFromThisServersPage() {
    XCTAssertEqual(send("POST", "/login", form: [("password", "open sesame")]).status, 403, "no Origin")
    XCTAssertEqual(
      send("POST", "/login", [("Origin", "http://evil.example")], form: [("password", "open sesame")]).status, 403)
  }

  func testFailedSignInsAreLimitedPerAddress() throws {
    for _ in 0..<5 { XCTAssertEqual(signIn("guess").status, 401) }
    let limited = signIn("open sesame")
    XCTAssertEqual(limited.status, 429, "even the right password waits")
    XCTAssertEqual(limited.header("Retry-After"), "60")
    XCTAssertNil(limited.header("Set-Cookie"))
    XCTAssertEqual(signIn("open sesame", client: "192.168.1.21").status, 303, "another address is not held up")
    clock.now += 45
    XCTAssertEqual(signIn("guess").header("Retry-After"), "15")
    clock.now += 15
    XCTAssertEqual(signIn("open sesame").status, 303, "a minute after the first failure")
  }

  func testOnLoopbackTheTokenAloneStays() {
    let plain = NoteWebApp(
      repository: app.repository, security: WebSecurity(port: 8642, token: "t", csrfToken: "c"))
    let answer = plain.respond(to: WebRequest(method: "GET", target: "/login", headers: [("Host", "127.0.0.1:8642")]))
    XCTAssertEqual(answer.status, 401, "no sign-in page: the printed URL's token is the way in")
    let page = plain.respond(to: WebRequest(method: "GET", target: "/", headers: [("Host", "127.0.0.1:8642")]))
    XCTAssertEqual(page.status, 401)
  }

  func testWhichAddressesAreThisMachineOnly() {
    for host in ["127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "localhost", "LOCALHOST"] {
      XCTAssertTrue(NoteWebServer.isLoopback(host), host)
    }
    for host in ["0.0.0.0", "::", "192.168.1.5", "10.0.0.1", "128.0.0.1", "fe80::1", "example.com", "127.0.0.1.evil"] {
      XCTAssertFalse(NoteWebServer.isLoopback(host), host)
    }
  }

  func testListenAddressesAreHostAndPort() {
    XCTAssertEqual(NoteWebServer.listenAddress("0.0.0.0:8642").map { "\($0.host) \($0.port)" }, "0.0.0.0 8642")
    XCTAssertEqual(NoteWebServer.listenAddress("[::]:0").map { "\($0.host) \($0.port)" }, ":: 0")
    XCTAssertEqual(NoteWebServer.listenAddress("127.0.0.2:0").map { "\($0.host) \($0.port)" }, "127.0.0.2 0")
    for bad in ["8642", "0.0.0.0", "0.0.0.0:", "0.0.0.0:65536", ":8642", "::1:80", "[::1]80", "a b:1", "x:-1"] {
      XCTAssertNil(NoteWebServer.listenAddress(bad), bad)
    }
  }
}

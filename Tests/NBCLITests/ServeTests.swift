import Foundation
import NBTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `nb serve` end to end: the built nb listening on 127.0.0.1, real HTTP requests over a socket (no client library
/// that would fix up a wrong Host or follow a redirect on its own).
final class ServeTests: NBCLITestCase {
  func testPagesNeedTheTokenAndShowTheNotes() throws {
    try makeRepository()
    try nbSucceeds(
      "add", "Roadmap", "--notebook", "work", "--tags", "planning", "--content", "The quarterly plan, see [[Goals]].")
    try nbSucceeds("add", "Goals", "--notebook", "work", "--content", "Ship it.")
    try nbSucceeds("add", "Standup", "--content", "Talked about [[Roadmap]].")
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"])
    defer { server.stop() }
    let port = server.port

    // No token: refused, with the headers every answer carries.
    let anonymous = try http(port, "/")
    XCTAssertEqual(anonymous.status, 401)
    assertSecurityHeaders(anonymous)
    XCTAssertEqual(try http(port, "/", headers: [("Cookie", "nb_token_\(port)=wrong")]).status, 403)

    // The printed URL's token becomes an HttpOnly, SameSite=Strict cookie and leaves the address.
    let welcome = try http(port, "/?token=\(server.token)")
    XCTAssertEqual(welcome.status, 303)
    XCTAssertEqual(welcome.header("Location"), "/")
    let setCookie = try XCTUnwrap(welcome.header("Set-Cookie"))
    XCTAssertTrue(setCookie.hasPrefix("nb_token_\(port)=\(server.token);"), setCookie)
    XCTAssertTrue(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), setCookie)
    assertSecurityHeaders(welcome)
    let cookie = ("Cookie", String(setCookie.prefix { $0 != ";" }))

    let home = try http(port, "/", headers: [cookie])
    XCTAssertEqual(home.status, 200, home.body)
    assertSecurityHeaders(home)
    XCTAssertTrue(home.body.contains(#"href="/notebook/work">work</a>"#), home.body)
    XCTAssertTrue(home.body.contains(#"href="/note/work/roadmap.md">Roadmap</a>"#), home.body)
    XCTAssertTrue(home.body.contains(#"<form class="search" action="/search" method="get""#))

    let notebook = try http(port, "/notebook/work", headers: [cookie])
    XCTAssertEqual(notebook.status, 200)
    XCTAssertTrue(notebook.body.contains(">Roadmap</a>") && notebook.body.contains(">Goals</a>"), notebook.body)
    XCTAssertFalse(notebook.body.contains(">Standup</a>"), notebook.body)

    let note = try http(port, "/note/work/roadmap.md", headers: [("Authorization", "Bearer \(server.token)")])
    XCTAssertEqual(note.status, 200, note.body)
    XCTAssertTrue(note.body.contains(#"<a href="/note/work/goals.md">Goals</a>"#), note.body)
    XCTAssertTrue(note.body.contains(#"/standup.md">Standup</a>"#), "backlink: \(note.body)")
    XCTAssertTrue(note.body.contains(#"href="/search?q=tag%3Aplanning">#planning</a>"#), note.body)

    let search = try http(port, "/search?q=quarterly", headers: [("X-NB-Token", server.token)])
    XCTAssertEqual(search.status, 200)
    XCTAssertTrue(search.body.contains(">Roadmap</a>") && search.body.contains("<mark>quarterly</mark>"), search.body)
    XCTAssertFalse(search.body.contains(">Goals</a>"))

    for path in ["/assets/style.css", "/assets/app.js", "/nowhere"] {
      assertSecurityHeaders(try http(port, path, headers: [cookie]))
    }
    server.stop()
    let result = try server.wait()
    XCTAssertEqual(result.status, 0, "SIGTERM stops cleanly: \(result.stderr)")
  }

  func testRequestsFromElsewhereAreRefused() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "x")
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json", "--max-body", "1"])
    defer { server.stop() }
    let port = server.port
    let cookie = ("Cookie", "nb_token_\(port)=\(server.token)")

    // DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends its own name.
    for host in ["evil.example:\(port)", "evil.example", "127.0.0.1:1"] {
      let answer = try http(port, "/", host: host, headers: [cookie])
      XCTAssertEqual(answer.status, 403, host)
      assertSecurityHeaders(answer)
    }
    // Another site's form posting to this server, with the browser adding the cookie.
    let crossOrigin = try http(
      port, "/note/roadmap.md", method: "POST",
      headers: [cookie, ("Origin", "https://evil.example"), ("Content-Type", "application/x-www-form-urlencoded")],
      body: Data("x=1".utf8))
    XCTAssertEqual(crossOrigin.status, 403)
    XCTAssertTrue(crossOrigin.body.contains("cross-origin"), crossOrigin.body)
    XCTAssertEqual(
      try http(port, "/note/roadmap.md", method: "POST", headers: [cookie, ("Origin", "http://127.0.0.1:\(port)")])
        .status,
      403, "no CSRF token")

    for path in [
      "/note/..%2f..%2fetc%2fpasswd", "/note/%2e%2e/%2e%2e/etc/passwd", "/file/.git/config", "/file/%2egit/config",
      "/file//etc/passwd", "/note/.git/HEAD",
    ] {
      let answer = try http(port, path, headers: [cookie])
      XCTAssertEqual(answer.status, 403, path)
      XCTAssertFalse(answer.body.contains("root:") || answer.body.contains("[core]"), path)
    }
    // A literal ../ never reaches the server's router as such (the raw target is checked), but try it anyway.
    XCTAssertTrue([400, 403, 404].contains(try http(port, "/file/../../etc/passwd", headers: [cookie]).status))

    let big = try http(
      port, "/note/roadmap.md", method: "POST", headers: [cookie, ("Content-Length", "2000000")], sendBody: false)
    XCTAssertEqual(big.status, 413)
    assertSecurityHeaders(big)
  }

  func testNoteContentNeverRuns() throws {
    try makeRepository()
    // As another app or device would write it: nb add refuses a title with "/".
    try write(
      "attack.md",
      """
      ---
      title: "</title><script>alert(1)</script>"
      ---
      <script>alert(2)</script>

      <img src=x onerror=alert(3)>

      [click](javascript:alert(4))

      [[Nowhere|<b>x</b>]]

      """)
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"])
    defer { server.stop() }
    let home = try http(server.port, "/", headers: [("X-NB-Token", server.token)])
    XCTAssertTrue(home.body.contains(#"<a class="title" href="/note/attack.md">&lt;/title&gt;"#), home.body)
    let page = try http(server.port, "/note/attack.md", headers: [("X-NB-Token", server.token)])
    XCTAssertEqual(page.status, 200, page.body)
    for html in [home.body, page.body] {
      XCTAssertEqual(html.components(separatedBy: "<script").count - 1, 1, "only nb's own script: \(html)")
      XCTAssertTrue(html.contains(#"<script src="/assets/app.js" defer></script>"#))
      XCTAssertFalse(html.lowercased().contains("javascript:"), html)
      XCTAssertFalse(html.contains("<img src=x"), html)
    }
    // Raw HTML is shown as text: what the note says is on the page, inert.
    XCTAssertTrue(page.body.contains("&lt;img src=x onerror=alert(3)&gt;"), page.body)
    XCTAssertTrue(page.body.contains("&lt;script&gt;alert(2)&lt;/script&gt;"), page.body)
    XCTAssertTrue(
      page.body.contains("<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; · nb</title>"), page.body)
    XCTAssertTrue(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;</h1>"), page.body)
  }

  func testEditingInTheBrowserIsOneCommit() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work", "--content", "first draft")
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"])
    defer { server.stop() }
    let port = server.port
    let cookie = ("Cookie", "nb_token_\(port)=\(server.token)")
    let form = try http(port, "/edit/work/roadmap.md", headers: [cookie])
    XCTAssertEqual(form.status, 200, form.body)
    func hidden(_ name: String) throws -> String {
      let start = try XCTUnwrap(form.body.range(of: #"name="\#(name)" value=""#)).upperBound
      return String(form.body[start...].prefix { $0 != "\"" })
    }
    let text = try String(contentsOf: url("work/roadmap.md"), encoding: .utf8)
    let edited = text.replacingOccurrences(of: "first draft", with: "second draft")
    let body = [("csrf", try hidden("csrf")), ("version", try hidden("version")), ("text", edited)]
      .map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
      .joined(separator: "&")
    let commits = try commitCount()
    let saved = try http(
      port, "/edit/work/roadmap.md", method: "POST",
      headers: [cookie, ("Origin", "http://127.0.0.1:\(port)"), ("Content-Type", "application/x-www-form-urlencoded")],
      body: Data(body.utf8))
    XCTAssertEqual(saved.status, 303, saved.body)
    XCTAssertEqual(saved.header("Location"), "/note/work/roadmap.md?saved=1")
    XCTAssertEqual(try commitCount(), commits + 1)
    XCTAssertEqual(try git.run(arguments: ["log", "-1", "--format=%s"]), "nb: edit work/roadmap.md\n")
    XCTAssertEqual(try git.statusPorcelain(), "", "the save is committed, nothing left over")
    XCTAssertTrue(try String(contentsOf: url("work/roadmap.md"), encoding: .utf8).contains("second draft"))
    // The same form a second time: the file is not that version any more.
    let again = try http(
      port, "/edit/work/roadmap.md", method: "POST",
      headers: [cookie, ("Origin", "http://127.0.0.1:\(port)"), ("Content-Type", "application/x-www-form-urlencoded")],
      body: Data(body.utf8))
    XCTAssertEqual(again.status, 409)
    XCTAssertEqual(try commitCount(), commits + 1)
  }

  func testDrawingInTheBrowserIsOneCommitThatNbInkRenderShows() throws {
    try makeRepository()
    try nbSucceeds("add", "Sketch", "--notebook", "work", "--content", "drawn below")
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"])
    defer { server.stop() }
    let browser = try Browser(server, page: "/draw/work/sketch.md")
    XCTAssertTrue(browser.page.contains(#"<script src="/assets/draw.js" defer></script>"#), browser.page)
    XCTAssertTrue(browser.page.contains("<canvas"), browser.page)
    let draw = try http(server.port, "/assets/draw.js", headers: [browser.cookie])
    XCTAssertEqual(draw.header("Content-Type"), "text/javascript; charset=utf-8")
    assertSecurityHeaders(draw)

    let id = "0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b"
    let body = """
      {"page":null,"strokes":[{"id":"\(id)","ink":"pen","color":"d1242fff","nib":3,"created":1764352000123,\
      "points":[{"x":100,"y":120,"t":0,"f":0.4,"az":0.5,"al":1.1},{"x":140,"y":150,"t":0.02,"f":1,"az":0.5,"al":1},\
      {"x":180,"y":160,"t":0.05,"f":1.2,"az":0.5,"al":1}]}]}
      """
    let headers = [
      browser.cookie, ("Origin", "http://127.0.0.1:\(server.port)"), ("Content-Type", "application/json"),
      ("X-NB-CSRF", browser.csrf),
    ]
    // An open page (another browser's Draw page) hears of the new ink.
    let stream = try EventStreamClient(port: server.port, headers: [browser.cookie])
    XCTAssertTrue(stream.waitFor("retry: 1000", seconds: 10), stream.text)
    let commits = try commitCount()
    let saved = try http(server.port, "/draw/work/sketch.md", method: "POST", headers: headers, body: Data(body.utf8))
    XCTAssertEqual(saved.status, 200, saved.body)
    XCTAssertTrue(saved.body.contains(#""added":["\#(id)"]"#), saved.body)
    XCTAssertEqual(try commitCount(), commits + 1, "the burst is one commit")
    XCTAssertEqual(try git.run(arguments: ["log", "-1", "--format=%s"]), "nb: draw work/sketch.md: 1 stroke\n")
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertTrue(stream.waitFor(#""work/sketch.ink.jsonl""#, seconds: 5), stream.text)
    let sidecar = try text("work/sketch.ink.jsonl")
    XCTAssertTrue(sidecar.contains(#""id":"\#(id)""#) && sidecar.contains(#""f":[400,600,200]"#), sidecar)

    // nb ink render draws the stroke, and the page's image is exactly what it draws.
    let render = try nbSucceeds("ink", "render", "work/sketch.md").stdout
    XCTAssertTrue(render.contains(##"<path data-id="\##(id)" fill="#d1242f""##), render)
    let image = try http(server.port, "/ink/work/sketch.md?page=0", headers: [browser.cookie])
    XCTAssertEqual(image.status, 200)
    XCTAssertEqual(image.body, render)

    // Without the CSRF token: refused, nothing committed.
    let forged = try http(
      server.port, "/draw/work/sketch.md", method: "POST", headers: Array(headers.dropLast()),
      body: Data(body.replacingOccurrences(of: id, with: "forged").utf8))
    XCTAssertEqual(forged.status, 403)
    XCTAssertEqual(try commitCount(), commits + 1)
  }

  func testReadOnlyRefusesWrites() throws {
    try makeRepository()
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json", "--read-only"])
    defer { server.stop() }
    let post = try http(server.port, "/note/x.md", method: "POST", headers: [("X-NB-Token", server.token)])
    XCTAssertEqual(post.status, 403)
    XCTAssertTrue(post.body.contains("read-only"), post.body)
    XCTAssertEqual(try http(server.port, "/", headers: [("X-NB-Token", server.token)]).status, 200)
  }

  func testBadPortsAreOneLineErrors() throws {
    try makeRepository()
    for port in ["99999", "65536"] {
      let result = try nb("serve", "--port", port)
      XCTAssertEqual(result.status, 1, port)
      XCTAssertEqual(result.stderr, "Error: --port must be a number from 0 to 65535 (0: any free port), not \(port)\n")
    }
    for port in ["http", "-1"] {
      let result = try nb("serve", "--port", port)
      XCTAssertNotEqual(result.status, 0, port)
      XCTAssertTrue(result.stderr.contains("--port"), result.stderr)
    }
    let first = try ServeProcess(self, ["serve", "--port", "0", "--json"])
    defer { first.stop() }
    let second = try nb("serve", "--port", "\(first.port)", timeout: 30)
    XCTAssertEqual(second.status, 1, second.stderr)
    XCTAssertEqual(second.stderr.split(separator: "\n").count, 1, second.stderr)
    XCTAssertTrue(second.stderr.contains("port \(first.port) is in use"), second.stderr)
    XCTAssertEqual(second.stdout, "")
  }

  func testHumanModePrintsTheURL() throws {
    try makeRepository()
    let server = try ServeProcess(self, ["serve", "--port", "0"], json: false)
    defer { server.stop() }
    XCTAssertTrue(server.firstLine.hasPrefix("http://127.0.0.1:\(server.port)/?token="), server.firstLine)
    XCTAssertEqual(try http(server.port, "/", headers: [("X-NB-Token", server.token)]).status, 200)
  }

  func testOpenHandsTheURLToTheSystemsOpener() throws {
    try makeRepository()
    // A stand-in xdg-open first on PATH, writing down what it was asked to open.
    let bin = temp.file("bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    let opened = temp.file("opened")
    let opener = bin.appendingPathComponent("xdg-open")
    try Data(
      "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(opened.path).part'\nmv '\(opened.path).part' '\(opened.path)'\n".utf8
    )
    .write(to: opener)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
    let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    let server = try ServeProcess(self, ["serve", "--port", "0", "--open"], json: false, env: ["PATH": path])
    defer { server.stop() }
    let deadline = Date().addingTimeInterval(30)
    while !FileManager.default.fileExists(atPath: opened.path) && Date() < deadline { usleep(50_000) }
    XCTAssertEqual(try String(contentsOf: opened, encoding: .utf8), server.firstLine + "\n", "one argument: the URL")
    XCTAssertTrue(server.firstLine.hasPrefix("http://127.0.0.1:\(server.port)/?token="), server.firstLine)
    XCTAssertEqual(try http(server.port, "/", headers: [("X-NB-Token", server.token)]).status, 200)

    // No opener at all: a warning, and the server serves anyway.
    let empty = temp.file("empty-bin")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    let alone = try ServeProcess(self, ["serve", "--port", "0", "--open"], json: false, env: ["PATH": empty.path])
    defer { alone.stop() }
    XCTAssertEqual(try http(alone.port, "/", headers: [("X-NB-Token", alone.token)]).status, 200)
    alone.stop()
    let result = try alone.wait()
    XCTAssertTrue(result.stderr.contains("warning: no xdg-open on PATH"), result.stderr)
  }

  func testListeningBeyondThisMachineNeedsAPasswordAndSaysTrafficIsUnencrypted() throws {
    try makeRepository()
    let refused = try nb("serve", "--listen", "0.0.0.0:0", "--json", timeout: 30)
    XCTAssertEqual(refused.status, 1)
    XCTAssertEqual(refused.stdout, "")
    XCTAssertEqual(
      refused.stderr,
      "Error: --listen 0.0.0.0:0 lets other devices in: set a password first with 'nb serve --set-password' (kept on "
        + "this device only, never synced)\n")
    let bad = try nb("serve", "--listen", "0.0.0.0", timeout: 30)
    XCTAssertEqual(bad.status, 1)
    XCTAssertTrue(bad.stderr.hasPrefix("Error: --listen must be HOST:PORT"), bad.stderr)
    XCTAssertEqual(try nb("serve", "--set-password", stdin: "short\n").status, 1)

    // The password from standard input, kept as PBKDF2 in .git/nb (Python's hashlib checks the record).
    let commits = try commitCount()
    let set = try nb("serve", "--set-password", "--password-iterations", "1000", stdin: "open sesame\n")
    XCTAssertEqual(set.status, 0, set.stderr)
    XCTAssertEqual(try commitCount(), commits, "nothing committed")
    XCTAssertEqual(try git.statusPorcelain(), "")
    let record = try String(contentsOf: url(".git/nb/serve-password"), encoding: .utf8)
    let check = """
      import base64, hashlib, sys
      method, rounds, salt, key = sys.stdin.read().strip().split("$")
      derived = hashlib.pbkdf2_hmac("sha256", b"open sesame", base64.b64decode(salt), int(rounds), 32)
      print(method, rounds, derived == base64.b64decode(key))
      """
    let python = try ProcessRunner.run(
      URL(fileURLWithPath: "/usr/bin/python3"), arguments: ["-c", check], stdin: Data(record.utf8), timeout: 60)
    XCTAssertEqual(python.stdout, "pbkdf2-sha256 1000 True\n", python.stderr)

    // Every interface, port 0; this test talks to it on 127.0.0.1 only.
    let server = try ServeProcess(self, ["serve", "--listen", "0.0.0.0:0", "--json"])
    defer { server.stop() }
    let port = server.port
    let origin = ("Origin", "http://127.0.0.1:\(port)")
    let form = ("Content-Type", "application/x-www-form-urlencoded")
    let page = try http(port, "/")
    XCTAssertEqual(page.status, 303)
    XCTAssertEqual(page.header("Location"), "/login")
    XCTAssertEqual(try http(port, "/login").status, 200)
    let wrong = try http(port, "/login", method: "POST", headers: [origin, form], body: Data("password=guess".utf8))
    XCTAssertEqual(wrong.status, 401)
    let right = try http(
      port, "/login", method: "POST", headers: [origin, form], body: Data("password=open+sesame".utf8))
    XCTAssertEqual(right.status, 303, right.body)
    let cookie = ("Cookie", String(try XCTUnwrap(right.header("Set-Cookie")).prefix { $0 != ";" }))
    XCTAssertEqual(cookie.1, "nb_token_\(port)=\(server.token)")
    XCTAssertEqual(try http(port, "/", headers: [cookie]).status, 200)
    // A right password clears the count; five wrong ones in a minute hold the address up.
    for _ in 0..<5 {
      XCTAssertEqual(
        try http(port, "/login", method: "POST", headers: [origin, form], body: Data("password=guess".utf8)).status, 401
      )
    }
    let limited = try http(
      port, "/login", method: "POST", headers: [origin, form], body: Data("password=open+sesame".utf8))
    XCTAssertEqual(limited.status, 429)
    XCTAssertNotNil(limited.header("Retry-After"))
    XCTAssertEqual(try http(port, "/", headers: [cookie]).status, 200, "a session stays")
    server.stop()
    let result = try server.wait()
    XCTAssertTrue(result.stderr.contains("warning: traffic to 0.0.0.0:0 is not encrypted"), result.stderr)
  }

  func testRemovingThePasswordShutsOtherDevicesOutAgain() throws {
    try makeRepository()
    let none = try nb("serve", "--remove-password")
    XCTAssertEqual(none.status, 0, none.stderr)
    XCTAssertEqual(none.stdout, "No password was set on this device; nothing changed.\n")
    XCTAssertEqual(try nb("serve", "--set-password", "--password-iterations", "1000", stdin: "open sesame\n").status, 0)
    XCTAssertTrue(FileManager.default.fileExists(atPath: url(".git/nb/serve-password").path))

    let both = try nb("serve", "--set-password", "--remove-password", stdin: "open sesame\n")
    XCTAssertEqual(both.status, 1)
    XCTAssertEqual(both.stderr, "Error: --set-password and --remove-password exclude each other; give one\n")
    XCTAssertTrue(FileManager.default.fileExists(atPath: url(".git/nb/serve-password").path), "nothing changed")

    let commits = try commitCount()
    let removed = try nb("serve", "--remove-password")
    XCTAssertEqual(removed.status, 0, removed.stderr)
    XCTAssertEqual(
      removed.stdout,
      "Password removed: nb serve --listen beyond this machine is refused until 'nb serve --set-password'.\n")
    XCTAssertFalse(FileManager.default.fileExists(atPath: url(".git/nb/serve-password").path))
    XCTAssertEqual(try commitCount(), commits, "nothing committed")
    let refused = try nb("serve", "--listen", "0.0.0.0:0", "--json", timeout: 30)
    XCTAssertEqual(refused.status, 1)
    XCTAssertTrue(refused.stderr.contains("set a password first"), refused.stderr)
  }

  func testAnotherLoopbackAddressKeepsTheTokenFlow() throws {
    try makeRepository()
    let server = try ServeProcess(self, ["serve", "--listen", "127.0.0.2:0", "--json"], urlHost: "127.0.0.2")
    defer { server.stop() }
    XCTAssertEqual(try http(server.port, "/", address: "127.0.0.2").status, 401)
    XCTAssertEqual(try http(server.port, "/login", address: "127.0.0.2").status, 401, "no sign-in page")
    let welcome = try http(server.port, "/?token=\(server.token)", address: "127.0.0.2")
    XCTAssertEqual(welcome.status, 303, "the printed URL works")
    let cookie = ("Cookie", String(try XCTUnwrap(welcome.header("Set-Cookie")).prefix { $0 != ";" }))
    XCTAssertEqual(try http(server.port, "/", headers: [cookie], address: "127.0.0.2").status, 200)
    XCTAssertEqual(
      try http(server.port, "/", host: "evil.example:\(server.port)", headers: [cookie], address: "127.0.0.2").status,
      403)
  }

  func testOpenPagesHearOfChangesMadeByOtherProcessesWithinASecond() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work", "--content", "first draft")
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"])
    defer { server.stop() }
    // Without the token the stream is refused like any page.
    XCTAssertEqual(try http(server.port, "/events").status, 401)
    let stream = try EventStreamClient(port: server.port, headers: [("X-NB-Token", server.token)])
    XCTAssertEqual(stream.status, 200, stream.head)
    XCTAssertTrue(stream.head.lowercased().contains("content-type: text/event-stream"), stream.head)
    XCTAssertTrue(stream.waitFor("retry: 1000", seconds: 10), stream.text)

    // A note added by another nb process (its own commit): an event naming it within 1 s of the command's end.
    try nbSucceeds("add", "Standup", "--content", "notes")
    var start = Date()
    XCTAssertTrue(
      stream.waitFor(#""inbox/standup.md""#, seconds: 1), "after \(Date().timeIntervalSince(start)) s: \(stream.text)")
    XCTAssertTrue(stream.text.contains("event: change\ndata: {"), stream.text)

    // An edit saved in place by another program (an editor, without nb): the same.
    let roadmap = try String(contentsOf: url("work/roadmap.md"), encoding: .utf8)
    try write("work/roadmap.md", roadmap + "more\n")
    start = Date()
    XCTAssertTrue(
      stream.waitFor(#""work/roadmap.md""#, seconds: 1), "after \(Date().timeIntervalSince(start)) s: \(stream.text)")
    XCTAssertEqual(try git.statusPorcelain(), " M work/roadmap.md\n", "listening commits nothing")

    // Another page opened meanwhile hears the next change too.
    let second = try EventStreamClient(
      port: server.port, headers: [("Cookie", "nb_token_\(server.port)=\(server.token)")])
    XCTAssertTrue(second.waitFor("retry: 1000", seconds: 10), second.text)
    try nbSucceeds("save")
    XCTAssertTrue(second.waitFor(#""work/roadmap.md""#, seconds: 1), second.text)

    // SIGTERM ends the open streams and the server.
    server.stop()
    XCTAssertEqual(try server.wait().status, 0)
    XCTAssertTrue(stream.waitForEnd(seconds: 10), "the stream ends with the server")
  }

  func testNotePagesShowEveryChangeWhoeverMadeIt() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work", "--content", "first draft")
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"])
    defer { server.stop() }
    let token = ("X-NB-Token", server.token)
    func roadmap() throws -> String {
      let answer = try http(server.port, "/note/work/roadmap.md", headers: [token])
      XCTAssertEqual(answer.status, 200, answer.body)
      return answer.body
    }
    let first = try roadmap()
    XCTAssertTrue(first.contains("first draft"), first)
    XCTAssertEqual(try roadmap(), first, "nothing changed: the same page")

    // The note itself, rewritten by another program: the very next request shows it (pages are kept for `wrk`'s
    // sake, never past a change to their own file).
    for round in 1...20 {
      let text = try String(contentsOf: url("work/roadmap.md"), encoding: .utf8)
      try write("work/roadmap.md", text.replacingOccurrences(of: "draft \(round - 1)", with: "") + "draft \(round)\n")
      let page = try roadmap()
      XCTAssertTrue(page.contains("draft \(round)"), "round \(round): \(page)")
    }

    // Another note linking to it, written by another program: its backlink appears (what other files hold reaches
    // a page kept before through the file watcher, within its latency).
    try write("work/standup.md", "---\ntitle: Standup\n---\nSee [[Roadmap]].\n")
    var page = try roadmap()
    let deadline = Date().addingTimeInterval(2)
    while !page.contains("/standup.md\">Standup</a>"), Date() < deadline {
      usleep(20_000)
      page = try roadmap()
    }
    XCTAssertTrue(page.contains("/standup.md\">Standup</a>"), "backlink within 2 s: \(page)")

    // A form of the page's own (an edit), then the page: the saved text.
    let browser = try Browser(server, page: "/edit/work/roadmap.md")
    let version = try XCTUnwrap(browser.page.range(of: #"name="version" value=""#)).upperBound
    let saved = try browser.post(
      "/edit/work/roadmap.md",
      [
        ("version", String(browser.page[version...].prefix { $0 != "\"" })),
        ("text", "---\ntitle: Roadmap\n---\nedited in the browser\n"),
      ])
    XCTAssertEqual(saved.status, 303, saved.body)
    XCTAssertTrue(try roadmap().contains("edited in the browser"))
  }

  func testANoteArrivingBySyncReachesOpenPagesWithinASecond() throws {
    try makeRepository()
    let remote = temp.file("remote.git")
    _ = try git.run("init", "--quiet", "--bare", remote.path)
    try nbSucceeds("remote", "add", "origin", remote.path)
    try nbSucceeds("sync")
    // Another device: a clone of the remote that adds a note and syncs.
    let tablet = temp.file("tablet")
    _ = try git.run("clone", "--quiet", remote.path, tablet.path)
    let other = ["NB_DIR": tablet.path, "NB_DEVICE": "tablet"]
    try nbSucceeds("add", "From the tablet", "--content", "written elsewhere", env: other)
    try nbSucceeds("sync", env: other)

    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"])
    defer { server.stop() }
    let stream = try EventStreamClient(port: server.port, headers: [("X-NB-Token", server.token)])
    XCTAssertTrue(stream.waitFor("retry: 1000", seconds: 10), stream.text)
    // nb sync here, in a process of its own, brings the note in.
    try nbSucceeds("sync")
    let start = Date()
    XCTAssertTrue(
      stream.waitFor(#""inbox/from-the-tablet.md""#, seconds: 1),
      "after \(Date().timeIntervalSince(start)) s: \(stream.text)")
    let page = try http(server.port, "/", headers: [("X-NB-Token", server.token)])
    XCTAssertTrue(page.body.contains(">From the tablet</a>"), page.body)
  }

  func testAttachmentsAreStreamedWhole() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work", "--content", "x")
    // 1.2 MB of numbered lines: larger than any one piece the server reads.
    let text = (0..<100_000).map { String(format: "line %06d\n", $0) }.joined()
    try write("work/roadmap.files/log.txt", text)
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"])
    defer { server.stop() }
    let answer = try http(server.port, "/file/work/roadmap.files/log.txt", headers: [("X-NB-Token", server.token)])
    XCTAssertEqual(answer.status, 200)
    XCTAssertEqual(answer.header("Content-Length"), "\(text.utf8.count)")
    XCTAssertEqual(answer.header("Content-Type"), "application/octet-stream")
    XCTAssertEqual(answer.body.count, text.count)
    XCTAssertTrue(answer.body == text, "the bytes as on disk")
  }

  func testTickingATaskIsExactlyNbTaskDone() throws {
    let env = ["NB_NOW": "2026-03-10T12:00:00Z", "TZ": "UTC", "NB_DEVICE": "laptop"]
    try makeRepository()
    try nbSucceeds("task", "add", "Water plants", "--project", "home", "--due", "today", "--repeat", "daily", env: env)
    let oracle = try Oracle(self, env: env)
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"], env: env)
    defer { server.stop() }
    let browser = try Browser(server, page: "/tasks")
    XCTAssertTrue(browser.page.contains(">Water plants</a>"), browser.page)

    // Ticking a repeating task: the same bytes and the same commit as nb task done.
    let ticked = try browser.post("/tasks/done", [("task", "home/water-plants.md"), ("title", "Water plants")])
    XCTAssertEqual(ticked.status, 303, ticked.body)
    try oracle.nb("task", "done", "home/water-plants.md")
    XCTAssertEqual(try read("home/water-plants.md"), try oracle.read("home/water-plants.md"))
    XCTAssertTrue(
      try String(contentsOf: url("home/water-plants.md"), encoding: .utf8).contains("2026-03-11"), "moved on")
    XCTAssertEqual(try Oracle.lastCommit(git), try Oracle.lastCommit(oracle.git))
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testCapturingAndFilingAreExactlyNbCaptureAndNbInboxFile() throws {
    let env = ["NB_NOW": "2026-03-10T12:00:00Z", "TZ": "UTC", "NB_DEVICE": "laptop"]
    try makeRepository()
    try nbSucceeds("add", "Dentist", "--notebook", "health", "--content", "dentist teeth bridge appointment", env: env)
    try nbSucceeds("add", "Standup", "--notebook", "work", "--content", "meeting agenda team sprint", env: env)
    let oracle = try Oracle(self, env: env)
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"], env: env)
    defer { server.stop() }
    let browser = try Browser(server, page: "/")
    // Every note's id is new, so ids are left out of the comparison (and the decision's item, which is one).
    func withoutIDs(_ text: String) -> String {
      text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("id: ") }
        .joined(separator: "\n").replacingOccurrences(of: #"Nb-Note-Id: \S+"#, with: "", options: .regularExpression)
        .replacingOccurrences(of: #""item":"[^"]+""#, with: "", options: .regularExpression)
    }

    // The capture box: nb capture's note and commit.
    let text = "call the dentist about the bridge"
    let captured = try browser.post("/capture", [("text", text)])
    XCTAssertEqual(captured.status, 303, captured.body)
    try oracle.nb("capture", text)
    let item = "inbox/call-the-dentist-about-the-bridge.md"
    XCTAssertEqual(withoutIDs(try String(contentsOf: url(item), encoding: .utf8)), withoutIDs(try oracle.text(item)))
    XCTAssertEqual(withoutIDs(try Oracle.lastCommit(git)), withoutIDs(try Oracle.lastCommit(oracle.git)))
    let inbox = try http(server.port, "/inbox", headers: [browser.cookie])
    XCTAssertTrue(inbox.body.contains(#"<input type="hidden" name="item" value="\#(item)">"#), inbox.body)

    // Filing it somewhere else than suggested: the move and the decision as nb inbox file records them.
    let filed = try browser.post("/inbox/file", [("item", item), ("notebook", "work")])
    XCTAssertEqual(filed.status, 303, filed.body)
    try oracle.nb("inbox", "file", item, "work")
    let moved = "work/call-the-dentist-about-the-bridge.md"
    XCTAssertEqual(withoutIDs(try String(contentsOf: url(moved), encoding: .utf8)), withoutIDs(try oracle.text(moved)))
    let decisions = ".nb/inbox/decisions.jsonl"
    let log = try String(contentsOf: url(decisions), encoding: .utf8)
    XCTAssertEqual(withoutIDs(log), withoutIDs(try oracle.text(decisions)))
    XCTAssertTrue(log.contains(#""chosen":"work""#), log)
    XCTAssertEqual(withoutIDs(try Oracle.lastCommit(git)), withoutIDs(try Oracle.lastCommit(oracle.git)))
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  // MARK: - Helpers

  private func assertSecurityHeaders(_ answer: HTTPAnswer, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(
      answer.header("Content-Security-Policy"),
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
      "\(answer.status)", file: file, line: line)
    XCTAssertEqual(answer.header("X-Content-Type-Options"), "nosniff", file: file, line: line)
    XCTAssertEqual(answer.header("Referrer-Policy"), "no-referrer", file: file, line: line)
  }
}

/// An `nb serve` started for a test: its first line of output read (the JSON line, or the URL), then left running
/// until ``stop()``.
final class ServeProcess {
  let process = Process()
  private let output = Pipe()
  private let errors = Pipe()
  /// Standard error, filled by a reader thread until the server exits (read after `drained`).
  private final class Box: @unchecked Sendable { var data = Data() }
  private let errorBox = Box()
  private var errorData: Data { errorBox.data }
  private let drained = DispatchGroup()
  let firstLine: String
  let port: Int
  let token: String

  init(
    _ test: NBCLITestCase, _ arguments: [String], json: Bool = true, env: [String: String] = [:],
    urlHost: String = "127.0.0.1", scheme: String = "http"
  ) throws {
    signal(SIGPIPE, SIG_IGN)
    process.executableURL = test.runner.binary
    process.arguments = arguments
    process.environment = test.environment(env)
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    drained.enter()
    Thread.detachNewThread { [errors, drained, errorBox] in
      errorBox.data = errors.fileHandleForReading.readDataToEndOfFile()
      drained.leave()
    }
    // The first line, waiting at most 60 s (a debug build on a busy machine starts slowly).
    var line = Data()
    let fd = output.fileHandleForReading.fileDescriptor
    let deadline = Date().addingTimeInterval(60)
    while !line.contains(UInt8(ascii: "\n")) {
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let remaining = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
      guard remaining > 0, poll(&poller, 1, remaining) > 0 else { break }
      var byte: UInt8 = 0
      guard read(fd, &byte, 1) == 1 else { break }
      line.append(byte)
    }
    firstLine = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines)
    if json {
      struct Line: Decodable {
        var url: String
        var port: Int
        var token: String
      }
      guard let decoded = try? JSONDecoder().decode(Line.self, from: Data(firstLine.utf8)) else {
        process.terminate()
        process.waitUntilExit()
        drained.wait()
        throw StartFailed(
          description: "no JSON line: '\(firstLine)'; stderr: \(String(decoding: errorBox.data, as: UTF8.self))")
      }
      XCTAssertEqual(decoded.url, "\(scheme)://\(urlHost):\(decoded.port)/?token=\(decoded.token)")
      (port, token) = (decoded.port, decoded.token)
    } else {
      let components = URLComponents(string: firstLine)
      port = components?.port ?? 0
      token = components?.queryItems?.first { $0.name == "token" }?.value ?? ""
    }
  }

  struct StartFailed: Error, CustomStringConvertible {
    var description: String
  }

  /// SIGTERM, as systemd or a logout would send.
  func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
  }

  /// Waits (at most 30 s) for the server to end; its exit status and standard error.
  func wait() throws -> ProcessResult {
    let deadline = Date().addingTimeInterval(30)
    while process.isRunning && Date() < deadline { usleep(20_000) }
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      XCTFail("nb serve did not stop within 30 s of SIGTERM")
    }
    process.waitUntilExit()
    drained.wait()
    return ProcessResult(status: process.terminationStatus, stdoutData: Data(), stderrData: errorData)
  }

  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }
}

/// One HTTP answer, as read off the socket.
struct HTTPAnswer {
  var status: Int
  var headers: [(name: String, value: String)]
  var body: String

  func header(_ name: String) -> String? {
    headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
  }
}

/// One HTTP/1.1 request over a new connection to 127.0.0.1:`port`, exactly as given (`Host` too; default
/// `127.0.0.1:port`), then the whole answer read until the server closes.
func http(
  _ port: Int, _ target: String, method: String = "GET", host: String? = nil, headers: [(String, String)] = [],
  body: Data = Data(), sendBody: Bool = true, address ip: String = "127.0.0.1"
) throws -> HTTPAnswer {
  // Only this machine: a test never sends anything to another address.
  precondition(ip.hasPrefix("127."), "tests connect to loopback addresses only")
  let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard socketFD >= 0 else { throw POSIXError(.EIO) }
  defer { close(socketFD) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  address.sin_addr.s_addr = inet_addr(ip)
  let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
    }
  }
  guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
  var timeout = timeval(tv_sec: 30, tv_usec: 0)
  setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "\(ip):\(port)")\r\nConnection: close\r\n"
  for (name, value) in headers { head += "\(name): \(value)\r\n" }
  if !body.isEmpty || (method == "POST" && !headers.contains { $0.0.lowercased() == "content-length" }) {
    head += "Content-Length: \(body.count)\r\n"
  }
  head += "\r\n"
  var request = Data(head.utf8)
  if sendBody { request += body }
  _ = request.withUnsafeBytes { send(socketFD, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  var answer = Data()
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = recv(socketFD, &buffer, buffer.count, 0)
    if count <= 0 { break }
    answer.append(contentsOf: buffer[0..<count])
  }
  let text = String(decoding: answer, as: UTF8.self)
  guard let split = text.range(of: "\r\n\r\n") else { throw POSIXError(.EBADMSG) }
  let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
  let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
  let fields = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
    guard let colon = line.firstIndex(of: ":") else { return nil }
    return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
  }
  return HTTPAnswer(status: status, headers: fields, body: String(text[split.upperBound...]))
}

/// A clone of the test's repository where the nb commands do what a page does, to compare the two.
struct Oracle {
  let root: URL
  let git: GitCLI
  let env: [String: String]
  unowned let test: NBCLITestCase

  init(_ test: NBCLITestCase, env: [String: String]) throws {
    root = test.temp.file("oracle")
    _ = try test.git.run("clone", "--quiet", test.root.path, root.path)
    git = try GitCLI(workTree: root, home: test.home)
    self.env = env.merging(["NB_DIR": root.path]) { $1 }
    self.test = test
  }

  func nb(_ args: String..., file: StaticString = #filePath, line: UInt = #line) throws {
    let result = try test.nb(arguments: args, env: env)
    XCTAssertEqual(result.status, 0, "nb \(args) in the oracle: \(result.stderr)", file: file, line: line)
  }

  func read(_ path: String) throws -> Data { try Data(contentsOf: root.appendingPathComponent(path)) }
  func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// The last commit's subject, body, author and date.
  static func lastCommit(_ git: GitCLI) throws -> String { try git.run("log", "-1", "--format=%s%n%b%n%an %ae %ad") }
}

/// A browser's session with a server: its cookie, and the CSRF token of a page it loaded, for posting forms.
struct Browser {
  let port: Int
  let cookie: (String, String)
  let csrf: String
  let page: String

  init(_ server: ServeProcess, page target: String) throws {
    port = server.port
    cookie = ("Cookie", "nb_token_\(server.port)=\(server.token)")
    let answer = try http(port, target, headers: [cookie])
    XCTAssertEqual(answer.status, 200, answer.body)
    page = answer.body
    let start = try XCTUnwrap(page.range(of: #"name="csrf" value=""#)).upperBound
    csrf = String(page[start...].prefix { $0 != "\"" })
  }

  /// A form posted as the browser posts it (cookie, Origin, CSRF token).
  func post(_ target: String, _ fields: [(String, String)]) throws -> HTTPAnswer {
    let body = (fields + [("csrf", csrf)])
      .map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
      .joined(separator: "&")
    return try http(
      port, target, method: "POST",
      headers: [cookie, ("Origin", "http://127.0.0.1:\(port)"), ("Content-Type", "application/x-www-form-urlencoded")],
      body: Data(body.utf8))
  }
}

/// A client of `GET /events` over a socket of its own: the answer's head, then the stream read as it comes.
final class EventStreamClient {
  private let socketFD: Int32
  private var received = Data()
  private var ended = false
  private(set) var head = ""
  private(set) var status = 0

  init(port: Int, headers: [(String, String)]) throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      throw POSIXError(.ECONNREFUSED)
    }
    socketFD = fd
    var request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    request += "\r\n"
    _ = Data(request.utf8).withUnsafeBytes { send(socketFD, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    let deadline = Date().addingTimeInterval(30)
    var split: Range<Data.Index>?
    while split == nil, Date() < deadline, !ended {
      read(until: deadline)
      split = received.range(of: Data("\r\n\r\n".utf8))
    }
    guard let split else { throw POSIXError(.EBADMSG) }
    head = String(decoding: received[..<split.lowerBound], as: UTF8.self)
    status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
    received = Data(received[split.upperBound...])
  }

  deinit { close(socketFD) }

  /// What arrived after the head so far (chunk sizes included: the stream is chunked).
  var text: String { String(decoding: received, as: UTF8.self) }

  /// Reads until `needle` has arrived or `seconds` have passed; whether it arrived.
  func waitFor(_ needle: String, seconds: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !text.contains(needle) {
      guard Date() < deadline, !ended else { return false }
      read(until: deadline)
    }
    return true
  }

  /// Reads until the server closes the connection or `seconds` pass; whether it closed.
  func waitForEnd(seconds: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !ended && Date() < deadline { read(until: deadline) }
    return ended
  }

  private func read(until deadline: Date) {
    var poller = pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0)
    let remaining = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
    guard remaining > 0, poll(&poller, 1, remaining) > 0 else { return }
    var buffer = [UInt8](repeating: 0, count: 65536)
    let count = recv(socketFD, &buffer, buffer.count, 0)
    if count <= 0 {
      ended = true
    } else {
      received.append(contentsOf: buffer[0..<count])
    }
  }
}

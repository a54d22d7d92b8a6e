import Foundation
import NBTestSupport
import XCTest

/// `nb serve --tls-cert --tls-key` end to end: certificates made by the openssl CLI, the built nb serving HTTPS on
/// 127.0.0.1, and Python's ssl module (OpenSSL, verifying the chain and the address against the test's certificate
/// only) as the browser.
final class ServeTLSTests: NBCLITestCase {
  func testHTTPSServesThePagesWithASecureCookieAndPlainHTTPGetsNone() throws {
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work", "--content", "The quarterly plan.")
    let tls = try makeCertificate("ec")
    let server = try ServeProcess(
      self, ["serve", "--port", "0", "--json", "--tls-cert", tls.certificate.path, "--tls-key", tls.key.path],
      scheme: "https")
    defer { server.stop() }
    let port = server.port

    // The printed URL's token becomes the session cookie, Secure so that no plain-HTTP request ever carries it.
    let welcome = try https(port, "/?token=\(server.token)", trusting: tls.certificate)
    XCTAssertEqual(welcome.status, 303, welcome.body)
    XCTAssertEqual(
      welcome.header("Set-Cookie"), "nb_token_\(port)=\(server.token); Path=/; HttpOnly; SameSite=Strict; Secure")
    XCTAssertNil(welcome.header("Strict-Transport-Security"), "it would lock out plain-HTTP servers on this host")
    let cookie = ("Cookie", "nb_token_\(port)=\(server.token)")
    let home = try https(port, "/", headers: [cookie], trusting: tls.certificate)
    XCTAssertEqual(home.status, 200, home.body)
    XCTAssertTrue(home.body.contains(#"href="/note/work/roadmap.md">Roadmap</a>"#), home.body)
    let note = try https(port, "/note/work/roadmap.md", headers: [cookie], trusting: tls.certificate)
    XCTAssertTrue(note.body.contains("The quarterly plan."), note.body)

    // A form of this server's pages posts with Origin https://…; an http:// origin is another origin.
    let start = try XCTUnwrap(home.body.range(of: #"name="csrf" value=""#)).upperBound
    let csrf = String(home.body[start...].prefix { $0 != "\"" })
    let form = ("Content-Type", "application/x-www-form-urlencoded")
    let commits = try commitCount()
    let plainOrigin = try https(
      port, "/capture", method: "POST", headers: [cookie, form, ("Origin", "http://127.0.0.1:\(port)")],
      body: "text=from+elsewhere&csrf=\(csrf)", trusting: tls.certificate)
    XCTAssertEqual(plainOrigin.status, 403, plainOrigin.body)
    XCTAssertEqual(try commitCount(), commits)
    let captured = try https(
      port, "/capture", method: "POST", headers: [cookie, form, ("Origin", "https://127.0.0.1:\(port)")],
      body: "text=call+the+dentist&csrf=\(csrf)", trusting: tls.certificate)
    XCTAssertEqual(captured.status, 303, captured.body)
    XCTAssertEqual(try commitCount(), commits + 1)
    XCTAssertTrue(FileManager.default.fileExists(atPath: url("inbox/call-the-dentist.md").path))

    // TLS 1.2 and 1.3; 1.0 and 1.1 (deprecated, RFC 8996) are refused by the server.
    XCTAssertEqual(
      try https(port, "/", headers: [cookie], trusting: tls.certificate, tlsAtMost: "TLSv1_2").status, 200)
    XCTAssertThrowsError(try https(port, "/", headers: [cookie], trusting: tls.certificate, tlsAtMost: "TLSv1_1")) {
      XCTAssertTrue("\($0)".contains("TLSV1_ALERT_PROTOCOL_VERSION"), "\($0)")
    }
    // The certificate is the one given: a client trusting only the system's authorities refuses it.
    XCTAssertThrowsError(try https(port, "/", headers: [cookie], trusting: nil)) { error in
      XCTAssertTrue("\(error)".contains("CERTIFICATE_VERIFY_FAILED"), "\(error)")
    }
    // Plain HTTP to the HTTPS port: the handshake fails and no page comes back.
    if let plain = try? http(port, "/", headers: [cookie]) {
      XCTAssertNotEqual(plain.status, 200)
      XCTAssertFalse(plain.body.contains("Roadmap"), plain.body)
    }
    XCTAssertEqual(try https(port, "/", headers: [cookie], trusting: tls.certificate).status, 200, "still serving")
    server.stop()
    XCTAssertEqual(try server.wait().status, 0)

    // The address printed for a person is https:// too.
    let human = try ServeProcess(
      self, ["serve", "--port", "0", "--tls-cert", tls.certificate.path, "--tls-key", tls.key.path], json: false)
    defer { human.stop() }
    XCTAssertTrue(human.firstLine.hasPrefix("https://127.0.0.1:\(human.port)/?token="), human.firstLine)
    XCTAssertEqual(
      try https(human.port, "/", headers: [("X-NB-Token", human.token)], trusting: tls.certificate).status, 200)
  }

  func testOtherDevicesSignInOverHTTPSWithoutTheUnencryptedWarning() throws {
    try makeRepository()
    XCTAssertEqual(
      try nb("serve", "--set-password", "--password-iterations", "1000", stdin: "open sesame\n").status, 0)

    // Without TLS: the warning, naming the options that encrypt.
    let plain = try ServeProcess(self, ["serve", "--listen", "0.0.0.0:0", "--json"])
    plain.stop()
    let plainErrors = try plain.wait().stderr
    XCTAssertTrue(
      plainErrors.contains(
        "warning: traffic to 0.0.0.0:0 is not encrypted: anyone on the network can read the notes and the password "
          + "as they pass. Use it on a network you trust, or serve HTTPS with --tls-cert FILE --tls-key FILE (a "
          + "certificate the other devices trust, and its key).\n"), plainErrors)

    // With TLS: no such warning, and the sign-in works over HTTPS from this server's https:// origin only.
    let tls = try makeCertificate("rsa")
    let server = try ServeProcess(
      self,
      ["serve", "--listen", "0.0.0.0:0", "--json", "--tls-cert", tls.certificate.path, "--tls-key", tls.key.path],
      scheme: "https")
    defer { server.stop() }
    let port = server.port
    let form = ("Content-Type", "application/x-www-form-urlencoded")
    let page = try https(port, "/", trusting: tls.certificate)
    XCTAssertEqual(page.status, 303)
    XCTAssertEqual(page.header("Location"), "/login")
    let fromHTTP = try https(
      port, "/login", method: "POST", headers: [form, ("Origin", "http://127.0.0.1:\(port)")],
      body: "password=open+sesame", trusting: tls.certificate)
    XCTAssertEqual(fromHTTP.status, 403, fromHTTP.body)
    let signedIn = try https(
      port, "/login", method: "POST", headers: [form, ("Origin", "https://127.0.0.1:\(port)")],
      body: "password=open+sesame", trusting: tls.certificate)
    XCTAssertEqual(signedIn.status, 303, signedIn.body)
    XCTAssertEqual(
      signedIn.header("Set-Cookie"), "nb_token_\(port)=\(server.token); Path=/; HttpOnly; SameSite=Strict; Secure")
    let home = try https(
      port, "/", headers: [("Cookie", "nb_token_\(port)=\(server.token)")], trusting: tls.certificate)
    XCTAssertEqual(home.status, 200, home.body)
    server.stop()
    let errors = try server.wait().stderr
    XCTAssertFalse(errors.contains("not encrypted"), errors)
    XCTAssertFalse(errors.contains("warning"), errors)
  }

  func testBadCertificatesAndKeysAreOneLineErrorsAndNothingListens() throws {
    try makeRepository()
    let tls = try makeCertificate("good")
    let other = try makeCertificate("other")
    let garbage = temp.file("tls/garbage.pem")
    try Data("not a certificate\n".utf8).write(to: garbage)
    let encrypted = temp.file("tls/encrypted.key")
    _ = try ProcessRunner.run(
      "openssl",
      arguments: [
        "pkey", "-in", tls.key.path, "-out", encrypted.path, "-aes256", "-passout", "pass:secret",
      ], environment: git.environment)
    let missing = temp.file("tls/missing.pem").path
    let directory = temp.file("tls").path
    let (certificate, key) = (tls.certificate.path, tls.key.path)

    let cases: [(arguments: [String], error: String)] = [
      (["--tls-cert", certificate], "--tls-cert needs --tls-key: the certificate's private key (a PEM file)"),
      (["--tls-key", key], "--tls-key needs --tls-cert: the certificate it is the key of (a PEM file)"),
      (
        ["--tls-cert", missing, "--tls-key", key],
        "--tls-cert \(missing): cannot read it (No such file or directory); give the path of a PEM file"
      ),
      (
        ["--tls-cert", certificate, "--tls-key", missing],
        "--tls-key \(missing): cannot read it (No such file or directory); give the path of a PEM file"
      ),
      (
        ["--tls-cert", directory, "--tls-key", key],
        "--tls-cert \(directory): cannot read it (Is a directory); give the path of a PEM file"
      ),
      (
        ["--tls-cert", garbage.path, "--tls-key", key],
        "--tls-cert \(garbage.path) holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the server's "
          + "certificate, e.g. one made by mkcert or 'openssl req -x509'"
      ),
      (
        // The key where the certificate belongs: a PEM file, but no certificate in it.
        ["--tls-cert", key, "--tls-key", key],
        "--tls-cert \(key) holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the server's "
          + "certificate, e.g. one made by mkcert or 'openssl req -x509'"
      ),
      (
        ["--tls-cert", certificate, "--tls-key", garbage.path],
        "--tls-key \(garbage.path) holds no PEM private key (-----BEGIN PRIVATE KEY-----); give the key the "
          + "certificate was made with"
      ),
      (
        ["--tls-cert", certificate, "--tls-key", certificate],
        "--tls-key \(certificate) holds no PEM private key (-----BEGIN PRIVATE KEY-----); give the key the "
          + "certificate was made with"
      ),
      (
        // Another certificate's key.
        ["--tls-cert", certificate, "--tls-key", other.key.path],
        "--tls-key \(other.key.path) is not the key of the certificate in --tls-cert \(certificate); give the key "
          + "the certificate was made with"
      ),
      (
        ["--tls-cert", certificate, "--tls-key", encrypted.path],
        "--tls-key \(encrypted.path) is protected by a passphrase, which nb serve cannot ask for; write it "
          + "without one: openssl pkey -in \(encrypted.path) -out KEY.pem"
      ),
    ]
    let commits = try commitCount()
    for (arguments, error) in cases {
      let result = try nb(arguments: ["serve", "--port", "0", "--json"] + arguments, timeout: 30)
      XCTAssertEqual(result.status, 1, "\(arguments)")
      XCTAssertEqual(result.stderr, "Error: \(error)\n", "\(arguments)")
      XCTAssertEqual(result.stdout, "", "never listened: \(arguments)")
    }
    // Checked before the password too: a bad file is what is reported, and nothing is printed of a server.
    let listen = try nb(
      "serve", "--listen", "0.0.0.0:0", "--tls-cert", garbage.path, "--tls-key", key, timeout: 30)
    XCTAssertEqual(listen.status, 1)
    XCTAssertTrue(listen.stderr.hasPrefix("Error: --tls-cert \(garbage.path) holds no PEM certificate"), listen.stderr)
    XCTAssertEqual(listen.stderr.split(separator: "\n").count, 1, listen.stderr)
    XCTAssertEqual(try commitCount(), commits)
    XCTAssertEqual(try git.statusPorcelain(), "", "nothing changed")

    // One file holding both the certificate and the key serves.
    let both = temp.file("tls/both.pem")
    try (try Data(contentsOf: tls.certificate) + Data(contentsOf: tls.key)).write(to: both)
    let server = try ServeProcess(
      self, ["serve", "--port", "0", "--json", "--tls-cert", both.path, "--tls-key", both.path], scheme: "https")
    defer { server.stop() }
    XCTAssertEqual(
      try https(server.port, "/", headers: [("X-NB-Token", server.token)], trusting: tls.certificate).status, 200)
  }

  func testACertificateOutsideItsDatesIsServedWithAWarning() throws {
    try makeRepository()
    for (start, end, warning, refusal) in [
      (
        "20200101000000Z", "20200102000000Z", "expired on 2020-01-02 (UTC): browsers will refuse it; make a new one",
        "certificate has expired"
      ),
      (
        "20990101000000Z", "20990102000000Z",
        "is valid only from 2099-01-01 (UTC): browsers will refuse it until then; is this machine's clock right?",
        "certificate is not yet valid"
      ),
    ] {
      let tls = try makeCertificate(start, from: start, to: end)
      let server = try ServeProcess(
        self, ["serve", "--port", "0", "--json", "--tls-cert", tls.certificate.path, "--tls-key", tls.key.path],
        scheme: "https")
      defer { server.stop() }
      // What the warning says: a client checking the dates refuses it.
      XCTAssertThrowsError(try https(server.port, "/", trusting: tls.certificate)) { error in
        XCTAssertTrue("\(error)".contains(refusal), "\(error)")
      }
      server.stop()
      let errors = try server.wait().stderr
      XCTAssertEqual(errors, "warning: the certificate in --tls-cert \(tls.certificate.path) \(warning)\n")
    }
  }

  // MARK: - Helpers

  /// A self-signed certificate for 127.0.0.1 and localhost and its unencrypted key, made by the openssl CLI: an
  /// RSA key for "rsa", else P-256. With `from` and `to` (openssl's YYYYMMDDHHMMSSZ), valid only between them
  /// (`openssl ca`, since `req -x509` cannot date a certificate in the past).
  private func makeCertificate(
    _ name: String, from start: String? = nil, to end: String? = nil
  ) throws -> (certificate: URL, key: URL) {
    let directory = try temp.directory("tls/\(name)")
    let certificate = directory.appendingPathComponent("cert.pem")
    let key = directory.appendingPathComponent("key.pem")
    let algorithm = name == "rsa" ? ["-newkey", "rsa:2048"] : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
    let subject = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
    func openssl(_ arguments: [String]) throws {
      let result = try ProcessRunner.run(
        "openssl", arguments: arguments, environment: git.environment, currentDirectory: directory)
      XCTAssertEqual(result.status, 0, "openssl \(arguments): \(result.stderr)")
    }
    guard let start, let end else {
      try openssl(
        ["req", "-x509"] + algorithm + ["-nodes", "-keyout", key.path, "-out", certificate.path, "-days", "2"]
          + subject)
      return (certificate, key)
    }
    try openssl(["req", "-new"] + algorithm + ["-nodes", "-keyout", key.path, "-out", "request.pem"] + subject)
    try Data().write(to: directory.appendingPathComponent("index.txt"))
    try Data("01\n".utf8).write(to: directory.appendingPathComponent("serial"))
    let configuration = """
      [ca]
      default_ca = dated
      [dated]
      database = index.txt
      new_certs_dir = .
      serial = serial
      default_md = sha256
      policy = any
      copy_extensions = copy
      [any]
      commonName = supplied
      """
    try Data(configuration.utf8).write(to: directory.appendingPathComponent("ca.cnf"))
    try openssl([
      "ca", "-selfsign", "-batch", "-notext", "-config", "ca.cnf", "-keyfile", key.path, "-in", "request.pem",
      "-startdate", start, "-enddate", end, "-out", certificate.path,
    ])
    return (certificate, key)
  }

  /// Refused by the client (a handshake or a certificate it does not accept): Python's error line.
  private struct HTTPSFailed: Error, CustomStringConvertible {
    var description: String
  }

  /// One HTTPS request to 127.0.0.1:`port` by Python's http.client over its ssl module, verifying the server's
  /// certificate against `certificate` alone (nil: the system's authorities), the address included. `tlsAtMost`
  /// (`TLSv1_1`, …) caps the version offered, with every version and cipher of the client enabled down to TLS 1.0,
  /// so that a refusal is the server's.
  private func https(
    _ port: Int, _ target: String, method: String = "GET", headers: [(String, String)] = [], body: String = "",
    trusting certificate: URL?, tlsAtMost: String = ""
  ) throws -> HTTPAnswer {
    let script = """
      import http.client, json, ssl, sys, warnings
      port, cafile, method, target, headers, most = sys.argv[1:7]
      context = ssl.create_default_context(cafile=cafile or None)
      if most:
          warnings.simplefilter("ignore", DeprecationWarning)
          context.minimum_version = ssl.TLSVersion.TLSv1
          context.maximum_version = getattr(ssl.TLSVersion, most)
          context.set_ciphers("DEFAULT:@SECLEVEL=0")
      body = sys.stdin.buffer.read()
      connection = http.client.HTTPSConnection("127.0.0.1", int(port), context=context, timeout=30)
      try:
          connection.request(method, target, body=body if body else None, headers=dict(json.loads(headers)))
          response = connection.getresponse()
      except (ssl.SSLError, OSError) as error:
          sys.exit(f"{type(error).__name__}: {error}")
      print(json.dumps({
          "status": response.status,
          "headers": response.getheaders(),
          "body": response.read().decode("utf-8", "replace"),
      }))
      """
    let fields = try JSONSerialization.data(withJSONObject: headers.map { [$0.0, $0.1] })
    let result = try ProcessRunner.run(
      URL(fileURLWithPath: "/usr/bin/python3"),
      arguments: [
        "-c", script, "\(port)", certificate?.path ?? "", method, target, String(decoding: fields, as: UTF8.self),
        tlsAtMost,
      ], stdin: Data(body.utf8), timeout: 60)
    guard result.status == 0 else { throw HTTPSFailed(description: result.stderr) }
    struct Answer: Decodable {
      var status: Int
      var headers: [[String]]
      var body: String
    }
    let answer = try JSONDecoder().decode(Answer.self, from: Data(result.stdout.utf8))
    return HTTPAnswer(
      status: answer.status, headers: answer.headers.map { (name: $0[0], value: $0[1]) }, body: answer.body)
  }
}

import Foundation
import NBTestSupport
import XCTest

/// `nb sync` over https to a server on 127.0.0.1 whose certificate is signed by no CA the system trusts: refused
/// unless git's own settings name the certificate (`GIT_SSL_CAINFO`, `http.sslCAInfo`), as the git CLI does. nb
/// parses the CA certificates only when a TLS connection needs them (Sources/CLibGit2/DeferredCertificates.c):
/// these syncs are the proof that the deferred certificates are the ones verified against.
final class SyncTLSTests: NBCLITestCase {
  private var server: GitHTTPServer?

  override func tearDownWithError() throws {
    server?.stop()
    try super.tearDownWithError()
  }

  func testHTTPSTrustsOnlyTheSystemsOrGitsConfiguredCertificates() throws {
    try XCTSkipUnless(GitHTTPServer.isAvailable, "python3 is needed for the HTTP test server")
    try makeRepository()
    let certificate = temp.file("tls/server.pem")
    let key = temp.file("tls/server.key")
    try FileManager.default.createDirectory(
      at: certificate.deletingLastPathComponent(), withIntermediateDirectories: true)
    _ = try ProcessRunner.run(
      "openssl",
      arguments: [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", certificate.path, "-days", "2",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=DNS:127.0.0.1,IP:127.0.0.1",
      ], environment: git.environment)
    let serverRoot = try temp.directory("served")
    let bare = serverRoot.appendingPathComponent("notes.git")
    _ = try git.run("init", "-q", "--bare", "--initial-branch=main", bare.path)
    server = try GitHTTPServer(
      basePath: serverRoot, environment: git.environment, tls: (certificate: certificate, key: key))
    let url = try XCTUnwrap(server?.url("notes.git"))
    XCTAssertTrue(url.hasPrefix("https://"), url)

    try nbSucceeds("add", "Roadmap", "--content", "First draft")
    try nbSucceeds("remote", "add", "origin", url)

    // The system's CAs do not include the test certificate: refused, nothing pushed.
    let refused = try nb("sync")
    XCTAssertNotEqual(refused.status, 0, refused.stdout)
    XCTAssertTrue(
      refused.stderr.contains("did not verify") && refused.stderr.contains("http.sslCAInfo"), refused.stderr)
    XCTAssertThrowsError(try git.run("--git-dir", bare.path, "rev-parse", "--verify", "-q", "main"))

    // GIT_SSL_CAINFO names it: the push lands, as the git CLI shows on the server's side.
    try nbSucceeds("sync", env: ["GIT_SSL_CAINFO": certificate.path])
    XCTAssertEqual(
      try git.run("--git-dir", bare.path, "rev-parse", "main"), try git.run("rev-parse", "HEAD"))

    // So does http.sslCAInfo in the repository's config, without the variable.
    _ = try git.run("config", "http.sslCAInfo", certificate.path)
    try nbSucceeds("add", "Standup", "--content", "Second")
    try nbSucceeds("sync")
    XCTAssertEqual(
      try git.run("--git-dir", bare.path, "rev-parse", "main"), try git.run("rev-parse", "HEAD"))

    // A location that cannot be read is named, not reported as a certificate that failed to verify.
    let missing = temp.file("tls/missing.pem").path
    try nbSucceeds("add", "Third", "--content", "3")
    let unreadable = try nb("sync", env: ["GIT_SSL_CAINFO": missing])
    XCTAssertNotEqual(unreadable.status, 0)
    XCTAssertTrue(unreadable.stderr.contains(missing), unreadable.stderr)
  }

  /// Where libgit2 uses mbedTLS (Debian's), its call that parses the CA bundle binds to nb's own definition, which
  /// defers the parse: a command that opens no https remote never reads the bundle.
  func testLibGit2sCertificateParseBindsToNbsDeferral() throws {
    #if !os(Linux)
      throw XCTSkip("LD_DEBUG is glibc's")
    #endif
    try makeRepository()
    // Without the commit settings `nb init` kept, the add commits through libgit2, which then loads.
    try FileManager.default.removeItem(at: root.appendingPathComponent(".git/nb/cache/commit-settings"))
    let result = try nb(arguments: ["add", "Roadmap", "--content", "x"], env: ["LD_DEBUG": "bindings"])
    XCTAssertEqual(result.status, 0, String(result.stderr.suffix(2000)))
    let bindings = result.stderr.split(separator: "\n").filter { $0.contains("`mbedtls_x509_crt_parse_file'") }
    try XCTSkipIf(bindings.isEmpty, "this libgit2 does not use mbedTLS")
    let fromLibGit2 = bindings.filter { $0.contains("binding file") && $0.contains("libgit2") }
    XCTAssertFalse(fromLibGit2.isEmpty, bindings.joined(separator: "\n"))
    for line in fromLibGit2 {
      XCTAssertTrue(line.contains("to \(runner.binary.path)"), "libgit2 binds to mbedTLS itself: \(line)")
    }
  }
}

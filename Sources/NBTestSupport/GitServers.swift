import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a test server could not be started.
public struct GitServerError: Error, CustomStringConvertible {
  /// What went wrong, with the server's stderr when there is some.
  public var description: String
}

/// Local TCP helpers for test servers bound to 127.0.0.1.
public enum LocalPort {
  /// A port that was free a moment ago (the kernel picks it; there is a small window before the server binds).
  public static func free() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw GitServerError(description: "socket() failed: \(errno)") }
    defer { close(fd) }
    var address = loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw GitServerError(description: "bind() failed: \(errno)") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else { throw GitServerError(description: "getsockname() failed: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// True when something accepts TCP connections on 127.0.0.1:`port`.
  public static func isListening(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = loopback(port: port)
    let rc = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    return rc == 0
  }

  /// Polls until `port` accepts connections or `timeout` passes.
  public static func waitUntilListening(_ port: Int, process: LaunchedProcess, timeout: TimeInterval = 15) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if isListening(port) { return }
      if kill(process.pid, 0) != 0 {
        let result = try? process.wait(timeout: 1)
        throw GitServerError(description: "server exited before listening: \(result?.stderr ?? "")")
      }
      usleep(20_000)
    }
    process.terminate(SIGKILL)
    throw GitServerError(description: "nothing listening on 127.0.0.1:\(port) after \(timeout)s")
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}

/// `git daemon` serving every repository below `basePath` on 127.0.0.1 with push enabled, stopped on `stop()` or
/// deinit. Repositories are addressed as `git://127.0.0.1:<port>/<name>`.
public final class GitDaemon {
  /// The port the daemon listens on.
  public let port: Int
  /// The directory repositories are served from.
  public let basePath: URL
  private let process: LaunchedProcess
  private var stopped = false

  /// Starts the daemon and waits until it accepts connections.
  public init(basePath: URL, environment: [String: String]) throws {
    self.basePath = basePath
    port = try LocalPort.free()
    // The daemon binary itself, not `git daemon`: the git wrapper would leave the real daemon running when killed.
    let execPath = try ProcessRunner.run("git", arguments: ["--exec-path"], environment: environment)
      .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    process = try ProcessRunner.launch(
      URL(fileURLWithPath: execPath).appendingPathComponent("git-daemon"),
      arguments: [
        "--export-all", "--enable=receive-pack", "--reuseaddr", "--informative-errors",
        "--base-path=\(basePath.path)", "--listen=127.0.0.1", "--port=\(port)", basePath.path,
      ], environment: environment)
    try LocalPort.waitUntilListening(port, process: process)
  }

  /// `git://127.0.0.1:<port>/<name>`.
  public func url(_ name: String) -> String { "git://127.0.0.1:\(port)/\(name)" }

  /// Stops the daemon (idempotent).
  public func stop() {
    guard !stopped else { return }
    stopped = true
    process.terminate(SIGTERM)
    _ = try? process.wait(timeout: 10)
  }

  deinit { stop() }
}

/// Smart HTTP: `git http-backend` behind a small python3 HTTP server on 127.0.0.1 that de-chunks request bodies
/// (libgit2 sends push bodies with `Transfer-Encoding: chunked`, which plain CGI cannot pass on). Repositories
/// below `basePath` are `http://127.0.0.1:<port>/<name>`; push is allowed without authentication.
public final class GitHTTPServer {
  /// The port the server listens on.
  public let port: Int
  private let process: LaunchedProcess
  private var stopped = false

  /// True when python3 is on PATH (the server needs it).
  public static var isAvailable: Bool { (try? ProcessRunner.resolve("python3")) != nil }

  /// Whether the server speaks TLS (`https://`).
  public let tls: Bool

  /// Starts the server and waits until it accepts connections; with `basicAuth` (user, password) every request
  /// without exactly those credentials gets a 401; with `tls` (PEM certificate and key files) it serves https.
  public init(
    basePath: URL, environment: [String: String], basicAuth: (String, String)? = nil,
    tls: (certificate: URL, key: URL)? = nil
  ) throws {
    port = try LocalPort.free()
    self.tls = tls != nil
    let execPath = try ProcessRunner.run("git", arguments: ["--exec-path"], environment: environment)
      .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    var env = environment
    env["GIT_PROJECT_ROOT"] = basePath.path
    env["GIT_HTTP_EXPORT_ALL"] = "1"
    if let (user, password) = basicAuth { env["NB_HTTP_AUTH"] = Data("\(user):\(password)".utf8).base64EncodedString() }
    env["NB_HTTP_BACKEND"] = URL(fileURLWithPath: execPath).appendingPathComponent("git-http-backend").path
    if let tls {
      env["NB_HTTP_TLS_CERT"] = tls.certificate.path
      env["NB_HTTP_TLS_KEY"] = tls.key.path
    }
    process = try ProcessRunner.launch(
      "python3", arguments: ["-c", Self.script, String(port)], environment: env)
    try LocalPort.waitUntilListening(port, process: process)
  }

  /// `http://127.0.0.1:<port>/<name>` (`https://` with TLS).
  public func url(_ name: String) -> String { "\(tls ? "https" : "http")://127.0.0.1:\(port)/\(name)" }

  /// Stops the server (idempotent).
  public func stop() {
    guard !stopped else { return }
    stopped = true
    process.terminate(SIGTERM)
    _ = try? process.wait(timeout: 10)
  }

  deinit { stop() }

  /// The server: one thread per request, the body read whole (chunked or not), then handed to http-backend with
  /// CONTENT_LENGTH set and its CGI headers turned into an HTTP response. REMOTE_USER is set because http-backend
  /// refuses receive-pack to anonymous users unless http.receivepack is configured.
  static let script = #"""
    import http.server, os, socketserver, subprocess, sys

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def log_message(self, *args):
            pass
        def body(self):
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                data = b""
                while True:
                    size = int(self.rfile.readline().strip().split(b";")[0], 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        return data
                    data += self.rfile.read(size)
                    self.rfile.readline()
            return self.rfile.read(int(self.headers.get("Content-Length", "0")))
        def run(self):
            data = self.body() if self.command == "POST" else b""
            auth = os.environ.get("NB_HTTP_AUTH")
            if auth and self.headers.get("Authorization") != "Basic " + auth:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="nb-test"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path, _, query = self.path.partition("?")
            env = dict(os.environ)
            env.update({
                "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(data)),
                "REMOTE_USER": "test", "REMOTE_ADDR": "127.0.0.1", "GATEWAY_INTERFACE": "CGI/1.1",
                "SERVER_PROTOCOL": "HTTP/1.1",
            })
            if self.headers.get("Content-Encoding"):
                env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
            if self.headers.get("Git-Protocol"):
                env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
            out = subprocess.run([os.environ["NB_HTTP_BACKEND"]], input=data, env=env, capture_output=True).stdout
            head, _, payload = out.partition(b"\r\n\r\n")
            if not _:
                head, _, payload = out.partition(b"\n\n")
            status, headers = 200, []
            for line in head.decode("latin-1").splitlines():
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.strip().split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        do_GET = run
        do_POST = run

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    server = Server(("127.0.0.1", int(sys.argv[1])), Handler)
    if os.environ.get("NB_HTTP_TLS_CERT"):
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.environ["NB_HTTP_TLS_CERT"], os.environ["NB_HTTP_TLS_KEY"])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()
    """#
}

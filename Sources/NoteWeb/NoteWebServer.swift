import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NoteStore
import ServiceLifecycle

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `nb serve`'s HTTP server: Hummingbird on a loopback address, handing every request to a ``NoteWebApp``; HTTPS
/// with a ``TLSIdentity``.
public enum NoteWebServer {
  /// How to serve.
  public struct Configuration: Sendable {
    /// The address to bind: 127.0.0.1 unless told otherwise.
    public var host = "127.0.0.1"
    /// The port; 0 lets the system choose one.
    public var port = 8642
    /// The session token the printed URL carries.
    public var token = WebSecurity.randomToken()
    /// Whether every write answers 403.
    public var readOnly = false
    /// The largest request body accepted, in bytes.
    public var bodyLimit = 20 << 20
    /// Open connections at most; more wait until one closes, so one client cannot starve the others of file
    /// descriptors.
    public var maxConnections = 256
    /// How long a connection may stay silent (a slow or vanished client) before it is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// The password other devices sign in with; required (``serve(_:configuration:onListening:)`` refuses to start
    /// without one) when ``host`` is not a loopback address.
    public var password: PasswordHash?
    /// The certificate and key to answer HTTPS with; nil answers plain HTTP.
    public var tls: TLSIdentity?

    /// The defaults.
    public init() {}
  }

  /// Where the server listens, once it does.
  public struct Listening: Sendable {
    /// The bound port (the system's choice for port 0).
    public var port: Int
    /// The URL to open (`https://` with ``Configuration/tls``): the address with the session token, which the first
    /// request trades for a cookie.
    public var url: String
    /// The session token.
    public var token: String
  }

  /// Why the server could not start.
  public enum Failure: Error, CustomStringConvertible {
    /// Another process listens on the port.
    case portInUse(Int)
    /// The address cannot be bound (not this machine's, no permission, …).
    case cannotBind(String, Int, String)
    /// The address reaches other devices and no password is set.
    case noPassword(String)

    /// One line for a person.
    public var description: String {
      switch self {
      case .portInUse(let port):
        "port \(port) is in use by another program; choose another with --port N (0: any free port)"
      case .cannotBind(let host, let port, let detail):
        "cannot listen on \(host):\(port): \(detail)"
      case .noPassword(let address):
        "--listen \(address) lets other devices in: set a password first with 'nb serve --set-password' (kept on "
          + "this device only, never synced)"
      }
    }
  }

  /// Serves `repository` until SIGINT or SIGTERM, then returns once open requests are answered. `onListening` is
  /// called once the socket is bound, before any request can know the port.
  ///
  /// Requests are answered one at a time on a queue of their own: the repository is not thread-safe, and the
  /// index answers a page in milliseconds.
  /// - Throws: ``Failure`` when the address cannot be bound.
  public static func serve(
    _ repository: NoteRepository, configuration: Configuration,
    onListening: @escaping @Sendable (Listening) -> Void
  ) async throws {
    guard isLoopback(configuration.host) || configuration.password != nil else {
      throw Failure.noPassword(address(configuration.host, configuration.port))
    }
    // Every open page's live updates: the repository's files watched from now on, whoever changes them. Without
    // a feed (the root cannot be watched) pages still work; they just do not refresh on their own. The feed keeps the
    // change journal too (unless `nb watch` already does), so a page's query checks only what changed instead of
    // walking every note's stat data (a quarter of a second per page at 100 000 notes).
    let live = LiveUpdates()
    // Pages made are answered again until a file changes; without a watcher nothing would say so, so nothing is kept.
    let cache = PageCache()
    let watching = (try? live.listen(to: repository.root, journalFor: repository) { cache.invalidate() }) != nil
    defer { live.finishAll() }
    let gate = Gate(repository: repository, configuration: configuration, live: live, cache: watching ? cache : nil)
    let responder = CallbackResponder<ClientContext> { request, context in
      await gate.respond(to: request, client: context.client)
    }
    var logger = Logger(label: "nb serve")
    logger.logLevel = .critical
    let idle = configuration.idleTimeout.components
    let http1 = HTTPServerBuilder.http1(
      configuration: HTTP1Channel.Configuration(
        idleTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)))
    // HTTP/1.1 inside TLS: a plain-HTTP request to this port fails the handshake and gets no page.
    let server = try configuration.tls.map { try HTTPServerBuilder.tls(http1, tlsConfiguration: $0.configuration) }
    let scheme = configuration.tls == nil ? "http" : "https"
    let application = Application(
      responder: responder,
      server: server ?? http1,
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: nil, reuseAddress: true,
        availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)),
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? configuration.port
        gate.start(port: port)
        // An address of every interface is no address to open: this machine reaches itself at 127.0.0.1.
        let shown = isUnspecified(configuration.host) ? "127.0.0.1" : configuration.host
        onListening(
          Listening(
            port: port, url: "\(scheme)://\(address(shown, port))/?token=\(configuration.token)",
            token: configuration.token)
        )
      },
      logger: logger)
    do {
      try await application.runService()
    } catch let error as IOError {
      if error.errnoCode == EADDRINUSE { throw Failure.portInUse(configuration.port) }
      throw Failure.cannotBind(configuration.host, configuration.port, "\(error)")
    }
  }

  /// Whether `host` (an IP address or `localhost`) is this machine only: 127.0.0.0/8, ::1, localhost.
  public static func isLoopback(_ host: String) -> Bool {
    let host = host.lowercased()
    if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
    var address = in_addr()
    return inet_pton(AF_INET, host, &address) == 1 && UInt32(bigEndian: address.s_addr) >> 24 == 127
  }

  /// Whether `host` is every interface's address (`0.0.0.0`, `::`).
  static func isUnspecified(_ host: String) -> Bool { host == "0.0.0.0" || host == "::" }

  /// `HOST:PORT` of `--listen` (an IPv6 address in brackets: `[::]:8642`), nil when it is not one.
  public static func listenAddress(_ text: String) -> (host: String, port: Int)? {
    let host: Substring
    let portText: Substring
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
      host = text[text.index(after: text.startIndex)..<close]
      portText = text[text.index(close, offsetBy: 2)...]
    } else {
      guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
      host = text[..<colon]
      portText = text[text.index(after: colon)...]
    }
    guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }), let port = Int(portText),
      (0...65535).contains(port), portText.allSatisfy(\.isASCII)
    else { return nil }
    return (String(host), port)
  }

  /// `host:port`, an IPv6 address in brackets.
  static func address(_ host: String, _ port: Int) -> String {
    (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
  }

  /// The names a browser on another device may reach this server by: the address listened on, or for every
  /// interface, each interface's address and the host's name (and its `.local` name).
  static func names(listeningOn host: String) -> [String] {
    guard isUnspecified(host) else { return [host.lowercased()] }
    var names: [String] = []
    var list: UnsafeMutablePointer<ifaddrs>?
    if getifaddrs(&list) == 0 {
      var entry = list
      while let current = entry {
        if let socketAddress = current.pointee.ifa_addr {
          var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
          let family = Int32(socketAddress.pointee.sa_family)
          let length = family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
          if family == AF_INET || family == AF_INET6,
            getnameinfo(socketAddress, socklen_t(length), &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0
          {
            let name = String(cString: text)
            // A link-local IPv6 address carries its interface (`%eth0`), which no Host header does.
            names.append(String(name.prefix { $0 != "%" }).lowercased())
          }
        }
        entry = current.pointee.ifa_next
      }
      freeifaddrs(list)
    }
    var hostName = [CChar](repeating: 0, count: 256)
    if gethostname(&hostName, hostName.count) == 0 {
      let name = String(cString: hostName).lowercased()
      if !name.isEmpty { names += [name, name + ".local"] }
    }
    var unique: [String] = []
    for name in names where !unique.contains(name) && !isLoopback(name) { unique.append(name) }
    return unique
  }

  /// Hummingbird's request context with the client's address, which failed sign-ins are counted by.
  struct ClientContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let client: String?

    init(source: ApplicationRequestContextSource) {
      coreContext = .init(source: source)
      client = source.channel.remoteAddress?.ipAddress
    }
  }

  /// The app, behind the one queue every request is answered on.
  private final class Gate: @unchecked Sendable {
    private let queue = DispatchQueue(label: "nb.serve.app")
    private let repository: NoteRepository
    private let configuration: Configuration
    private let live: LiveUpdates
    private let cache: PageCache?
    /// Set on `queue` once the port is known; read only there.
    private var app: NoteWebApp?

    init(repository: NoteRepository, configuration: Configuration, live: LiveUpdates, cache: PageCache?) {
      self.repository = repository
      self.configuration = configuration
      self.live = live
      self.cache = cache
    }

    func start(port: Int) {
      queue.sync {
        var security = WebSecurity(
          port: port, token: configuration.token, readOnly: configuration.readOnly,
          bodyLimit: configuration.bodyLimit)
        security.secure = configuration.tls != nil
        if !NoteWebServer.isLoopback(configuration.host) {
          security.otherHosts = NoteWebServer.names(listeningOn: configuration.host)
          security.passwordLogin = configuration.password.map { PasswordLogin(hash: $0) }
        } else if !["127.0.0.1", "localhost"].contains(configuration.host.lowercased()) {
          // Another loopback address (127.0.0.2, ::1): the printed URL names it.
          security.otherHosts = [configuration.host.lowercased()]
        }
        let app = NoteWebApp(repository: repository, security: security)
        app.pageCache = cache
        self.app = app
      }
    }

    func respond(to request: Request, client: String?) async -> Response {
      var request = request
      var headers = request.headers.map { (name: $0.name.rawName, value: $0.value) }
      // HTTP/1's Host header arrives as the request's authority.
      if let authority = request.head.authority { headers.insert(("Host", authority), at: 0) }
      var body = Data()
      let limit = configuration.bodyLimit
      let declared = request.headers[.contentLength].flatMap { Int($0) } ?? 0
      var oversized = declared > limit
      if !oversized {
        do {
          body = Data(try await request.collectBody(upTo: limit).readableBytesView)
        } catch {
          oversized = true
        }
      }
      let tooLarge = oversized
      let message = WebRequest(
        method: request.method.rawValue, target: request.head.path ?? "/", headers: headers, body: body,
        client: client)
      let answer: WebResponse = await withCheckedContinuation { continuation in
        queue.async { [self] in
          guard let app else {
            continuation.resume(returning: .text("Starting", status: 503))
            return
          }
          // An oversized body is refused before the app reads any of it, with the headers every answer carries.
          continuation.resume(
            returning: tooLarge
              ? app.security.finish(.text("Request body larger than \(limit) bytes", status: 413))
              : app.respond(to: message))
        }
      }
      var fields = HTTPFields()
      for (name, value) in answer.headers {
        if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
      }
      if tooLarge { fields[.connection] = "close" }
      if let file = answer.file {
        let length = answer.header("Content-Length").flatMap { Int($0) } ?? 0
        fields[.contentLength] = nil
        // Read a piece at a time, so a large attachment never sits in memory whole; at most the length announced.
        let body = ResponseBody(contentLength: length) { writer in
          let handle = try FileHandle(forReadingFrom: file)
          defer { try? handle.close() }
          var left = length
          while left > 0, let piece = try handle.read(upToCount: min(left, 1 << 16)), !piece.isEmpty {
            try await writer.write(ByteBuffer(bytes: piece))
            left -= piece.count
          }
          try await writer.finish(nil)
        }
        return Response(status: HTTPResponse.Status(code: answer.status), headers: fields, body: body)
      }
      guard answer.isEventStream else {
        return Response(
          status: HTTPResponse.Status(code: answer.status), headers: fields,
          body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
      }
      let live = self.live
      // Written until the page goes away (a write fails, the task is cancelled) or the server stops: a graceful
      // shutdown waits for open responses, so it ends this one.
      let stream = ResponseBody { writer in
        let (id, events) = live.subscribe()
        defer { live.unsubscribe(id) }
        try await withGracefulShutdownHandler {
          for await text in events { try await writer.write(ByteBuffer(string: text)) }
        } onGracefulShutdown: {
          live.unsubscribe(id)
        }
        try await writer.finish(nil)
      }
      return Response(status: .ok, headers: fields, body: stream)
    }
  }
}

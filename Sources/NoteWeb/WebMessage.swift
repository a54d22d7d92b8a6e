import Foundation

/// An HTTP request as the web app sees it: no server library's types, so the app's rules run and are tested
/// without a socket.
public struct WebRequest: Sendable {
  /// `GET`, `POST`, … as sent.
  public var method: String
  /// The request target as sent: the path, still percent-encoded, and the query after `?`.
  public var target: String
  /// Header fields in order; names compare case-insensitively.
  public var headers: [(name: String, value: String)]
  /// The body's bytes (empty for none).
  public var body: Data
  /// The client's address as the socket saw it (`192.168.1.20`), nil when unknown: what failed sign-ins are
  /// counted by.
  public var client: String?

  /// A request.
  public init(
    method: String, target: String, headers: [(name: String, value: String)] = [], body: Data = Data(),
    client: String? = nil
  ) {
    self.method = method
    self.target = target
    self.headers = headers
    self.body = body
    self.client = client
  }

  /// The first value of header `name` (any case), nil when absent.
  public func header(_ name: String) -> String? {
    headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
  }

  /// The path part of the target, still percent-encoded.
  public var path: Substring {
    target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
  }

  /// The query part of the target (after `?`), nil when there is none.
  public var query: Substring? {
    target.firstIndex(of: "?").map { target[target.index(after: $0)...] }
  }

  /// The query's parameters, decoded (`+` is a space), in order; a malformed pair is left out.
  public var queryItems: [(name: String, value: String)] { Self.formItems(query ?? "") }

  /// The first value of query parameter `name`.
  public func queryValue(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }

  /// The fields of an `application/x-www-form-urlencoded` body (what an HTML form sends by default); empty for any
  /// other body.
  public var formItems: [(name: String, value: String)] {
    guard header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else { return [] }
    return Self.formItems(Substring(decoding: body, as: UTF8.self))
  }

  /// The first value of form field `name`.
  public func formValue(_ name: String) -> String? { formItems.first { $0.name == name }?.value }

  /// The pairs of `application/x-www-form-urlencoded` text (a query, a form's body).
  static func formItems(_ text: Substring) -> [(name: String, value: String)] {
    text.split(separator: "&").compactMap { pair in
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = WebPath.percentDecoded(parts[0], plusIsSpace: true),
        let value = WebPath.percentDecoded(parts.count > 1 ? parts[1] : "", plusIsSpace: true)
      else { return nil }
      return (name, value)
    }
  }
}

/// An HTTP response from the web app.
public struct WebResponse: Sendable {
  /// The status code.
  public var status: Int
  /// Header fields in order.
  public var headers: [(name: String, value: String)]
  /// The body's bytes.
  public var body: Data
  /// Whether the body is the repository's live event stream (Server-Sent Events, ``LiveUpdates``), which the
  /// server writes after these headers for as long as the page stays open; `body` is then empty.
  public var isEventStream = false
  /// A file whose first `Content-Length` bytes the server streams after these headers (an attachment), read in
  /// pieces rather than held in memory; `body` is then empty.
  public var file: URL?

  /// A response.
  public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The first value of header `name` (any case).
  public func header(_ name: String) -> String? {
    headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
  }

  /// An HTML page.
  static func html(_ text: String, status: Int = 200) -> WebResponse {
    WebResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(text.utf8))
  }

  /// A plain-text answer, for errors a page template could not be trusted to render.
  static func text(_ text: String, status: Int) -> WebResponse {
    WebResponse(
      status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data((text + "\n").utf8))
  }

  /// The headers of the live event stream; the server writes its events.
  static func eventStream() -> WebResponse {
    var response = WebResponse(status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8")])
    response.isEventStream = true
    return response
  }

  /// A `303 See Other` to `location` (a path on this server).
  static func redirect(_ location: String) -> WebResponse {
    WebResponse(status: 303, headers: [("Location", location)])
  }
}

import Foundation

@testable import NoteWeb

/// Requests as a browser that loaded a page of `app` makes them (port 8642, token "t", CSRF token "c"): a GET with
/// the token, a form POST with the cookie, the origin and the form's CSRF field.
struct PageRequests {
  let app: NoteWebApp

  func get(_ target: String) -> (status: Int, html: String) {
    let response = app.respond(
      to: WebRequest(method: "GET", target: target, headers: [("Host", "127.0.0.1:8642"), ("X-NB-Token", "t")]))
    return (response.status, String(decoding: response.body, as: UTF8.self))
  }

  func post(_ target: String, _ fields: [(String, String)]) -> (status: Int, html: String, location: String?) {
    let body = (fields + [("csrf", "c")]).map { "\(WebPath.queryValue($0.0))=\(WebPath.queryValue($0.1))" }
      .joined(separator: "&")
    let response = app.respond(
      to: WebRequest(
        method: "POST", target: target,
        headers: [
          ("Host", "127.0.0.1:8642"), ("Cookie", "nb_token_8642=t"), ("Origin", "http://127.0.0.1:8642"),
          ("Content-Type", "application/x-www-form-urlencoded"),
        ], body: Data(body.utf8)))
    return (response.status, String(decoding: response.body, as: UTF8.self), response.header("Location"))
  }
}

import Foundation
import XCTest

@testable import NoteWeb

/// The compiled-in copy of templates/web and the escaping rule every template keeps.
final class WebTemplatesTests: XCTestCase {
  private let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("templates/web")

  func testCompiledCopyMatchesTheFiles() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    XCTAssertEqual(WebTemplates.all.keys.sorted(), files, "run .ci/gen-templates")
    for file in files {
      let onDisk = try Data(contentsOf: directory.appendingPathComponent(file))
      XCTAssertEqual(Data((WebTemplates.all[file] ?? "").utf8), onDisk, "\(file) differs: run .ci/gen-templates")
    }
  }

  /// Stencil does not escape: a `{{ value }}` without `|e` would put a note's text into the page as HTML.
  func testEveryVariableIsEscapedUnlessItIsNbsOwnHTML() throws {
    let variable = try NSRegularExpression(pattern: #"\{\{(.*?)\}\}"#)
    var checked = 0
    for (name, text) in WebTemplates.all where name.hasSuffix(".html") {
      let range = NSRange(text.startIndex..., in: text)
      for match in variable.matches(in: text, range: range) {
        let inside = (text as NSString).substring(with: match.range(at: 1)).trimmingCharacters(in: .whitespaces)
        checked += 1
        if inside.hasSuffix("|e") { continue }
        let name = inside.split(separator: ".").last.map(String.init) ?? inside
        XCTAssertTrue(name.hasSuffix("_html") && !inside.contains("|"), "\(name): {{ \(inside) }} is not escaped")
      }
    }
    XCTAssertGreaterThan(checked, 20)
  }

  func testEscapeFilter() throws {
    let pages = WebPages()
    let html = try pages.render(
      "error.html",
      ["status": 404, "heading": "<script>alert(1)</script>", "message": "a & \"b\" 'c' <d>", "root_name": "x"])
    XCTAssertTrue(html.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>"), html)
    XCTAssertTrue(html.contains("<p>a &amp; &quot;b&quot; &#39;c&#39; &lt;d&gt;</p>"), html)
    XCTAssertEqual(HTML.escape("plain"), "plain")
  }
}

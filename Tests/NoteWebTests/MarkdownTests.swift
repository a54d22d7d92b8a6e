import NoteWeb
import XCTest

/// cmark-gfm through the lazy loader: GitHub's extensions on, raw HTML and dangerous URLs off.
final class MarkdownTests: XCTestCase {
  func testRendersCommonMarkAndGitHubExtensions() throws {
    XCTAssertEqual(try Markdown.html("# Hi\n\n*x*"), "<h1>Hi</h1>\n<p><em>x</em></p>\n")
    let table = try Markdown.html("| a | b |\n|---|---|\n| 1 | 2 |\n")
    XCTAssertTrue(table.contains("<table>") && table.contains("<td>1</td>"), table)
    XCTAssertTrue(try Markdown.html("~~gone~~").contains("<del>gone</del>"))
    XCTAssertTrue(try Markdown.html("see https://example.org now").contains(#"<a href="https://example.org">"#))
    let tasks = try Markdown.html("- [x] done\n- [ ] open\n")
    XCTAssertTrue(tasks.contains(#"type="checkbox" checked="" disabled="""#), tasks)
    XCTAssertTrue(Markdown.isLoaded)
  }

  func testRawHTMLIsNeverPassedThrough() throws {
    for attack in [
      "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "a <b onmouseover=alert(1)>b</b>",
      "<iframe src=\"https://example.org\"></iframe>", "<svg onload=alert(1)>", "<style>body{}</style>",
    ] {
      let html = try Markdown.html(attack)
      XCTAssertFalse(html.contains("<script"), html)
      XCTAssertFalse(html.contains("<img"), html)
      XCTAssertFalse(html.contains("<b "), html)
      XCTAssertFalse(html.contains("<iframe"), html)
      XCTAssertFalse(html.contains("<svg"), html)
      XCTAssertFalse(html.contains("<style"), html)
    }
  }

  func testRawHTMLIsShownAsText() throws {
    // A block: a code block of exactly its bytes, so a person's pasted markup reads as they wrote it.
    XCTAssertEqual(
      try Markdown.html("<div class=\"x\">\n<script>alert(1)</script>\n</div>\n\nafter"),
      "<pre><code>&lt;div class=&quot;x&quot;&gt;\n&lt;script&gt;alert(1)&lt;/script&gt;\n&lt;/div&gt;\n</code></pre>\n"
        + "<p>after</p>\n")
    // Inline: text in its paragraph.
    XCTAssertEqual(
      try Markdown.html("press <kbd>Ctrl</kbd> and <img src=x onerror=alert(1)> *now*"),
      "<p>press &lt;kbd&gt;Ctrl&lt;/kbd&gt; and &lt;img src=x onerror=alert(1)&gt; <em>now</em></p>\n")
    // Inside a list item and a table cell, as elsewhere.
    let list = try Markdown.html("- a <b>bold</b>\n- <script>x</script>\n")
    XCTAssertTrue(list.contains("<li>a &lt;b&gt;bold&lt;/b&gt;</li>"), list)
    XCTAssertFalse(list.contains("<script"), list)
    let cell = try Markdown.html("| a |\n|---|\n| <i>x</i> |\n")
    XCTAssertTrue(cell.contains("<td>&lt;i&gt;x&lt;/i&gt;</td>"), cell)
    // Code spans and blocks were text already and stay as they were.
    XCTAssertEqual(try Markdown.html("`<b>`"), "<p><code>&lt;b&gt;</code></p>\n")
  }

  func testDangerousURLsLoseTheirAddress() throws {
    for (markdown, scheme) in [
      ("[x](javascript:alert(1))", "javascript:"), ("[x](JaVaScRiPt:alert(1))", "javascript:"),
      ("![x](javascript:alert(1))", "javascript:"), ("[x](vbscript:msgbox)", "vbscript:"),
      ("[x](data:text/html;base64,PHNjcmlwdD4=)", "data:text/html"), ("<javascript:alert(1)>", "javascript:"),
      ("[x]: javascript:alert(1)\n\n[y][x]", "javascript:"),
    ] {
      let html = try Markdown.html(markdown).lowercased()
      XCTAssertFalse(html.contains("href=\"\(scheme)"), "\(markdown) -> \(html)")
      XCTAssertFalse(html.contains("src=\"\(scheme)"), "\(markdown) -> \(html)")
    }
    // An image as data: stays (cmark-gfm allows png, gif, jpeg and webp).
    XCTAssertTrue(try Markdown.html("![x](data:image/png;base64,AAAA)").contains("src=\"data:image/png"))
  }

  func testTextIsEscaped() throws {
    XCTAssertEqual(try Markdown.html("a < b & \"c\""), "<p>a &lt; b &amp; &quot;c&quot;</p>\n")
  }
}

import Foundation
import XCTest

@testable import NoteStore

/// A new note from the built-in `note` template skips Stencil: what it writes must be what Stencil renders.
final class ContentOnlyTemplateTests: XCTestCase {
  private let library = TemplateLibrary(userDirectory: nil)

  private func context(_ content: String) -> TemplateContext {
    TemplateContext(
      title: "T", id: "0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b", notebook: "", slug: "t", content: content,
      now: Date(timeIntervalSince1970: 1_795_338_421))
  }

  func testTheBuiltInNoteTemplateTakesThePlainPath() throws {
    XCTAssertEqual(try library.source(of: "note"), TemplateLibrary.contentOnlySource)
    XCTAssertNotNil(TemplateLibrary.contentOnlyRendering(source: try library.source(of: "note"), content: "x"))
  }

  /// Stencil (through `render`, which never takes the plain path) is the oracle, on texts made to look like
  /// template syntax, Unicode, line endings and nothing at all.
  func testPlainRenderingIsStencils() throws {
    let pieces = [
      "", "a", " ", "\n", "\r\n", "\t", "{{ title }}", "{% if x %}", "{#", "#}", "}}", "{{", "%}", "\\", "\"", "'",
      "é", "日本語", "🙂", "---", "# Heading", "- [ ] task", "`code`", "\u{0}", "\u{FEFF}", "$Id$", "<b>",
    ]
    var generator = SystemRandomNumberGenerator()
    var contents = pieces
    for _ in 0..<400 {
      let count = Int.random(in: 1...8, using: &generator)
      contents.append((0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined())
    }
    let source = try library.source(of: "note")
    for content in contents {
      let stencil = try library.render("note", context: context(content))
      XCTAssertEqual(
        TemplateLibrary.contentOnlyRendering(source: source, content: content), stencil, "content \(content.debugDescription)")
    }
  }

  func testAnyOtherTextGoesToStencil() {
    for source in ["{{content}}\n", "{{ content }}", "{{ content }}\n\n", "{{ content }}\r\n", " {{ content }}\n", ""] {
      XCTAssertNil(TemplateLibrary.contentOnlyRendering(source: source, content: "x"), source.debugDescription)
    }
  }
}

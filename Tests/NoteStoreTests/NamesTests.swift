import Foundation
import XCTest

@testable import NoteStore

final class NamesTests: XCTestCase {
  /// Asserts `body` throws `.invalid(kind, text, problem)` and that the message is one line naming the input, quoted
  /// as `quoted` (by default the text in double quotes; escapes are spelled out by hand where they apply).
  private func assertRejects<T>(
    _ kind: NameKind,
    _ text: String,
    _ problem: NameProblem,
    quoted: String? = nil,
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: () throws -> T
  ) {
    XCTAssertThrowsError(try body(), file: file, line: line) { error in
      guard let error = error as? NameError else {
        return XCTFail("not a NameError: \(error)", file: file, line: line)
      }
      XCTAssertEqual(error, .invalid(kind, text: text, problem: problem), file: file, line: line)
      let message = error.description
      let expected = quoted ?? "\"\(text)\""
      XCTAssertTrue(message.contains(expected), "message must quote \(expected): \(message)", file: file, line: line)
      XCTAssertTrue(message.hasPrefix(kind.rawValue + " "), message, file: file, line: line)
      XCTAssertFalse(
        message.contains(where: \.isNewline), "message must be one line: \(message)", file: file, line: line)
    }
  }

  // MARK: Titles

  func testTitleAcceptedAndTrimmed() throws {
    XCTAssertEqual(try Names.validateTitle("  Roadmap 2026  "), "Roadmap 2026")
    XCTAssertEqual(try Names.validateTitle("Café: plans & ideas?"), "Café: plans & ideas?")
    XCTAssertEqual(try Names.validateTitle(".profile notes"), ".profile notes")
    XCTAssertEqual(try Names.validateTitle("v1.2"), "v1.2")
    XCTAssertEqual(try Names.validateTitle("日本語"), "日本語")
  }

  func testTitleEmpty() {
    assertRejects(.title, "", .empty) { try Names.validateTitle("") }
    assertRejects(.title, "   ", .empty) { try Names.validateTitle("   ") }
    // NO-BREAK SPACE and IDEOGRAPHIC SPACE are spaces too.
    assertRejects(.title, "\u{A0}\u{3000}", .empty) { try Names.validateTitle("\u{A0}\u{3000}") }
  }

  func testTitleControlCharacters() {
    let cases: [(Unicode.Scalar, String)] = [
      ("\n", #"\n"#), ("\r", #"\r"#), ("\t", #"\t"#), ("\u{0}", #"\0"#), ("\u{1B}", #"\u{1B}"#),
      ("\u{7F}", #"\u{7F}"#), ("\u{85}", #"\u{85}"#), ("\u{2028}", #"\u{2028}"#), ("\u{2029}", #"\u{2029}"#),
    ]
    for (scalar, escaped) in cases {
      let title = "a\(scalar)b"
      assertRejects(.title, title, .controlCharacter(scalar), quoted: "\"a\(escaped)b\"") {
        try Names.validateTitle(title)
      }
    }
    let message = NameError.invalid(.title, text: "a\nb", problem: .controlCharacter("\n")).description
    XCTAssertTrue(message.contains("U+000A"), message)
  }

  func testTitleSeparators() {
    assertRejects(.title, "work/plan", .separator("/")) { try Names.validateTitle("work/plan") }
    assertRejects(.title, "a\\b", .separator("\\"), quoted: #""a\\b""#) { try Names.validateTitle("a\\b") }
  }

  func testTitleOnlyDots() {
    assertRejects(.title, ".", .onlyDots(component: ".")) { try Names.validateTitle(".") }
    assertRejects(.title, " ... ", .onlyDots(component: "...")) { try Names.validateTitle(" ... ") }
  }

  // MARK: Notebook paths

  func testNotebookAccepted() throws {
    XCTAssertEqual(try Names.validateNotebookPath("inbox"), "inbox")
    XCTAssertEqual(try Names.validateNotebookPath("work/projects"), "work/projects")
    XCTAssertEqual(try Names.validateNotebookPath("work/projects/"), "work/projects")
    XCTAssertEqual(try Names.validateNotebookPath("Café/日本"), "Café/日本")
    XCTAssertEqual(try Names.validateNotebookPath("a.b/c..d"), "a.b/c..d")
    XCTAssertEqual(try Names.validateNotebookPath("git/nb"), "git/nb")
  }

  func testNotebookRoot() throws {
    XCTAssertEqual(try Names.validateNotebookPath("", allowRoot: true), "")
    assertRejects(.notebook, "", .empty) { try Names.validateNotebookPath("") }
    // "/" alone is absolute, whether or not the root is allowed.
    assertRejects(.notebook, "/", .absolute) { try Names.validateNotebookPath("/", allowRoot: true) }
  }

  func testNotebookComponentRules() {
    assertRejects(.notebook, "work//projects", .emptyComponent) { try Names.validateNotebookPath("work//projects") }
    assertRejects(.notebook, "./work", .currentDirectory) { try Names.validateNotebookPath("./work") }
    assertRejects(.notebook, "work/..", .parentDirectory) { try Names.validateNotebookPath("work/..") }
    assertRejects(.notebook, "../outside", .parentDirectory) { try Names.validateNotebookPath("../outside") }
    assertRejects(.notebook, "work/...", .onlyDots(component: "...")) { try Names.validateNotebookPath("work/...") }
    assertRejects(.notebook, ".secret", .hidden(component: ".secret")) { try Names.validateNotebookPath(".secret") }
    assertRejects(.notebook, "a/.b/c", .hidden(component: ".b")) { try Names.validateNotebookPath("a/.b/c") }
    assertRejects(.notebook, "/etc", .absolute) { try Names.validateNotebookPath("/etc") }
    assertRejects(.notebook, "a\\b", .separator("\\"), quoted: #""a\\b""#) { try Names.validateNotebookPath("a\\b") }
    assertRejects(.notebook, "a\nb", .controlCharacter("\n"), quoted: #""a\nb""#) {
      try Names.validateNotebookPath("a\nb")
    }
    let long = String(repeating: "é", count: 128)  // 256 bytes
    assertRejects(.notebook, long, .componentTooLong(component: long)) { try Names.validateNotebookPath(long) }
    let longest = String(repeating: "a", count: 255)
    XCTAssertEqual(try Names.validateNotebookPath(longest), longest)
  }

  func testNotebookReservedInAnyCase() {
    for name in [".git", ".nb", ".GIT", ".Nb"] {
      assertRejects(.notebook, name, .reserved(component: name)) { try Names.validateNotebookPath(name) }
      let nested = "work/\(name)/x"
      assertRejects(.notebook, nested, .reserved(component: name)) { try Names.validateNotebookPath(nested) }
    }
  }

  // MARK: Relative file paths

  func testRelativePathNormalized() throws {
    XCTAssertEqual(try Names.validateRelativePath("work/roadmap.md"), "work/roadmap.md")
    XCTAssertEqual(try Names.validateRelativePath("./work//roadmap.md"), "work/roadmap.md")
    XCTAssertEqual(try Names.validateRelativePath("work/./projects/x.md"), "work/projects/x.md")
    XCTAssertEqual(try Names.validateRelativePath("roadmap.md"), "roadmap.md")
    XCTAssertEqual(try Names.validateRelativePath("work/"), "work")
  }

  func testRelativePathRejected() {
    assertRejects(.path, "", .empty) { try Names.validateRelativePath("") }
    assertRejects(.path, "./", .empty) { try Names.validateRelativePath("./") }
    assertRejects(.path, "../x.md", .parentDirectory) { try Names.validateRelativePath("../x.md") }
    assertRejects(.path, "a/../../x.md", .parentDirectory) { try Names.validateRelativePath("a/../../x.md") }
    assertRejects(.path, "/etc/passwd", .absolute) { try Names.validateRelativePath("/etc/passwd") }
    assertRejects(.path, ".git/config", .reserved(component: ".git")) { try Names.validateRelativePath(".git/config") }
    assertRejects(.path, ".nb/config.yaml", .reserved(component: ".nb")) {
      try Names.validateRelativePath(".nb/config.yaml")
    }
    assertRejects(.path, "work/.draft.md", .hidden(component: ".draft.md")) {
      try Names.validateRelativePath("work/.draft.md")
    }
    assertRejects(.path, "a/.../b.md", .onlyDots(component: "...")) { try Names.validateRelativePath("a/.../b.md") }
    assertRejects(.path, "a\\b.md", .separator("\\"), quoted: #""a\\b.md""#) {
      try Names.validateRelativePath("a\\b.md")
    }
    assertRejects(.path, "a\u{85}.md", .controlCharacter("\u{85}"), quoted: #""a\u{85}.md""#) {
      try Names.validateRelativePath("a\u{85}.md")
    }
  }
}

/// Titles are trimmed without Foundation's character sets: Foundation's `trimmingCharacters(in: .whitespaces)` is
/// the oracle, on every space separator and on look-alikes that are not whitespace.
final class TitleTrimmingTests: XCTestCase {
  func testTrimmingIsFoundations() {
    var pieces: [String] = ["a", "é", "e\u{0301}", "\u{0301}", "日", "🙂", "/", ".", "\n", "\r\n", "\u{0B}", "\u{0C}"]
    // Every space separator, tab, and what only looks like one: zero-width space and joiner, the Mongolian vowel
    // separator (a space separator in old Unicode), the byte order mark, line and paragraph separators.
    pieces += (0...0x3000).compactMap(Unicode.Scalar.init).filter { $0.properties.generalCategory == .spaceSeparator }
      .map { String($0) }
    pieces += ["\t", "\u{200B}", "\u{200D}", "\u{180E}", "\u{FEFF}", "\u{2028}", "\u{2029}", "\u{85}"]
    var generator = SystemRandomNumberGenerator()
    var texts = pieces + [""]
    for _ in 0..<5_000 {
      texts.append((0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined())
    }
    for text in texts {
      XCTAssertEqual(
        Names.trimmingWhitespace(text), text.trimmingCharacters(in: .whitespaces),
        "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }
  }
}

import Foundation
import XCTest

@testable import NoteStore

/// Recognising the block, reading it, error reporting, the body and its first heading.
final class FrontMatterReadTests: XCTestCase {
  func testNoFrontMatter() throws {
    let text = "# Heading\n\nBody text.\n"
    let metadata = try FrontMatter.read(text)
    XCTAssertFalse(metadata.hasFrontMatter)
    XCTAssertEqual(metadata.firstHeading, "Heading")
    XCTAssertEqual(FrontMatter.body(of: text), text[...])
    XCTAssertEqual(try FrontMatter.read(""), NoteMetadata())
  }

  func testFirstLineMustBeExactlyDashes() throws {
    for text in ["--- \ntitle: x\n---\n", "---\t\r\ntitle: x\r\n---\r\n"] {
      XCTAssertEqual(try FrontMatter.read(text).title, "x", text.debugDescription)
    }
    for text in [" ---\ntitle: x\n---\n", "----\ntitle: x\n---\n", "--- a\ntitle: x\n---\n", "\n---\ntitle: x\n---\n"] {
      let metadata = try FrontMatter.read(text)
      XCTAssertFalse(metadata.hasFrontMatter, text.debugDescription)
      XCTAssertNil(metadata.title)
    }
  }

  func testDotsTerminatorAndBody() throws {
    let text = "---\ntitle: Dots\n...\n# Body heading\ntext\n"
    let metadata = try FrontMatter.read(text)
    XCTAssertEqual(metadata.title, "Dots")
    XCTAssertEqual(metadata.firstHeading, "Body heading")
    XCTAssertEqual(FrontMatter.body(of: text), "# Body heading\ntext\n")
    // A closing line with trailing blanks still closes; a `...` does not open.
    XCTAssertEqual(FrontMatter.body(of: "---\na: 1\n---  \nbody"), "body")
    XCTAssertFalse(try FrontMatter.read("...\na: 1\n...\n").hasFrontMatter)
  }

  func testClosingDelimiterWithoutNewlineAtEndOfFile() throws {
    let text = "---\ntitle: Last\n---"
    XCTAssertEqual(try FrontMatter.read(text).title, "Last")
    XCTAssertEqual(FrontMatter.body(of: text), "")
  }

  func testEmptyBlocks() throws {
    for text in ["---\n---\n", "---\n---", "---\n\n---\nbody\n", "---\n# only a comment\n---\n"] {
      let metadata = try FrontMatter.read(text)
      XCTAssertTrue(metadata.hasFrontMatter, text.debugDescription)
      XCTAssertEqual(metadata, NoteMetadata(hasFrontMatter: true), text.debugDescription)
    }
  }

  func testUnterminated() {
    for text in ["---\ntitle: x\n", "---", "---\n", "\u{FEFF}---\ntitle: x\nbody\n", "---\r\ntitle: x\r\n-- \r\n"] {
      XCTAssertThrowsError(try FrontMatter.read(text), text.debugDescription) { error in
        XCTAssertEqual(error as? FrontMatterError, .unterminated(line: 1))
      }
      // body(of:) cannot throw: without a closed block everything is body.
      XCTAssertEqual(FrontMatter.body(of: text), text[...])
    }
  }

  func testBOM() throws {
    let text = "\u{FEFF}---\ntitle: With BOM\n---\n# H\n"
    let metadata = try FrontMatter.read(text)
    XCTAssertEqual(metadata.title, "With BOM")
    XCTAssertEqual(metadata.firstHeading, "H")
    XCTAssertEqual(FrontMatter.body(of: text), "# H\n")
    // A BOM before a body without front matter does not hide its heading.
    XCTAssertEqual(try FrontMatter.read("\u{FEFF}# Title\n").firstHeading, "Title")
  }

  func testCRLF() throws {
    let text = "---\r\ntitle: Windows\r\ntags:\r\n  - a\r\n  - b\r\n---\r\n# Head\r\nbody\r\n"
    let metadata = try FrontMatter.read(text)
    XCTAssertEqual(metadata.title, "Windows")
    XCTAssertEqual(metadata.tags, ["a", "b"])
    XCTAssertEqual(metadata.firstHeading, "Head")
    XCTAssertEqual(FrontMatter.body(of: text), "# Head\r\nbody\r\n")
  }

  func testTitlesQuotedAndUnquoted() throws {
    let cases: [(String, String)] = [
      ("title: Plain title", "Plain title"),
      ("title: \"Double: quoted # not a comment\"", "Double: quoted # not a comment"),
      ("title: 'It''s single'", "It's single"),
      ("title: \"Escapes \\t \\u00e9 \\\"q\\\"\"", "Escapes \t é \"q\""),
      ("title: Trailing comment # dropped", "Trailing comment"),
      ("title: >-\n  Folded\n  title", "Folded title"),
      ("title: |\n  Literal", "Literal"),
      ("title: Plain\n  continued", "Plain continued"),
      ("title: Ünïcödé 🎉", "Ünïcödé 🎉"),
      ("\"title\": Quoted key", "Quoted key"),
    ]
    for (yaml, expected) in cases {
      XCTAssertEqual(try FrontMatter.read("---\n\(yaml)\n---\n").title, expected, yaml)
    }
  }

  func testCommentsNestedMapsAndUnknownKeys() throws {
    let text = """
      ---
      # leading comment
      layout: post   # unknown key
      title: Mixed

      # comment between keys
      meta:
        author: { name: Ann, tags: [x] }
        list:
          - 1
          - two: 2
      tags: [real]
      ---
      """
    let metadata = try FrontMatter.read(text)
    XCTAssertEqual(metadata.title, "Mixed")
    XCTAssertEqual(metadata.tags, ["real"])
  }

  func testMalformedReportsFileLine() {
    let cases: [(String, Int)] = [
      // A bad indent on file line 5.
      ("---\ntitle: a\nid: b\nfoo: c\n  bar: d\n---\n", 5),
      // Unclosed flow list opened on line 3: `b` continues onto line 4, where `id: x` cannot be a list entry.
      ("---\ntitle: a\ntags: [a, b\nid: x\n---\n", 4),
      ("---\ntitle: \"unclosed\n---\n", 3),
      // A tab used as indentation on line 4.
      ("---\na:\n  b: 1\n\tc: 2\n---\n", 4),
      // With a BOM and CRLF the numbering is the same.
      ("\u{FEFF}---\r\ntitle: a\r\nid: b\r\nfoo: c\r\n  bar: d\r\n---\r\n", 5),
    ]
    for (text, line) in cases {
      XCTAssertThrowsError(try FrontMatter.read(text), text.debugDescription) { error in
        guard case .malformed(let reported, _, let message)? = error as? FrontMatterError else {
          return XCTFail("\(error)")
        }
        XCTAssertEqual(reported, line, "\(text.debugDescription): \(message)")
        XCTAssertFalse(message.isEmpty)
      }
    }
  }

  func testMalformedColumn() {
    XCTAssertThrowsError(try FrontMatter.read("---\ntitle: a\nid: b\nfoo: c\n  bar: d\n---\n")) { error in
      guard case .malformed(_, let column?, _)? = error as? FrontMatterError else { return XCTFail("\(error)") }
      // "  bar: d": the offending ':' is the 6th character.
      XCTAssertEqual(column, 6)
    }
  }

  func testDuplicateKeysAreAnError() {
    XCTAssertThrowsError(try FrontMatter.read("---\ntitle: a\nid: x\ntitle: b\n---\n")) { error in
      guard case .malformed(let line, _, let message)? = error as? FrontMatterError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(line, 2)
      XCTAssertTrue(message.contains("title"), message)
    }
  }

  /// Reading parses without Yams' typing resolver (FMParsed.parse(_:typingScalars:)): it must tell null and keys
  /// apart exactly as that resolver does.
  func testNullAndKeysAsTheTypingResolverReadsThem() throws {
    for value in ["", "~", "null", "Null", "NULL", "!!null", "!!null text"] {
      XCTAssertNil(try FrontMatter.read("---\ntitle: \(value)\n---\n").title, value)
    }
    for value in ["nULL", "'null'", "\"~\"", "!!str null", "nil", "None", "none"] {
      XCTAssertNotNil(try FrontMatter.read("---\ntitle: \(value)\n---\n").title, value)
    }
    for value in ["[~, null, a, \"null\"]", "\n  - ~\n  - a\n  - NULL\n  - 'null'"] {
      XCTAssertEqual(try FrontMatter.read("---\ntags: \(value)\n---\n").tags, ["a", "null"], value)
    }
    // Keys equal as text but typed apart (an int and a string, a bool and a string) are no duplicates to YAML.
    let text = "---\n1: a\n\"1\": b\ntrue: c\n'true': d\ntitle: Typed keys\n---\n"
    XCTAssertEqual(try FrontMatter.read(text).title, "Typed keys")
    XCTAssertEqual(try FrontMatter.readIndexed(text).fields.map(\.text), ["a", "c"])
    XCTAssertThrowsError(try FrontMatter.read("---\n'1': a\n\"1\": b\n---\n"))
  }

  func testNotAMapping() {
    let cases: [(String, Int)] = [("---\n- a\n- b\n---\n", 2), ("---\n# c\njust text\n---\n", 3)]
    for (text, line) in cases {
      XCTAssertThrowsError(try FrontMatter.read(text)) { error in
        XCTAssertEqual(error as? FrontMatterError, .notAMapping(line: line))
      }
    }
  }

  func testErrorDescriptionsNameTheLine() {
    XCTAssertTrue(FrontMatterError.malformed(line: 5, column: 3, message: "bad").description.contains("line 5"))
    XCTAssertTrue(FrontMatterError.unterminated(line: 1).description.contains("line 1"))
    XCTAssertTrue(FrontMatterError.notAMapping(line: 2).description.contains("line 2"))
  }

  func testFirstHeadingRules() throws {
    let cases: [(String, String?)] = [
      ("# Title\n", "Title"),
      ("   # Indented three\n", "Indented three"),
      ("    # Four spaces is code\n", nil),
      ("#NoSpace\n", nil),
      ("## Level two\n# Level one\n", "Level one"),
      ("# Closing hashes ##\n", "Closing hashes"),
      ("# C#\n", "C#"),
      ("#\n# After empty\n", "After empty"),
      ("#\t Tabbed  \n", "Tabbed"),
      ("text\n# After paragraph\n", "After paragraph"),
      ("```\n# in code\n```\n# Real\n", "Real"),
      ("~~~~\n# in code\n~~~\n# still code\n~~~~~\n# Real\n", "Real"),
      ("```swift\n# in code\n", nil),
      ("``` not `a fence`\n# Heading\n", "Heading"),
      ("  ```\n# code\n  ```  \n# After\n", "After"),
      ("# First\r\n# Second\r\n", "First"),
      ("no heading at all", nil),
    ]
    for (body, expected) in cases {
      XCTAssertEqual(try FrontMatter.read("---\na: 1\n---\n" + body).firstHeading, expected, body.debugDescription)
      XCTAssertEqual(try FrontMatter.read(body).firstHeading, expected, body.debugDescription)
    }
  }

  func testHeadingInsideFrontMatterIsNotTheBodyHeading() throws {
    XCTAssertNil(try FrontMatter.read("---\n# Not a heading\na: 1\n---\nbody\n").firstHeading)
  }
}

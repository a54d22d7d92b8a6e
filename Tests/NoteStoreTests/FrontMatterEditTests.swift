import Foundation
import XCTest

@testable import NoteStore

/// Hand-written edits: every expected output below was written by hand from the editing rule.
final class FrontMatterEditTests: XCTestCase {
  private let stamp = Timestamp(rfc3339: "2026-11-22T10:15:03+01:00")!

  func testReplacesOnlyTheKeyLine() throws {
    let text = """
      ---
      # keep me
      title:   Old title   # keep this comment
      updated: 2020-01-01T00:00:00Z
      'quoted': {a: 1}
      ---
      Body
      """
    let result = try FrontMatter.setting("title", to: "New", in: text)
    XCTAssertEqual(
      result,
      """
      ---
      # keep me
      title:   New   # keep this comment
      updated: 2020-01-01T00:00:00Z
      'quoted': {a: 1}
      ---
      Body
      """)
  }

  func testSettingUpdatedInPlaceAndAppended() throws {
    let present = "---\ntitle: T\nupdated: 2020-01-01T00:00:00Z\ntags: [a]\n---\nbody\n"
    XCTAssertEqual(
      try FrontMatter.settingUpdated(stamp, in: present),
      "---\ntitle: T\nupdated: 2026-11-22T10:15:03+01:00\ntags: [a]\n---\nbody\n")
    let absent = "---\ntitle: T\n# trailing comment\n---\nbody\n"
    XCTAssertEqual(
      try FrontMatter.settingUpdated(stamp, in: absent),
      "---\ntitle: T\n# trailing comment\nupdated: 2026-11-22T10:15:03+01:00\n---\nbody\n")
  }

  func testSettingUpdatedUsesTheAliasTheFileHas() throws {
    for alias in ["modified", "lastmod", "last_modified_at"] {
      let text = "---\n\(alias): 2020-01-01\ntitle: T\n---\n"
      XCTAssertEqual(
        try FrontMatter.settingUpdated(stamp, in: text), "---\n\(alias): 2026-11-22T10:15:03+01:00\ntitle: T\n---\n")
    }
    // `updated` wins over an alias when both exist.
    XCTAssertEqual(
      try FrontMatter.settingUpdated(stamp, in: "---\nlastmod: 2020-01-01\nupdated: 2021-01-01\n---\n"),
      "---\nlastmod: 2020-01-01\nupdated: 2026-11-22T10:15:03+01:00\n---\n")
  }

  func testSettingUpdatedKeepsQuoteStyle() throws {
    XCTAssertEqual(
      try FrontMatter.settingUpdated(stamp, in: "---\nupdated: \"2020-01-01\"\n---\n"),
      "---\nupdated: \"2026-11-22T10:15:03+01:00\"\n---\n")
    XCTAssertEqual(
      try FrontMatter.settingUpdated(stamp, in: "---\nupdated: '2020-01-01'\n---\n"),
      "---\nupdated: '2026-11-22T10:15:03+01:00'\n---\n")
  }

  func testIdGoesFirst() throws {
    let text = "---\ntitle: T\nupdated: 2020-01-01\n---\nbody\n"
    XCTAssertEqual(
      try FrontMatter.setting("id", to: "abc", in: text), "---\nid: abc\ntitle: T\nupdated: 2020-01-01\n---\nbody\n")
    XCTAssertEqual(try FrontMatter.setting("id", to: "abc", in: "---\n---\n"), "---\nid: abc\n---\n")
  }

  func testNoFrontMatterGetsAMinimalBlock() throws {
    XCTAssertEqual(
      try FrontMatter.setting("id", to: "abc", in: "# Title\nbody\n"), "---\nid: abc\n---\n# Title\nbody\n")
    XCTAssertEqual(
      try FrontMatter.setting("id", to: "abc", in: "# Title\r\nbody\r\n"),
      "---\r\nid: abc\r\n---\r\n# Title\r\nbody\r\n")
    XCTAssertEqual(
      try FrontMatter.settingUpdated(stamp, in: "\u{FEFF}Body"),
      "\u{FEFF}---\nupdated: 2026-11-22T10:15:03+01:00\n---\nBody")
    XCTAssertEqual(try FrontMatter.setting("id", to: "abc", in: ""), "---\nid: abc\n---\n")
    // Adding `updated` then `id` to a bare note (what committing an outside edit does).
    let once = try FrontMatter.settingUpdated(stamp, in: "text\r\n")
    XCTAssertEqual(
      try FrontMatter.setting("id", to: "abc", in: once),
      "---\r\nid: abc\r\nupdated: 2026-11-22T10:15:03+01:00\r\n---\r\ntext\r\n")
  }

  func testCRLFAndBOMArePreserved() throws {
    let text = "\u{FEFF}---\r\ntitle: T\r\ntags:\r\n  - a\r\n---\r\nbody\r\n"
    XCTAssertEqual(
      try FrontMatter.settingTags(["x", "z"], in: text),
      "\u{FEFF}---\r\ntitle: T\r\ntags:\r\n  - x\r\n  - z\r\n---\r\nbody\r\n")
    XCTAssertEqual(
      try FrontMatter.settingUpdated(stamp, in: text),
      "\u{FEFF}---\r\ntitle: T\r\ntags:\r\n  - a\r\nupdated: 2026-11-22T10:15:03+01:00\r\n---\r\nbody\r\n")
  }

  func testTagsBlockListKeepsItsStyle() throws {
    let flush = "---\ntags:\n- a\n- b\n# after\nnext: 1\n---\n"
    XCTAssertEqual(try FrontMatter.settingTags(["c"], in: flush), "---\ntags:\n- c\n# after\nnext: 1\n---\n")
    let wide = "---\ntags:    # my tags\n    -   a\n    # inner comment\n    -   b\nnext: 1\n---\n"
    XCTAssertEqual(
      try FrontMatter.settingTags(["c", "yes"], in: wide),
      "---\ntags:    # my tags\n    -   c\n    -   \"yes\"\nnext: 1\n---\n")
    // An empty list cannot be a block list.
    XCTAssertEqual(try FrontMatter.settingTags([], in: flush), "---\ntags: []\n# after\nnext: 1\n---\n")
  }

  func testTagsFlowAndStringFormsBecomeFlowLists() throws {
    XCTAssertEqual(
      try FrontMatter.settingTags(["a", "b c", "x,y"], in: "---\ntags: [old]  # c\n---\n"),
      "---\ntags: [a, b c, \"x,y\"]  # c\n---\n")
    XCTAssertEqual(try FrontMatter.settingTags(["a"], in: "---\ntags: old other\n---\n"), "---\ntags: [a]\n---\n")
    XCTAssertEqual(try FrontMatter.settingTags(["a"], in: "---\ntag: old\n---\n"), "---\ntag: [a]\n---\n")
    XCTAssertEqual(try FrontMatter.settingTags(["a"], in: "---\nkeywords: [k]\n---\n"), "---\nkeywords: [a]\n---\n")
    XCTAssertEqual(try FrontMatter.settingTags(["a"], in: "---\ntitle: T\n---\n"), "---\ntitle: T\ntags: [a]\n---\n")
    // A flow list spread over several lines is replaced as a whole.
    XCTAssertEqual(
      try FrontMatter.settingTags(["z"], in: "---\ntags: [a,\n  b, \"c]\"]\nnext: 1\n---\n"),
      "---\ntags: [z]\nnext: 1\n---\n")
  }

  func testMultiLineValuesAreReplacedWhole() throws {
    let text = """
      ---
      title: >
        A folded
        # not a comment, content

        title
      # a real comment
      other: "multi
      line # quoted"
      # comment after quoted
      last: plain
        continuation
      ---

      """
    XCTAssertEqual(
      try FrontMatter.setting("title", to: "Short", in: text),
      "---\ntitle: Short\n# a real comment\nother: \"multi\nline # quoted\"\n# comment after quoted\nlast: plain\n"
        + "  continuation\n---\n")
    XCTAssertEqual(
      try FrontMatter.setting("other", to: "x", in: text),
      "---\ntitle: >\n  A folded\n  # not a comment, content\n\n  title\n# a real comment\nother: x\n"
        + "# comment after quoted\nlast: plain\n  continuation\n---\n")
    XCTAssertEqual(
      try FrontMatter.setting("last", to: "y", in: text),
      "---\ntitle: >\n  A folded\n  # not a comment, content\n\n  title\n# a real comment\nother: \"multi\n"
        + "line # quoted\"\n# comment after quoted\nlast: y\n---\n")
  }

  func testNestedMappingsAreUntouched() throws {
    let text = "---\nmeta:\n  title: inner\n  tags: [inner]\ntitle: outer\n---\n"
    XCTAssertEqual(
      try FrontMatter.setting("title", to: "new", in: text),
      "---\nmeta:\n  title: inner\n  tags: [inner]\ntitle: new\n---\n")
    XCTAssertEqual(
      try FrontMatter.settingTags(["t"], in: text),
      "---\nmeta:\n  title: inner\n  tags: [inner]\ntitle: outer\ntags: [t]\n---\n")
    XCTAssertEqual(try FrontMatter.removing("meta", in: text), "---\ntitle: outer\n---\n")
  }

  func testRemoving() throws {
    let text = "---\nid: a\n# about tags\ntags:\n  - x\n  - y\n\ntitle: T\n---\nbody"
    XCTAssertEqual(try FrontMatter.removing("tags", in: text), "---\nid: a\n# about tags\n\ntitle: T\n---\nbody")
    XCTAssertEqual(
      try FrontMatter.removing("id", in: text), "---\n# about tags\ntags:\n  - x\n  - y\n\ntitle: T\n---\nbody")
    XCTAssertEqual(try FrontMatter.removing("missing", in: text), text)
    XCTAssertEqual(try FrontMatter.removing("id", in: "no front matter"), "no front matter")
    XCTAssertEqual(try FrontMatter.removing("title", in: "---\ntitle: T\n---\n"), "---\n---\n")
  }

  func testIndentedMappingGetsIndentedKey() throws {
    XCTAssertEqual(
      try FrontMatter.setting("title", to: "x", in: "---\n  a: 1\n  b: 2\n---\n"),
      "---\n  a: 1\n  b: 2\n  title: x\n---\n")
  }

  func testSettingQuotedKeyKeepsItsQuotes() throws {
    XCTAssertEqual(
      try FrontMatter.setting("title", to: "x", in: "---\n\"title\" : old\n---\n"), "---\n\"title\" : x\n---\n")
  }

  func testValuesFormattedByYAMLScalarReadBack() throws {
    let titles = ["yes", "a: b", "# hash", "  padded ", "line\nbreak", "2026-11-22", "quote \"q\"", "'single'", ""]
    for title in titles {
      let result = try FrontMatter.setting("title", to: YAMLScalar.format(title), in: "---\ntitle: old\nid: x\n---\n")
      let expectedTitle = title.trimmingCharacters(in: .whitespacesAndNewlines)
      XCTAssertEqual(try FrontMatter.read(result).title, expectedTitle.isEmpty ? nil : expectedTitle, title)
      XCTAssertEqual(try FrontMatter.read(result).id, "x")
    }
  }

  func testMultiLineValueArgument() throws {
    XCTAssertEqual(
      try FrontMatter.setting("list", to: "\n  - a\n  - b", in: "---\r\nx: 1\r\n---\r\n"),
      "---\r\nx: 1\r\nlist:\r\n  - a\r\n  - b\r\n---\r\n")
  }

  func testErrorsWhileEditing() {
    XCTAssertThrowsError(try FrontMatter.setting("id", to: "x", in: "---\ntitle: x\n")) { error in
      XCTAssertEqual(error as? FrontMatterError, .unterminated(line: 1))
    }
    XCTAssertThrowsError(try FrontMatter.settingUpdated(stamp, in: "---\na: 1\n  b: 2\n---\n")) { error in
      guard case .malformed(3, _, _)? = error as? FrontMatterError else { return XCTFail("\(error)") }
    }
    XCTAssertThrowsError(try FrontMatter.settingTags(["a"], in: "---\n- a\n---\n")) { error in
      XCTAssertEqual(error as? FrontMatterError, .notAMapping(line: 2))
    }
    XCTAssertThrowsError(try FrontMatter.setting("title", to: "x", in: "---\n{title: a, b: c}\n---\n")) { error in
      guard case .cannotEdit(key: "title", _, _)? = error as? FrontMatterError else { return XCTFail("\(error)") }
    }
    // A value that is not YAML is refused instead of breaking the block.
    XCTAssertThrowsError(try FrontMatter.setting("title", to: "[unclosed", in: "---\ntitle: a\n---\n")) { error in
      guard case .cannotEdit(key: "title", line: 2, _)? = error as? FrontMatterError else {
        return XCTFail("\(error)")
      }
    }
  }

  func testRemovalThatWouldChangeABlockScalarIsRefused() {
    // Without `draft`, the indented comment would become content of the literal scalar `cover`.
    let text = "---\ncover: |\n  line\ndraft: 10\n   # comment\n---\n"
    XCTAssertThrowsError(try FrontMatter.removing("draft", in: text)) { error in
      guard case .cannotEdit(key: "draft", line: 4, _)? = error as? FrontMatterError else {
        return XCTFail("\(error)")
      }
    }
  }

  func testInvalidValueIsRefusedWithoutFrontMatterToo() {
    XCTAssertThrowsError(try FrontMatter.setting("title", to: "a: b: c", in: "body\n")) { error in
      guard case .cannotEdit(key: "title", _, _)? = error as? FrontMatterError else { return XCTFail("\(error)") }
    }
  }

  func testEditingTwiceIsStable() throws {
    let text = "---\ntitle: T\nupdated: 2020-01-01\n---\n"
    let once = try FrontMatter.settingUpdated(stamp, in: text)
    XCTAssertEqual(try FrontMatter.settingUpdated(stamp, in: once), once)
  }
}

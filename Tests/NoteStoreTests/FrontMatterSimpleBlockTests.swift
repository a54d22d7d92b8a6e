import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// The YAML-free reading of simple front matter (``FMSimpleBlock``), with Yams as the oracle: wherever it answers,
/// the identity a sync matches notes by is the one Yams reads, and a block Yams refuses gets no answer from it.
final class FrontMatterSimpleBlockTests: XCTestCase {
  private func block(_ lines: [String], lineEnding: String = "\n") throws -> FMBlock {
    let text = (["---"] + lines + ["---", "body"]).joined(separator: lineEnding)
    guard case .block(let block) = FMLayout.scan(text) else { throw XCTSkip("not a block: \(text.debugDescription)") }
    return block
  }

  /// What nb writes is read without Yams, and read right.
  func testTheFrontMatterNbWritesIsReadWithoutYAML() throws {
    let lines = [
      "id: ef0277bd-2250-4b68-a2cd-0a64c27763de", "title: Note 1990 — the \"plan\", café",
      "created: 2026-11-22T10:15:03+01:00",
      "updated: 2026-11-22T10:15:04+01:00", "tags: [t40, bench, a-b.c/d]",
    ]
    XCTAssertNotNil(FMSimpleBlock.values(try block(lines).content))
    let identity = try FrontMatter.readIdentity((["---"] + lines + ["---", ""]).joined(separator: "\n"))
    XCTAssertEqual(identity.id, "ef0277bd-2250-4b68-a2cd-0a64c27763de")
    XCTAssertEqual(identity.updated, Timestamp(rfc3339: "2026-11-22T10:15:04+01:00"))
    // A title with ": " is quoted by nb; a bare one is YAML's error, which only Yams reports.
    XCTAssertNotNil(FMSimpleBlock.values(try block(["title: \"Note: a\""]).content))
    XCTAssertNil(FMSimpleBlock.values(try block(["title: Note: a"]).content))
    XCTAssertThrowsError(try FrontMatter.readIdentity("---\nid: a\ntitle: Note: a\n---\n"))
  }

  /// Random blocks of simple and tricky lines: where the simple reader answers, Yams agrees (and does not refuse
  /// the block); the simple forms are answered often enough for the comparison to mean something.
  func testWhereItAnswersYamsReadsTheSameIdentity() throws {
    var rng = SplitMix64(seed: 41)
    let keys = [
      "id", "id", "id", "updated", "updated", "updated", "modified", "lastmod", "title", "tags", "created", "x_y",
      "a-b", "Id", "1id", " id", "id ",
    ]
    let values = [
      "", "abc", "7f3c-uuid", "7f3c-uuid", "2026-11-22T10:15:03+01:00", "2026-11-22T10:15:05-02:30", "  padded  ",
      "null", "Null", "NULL", "~", "nul", "\"null\"", "'~'", "2026-11-22T10:15:03+01:00",
      "2026-11-22T10:15:03Z", "2026-13-40T99:99:99Z", "\"2026-11-22T10:15:03+01:00\"", "a: b", "a:b", "a:", "a #c",
      "a#c",
      "#c", "-a", "- a", "? a", ":a", "[a, b]", "[]", "[ ]", "[a, [b]]", "[a,]", "['a']", "[a b]", "{a: b}", "\"a\"",
      "'a'", "\"a\\\"b\"", "'it''s'", "\"a: b # c\"", "'unclosed", "\"unclosed", "&anchor a", "*alias", "!tag a",
      "|", ">", "%a", "@a", "`a`", "café", "a\u{00A0}b", "a\u{2028}b", "a\u{0085}b", "a\u{FEFF}b", "a\tb", "\"a\tb\"",
      "a  b", "a ", "a,b", "a]b", "a}b", "<<", "=", "yes", "1.5", "0x1F",
    ]
    var answered = 0
    var agreed = 0
    for round in 0..<5000 {
      var lines: [String] = []
      for _ in 0..<Int.random(in: 0...5, using: &rng) {
        switch Int.random(in: 0..<20, using: &rng) {
        case 0: lines.append("")
        case 1: lines.append("# a comment")
        case 2: lines.append("  - nested")
        case 3: lines.append("  indented: x")
        default:
          lines.append(keys.randomElement(using: &rng)! + ":" + " " + values.randomElement(using: &rng)!)
        }
      }
      let lineEnding = Bool.random(using: &rng) ? "\n" : "\r\n"
      let block = try block(lines, lineEnding: lineEnding)
      guard let simple = FMSimpleBlock.values(block.content) else { continue }
      answered += 1
      let context = "round \(round): \(lines.debugDescription)"
      let viaYAML: NoteIdentity
      do {
        viaYAML = try FrontMatter.identityThroughYAML(block)
      } catch {
        XCTFail("Yams refuses what the simple reader answered (\(simple)): \(error); \(context)")
        continue
      }
      let text = (["---"] + lines + ["---", "body"]).joined(separator: lineEnding)
      let quick = try FrontMatter.readIdentity(text)
      XCTAssertEqual(quick.id, viaYAML.id, context)
      XCTAssertEqual(quick.updated, viaYAML.updated, context)
      if quick.id != nil || quick.updated != nil { agreed += 1 }
    }
    XCTAssertGreaterThan(answered, 300, "the simple reader should answer the simple blocks")
    XCTAssertGreaterThan(agreed, 100, "and some of them should have an id or a time to compare")
  }
}

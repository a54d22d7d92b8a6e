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

  /// Every value the simple reader gives is the node Yams reads: a scalar's text and whether it is plain, a list's
  /// items.
  func testItsValuesAreTheNodesYamsReads() throws {
    var rng = SplitMix64(seed: 43)
    var compared = 0
    for round in 0..<4000 {
      let lines = randomLines(&rng)
      let block = try block(lines)
      guard let simple = FMSimpleBlock.values(block.content) else { continue }
      let parsed = try FMParsed.parse(block, typingScalars: false)
      let context = "round \(round): \(lines.debugDescription)"
      XCTAssertEqual(parsed.entries.map(\.key), simple.map(\.key), context)
      for (entry, (_, value)) in zip(parsed.entries, simple) {
        compared += 1
        switch (entry.value, value) {
        case (.scalar(let scalar), .scalar(let text, let plain)):
          XCTAssertEqual(scalar.string, text, context)
          XCTAssertEqual(scalar.style == .plain, plain, context)
        case (.sequence(let sequence), .list(let items)):
          XCTAssertEqual(sequence.map { $0.scalar?.string }, items, context)
          XCTAssertTrue(sequence.allSatisfy { $0.scalar?.style == .plain }, context)
        default:
          XCTFail("\(entry.value) read as \(value); \(context)")
        }
      }
    }
    XCTAssertGreaterThan(compared, 500)
  }

  /// A note read without Yams (metadata and index fields) reads as the same note with a comment line added to its
  /// block, which only Yams reads.
  func testANoteReadWithoutYAMLReadsAsYamsReadsIt() throws {
    var rng = SplitMix64(seed: 47)
    var simple = 0
    for round in 0..<3000 {
      let lines = randomLines(&rng)
      let body = "\n# Heading \(round)\n\ntext\n"
      let text = (["---"] + lines + ["---"]).joined(separator: "\n") + body
      let commented = (["---", "# only Yams reads this block"] + lines + ["---"]).joined(separator: "\n") + body
      guard case .block(let block) = FMLayout.scan(text), FMSimpleBlock.values(block.content) != nil else { continue }
      simple += 1
      let context = "round \(round): \(lines.debugDescription)"
      let viaYAML = try? FrontMatter.readIndexed(commented, withFields: true)
      let quick = try? FrontMatter.readIndexed(text, withFields: true)
      XCTAssertEqual(quick?.metadata, viaYAML?.metadata, context)
      XCTAssertEqual(quick?.fields, viaYAML?.fields, context)
      XCTAssertEqual(quick?.taskFields == nil, viaYAML?.taskFields == nil, context)
      XCTAssertEqual(try? FrontMatter.read(text), try? FrontMatter.read(commented), context)
    }
    XCTAssertGreaterThan(simple, 500)
  }

  /// Setting a key of a simple block without Yams writes what the general editor writes (a leading comment line,
  /// which makes the block Yams', is the only difference), or leaves it to the general editor.
  func testAnEditWithoutYAMLWritesWhatTheGeneralEditorWrites() throws {
    var rng = SplitMix64(seed: 53)
    let newValues = [
      "2026-11-30T01:02:03+01:00", "plain words", "a: b", "null", "", " padded ", "tab\tinside", "quote \" inside",
      "café", "#hash", "[not a list]", "- dash", "multi\nline",
    ]
    var edited = 0
    for round in 0..<3000 {
      let lines = randomLines(&rng)
      guard case .block(let block) = FMLayout.scan((["---"] + lines + ["---", ""]).joined(separator: "\n")),
        let simple = FMSimpleBlock.values(block.content), let key = simple.randomElement(using: &rng)?.key
      else { continue }
      let value = YAMLScalar.format(newValues.randomElement(using: &rng)!)
      let lineEnding = Bool.random(using: &rng) ? "\n" : "\r\n"
      let text = (["---"] + lines + ["---", "body"]).joined(separator: lineEnding)
      let commented = (["---", "# c"] + lines + ["---", "body"]).joined(separator: lineEnding)
      let context = "round \(round): \(key) = \(value) in \(lines.debugDescription)"
      let stamp = try XCTUnwrap(Timestamp(rfc3339: "2026-11-30T01:02:03+01:00"))
      let stamped = Result { try FrontMatter.settingUpdated(stamp, in: text) }
      let stampedInGeneral = Result { try FrontMatter.settingUpdated(stamp, in: commented) }
      switch (stamped, stampedInGeneral) {
      case (.success(let a), .success(let b)):
        XCTAssertEqual(
          a, b.replacingOccurrences(of: "---" + lineEnding + "# c" + lineEnding, with: "---" + lineEnding), context)
      case (.failure, .failure): break
      default: XCTFail("one stamp failed: \(stamped) / \(stampedInGeneral); \(context)")
      }
      let quick = Result { try FrontMatter.setting(key, to: value, in: text) }
      let general = Result { try FrontMatter.setting(key, to: value, in: commented) }
      guard case .block(let textBlock) = FMLayout.scan(text) else { return XCTFail(context) }
      let withoutYAML = FMEditor.simpleReplacing(text, block: textBlock, key: key, value: FMNewValue(inline: value))
      switch (quick, general) {
      case (.success(let a), .success(let b)):
        let expected = b.replacingOccurrences(of: "---" + lineEnding + "# c" + lineEnding, with: "---" + lineEnding)
        XCTAssertEqual(a, expected, context)
        if let withoutYAML {
          XCTAssertEqual(withoutYAML, expected, context)
          edited += 1
        }
      case (.failure, .failure):
        XCTAssertNil(withoutYAML, context)
      default:
        XCTFail("one editor failed: \(quick) / \(general); \(context)")
      }
    }
    XCTAssertGreaterThan(edited, 150, "edits made without Yams")
  }

  /// A merge's key lines (``MatterKeys``) of a simple block are those the general reader finds in the same block
  /// with a comment line added, which only Yams reads.
  func testAMergesKeyLinesWithoutYAMLAreTheGeneralReadersOnes() throws {
    var rng = SplitMix64(seed: 59)
    var simple = 0
    for round in 0..<3000 {
      let lines = randomLines(&rng)
      let lineEnding = Bool.random(using: &rng) ? "\n" : "\r\n"
      let text = (["---"] + lines + ["---", "body"]).joined(separator: lineEnding)
      let commented = (["---", "# c"] + lines + ["---", "body"]).joined(separator: lineEnding)
      guard case .block(let block) = FMLayout.scan(text), FMSimpleBlock.values(block.content) != nil else { continue }
      if !lines.contains("") { simple += 1 }
      let context = "round \(round): \(lines.debugDescription)"
      let quick = try? MatterKeys(text)
      let general = try? MatterKeys(commented)
      XCTAssertEqual(quick?.order, general?.order, context)
      XCTAssertEqual(quick?.raw, general?.raw, context)
    }
    XCTAssertGreaterThan(simple, 300)
  }

  /// Random blocks of simple and tricky lines: where the simple reader answers, Yams agrees (and does not refuse
  /// the block); the simple forms are answered often enough for the comparison to mean something.
  func testWhereItAnswersYamsReadsTheSameIdentity() throws {
    var rng = SplitMix64(seed: 41)
    var answered = 0
    var agreed = 0
    for round in 0..<5000 {
      let lines = randomLines(&rng)
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

  /// Up to five lines: mostly `key: value` from pools of simple and tricky keys and values, sometimes a blank
  /// line, a comment, an indented line.
  private func randomLines(_ rng: inout SplitMix64) -> [String] {
    let keys = [
      "id", "id", "id", "updated", "updated", "updated", "modified", "lastmod", "title", "tags", "created", "x_y",
      "a-b", "Id", "1id", " id", "id ", "tags", "aliases", "keywords", "project", "priority", "status", "conflict_of",
    ]
    let values = [
      "", "abc", "7f3c-uuid", "7f3c-uuid", "2026-11-22T10:15:03+01:00", "2026-11-22T10:15:05-02:30", "  padded  ",
      "null", "Null", "NULL", "~", "nul", "\"null\"", "'~'", "2026-11-22T10:15:03+01:00",
      "2026-11-22T10:15:03Z", "2026-13-40T99:99:99Z", "\"2026-11-22T10:15:03+01:00\"", "a: b", "a:b", "a:", "a #c",
      "a#c",
      "#c", "-a", "- a", "? a", ":a", "[a, b]", "[]", "[ ]", "[a, [b]]", "[a,]", "['a']", "[a b]", "{a: b}", "\"a\"",
      "'a'", "\"a\\\"b\"", "'it''s'", "\"a: b # c\"", "'unclosed", "\"unclosed", "&anchor a", "*alias", "!tag a",
      "|", ">", "%a", "@a", "`a`", "café", "a\u{00A0}b", "a\u{2028}b", "a\u{0085}b", "a\u{FEFF}b", "a\tb", "\"a\tb\"",
      "a  b", "a ", "a,b", "a]b", "a}b", "<<", "=", "yes", "1.5", "0x1F", "[t1, bench]", "[null, a]", "[a.b/c-d, e_f]",
      "[Tag, tag, TAG]", "  two spaces", "todo", "Title With Words", "'2026-11-22T10:15:03+01:00'",
    ]
    var lines: [String] = []
    for _ in 0..<Int.random(in: 0...5, using: &rng) {
      switch Int.random(in: 0..<20, using: &rng) {
      case 0: lines.append("")
      case 1: lines.append("# a comment")
      case 2: lines.append("  - nested")
      case 3: lines.append("  indented: x")
      default: lines.append(keys.randomElement(using: &rng)! + ":" + " " + values.randomElement(using: &rng)!)
      }
    }
    return lines
  }
}

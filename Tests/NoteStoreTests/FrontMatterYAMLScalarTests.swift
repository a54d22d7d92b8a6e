import Foundation
import NBTestSupport
import XCTest
import Yams

@testable import NoteStore

/// `YAMLScalar` output is checked against Yams (libyaml) as the oracle: it must read back as the same string with
/// the `str` tag, in block and in flow context.
final class FrontMatterYAMLScalarTests: XCTestCase {
  private func readsBackBlock(_ formatted: String) throws -> (String?, Bool) {
    let node = try XCTUnwrap(try Yams.compose(yaml: "k: \(formatted)\n")?.mapping?["k"])
    return (node.scalar?.string, node.tag == Tag(.str))
  }

  private func readsBackFlow(_ formatted: String) throws -> [String] {
    let node = try XCTUnwrap(try Yams.compose(yaml: "k: \(formatted)  # comment\n")?.mapping?["k"])
    return try XCTUnwrap(node.sequence).map { item in
      XCTAssertEqual(item.tag, Tag(.str), formatted)
      return item.scalar?.string ?? "<not a scalar>"
    }
  }

  func testPlainWhenSafe() {
    for text in ["hello", "Hello world", "it's", "a:b", "a#b", "C#", "x-y", "über", "emoji 🎉", "a, b", "x[y]"] {
      XCTAssertEqual(YAMLScalar.format(text), text, text)
    }
  }

  func testQuotesWhatMustBeQuoted() {
    let mustQuote = [
      "", " lead", "trail ", "yes", "No", "TRUE", "false", "null", "~", "on", "Off", "y", "N", "12", "-3", "1.5", ".5",
      "+1", "0x1F", "0o17", "1e3", "1_000", "12:30", ".inf", "2026-11-22", "2026-11-22T10:15:03Z", "- item",
      "?q", ":c", ",", "[a]", "]", "{a}", "}", "#tag", "&anchor", "*alias", "!tag", "|", ">", "'q'", "\"q\"", "%x",
      "@at", "`tick", "a: b", "a #b", "ends:", "tab\there", "new\nline", "cr\rhere", "nul\u{0}", "bell\u{7}",
      "nel\u{85}", "ls\u{2028}", "bom\u{FEFF}", "<<", "=", "...", "---",
    ]
    for text in mustQuote {
      let formatted = YAMLScalar.format(text)
      XCTAssertTrue(formatted.hasPrefix("\""), "\(text.debugDescription) -> \(formatted)")
    }
  }

  /// `format` asks Yams' resolver only about text that opens with a sign, digit, `.`, `<`, `=` or `~`; every other
  /// opening, followed by the tails of the resolver's rules, must still read back as the same string.
  func testEveryOpeningWithResolverTailsReadsBack() throws {
    let tails = [
      "", "inf", "Inf", "nan", "NaN", "0", "1", "5", "e3", "_000", ":30", "1:20", "x1F", "o17", "<", "=", "2026-11-22",
      "ull", "rue", "es", "o", "n", "ff", " b", "0.5", ".5", "::",
    ]
    for code in UInt32(0x21)...UInt32(0x7E) {
      let opening = Character(Unicode.Scalar(code)!)
      for tail in tails {
        let text = String(opening) + tail
        let (value, isString) = try readsBackBlock(YAMLScalar.format(text))
        XCTAssertEqual(value, text, YAMLScalar.format(text))
        XCTAssertTrue(isString, "\(text.debugDescription) -> \(YAMLScalar.format(text)) is not a string")
      }
    }
  }

  func testEscapes() {
    XCTAssertEqual(YAMLScalar.format("a \"b\" \\ c"), "a \"b\" \\ c")
    XCTAssertEqual(YAMLScalar.format("\"q\" \\"), "\"\\\"q\\\" \\\\\"")
    XCTAssertEqual(YAMLScalar.format("line\nbreak\t"), "\"line\\nbreak\\t\"")
    XCTAssertEqual(YAMLScalar.format("\u{1}\u{7F}\u{85}\u{2028}"), "\"\\x01\\x7F\\N\\L\"")
  }

  func testFlowList() throws {
    XCTAssertEqual(YAMLScalar.flowList([]), "[]")
    XCTAssertEqual(YAMLScalar.flowList(["a", "b c"]), "[a, b c]")
    XCTAssertEqual(
      YAMLScalar.flowList(["a,b", "[x]", "{y}", "yes", "#t"]), "[\"a,b\", \"[x]\", \"{y}\", \"yes\", \"#t\"]")
    XCTAssertEqual(try readsBackFlow(YAMLScalar.flowList(["a,b", "c]", "d"])), ["a,b", "c]", "d"])
  }

  // A leading U+FEFF is left out: Yams decodes scalar values with Foundation, which drops a leading BOM.
  func testHandPickedStringsRoundTrip() throws {
    let samples = [
      "plain", "yes", "with: colon", "with #hash", "'single'", "\"double\"", "back\\slash", " spaced ", "tab\t",
      "multi\nline\n", "\r\n", "ünï 🎉", "0", "-", "--", "a:", "?", "%", "ends with #", "x\u{0}y", "a\u{FEFF}",
      "\u{FFFE}", "\u{E000}", "\u{D7FF}", "\u{10FFFF}", "\u{A0}nbsp", "\u{1B}esc",
    ]
    for sample in samples {
      let (value, isString) = try readsBackBlock(YAMLScalar.format(sample))
      XCTAssertEqual(value, sample, "\(sample.debugDescription) -> \(YAMLScalar.format(sample))")
      XCTAssertTrue(isString, sample.debugDescription)
    }
    XCTAssertEqual(try readsBackFlow(YAMLScalar.flowList(samples)), samples)
  }

  func testRandomStringsRoundTrip() throws {
    var random = SplitMix64(seed: 7)
    let characters = " \t\n\r-?:,[]{}#&*!|>'\"%@`\\~.+_=<01239aAyYnNeEtTrRuUlLxXoOfF/é🎉\u{85}\u{0}\u{7}"
    let alphabet = Array(characters.unicodeScalars)
    for _ in 0..<3000 {
      let length = Int(random.next() % 8)
      var scalars = String.UnicodeScalarView()
      for _ in 0..<length { scalars.append(alphabet[Int(random.next() % UInt64(alphabet.count))]) }
      let text = String(scalars)
      let (value, isString) = try readsBackBlock(YAMLScalar.format(text))
      XCTAssertEqual(value, text, "\(text.debugDescription) -> \(YAMLScalar.format(text))")
      XCTAssertTrue(isString, "\(text.debugDescription) -> \(YAMLScalar.format(text))")
      XCTAssertEqual(try readsBackFlow(YAMLScalar.flowList([text, "z"])), [text, "z"], text.debugDescription)
    }
  }
}

import Foundation
import XCTest

@testable import NoteStore

/// A new note's keys are written in one step when the template wrote no front matter: the result must be byte for
/// byte what setting them one by one (the edit every other change makes, verified key by key) writes.
final class NewNoteFrontMatterTests: XCTestCase {
  func testOneStepIsKeyByKey() throws {
    let titles = [
      "Plan", "Roadmap: Q3", "# not a heading", "it's", "\"quoted\"", "- dash", "[bracket", "{brace}", "@at", "`tick`",
      "yes", "null", "~", "123", "1e3", "0x1F", "2026-11-24", "a: b # c", "é日本🙂", "trailing:", "%percent", "!tag",
      "*star", "&amp", "| pipe", "> fold", "?", "a\\b", "x  y",
    ]
    let tagPool = ["plan", "q3", "work/deep", "with space", "é", "#hash", "123", "yes", "a:b", "[x]", "-dash", "\"q\""]
    let bodies = [
      "", "body", "body\n", "line\r\nline\r\n", "\u{FEFF}after a BOM\n", "\u{FEFF}", "---\ntitle: own\n---\nbody\n",
      "---\nunclosed\n", "\r\n", "# Heading\n\ntext", "----\nnot front matter\n", "---",
    ]
    var generator = SystemRandomNumberGenerator()
    let stamp = Timestamp(date: Date(timeIntervalSince1970: 1_795_338_421), offsetSeconds: 3_600)
    var oneStep = 0
    for _ in 0..<3_000 {
      let title = titles.randomElement(using: &generator)!
      let tags = Array(tagPool.shuffled(using: &generator).prefix(Int.random(in: 0...3, using: &generator)))
      let body = bodies.randomElement(using: &generator)!
      let id = UUID().uuidString.lowercased()
      let expected = Result { try FrontMatter.settingNewNoteKeysOneByOne(id: id, title: title, stamp: stamp, tags: tags, in: body) }
      let actual = Result { try FrontMatter.settingNewNoteKeys(id: id, title: title, stamp: stamp, tags: tags, in: body) }
      switch (expected, actual) {
      case (.success(let wanted), .success(let got)):
        XCTAssertEqual(got, wanted, "title \(title.debugDescription) tags \(tags) body \(body.debugDescription)")
      case (.failure(let wanted), .failure(let got)):
        XCTAssertEqual("\(got)", "\(wanted)")
      default:
        XCTFail("one succeeded, the other failed: \(expected) vs \(actual), title \(title.debugDescription)")
      }
      if case .none = FMLayout.scan(body) { oneStep += 1 }
    }
    XCTAssertGreaterThan(oneStep, 1_000)
  }
}

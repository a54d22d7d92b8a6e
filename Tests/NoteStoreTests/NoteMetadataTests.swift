import Foundation
import XCTest

@testable import NoteStore

/// Which keys feed which `NoteMetadata` field, and how values are normalised.
final class NoteMetadataTests: XCTestCase {
  private func read(_ frontMatter: String, body: String = "") throws -> NoteMetadata {
    try FrontMatter.read("---\n" + frontMatter + "---\n" + body)
  }

  private func stamp(_ text: String) -> Timestamp { Timestamp(rfc3339: text)! }

  func testCanonicalKeys() throws {
    let metadata = try read(
      """
      id: 0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b
      title: Standup notes
      created: 2026-11-22T09:00:00+01:00
      updated: 2026-11-22T10:15:03+01:00
      tags: [work, daily]
      aliases: [standup, daily standup]
      conflict_of: 0193f6a2-0000-7e55-b1c0-7a0e1f2d3c4b

      """)
    XCTAssertEqual(metadata.id, "0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b")
    XCTAssertEqual(metadata.title, "Standup notes")
    XCTAssertEqual(metadata.created?.rfc3339, "2026-11-22T09:00:00+01:00")
    XCTAssertEqual(metadata.updated?.rfc3339, "2026-11-22T10:15:03+01:00")
    XCTAssertEqual(metadata.tags, ["work", "daily"])
    XCTAssertEqual(metadata.aliases, ["standup", "daily standup"])
    XCTAssertEqual(metadata.conflictOf, "0193f6a2-0000-7e55-b1c0-7a0e1f2d3c4b")
    XCTAssertTrue(metadata.hasFrontMatter)
    XCTAssertNil(metadata.firstHeading)
  }

  func testCreatedAlias() throws {
    XCTAssertEqual(try read("date: 2026-01-02T03:04:05Z\n").created, stamp("2026-01-02T03:04:05Z"))
    // `created` wins over `date` whatever the order.
    let both = try read("date: 2020-01-01\ncreated: 2026-01-02T03:04:05Z\n")
    XCTAssertEqual(both.created, stamp("2026-01-02T03:04:05Z"))
    // An unparseable `created` falls back to `date`.
    XCTAssertEqual(try read("created: someday\ndate: 2020-01-01\n").created, stamp("2020-01-01T00:00:00Z"))
  }

  func testUpdatedAliases() throws {
    for key in ["updated", "modified", "lastmod", "last_modified_at"] {
      let metadata = try read("\(key): 2026-03-04T05:06:07-02:00\n")
      XCTAssertEqual(metadata.updated?.rfc3339, "2026-03-04T05:06:07-02:00", key)
    }
    let priority = try read(
      "last_modified_at: 2021-01-01\nlastmod: 2022-01-01\nmodified: 2023-01-01\nupdated: 2024-01-01\n")
    XCTAssertEqual(priority.updated, stamp("2024-01-01T00:00:00Z"))
    let second = try read("last_modified_at: 2021-01-01\nlastmod: 2022-01-01\nmodified: 2023-01-01\n")
    XCTAssertEqual(second.updated, stamp("2023-01-01T00:00:00Z"))
    XCTAssertEqual(try read("last_modified_at: 2021-01-01\nlastmod: 2022-01-01\n").updated, stamp("2022-01-01"))
    XCTAssertEqual(try read("last_modified_at: 2021-01-01\n").updated, stamp("2021-01-01"))
  }

  func testQuotedTimestampsAreRead() throws {
    XCTAssertEqual(try read("updated: \"2026-03-04T05:06:07+05:45\"\n").updated?.offsetSeconds, 5 * 3600 + 45 * 60)
    XCTAssertEqual(try read("created: '2026-03-04 05:06:07Z'\n").created, stamp("2026-03-04T05:06:07Z"))
  }

  func testTagForms() throws {
    XCTAssertEqual(try read("tags: a b\n").tags, ["a", "b"])
    XCTAssertEqual(try read("tags: a, b\n").tags, ["a", "b"])
    XCTAssertEqual(try read("tags: a,b,,c\n").tags, ["a", "b", "c"])
    XCTAssertEqual(try read("tags: \"#a #b\"\n").tags, ["a", "b"])
    XCTAssertEqual(try read("tags: [a, b]\n").tags, ["a", "b"])
    XCTAssertEqual(try read("tags:\n  - a\n  - b\n").tags, ["a", "b"])
    XCTAssertEqual(try read("tags:\n- \"#a\"\n- b\n").tags, ["a", "b"])
    XCTAssertEqual(try read("tags: [b, a, b, '', ' ', \"#a\"]\n").tags, ["b", "a"])
    XCTAssertEqual(try read("tags: [\"two words\"]\n").tags, ["two words"])
    XCTAssertEqual(try read("tags: 2024\n").tags, ["2024"])
    XCTAssertEqual(try read("tags: []\n").tags, [])
    XCTAssertEqual(try read("tags:\n").tags, [])
    XCTAssertEqual(try read("tags: ~\n").tags, [])
  }

  func testTagAliases() throws {
    XCTAssertEqual(try read("tag: solo\n").tags, ["solo"])
    XCTAssertEqual(try read("keywords: swift, yaml\n").tags, ["swift", "yaml"])
    XCTAssertEqual(try read("keywords: [k]\ntag: t\ntags: [a]\n").tags, ["a"])
    XCTAssertEqual(try read("keywords: [k]\ntag: t\n").tags, ["t"])
    // An empty `tags` falls through to the next alias.
    XCTAssertEqual(try read("tags:\ntag: t\n").tags, ["t"])
  }

  func testAliases() throws {
    XCTAssertEqual(try read("aliases: [a, b]\n").aliases, ["a", "b"])
    XCTAssertEqual(try read("alias: Daily standup\n").aliases, ["Daily standup"])
    XCTAssertEqual(try read("alias: x\naliases:\n  - y\n  - y\n").aliases, ["y"])
  }

  func testBlankAndNullValuesAreAbsent() throws {
    let metadata = try read("id: ''\ntitle: ~\nconflict_of:\nupdated: null\n")
    XCTAssertEqual(metadata, NoteMetadata(hasFrontMatter: true))
  }

  func testWrongShapesAreIgnored() throws {
    let metadata = try read("title:\n  nested: map\nid: [1, 2]\ncreated: {a: b}\n")
    XCTAssertNil(metadata.title)
    XCTAssertNil(metadata.id)
    XCTAssertNil(metadata.created)
  }

  func testScalarsAreReadAsWritten() throws {
    // YAML would resolve these to a bool, an int and a float; nb keeps the text.
    let metadata = try read("title: yes\nid: 0x1F\nconflict_of: 1.50\n")
    XCTAssertEqual(metadata.title, "yes")
    XCTAssertEqual(metadata.id, "0x1F")
    XCTAssertEqual(metadata.conflictOf, "1.50")
  }

  func testKeysAreCaseSensitive() throws {
    XCTAssertNil(try read("Title: Upper\n").title)
  }
}

import Foundation
import XCTest

@testable import NoteStore

/// `.nb/config.yaml` in the shape nb writes it is read without the YAML parser; every text that path takes must read
/// exactly as YAML (Yams, the oracle) reads it, errors included, and anything else must be left to YAML.
final class RepositoryConfigReadTests: XCTestCase {
  private func outcome(_ read: () throws -> RepositoryConfig) -> String {
    do { return "\(try read())" } catch { return "error: \(error)" }
  }

  func testThePlainReadingAgreesWithYAMLOnEveryTextItTakes() throws {
    let lines = [
      "# nb repository settings", "format: 2", "format: 1", "format: 9", "format: two", "default_notebook: inbox",
      "default_notebook: work/projects", "default_notebook: .hidden", "backup_days: 30", "backup_days: -3",
      "backup_days: 0", "backup_days: 1.5", "watch: on", "inbox: yes", "other_key: value", "", "   ",
      "format: 2   ", "default_notebook:   spaced", "format: 2\r", "format: 2 # comment", "format: \"2\"",
      "default_notebook: 'quoted'", "default_notebook: [a, b]", "default_notebook: &anchor x", "  indented: 1",
      "format:2", "format:", "- item", "---", "default_notebook: ~", "default_notebook: null", "key with space: 1",
      "default_notebook: a:b", "default_notebook: -dash", "\u{FEFF}format: 2", "\tformat: 2",
    ]
    var generator = SystemRandomNumberGenerator()
    var taken = 0
    var texts = lines.map { $0 + "\n" }
    texts.append(RepositoryConfig.initial.fileText)
    for _ in 0..<3_000 {
      let count = Int.random(in: 0...4, using: &generator)
      texts.append((0..<count).map { _ in lines.randomElement(using: &generator)! }.joined(separator: "\n") + "\n")
    }
    for text in texts {
      guard let keys = try RepositoryConfig.plainKeys(text) else { continue }
      taken += 1
      XCTAssertEqual(
        outcome { try RepositoryConfig.parse(keys, path: "config.yaml") },
        outcome { try RepositoryConfig.parse(yaml: text, path: "config.yaml") },
        "text: \(text.debugDescription), keys: \(keys)")
    }
    XCTAssertGreaterThan(taken, 100, "the plain reading took too few texts to say anything")
    // What nb writes always takes the plain path.
    XCTAssertNotNil(try RepositoryConfig.plainKeys(RepositoryConfig.initial.fileText))
    for refused in ["format: \"2\"\n", "  indented: 1\n", "format:\n", "default_notebook: [a, b]\n", "---\n"] {
      XCTAssertNil(try RepositoryConfig.plainKeys(refused), refused)
    }
  }
}

import Foundation
import NBTestSupport
import XCTest

/// End-to-end tests of the task commands at a fixed time: `NB_NOW` is Tuesday 2026-11-24 10:00 in Berlin (`TZ`),
/// so "today", "fri" and "overdue" have one meaning in every run.
class TaskTestCase: NBCLITestCase {
  /// Tuesday, 10:00 in Europe/Berlin (UTC+1 in November).
  static let now = "2026-11-24T10:00:00+01:00"
  var clock: [String: String] { ["NB_NOW": Self.now, "TZ": "Europe/Berlin"] }

  /// `nb <args>` at the fixed time; fails unless it exits 0.
  @discardableResult
  func task(_ args: String..., env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line)
    throws -> ProcessResult
  {
    let result = try nb(arguments: args, env: clock.merging(env) { _, new in new })
    XCTAssertEqual(
      result.status, 0, "nb \(args.joined(separator: " ")) failed: \(result.stderr)", file: file, line: line)
    return result
  }

  /// `nb <args>` at the fixed time, without asserting.
  func attempt(_ args: String..., env: [String: String] = [:]) throws -> ProcessResult {
    try nb(arguments: args, env: clock.merging(env) { _, new in new })
  }

  /// `nb task list --json <args>` at the fixed time.
  func listed(_ args: String..., file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
    let result = try nb(arguments: ["task", "list", "--json"] + args, env: clock)
    XCTAssertEqual(result.status, 0, "nb task list \(args) failed: \(result.stderr)", file: file, line: line)
    let value = try JSONSerialization.jsonObject(with: result.stdoutData)
    return try XCTUnwrap(value as? [[String: Any]], file: file, line: line)
  }

  /// The titles `nb task list --json <args>` prints, in order.
  func titles(_ args: String..., file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
    let result = try nb(arguments: ["task", "list", "--json"] + args, env: clock)
    XCTAssertEqual(result.status, 0, "nb task list \(args) failed: \(result.stderr)", file: file, line: line)
    let value = try JSONSerialization.jsonObject(with: result.stdoutData)
    return try XCTUnwrap(value as? [[String: Any]], file: file, line: line).compactMap { $0["title"] as? String }
  }

  /// The value of a top-level front matter key as written (the text after `key: `), nil when absent.
  func frontMatter(_ key: String, in relative: String) throws -> String? {
    let text = try self.text(relative)
    guard text.hasPrefix("---\n"), let end = text.range(of: "\n---\n") else { return nil }
    for line in text[text.index(text.startIndex, offsetBy: 4)..<end.lowerBound].split(separator: "\n") {
      if line.hasPrefix(key + ":") {
        return line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
      }
    }
    return nil
  }
}

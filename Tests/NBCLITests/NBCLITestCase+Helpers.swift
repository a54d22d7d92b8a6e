import Foundation
import NBTestSupport
import XCTest

/// Helpers the command tests share: running nb for JSON, reading files, and checking commits with the real git.
extension NBCLITestCase {
  /// Runs `nb <args>` (which must succeed) and parses its standard output as one JSON document.
  func json(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Any {
    let result = try nb(arguments: args)
    XCTAssertEqual(result.status, 0, "nb \(args.joined(separator: " ")): \(result.stderr)", file: file, line: line)
    return try JSONSerialization.jsonObject(with: result.stdoutData, options: [.fragmentsAllowed])
  }

  /// `json` for a command printing an object.
  func jsonObject(_ args: String..., file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
    try XCTUnwrap(try json(args, file: file, line: line) as? [String: Any], file: file, line: line)
  }

  /// `json` for a command printing an array of objects.
  func jsonArray(_ args: String..., file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
    try XCTUnwrap(try json(args, file: file, line: line) as? [[String: Any]], file: file, line: line)
  }

  /// `jsonArray` with an argument array.
  func jsonArray(arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
    try XCTUnwrap(try json(arguments, file: file, line: line) as? [[String: Any]], file: file, line: line)
  }

  /// A note as `nb show --json` describes it.
  func noteJSON(_ selector: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
    try jsonObject("show", selector, "--json", file: file, line: line)
  }

  /// A string field of a JSON object, failing the test when absent.
  func string(_ object: [String: Any], _ key: String, file: StaticString = #filePath, line: UInt = #line) throws
    -> String
  {
    try XCTUnwrap(object[key] as? String, "no string '\(key)' in \(object)", file: file, line: line)
  }

  /// The text of a repository-relative file.
  func text(_ relative: String) throws -> String {
    String(decoding: try read(relative), as: UTF8.self)
  }

  /// Checks with the real git that exactly one commit was made since there were `before` commits, with this
  /// subject, exactly these `Nb-Note-Id` trailers (as git parses them) and exactly these
  /// `git show --name-status --no-renames` lines (`"A\tpath"`); and that the work tree is clean and
  /// `git fsck --strict` passes.
  func assertOneCommit(
    since before: Int, subject: String, noteIDs: [String], files: [String], file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    XCTAssertEqual(try commitCount(), before + 1, "expected exactly one new commit", file: file, line: line)
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%s").trimmingCharacters(in: .newlines), subject, file: file, line: line)
    let trailers = try git.run("log", "-1", "--format=%(trailers:key=Nb-Note-Id,valueonly,separator=%x0A)")
      .split(separator: "\n").map(String.init)
    XCTAssertEqual(trailers.sorted(), noteIDs.sorted(), "Nb-Note-Id trailers", file: file, line: line)
    // git matches trailer keys case-insensitively; the documented spelling is checked on the raw message.
    let message = try git.run("log", "-1", "--format=%B").split(separator: "\n").map(String.init)
    for id in noteIDs {
      XCTAssert(
        message.contains("Nb-Note-Id: \(id)"), "no 'Nb-Note-Id: \(id)' line in \(message)", file: file, line: line)
    }
    let changed = try git.run("show", "--name-status", "--no-renames", "--format=", "HEAD")
      .split(separator: "\n").map(String.init)
    XCTAssertEqual(changed.sorted(), files.sorted(), "files in the commit", file: file, line: line)
    try assertCleanAndSound(file: file, line: line)
  }

  /// Runs `body` and checks that no commit was made and the work tree is still clean.
  @discardableResult
  func assertNoCommit<T>(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T) throws -> T {
    let head = try git.revParse("HEAD")
    let value = try body()
    XCTAssertEqual(try git.revParse("HEAD"), head, "a no-op must not commit", file: file, line: line)
    XCTAssertEqual(try git.statusPorcelain(), "", file: file, line: line)
    return value
  }

  /// `git status --porcelain` is empty and `git fsck --strict` passes.
  func assertCleanAndSound(file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(try git.statusPorcelain(), "", "work tree not clean", file: file, line: line)
    XCTAssertNoThrow(try git.fsck(), file: file, line: line)
  }

  /// Parses an RFC 3339 timestamp with a numeric offset or `Z`, failing the test otherwise.
  @discardableResult
  func assertRFC3339(_ value: Any?, file: StaticString = #filePath, line: UInt = #line) throws -> Date {
    let text = try XCTUnwrap(value as? String, "not a string: \(String(describing: value))", file: file, line: line)
    let pattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"#
    XCTAssertNotNil(
      text.range(of: pattern, options: .regularExpression), "not RFC 3339: \(text)", file: file, line: line)
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return try XCTUnwrap(formatter.date(from: text), "unparsable: \(text)", file: file, line: line)
  }

  /// A lower-case UUID, as FORMAT.md requires for `id`.
  func assertLowercaseUUID(_ value: Any?, file: StaticString = #filePath, line: UInt = #line) throws {
    let text = try XCTUnwrap(value as? String, file: file, line: line)
    XCTAssertNotNil(UUID(uuidString: text), "not a UUID: \(text)", file: file, line: line)
    XCTAssertEqual(text, text.lowercased(), file: file, line: line)
  }

  /// The lines of `new` that differ from `old`, as `(old, new)` pairs; both must have the same number of lines.
  func changedLines(_ old: String, _ new: String, file: StaticString = #filePath, line: UInt = #line)
    -> [(String, String)]
  {
    let a = old.split(separator: "\n", omittingEmptySubsequences: false)
    let b = new.split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertEqual(a.count, b.count, "line count changed:\n\(old)\n---\n\(new)", file: file, line: line)
    return zip(a, b).filter { $0 != $1 }.map { (String($0), String($1)) }
  }
}

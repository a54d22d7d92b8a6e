import Foundation
import NBTestSupport
import NoteWeb
import XCTest

/// What a URL path may name: files inside the repository only, never git's.
final class WebPathTests: XCTestCase {
  func testDecodesEachSegment() throws {
    XCTAssertEqual(try WebPath.repositoryPath("work/My%20note.md"), "work/My note.md")
    XCTAssertEqual(try WebPath.repositoryPath("caf%C3%A9.md"), "café.md")
    XCTAssertEqual(try WebPath.repositoryPath("a+b.md"), "a+b.md")
  }

  func testRefusesClimbingAbsoluteAndGitPaths() {
    for raw in [
      "..", "../etc/passwd", "work/../../etc/passwd", "%2e%2e/etc/passwd", "%2E%2E%2Fetc%2Fpasswd",
      "..%2f..%2fetc%2fpasswd", "work/%2e%2e/x.md", "/etc/passwd", "work//x.md", "./x.md", ".git/config",
      ".GIT/config", "work/.git/HEAD", "%2egit/config", "a%5c..%5cb", "a%00.md", "bad%zz", "%ff.md", "",
    ] {
      XCTAssertThrowsError(try WebPath.repositoryPath(Substring(raw)), raw)
    }
  }

  func testSymbolicLinksMustStayInside() throws {
    let temp = try TemporaryDirectory(prefix: "nb-webpath")
    let root = try temp.directory("repo")
    let outside = try temp.write("secret.txt", "secret")
    try FileManager.default.createDirectory(at: root.appendingPathComponent(".git"), withIntermediateDirectories: true)
    try Data("[core]".utf8).write(to: root.appendingPathComponent(".git/config"))
    _ = try temp.write("repo/work/a.md", "a")
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("work/leak.md").path, withDestinationPath: outside.path)
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("work/config.md").path, withDestinationPath: "../.git/config")
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("work/b.md").path, withDestinationPath: "a.md")
    XCTAssertNotNil(try WebPath.file("work/a.md", in: root))
    XCTAssertNotNil(try WebPath.file("work/b.md", in: root), "a link that stays inside is followed")
    XCTAssertNil(try WebPath.file("work/none.md", in: root))
    XCTAssertThrowsError(try WebPath.file("work/leak.md", in: root))
    XCTAssertThrowsError(try WebPath.file("work/config.md", in: root))
  }

  func testEncodesForURLs() {
    XCTAssertEqual(WebPath.encoded("work/My note (1).md"), "work/My%20note%20%281%29.md")
    XCTAssertEqual(WebPath.queryValue("tag:x&y=z"), "tag%3Ax%26y%3Dz")
  }
}

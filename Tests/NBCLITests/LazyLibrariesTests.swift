import Foundation
import NBTestSupport
import XCTest

/// nb links neither libgit2 nor libxml2 nor cmark-gfm: the first git call loads libgit2 (Sources/CLibGit2/LazyLibGit2.c),
/// the first InkML import loads libxml2 (Sources/CLibXML2/LazyLibXML2.c) and `nb serve`'s first note page loads
/// cmark-gfm (Sources/CCmarkGFM/LazyCmarkGFM.c), so a command that only reads notes starts without relocating them
/// and the libraries they pull in (mbedTLS, libssh2, Kerberos; ICU, liblzma). The dynamic loader's own log says which
/// files a process loaded.
final class LazyLibrariesTests: NBCLITestCase {
  func testReadingCommandsNeverLoadLibGit2AndOnlyCommitsWithoutKeptSettingsDo() throws {
    #if !os(Linux)
      throw XCTSkip("LD_DEBUG is glibc's")
    #endif
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work", "--tags", "planning", "--content", "First draft")
    for arguments in [["--version"], ["show", "roadmap"], ["list", "work"], ["list"], ["search", "draft"]] {
      let result = try nb(arguments: arguments, env: ["LD_DEBUG": "files"])
      XCTAssertEqual(result.status, 0, "nb \(arguments): \(result.stderr)")
      XCTAssertFalse(loaded("libgit2", result), "nb \(arguments) loaded libgit2")
    }
    // A commit after the first one kept what it needs of the config is made without libgit2 too.
    let plain = try nb(arguments: ["add", "Standup", "--content", "x"], env: ["LD_DEBUG": "files"])
    XCTAssertEqual(plain.status, 0, plain.stderr)
    XCTAssertFalse(loaded("libgit2", plain), "nb add with the commit settings kept loaded libgit2")
    // Without them it commits through libgit2: the lines the loader prints must be there at all, or the tests
    // above prove nothing.
    try FileManager.default.removeItem(at: root.appendingPathComponent(".git/nb/cache/commit-settings"))
    let added = try nb(arguments: ["add", "Retro", "--content", "x"], env: ["LD_DEBUG": "files"])
    XCTAssertEqual(added.status, 0, added.stderr)
    XCTAssertTrue(loaded("libgit2", added), "nb add did not load libgit2:\n\(added.stderr)")
  }

  func testOnlyAnInkMLImportLoadsLibXML2() throws {
    #if !os(Linux)
      throw XCTSkip("LD_DEBUG is glibc's")
    #endif
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--content", "First draft")
    for arguments in [["--version"], ["show", "roadmap"], ["add", "Standup", "--content", "x"], ["status"]] {
      let result = try nb(arguments: arguments, env: ["LD_DEBUG": "files"])
      XCTAssertEqual(result.status, 0, "nb \(arguments): \(result.stderr)")
      XCTAssertFalse(loaded("libxml2", result), "nb \(arguments) loaded libxml2")
      XCTAssertFalse(loaded("libicu", result), "nb \(arguments) loaded ICU")
    }
    let page = temp.file("page.inkml")
    try Data(#"<ink xmlns="http://www.w3.org/2003/InkML"><trace>10 10, 20 20</trace></ink>"#.utf8).write(to: page)
    let imported = try nb(arguments: ["ink", "import", "roadmap", page.path], env: ["LD_DEBUG": "files"])
    XCTAssertEqual(imported.status, 0, imported.stderr)
    XCTAssertTrue(loaded("libxml2", imported), "nb ink import of InkML did not load libxml2:\n\(imported.stderr)")
  }

  func testOnlyServingANotePageLoadsCmarkGFM() throws {
    #if !os(Linux)
      throw XCTSkip("LD_DEBUG is glibc's")
    #endif
    try makeRepository()
    try nbSucceeds("add", "Roadmap", "--notebook", "work", "--content", "# First draft")
    for arguments in [["--version"], ["show", "roadmap"], ["list"], ["search", "draft"], ["serve", "--help"]] {
      let result = try nb(arguments: arguments, env: ["LD_DEBUG": "files"])
      XCTAssertEqual(result.status, 0, "nb \(arguments): \(result.stderr)")
      XCTAssertFalse(loaded("libcmark-gfm", result), "nb \(arguments) loaded cmark-gfm")
    }
    let server = try ServeProcess(self, ["serve", "--port", "0", "--json"], env: ["LD_DEBUG": "files"])
    defer { server.stop() }
    let page = try http(server.port, "/note/work/roadmap.md", headers: [("X-NB-Token", server.token)])
    XCTAssertTrue(page.body.contains(#"<h1 id="first-draft">First draft</h1>"#), page.body)
    server.stop()
    let result = try server.wait()
    XCTAssertTrue(loaded("libcmark-gfm-extensions", result), "a note page did not load cmark-gfm:\n\(result.stderr)")
  }

  /// Whether the loader's log (`LD_DEBUG=files`, on standard error) shows `library` being loaded; fails the test
  /// when the log is missing altogether.
  private func loaded(_ library: String, _ result: ProcessResult) -> Bool {
    let lines = result.stderr.split(separator: "\n")
    XCTAssertTrue(lines.contains { $0.contains("file=libc.so") }, "no loader log:\n\(result.stderr)")
    return lines.contains { $0.contains("file=\(library)") }
  }
}

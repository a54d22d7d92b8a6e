import Foundation
import GitKit
import NBTestSupport
import XCTest

@testable import NoteStore

final class NoteRepositoryInitTests: NoteRepositoryTestCase {
  func testInitializeWritesSettingsAndMakesOneCommit() throws {
    XCTAssertEqual(try git.logSubjects(), ["nb: init"])
    XCTAssertEqual(try git.run("symbolic-ref", "HEAD"), "refs/heads/main\n")
    XCTAssertEqual(
      try changedFiles(), ["A\t.gitattributes", "A\t.gitignore", "A\t.nb/config.yaml", "A\tinbox/.notebook.yaml"])
    XCTAssertEqual(
      try read(".nb/config.yaml"),
      "# nb repository settings, shared by every device that syncs this repository.\nformat: 2\n"
        + "default_notebook: inbox\n")
    XCTAssertEqual(try read("inbox/.notebook.yaml"), "created: 2026-11-22T10:07:01+01:00\n")
    XCTAssertTrue(try read(".gitattributes").contains("*.ink.jsonl merge=nb-ink diff=nb-ink text eol=lf\n"))
    // The identity comes from the isolated HOME, and the commit time from the injected clock.
    XCTAssertEqual(
      try git.run("log", "-1", "--format=%an <%ae> %at"), "Test User <test@example.com> 1795338421\n")
    XCTAssertEqual(repository.config, RepositoryConfig(format: 2, defaultNotebook: "inbox"))
    try assertCleanAndSound()
  }

  func testInitializeTwiceIsRefused() throws {
    try assertRefusedWithNothingChanged {
      _ = try NoteRepository.initialize(at: root)
    }
  }

  func testOpenWithoutRepositoryFails() throws {
    let elsewhere = try temp.directory("nothing-here")
    XCTAssertThrowsError(try NoteRepository.open(at: elsewhere)) { error in
      guard case NoteStoreError.noRepository(let path)? = error as? NoteStoreError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(path, elsewhere.path)
    }
  }

  func testInitializeAdoptsExistingGitRepositoryAndKeepsItsHistory() throws {
    let existing = try temp.directory("existing")
    let cli = try GitCLI(workTree: existing, home: home)
    try cli.run("init", "-q", "-b", "main")
    try Data("keep me\n".utf8).write(to: existing.appendingPathComponent("README.txt"))
    try cli.run("add", "README.txt")
    try cli.run("commit", "-q", "-m", "first")
    try NoteRepository.initialize(at: existing, clock: { Self.start }, timeZone: Self.berlin)
    XCTAssertEqual(try cli.logSubjects(), ["nb: init", "first"])
    XCTAssertEqual(try cli.show("HEAD", path: "README.txt"), "keep me\n")
    XCTAssertEqual(try cli.statusPorcelain(), "")
  }
}

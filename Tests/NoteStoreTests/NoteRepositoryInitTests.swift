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

  /// Where commands find the repository: `--dir`, then `NB_DIR`, then the nearest enclosing directory holding
  /// `.nb/` (walked up as a path, `.` and `..` as the file system would take them), then `~/notes`.
  func testLocateFindsTheEnclosingRepositoryOrTheDefault() throws {
    let nested = root.appendingPathComponent("inbox/deeper/still")
    try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
    let home = try temp.directory("home")
    let found: (URL) -> String = { directory in
      NoteRepository.locate(explicit: nil, variable: { $0 == "HOME" ? home.path : nil }, currentDirectory: directory)
        .path
    }
    XCTAssertEqual(found(root), root.path)
    XCTAssertEqual(found(nested), root.path, "walked up from below")
    XCTAssertEqual(found(URL(fileURLWithPath: nested.path + "/./..", isDirectory: true)), root.path)
    XCTAssertEqual(found(URL(fileURLWithPath: root.path + "/", isDirectory: true)), root.path)
    let outside = try temp.directory("outside/below")
    XCTAssertEqual(found(outside), home.path + "/notes", "no repository above: the default")
    XCTAssertEqual(found(URL(fileURLWithPath: "/", isDirectory: true)), home.path + "/notes")
    // The environment and --dir come first, with ~ expanded.
    let fromEnvironment = NoteRepository.locate(
      explicit: nil, environment: ["HOME": home.path, "NB_DIR": "~/elsewhere"], currentDirectory: nested)
    XCTAssertEqual(fromEnvironment.path, home.path + "/elsewhere")
    let explicit = NoteRepository.locate(
      explicit: "../x", environment: ["HOME": home.path, "NB_DIR": "/ignored"],
      currentDirectory: URL(fileURLWithPath: nested.path, isDirectory: true))
    XCTAssertEqual(explicit.path, root.appendingPathComponent("inbox/deeper/x").path)
    // The repository opens at the path located, however it was spelled.
    let opened = try NoteRepository.open(at: URL(fileURLWithPath: nested.path + "/../../..", isDirectory: true))
    XCTAssertEqual(opened.root.path, root.path)
  }

  /// The device a save names: `NB_DEVICE` (trimmed) when set and not blank, else the host name, as Foundation
  /// gives it.
  func testTheDefaultDeviceIsNBDeviceElseTheHostName() {
    XCTAssertEqual(NoteRepository.defaultDevice(variable: { $0 == "NB_DEVICE" ? "  laptop \n" : nil }), "laptop")
    XCTAssertEqual(NoteRepository.defaultDevice(variable: { _ in nil }), ProcessInfo.processInfo.hostName)
    XCTAssertEqual(NoteRepository.defaultDevice(variable: { _ in " " }), ProcessInfo.processInfo.hostName)
    XCTAssertEqual(NoteRepository.defaultDevice(environment: ["NB_DEVICE": "desk"]), "desk")
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

import Foundation
import GitKit
import NBTestSupport
import XCTest

@testable import NoteStore

/// Shared fixture for the in-process `NoteRepository` tests: a temporary repository with a fixed clock and zone,
/// an isolated HOME for both libgit2 and the git CLI, and helpers that ask the real git for the truth.
class NoteRepositoryTestCase: XCTestCase {
  /// 2026-11-22T09:07:01Z (`date -u -d @1795338421`), 10:07:01 in Berlin (CET, +01:00).
  static let start = Date(timeIntervalSince1970: 1_795_338_421)
  static let berlin = TimeZone(identifier: "Europe/Berlin")!

  var temp: TemporaryDirectory!
  var root: URL!
  var home: URL!
  var git: GitCLI!
  var clock: ManualClock!
  var repository: NoteRepository!

  override func setUpWithError() throws {
    temp = try TemporaryDirectory(prefix: "nb-store-test")
    home = try temp.directory("home")
    root = temp.file("notes")
    git = try GitCLI(workTree: root, home: home)
    // libgit2 reads HOME's config once per process; point it at the isolated HOME so commits get a known identity.
    let empty = try temp.directory("empty-config")
    try LibGit2.setConfigSearchPath(home.path, for: .global)
    try LibGit2.setConfigSearchPath(empty.path, for: .xdg)
    try LibGit2.setConfigSearchPath(empty.path, for: .system)
    clock = ManualClock(Self.start)
    let clock = self.clock!
    repository = try NoteRepository.initialize(at: root, clock: { clock.now }, timeZone: Self.berlin)
  }

  override func tearDownWithError() throws {
    repository = nil
    for level in [LibGit2.ConfigLevel.global, .xdg, .system] {
      try LibGit2.setConfigSearchPath(nil, for: level)
    }
    temp = nil
  }

  /// A second, independent instance on the same repository (what another process or thread would have).
  func openAnother() throws -> NoteRepository {
    let other = try NoteRepository.open(at: root)
    let clock = self.clock!
    other.clock = { clock.now }
    other.timeZone = Self.berlin
    return other
  }

  // MARK: - Files

  func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

  func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: url(relative).path) }

  func read(_ relative: String) throws -> String {
    String(decoding: try Data(contentsOf: url(relative)), as: UTF8.self)
  }

  func readData(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }

  /// Writes a file the way another editor would (not through nb).
  func write(_ relative: String, _ text: String) throws { try write(relative, Data(text.utf8)) }

  func write(_ relative: String, _ data: Data) throws {
    let target = url(relative)
    try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: target)
  }

  /// Makes git unable to store blobs of `texts` as loose objects (a commit of fewer than 64 files writes them so):
  /// a file sits where each one's object directory must go, when that directory does not exist yet. Returns the
  /// files put there, to remove afterwards; fails the test when none could be.
  func blockLooseObjects(of texts: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [URL] {
    var blockers: [URL] = []
    for text in texts {
      let hash = try git.run(arguments: ["hash-object", "--stdin"], stdin: Data(text.utf8))
      let directory = url(".git/objects/" + hash.prefix(2))
      if !FileManager.default.fileExists(atPath: directory.path) {
        try Data().write(to: directory)
        blockers.append(directory)
      }
    }
    XCTAssertFalse(blockers.isEmpty, "every object directory already exists; pick other content", file: file, line: line)
    return blockers
  }

  /// Every file under the work tree (outside `.git`) with its bytes, to prove an operation changed nothing.
  func snapshot() throws -> [String: Data] {
    var result: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])!
    let prefix = root.path + "/"
    for case let file as URL in enumerator {
      let path = String(file.resolvingSymlinksInPath().path.dropFirst(prefix.count))
      if path == ".git" || path.hasPrefix(".git/") {
        enumerator.skipDescendants()
        continue
      }
      if (try file.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
        result[path] = try Data(contentsOf: file)
      }
    }
    return result
  }

  /// Every directory under the work tree (outside `.git`).
  func directories() throws -> Set<String> {
    var result = Set<String>()
    let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey])!
    let prefix = root.path + "/"
    for case let file as URL in enumerator {
      let path = String(file.resolvingSymlinksInPath().path.dropFirst(prefix.count))
      if path == ".git" {
        enumerator.skipDescendants()
        continue
      }
      if (try file.resourceValues(forKeys: [.isDirectoryKey])).isDirectory == true { result.insert(path) }
    }
    return result
  }

  // MARK: - The real git as oracle

  func head() throws -> String { try git.revParse("HEAD") }

  func commitCount() throws -> Int {
    Int(try git.run("rev-list", "--count", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }

  /// The last commit's subject.
  func lastSubject() throws -> String { try git.logSubjects().first ?? "" }

  /// `Nb-Note-Id` trailer values of a commit, as git's own trailer parser reads them.
  func trailerIDs(_ rev: String = "HEAD") throws -> [String] {
    try git.run("log", "-1", "--format=%(trailers:key=Nb-Note-Id,valueonly)", rev)
      .split(separator: "\n").map(String.init)
  }

  /// `git show --name-status` lines of a commit, e.g. `A\tinbox/a.md`; rename detection off unless `renames`.
  func changedFiles(_ rev: String = "HEAD", renames: Bool = false) throws -> [String] {
    try git.run("show", "--format=", "--name-status", renames ? "-M" : "--no-renames", rev)
      .split(separator: "\n").map(String.init).sorted()
  }

  /// Asserts `git status` (untracked files included) is clean and `git fsck --strict` finds nothing.
  func assertCleanAndSound(file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(try git.statusPorcelain(), "", "git status is not clean", file: file, line: line)
    XCTAssertNoThrow(try git.fsck(), file: file, line: line)
  }

  /// Runs `body`, which must throw a `NoteStoreError`, and asserts that no file, directory or commit changed.
  @discardableResult
  func assertRefusedWithNothingChanged(
    _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line
  ) throws -> NoteStoreError? {
    let files = try snapshot()
    let dirs = try directories()
    let before = try head()
    let status = try git.statusPorcelain()
    var thrown: Error?
    do { try body() } catch { thrown = error }
    XCTAssertNotNil(thrown, "expected an error", file: file, line: line)
    if let thrown { XCTAssertTrue(thrown is NoteStoreError, "not a NoteStoreError: \(thrown)", file: file, line: line) }
    XCTAssertEqual(try head(), before, "a commit was made", file: file, line: line)
    XCTAssertEqual(try git.statusPorcelain(), status, "git status changed", file: file, line: line)
    let after = try snapshot()
    XCTAssertEqual(Set(after.keys), Set(files.keys), "files appeared or vanished", file: file, line: line)
    for (path, data) in files where after[path] != data {
      XCTFail("\(path) changed", file: file, line: line)
    }
    XCTAssertEqual(try directories(), dirs, "directories appeared or vanished", file: file, line: line)
    return thrown as? NoteStoreError
  }

  /// The id written in a file's front matter (read with a plain line match, not with the code under test).
  func idLine(of relative: String) throws -> String? {
    try read(relative).split(whereSeparator: \.isNewline).first { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) }
  }

  /// Whether `text` is a lower-case UUID (what `id` must be).
  func isLowercaseUUID(_ text: String?) -> Bool {
    guard let text, UUID(uuidString: text) != nil else { return false }
    return text == text.lowercased() && text.count == 36
  }
}

import Foundation
import NoteStore
import XCTest

/// NoteStore as an app embeds it: this target depends on NoteStore alone and imports nothing else of the project,
/// so it compiles only while notes, sync, remotes and errors are all NoteStore's own types (no GitKit type leaks
/// through the public API). The git CLI makes the bare remote, as a person would.
final class PublicAPITests: XCTestCase {
  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nb-api-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func testTwoDevicesSyncThroughTheLibraryAlone() throws {
    let remote = directory.appendingPathComponent("remote.git")
    let made = Process()
    made.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    made.arguments = ["git", "init", "--bare", "-q", "--initial-branch=main", remote.path]
    try made.run()
    made.waitUntilExit()
    XCTAssertEqual(made.terminationStatus, 0)

    let laptop = try NoteRepository.initialize(at: directory.appendingPathComponent("laptop"))
    try laptop.addRemote("origin", url: remote.path)
    let remotes: [SyncRemote] = try laptop.remotes()
    XCTAssertEqual(remotes, [SyncRemote(name: "origin", url: remote.path)])
    _ = try laptop.createNote(NoteDraft(title: "Roadmap", content: "first\n"))
    let published = try laptop.sync(SyncOptions(device: "laptop", credentials: .none))
    XCTAssertEqual(published.outcome, .published)

    let tablet = try NoteRepository.clone(
      url: remote.path, to: directory.appendingPathComponent("tablet"), credentials: SyncCredentials.none)
    let copy = try XCTUnwrap(try tablet.allNotes().first { $0.title == "Roadmap" })
    try tablet.update(copy, NoteChange(append: "from the tablet\n"))
    XCTAssertEqual(try tablet.sync(SyncOptions(device: "tablet", credentials: .none)).outcome, .pushed)

    let received: SyncSummary = try laptop.sync(SyncOptions(device: "laptop", credentials: .none))
    XCTAssertEqual(received.outcome, .fastForwarded)
    let note = try XCTUnwrap(try laptop.allNotes().first { $0.title == "Roadmap" })
    XCTAssertTrue(try laptop.body(of: note).hasSuffix("first\nfrom the tablet\n"))
    let history: [HistoryEntry] = try laptop.history(of: note)
    XCTAssertEqual(history.count, 2)
  }

  /// An app's own editor: the text saved back only over the version it was loaded from, as nb edit commits it.
  func testSavingTextOverTheVersionItWasEditedFrom() throws {
    let notes = try NoteRepository.initialize(at: directory.appendingPathComponent("notes"))
    let note = try notes.createNote(NoteDraft(title: "Roadmap", content: "first\n"))
    let (loaded, version) = try notes.versionedText(of: note)
    XCTAssertEqual(version, try notes.version(of: note))
    XCTAssertEqual(try notes.save(text: loaded, to: note, over: version), .unchanged(note))
    let edited = loaded.replacingOccurrences(of: "first", with: "second")
    guard case .saved(let saved) = try notes.save(text: edited, to: note, over: version) else {
      return XCTFail("not saved")
    }
    XCTAssertTrue(try notes.text(of: saved).contains("second"))
    XCTAssertNotEqual(saved.updated, note.updated, "stamped")
    XCTAssertEqual(try notes.history(of: saved).first?.commit.subject, "nb: edit \(note.path)")
    // Another editor saved meanwhile: the stale version is refused, nothing written, both texts at hand.
    let now = try notes.text(of: saved)
    guard case .changed(let current, let currentVersion) = try notes.save(text: "lost?\n", to: note, over: version)
    else { return XCTFail("saved over a newer version") }
    XCTAssertEqual(current, now)
    XCTAssertEqual(currentVersion, try notes.version(of: saved))
    XCTAssertEqual(try notes.text(of: saved), now)
    XCTAssertThrowsError(try notes.save(text: "---\ntitle: [\n---\n", to: note, over: currentVersion))
    XCTAssertEqual(try notes.text(of: saved), now)
  }

  func testAStaleSaveIsMergedWithWhatChangedMeanwhileOrRefusedOnAConflict() throws {
    let notes = try NoteRepository.initialize(at: directory.appendingPathComponent("notes"))
    let note = try notes.createNote(NoteDraft(title: "Roadmap", content: "one\ntwo\nthree\nfour\n"))
    let (base, version) = try notes.versionedText(of: note)
    // Another editor changes the first line meanwhile.
    guard
      case .saved = try notes.save(text: base.replacingOccurrences(of: "one\n", with: "ONE\n"), to: note, over: version)
    else { return XCTFail("not saved") }
    let commits = try notes.history(of: note).count
    let edit = base.replacingOccurrences(of: "four\n", with: "FOUR\n")
    guard case .merged(let merged) = try notes.save(text: edit, to: note, over: version, base: base) else {
      return XCTFail("not merged")
    }
    XCTAssertTrue(try notes.body(of: merged).hasSuffix("ONE\ntwo\nthree\nFOUR\n"))
    XCTAssertEqual(try notes.history(of: merged).count, commits + 1, "one commit")
    XCTAssertEqual(try notes.history(of: merged).first?.commit.subject, "nb: edit \(note.path)")

    // Both change the same line: nothing written, the file's text and version handed back.
    let (now, nowVersion) = try notes.versionedText(of: merged)
    let clash = base.replacingOccurrences(of: "one\n", with: "uno\n")
    guard
      case .changed(let current, let currentVersion) = try notes.save(text: clash, to: note, over: version, base: base)
    else { return XCTFail("a conflict was saved") }
    XCTAssertEqual(current, now)
    XCTAssertEqual(currentVersion, nowVersion)
    XCTAssertEqual(try notes.text(of: merged), now)
    XCTAssertEqual(try notes.history(of: merged).count, commits + 1)
    // A base that is not the version's text is refused, not guessed at.
    XCTAssertThrowsError(try notes.save(text: clash, to: note, over: version, base: now))
  }

  func testErrorsAreNoteStoreErrors() throws {
    let notes = try NoteRepository.initialize(at: directory.appendingPathComponent("notes"))
    XCTAssertThrowsError(try notes.sync(SyncOptions(remote: "nowhere", credentials: .none))) { error in
      XCTAssertEqual(error as? NoteStoreError, .noRemote("nowhere"))
    }
    try notes.addRemote("gone", url: directory.appendingPathComponent("no-such-remote.git").path)
    XCTAssertThrowsError(try notes.sync(SyncOptions(remote: "gone", credentials: .none))) { error in
      guard case .offline(let remote, _)? = error as? NoteStoreError else { return XCTFail("\(error)") }
      XCTAssertEqual(remote, "gone")
      XCTAssertEqual(Self.kind(error as! NoteStoreError), "offline")
    }
  }

  /// Every case spelled out: this stops compiling if a case gains a payload from outside NoteStore's own types.
  private static func kind(_ error: NoteStoreError) -> String {
    switch error {
    case .noRepository(let path), .alreadyInitialized(let path), .notebookNotFound(let path),
      .outsideRepository(let path), .notUTF8(let path), .indexLocked(let path):
      return "path \(path)"
    case .unsupportedFormat(let path, let found): return "format \(path) \(found)"
    case .noteNotFound(let selector): return "selector \(selector)"
    case .ambiguousNote(let selector, let candidates): return "ambiguous \(selector) \(candidates)"
    case .alreadyExists(let path, let what): return "exists \(path) \(what)"
    case .notebookNotEmpty(let path, let entries): return "not empty \(path) \(entries)"
    case .invalidArgument(let message), .unsafeGitState(let message), .template(let message),
      .syncFailed(let message), .git(let message), .noRemote(let message):
      return "message \(message)"
    case .malformedFrontMatter(let path, let line, let detail), .malformedInk(let path, let line, let detail):
      return "at \(path):\(line) \(detail)"
    case .busy(let path, let holder): return "busy \(path) \(holder)"
    case .io(let path, let detail): return "io \(path) \(detail)"
    case .offline: return "offline"
    case .badQuery(let error): return "query \(error.query) at \(error.column): \(error.message)"
    }
  }
}

import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

final class NoteRepositoryConcurrencyTests: NoteRepositoryTestCase {
  /// `Concurrently` (how sync walks the work tree while it fetches): the value is computed on another thread,
  /// while the caller goes on, and every wait returns it.
  func testConcurrentlyComputesOnAnotherThreadWhileTheCallerGoesOn() {
    let started = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let value = Concurrently { () -> String in
      started.signal()
      // Waits for the caller, still running, to let it go: computed on the calling thread it would time out.
      guard release.wait(timeout: .now() + 5) == .success else { return "computed before the caller went on" }
      return Thread.isMainThread ? "main thread" : "another thread"
    }
    XCTAssertEqual(started.wait(timeout: .now() + 10), .success, "the computation never started")
    release.signal()
    XCTAssertEqual(value.wait(), "another thread")
    XCTAssertEqual(value.wait(), "another thread", "a second wait returns the same value at once")
  }

  /// Two threads, each with its own instance (as two processes would have), add notes at the same time: the
  /// repository lock serialises them, so every note gets its own commit and none is lost.
  func testTwoWritersLoseNothing() throws {
    let perWriter = 8
    let writers = try [openAnother(), openAnother()]
    let before = try commitCount()
    let errors = ErrorBox()
    let group = DispatchGroup()
    for (index, writer) in writers.enumerated() {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        for n in 0..<perWriter {
          do {
            _ = try writer.createNote(NoteDraft(title: "Writer \(index) note \(n)", notebook: "shared"))
          } catch {
            errors.append("writer \(index) note \(n): \(error)")
          }
        }
      }
    }
    XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
    XCTAssertEqual(errors.all, [])

    XCTAssertEqual(try commitCount(), before + 2 * perWriter)
    let expected = (0..<2).flatMap { w in (0..<perWriter).map { "shared/writer-\(w)-note-\($0).md" } }.sorted()
    XCTAssertEqual(try repository.allNotes().map(\.path), expected)
    // Every add is its own commit in the branch's history, and each file is in HEAD.
    let subjects = try git.logSubjects().filter { $0.hasPrefix("nb: add shared/") }
    XCTAssertEqual(subjects.sorted(), expected.map { "nb: add \($0)" })
    XCTAssertEqual(
      try git.run("ls-tree", "--name-only", "HEAD", "shared/").split(separator: "\n").map(String.init).sorted(),
      (["shared/.notebook.yaml"] + expected).sorted())
    try assertCleanAndSound()
  }

  /// A writer and a reader at once: listings never fail while notes are being written.
  func testReadsDuringWritesDoNotFail() throws {
    let writer = try openAnother()
    let reader = try openAnother()
    let errors = ErrorBox()
    let group = DispatchGroup()
    group.enter()
    Thread.detachNewThread {
      defer { group.leave() }
      do {
        var note = try writer.createNote(NoteDraft(title: "Busy"))
        for n in 0..<15 { note = try writer.update(note, NoteChange(append: "line \(n)\n")) }
      } catch { errors.append("writer: \(error)") }
    }
    group.enter()
    Thread.detachNewThread {
      defer { group.leave() }
      for _ in 0..<30 {
        do {
          for note in try reader.allNotes() where note.warning != nil { errors.append("warning: \(note.warning!)") }
        } catch { errors.append("reader: \(error)") }
      }
    }
    XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
    XCTAssertEqual(errors.all, [])
    try assertCleanAndSound()
  }
}

/// Collects messages from several threads.
final class ErrorBox: @unchecked Sendable {
  private let lock = NSLock()
  private var messages: [String] = []

  func append(_ message: String) {
    lock.lock()
    messages.append(message)
    lock.unlock()
  }

  var all: [String] {
    lock.lock()
    defer { lock.unlock() }
    return messages
  }
}

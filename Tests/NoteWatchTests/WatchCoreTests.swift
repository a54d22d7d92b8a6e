import Foundation
import NoteWatch
import XCTest

final class EditorFilesTests: XCTestCase {
  func testEditorsScratchFilesAreScratch() {
    for path in [
      "inbox/4913", "inbox/5036", "inbox/5159", "inbox/note.md~", "inbox/.note.md.swp", "inbox/.note.md.swo", "inbox/.note.md.swx",
      "inbox/.note.md.svz", "inbox/#note.md#", "inbox/.#note.md", "inbox/note.md___jb_tmp___",
      "inbox/note.md___jb_old___", "inbox/.note.md.nb-123-1.tmp", "inbox/x.tmp", ".git/index", ".git",
      "work/.goutputstream-AB12CD", "work/.note.md.kate-swp",
    ] {
      XCTAssertTrue(EditorFiles.isScratch(path), path)
    }
  }

  func testNotesAndAttachmentsAreNot() {
    for path in [
      "inbox/note.md", "inbox/2026.md", "inbox/2026", "inbox/4914", "inbox/5000", "inbox/12345678901234567890",
      "drawing.svg", "movie.swf", "inbox/note.ink.jsonl", ".gitignore",
      ".nb/config.yaml", "work/#hashtag.md", "inbox/a#b#", "gitlog/x.md", "inbox/#",
    ] {
      XCTAssertFalse(EditorFiles.isScratch(path), path)
    }
  }
}

final class SaveScheduleTests: XCTestCase {
  let t0 = Date(timeIntervalSince1970: 1_000_000)

  func testDueDebounceAfterTheLastChange() {
    var schedule = SaveSchedule(debounce: 2, maxDelay: 30)
    XCTAssertNil(schedule.deadline)
    XCTAssertFalse(schedule.isDue(at: t0))
    schedule.change(at: t0)
    schedule.change(at: t0 + 1.5)
    XCTAssertEqual(schedule.deadline, t0 + 3.5)
    XCTAssertFalse(schedule.isDue(at: t0 + 3.4))
    XCTAssertTrue(schedule.isDue(at: t0 + 3.5))
    schedule.saved()
    XCTAssertFalse(schedule.isPending)
    XCTAssertNil(schedule.deadline)
  }

  func testAFileWrittenWithoutPauseIsSavedAfterMaxDelay() {
    var schedule = SaveSchedule(debounce: 2, maxDelay: 30)
    for second in stride(from: 0.0, through: 40, by: 1) { schedule.change(at: t0 + second) }
    XCTAssertEqual(schedule.deadline, t0 + 30)
    XCTAssertTrue(schedule.isDue(at: t0 + 30))
  }

  func testAnOlderEventDoesNotMoveTheDeadlineBack() {
    var schedule = SaveSchedule(debounce: 2)
    schedule.change(at: t0 + 5)
    schedule.change(at: t0 + 1)
    XCTAssertEqual(schedule.deadline, t0 + 7)
  }

  func testMaxDelayIsNeverShorterThanDebounce() {
    var schedule = SaveSchedule(debounce: 60, maxDelay: 30)
    schedule.change(at: t0)
    XCTAssertEqual(schedule.deadline, t0 + 60)
  }

  func testRetryDelayDoublesUpToItsMaximum() {
    var delay = RetryDelay(initial: 10, maximum: 180)
    XCTAssertFalse(delay.isFailing)
    XCTAssertEqual((0..<6).map { _ in delay.failed() }, [10, 20, 40, 80, 160, 180])
    XCTAssertTrue(delay.isFailing)
    delay.succeeded()
    XCTAssertEqual(delay.failed(), 10)
  }
}

final class WatchSettingsTests: XCTestCase {
  func testDurations() throws {
    XCTAssertEqual(try WatchSettings.duration("200ms", name: "--debounce"), 0.2, accuracy: 1e-9)
    XCTAssertEqual(try WatchSettings.duration("2s", name: "--debounce"), 2)
    XCTAssertEqual(try WatchSettings.duration("1.5s", name: "--debounce"), 1.5)
    XCTAssertEqual(try WatchSettings.duration("1m", name: "--debounce"), 60)
    XCTAssertEqual(try WatchSettings.duration(" 3 ", name: "--debounce"), 3)
    XCTAssertEqual(try WatchSettings.duration("0ms", name: "--debounce"), 0)
  }

  func testBadDurationsNameTheSettingAndTheForm() {
    for text in ["5x", "", "ms", "-1s", "1h", "nan", "25h", "1e400s"] {
      XCTAssertThrowsError(try WatchSettings.duration(text, name: "--debounce"), text) { error in
        let message = "\(error)"
        XCTAssertTrue(message.hasPrefix("--debounce: '\(text)'"), message)
      }
    }
    XCTAssertThrowsError(try WatchSettings.duration("0s", name: "--interval", minimum: 0.1)) { error in
      XCTAssertTrue("\(error)".contains("at least 0.1s"), "\(error)")
    }
  }

  func testConfigValuesApplyOverDefaults() throws {
    let settings = try WatchSettings().applying(
      config: ["debounce": "500ms", "sync": "true", "interval": "10s", "remote": "backup", "max_delay": "1m"],
      file: ".nb/config.yaml")
    XCTAssertEqual(settings.debounce, 0.5)
    XCTAssertTrue(settings.sync)
    XCTAssertEqual(settings.interval, 10)
    XCTAssertEqual(settings.remote, "backup")
    XCTAssertEqual(settings.maxDelay, 60)
    XCTAssertEqual(WatchSettings().debounce, 2)
    XCTAssertEqual(WatchSettings().interval, 3)
    XCTAssertFalse(WatchSettings().sync)
  }

  func testBadConfigValuesNameFileAndKey() {
    let cases: [([String: String], String)] = [
      (["debounce": "soon"], ".nb/config.yaml: watch.debounce: 'soon' is not a duration"),
      (["sync": "maybe"], ".nb/config.yaml: watch.sync: 'maybe' is not true or false"),
      (["debounc": "2s"], ".nb/config.yaml: watch.debounc: unknown setting"),
    ]
    for (config, prefix) in cases {
      XCTAssertThrowsError(try WatchSettings().applying(config: config, file: ".nb/config.yaml")) { error in
        XCTAssertTrue("\(error)".hasPrefix(prefix), "\(error)")
      }
    }
  }
}

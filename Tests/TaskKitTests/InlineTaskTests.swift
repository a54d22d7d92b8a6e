import TaskKit
import XCTest

final class InlineTaskTests: XCTestCase {
  private func task(_ line: String, file: StaticString = #filePath, lineNumber: UInt = #line) throws -> InlineTask {
    InlineTask(try XCTUnwrap(Checklist.items(in: line).first, file: file, line: lineNumber))
  }

  private func day(_ text: String) -> Day? { Day(iso: text) }

  private let today = Day(year: 2026, month: 12, day: 2)!

  // MARK: Reading

  func testFieldsAreReadFromTheEnd() throws {
    let parsed = try task("- [ ] Do it 📅 2026-12-01 ⏫")
    XCTAssertEqual(parsed.description, "Do it")
    XCTAssertEqual(parsed.due, day("2026-12-01"))
    XCTAssertEqual(parsed.priority, .high)
    XCTAssertEqual(parsed.obsidianPriority, "high")
    XCTAssertEqual(parsed.status, .open)
    XCTAssertEqual(parsed.problems, [])
  }

  func testEachDateFieldAlone() throws {
    let created = try task("- [ ] #task Has a created date ➕ 2023-04-13")
    XCTAssertEqual(created.created, day("2023-04-13"))
    XCTAssertEqual(created.description, "#task Has a created date")
    XCTAssertEqual(created.tags, ["task"])
    XCTAssertEqual(try task("- [ ] #task Has a scheduled date ⏳ 2023-04-14").scheduled, day("2023-04-14"))
    XCTAssertEqual(try task("- [ ] Has a scheduled date ⌛ 2023-04-14").scheduled, day("2023-04-14"))
    XCTAssertEqual(try task("- [ ] #task Has a start date 🛫 2023-04-15").start, day("2023-04-15"))
    XCTAssertEqual(try task("- [ ] #task Has a due date 📅 2023-04-16").due, day("2023-04-16"))
    XCTAssertEqual(try task("- [ ] Has a due date 📆 2023-04-16").due, day("2023-04-16"))
    XCTAssertEqual(try task("- [ ] Has a due date 🗓 2023-04-16").due, day("2023-04-16"))
    let done = try task("- [x] #task Has a done date ✅ 2023-04-17")
    XCTAssertEqual(done.done, day("2023-04-17"))
    XCTAssertEqual(done.status, .done)
    XCTAssertEqual(done.description, "#task Has a done date")
    let cancelled = try task("- [-] #task Has a cancelled date ❌ 2023-04-18")
    XCTAssertEqual(cancelled.cancelled, day("2023-04-18"))
    XCTAssertEqual(cancelled.status, .cancelled)
    XCTAssertNil(cancelled.due)
  }

  func testPriorities() throws {
    let cases: [(String, TaskPriority, String?)] = [
      ("- [ ] #task Highest priority 🔺", .urgent, "highest"),
      ("- [ ] #task High priority ⏫", .high, "high"),
      ("- [ ] #task Medium priority 🔼", .normal, "medium"),
      ("- [ ] #task Normal priority", .none, nil),
      ("- [ ] #task Low priority 🔽", .low, "low"),
      ("- [ ] #task Lowest priority ⏬", .low, "lowest"),
    ]
    for (line, priority, name) in cases {
      let parsed = try task(line)
      XCTAssertEqual(parsed.priority, priority, line)
      XCTAssertEqual(parsed.obsidianPriority, name, line)
      XCTAssertFalse(parsed.description.contains(" priority "), line)
    }
    XCTAssertEqual(try task("- [ ] #task Lowest priority ⏬").description, "#task Lowest priority")
  }

  func testRecurrenceIdDependsOnAndOnCompletion() throws {
    let repeating = try task("- [ ] #task Is a recurring task 🔁 every day when done")
    XCTAssertEqual(repeating.recurrence, "every day when done")
    XCTAssertEqual(repeating.description, "#task Is a recurring task")
    XCTAssertEqual(try task("- [ ] #task do this first 🆔 dcf64c").description, "#task do this first")
    XCTAssertEqual(
      try task("- [ ] #task do this after first and some other task ⛔ dcf64c,0h17ye").description,
      "#task do this after first and some other task")
    XCTAssertEqual(
      try task("- [ ] #task Remove this task when done 🏁 delete").description, "#task Remove this task when done")
    XCTAssertEqual(try task("- [ ] Water 🔁every week, on Monday!").recurrence, "every week, on Monday!")
    XCTAssertEqual(try task("- [ ] Blocked ⛔ a1 , b2,c_3 then call Bob").description, "Blocked then call Bob")
    XCTAssertEqual(try task("- [ ] Named 🆔 x-1 now").description, "Named now")
    XCTAssertEqual(try task("- [ ] Kept 🏁 keep 📅 2026-12-01").description, "Kept")
  }

  func testAllFieldsCombinedInAnyOrder() throws {
    let line =
      "- [ ] Take out the trash 🔁 every week on Sunday ⏳ 2026-11-29 📅 2026-11-30 🔼 ➕ 2026-11-20 🛫 2026-11-28 #home ^trash"
    let parsed = try task(line)
    XCTAssertEqual(parsed.description, "Take out the trash #home")
    XCTAssertEqual(parsed.recurrence, "every week on Sunday")
    XCTAssertEqual(parsed.scheduled, day("2026-11-29"))
    XCTAssertEqual(parsed.due, day("2026-11-30"))
    XCTAssertEqual(parsed.priority, .normal)
    XCTAssertEqual(parsed.created, day("2026-11-20"))
    XCTAssertEqual(parsed.start, day("2026-11-28"))
    XCTAssertEqual(parsed.tags, ["home"])
    XCTAssertEqual(parsed.problems, [])

    let reversed = try task("- [ ] ⏫ 📅 2026-12-01 Do it")
    XCTAssertEqual(reversed.description, "Do it")
    XCTAssertEqual(reversed.due, day("2026-12-01"))
    XCTAssertEqual(reversed.priority, .high)
  }

  func testToleratedOddities() throws {
    let nbsp = try task("- [ ] Pay rent 📅\u{00A0}2026-12-01")
    XCTAssertEqual(nbsp.due, day("2026-12-01"))
    XCTAssertEqual(nbsp.description, "Pay rent")
    XCTAssertEqual(try task("- [ ] Pay rent 📅   2026-12-01").due, day("2026-12-01"))
    XCTAssertEqual(try task("- [ ] Pay rent 📅\t2026-12-01").due, day("2026-12-01"))
    XCTAssertEqual(try task("- [ ] Pay rent 📅\u{FE0F} 2026-12-01").due, day("2026-12-01"))
    XCTAssertEqual(try task("- [ ] Pay rent 🗓️ 2026-12-01").due, day("2026-12-01"))
    XCTAssertEqual(try task("- [ ] Pay rent 📅2026-12-01").due, day("2026-12-01"))
    let selector = try task("- [ ] Urgent ⏫\u{FE0F}")
    XCTAssertEqual(selector.priority, .high)
    XCTAssertEqual(selector.description, "Urgent")
    let after = try task("- [ ] Do it 📅 2026-12-01 call Bob")
    XCTAssertEqual(after.due, day("2026-12-01"))
    XCTAssertEqual(after.description, "Do it call Bob")
  }

  func testDatesThatDoNotReadAreProblems() throws {
    let bad = try task("- [ ] Bad 📅 2026-13-01")
    XCTAssertNil(bad.due)
    XCTAssertEqual(bad.problems, ["📅 '2026-13-01' is not a date"])
    XCTAssertEqual(bad.description, "Bad 📅 2026-13-01")
    XCTAssertEqual(try task("- [ ] Leap ⏳ 2026-02-29").problems, ["⏳ '2026-02-29' is not a date"])
    XCTAssertEqual(try task("- [ ] Vague 📅 tomorrow").problems, ["📅 'tomorrow' is not a date"])
    XCTAssertEqual(try task("- [ ] Nothing 📅").problems, ["📅 has no date"])
    XCTAssertEqual(try task("- [ ] Long 📅 2026-12-011").problems, ["📅 '2026-12-011' is not a date"])
    XCTAssertEqual(try task("- [ ] Rule 🔁").problems, ["🔁 has no rule"])
    let dataview = try task("- [ ] Bad [due:: 2026-13-01]")
    XCTAssertNil(dataview.due)
    XCTAssertEqual(dataview.problems, ["due:: '2026-13-01' is not a date"])
    XCTAssertEqual(try task("- [ ] Odd [priority:: huge]").problems, ["priority:: 'huge' is not a priority"])
    let twice = try task("- [ ] Twice 📅 2026-12-01 📅 2026-12-05")
    XCTAssertEqual(twice.due, day("2026-12-01"))
    XCTAssertEqual(twice.description, "Twice")
    XCTAssertEqual(twice.problems, ["due date given more than once; the first is used"])
  }

  func testDataviewFields() throws {
    let due = try task("- [ ] #task Has a due date  [due:: 2023-04-16]")
    XCTAssertEqual(due.due, day("2023-04-16"))
    XCTAssertEqual(due.description, "#task Has a due date")
    XCTAssertEqual(try task("- [ ] A  [scheduled:: 2023-04-14]").scheduled, day("2023-04-14"))
    XCTAssertEqual(try task("- [ ] A  [start:: 2023-04-15]").start, day("2023-04-15"))
    XCTAssertEqual(try task("- [ ] A  [created:: 2023-04-13]").created, day("2023-04-13"))
    XCTAssertEqual(try task("- [x] A  [completion:: 2023-04-17]").done, day("2023-04-17"))
    XCTAssertEqual(try task("- [-] A  [cancelled:: 2023-04-18]").cancelled, day("2023-04-18"))
    let priority = try task("- [ ] #task Highest priority  [priority:: highest]")
    XCTAssertEqual(priority.priority, .urgent)
    XCTAssertEqual(priority.obsidianPriority, "highest")
    XCTAssertEqual(priority.description, "#task Highest priority")
    XCTAssertEqual(
      try task("- [ ] #task Is a recurring task [repeat:: every day when done]").recurrence, "every day when done")
    let parens = try task("- [ ] Parens (due:: 2023-04-16) ( start::2023-04-15 )")
    XCTAssertEqual(parens.due, day("2023-04-16"))
    XCTAssertEqual(parens.start, day("2023-04-15"))
    XCTAssertEqual(parens.description, "Parens")
    let other = try task("- [ ] Plan [project:: home] read [[Note]] and [site](https://x.org) [due:: 2026-12-01]")
    XCTAssertEqual(other.description, "Plan [project:: home] read [[Note]] and [site](https://x.org)")
    XCTAssertEqual(other.due, day("2026-12-01"))
    let kept = try task(
      "- [ ] #task Remove  [repeat:: every day]  [onCompletion:: delete]  [id:: a1]  [dependsOn:: b2,c3]")
    XCTAssertEqual(kept.description, "#task Remove")
    XCTAssertEqual(kept.recurrence, "every day")
    XCTAssertEqual(try task("- [ ] Mismatched [due:: 2026-12-01)").description, "Mismatched [due:: 2026-12-01)")
  }

  func testBlockLinksTagsAndStatuses() throws {
    let linked = try task("- [ ] Do it 📅 2026-12-01 ^abc-123")
    XCTAssertEqual(linked.description, "Do it")
    XCTAssertEqual(linked.due, day("2026-12-01"))
    XCTAssertEqual(try task("- [ ] Caret^abc").description, "Caret^abc")
    XCTAssertEqual(try task("- [ ] Hard break  ").description, "Hard break")
    let tagged = try task("- [ ] #work Call #client-a about http://x.com/#anchor and #bad, ok #a/b")
    XCTAssertEqual(tagged.tags, ["work", "client-a", "bad", "a/b"])
    XCTAssertEqual(tagged.description, "#work Call #client-a about http://x.com/#anchor and #bad, ok #a/b")
    XCTAssertEqual(try task("- [/] Doing").status, .inProgress)
    XCTAssertEqual(try task("- [>] Later").status, .other(">"))
    XCTAssertEqual(try task("- [ ]").description, "")
  }

  func testOddLinesNeverTrap() throws {
    let lines = [
      "- [ ] 📅", "- [ ] [due::", "- [ ] (", "- [ ] 🔁", "- [ ] ⏫\u{FE0F}", "- [ ] \u{FE0F}", "- [ ] ^", "- [ ] x ^",
      "- [ ] [", "- [ ] [due:: ]", "- [ ] ( due:: )", "- [ ] 📅 2026", "- [ ] 📅 \u{FFFD}", "- [x] ✅", "- [ ] ^^ ^a",
      "- [ ] #", "- [ ] # #", "- [ ] 🆔", "- [ ] ⛔ ,", "- [ ] 🏁 ", "> - [-] ❌ 2026-12-01",
    ]
    for line in lines {
      let parsed = try task(line)
      _ = parsed.markingDone(on: today, line: line)
      _ = parsed.markingOpen(line: line)
      _ = parsed.markingCancelled(on: today, line: line)
      _ = parsed.withDates(due: today, scheduled: today, start: today, line: line)
      _ = InlineTaskEdit.completingRepeat(parsed, line: line, on: today, nextDates: (today, today, today))
    }
    XCTAssertEqual(try task("- [ ] [due:: ]").problems, ["due:: '' is not a date"])
  }

  func testManyLines() {
    let text = (0..<10_000).map { "- [ ] task \($0) 📅 2026-12-01 ⏫ #t\($0 % 7)" }.joined(separator: "\r\n")
    let tasks = Checklist.items(in: text).map(InlineTask.init)
    XCTAssertEqual(tasks.count, 10_000)
    XCTAssertEqual(tasks.last?.description, "task 9999 #t3")
    XCTAssertEqual(tasks.filter { $0.due == Day(iso: "2026-12-01") }.count, 10_000)
  }

  // MARK: Writing

  func testMarkingDone() throws {
    let cases: [(String, String)] = [
      ("- [ ] Do it 📅 2026-12-01 ⏫", "- [x] Do it 📅 2026-12-01 ⏫ ✅ 2026-12-02"),
      ("  - [ ] Do it 📅 2026-12-01 ^abc", "  - [x] Do it 📅 2026-12-01 ✅ 2026-12-02 ^abc"),
      ("- [ ] Do it  ", "- [x] Do it ✅ 2026-12-02  "),
      ("- [ ]", "- [x] ✅ 2026-12-02"),
      ("- [ ] ", "- [x] ✅ 2026-12-02"),
      (
        "- [ ] #task Has a due date  [due:: 2023-04-16]",
        "- [x] #task Has a due date  [due:: 2023-04-16]  [completion:: 2026-12-02]"
      ),
      ("- [-] Skip ❌ 2026-11-30 📅 2026-12-01", "- [x] Skip 📅 2026-12-01 ✅ 2026-12-02"),
      ("- [-] ❌ 2026-11-30", "- [x] ✅ 2026-12-02"),
      ("- [-] ❌ 2026-11-30 ^b", "- [x] ✅ 2026-12-02 ^b"),
      ("> 1. [ ] Quote task 🔁 every week", "> 1. [x] Quote task 🔁 every week ✅ 2026-12-02"),
      ("- [ ] Redo ✅ 2026-01-01", "- [x] Redo ✅ 2026-12-02"),
      ("- [/] Doing 📅 2026-12-01", "- [x] Doing 📅 2026-12-01 ✅ 2026-12-02"),
      ("- [ ] Pay 📅\u{00A0}2026-12-01", "- [x] Pay 📅\u{00A0}2026-12-01 ✅ 2026-12-02"),
      ("\t* [ ] Tab\tinside 📅 2026-12-01", "\t* [x] Tab\tinside 📅 2026-12-01 ✅ 2026-12-02"),
      ("- [x] Already ✅ 2026-01-01", "- [x] Already ✅ 2026-01-01"),
      ("- [X] Already", "- [X] Already"),
      ("plain text", "plain text"),
    ]
    for (line, expected) in cases {
      let parsed = InlineTask(Checklist.items(in: line).first ?? Checklist.items(in: "- [ ] x")[0])
      XCTAssertEqual(parsed.markingDone(on: today, line: line), expected, line)
    }
  }

  func testMarkingOpen() throws {
    let cases: [(String, String)] = [
      ("- [x] Do it 📅 2026-12-01 ⏫ ✅ 2026-12-02", "- [ ] Do it 📅 2026-12-01 ⏫"),
      ("- [X] Done ✅ 2026-12-02 ^id", "- [ ] Done ^id"),
      ("- [x] A  [due:: 2023-04-16]  [completion:: 2026-12-02]", "- [ ] A  [due:: 2023-04-16]"),
      ("- [x] ✅ 2026-12-02 Buy milk", "- [ ] Buy milk"),
      ("- [-] Skip ❌ 2026-11-30", "- [ ] Skip"),
      ("- [x] Plain", "- [ ] Plain"),
      ("- [ ] Open ✅ 2026-12-02", "- [ ] Open ✅ 2026-12-02"),
    ]
    for (line, expected) in cases {
      XCTAssertEqual(try task(line).markingOpen(line: line), expected, line)
    }
  }

  func testMarkingCancelled() throws {
    let cases: [(String, String)] = [
      ("- [ ] Call Bob 📅 2026-12-01", "- [-] Call Bob 📅 2026-12-01 ❌ 2026-12-02"),
      ("- [x] Call ✅ 2026-12-01", "- [-] Call ❌ 2026-12-02"),
      ("- [ ] A [due:: 2026-12-01]", "- [-] A [due:: 2026-12-01]  [cancelled:: 2026-12-02]"),
      ("- [ ] Linked ^b1", "- [-] Linked ❌ 2026-12-02 ^b1"),
      ("- [-] Gone ❌ 2026-11-01", "- [-] Gone ❌ 2026-11-01"),
      ("- [x] ✅ 2026-12-01", "- [-] ❌ 2026-12-02"),
    ]
    for (line, expected) in cases {
      XCTAssertEqual(try task(line).markingCancelled(on: today, line: line), expected, line)
    }
  }

  func testWithDatesReplacesOnlyTheDateText() throws {
    let line = "- [ ] Water 🔁 every week ⏳ 2026-12-01 📅 2026-12-03"
    XCTAssertEqual(
      try task(line).withDates(
        due: day("2026-12-10"), scheduled: day("2026-12-08"), start: day("2026-12-07"), line: line),
      "- [ ] Water 🔁 every week ⏳ 2026-12-08 📅 2026-12-10")
    XCTAssertEqual(
      try task(line).withDates(due: nil, scheduled: day("2026-12-08"), start: nil, line: line),
      "- [ ] Water 🔁 every week ⏳ 2026-12-08 📅 2026-12-03")
    let dataview = "- [ ] Water (due:: 2026-12-01)  [start::2026-11-30]"
    XCTAssertEqual(
      try task(dataview).withDates(
        due: day("2026-12-10"), scheduled: day("2026-12-09"), start: day("2026-12-08"), line: dataview),
      "- [ ] Water (due:: 2026-12-10)  [start::2026-12-08]")
  }

  func testCompletingARepeatingTask() throws {
    let line = "- [ ] Water plants 🔁 every week 📅 2026-12-01 ^w1"
    XCTAssertEqual(
      InlineTaskEdit.completingRepeat(try task(line), line: line, on: today, nextDates: (day("2026-12-08"), nil, nil)),
      [
        "- [ ] Water plants 🔁 every week 📅 2026-12-08",
        "- [x] Water plants 🔁 every week 📅 2026-12-01 ✅ 2026-12-02 ^w1",
      ])
    XCTAssertEqual(
      InlineTaskEdit.completingRepeat(try task(line), line: line, on: today, nextDates: nil),
      ["- [x] Water plants 🔁 every week 📅 2026-12-01 ✅ 2026-12-02 ^w1"])
  }

  func testNextOccurrenceDropsIdsDependenciesAndCreatedDate() throws {
    let line = "  * [/] Report 🆔 r1 ⛔ a1 🔁 every month ➕ 2026-11-01 ⏳ 2026-12-01"
    XCTAssertEqual(
      InlineTaskEdit.completingRepeat(try task(line), line: line, on: today, nextDates: (nil, day("2027-01-01"), nil)),
      [
        "  * [ ] Report 🔁 every month ⏳ 2027-01-01",
        "  * [x] Report 🆔 r1 ⛔ a1 🔁 every month ➕ 2026-11-01 ⏳ 2026-12-01 ✅ 2026-12-02",
      ])
  }

  func testOnCompletionDeleteDropsTheCompletedLine() throws {
    let line = "- [ ] Stretch 🔁 every day 🏁 delete 📅 2026-12-01"
    XCTAssertEqual(
      InlineTaskEdit.completingRepeat(try task(line), line: line, on: today, nextDates: (day("2026-12-03"), nil, nil)),
      ["- [ ] Stretch 🔁 every day 🏁 delete 📅 2026-12-03"])
    XCTAssertEqual(InlineTaskEdit.completingRepeat(try task(line), line: line, on: today, nextDates: nil), [])
  }

  func testCompletingARepeatingDataviewTask() throws {
    let line = "- [ ] #task Is a recurring task [repeat:: every day when done]  [due:: 2026-12-01]"
    XCTAssertEqual(
      InlineTaskEdit.completingRepeat(try task(line), line: line, on: today, nextDates: (day("2026-12-03"), nil, nil)),
      [
        "- [ ] #task Is a recurring task [repeat:: every day when done]  [due:: 2026-12-03]",
        "- [x] #task Is a recurring task [repeat:: every day when done]  [due:: 2026-12-01]  [completion:: 2026-12-02]",
      ])
    let done = "- [x] Done 🔁 every day ✅ 2026-12-01"
    XCTAssertEqual(
      InlineTaskEdit.completingRepeat(try task(done), line: done, on: today, nextDates: (today, nil, nil)), [done])
  }

  func testEditingALineOfACRLFFileChangesOnlyThatLine() throws {
    let file = "# Plan\r\n- [ ] first\r\n  - [ ] Call 📅 2026-12-01\r\nend\r\n"
    let item = Checklist.items(in: file)[1]
    let bytes = Array(file.utf8)
    let line = String(decoding: bytes[item.lineStart..<item.lineEnd], as: UTF8.self)
    XCTAssertEqual(line, "  - [ ] Call 📅 2026-12-01")
    let changed = InlineTask(item).markingDone(on: today, line: line)
    let result = String(
      decoding: bytes[..<item.lineStart] + Array(changed.utf8) + bytes[item.lineEnd...], as: UTF8.self)
    XCTAssertEqual(result, "# Plan\r\n- [ ] first\r\n  - [x] Call 📅 2026-12-01 ✅ 2026-12-02\r\nend\r\n")
  }

  /// Lines built from awkward pieces: nothing traps, and writes that undo each other give the line back byte for
  /// byte (the expectation is the input itself, not anything the code produced).
  func testMixedPiecesRoundTrip() throws {
    let pieces = [
      "Do", "it", " ", "  ", "\u{00A0}", "📅 2026-12-01", "📅\u{FE0F} 2026-12-01", "⏳2026-11-30", "🔁 every week", "⏫",
      "🔼\u{FE0F}", "#tag", "[due:: 2026-12-01]", "(start:: 2026-11-01)", "[priority:: high]", "^blk", " ^id1", "[", "(",
      "::", "🆔 a1", "⛔ a1, b2", "🏁 keep", "é", "\u{FFFD}", "[[Link]]", "`code`", "2026-13-01", "📅", "\t", "]", ")",
      "[completion:: x]", "(due::", "📅 2026-12-01 ^x", " ^", "✓",
    ]
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ bound: Int) -> Int {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((seed >> 33) % UInt64(bound))
    }
    for round in 0..<3_000 {
      let line =
        ["- [ ] ", "> 1. [ ] ", "  * [ ] ", "- [ ]  "][round % 4]
        + (0..<next(7)).map { _ in pieces[next(pieces.count)] }.joined(separator: next(2) == 0 ? " " : "")
      let parsed = try task(line)
      let done = parsed.markingDone(on: today, line: line)
      XCTAssertEqual(parsed.markingOpen(line: done), line, line)
      let cancelled = parsed.markingCancelled(on: today, line: line)
      XCTAssertEqual(parsed.markingOpen(line: cancelled), line, line)
      XCTAssertEqual(
        parsed.withDates(due: parsed.due, scheduled: parsed.scheduled, start: parsed.start, line: line), line, line)
      let lines = InlineTaskEdit.completingRepeat(parsed, line: line, on: today, nextDates: (nil, nil, nil))
      XCTAssertEqual(lines.last, done, line)
    }
  }
}

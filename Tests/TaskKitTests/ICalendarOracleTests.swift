import Foundation
import NBTestSupport
import XCTest

@testable import TaskKit

/// Exports many generated tasks and has an independent reader (Python's `icalendar` package) check the file.
final class ICalendarOracleTests: XCTestCase {
  /// The first Python on which `import icalendar` works: the one on PATH (which may be a pyenv without it), then the
  /// system one Debian's python3-icalendar installs into.
  private func pythonWithICalendar() throws -> String? {
    for candidate in ["python3", "/usr/bin/python3"] {
      guard let result = try? ProcessRunner.run(candidate, arguments: ["-c", "import icalendar"], timeout: 60) else {
        continue
      }
      if result.succeeded { return candidate }
    }
    return nil
  }

  /// Generated tasks exercising every field; titles and categories avoid commas, which icalendar 4.0.3 splits
  /// CATEGORIES at even when escaped.
  static func generatedTasks(count: Int) -> [TaskItem] {
    var random = SplitMix64(seed: 20_000)
    let words = ["alpha", "Ünïcødé", "日本語", "emoji 😀👍🏽", "semi;colon", "back\\slash", "quote\"s", "tab\there", "x"]
    let rules = [
      "FREQ=DAILY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE", "FREQ=MONTHLY;COUNT=5;BYMONTHDAY=-1",
      "FREQ=YEARLY;UNTIL=20300101T000000Z;BYMONTH=3",
    ]
    let statuses: [TaskStatus] = [.open, .inProgress, .done, .cancelled, .other("waiting")]
    let priorities: [TaskPriority] = [.none, .low, .normal, .high, .urgent, .other("p")]
    func date() -> TaskDate? {
      let d = Day(dayNumber: Int64.random(in: 0...40_000, using: &random))
      let h = Int.random(in: 0...23, using: &random)
      let m = Int.random(in: 0...59, using: &random)
      let s = Int.random(in: 0...59, using: &random)
      switch Int.random(in: 0...3, using: &random) {
      case 0: return nil
      case 1: return .day(d)
      case 2:
        return .dateTime(
          d, hour: h, minute: m, second: s, offsetSeconds: 60 * Int.random(in: -720...840, using: &random))
      default: return .dateTime(d, hour: h, minute: m, second: s, offsetSeconds: nil)
      }
    }
    return (0..<count).map { index in
      var title = (0..<Int.random(in: 1...6, using: &random)).map { _ in words.randomElement(using: &random)! }
        .joined(separator: " ")
      if index % 10 == 0 { title += " " + String(repeating: "lång ", count: Int.random(in: 20...60, using: &random)) }
      if index % 13 == 0 { title += "\nsecond line" }
      return TaskItem(
        id: index % 3 == 0 ? nil : "uid-\(index)@nb", title: title, status: statuses[index % statuses.count],
        priority: priorities[index % priorities.count], due: date(), scheduled: date(), completed: date(),
        created: Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0...2_000_000_000, using: &random))),
        updated: index % 2 == 0 ? nil : Date(timeIntervalSince1970: 1_800_000_000),
        recurrence: index % 4 == 0 ? nil : rules.randomElement(using: &random),
        recurrenceAnchor: index % 5 == 0 ? .completion : .scheduled,
        completeInstances: index % 6 == 0 ? [Day(dayNumber: 20_000), Day(dayNumber: 20_007)] : [],
        reminders: index % 7 == 0
          ? [.relative(text: "-PT1H", seconds: -3600), .absolute(.day(Day(dayNumber: 1)))] : [],
        contexts: index % 3 == 1 ? ["@home", "phone"] : [], projects: index % 2 == 0 ? ["[[P, 1]]", "a/b"] : [],
        tags: index % 4 == 1 ? ["tag one", "ταγ"] : [], location: index % 8 == 0 ? "Room; 1, 2" : nil,
        details: index % 9 == 0 ? String(repeating: "détails, ", count: 40) + "\nend" : nil)
    }
  }

  /// What Python's `date.isoformat()`/`datetime.isoformat()` prints for the value DUE is written as; converted to UTC
  /// with Foundation's Calendar, not with the code under test.
  static func pythonISO(_ date: TaskDate?) -> String? {
    guard let date else { return nil }
    switch date {
    case .day(let day):
      return day.iso
    case .dateTime(let day, let hour, let minute, let second, nil):
      return String(format: "%@T%02d:%02d:%02d", day.iso, hour, minute, second)
    case .dateTime(let day, let hour, let minute, let second, let offset?):
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = TimeZone(secondsFromGMT: offset)!
      let components = DateComponents(
        year: day.year, month: day.month, day: day.day, hour: hour, minute: minute, second: second)
      let instant = calendar.date(from: components)!
      calendar.timeZone = TimeZone(identifier: "UTC")!
      let utc = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
      return String(
        format: "%04d-%02d-%02dT%02d:%02d:%02d+00:00", utc.year!, utc.month!, utc.day!, utc.hour!, utc.minute!,
        utc.second!)
    }
  }

  func testPythonICalendarReadsTwentyThousandTasks() throws {
    guard let python = try pythonWithICalendar() else {
      XCTFail("python3 with the icalendar package is required: install it (apt-get install python3-icalendar)")
      return
    }
    let tasks = Self.generatedTasks(count: 20_000)
    let text = ICalendar.export(tasks, now: Date(timeIntervalSince1970: 1_795_514_400))
    for line in text.components(separatedBy: "\r\n") where line.utf8.count > 75 {
      XCTFail("line longer than 75 octets: \(line)")
      break
    }
    let directory = try TemporaryDirectory(prefix: "nb-ical")
    let file = try directory.write("tasks.ics", text)
    let script = """
      import icalendar, json, sys
      cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
      todos = cal.walk('VTODO')
      errors = [e for c in cal.walk() for e in getattr(c, 'errors', [])]
      out = {'count': len(todos), 'errors': [str(e) for e in errors[:5]], 'dtstamp': str(todos[0]['DTSTAMP'].dt),
             'alarms': len(cal.walk('VALARM')), 'samples': []}
      for i in range(0, len(todos), 11):
          t = todos[i]
          def get(name, f):
              v = t.get(name)
              return None if v is None else f(v)
          out['samples'].append([
              i, str(t['UID']), str(t['SUMMARY']), get('DUE', lambda v: v.dt.isoformat()),
              get('PRIORITY', int), get('STATUS', str), get('RRULE', lambda v: v.to_ical().decode()),
              get('CATEGORIES', lambda v: [str(c) for c in v.cats]),
              [a['TRIGGER'].to_ical().decode() + ' ' + str(a['TRIGGER'].params.get('RELATED'))
               for a in t.walk('VALARM')]])
      json.dump(out, sys.stdout)
      """
    let result = try ProcessRunner.run(python, arguments: ["-c", script, file.path], timeout: 600)
    XCTAssertTrue(result.succeeded, result.stderr)
    guard result.succeeded,
      let output = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any],
      let samples = output["samples"] as? [[Any]]
    else { return XCTFail("unreadable output: \(result.stdout.prefix(500))") }
    XCTAssertEqual(output["count"] as? Int, 20_000)
    XCTAssertEqual(output["errors"] as? [String], [])
    XCTAssertEqual(output["dtstamp"] as? String, "2026-11-24 10:00:00+00:00")
    XCTAssertEqual(output["alarms"] as? Int, tasks.reduce(0) { $0 + $1.reminders.count })
    // Every 11th: coprime with every period the generator uses, so each kind of task is sampled.
    XCTAssertEqual(samples.count, (20_000 + 10) / 11)
    for sample in samples {
      guard let index = sample[0] as? Int, tasks.indices.contains(index) else { return XCTFail("bad sample \(sample)") }
      let task = tasks[index]
      XCTAssertEqual(sample[1] as? String, task.id ?? "nb-\(index + 1)")
      XCTAssertEqual(sample[2] as? String, task.title, "task \(index)")
      XCTAssertEqual(sample[3] as? String, Self.pythonISO(task.due), "task \(index)")
      let priority: Int? = [TaskPriority.urgent: 1, .high: 3, .normal: 5, .low: 7][task.priority]
      XCTAssertEqual(sample[4] as? Int, priority, "task \(index)")
      let status: String? = [
        TaskStatus.open: "NEEDS-ACTION", .inProgress: "IN-PROCESS", .done: "COMPLETED",
        .cancelled: "CANCELLED",
      ][task.status]
      XCTAssertEqual(sample[5] as? String, status, "task \(index)")
      XCTAssertEqual(sample[6] as? String, task.recurrence, "task \(index)")
      let categories = task.tags + task.contexts
      XCTAssertEqual(sample[7] as? [String], categories.isEmpty ? nil : categories, "task \(index)")
      // Every generated task with reminders has these two: an hour before DUE, and 1970-01-02 (a day, so 00:00 UTC).
      let triggers = task.reminders.isEmpty ? [] : ["-PT1H END", "19700102T000000Z None"]
      XCTAssertEqual(sample[8] as? [String], triggers, "task \(index)")
    }
  }

  /// The same generated tasks read back by `parse`.
  func testRoundTripOfGeneratedTasks() throws {
    let tasks = Self.generatedTasks(count: 3000)
    let back = try ICalendar.parse(ICalendar.export(tasks, now: Date(timeIntervalSince1970: 0)))
    XCTAssertEqual(back.warnings, [])
    XCTAssertEqual(back.tasks.count, tasks.count)
    for (index, (original, read)) in zip(tasks, back.tasks).enumerated() {
      // The documented changes, applied by hand.
      var expected = original
      if expected.id == nil { expected.id = "nb-\(index + 1)" }
      if case .other = expected.status { expected.status = expected.completed == nil ? .open : .done }
      if case .other = expected.priority { expected.priority = .none }
      for keyPath in [\TaskItem.due, \TaskItem.scheduled, \TaskItem.completed] {
        if case .dateTime(_, _, _, _, let offset?)? = expected[keyPath: keyPath], offset != 0 {
          let iso = Self.pythonISO(expected[keyPath: keyPath])!
          expected[keyPath: keyPath] = TaskDate(text: iso.replacingOccurrences(of: "+00:00", with: "Z"))
        }
      }
      XCTAssertEqual(read, expected, "task \(index)")
    }
  }
}

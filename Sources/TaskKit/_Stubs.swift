// TEMPORARY: signatures of what helpers are writing, so NoteStore compiles before their branches land.
import Foundation

public struct ChecklistItem: Equatable, Sendable {
  public var line: Int
  public var lineStart: Int
  public var lineEnd: Int
  public var indent: Int
  public var marker: String
  public var check: Character
  public var checkOffset: Int
  public var text: String
  public var parent: Int?
  public var depth: Int
  public var status: TaskStatus
}
public enum Checklist {
  public static func items(in text: String, bodyStart: Int = 0) -> [ChecklistItem] { [] }
  public static func setting(_ item: ChecklistItem, check: Character, in text: String) -> String { text }
  public static func progress(_ items: [ChecklistItem]) -> (done: Int, total: Int) { (0, 0) }
}
public struct InlineTask: Equatable, Sendable {
  public var item: ChecklistItem
  public var description: String
  public var status: TaskStatus
  public var priority: TaskPriority
  public var obsidianPriority: String?
  public var due: Day?
  public var scheduled: Day?
  public var start: Day?
  public var created: Day?
  public var done: Day?
  public var cancelled: Day?
  public var recurrence: String?
  public var tags: [String]
  public var problems: [String]
  public init(_ item: ChecklistItem) {
    self.item = item
    description = item.text
    status = item.status
    priority = .none
    tags = []
    problems = []
  }
  public func markingDone(on day: Day, line: String) -> String { line }
  public func markingOpen(line: String) -> String { line }
  public func withDates(due: Day?, scheduled: Day?, start: Day?, line: String) -> String { line }
  public func markingCancelled(on day: Day, line: String) -> String { line }
}
public enum InlineTaskEdit {
  public static func completingRepeat(
    _ task: InlineTask, line: String, on day: Day, nextDates: (due: Day?, scheduled: Day?, start: Day?)?
  ) -> [String] { [line] }
}
public struct RecurrenceError: Error, Equatable, Sendable, CustomStringConvertible {
  public var text: String
  public var message: String
  public var description: String { message }
}
public struct Recurrence: Hashable, Sendable {
  public var start: Day?
  public init(rrule: String) throws { throw RecurrenceError(text: rrule, message: "stub") }
  public static func parse(userText: String) throws -> (rule: Recurrence, anchor: RecurrenceAnchor?) {
    (try Recurrence(rrule: userText), nil)
  }
  public var rrule: String { "" }
  public var summary: String { "" }
  public func next(after day: Day, seriesStart: Day) -> Day? { nil }
}
public struct SeriesAdvance: Equatable, Sendable {
  public var due: TaskDate?
  public var scheduled: TaskDate?
  public var reminders: [Reminder]
  public var dayShift: Int
}
public enum TaskSeries {
  public static func advance(
    due: TaskDate?, scheduled: TaskDate?, reminders: [Reminder], rule: Recurrence, anchor: RecurrenceAnchor,
    completedOn: Day, timeZone: TimeZone
  ) -> SeriesAdvance? { nil }
}
public struct DateArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
  public var argument: String
  public var description: String { argument }
}
public enum DateArgument {
  public static let acceptedForms = ""
  public static func parse(_ text: String, now: Date, timeZone: TimeZone) throws -> TaskDate {
    throw DateArgumentError(argument: text)
  }
}
public struct ISODuration: Hashable, Sendable {
  public var totalSeconds: Int
  public var text: String
  public init?(text: String) { return nil }
}
public enum ICalendar {
  public struct ImportResult: Equatable, Sendable {
    public var tasks: [TaskItem]
    public var skipped: [String: Int]
    public var warnings: [String]
  }
  public static func export(_ tasks: [TaskItem], now: Date) -> String { "" }
  public static func parse(_ text: String) throws -> ImportResult { ImportResult(tasks: [], skipped: [:], warnings: []) }
}
public enum TodoTxt {
  public struct ImportResult: Equatable, Sendable {
    public var tasks: [TaskItem]
    public var warnings: [String]
  }
  public static func export(_ tasks: [TaskItem]) -> String { "" }
  public static func parse(_ text: String) -> ImportResult { ImportResult(tasks: [], warnings: []) }
}

// TEMPORARY: signatures of what helpers are writing, so NoteStore compiles before their branches land.
import Foundation

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

// TEMPORARY: signatures of what helpers are writing, so NoteStore compiles before their branches land.
import Foundation

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

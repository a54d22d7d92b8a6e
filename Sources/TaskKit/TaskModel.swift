import Foundation
import TextFormat

/// Where a task stands. Files write `open`, `in-progress`, `done`, `cancelled` (TaskNotes' values); `todo`,
/// `doing`, `x` and a few other spellings are read as the same. Any other value is kept as written.
public enum TaskStatus: Hashable, Sendable, CustomStringConvertible {
  case open
  case inProgress
  case done
  case cancelled
  /// A value nb does not know: listed (with a warning) and never rewritten.
  case other(String)

  /// Reads a front matter value, case-insensitively.
  public init(text: String) {
    switch text.trimmingWhitespaces().lowercased() {
    case "open", "todo", "to-do", "none", "": self = .open
    case "in-progress", "in progress", "inprogress", "doing", "started", "active": self = .inProgress
    case "done", "x", "completed", "complete", "closed": self = .done
    case "cancelled", "canceled": self = .cancelled
    default: self = .other(text)
    }
  }

  /// The value nb writes.
  public var text: String {
    switch self {
    case .open: return "open"
    case .inProgress: return "in-progress"
    case .done: return "done"
    case .cancelled: return "cancelled"
    case .other(let text): return text
    }
  }

  /// Done or cancelled: nothing left to do.
  public var isClosed: Bool { self == .done || self == .cancelled }

  public var description: String { text }
}

/// How urgent a task is. Files write `none`, `low`, `normal`, `high`, `urgent`; other values are kept as written.
public enum TaskPriority: Hashable, Sendable, CustomStringConvertible {
  case none
  case low
  case normal
  case high
  case urgent
  case other(String)

  /// Reads a front matter value, case-insensitively (`medium` is `normal`, `highest` is `urgent`, `lowest` is `low`).
  public init(text: String) {
    switch text.trimmingWhitespaces().lowercased() {
    case "none", "": self = .none
    case "low", "lowest": self = .low
    case "normal", "medium": self = .normal
    case "high": self = .high
    case "urgent", "highest": self = .urgent
    default: self = .other(text)
    }
  }

  /// The value nb writes.
  public var text: String {
    switch self {
    case .none: return "none"
    case .low: return "low"
    case .normal: return "normal"
    case .high: return "high"
    case .urgent: return "urgent"
    case .other(let text): return text
    }
  }

  /// Larger is more urgent: urgent 4, high 3, normal 2, low 1, none and unknown 0.
  public var rank: Int {
    switch self {
    case .urgent: return 4
    case .high: return 3
    case .normal: return 2
    case .low: return 1
    case .none, .other: return 0
    }
  }

  public var description: String { text }
}

/// What the next occurrence of a repeating task is counted from.
public enum RecurrenceAnchor: String, Hashable, Sendable, CaseIterable {
  /// From the date it was due (scheduled): a weekly meeting stays on its weekday.
  case scheduled
  /// From the day it was completed: "water the plants 3 days after I last did".
  case completion
}

/// When to remind: at an instant, or a duration before (negative) or after the due date.
public enum Reminder: Hashable, Sendable {
  case absolute(TaskDate)
  /// An ISO 8601 duration as written (`-PT1H`) and its length in seconds.
  case relative(text: String, seconds: Int)

  /// Reads an offset (an ISO 8601 duration, `-PT1H`) or a date-time (`2026-12-01T09:00:00+01:00`); nil otherwise.
  public init?(text: String) {
    let trimmed = text.trimmingWhitespaces()
    if let duration = ISODuration(text: trimmed) {
      self = .relative(text: trimmed, seconds: duration.totalSeconds)
    } else if let date = TaskDate(text: trimmed) {
      self = .absolute(date)
    } else {
      return nil
    }
  }

  /// The reminder as files and listings write it: its offset or its date-time.
  public var text: String {
    switch self {
    case .relative(let text, _): return text
    case .absolute(let date): return date.text
    }
  }
}

/// One task as every format nb exchanges tasks in sees it (front matter, iCalendar, todo.txt).
public struct TaskItem: Equatable, Sendable {
  /// The note's `id` (an iCalendar `UID`); nil for a task not yet saved.
  public var id: String?
  public var title: String
  public var status: TaskStatus
  public var priority: TaskPriority
  public var due: TaskDate?
  public var scheduled: TaskDate?
  /// `completedDate`.
  public var completed: TaskDate?
  public var created: Date?
  public var updated: Date?
  /// An RFC 5545 RRULE (`FREQ=WEEKLY;BYDAY=MO`), as written.
  public var recurrence: String?
  public var recurrenceAnchor: RecurrenceAnchor
  /// Days on which a repeating task was completed.
  public var completeInstances: [Day]
  public var reminders: [Reminder]
  public var contexts: [String]
  /// Projects: notebook paths or `[[links]]`, as written.
  public var projects: [String]
  public var tags: [String]
  public var location: String?
  /// The note's body text (an iCalendar `DESCRIPTION`).
  public var details: String?

  public init(
    id: String? = nil, title: String, status: TaskStatus = .open, priority: TaskPriority = .none,
    due: TaskDate? = nil, scheduled: TaskDate? = nil, completed: TaskDate? = nil, created: Date? = nil,
    updated: Date? = nil, recurrence: String? = nil, recurrenceAnchor: RecurrenceAnchor = .scheduled,
    completeInstances: [Day] = [], reminders: [Reminder] = [], contexts: [String] = [], projects: [String] = [],
    tags: [String] = [], location: String? = nil, details: String? = nil
  ) {
    self.id = id
    self.title = title
    self.status = status
    self.priority = priority
    self.due = due
    self.scheduled = scheduled
    self.completed = completed
    self.created = created
    self.updated = updated
    self.recurrence = recurrence
    self.recurrenceAnchor = recurrenceAnchor
    self.completeInstances = completeInstances
    self.reminders = reminders
    self.contexts = contexts
    self.projects = projects
    self.tags = tags
    self.location = location
    self.details = details
  }
}

import Foundation
import TaskKit

/// A new task: a note whose front matter carries the task keys, with its subtasks as a checklist.
public struct TaskDraft: Equatable, Sendable {
  public var title: String
  /// The project: the notebook the task goes in (nil: the default notebook).
  public var notebook: String?
  public var status: TaskStatus
  public var priority: TaskPriority?
  public var due: TaskDate?
  public var scheduled: TaskDate?
  public var reminders: [Reminder]
  /// An RFC 5545 RRULE.
  public var recurrence: String?
  public var recurrenceAnchor: RecurrenceAnchor?
  public var contexts: [String]
  public var projects: [String]
  public var tags: [String]
  public var location: String?
  /// Subtasks, written as `- [ ] text` lines.
  public var subtasks: [String]
  /// Text after the checklist.
  public var details: String
  /// For an imported task: when it was completed.
  public var completed: TaskDate?
  public var completeInstances: [Day]

  public init(
    title: String, notebook: String? = nil, status: TaskStatus = .open, priority: TaskPriority? = nil,
    due: TaskDate? = nil, scheduled: TaskDate? = nil, reminders: [Reminder] = [], recurrence: String? = nil,
    recurrenceAnchor: RecurrenceAnchor? = nil, contexts: [String] = [], projects: [String] = [], tags: [String] = [],
    location: String? = nil, subtasks: [String] = [], details: String = "", completed: TaskDate? = nil,
    completeInstances: [Day] = []
  ) {
    self.title = title
    self.notebook = notebook
    self.status = status
    self.priority = priority
    self.due = due
    self.scheduled = scheduled
    self.reminders = reminders
    self.recurrence = recurrence
    self.recurrenceAnchor = recurrenceAnchor
    self.contexts = contexts
    self.projects = projects
    self.tags = tags
    self.location = location
    self.subtasks = subtasks
    self.details = details
    self.completed = completed
    self.completeInstances = completeInstances
  }
}

/// Changes to a task note's fields; nil leaves a field as it is, `clear` removes keys.
public struct TaskEdit: Equatable, Sendable {
  /// The fields `clear` may name.
  public enum Field: String, CaseIterable, Sendable {
    case due, scheduled, priority, reminders, recurrence, contexts, projects, location
  }

  public var title: String?
  public var priority: TaskPriority?
  public var due: TaskDate?
  public var scheduled: TaskDate?
  /// Replaces the reminders.
  public var reminders: [Reminder]?
  /// Adds reminders to those there.
  public var addReminders: [Reminder]
  public var recurrence: String?
  public var recurrenceAnchor: RecurrenceAnchor?
  public var contexts: [String]?
  public var projects: [String]?
  public var location: String?
  public var clear: Set<Field>

  public init(
    title: String? = nil, priority: TaskPriority? = nil, due: TaskDate? = nil, scheduled: TaskDate? = nil,
    reminders: [Reminder]? = nil, addReminders: [Reminder] = [], recurrence: String? = nil,
    recurrenceAnchor: RecurrenceAnchor? = nil, contexts: [String]? = nil, projects: [String]? = nil,
    location: String? = nil, clear: Set<Field> = []
  ) {
    self.title = title
    self.priority = priority
    self.due = due
    self.scheduled = scheduled
    self.reminders = reminders
    self.addReminders = addReminders
    self.recurrence = recurrence
    self.recurrenceAnchor = recurrenceAnchor
    self.contexts = contexts
    self.projects = projects
    self.location = location
    self.clear = clear
  }

  /// Whether the edit changes nothing.
  public var isEmpty: Bool {
    self == TaskEdit()
  }
}

/// What completing a task did.
public struct TaskCompletion: Equatable, Sendable {
  /// The task afterwards.
  public var entry: TaskEntry
  /// For a repeating task: the due date of the next occurrence (nil when the series ended or it does not repeat).
  public var nextDue: TaskDate?
  /// Whether it repeats and moved on to a next occurrence (instead of becoming done).
  public var advanced: Bool

  public init(entry: TaskEntry, nextDue: TaskDate?, advanced: Bool) {
    self.entry = entry
    self.nextDue = nextDue
    self.advanced = advanced
  }
}

/// Which subtask: its number (1-based, in the note's order) or words of its text.
public enum SubtaskSelector: Equatable, Sendable {
  case number(Int)
  case text(String)
}

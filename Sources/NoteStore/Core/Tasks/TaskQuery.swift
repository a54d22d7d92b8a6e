import Foundation
import TaskKit

/// Which tasks to list and in what order: a view (open, today, overdue, …), filters, a sort.
///
/// Answered from the index by ``NoteRepository/tasks(_:)``. Dates are local to the repository's time zone: "today"
/// is the local calendar day, "overdue" is due before now and not done (a task due today with no time is overdue
/// from tomorrow on).
public struct TaskQuery: Equatable, Sendable {
  /// Which tasks by state and date.
  public enum View: Equatable, Sendable {
    /// Open and in-progress tasks (and tasks whose status nb does not know), with or without a due date.
    case open
    /// Not done, due today.
    case today
    /// Not done, due before now.
    case overdue
    /// Not done, due from today through `days` days from today.
    case upcoming(days: Int)
    /// Not done, without a due date (or with one nb cannot read).
    case noDue
    /// Done (status `done`), completed on or after `since` when given.
    case done(since: Day?)
    /// Every task, whatever its state.
    case all
  }

  /// How the results are ordered.
  public enum Sort: String, Equatable, Sendable, CaseIterable {
    /// Overdue first, then by due date (no due date last), then by priority, then title.
    case smart
    /// By due date (earliest first, none last).
    case due
    /// Most urgent first, then by due date.
    case priority
    /// By title, case-insensitively.
    case title
    /// Newest note first (a task note's `created`; inline tasks by their note).
    case created
    /// Most recently changed note first.
    case updated
  }

  public var view: View
  /// A notebook (the task's notebook or one above it) or a name in the task's `projects`.
  public var project: String?
  public var priority: TaskPriority?
  /// A tag the task or its note carries (a nested tag `work/x` matches `work`).
  public var tag: String?
  /// A name in the task's `contexts` (a leading `@` ignored).
  public var context: String?
  /// Words in the title (or, for a task note, anywhere in the note).
  public var search: String?
  /// Include tasks in archived projects (notebooks whose `.notebook.yaml` says `archived: true`).
  public var includeArchived: Bool
  /// Include checklist lines of ordinary notes (inline tasks).
  public var includeInline: Bool
  public var sort: Sort
  public var reverse: Bool
  /// At most this many tasks.
  public var limit: Int?

  /// A query; the default lists every open task, overdue first.
  public init(
    view: View = .open, project: String? = nil, priority: TaskPriority? = nil, tag: String? = nil,
    context: String? = nil, search: String? = nil, includeArchived: Bool = false, includeInline: Bool = true,
    sort: Sort = .smart, reverse: Bool = false, limit: Int? = nil
  ) {
    self.view = view
    self.project = project
    self.priority = priority
    self.tag = tag
    self.context = context
    self.search = search
    self.includeArchived = includeArchived
    self.includeInline = includeInline
    self.sort = sort
    self.reverse = reverse
    self.limit = limit
  }
}

/// One task found: the note holding it, which line (for an inline task), its fields, and its state now.
public struct TaskEntry: Equatable, Sendable {
  /// The note: the task itself, or the note an inline task's line is in.
  public var note: Note
  /// nil for a task note; the 1-based line of an inline task.
  public var line: Int?
  public var task: TaskItem
  /// A task note's checklist: ticked and total (cancelled lines not counted).
  public var subtasksDone: Int
  public var subtasksTotal: Int
  /// Values nb could not read, each naming the file line (the task is listed anyway).
  public var warnings: [String]
  /// Not done and due before now.
  public var isOverdue: Bool

  /// Creates an entry; the repository makes these.
  public init(
    note: Note, line: Int?, task: TaskItem, subtasksDone: Int = 0, subtasksTotal: Int = 0, warnings: [String] = [],
    isOverdue: Bool = false
  ) {
    self.note = note
    self.line = line
    self.task = task
    self.subtasksDone = subtasksDone
    self.subtasksTotal = subtasksTotal
    self.warnings = warnings
    self.isOverdue = isOverdue
  }

  /// What selects this task again: the note's path, or `path:line` for an inline task.
  public var selector: String { line.map { "\(note.path):\($0)" } ?? note.path }
  /// Whether it is a checklist line of an ordinary note.
  public var isInline: Bool { line != nil }
}

/// A reminder whose time has come.
public struct DueReminder: Equatable, Sendable {
  public var entry: TaskEntry
  /// When it fires.
  public var at: Date
  /// The reminder as written.
  public var reminder: Reminder

  public init(entry: TaskEntry, at: Date, reminder: Reminder) {
    self.entry = entry
    self.at = at
    self.reminder = reminder
  }
}

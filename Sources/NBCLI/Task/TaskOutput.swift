import Foundation
import NoteStore
import TaskKit
import TextFormat

/// The JSON shape of a task in every task listing (documented in README.md); every key always present.
struct TaskJSON: Encodable {
  var selector: String
  var path: String
  @NullWhenAbsent var line: Int?
  @NullWhenAbsent var id: String?
  var title: String
  var notebook: String
  var status: String
  var priority: String
  @NullWhenAbsent var due: String?
  @NullWhenAbsent var scheduled: String?
  @NullWhenAbsent var completed: String?
  var overdue: Bool
  @NullWhenAbsent var recurrence: String?
  var recurrenceAnchor: String
  var completeInstances: [String]
  var reminders: [String]
  var contexts: [String]
  var projects: [String]
  var tags: [String]
  @NullWhenAbsent var location: String?
  var subtasks: Subtasks
  var inline: Bool
  @NullWhenAbsent var created: String?
  @NullWhenAbsent var updated: String?
  var warnings: [String]

  struct Subtasks: Encodable {
    var done: Int
    var total: Int
  }

  enum CodingKeys: String, CodingKey {
    case selector, path, line, id, title, notebook, status, priority, due, scheduled, completed, overdue, recurrence
    case recurrenceAnchor = "recurrence_anchor"
    case completeInstances = "complete_instances"
    case reminders, contexts, projects, tags, location, subtasks, inline, created, updated, warnings
  }

  init(_ entry: TaskEntry) {
    let task = entry.task
    selector = entry.selector
    path = entry.note.path
    line = entry.line
    id = entry.line == nil ? entry.note.id : nil
    title = task.title
    notebook = entry.note.notebook
    status = task.status.text
    priority = task.priority.text
    due = task.due?.text
    scheduled = task.scheduled?.text
    completed = task.completed?.text
    overdue = entry.isOverdue
    recurrence = task.recurrence
    recurrenceAnchor = task.recurrenceAnchor.rawValue
    completeInstances = task.completeInstances.map(\.iso)
    reminders = task.reminders.map(\.text)
    contexts = task.contexts
    projects = task.projects
    tags = task.tags
    location = task.location
    subtasks = Subtasks(done: entry.subtasksDone, total: entry.subtasksTotal)
    inline = entry.isInline
    created = entry.line == nil ? entry.note.created?.rfc3339 : nil
    updated = entry.line == nil ? entry.note.updated?.rfc3339 : nil
    warnings = entry.warnings
  }
}

/// One line of a task listing: box, due date, priority, title, where, subtasks, tags, repeat.
func taskLine(_ entry: TaskEntry) -> String {
  let task = entry.task
  let box: String
  switch task.status {
  case .open: box = "[ ]"
  case .inProgress: box = "[/]"
  case .done: box = "[x]"
  case .cancelled: box = "[-]"
  case .other: box = "[?]"
  }
  var due = task.due.map { $0.hasTime ? String($0.text.prefix(16)).replacingOccurrences(of: "T", with: " ") : $0.text }
    ?? ""
  due = due.paddedWithSpaces(toLength: 16)
  var parts = [task.status.isClosed ? Style.dim(box) : box]
  parts.append(entry.isOverdue ? Style.yellow(due) : Style.dim(due))
  let marks: String
  switch task.priority {
  case .urgent: marks = "!!!"
  case .high: marks = "!! "
  case .normal: marks = "!  "
  default: marks = "   "
  }
  parts.append(Style.yellow(marks))
  parts.append(task.status.isClosed ? task.title : Style.bold(task.title))
  parts.append(Style.blue(entry.selector))
  if entry.subtasksTotal > 0 { parts.append("\(entry.subtasksDone)/\(entry.subtasksTotal)") }
  if !task.tags.isEmpty && entry.line == nil { parts.append(Style.cyan(hashtags(task.tags))) }
  if let recurrence = task.recurrence { parts.append(Style.dim("↻ " + recurrence)) }
  if entry.isOverdue { parts.append(Style.yellow("overdue")) }
  return parts.joined(separator: "  ")
}

/// Prints each entry's warnings on standard error, naming the file.
func warnAbout(_ entries: [TaskEntry]) {
  for entry in entries {
    for warning in entry.warnings { warn("\(entry.note.path): \(warning)") }
  }
}

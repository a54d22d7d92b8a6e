import Foundation
import TaskKit

/// One task a note holds, as the index stores it and task listings show it.
struct TaskRow: Equatable, Sendable {
  /// 0 for the note itself (a task note); the 1-based line of an inline task's checklist line.
  var line: Int
  var task: TaskItem
  /// For a task note, its checklist (subtasks): ticked and total (cancelled ones not counted).
  var subtasksDone = 0
  var subtasksTotal = 0
  /// One line each, naming the file line where known (`line 4: due '2026-13-01' is not a date`).
  var warnings: [String] = []
}

/// Which tasks a note holds: the note itself when its front matter has `status:` (its checklist lines are then its
/// subtasks), else each checklist line of its body (inline tasks, read as the Obsidian Tasks plugin reads them).
enum NoteTasks {
  /// The task rows of a note. `taskFields` are the front matter's task keys (nil when the note has no `status:`).
  static func rows(
    text: String, bodyStart: Int, title: String, tags: [String], taskFields: [String: (value: FieldValue, line: Int?)]?
  ) -> [TaskRow] {
    let items = Checklist.items(in: text, bodyStart: bodyStart)
    if let taskFields {
      let read = TaskFrontMatter.read(taskFields, title: title, validateRule: ruleProblem)
      var task = read.task
      task.tags = tags
      let progress = Checklist.progress(items)
      return [
        TaskRow(
          line: 0, task: task, subtasksDone: progress.done, subtasksTotal: progress.total,
          warnings: read.warnings.map(\.description))
      ]
    }
    return items.map { item in
      let inline = InlineTask(item)
      return TaskRow(line: item.line, task: taskItem(inline), warnings: inline.problems.map { "line \(item.line): \($0)" })
    }
  }

  /// An inline task as a `TaskItem` (its dates are days: the plugin has no times).
  static func taskItem(_ inline: InlineTask) -> TaskItem {
    var task = TaskItem(title: inline.description.isEmpty ? "(empty)" : inline.description)
    task.status = inline.status
    task.priority = inline.priority
    task.due = inline.due.map(TaskDate.day)
    task.scheduled = inline.scheduled.map(TaskDate.day)
    task.completed = (inline.done ?? inline.cancelled).map(TaskDate.day)
    task.created = nil
    task.recurrence = inline.recurrence
    task.tags = inline.tags
    return task
  }

  /// Why a rule read from a file is invalid, nil when it is valid: an RRULE, or the forms `nb task add --repeat`
  /// takes (`weekly`, `every 2 weeks`).
  static func ruleProblem(_ text: String) -> String? {
    do {
      _ = try parseRule(text)
      return nil
    } catch {
      return "\(error)"
    }
  }

  /// A rule as files and people write it: an RRULE first, then the friendly forms.
  static func parseRule(_ text: String) throws -> (rule: Recurrence, anchor: RecurrenceAnchor?) {
    if text.uppercased().contains("FREQ=") { return (try Recurrence(rrule: text), nil) }
    return try Recurrence.parse(userText: text)
  }

  /// A rule with the series' first day written in (`DTSTART:20261127;FREQ=MONTHLY`), as TaskNotes writes it: the
  /// next occurrence of a monthly task from the 31st, or of a `COUNT`ed series, is counted from where the series
  /// began, not from wherever its last completion moved it. A rule that has a start, or no day to start from, is
  /// returned as it is.
  static func anchoredRule(_ rule: String, start: Day?) -> String {
    guard let start, !rule.uppercased().contains("DTSTART") else { return rule }
    let compact = start.iso.replacingOccurrences(of: "-", with: "")
    return "DTSTART:\(compact);" + rule
  }
}

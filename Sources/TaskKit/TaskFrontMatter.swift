import Foundation
import TextFormat

/// A front matter value as the task reader needs it: text, a list, or a mapping, with the file line it starts on.
public indirect enum FieldValue: Equatable, Sendable {
  case text(String)
  case list([FieldValue])
  case mapping([(key: String, value: FieldValue)])
  case null

  public static func == (lhs: FieldValue, rhs: FieldValue) -> Bool {
    switch (lhs, rhs) {
    case (.text(let a), .text(let b)): return a == b
    case (.list(let a), .list(let b)): return a == b
    case (.mapping(let a), .mapping(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    case (.null, .null): return true
    default: return false
    }
  }

  /// The text of a scalar; nil for anything else.
  public var text: String? {
    if case .text(let text) = self { return text }
    return nil
  }

  /// A list's scalar items; a lone scalar as a one-item list; nil for null and mappings.
  public var texts: [String] {
    switch self {
    case .text(let text): return [text]
    case .list(let items): return items.compactMap(\.text)
    default: return []
    }
  }

  func value(_ key: String) -> FieldValue? {
    guard case .mapping(let pairs) = self else { return nil }
    return pairs.first { $0.key == key }?.value
  }
}

/// Reads a task from a note's front matter: the TaskNotes plugin's property names and the obvious variants.
///
/// A note is a task when its front matter has `status` (other than the inbox's `pending` and `filed`). The keys each field is read from, first present wins:
/// `status`; `priority`; `due`; `scheduled`; `completedDate`, `completed`, `completed_date`; `recurrence`,
/// `repeat`, `rrule`; `recurrence_anchor`; `complete_instances`; `reminders`, `reminder`; `contexts`, `context`;
/// `projects`, `project`; `location`. A value nb cannot read becomes a warning naming the key and its line, never
/// an error: the task is still listed (an unreadable `due` lists it under "no due date").
public enum TaskFrontMatter {
  /// Keys holding task fields, in the order a new task's front matter lists them.
  public static let statusKey = "status"
  public static let priorityKey = "priority"
  public static let dueKey = "due"
  public static let scheduledKey = "scheduled"
  public static let completedKeys = ["completedDate", "completed", "completed_date"]
  public static let recurrenceKeys = ["recurrence", "repeat", "rrule"]
  public static let anchorKey = "recurrence_anchor"
  public static let instancesKey = "complete_instances"
  public static let reminderKeys = ["reminders", "reminder"]
  public static let contextKeys = ["contexts", "context"]
  public static let projectKeys = ["projects", "project"]
  public static let locationKey = "location"

  /// Every key the reader looks at.
  public static let allKeys: Set<String> = Set(
    [statusKey, priorityKey, dueKey, scheduledKey, anchorKey, instancesKey, locationKey] + completedKeys
      + recurrenceKeys + reminderKeys + contextKeys + projectKeys)

  /// One problem with a value: which key, on which front matter line (1-based in the file, when known), and what.
  public struct Warning: Equatable, Sendable, CustomStringConvertible {
    public var key: String
    public var line: Int?
    public var message: String
    public init(key: String, line: Int?, message: String) {
      self.key = key
      self.line = line
      self.message = message
    }
    /// `line 4: due '2026-13-01' is not a date`.
    public var description: String { (line.map { "line \($0): " } ?? "") + message }
  }

  /// What `read` found.
  public struct Result: Equatable, Sendable {
    public var task: TaskItem
    public var warnings: [Warning]
  }

  /// The `status` values of inbox items (`nb capture`): a note with one of them is an item waiting to be filed (or
  /// filed), not a task.
  public static let inboxStatuses: Set<String> = ["pending", "filed"]

  /// Whether a note whose `status` holds `value` (nil: a value that is not text) is a task.
  public static func isTask(status value: String?) -> Bool {
    guard let value else { return true }
    return !inboxStatuses.contains(value.trimmingWhitespaces().lowercased())
  }

  /// Reads the task fields from `fields` (top-level key → value and its line). `title` and the note's own
  /// id/created/updated/tags come from the note; `validateRule` checks a recurrence rule (returns an error message,
  /// nil when valid) so this reader stays free of the rule engine.
  public static func read(
    _ fields: [String: (value: FieldValue, line: Int?)], title: String, validateRule: (String) -> String? = { _ in nil }
  ) -> Result {
    var warnings: [Warning] = []
    func first(_ keys: [String]) -> (key: String, value: FieldValue, line: Int?)? {
      for key in keys {
        if let entry = fields[key], entry.value != .null { return (key, entry.value, entry.line) }
      }
      return nil
    }
    func text(_ keys: [String]) -> (key: String, text: String, line: Int?)? {
      guard let entry = first(keys), let text = entry.value.text?.trimmingWhitespaces(),
        !text.isEmpty
      else { return nil }
      return (entry.key, text, entry.line)
    }
    func date(_ keys: [String]) -> TaskDate? {
      guard let entry = text(keys) else { return nil }
      guard let date = TaskDate(text: entry.text) else {
        warnings.append(Warning(key: entry.key, line: entry.line, message: "\(entry.key) '\(entry.text)' is not a date"))
        return nil
      }
      return date
    }
    var task = TaskItem(title: title)
    if let status = text([statusKey]) {
      task.status = TaskStatus(text: status.text)
      if case .other(let value) = task.status {
        warnings.append(
          Warning(
            key: statusKey, line: status.line,
            message: "status '\(value)' is not one of open, in-progress, done, cancelled"))
      }
    }
    if let priority = text([priorityKey]) {
      task.priority = TaskPriority(text: priority.text)
      if case .other(let value) = task.priority {
        warnings.append(
          Warning(
            key: priorityKey, line: priority.line,
            message: "priority '\(value)' is not one of none, low, normal, high, urgent"))
      }
    }
    task.due = date([dueKey])
    task.scheduled = date([scheduledKey])
    task.completed = date(completedKeys)
    if let rule = text(recurrenceKeys) {
      if let problem = validateRule(rule.text) {
        warnings.append(Warning(key: rule.key, line: rule.line, message: problem))
      }
      task.recurrence = rule.text
    }
    if let anchor = text([anchorKey]) {
      if let value = RecurrenceAnchor(rawValue: anchor.text.lowercased()) {
        task.recurrenceAnchor = value
      } else {
        warnings.append(
          Warning(
            key: anchorKey, line: anchor.line,
            message: "recurrence_anchor '\(anchor.text)' is not 'scheduled' or 'completion'"))
      }
    }
    if let instances = first([instancesKey]) {
      for item in instances.value.texts {
        if let day = TaskDate(text: item)?.day {
          task.completeInstances.append(day)
        } else {
          warnings.append(
            Warning(key: instancesKey, line: instances.line, message: "\(instancesKey) '\(item)' is not a date"))
        }
      }
    }
    if let reminders = first(reminderKeys) {
      let items: [FieldValue]
      if case .list(let list) = reminders.value { items = list } else { items = [reminders.value] }
      for item in items {
        if let reminder = Self.reminder(item) {
          task.reminders.append(reminder)
        } else {
          warnings.append(
            Warning(
              key: reminders.key, line: reminders.line,
              message: "\(reminders.key): cannot read a reminder from \(describe(item)); use a date-time or an offset such as -PT1H"))
        }
      }
    }
    task.contexts = list(first(contextKeys)?.value)
    task.projects = list(first(projectKeys)?.value)
    task.location = text([locationKey])?.text
    return Result(task: task, warnings: warnings)
  }

  /// Items of a list or a comma-separated string, trimmed, blanks dropped.
  static func list(_ value: FieldValue?) -> [String] {
    guard let value else { return [] }
    var raw: [String]
    if case .text(let text) = value {
      raw = text.split(separator: ",").map(String.init)
    } else {
      raw = value.texts
    }
    raw = raw.map { $0.trimmingWhitespaces() }
    return raw.filter { !$0.isEmpty }
  }

  /// A reminder from a scalar (`-PT1H`, a date-time) or TaskNotes' mapping (`type: relative`, `offset: -PT15M`, or
  /// `type: absolute`, `absoluteTime: …`).
  static func reminder(_ value: FieldValue) -> Reminder? {
    if let text = value.text { return Reminder(text: text) }
    if let offset = value.value("offset")?.text, let duration = ISODuration(text: offset) {
      return .relative(text: offset, seconds: duration.totalSeconds)
    }
    if let time = value.value("absoluteTime")?.text ?? value.value("time")?.text, let date = TaskDate(text: time) {
      return .absolute(date)
    }
    return nil
  }

  private static func describe(_ value: FieldValue) -> String {
    switch value {
    case .text(let text): return "'\(text)'"
    case .list: return "a list"
    case .mapping: return "a mapping without 'offset' or 'absoluteTime'"
    case .null: return "an empty value"
    }
  }
}

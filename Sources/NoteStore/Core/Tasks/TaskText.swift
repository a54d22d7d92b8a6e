import Foundation
import TaskKit

/// The edits tasks make to a note's text, as pure functions: front matter keys of a task note, and single lines of
/// inline tasks. Each edits only the keys or the line it owns (``FrontMatter`` verifies every other key reads back
/// the same).
enum TaskText {
  // MARK: - Values as YAML

  /// A list in flow style, `[a, b]`.
  static func yaml(list: [String]) -> String { YAMLScalar.flowList(list) }

  /// Reminders in TaskNotes' shape: a block list of mappings (`type`, `relatedTo`, `offset` or `absoluteTime`),
  /// so a vault shared with that plugin shows them. The first line is empty (the value starts on the next line).
  static func yaml(reminders: [Reminder]) -> String {
    var lines = [""]
    for (index, reminder) in reminders.enumerated() {
      lines.append("  - id: rem\(index + 1)")
      switch reminder {
      case .relative(let text, _):
        lines += ["    type: relative", "    relatedTo: due", "    offset: \(YAMLScalar.format(text))"]
      case .absolute(let date):
        lines += ["    type: absolute", "    absoluteTime: \(date.text)"]
      }
    }
    return lines.joined(separator: "\n")
  }

  /// Sets the first of `keys` present in the block (the user's spelling), else the first key; nil removes every one.
  static func set(_ keys: [String], _ value: String?, in text: String) throws -> String {
    // One key needs no look at which are present: setting adds or replaces it, removing an absent one is a no-op.
    if keys.count == 1 {
      guard let value else { return try FrontMatter.removing(keys[0], in: text) }
      return try FrontMatter.setting(keys[0], to: value, in: text)
    }
    let present = try presentKeys(text)
    guard let value else {
      var result = text
      for key in keys where present.contains(key) { result = try FrontMatter.removing(key, in: result) }
      return result
    }
    let key = keys.first(where: present.contains) ?? keys[0]
    return try FrontMatter.setting(key, to: value, in: text)
  }

  private static func presentKeys(_ text: String) throws -> Set<String> {
    guard case .block(let block) = FMLayout.scan(text) else { return [] }
    return Set(try FMParsed.parse(block).entries.compactMap(\.key))
  }

  // MARK: - Task notes

  /// The task keys of a new task, added to a rendered note's front matter in a fixed order.
  static func addingTask(_ draft: TaskDraft, to text: String) throws -> String {
    var t = try FrontMatter.setting(TaskFrontMatter.statusKey, to: draft.status.text, in: text)
    if let priority = draft.priority { t = try FrontMatter.setting(TaskFrontMatter.priorityKey, to: priority.text, in: t) }
    if let due = draft.due { t = try FrontMatter.setting(TaskFrontMatter.dueKey, to: due.text, in: t) }
    if let scheduled = draft.scheduled {
      t = try FrontMatter.setting(TaskFrontMatter.scheduledKey, to: scheduled.text, in: t)
    }
    if let completed = draft.completed {
      t = try FrontMatter.setting(TaskFrontMatter.completedKeys[0], to: completed.text, in: t)
    }
    if let recurrence = draft.recurrence {
      t = try FrontMatter.setting(TaskFrontMatter.recurrenceKeys[0], to: YAMLScalar.format(recurrence), in: t)
      t = try FrontMatter.setting(
        TaskFrontMatter.anchorKey, to: (draft.recurrenceAnchor ?? .scheduled).rawValue, in: t)
    }
    if !draft.completeInstances.isEmpty {
      t = try FrontMatter.setting(
        TaskFrontMatter.instancesKey, to: yaml(list: draft.completeInstances.map(\.iso)), in: t)
    }
    if !draft.reminders.isEmpty {
      t = try FrontMatter.setting(TaskFrontMatter.reminderKeys[0], to: yaml(reminders: draft.reminders), in: t)
    }
    if !draft.contexts.isEmpty {
      t = try FrontMatter.setting(TaskFrontMatter.contextKeys[0], to: yaml(list: draft.contexts), in: t)
    }
    if !draft.projects.isEmpty {
      t = try FrontMatter.setting(TaskFrontMatter.projectKeys[0], to: yaml(list: draft.projects), in: t)
    }
    if let location = draft.location {
      t = try FrontMatter.setting(TaskFrontMatter.locationKey, to: YAMLScalar.format(location), in: t)
    }
    return t
  }

  /// The body of a new task: its subtasks as a checklist, then its details.
  static func body(_ draft: TaskDraft) -> String {
    var parts: [String] = []
    if !draft.subtasks.isEmpty { parts.append(draft.subtasks.map { "- [ ] \($0)" }.joined(separator: "\n")) }
    let details = draft.details.trimmingCharacters(in: .newlines)
    if !details.isEmpty { parts.append(details) }
    return parts.joined(separator: "\n\n")
  }

  /// Applies an edit to a task note's front matter.
  static func applying(_ edit: TaskEdit, to text: String, existing: [Reminder]) throws -> String {
    var t = text
    for field in TaskEdit.Field.allCases where edit.clear.contains(field) {
      t = try set(keys(of: field), nil, in: t)
    }
    if let title = edit.title { t = try FrontMatter.setting("title", to: YAMLScalar.format(title), in: t) }
    if let priority = edit.priority { t = try set([TaskFrontMatter.priorityKey], priority.text, in: t) }
    if let due = edit.due { t = try set([TaskFrontMatter.dueKey], due.text, in: t) }
    if let scheduled = edit.scheduled { t = try set([TaskFrontMatter.scheduledKey], scheduled.text, in: t) }
    if edit.reminders != nil || !edit.addReminders.isEmpty {
      let base = edit.reminders ?? (edit.clear.contains(.reminders) ? [] : existing)
      let all = base + edit.addReminders
      t = try set(TaskFrontMatter.reminderKeys, all.isEmpty ? nil : yaml(reminders: all), in: t)
    }
    if let recurrence = edit.recurrence {
      t = try set(TaskFrontMatter.recurrenceKeys, YAMLScalar.format(recurrence), in: t)
    }
    if let anchor = edit.recurrenceAnchor { t = try set([TaskFrontMatter.anchorKey], anchor.rawValue, in: t) }
    if let contexts = edit.contexts { t = try set(TaskFrontMatter.contextKeys, yaml(list: contexts), in: t) }
    if let projects = edit.projects { t = try set(TaskFrontMatter.projectKeys, yaml(list: projects), in: t) }
    if let location = edit.location { t = try set([TaskFrontMatter.locationKey], YAMLScalar.format(location), in: t) }
    return t
  }

  static func keys(of field: TaskEdit.Field) -> [String] {
    switch field {
    case .due: return [TaskFrontMatter.dueKey]
    case .scheduled: return [TaskFrontMatter.scheduledKey]
    case .priority: return [TaskFrontMatter.priorityKey]
    case .reminders: return TaskFrontMatter.reminderKeys
    case .recurrence: return TaskFrontMatter.recurrenceKeys + [TaskFrontMatter.anchorKey]
    case .contexts: return TaskFrontMatter.contextKeys
    case .projects: return TaskFrontMatter.projectKeys
    case .location: return [TaskFrontMatter.locationKey]
    }
  }

  /// Sets `status`; `done` also stamps `completedDate` (the day), any other status removes it.
  static func settingStatus(_ status: TaskStatus, on day: Day, in text: String) throws -> String {
    var t = try set([TaskFrontMatter.statusKey], status.text, in: text)
    t = try set(TaskFrontMatter.completedKeys, status == .done ? day.iso : nil, in: t)
    return t
  }

  /// Completes a task note on `day`. A repeating one records the day in `complete_instances` and moves `due`,
  /// `scheduled` and absolute reminders to the next occurrence, staying open; when its series has ended, or it does
  /// not repeat, it becomes done.
  ///
  /// Completing the same occurrence on two devices writes the same keys with the same values, so their sync merges
  /// to one advance, not two.
  static func completing(
    _ task: TaskItem, text: String, on day: Day, timeZone: TimeZone
  ) throws -> (text: String, advance: SeriesAdvance?) {
    guard let recurrence = task.recurrence, let parsed = try? NoteTasks.parseRule(recurrence) else {
      return (try settingStatus(.done, on: day, in: text), nil)
    }
    var instances = task.completeInstances
    if !instances.contains(day) { instances.append(day) }
    var t = try set([TaskFrontMatter.instancesKey], yaml(list: instances.map(\.iso)), in: text)
    guard
      let advance = TaskSeries.advance(
        due: task.due, scheduled: task.scheduled, reminders: task.reminders, rule: parsed.rule,
        anchor: task.recurrenceAnchor, completedOn: day, timeZone: timeZone)
    else {
      return (try settingStatus(.done, on: day, in: t), nil)
    }
    if let due = advance.due { t = try set([TaskFrontMatter.dueKey], due.text, in: t) }
    if let scheduled = advance.scheduled { t = try set([TaskFrontMatter.scheduledKey], scheduled.text, in: t) }
    if advance.reminders != task.reminders, !advance.reminders.isEmpty {
      t = try set(TaskFrontMatter.reminderKeys, yaml(reminders: advance.reminders), in: t)
    }
    if task.status != .open { t = try set([TaskFrontMatter.statusKey], TaskStatus.open.text, in: t) }
    return (t, advance)
  }

  // MARK: - Lines

  /// The content of line `item` (without its line break).
  static func line(of item: ChecklistItem, in text: String) -> String {
    let utf8 = Array(text.utf8)
    guard item.lineStart <= item.lineEnd, item.lineEnd <= utf8.count else { return "" }
    return String(decoding: utf8[item.lineStart..<item.lineEnd], as: UTF8.self)
  }

  /// `text` with `item`'s line content replaced by `lines`, joined by the line's own line ending; no lines removes
  /// the line and its line break (a repeat marked `🏁 delete`).
  static func replacingLine(of item: ChecklistItem, in text: String, with lines: [String]) -> String {
    let utf8 = Array(text.utf8)
    guard item.lineStart <= item.lineEnd, item.lineEnd <= utf8.count else { return text }
    let ending = item.lineEnd + 1 < utf8.count && utf8[item.lineEnd] == 0x0D ? "\r\n" : "\n"
    if lines.isEmpty {
      let end = min(utf8.count, item.lineEnd + (item.lineEnd < utf8.count ? ending.utf8.count : 0))
      return String(decoding: utf8[..<item.lineStart] + utf8[end...], as: UTF8.self)
    }
    let replacement = Array(lines.joined(separator: ending).utf8)
    return String(decoding: utf8[..<item.lineStart] + replacement + utf8[item.lineEnd...], as: UTF8.self)
  }
}

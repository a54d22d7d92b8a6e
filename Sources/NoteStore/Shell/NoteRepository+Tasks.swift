import Foundation
import TaskKit
import TextFormat

/// Tasks: notes whose front matter has `status:` and the checklist lines of every other note. See ``TaskQuery``.
extension NoteRepository {
  var taskClock: NoteIndex.TaskClock { NoteIndex.TaskClock(now: clock(), timeZone: timeZone) }

  /// Today in the repository's time zone.
  public var today: Day { Day(clock(), in: timeZone) }

  // MARK: - Reading

  /// The tasks `query` selects, from the index. Tasks in archived projects are left out unless the query asks for
  /// them or names that project.
  public func tasks(_ query: TaskQuery) throws -> [TaskEntry] {
    var entries = try index.tasks(query, clock: taskClock)
    if !query.includeArchived {
      var archived: [String: Bool] = [:]
      let named = query.project.map(NoteIndex.projectKey)
      entries = entries.filter { entry in
        !isArchived(entry.note.notebook, cache: &archived, except: named)
      }
    }
    return entries
  }

  /// Whether a notebook or one above it is archived (`archived: true` in its `.notebook.yaml`), unless it is
  /// `except` or inside it (a project asked for by name is shown).
  func isArchived(_ notebook: String, cache: inout [String: Bool], except: String?) -> Bool {
    if let except, RepoPaths.isInside(notebook.lowercased(), directory: except) { return false }
    var path = notebook
    while !path.isEmpty {
      if let known = cache[path] {
        if known { return true }
      } else {
        let settings = NotebookSettings.read(at: absolute(path + "/" + Self.notebookSettingsFile))
        let archived = settings?.archived == true
        cache[path] = archived
        if archived { return true }
      }
      path = RepoPaths.directory(of: path)
    }
    return false
  }

  /// A project's look: the notebook's `.notebook.yaml` `color`, `icon` and `archived`.
  public func projectSettings(_ notebook: String) -> (color: String?, icon: String?, archived: Bool) {
    let settings = NotebookSettings.read(at: absolute(notebook + "/" + Self.notebookSettingsFile))
    return (settings?.color, settings?.icon, settings?.archived ?? false)
  }

  /// The tasks a note holds: itself (a task note) or its checklist lines, in line order, read from its file as it is
  /// now (one file needs no index, whose freshness check would walk the whole tree).
  public func tasks(in note: Note) throws -> [TaskEntry] {
    let document = IndexedDocument.read(root: root.path, path: note.path)
    let clock = taskClock
    return document.tasks.map { row in
      var task = row.task
      if row.line == 0 {
        task.id = document.note.id
        task.created = document.note.created?.date
        task.updated = document.note.updated?.date
      }
      return TaskEntry(
        note: document.note, line: row.line == 0 ? nil : row.line, task: task, subtasksDone: row.subtasksDone,
        subtasksTotal: row.subtasksTotal, warnings: row.warnings, isOverdue: Self.isOverdue(task, clock: clock))
    }
  }

  /// Not done and due before now (a day without a time: once that day is over).
  static func isOverdue(_ task: TaskItem, clock: NoteIndex.TaskClock) -> Bool {
    guard !task.status.isClosed, let due = task.due else { return false }
    switch due {
    case .day(let day): return day.dayNumber < clock.today
    case .dateTime: return due.instant(in: clock.timeZone) < clock.now
    }
  }

  /// Resolves a TASK argument: `path:line` for an inline task; a note (path, id, title) that is a task or holds
  /// exactly one; else words of a task's title, matching exactly one task (open ones first).
  public func resolveTask(_ selector: String) throws -> TaskEntry {
    let trimmed = selector.trimmingWhitespaces()
    guard !trimmed.isEmpty else { throw NoteStoreError.invalidArgument("the task is empty; give a path, an id or words of its title") }
    if let colon = trimmed.lastIndex(of: ":"), let line = Int(trimmed[trimmed.index(after: colon)...]),
      !trimmed[..<colon].isEmpty
    {
      let note = try resolve(String(trimmed[..<colon]))
      guard let entry = try tasks(in: note).first(where: { $0.line == line }) else {
        throw NoteStoreError.invalidArgument(
          "\(note.path) line \(line) is not a checklist line ('- [ ] …'); 'nb task list' shows each task's line")
      }
      return entry
    }
    if let note = try? resolve(trimmed) {
      let entries = try tasks(in: note)
      if entries.count == 1 { return entries[0] }
      if entries.count > 1 {
        throw NoteStoreError.ambiguousNote(selector: selector, candidates: entries.map(\.selector))
      }
    }
    var matches = try tasks(TaskQuery(view: .open, search: trimmed, includeArchived: true))
    if matches.isEmpty { matches = try tasks(TaskQuery(view: .all, search: trimmed, includeArchived: true)) }
    let folded = trimmed.lowercased()
    let exact = matches.filter { $0.task.title.lowercased() == folded }
    if exact.count == 1 { return exact[0] }
    let inTitle = matches.filter { $0.task.title.lowercased().contains(folded) }
    if inTitle.count == 1 { return inTitle[0] }
    if matches.count == 1 { return matches[0] }
    if matches.isEmpty {
      throw NoteStoreError.invalidArgument(
        "no task matches '\(selector)': give a path, path:line, an id or words of its title; 'nb task list --all' shows them")
    }
    let candidates = (inTitle.isEmpty ? matches : inTitle).map { "\($0.selector) (\($0.task.title))" }
    throw NoteStoreError.ambiguousNote(selector: selector, candidates: candidates)
  }

  /// Reminders whose time has come (at or before now, and after `since`) on tasks that are not done, earliest first.
  /// A reminder relative to `due` of a task without a due date never fires.
  public func dueReminders(since: Date, until: Date? = nil) throws -> [DueReminder] {
    let until = until ?? clock()
    let rows = try index.reminders()
    var entriesByNote: [String: [TaskEntry]] = [:]
    var result: [DueReminder] = []
    for row in rows {
      if entriesByNote[row.path] == nil {
        entriesByNote[row.path] = try tasks(in: NoteScanner.readNote(root: root.path, path: row.path))
      }
      guard let entry = entriesByNote[row.path]?.first(where: { ($0.line ?? 0) == row.line }) else { continue }
      guard let reminder = Reminder(text: row.text) else { continue }
      let at: Date
      switch reminder {
      case .relative(_, let seconds):
        guard let due = entry.task.due else { continue }
        at = due.instant(in: timeZone).addingTimeInterval(TimeInterval(seconds))
      case .absolute(let date):
        at = date.instant(in: timeZone)
      }
      if at > since, at <= until { result.append(DueReminder(entry: entry, at: at, reminder: reminder)) }
    }
    return result.sorted { ($0.at, $0.entry.selector) < ($1.at, $1.entry.selector) }
  }

  // MARK: - Changing

  /// Creates a task note (one commit) and returns it.
  @discardableResult
  public func createTask(_ draft: TaskDraft) throws -> Note {
    try createTasks([draft], subject: nil)[0]
  }

  /// Creates task notes in one commit (an import).
  @discardableResult
  public func createTasks(_ drafts: [TaskDraft], subject: String?) throws -> [Note] {
    var drafts = drafts
    for index in drafts.indices {
      try validate(drafts[index])
      if let rule = drafts[index].recurrence {
        let start = (drafts[index].due ?? drafts[index].scheduled)?.day
        drafts[index].recurrence = NoteTasks.anchoredRule(rule, start: start)
      }
    }
    let notes = drafts.map { draft in
      NoteDraft(title: draft.title, notebook: draft.notebook, tags: draft.tags, content: TaskText.body(draft))
    }
    return try createNotes(notes, subject: subject) { index, text in try TaskText.addingTask(drafts[index], to: text) }
  }

  private func validate(_ draft: TaskDraft) throws {
    if let recurrence = draft.recurrence, let problem = NoteTasks.ruleProblem(recurrence) {
      throw NoteStoreError.invalidArgument(problem)
    }
  }

  /// Completes a task: a task note becomes done (stamping `completedDate`), or, when it repeats, records the day in
  /// `complete_instances` and moves to its next occurrence; an inline task is ticked (`[x]` and ` ✅ date`), a
  /// repeating one gets its next occurrence on a new line above, as the Obsidian Tasks plugin writes it.
  @discardableResult
  public func completeTask(_ entry: TaskEntry) throws -> TaskCompletion {
    let day = today
    var nextDue: TaskDate?
    var advanced = false
    let note = try editTaskText(entry, subject: "done") { text in
      if let item = try checklistItem(of: entry, in: text) {
        let inline = InlineTask(item)
        let line = TaskText.line(of: item, in: text)
        var lines = [inline.markingDone(on: day, line: line)]
        if let recurrence = inline.recurrence, let rule = try? NoteTasks.parseRule(recurrence) {
          let anchor = rule.anchor ?? .scheduled
          let advance = TaskSeries.advance(
            due: inline.due.map(TaskDate.day), scheduled: inline.scheduled.map(TaskDate.day), reminders: [],
            rule: rule.rule, anchor: anchor, completedOn: day, timeZone: timeZone)
          let next = advance.map { advance in
            (
              due: advance.due?.day, scheduled: advance.scheduled?.day,
              start: inline.start.map { $0.adding(days: advance.dayShift) }
            )
          }
          lines = InlineTaskEdit.completingRepeat(inline, line: line, on: day, nextDates: next)
          nextDue = advance?.due
          advanced = advance != nil
        }
        return TaskText.replacingLine(of: item, in: text, with: lines)
      }
      let result = try TaskText.completing(entry.task, text: text, on: day, timeZone: timeZone)
      nextDue = result.advance?.due
      advanced = result.advance != nil
      return result.text
    }
    return TaskCompletion(entry: try refreshed(entry, note: note, advanced: advanced), nextDue: nextDue, advanced: advanced)
  }

  /// Sets a task's status: open (reopen: removes `completedDate`; an inline task is unticked and loses its done
  /// date), in progress (`[/]`), or cancelled (`[-]` and ` ❌ date` inline).
  @discardableResult
  public func setTaskStatus(_ entry: TaskEntry, _ status: TaskStatus) throws -> TaskEntry {
    if status == .done { return try completeTask(entry).entry }
    let day = today
    let note = try editTaskText(entry, subject: status.text) { text in
      if let item = try checklistItem(of: entry, in: text) {
        let inline = InlineTask(item)
        let line = TaskText.line(of: item, in: text)
        let changed: String
        switch status {
        case .open: changed = inline.markingOpen(line: line)
        case .cancelled: changed = inline.markingCancelled(on: day, line: line)
        case .inProgress:
          let opened = inline.markingOpen(line: line)
          return Checklist.setting(item, check: "/", in: TaskText.replacingLine(of: item, in: text, with: [opened]))
        default:
          throw NoteStoreError.invalidArgument("an inline task's status is open, in-progress, done or cancelled")
        }
        return TaskText.replacingLine(of: item, in: text, with: [changed])
      }
      return try TaskText.settingStatus(status, on: day, in: text)
    }
    return try refreshed(entry, note: note, advanced: false)
  }

  /// Ticks or unticks one subtask of a task note (its checklist line's one character).
  @discardableResult
  public func setSubtask(_ entry: TaskEntry, _ selector: SubtaskSelector, done: Bool) throws -> TaskEntry {
    guard entry.line == nil else {
      throw NoteStoreError.invalidArgument("\(entry.selector) is an inline task; it has no subtasks")
    }
    let note = try editTaskText(entry, subject: done ? "tick subtask" : "untick subtask") { text in
      let body = FrontMatter.body(of: text)
      let items = Checklist.items(in: text, bodyStart: text.utf8.count - body.utf8.count)
      let item: ChecklistItem
      switch selector {
      case .number(let number):
        guard number >= 1, number <= items.count else {
          throw NoteStoreError.invalidArgument(
            items.isEmpty
              ? "\(entry.note.path) has no subtasks ('- [ ] …' lines)"
              : "subtask \(number) is out of range: \(entry.note.path) has \(items.count) (1–\(items.count))")
        }
        item = items[number - 1]
      case .text(let words):
        let folded = words.lowercased()
        let matches = items.filter { $0.text.lowercased().contains(folded) }
        let exact = matches.filter { $0.text.lowercased() == folded }
        guard let found = exact.count == 1 ? exact.first : (matches.count == 1 ? matches.first : nil) else {
          if matches.isEmpty {
            throw NoteStoreError.invalidArgument("no subtask of \(entry.note.path) contains '\(words)'")
          }
          throw NoteStoreError.ambiguousNote(
            selector: words, candidates: matches.map { "line \($0.line): \($0.text)" })
        }
        item = found
      }
      return Checklist.setting(item, check: done ? "x" : " ", in: text)
    }
    return try refreshed(entry, note: note, advanced: false)
  }

  /// Changes a task's fields. A task note's keys are edited in place; an inline task's dates are changed on its
  /// line (only the fields the line has), other fields of an inline task are refused.
  @discardableResult
  public func editTask(_ entry: TaskEntry, _ edit: TaskEdit) throws -> TaskEntry {
    if let recurrence = edit.recurrence, let problem = NoteTasks.ruleProblem(recurrence) {
      throw NoteStoreError.invalidArgument(problem)
    }
    let note = try editTaskText(entry, subject: "edit task") { text in
      if let item = try checklistItem(of: entry, in: text) {
        let inline = InlineTask(item)
        let onlyDates = TaskEdit(due: edit.due, scheduled: edit.scheduled)
        guard edit == onlyDates else {
          throw NoteStoreError.invalidArgument(
            "\(entry.selector) is an inline task: nb changes its dates; edit other fields in the line itself")
        }
        let line = TaskText.line(of: item, in: text)
        if let due = edit.due, inline.due == nil {
          throw NoteStoreError.invalidArgument(
            "\(entry.selector) has no 📅 due date to change; add one to the line (📅 \(due.day.iso))")
        }
        let changed = inline.withDates(due: edit.due?.day, scheduled: edit.scheduled?.day, start: nil, line: line)
        return TaskText.replacingLine(of: item, in: text, with: [changed])
      }
      var edit = edit
      if let rule = edit.recurrence {
        let start = (edit.due ?? entry.task.due ?? edit.scheduled ?? entry.task.scheduled)?.day
        edit.recurrence = NoteTasks.anchoredRule(rule, start: start)
      }
      return try TaskText.applying(edit, to: text, existing: entry.task.reminders)
    }
    return try refreshed(entry, note: note, advanced: false)
  }

  /// The checklist item an inline task is on, re-read from `text` (nil for a task note). Refuses when the line is no
  /// longer a checklist line (the file changed since it was listed).
  private func checklistItem(of entry: TaskEntry, in text: String) throws -> ChecklistItem? {
    guard let line = entry.line else { return nil }
    let body = FrontMatter.body(of: text)
    guard let item = Checklist.items(in: text, bodyStart: text.utf8.count - body.utf8.count).first(where: { $0.line == line })
    else {
      throw NoteStoreError.invalidArgument(
        "\(entry.note.path) line \(line) is no longer a checklist line; run 'nb task list' again")
    }
    return item
  }

  /// Reads the note, applies `change` to its text, stamps and commits (nothing when the text is unchanged). Returns
  /// the note and how many lines the stamp added above the body (an `updated` or `id` line the note lacked), which
  /// moves every inline task's line.
  private func editTaskText(
    _ entry: TaskEntry, subject: String, _ change: (String) throws -> String
  ) throws -> (note: Note, shift: Int) {
    try mutate { tx in
      let original = try readText(entry.note.path)
      let text = try frontMatterCall(entry.note.path) { try change(original) }
      guard text != original else { return (entry.note, 0) }
      let what = entry.line.map { "\(entry.note.path):\($0)" } ?? entry.note.path
      let note = try stampAndWrite(entry.note.path, text: text, in: &tx, subject: "task \(subject) \(what)")
      let stamped = try readText(entry.note.path)
      return (note, Self.headerLines(stamped) - Self.headerLines(text))
    }
  }

  /// Lines before the body (the front matter block).
  private static func headerLines(_ text: String) -> Int {
    let header = text.utf8.count - FrontMatter.body(of: text).utf8.count
    return text.utf8.prefix(header).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
  }

  /// The entry after a change, from the index: the same line, moved by the stamp's lines, and one down when a
  /// repeat added its next occurrence above.
  private func refreshed(_ entry: TaskEntry, note: (note: Note, shift: Int), advanced: Bool) throws -> TaskEntry {
    let entries = try tasks(in: note.note)
    guard let line = entry.line else { return entries.first ?? entry }
    let wanted = line + note.shift + (advanced ? 1 : 0)
    return entries.first { $0.line == wanted } ?? entry
  }
}

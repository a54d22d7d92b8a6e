import Foundation
import GRDB
import TaskKit
import TextFormat

/// The index's task rows: one per task note (line 0) and one per checklist line of every other note, typed so that
/// the task views (today, overdue, a project by priority) are answered by SQL over an index, never by a scan.
///
/// Dates are stored without a zone so that a device changing zones needs no rebuild: `due_day` is the day number as
/// written; `due_kind` says how to read `due_at`: 0 a day (`due_at` = its midnight as if UTC), 1 an instant (a
/// date-time with an offset), 2 a floating date-time (its wall-clock time as if UTC). Views turn "now" into each of
/// these forms.
extension NoteIndex {
  static let separator = "\u{1F}"

  /// The folded filter keys of a task: `t:` tags, `p:` projects, `c:` contexts, each between separators.
  static func taskKeys(_ task: TaskItem) -> String {
    var keys: [String] = []
    keys += task.tags.map { "t:" + NoteRepository.tagKey($0) }
    keys += task.projects.map { "p:" + projectKey($0) }
    keys += task.contexts.map { "c:" + contextKey($0) }
    return separator + keys.joined(separator: separator) + separator
  }

  /// A project as a filter compares it: `[[Work/Launch|Launch]]` and `work/launch` are the same.
  static func projectKey(_ text: String) -> String {
    var value = text.trimmingWhitespaces()
    if value.hasPrefix("[["), value.hasSuffix("]]") {
      value = String(value.dropFirst(2).dropLast(2))
      if let bar = value.firstIndex(of: "|") { value = String(value[..<bar]) }
    }
    if value.hasSuffix(".md") { value = String(value.dropLast(3)) }
    return fold(value.trimmingCharacters(in: CharacterSet(charactersIn: "/ ")))
  }

  static func contextKey(_ text: String) -> String {
    var value = text.trimmingWhitespaces()
    if value.hasPrefix("@") { value.removeFirst() }
    return fold(value)
  }

  /// `due_kind`, `due_day`, `due_at` of a date.
  static func dueColumns(_ date: TaskDate?) -> (kind: Int?, day: Int64?, at: Double?) {
    guard let date else { return (nil, nil, nil) }
    switch date {
    case .day(let day):
      return (0, day.dayNumber, Double(day.dayNumber * 86_400))
    case .dateTime(let day, let hour, let minute, let second, let offset):
      let wall = Double(day.dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + second))
      guard let offset else { return (2, day.dayNumber, wall) }
      return (1, day.dayNumber, wall - Double(offset))
    }
  }

  static func insertTasks(_ db: Database, rowid: Int64, _ rows: [TaskRow]) throws {
    guard !rows.isEmpty else { return }
    let insert = try db.cachedStatement(
      sql: """
        INSERT OR REPLACE INTO task(note, line, title, title_folded, status, closed, priority, priority_text, due_text,
          due_kind, due_day, due_at, scheduled_text, scheduled_day, completed_text, completed_day, recurrence, anchor,
          instances, reminders, contexts, projects, tags, keys, location, subtasks_done, subtasks_total, warnings)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """)
    let insertReminder = try db.cachedStatement(sql: "INSERT INTO reminder(note, line, text) VALUES (?, ?, ?)")
    for row in rows {
      let task = row.task
      let due = dueColumns(task.due)
      try insert.execute(arguments: [
        rowid, row.line, task.title, fold(task.title), task.status.text, task.status.isClosed, task.priority.rank,
        task.priority.text, task.due?.text, due.kind, due.day, due.at, task.scheduled?.text,
        task.scheduled?.day.dayNumber, task.completed?.text, task.completed?.day.dayNumber, task.recurrence,
        task.recurrenceAnchor.rawValue, joined(task.completeInstances.map(\.iso)),
        joined(task.reminders.map(\.text)), joined(task.contexts),
        joined(task.projects), joined(task.tags), taskKeys(task), task.location, row.subtasksDone,
        row.subtasksTotal, joined(row.warnings),
      ])
      for reminder in task.reminders { try insertReminder.execute(arguments: [rowid, row.line, reminder.text]) }
    }
  }

  /// The SQL forms of "now" the views compare with.
  struct TaskClock {
    var now: Date
    var timeZone: TimeZone
    var today: Int64 { Day(now, in: timeZone).dayNumber }
    /// Now as a wall-clock time read as if UTC (what `due_at` holds for days and floating times).
    var wallNow: Double { now.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: now)) }
    func start(of dayNumber: Int64) -> Double { Day(dayNumber: dayNumber).start(in: timeZone).timeIntervalSince1970 }
  }

  /// 1 when the task row `t` is due before now, else 0.
  static func overdueSQL(_ clock: TaskClock) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
    (
      """
      (t.closed = 0 AND t.due_kind IS NOT NULL AND CASE t.due_kind WHEN 0 THEN t.due_day < ? WHEN 1 THEN t.due_at < ? \
      ELSE t.due_at < ? END)
      """, [clock.today, clock.now.timeIntervalSince1970, clock.wallNow]
    )
  }

  /// Tasks matching `query`, in its order.
  func tasks(_ query: TaskQuery, clock: TaskClock) throws -> [TaskEntry] {
    var conditions: [String] = []
    var arguments: [any DatabaseValueConvertible] = []
    let today = clock.today
    /// Rows due between two local days (inclusive): by day number, or by instant for date-times with an offset.
    func dueBetween(_ first: Int64, _ last: Int64) {
      conditions.append(
        """
        t.due_day BETWEEN ? AND ? AND ((t.due_kind <> 1 AND t.due_day BETWEEN ? AND ?) \
        OR (t.due_kind = 1 AND t.due_at >= ? AND t.due_at < ?))
        """)
      arguments += [first - 1, last + 1, first, last, clock.start(of: first), clock.start(of: last + 1)]
    }
    switch query.view {
    case .open:
      conditions.append("t.closed = 0")
    case .today:
      conditions.append("t.closed = 0")
      dueBetween(today, today)
    case .overdue:
      let overdue = Self.overdueSQL(clock)
      conditions.append("t.closed = 0 AND t.due_day <= ? AND \(overdue.sql)")
      arguments.append(today + 1)
      arguments += overdue.arguments
    case .upcoming(let days):
      conditions.append("t.closed = 0")
      dueBetween(today, today + Int64(max(0, days)))
    case .noDue:
      conditions.append("t.closed = 0 AND t.due_day IS NULL")
    case .done(let since):
      conditions.append("t.status = 'done'")
      if let since {
        conditions.append("t.completed_day >= ?")
        arguments.append(since.dayNumber)
      }
    case .all:
      break
    }
    if !query.includeInline { conditions.append("t.line = 0") }
    if let priority = query.priority {
      switch priority {
      case .other(let text):
        conditions.append("t.priority_text = ?")
        arguments.append(text)
      case .none:
        conditions.append("t.priority_text = 'none'")
      default:
        conditions.append("t.priority = ?")
        arguments.append(priority.rank)
      }
    }
    if let project = query.project {
      let key = Self.projectKey(project)
      conditions.append("((n.dir = ? OR (n.dir >= ? AND n.dir < ?)) OR instr(t.keys, ?) > 0)")
      arguments += [key, key + "/", key + "0", Self.separator + "p:" + key + Self.separator]
    }
    if let tag = query.tag {
      let key = NoteRepository.tagKey(tag)
      conditions.append("(instr(t.keys, ?) > 0 OR instr(t.keys, ?) > 0)")
      arguments += [Self.separator + "t:" + key + Self.separator, Self.separator + "t:" + key + "/"]
    }
    if let context = query.context {
      conditions.append("instr(t.keys, ?) > 0")
      arguments.append(Self.separator + "c:" + Self.contextKey(context) + Self.separator)
    }
    if let search = query.search?.trimmingWhitespaces(), !search.isEmpty {
      let phrase = CompiledQuery.ftsExpression(TextMatch(kind: .phrase, text: search))
      if let phrase {
        conditions.append(
          "(instr(t.title_folded, ?) > 0 OR (t.line = 0 AND t.note IN (SELECT rowid FROM fts WHERE fts MATCH ?)))")
        arguments += [Self.fold(search), phrase]
      } else {
        conditions.append("instr(t.title_folded, ?) > 0")
        arguments.append(Self.fold(search))
      }
    }
    let overdue = Self.overdueSQL(clock)
    var sql = """
      SELECT \(Self.noteColumns), t.line, t.title, t.status, t.priority_text, t.due_text, t.scheduled_text,
        t.completed_text, t.recurrence, t.anchor, t.instances, t.reminders, t.contexts, t.projects, t.tags, t.location,
        t.subtasks_done, t.subtasks_total, t.warnings, \(overdue.sql)
      FROM task t JOIN note n ON n.rowid = t.note
      """
    var allArguments = overdue.arguments
    if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
    allArguments += arguments
    sql += " ORDER BY " + Self.taskOrder(query.sort, reverse: query.reverse, overdue: overdue.sql)
    if query.sort == .smart { allArguments += overdue.arguments }
    if let limit = query.limit {
      sql += " LIMIT ?"
      allArguments.append(limit)
    }
    return try read { db in
      try Row.fetchAll(db.makeStatement(sql: sql), arguments: StatementArguments(allArguments)).map(Self.taskEntry)
    }
  }

  private static func taskOrder(_ sort: TaskQuery.Sort, reverse: Bool, overdue: String) -> String {
    let (asc, desc) = reverse ? ("DESC", "ASC") : ("ASC", "DESC")
    let byDue = "t.due_day IS NULL, t.due_day \(asc), t.due_at \(asc)"
    let tail = "t.title_folded \(asc), n.path \(asc), t.line \(asc)"
    switch sort {
    case .smart: return "\(overdue) \(desc), \(byDue), t.priority \(desc), \(tail)"
    case .due: return "\(byDue), t.priority \(desc), \(tail)"
    case .priority: return "t.priority \(desc), \(byDue), \(tail)"
    case .title: return tail
    case .created: return "n.created IS NULL, n.created \(desc), \(tail)"
    case .updated: return "n.updated IS NULL, n.updated \(desc), \(tail)"
    }
  }

  /// Columns: the note's (0–12), then line 13, title 14, status 15, priority 16, due 17, scheduled 18, completed 19,
  /// recurrence 20, anchor 21, instances 22, reminders 23, contexts 24, projects 25, tags 26, location 27,
  /// subtasks 28–29, warnings 30, overdue 31.
  static func taskEntry(_ row: Row) -> TaskEntry {
    let note = note(from: row)
    let line: Int = row[13]
    var task = TaskItem(title: row[14])
    task.id = line == 0 ? note.id : nil
    task.status = TaskStatus(text: row[15])
    task.priority = TaskPriority(text: row[16])
    task.due = (row[17] as String?).flatMap { TaskDate(text: $0) }
    task.scheduled = (row[18] as String?).flatMap { TaskDate(text: $0) }
    task.completed = (row[19] as String?).flatMap { TaskDate(text: $0) }
    task.recurrence = row[20]
    task.recurrenceAnchor = RecurrenceAnchor(rawValue: row[21]) ?? .scheduled
    task.completeInstances = split(row[22]).compactMap { Day(iso: $0) }
    task.reminders = split(row[23]).compactMap { Reminder(text: $0) }
    task.contexts = split(row[24])
    task.projects = split(row[25])
    task.tags = split(row[26])
    task.location = row[27]
    task.created = line == 0 ? note.created?.date : nil
    task.updated = line == 0 ? note.updated?.date : nil
    return TaskEntry(
      note: note, line: line == 0 ? nil : line, task: task, subtasksDone: row[28], subtasksTotal: row[29],
      warnings: split(row[30]), isOverdue: (row[31] as Int64? ?? 0) != 0)
  }

  /// Reminder rows of tasks that are not done: the note's path (row ids change when a file is read again), the
  /// task's line and the reminder as stored.
  func reminders() throws -> [(path: String, line: Int, text: String)] {
    try read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT n.path, r.line, r.text FROM reminder r
          JOIN task t ON t.note = r.note AND t.line = r.line JOIN note n ON n.rowid = r.note WHERE t.closed = 0
          """
      ).map { ($0[0], $0[1], $0[2]) }
    }
  }
}

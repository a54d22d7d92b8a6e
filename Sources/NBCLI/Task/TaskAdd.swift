import ArgumentParser
import Foundation
import NoteStore
import TaskKit

struct TaskAdd: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add", abstract: "Add a task (a note with status: open) and commit it; prints its path and id.",
    discussion: """
      nb task add "Ship the beta" --project work --priority high --due fri --remind "thu 9:00" --repeat weekly \
      --subtask "write notes" --subtask "tag release"
      """)

  @Argument(help: "The title.")
  var title: String

  @Option(name: [.short, .long], help: "The project: a notebook (created if missing).", completion: Completions.notebooks)
  var project: String?

  @Option(help: "none, low, normal, high or urgent.")
  var priority: String?

  @Option(parsing: .unconditional, help: "The due date (fri, tomorrow 17:00, +3d, 2026-12-01).")
  var due: String?

  @Option(parsing: .unconditional, help: "The day to work on it.")
  var scheduled: String?

  @Option(parsing: .unconditionalSingleValue, help: "A reminder: a date (thu 9:00) or an offset before the due date (-1h, -PT30M); repeatable.")
  var remind: [String] = []

  @Option(help: "A repeat: daily, weekly, every 2 weeks, every weekday, every month on the 15th, or an RRULE.")
  var `repeat`: String?

  @Option(help: "What the next occurrence counts from: scheduled (its due date) or completion.")
  var anchor: String?

  @Option(help: "A subtask (a checklist line); repeatable.")
  var subtask: [String] = []

  @Option(help: "A context (@home); repeatable.")
  var context: [String] = []

  @Option(name: [.short, .long], help: "Comma-separated tags.")
  var tags: String?

  @Option(help: "Where (free text).")
  var location: String?

  @Option(
    name: [.short, .long], parsing: .unconditional,
    help: "Details, written below the subtasks (otherwise piped standard input).")
  var content: String?

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func validate() throws {
    if let anchor, RecurrenceAnchor(rawValue: anchor.lowercased()) == nil {
      throw ValidationError("--anchor '\(anchor)': use scheduled or completion")
    }
    if anchor != nil && self.repeat == nil { throw ValidationError("--anchor needs --repeat") }
  }

  func run() throws {
    let notes = try repository.open()
    var draft = TaskDraft(title: title, notebook: project)
    draft.priority = try priority.map(TaskDates.priority)
    draft.due = try due.map { try TaskDates.date($0, option: "--due", in: notes) }
    draft.scheduled = try scheduled.map { try TaskDates.date($0, option: "--scheduled", in: notes) }
    draft.reminders = try remind.map { try TaskDates.reminder($0, in: notes) }
    if draft.reminders.contains(where: { if case .relative = $0 { return true } else { return false } }),
      draft.due == nil
    {
      throw ValidationError("--remind: an offset is counted from the due date; give --due too, or a date")
    }
    if let rule = self.repeat {
      let parsed = try TaskDates.recurrence(rule)
      draft.recurrence = parsed.rrule
      draft.recurrenceAnchor = anchor.flatMap { RecurrenceAnchor(rawValue: $0.lowercased()) } ?? parsed.anchor
    }
    draft.subtasks = subtask
    draft.contexts = context
    draft.tags = tags.map(tagList) ?? []
    draft.location = location
    draft.details = try content ?? readPipedStandardInput() ?? ""
    let note = try notes.createTask(draft)
    if output.json {
      let entry = try notes.tasks(in: note).first
      try printJSON(entry.map { TaskJSON($0) })
    } else {
      print("\(note.path) \(note.id ?? "")")
    }
  }
}

import ArgumentParser
import Foundation
import NoteStore
import TaskKit

struct EditTask: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "edit", abstract: "Change a task's fields in place (only the keys given change); one commit.",
    discussion: "nb task edit TASK --due +3d --priority low --clear reminders")

  @OptionGroup var task: TaskArgument
  @Option(help: "A new title.") var title: String?
  @Option(help: "none, low, normal, high or urgent.") var priority: String?
  @Option(parsing: .unconditional, help: "The due date.") var due: String?
  @Option(parsing: .unconditional, help: "The scheduled date.") var scheduled: String?
  @Option(parsing: .unconditionalSingleValue, help: "Add a reminder (a date, or an offset before the due date such as -1h); repeatable.")
  var remind: [String] = []
  @Option(help: "A repeat rule (weekly, every 3 days, an RRULE).") var `repeat`: String?
  @Option(help: "scheduled or completion.") var anchor: String?
  @Option(help: "Set the contexts (repeatable).") var context: [String] = []
  @Option(help: "Where (free text).") var location: String?
  @Option(
    help: ArgumentHelp(
      "Remove a field: \(NoteStore.TaskEdit.Field.allCases.map(\.rawValue).joined(separator: ", ")); repeatable."))
  var clear: [String] = []
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func validate() throws {
    for field in clear where NoteStore.TaskEdit.Field(rawValue: field) == nil {
      throw ValidationError(
        "--clear '\(field)': use \(NoteStore.TaskEdit.Field.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    if let anchor, RecurrenceAnchor(rawValue: anchor.lowercased()) == nil {
      throw ValidationError("--anchor '\(anchor)': use scheduled or completion")
    }
  }

  func run() throws {
    let (notes, entry) = try task.resolve(in: repository)
    var edit = NoteStore.TaskEdit()
    edit.title = title
    edit.priority = try priority.map(TaskDates.priority)
    edit.due = try due.map { try TaskDates.date($0, option: "--due", in: notes) }
    edit.scheduled = try scheduled.map { try TaskDates.date($0, option: "--scheduled", in: notes) }
    edit.addReminders = try remind.map { try TaskDates.reminder($0, in: notes) }
    if let rule = self.repeat {
      let parsed = try TaskDates.recurrence(rule)
      edit.recurrence = parsed.rrule
      edit.recurrenceAnchor = parsed.anchor
    }
    if let anchor { edit.recurrenceAnchor = RecurrenceAnchor(rawValue: anchor.lowercased()) }
    if !context.isEmpty { edit.contexts = context }
    edit.location = location
    edit.clear = Set(clear.compactMap(NoteStore.TaskEdit.Field.init(rawValue:)))
    guard !edit.isEmpty else {
      throw ValidationError("nothing to change: give --due, --priority, --title, --remind, --repeat, --clear, …")
    }
    let after = try notes.editTask(entry, edit)
    try report(after, output: output, message: "edited \(after.selector)")
  }
}

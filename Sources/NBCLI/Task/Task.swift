import ArgumentParser
import Foundation
import NoteStore

struct TaskCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "task", abstract: "Add, list, complete and edit tasks; export and import them.",
    discussion: """
      A task is a note whose front matter has `status:` (TaskNotes' properties: status, priority, due, scheduled, \
      recurrence, reminders, contexts, projects); its checklist lines are its subtasks. A checklist line \
      (`- [ ] …`) in any other note is a task too, read as the Obsidian Tasks plugin reads it (📅 due, ⏳ scheduled, \
      🔁 repeat, ⏫ priority).

      TASK is a task note (path, id or title), `path:line` for a checklist line, or words of a task's title.
      Dates: \(TaskDates.acceptedForms).
      """,
    subcommands: [
      TaskAdd.self, TaskList.self, TaskDone.self, TaskReopen.self, TaskStart.self, TaskCancel.self, EditTask.self,
      TaskExport.self, TaskImport.self,
    ],
    defaultSubcommand: TaskList.self, aliases: ["tasks"])
}

/// The TASK argument.
struct TaskArgument: ParsableArguments {
  @Argument(help: "The task: a task note (path, id, title), path:line for a checklist line, or words of its title.")
  var task: String

  func resolve(in options: RepositoryOptions) throws -> (repository: NoteRepository, entry: TaskEntry) {
    let repository = try options.open()
    return (repository, try repository.resolveTask(task))
  }
}

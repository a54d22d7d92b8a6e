import ArgumentParser
import Foundation
import NoteStore
import TextFormat

struct TaskDone: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "done",
    abstract: "Complete a task (a repeating one moves to its next occurrence), or tick one of its subtasks.")

  @OptionGroup var task: TaskArgument
  @Option(help: "Tick this subtask instead: its number (1 is the first checklist line) or words of its text.")
  var subtask: String?
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let (notes, entry) = try task.resolve(in: repository)
    if let subtask {
      let after = try notes.setSubtask(entry, SubtaskSelector(subtask), done: true)
      try report(after, output: output, message: "ticked subtask of \(after.selector): \(after.subtasksDone)/\(after.subtasksTotal)")
      return
    }
    let completion = try notes.completeTask(entry)
    let message: String
    if completion.advanced {
      message = "done \(entry.selector); next due \(completion.nextDue?.text ?? "—")"
    } else {
      message = "done \(completion.entry.selector)"
    }
    try report(completion.entry, output: output, message: message)
  }
}

extension SubtaskSelector {
  /// A number selects by position, anything else by text.
  init(_ argument: String) {
    if let number = Int(argument.trimmingWhitespaces()) {
      self = .number(number)
    } else {
      self = .text(argument)
    }
  }
}

/// Prints the task after a change: its JSON, or one line.
func report(_ entry: TaskEntry, output: JSONOption, message: String) throws {
  if output.json {
    try printJSON(TaskJSON(entry))
  } else {
    print(message)
  }
}

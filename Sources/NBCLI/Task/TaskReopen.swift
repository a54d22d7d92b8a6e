import ArgumentParser
import Foundation
import NoteStore
import TaskKit

struct TaskReopen: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reopen", abstract: "Reopen a done or cancelled task, or untick one of its subtasks.")

  @OptionGroup var task: TaskArgument
  @Option(help: "Untick this subtask instead: its number or words of its text.")
  var subtask: String?
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let (notes, entry) = try task.resolve(in: repository)
    if let subtask {
      let after = try notes.setSubtask(entry, SubtaskSelector(subtask), done: false)
      try report(after, output: output, message: "unticked subtask of \(after.selector): \(after.subtasksDone)/\(after.subtasksTotal)")
      return
    }
    try changeStatus(notes, entry, to: .open, verb: "reopened", output: output)
  }
}

/// Sets a task's status and prints it: what reopen, start and cancel share.
func changeStatus(
  _ notes: NoteRepository, _ entry: TaskEntry, to status: TaskStatus, verb: String, output: JSONOption
) throws {
  let after = try notes.setTaskStatus(entry, status)
  try report(after, output: output, message: "\(verb) \(after.selector)")
}

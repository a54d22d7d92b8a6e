import ArgumentParser
import Foundation
import NoteStore

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
    let after = try notes.setTaskStatus(entry, .open)
    try report(after, output: output, message: "reopened \(after.selector)")
  }
}

struct TaskStart: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "start", abstract: "Mark a task in progress.")

  @OptionGroup var task: TaskArgument
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let (notes, entry) = try task.resolve(in: repository)
    let after = try notes.setTaskStatus(entry, .inProgress)
    try report(after, output: output, message: "started \(after.selector)")
  }
}

struct TaskCancel: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel a task.")

  @OptionGroup var task: TaskArgument
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let (notes, entry) = try task.resolve(in: repository)
    let after = try notes.setTaskStatus(entry, .cancelled)
    try report(after, output: output, message: "cancelled \(after.selector)")
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct TaskStart: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "start", abstract: "Mark a task in progress.")

  @OptionGroup var task: TaskArgument
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let (notes, entry) = try task.resolve(in: repository)
    try changeStatus(notes, entry, to: .inProgress, verb: "started", output: output)
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct TaskCancel: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel a task.")

  @OptionGroup var task: TaskArgument
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func run() throws {
    let (notes, entry) = try task.resolve(in: repository)
    try changeStatus(notes, entry, to: .cancelled, verb: "cancelled", output: output)
  }
}

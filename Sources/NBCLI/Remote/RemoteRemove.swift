import ArgumentParser
import Foundation
import NoteStore

struct RemoteRemove: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remove", abstract: "Remove a remote.", aliases: ["rm"])
  @Argument(help: "The remote.") var name: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    try repository.open().removeRemote(name)
    print("Removed remote \(name)")
  }
}

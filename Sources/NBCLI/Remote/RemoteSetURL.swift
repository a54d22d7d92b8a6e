import ArgumentParser
import Foundation
import NoteStore

struct RemoteSetURL: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "set-url", abstract: "Change a remote's URL.")
  @Argument(help: "The remote.") var name: String
  @Argument(help: "Its new URL.") var url: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    try repository.open().setRemoteURL(name, url: url)
    print("\(name) is now \(url)")
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct RemoteAdd: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a remote.")
  @Argument(help: "Its name (usually origin).") var name: String
  @Argument(help: "Its URL: git@host:me/notes.git, https://..., ssh://..., file://..., or a path.") var url: String
  @OptionGroup var repository: RepositoryOptions

  func run() throws {
    try repository.open().addRemote(name, url: url)
    print("Added remote \(name) \(url)")
  }
}

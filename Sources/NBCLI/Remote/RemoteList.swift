import ArgumentParser
import Foundation
import NoteStore

struct RemoteList: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "list", abstract: "List the remotes.")
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct RemoteJSON: Encodable {
    var name: String
    var url: String
  }

  func run() throws {
    let remotes = try repository.open().remotes()
    if output.json { return try printJSON(remotes.map { RemoteJSON(name: $0.name, url: $0.url) }) }
    for remote in remotes { print("\(Style.bold(remote.name))  \(remote.url)") }
  }
}

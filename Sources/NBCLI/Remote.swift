import ArgumentParser
import Foundation
import NoteStore

struct RemoteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remote", abstract: "Manage the git remotes 'nb sync' exchanges notes with.",
    subcommands: [ListRemotes.self, AddRemote.self, RemoveRemote.self, SetRemoteURL.self],
    defaultSubcommand: ListRemotes.self, aliases: ["remotes"])

  struct ListRemotes: ParsableCommand {
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

  struct AddRemote: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a remote.")
    @Argument(help: "Its name (usually origin).") var name: String
    @Argument(help: "Its URL: git@host:me/notes.git, https://..., ssh://..., file://..., or a path.") var url: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      try repository.open().addRemote(name, url: url)
      print("Added remote \(name) \(url)")
    }
  }

  struct RemoveRemote: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "remove", abstract: "Remove a remote.", aliases: ["rm"])
    @Argument(help: "The remote.") var name: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      try repository.open().removeRemote(name)
      print("Removed remote \(name)")
    }
  }

  struct SetRemoteURL: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set-url", abstract: "Change a remote's URL.")
    @Argument(help: "The remote.") var name: String
    @Argument(help: "Its new URL.") var url: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      try repository.open().setRemoteURL(name, url: url)
      print("\(name) is now \(url)")
    }
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct RemoteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remote", abstract: "Manage the git remotes 'nb sync' exchanges notes with.",
    subcommands: [RemoteList.self, RemoteAdd.self, RemoteRemove.self, RemoteSetURL.self],
    defaultSubcommand: RemoteList.self, aliases: ["remotes"])
}

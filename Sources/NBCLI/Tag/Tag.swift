import ArgumentParser
import Foundation
import NoteStore

struct TagCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tag", abstract: "List, add, remove, rename and delete tags.",
    subcommands: [TagList.self, TagAdd.self, TagRemove.self, TagRename.self, TagDelete.self],
    defaultSubcommand: TagList.self, aliases: ["tags"])
}

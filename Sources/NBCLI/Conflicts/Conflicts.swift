import ArgumentParser
import Foundation
import NoteStore

struct Conflicts: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "conflicts", abstract: "Versions that lost a sync conflict: list, show, restore, dismiss.",
    subcommands: [ConflictsList.self, ConflictsShow.self, ConflictsRestore.self, ConflictsDismiss.self],
    defaultSubcommand: ConflictsList.self)
}

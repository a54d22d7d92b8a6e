import ArgumentParser
import Foundation
import NoteStore

struct TagCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tag", abstract: "List, add, remove, rename and delete tags.",
    subcommands: [ListTags.self, AddTag.self, RemoveTag.self, RenameTag.self, DeleteTag.self],
    defaultSubcommand: ListTags.self, aliases: ["tags"])

  struct ListTags: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every tag with its note count.")
    @OptionGroup var repository: RepositoryOptions
    @OptionGroup var output: JSONOption

    struct TagJSON: Encodable {
      var tag: String
      var count: Int
    }

    func run() throws {
      let tags = try repository.open().tags()
      if output.json { return try printJSON(tags.map { TagJSON(tag: $0.tag, count: $0.count) }) }
      for tag in tags { print(Style.cyan("#" + tag.tag) + "  \(tag.count)") }
    }
  }

  struct AddTag: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a tag to a note.")
    @Argument(help: "The note.", completion: Completions.notes) var note: String
    @Argument(help: "The tag.") var tag: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      let notes = try repository.open()
      let updated = try notes.addTag(tag, to: try notes.resolve(note))
      print("\(updated.path): \(updated.tags.map { "#" + $0 }.joined(separator: " "))")
    }
  }

  struct RemoveTag: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a tag from a note.")
    @Argument(help: "The note.", completion: Completions.notes) var note: String
    @Argument(help: "The tag.", completion: Completions.tags) var tag: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      let notes = try repository.open()
      let updated = try notes.removeTag(tag, from: try notes.resolve(note))
      print("\(updated.path): \(updated.tags.map { "#" + $0 }.joined(separator: " "))")
    }
  }

  struct RenameTag: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "rename", abstract: "Rename a tag in every note (one commit).")
    @Argument(help: "The tag.", completion: Completions.tags) var old: String
    @Argument(help: "Its new name.") var new: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      let count = try repository.open().renameTag(old, to: new)
      print("Renamed #\(old) -> #\(new) in \(CommandCount.notes(count))")
    }
  }

  struct DeleteTag: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "delete", abstract: "Remove a tag from every note (one commit).", aliases: ["rm"])
    @Argument(help: "The tag.", completion: Completions.tags) var tag: String
    @OptionGroup var repository: RepositoryOptions

    func run() throws {
      let count = try repository.open().deleteTag(tag)
      print("Deleted #\(tag) from \(CommandCount.notes(count))")
    }
  }
}

import ArgumentParser
import Foundation
import NoteStore

struct Quickstart: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "quickstart",
    abstract: "Make a demo repository with a few notes and show what nb does with it.")

  @Argument(help: "Where to make it (default: a new temporary directory).")
  var path: String?

  func run() throws {
    let location =
      path.map { URL(fileURLWithPath: $0).standardizedFileURL }
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("nb-demo-\(UUID().uuidString.prefix(8))")
    func step(_ command: String) { print("\n" + Style.green("$ nb \(command)")) }

    step("init \(location.path)")
    let notes = try NoteRepository.initialize(at: location)
    print("Initialized nb repository in \(location.path)")

    step("add \"Roadmap\" --notebook work/projects --tags planning,q3 --content \"First draft\"")
    let roadmap = try notes.createNote(
      NoteDraft(title: "Roadmap", notebook: "work/projects", tags: ["planning", "q3"], content: "First draft\n"))
    print("\(roadmap.path) \(roadmap.id ?? "")")

    step("add \"Standup\" --notebook work --template meeting")
    let standup = try notes.createNote(
      NoteDraft(title: "Standup", notebook: "work", content: "- shipped the roadmap draft\n", template: "meeting"))
    print("\(standup.path) \(standup.id ?? "")")

    step("edit roadmap --append \"Second thought\"")
    _ = try notes.update(try notes.resolve("roadmap"), NoteChange(append: "\nSecond thought\n"))
    step("tag rename q3 q4")
    print("Renamed #q3 -> #q4 in \(CommandCount.notes(try notes.renameTag("q3", to: "q4")))")
    step("move roadmap work/archive")
    print(try notes.move(try notes.resolve("roadmap"), to: "work/archive").path)

    step("list")
    for note in try notes.allNotes() { print(noteLine(note)) }
    step("show roadmap --raw")
    print(try notes.text(of: try notes.resolve("roadmap")), terminator: "")
    step("history roadmap")
    for entry in try notes.history(of: try notes.resolve("roadmap")) {
      print("\(String(entry.commit.id.prefix(8)))  \(entry.commit.subject)")
    }
    print(
      "\nThe repository is \(location.path): try 'nb --dir \(location.path) list', or 'git -C \(location.path) log'.")
  }
}

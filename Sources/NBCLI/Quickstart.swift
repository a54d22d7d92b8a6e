import ArgumentParser
import Foundation
import InkKit
import NoteStore
import TextFormat

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
    print("Renamed #q3 -> #q4 in \(counted(try notes.renameTag("q3", to: "q4"), "note"))")
    step("move roadmap work/archive")
    print(try notes.move(try notes.resolve("roadmap"), to: "work/archive").path)

    // Handwriting: an InkML page (what a pen tablet exports) imported beside the roadmap, then rendered.
    let inkml = FileManager.default.temporaryDirectory.appendingPathComponent("nb-demo-sketch-\(getpid()).inkml")
    try Data(Self.demoInkML.utf8).write(to: inkml)
    defer { try? FileManager.default.removeItem(at: inkml) }
    step("ink import roadmap sketch.inkml")
    let sketched = try notes.importInk(
      try InkImporter.read(try Data(contentsOf: inkml), name: "sketch.inkml"), into: try notes.resolve("roadmap"),
      replace: false, source: "sketch.inkml")
    print("\(sketched.note.path): added \(counted(sketched.strokes, "stroke")) from sketch.inkml")
    // Beside the repository, not in it: the demo's work tree stays clean.
    let svg = location.deletingLastPathComponent().appendingPathComponent(location.lastPathComponent + "-roadmap.svg")
    step("ink render roadmap -o \(svg.path)")
    try InkSVG.renderData(try notes.ink(of: sketched.note) ?? InkDocument()).write(to: svg)
    print("wrote \(svg.path) (open it in a browser)")

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

  /// A box with a check mark, in centimetres, as a tablet would write it.
  static let demoInkML = """
    <ink xmlns="http://www.w3.org/2003/InkML">
      <definitions>
        <context xml:id="cm"><traceFormat>
          <channel name="X" type="decimal" units="cm"/><channel name="Y" type="decimal" units="cm"/>
          <channel name="F" type="decimal" min="0" max="1"/>
        </traceFormat></context>
        <brush xml:id="blue"><brushProperty name="color" value="#1E4FD8"/>
          <brushProperty name="width" value="0.08" units="cm"/></brush>
      </definitions>
      <trace contextRef="#cm" brushRef="#blue">1 1 0.4, 4 1 0.6, 4 4 0.8, 1 4 0.6, 1 1 0.4</trace>
      <trace contextRef="#cm" brushRef="#blue">1.6 2.6 0.3, 2.3 3.3 0.7, 2.8 3.6 0.9, 3.5 2.2 0.7, 4.6 0.4 0.3</trace>
    </ink>
    """
}

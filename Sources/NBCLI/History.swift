import ArgumentParser
import Foundation
import NoteStore

struct History: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history",
    abstract: "The commits that changed a note, newest first, following moves.", aliases: ["log"])

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @Option(help: "At most this many commits.")
  var limit: Int?

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct EntryJSON: Encodable {
    var commit: String
    var subject: String
    var author: String
    var email: String
    var date: String
    var path: String
    var previousPath: String?
    var change: String

    enum CodingKeys: String, CodingKey {
      case commit, subject, author, email, date, path, change
      case previousPath = "previous_path"
    }

    func encode(to encoder: Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(commit, forKey: .commit)
      try c.encode(subject, forKey: .subject)
      try c.encode(author, forKey: .author)
      try c.encode(email, forKey: .email)
      try c.encode(date, forKey: .date)
      try c.encode(path, forKey: .path)
      try c.encode(previousPath, forKey: .previousPath)
      try c.encode(change, forKey: .change)
    }
  }

  func run() throws {
    let (notes, target) = try note.resolve(in: repository)
    let entries = try notes.history(of: target, limit: limit)
    if output.json {
      return try printJSON(
        entries.map {
          EntryJSON(
            commit: $0.commit.id, subject: $0.commit.subject, author: $0.commit.author, email: $0.commit.email,
            date: $0.commit.date.rfc3339, path: $0.path, previousPath: $0.previousPath, change: $0.change.rawValue)
        })
    }
    for entry in entries {
      let move = entry.previousPath.map { "  " + Style.dim("(from \($0))") } ?? ""
      print(
        "\(Style.yellow(String(entry.commit.id.prefix(8))))  \(Style.dim(entry.commit.date.short))  "
          + "\(entry.commit.subject)  \(Style.dim(entry.commit.author))\(move)")
    }
  }
}

import Foundation

/// Commit messages nb writes: a short subject saying what happened, then one `Nb-Note-Id:` trailer per note
/// touched, so `git log --grep "Nb-Note-Id: <id>"` finds a note's history with nothing but git.
enum CommitMessage {
  /// The trailer key.
  static let noteIDTrailer = "Nb-Note-Id"

  /// Builds a message from a subject (without the `nb: ` prefix) and the ids of the notes touched.
  static func make(_ subject: String, noteIDs: [String] = []) -> String {
    var seen = Set<String>()
    let ids = noteIDs.filter { seen.insert($0).inserted }
    var message = "nb: " + subject + "\n"
    if !ids.isEmpty {
      message += "\n" + ids.map { "\(noteIDTrailer): \($0)\n" }.joined()
    }
    return message
  }

  /// The note ids named by trailers in a commit message.
  static func noteIDs(in message: String) -> [String] {
    let prefix = noteIDTrailer + ": "
    return message.split(separator: "\n").compactMap { line in
      line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) : nil
    }
  }
}

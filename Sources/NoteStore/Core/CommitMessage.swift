import Foundation

/// Commit messages nb writes: a short subject saying what happened, then one `Nb-Note-Id:` trailer per note
/// touched (at most ``maxNoteIDTrailers``), so `git log --grep "Nb-Note-Id: <id>"` finds a note's history with
/// nothing but git.
enum CommitMessage {
  /// The trailer key.
  static let noteIDTrailer = "Nb-Note-Id"
  /// The trailer saying how many note ids were left out of a commit that touched more notes than the cap.
  static let omittedTrailer = "Nb-Note-Ids-Omitted"
  /// At most this many `Nb-Note-Id:` trailers per commit. Adopting thousands of notes once wrote a message of
  /// thousands of lines, which every `git log` then scrolls through; beyond a few dozen notes the list stops
  /// being a useful index (`nb history` never reads it: it follows the note's path and id in the stored files).
  static let maxNoteIDTrailers = 50

  /// Builds a message from a subject (without the `nb: ` prefix) and the ids of the notes touched: the first
  /// ``maxNoteIDTrailers`` distinct ids as trailers, then `Nb-Note-Ids-Omitted: <count>` for the rest — one
  /// more `key: value` line of the same trailer block, so git's trailer parser reads it too.
  static func make(_ subject: String, noteIDs: [String] = []) -> String {
    var seen = Set<String>()
    let ids = noteIDs.filter { seen.insert($0).inserted }
    var message = "nb: " + subject + "\n"
    if !ids.isEmpty {
      message += "\n" + ids.prefix(maxNoteIDTrailers).map { "\(noteIDTrailer): \($0)\n" }.joined()
      if ids.count > maxNoteIDTrailers {
        message += "\(omittedTrailer): \(ids.count - maxNoteIDTrailers)\n"
      }
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

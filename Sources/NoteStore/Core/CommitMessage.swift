import Foundation
import TextFormat

/// Commit messages nb writes: a short subject saying what happened, then one `Nb-Note-Id:` trailer per note
/// touched (at most ``maxNoteIDTrailers``), so `git log --grep "Nb-Note-Id: <id>"` finds a note's history with
/// nothing but git. Every commit nb makes also names the device that made it in an `Nb-Device:` trailer: a sync
/// names a conflict copy after the device whose version lost, read from the commit that last changed it.
enum CommitMessage {
  /// The trailer naming the device that made the commit.
  static let deviceTrailer = "Nb-Device"
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
  /// more `key: value` line of the same trailer block, so git's trailer parser reads it too. `device`, when given,
  /// opens the trailer block as `Nb-Device: <device>` (outside the cap: it is one line whatever the commit touched).
  static func make(_ subject: String, noteIDs: [String] = [], device: String? = nil) -> String {
    // Not a Set: a save names a note or a few, and the first set of strings in a process makes the runtime scan
    // every conformance record in the binary.
    var ids: [String] = []
    if noteIDs.count > 64 {
      var seen = Set<String>()
      ids = noteIDs.filter { seen.insert($0).inserted }
    } else {
      for id in noteIDs where !ids.contains(id) { ids.append(id) }
    }
    var message = "nb: " + subject + "\n"
    // A trailer value is one line: a device name with line breaks would end the block early.
    let device = device.map {
      joinedWithoutLookup($0.split(whereSeparator: \.isNewline).map(String.init), separator: " ")
    }
    .map { $0.trimmingWhitespaces() }.flatMap { $0.isEmpty ? nil : $0 }
    if device != nil || !ids.isEmpty { message += "\n" }
    if let device { message += "\(deviceTrailer): \(device)\n" }
    if !ids.isEmpty {
      for id in ids.prefix(maxNoteIDTrailers) { message += "\(noteIDTrailer): \(id)\n" }
      if ids.count > maxNoteIDTrailers {
        message += "\(omittedTrailer): \(ids.count - maxNoteIDTrailers)\n"
      }
    }
    return message
  }

  /// The device an `Nb-Device:` trailer names, read from the message's last paragraph (where git keeps trailers,
  /// so a line in the body of a foreign commit that merely looks like one is not taken); nil when there is none.
  static func device(in message: String) -> String? {
    let paragraphs = message.trimmingWhitespacesAndNewlines().components(separatedBy: "\n\n")
    guard paragraphs.count > 1, let trailers = paragraphs.last else { return nil }
    let prefix = deviceTrailer + ":"
    let value = trailers.split(separator: "\n").last { $0.hasPrefix(prefix) }
      .map { $0.dropFirst(prefix.count).trimmingWhitespaces() }
    return value.flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The note ids named by trailers in a commit message.
  static func noteIDs(in message: String) -> [String] {
    let prefix = noteIDTrailer + ": "
    return message.split(separator: "\n").compactMap { line in
      line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)).trimmingWhitespaces() : nil
    }
  }

}

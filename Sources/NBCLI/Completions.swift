import ArgumentParser
import Foundation
import NoteStore

/// Shell completions drawn from the repository itself: note paths, notebooks and tags.
enum Completions {
  static let notes = CompletionKind.custom { words, _, prefix in
    let paths = (try? repository(for: words)?.allNotes().map { String($0.path.dropLast(3)) }) ?? []
    return paths.filter { $0.hasPrefix(prefix) }
  }

  static let notebooks = CompletionKind.custom { words, _, prefix in
    let paths = (try? repository(for: words)?.notebooks().map(\.path)) ?? []
    return paths.filter { $0.hasPrefix(prefix) }
  }

  static let tags = CompletionKind.custom { words, _, prefix in
    let tags = (try? repository(for: words)?.tags().map(\.tag)) ?? []
    return tags.filter { $0.hasPrefix(prefix) }
  }

  /// The repository the command line being completed refers to (its `--dir`, else the usual search).
  private static func repository(for words: [String]) -> NoteRepository? {
    var directory: String?
    for (index, word) in words.enumerated() {
      if word == "--dir", index + 1 < words.count { directory = words[index + 1] }
      if word.hasPrefix("--dir=") { directory = String(word.dropFirst("--dir=".count)) }
    }
    return try? NoteRepository.open(at: NoteRepository.locate(explicit: directory))
  }
}

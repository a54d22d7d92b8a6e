import Foundation
import LinkKit

/// What moving or renaming a note did: where it is now, where it was, and the links kept working.
public struct NoteMove: Sendable {
  /// The note at its new path (its new title after a rename).
  public var note: Note
  /// Its path before.
  public var from: String
  /// The links rewritten in the same commit (empty with `updateLinks: false`).
  public var links: RelinkReport

  /// A result as given.
  public init(note: Note, from: String, links: RelinkReport) {
    self.note = note
    self.from = from
    self.links = links
  }
}

extension NoteRepository {
  /// Characters Obsidian refuses in a file name, because its links would read them as syntax: `#` starts a heading,
  /// `^` a block id, `|` the shown text, `[` and `]` the link itself; `\` and `:` are refused by the systems it runs
  /// on. A title holding one cannot become a file name as written.
  static let forbiddenNameCharacters: [Character] = ["#", "|", "^", "[", "]", "\\", ":"]

  /// Renames a note: its title and its file name, and — unless `updateLinks` is false — every link to it in every
  /// other note, in one commit.
  ///
  /// - The title: front matter `title:` is set when the note has that key (nb owns it); a note without one gets
  ///   none added. The first `# heading` is changed only when it equals the old title exactly (nb's templates
  ///   write it, and a note without `title:` takes its title from it); any other heading is the person's text.
  ///   A note with front matter has `updated` stamped, as every edit of it does.
  /// - The file name: a note named by its title (no `title:`, its file name equal to its title: Obsidian's
  ///   convention, `Internal links.md`) is named by the new title as written — a slug would lose the title — and a
  ///   title holding a character Obsidian forbids in names (``forbiddenNameCharacters``) is refused; any other note
  ///   gets the slug of the new title, as `nb add` names notes (the slug drops those characters).
  /// - A name another file already has is refused, nothing changed. The attachment folder and sidecars follow.
  /// - Links: as ``moveNote(_:to:updateLinks:)`` rewrites them.
  @discardableResult
  public func rename(_ note: Note, to newTitle: String, updateLinks: Bool = true) throws -> NoteMove {
    Phases.mark("start")
    return try mutate { tx in
      Phases.mark("lock, recovery check, committable")
      let title = try nameCall { try Names.validateTitle(newTitle) }
      let original = try readText(note.path)
      let metadata = try frontMatterCall(note.path) { try FrontMatter.read(original) }
      let stem = RepoPaths.stem(of: note.path)
      let namedByTitle = metadata.title == nil && stem == note.title
      let newStem: String
      if namedByTitle {
        if let bad = title.first(where: { Self.forbiddenNameCharacters.contains($0) }) {
          throw NoteStoreError.invalidArgument(
            "title '\(title)' cannot name the file \(note.path): Obsidian forbids '\(bad)' in file names (links read it as syntax); choose a title without # | ^ [ ] \\ :"
          )
        }
        if title.hasPrefix(".") {
          throw NoteStoreError.invalidArgument(
            "title '\(title)' cannot name the file \(note.path): a name starting with '.' is hidden; choose another title"
          )
        }
        newStem = title
      } else {
        newStem = Slug.make(title)
      }
      let target = RepoPaths.join(RepoPaths.directory(of: note.path), newStem + ".md")
      // The same file under another case (a case-insensitive file system) is the note itself, not another one.
      if target != note.path, target.lowercased() != note.path.lowercased(),
        FileSystem.lstatInfo(absolute(target)) != nil
      {
        throw NoteStoreError.invalidArgument(
          "cannot rename \(note.path) to '\(title)': \(target) already exists; choose another title (nothing was changed)"
        )
      }
      let oldTitle = note.title
      let retitle: (String) throws -> String = { text in
        guard title != oldTitle else { return text }
        var result = Self.retitlingHeading(text, from: oldTitle, to: title)
        if metadata.title != nil {
          result = try self.frontMatterCall(note.path) {
            try FrontMatter.setting("title", to: YAMLScalar.format(title), in: result)
          }
        }
        if metadata.hasFrontMatter, result != text { result = try self.stamp(note.path, text: result).text }
        return result
      }
      // As for a move: the index rows of the batch it ends with are made while it is written.
      tx.recordsIndexEarly = true
      let moved = try move(note, to: target, in: &tx, updateLinks: updateLinks, edit: retitle)
      tx.subject = target == note.path ? "retitle \(note.path)" : "rename \(note.path) -> \(target)"
      return moved
    }
  }

  /// `text` with its first level-one heading replaced by `new` when it reads exactly `old`; else unchanged.
  static func retitlingHeading(_ text: String, from old: String, to new: String) -> String {
    let bodyStart = text.utf8.count - FrontMatter.body(of: text).utf8.count
    let range = withContiguousUTF8(text) { bytes -> Range<Int>? in
      guard let range = MarkdownHeading.firstLevelOneRange(in: bytes, from: bodyStart),
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) == old
      else { return nil }
      return range
    }
    guard let range else { return text }
    let bytes = Array(text.utf8)
    return String(decoding: bytes[..<range.lowerBound] + Array(new.utf8) + bytes[range.upperBound...], as: UTF8.self)
  }
}

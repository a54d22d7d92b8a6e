import Foundation

/// Pure helpers over repository-relative, `/`-separated paths.
enum RepoPaths {
  /// Directory part (`a/b` for `a/b/c.md`, `""` for `c.md`).
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return String(path[..<slash])
  }

  /// Last component (`c.md` for `a/b/c.md`).
  static func lastComponent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }

  /// File name without the `.md` extension.
  static func stem(of path: String) -> String {
    let name = lastComponent(of: path)
    return name.hasSuffix(".md") ? String(name.dropLast(3)) : name
  }

  /// Joins a directory and a name; an empty directory means the root.
  static func join(_ directory: String, _ name: String) -> String {
    directory.isEmpty ? name : directory + "/" + name
  }

  /// Whether `path` is `directory` itself or lies below it (`""` contains everything).
  static func isInside(_ path: String, directory: String) -> Bool {
    directory.isEmpty || path == directory || path.hasPrefix(directory + "/")
  }

  /// The sidecar files that belong to a note and travel with it (same stem): ink today.
  static func sidecars(of notePath: String) -> [String] {
    let base = notePath.hasSuffix(".md") ? String(notePath.dropLast(3)) : notePath
    return [base + inkSuffix]
  }

  /// How an ink sidecar's name ends.
  static let inkSuffix = ".ink.jsonl"

  /// Whether a repository-relative path is a note file nb manages.
  static func isNotePath(_ path: String) -> Bool {
    path.hasSuffix(".md") && !lastComponent(of: path).hasPrefix(".")
  }

  // MARK: - Attachment folders (format 2)

  /// How an attachment folder's name ends: `work/plan.files/` holds the attachments of `work/plan.md`.
  static let attachmentSuffix = ".files"

  /// The attachment folder of a note (`work/plan.files` for `work/plan.md`), whether or not it exists.
  static func attachmentFolder(of notePath: String) -> String {
    let base = notePath.hasSuffix(".md") ? String(notePath.dropLast(3)) : notePath
    return base + attachmentSuffix
  }

  /// The note a directory would be the attachment folder of (`work/plan.md` for `work/plan.files`), judged by its
  /// name alone; nil for a name that cannot be one (no `.files` ending, nothing before it, hidden).
  static func attachmentOwner(ofFolder directory: String) -> String? {
    let name = lastComponent(of: directory)
    guard name.hasSuffix(attachmentSuffix), name.count > attachmentSuffix.count, !name.hasPrefix(".") else {
      return nil
    }
    return String(directory.dropLast(attachmentSuffix.count)) + ".md"
  }

  /// THE rule, used by every walk and every command: a directory is an attachment folder, not a notebook, when its
  /// name is `<stem>.files` and the note `<stem>.md` is beside it (`isNote` says whether that file is there, so
  /// callers decide from the disk, a listing they already have, or a git tree). A folder named so without its
  /// note stays a notebook, so nothing anyone made by hand changes meaning until a note claims it.
  static func isAttachmentFolder(_ directory: String, isNote: (String) -> Bool) -> Bool {
    attachmentOwner(ofFolder: directory).map(isNote) ?? false
  }

  /// The outermost attachment folder `path` lies in (strictly below it), or nil: then `path` is an ordinary file
  /// or note. Checked from the top, so a `x.files/` inside an attachment folder is simply part of it, and a
  /// `.md` file inside one is an attachment, never a note.
  static func attachmentFolder(containing path: String, isNote: (String) -> Bool) -> String? {
    var end = path.startIndex
    while let slash = path[end...].firstIndex(of: "/") {
      let directory = String(path[..<slash])
      if isAttachmentFolder(directory, isNote: isNote) { return directory }
      end = path.index(after: slash)
    }
    return nil
  }

  /// Whether `path` lies inside an attachment folder (see ``isAttachmentFolder(_:isNote:)``).
  static func isInsideAttachmentFolder(_ path: String, isNote: (String) -> Bool) -> Bool {
    attachmentFolder(containing: path, isNote: isNote) != nil
  }
}

import Foundation

/// A note as nb sees it: where it lives and what its front matter (or body) says about it.
///
/// A `Note` is a snapshot; it does not hold the body. Read the text with ``NoteRepository/text(of:)``.
public struct Note: Equatable, Hashable, Sendable {
  /// Path relative to the repository root, `/`-separated, ending in `.md` (`work/projects/roadmap.md`).
  public var path: String
  /// The stable identity (`id` in front matter); nil for a note written by another tool that nb has not saved yet.
  public var id: String?
  /// Display title: front matter `title`, else the first `# heading`, else the file stem.
  public var title: String
  /// Creation instant (`created`, or `date`).
  public var created: Timestamp?
  /// Last content change (`updated`, or `modified`/`lastmod`/`last_modified_at`).
  public var updated: Timestamp?
  /// Labels, in the order the note lists them.
  public var tags: [String]
  /// Other names of the note.
  public var aliases: [String]
  /// For a conflict copy: the id of the note it lost a conflict to.
  public var conflictOf: String?
  /// Why the note could not be read fully (malformed front matter, invalid UTF-8); nil when it was.
  public var warning: String?

  /// Creates a note value; the repository makes these, an app rarely needs to.
  public init(
    path: String, id: String?, title: String, created: Timestamp? = nil, updated: Timestamp? = nil,
    tags: [String] = [], aliases: [String] = [], conflictOf: String? = nil, warning: String? = nil
  ) {
    self.path = path
    self.id = id
    self.title = title
    self.created = created
    self.updated = updated
    self.tags = tags
    self.aliases = aliases
    self.conflictOf = conflictOf
    self.warning = warning
  }

  /// The notebook holding the note: its directory relative to the root, `""` for the root itself.
  public var notebook: String { RepoPaths.directory(of: path) }
  /// The file name without `.md`.
  public var stem: String { RepoPaths.stem(of: path) }

  /// Builds the note for `path` from what its front matter says, falling back as the format contract describes.
  init(path: String, metadata: NoteMetadata, warning: String? = nil) {
    let fallbackTitle = metadata.firstHeading.flatMap { $0.isEmpty ? nil : $0 } ?? RepoPaths.stem(of: path)
    self.init(
      path: path, id: metadata.id, title: metadata.title.flatMap { $0.isEmpty ? nil : $0 } ?? fallbackTitle,
      created: metadata.created, updated: metadata.updated, tags: metadata.tags, aliases: metadata.aliases,
      conflictOf: metadata.conflictOf, warning: warning)
  }
}

/// A notebook: a directory under the repository root.
public struct Notebook: Equatable, Hashable, Sendable {
  /// Path relative to the root (`work/projects`).
  public var path: String
  /// Display title: `title` in `.notebook.yaml`, else the directory name.
  public var title: String
  /// Notes directly in this notebook (not in its children).
  public var noteCount: Int
  /// Whether nb's `.notebook.yaml` is present (a directory made by another tool has none).
  public var hasSettings: Bool

  /// Creates a notebook value.
  public init(path: String, title: String, noteCount: Int, hasSettings: Bool) {
    self.path = path
    self.title = title
    self.noteCount = noteCount
    self.hasSettings = hasSettings
  }

  /// The parent notebook's path, `""` for a top-level notebook.
  public var parent: String { RepoPaths.directory(of: path) }
  /// The last path component.
  public var name: String { RepoPaths.lastComponent(of: path) }
}

/// A tag and how many notes carry it.
public struct TagCount: Equatable, Hashable, Sendable {
  /// The tag as notes spell it.
  public var tag: String
  /// Number of notes that carry it.
  public var count: Int
  /// Creates a tag count.
  public init(tag: String, count: Int) {
    self.tag = tag
    self.count = count
  }
}

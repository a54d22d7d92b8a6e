import Foundation

/// The repository formats this nb knows (`format:` in `.nb/config.yaml`).
public enum RepositoryFormat {
  /// The format new repositories get and `nb migrate` brings older ones to.
  public static let newest = 2
  /// The formats this nb reads: format 1 (no attachment folders) and format 2 (a `<stem>.files/` directory beside
  /// `<stem>.md` is that note's attachment folder, not a notebook).
  public static let supported = 1...newest
  /// The format attachment folders need: an older nb would read them as notebooks and their `.md` files as notes.
  public static let attachments = 2
}

/// A directory a migration gives a new meaning to: `folder` becomes the attachment folder of `note`.
public struct MigratedFolder: Equatable, Sendable {
  /// The directory (`work/plan.files`).
  public let folder: String
  /// The note beside it (`work/plan.md`).
  public let note: String
}

/// What `nb migrate` does, worked out without touching anything: the formats, each step's one-line summary, the new
/// text of `.nb/config.yaml` (the only file that changes), and what changes meaning without changing bytes.
public struct MigrationPlan: Equatable, Sendable {
  /// The repository's format now.
  public let from: Int
  /// The format after the migration (equal to `from` when there is nothing to do).
  public let to: Int
  /// One line per step, oldest first (`format 1 -> 2: attachment folders`).
  public let steps: [String]
  /// The settings file's text after the migration (only its `format:` line differs).
  public let configText: String
  /// Directories that become attachment folders.
  public let attachmentFolders: [MigratedFolder]
  /// Whether there is nothing to do (the repository is at the newest format).
  public var isEmpty: Bool { from == to }
}

/// The migration, as a list of steps: step N takes a repository from format N to N + 1. A later format adds one
/// step here; everything else (dry run, `--apply`, one commit) stays as it is.
enum FormatMigration {
  /// What a step sees of the repository: the settings text and the tree (every directory and every `.md` file,
  /// repository-relative, hidden ones left out).
  struct Tree {
    var directories: [String]
    var markdownFiles: Set<String>
  }

  /// What the steps have found so far.
  struct Work {
    var attachmentFolders: [MigratedFolder] = []
  }

  /// One step: its summary line and what it finds in the tree.
  struct Step {
    let from: Int
    let summary: String
    let apply: (Tree, inout Work) -> Void
  }

  /// The step from format `from` to `from + 1`; nil past the newest format.
  static func step(from: Int) -> Step? {
    switch from {
    case 1:
      return Step(from: 1, summary: "format 1 -> 2: a <stem>.files/ directory beside <stem>.md is that note's attachment folder") { tree, work in
        // Only the outermost: a `.files` directory inside one that becomes an attachment folder is part of it.
        for directory in tree.directories.sorted()
        where RepoPaths.isAttachmentFolder(directory, isNote: tree.markdownFiles.contains)
          && !RepoPaths.isInsideAttachmentFolder(directory, isNote: tree.markdownFiles.contains)
        {
          work.attachmentFolders.append(
            MigratedFolder(folder: directory, note: RepoPaths.attachmentOwner(ofFolder: directory)!))
        }
      }
    default:
      return nil
    }
  }

  /// The plan from `format` to ``RepositoryFormat/newest``, one step at a time.
  static func plan(from format: Int, configText: String, tree: Tree) -> MigrationPlan {
    var work = Work()
    var summaries: [String] = []
    var current = format
    while current < RepositoryFormat.newest, let step = step(from: current) {
      step.apply(tree, &work)
      summaries.append(step.summary)
      current += 1
    }
    return MigrationPlan(
      from: format, to: current, steps: summaries,
      configText: current == format ? configText : settingFormat(current, in: configText),
      attachmentFolders: work.attachmentFolders)
  }

  /// `text` (a `.nb/config.yaml`) with its top-level `format:` line saying `format`, every other byte kept; a file
  /// without one gets the line after its leading comment lines.
  static func settingFormat(_ format: Int, in text: String) -> String {
    var lines = text.components(separatedBy: "\n")
    if let index = lines.firstIndex(where: { $0.hasPrefix("format:") }) {
      // Keep a trailing comment and a CR ending, if the line has them.
      let line = lines[index]
      let rest = line.dropFirst("format:".count)
      let valueEnd = rest.firstIndex(where: { $0 == "#" || $0 == "\r" }) ?? rest.endIndex
      var tail = String(rest[valueEnd...])
      if tail.hasPrefix("#") { tail = " " + tail }
      lines[index] = "format: \(format)" + tail
      return lines.joined(separator: "\n")
    }
    let insertAt = lines.firstIndex { !$0.hasPrefix("#") } ?? lines.count
    lines.insert("format: \(format)", at: insertAt)
    return lines.joined(separator: "\n")
  }
}

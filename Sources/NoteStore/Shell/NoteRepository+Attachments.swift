import Foundation

/// One file in a note's attachment folder.
public struct Attachment: Equatable, Sendable {
  /// Repository-relative path (`work/plan.files/photo.jpg`).
  public let path: String
  /// Its size on disk.
  public let bytes: Int64

  /// Creates an attachment value.
  public init(path: String, bytes: Int64) {
    self.path = path
    self.bytes = bytes
  }
}

/// Attachments: files kept in `<stem>.files/` beside a note (format 2), which move, rename and go with the note.
extension NoteRepository {
  /// The largest file `attach` copies in: git keeps every version of every file in every clone forever.
  public static let attachmentSizeLimit: Int64 = 50 * 1024 * 1024

  /// Whether this repository has attachment folders (format 2 and later); in format 1 `x.files/` is a notebook.
  public var hasAttachmentFolders: Bool { config.format >= RepositoryFormat.attachments }

  /// The note's attachment folder, repository-relative (`work/plan.files`), whether or not it exists.
  public func attachmentFolder(of note: Note) -> String { RepoPaths.attachmentFolder(of: note.path) }

  /// Whether a repository-relative path lies in an attachment folder (never in a format-1 repository): such a
  /// file is never a note, however it is named, and its directory is never a notebook.
  func isAttachment(_ path: String) -> Bool {
    hasAttachmentFolders && NoteIndex.isAttachment(root: root.path, path)
  }

  /// The files in the note's attachment folder (any depth), repository-relative, in path order; empty when it has
  /// none or the repository is format 1.
  public func attachments(of note: Note) throws -> [String] {
    try attachmentFiles(of: note).map(\.path)
  }

  /// The attachments with their sizes.
  public func attachmentFiles(of note: Note) throws -> [Attachment] {
    attachmentFiles(ofNotePath: note.path)
  }

  /// The attachments of the note at `path` (repository-relative).
  func attachmentFiles(ofNotePath path: String) -> [Attachment] {
    guard hasAttachmentFolders else { return [] }
    let folder = RepoPaths.attachmentFolder(of: path)
    guard FileSystem.lstatInfo(absolute(folder))?.isDirectory == true else { return [] }
    var result: [Attachment] = []
    func walk(_ directory: String) {
      for entry in FileSystem.entries(of: absolute(directory)) {
        let path = RepoPaths.join(directory, entry.name)
        if entry.isDirectory {
          walk(path)
        } else if !AtomicFile.isTemporary(entry.name), let info = FileSystem.lstatInfo(absolute(path)) {
          result.append(Attachment(path: path, bytes: info.size))
        }
      }
    }
    walk(folder)
    return result.sorted { $0.path < $1.path }
  }

  /// Copies `files` into the note's attachment folder (created when missing) and, with `link`, appends one line per
  /// file to the body, `[name](plan.files/name)`; stamps `updated` (note and attachments are one unit to sync's
  /// later-edit rule, as note and ink are) and commits everything as one commit. A name already in the folder
  /// gets `name-2.ext`. Returns the attachments as written, in the order of `files`.
  ///
  /// Refused, with nothing written: a format-1 repository (see ``migrationPlan()``), a file that is missing, a
  /// directory, inside the repository's `.git`, or larger than ``attachmentSizeLimit``.
  @discardableResult
  public func attach(_ files: [URL], to note: Note, link: Bool = true) throws -> [Attachment] {
    guard hasAttachmentFolders else {
      throw NoteStoreError.invalidArgument(
        "attachments need repository format \(RepositoryFormat.attachments) (this one is format \(config.format)); "
          + "run 'nb migrate' to see what changes, then 'nb migrate --apply' (upgrade nb on your other devices first)")
    }
    guard !files.isEmpty else { throw NoteStoreError.invalidArgument("give at least one file to attach") }
    if isAttachment(note.path) {
      throw NoteStoreError.invalidArgument("\(note.path) is an attachment, not a note; attach files to its note")
    }
    let gitReal = FileSystem.realPath(gitDirectory.path) ?? gitDirectory.path
    for file in files {
      let shown = file.path
      guard let info = FileSystem.statInfo(file.path) else {
        throw NoteStoreError.invalidArgument("\(shown): no such file; give the path of a file to attach")
      }
      if info.isDirectory {
        throw NoteStoreError.invalidArgument(
          "\(shown) is a directory; attach the files in it (nb attach NOTE DIR/*) or an archive of it")
      }
      guard info.isRegular else {
        throw NoteStoreError.invalidArgument("\(shown) is not a regular file; only files can be attached")
      }
      let real = FileSystem.realPath(file.path) ?? file.path
      if real == gitReal || real.hasPrefix(gitReal + "/") {
        throw NoteStoreError.invalidArgument(
          "\(shown) is inside the repository's .git (git's own data); copy it somewhere else first if you mean it")
      }
      if info.size > Self.attachmentSizeLimit {
        let megabytes = (Double(info.size) / 1_048_576 * 10).rounded() / 10
        throw NoteStoreError.invalidArgument(
          "\(shown) is \(megabytes) MB, over the 50 MB limit for attachments: git keeps every version in every "
            + "clone forever; keep it elsewhere and link to it from the note, or track it with git-lfs")
      }
    }
    return try mutate { tx in
      let folder = RepoPaths.attachmentFolder(of: note.path)
      if let existing = FileSystem.lstatInfo(absolute(folder)), !existing.isDirectory {
        throw NoteStoreError.alreadyExists(path: folder, what: "a file, where the note's attachment folder goes")
      }
      var chosen = Set<String>()
      var written: [Attachment] = []
      var lines: [String] = []
      for file in files {
        let name = AttachmentLinks.unique(file.lastPathComponent) { candidate in
          chosen.contains(candidate) || FileSystem.exists(self.absolute(RepoPaths.join(folder, candidate)))
        }
        chosen.insert(name)
        let data = try FileSystem.read(file.path)
        let path = RepoPaths.join(folder, name)
        try tx.write(path, data)
        written.append(Attachment(path: path, bytes: Int64(data.count)))
        lines.append(AttachmentLinks.markdown(name: name, folder: RepoPaths.lastComponent(of: folder)))
      }
      var text = try readText(note.path)
      if link { text = Self.appending(lines.joined(separator: Self.lineEnding(of: text)), to: text) }
      try stampAndWrite(
        note.path, text: text, in: &tx,
        subject: written.count == 1
          ? "attach \(written[0].path)" : "attach \(written.count) files to \(note.path)")
      return written
    }
  }
}

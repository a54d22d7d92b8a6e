import Foundation

/// Where a note's files are on disk, for callers that must hand a path to another program or report on a file,
/// so that they need not assemble paths below ``NoteRepository/root`` themselves.
extension NoteRepository {
  /// The note's file in the work tree, for a program that edits it in place (an editor); nb reads and writes
  /// notes through the repository, never through this URL.
  public func fileURL(of note: Note) -> URL {
    root.appendingPathComponent(note.path)
  }

  /// The size in bytes of the note's ink sidecar as it is on disk (not a re-serialisation of the drawing), or nil
  /// when the note has none. A symbolic link is measured, not followed.
  public func inkFileSize(of note: Note) -> Int? {
    FileSystem.lstatInfo(absolute(inkPath(of: note))).map { Int($0.size) }
  }
}

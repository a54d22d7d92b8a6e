import Foundation

/// The three sides of a merge as the sync policy is given them: each path's stored file on the common ancestor
/// (`base`), on this device (`ours`) and on the remote (`theirs`) — the whole trees, or only what changed.
struct MergeSides {
  var base: [String: StoredFile]
  var ours: [String: StoredFile]
  var theirs: [String: StoredFile]
  /// For sides restricted to what changed: the files left out that lie directly in a directory holding a change,
  /// by directory (they are the same on every side). Nil for whole trees.
  var leftOut: [String: Set<String>]? = nil

  /// Every path changed on either side since `base`, with the note or ink sidecar that goes with each (unchanged,
  /// the same on every side): all the policy can decide anything about. Read from the differences between the
  /// trees, so the cost follows what changed, not the size of the repository. Nil when that may not be enough:
  /// with attachment folders, for a change inside or beside one (whether a file there is a note depends on paths
  /// left out).
  static func changed(
    base: String, ours: String, theirs: String, in git: NoteHistory, attachmentFolders: Bool
  ) throws -> MergeSides? {
    let ourChanges = try git.fileChanges(from: base, to: ours)
    let theirChanges = try git.fileChanges(from: base, to: theirs)
    let paths = Set(ourChanges.keys).union(theirChanges.keys)
    if attachmentFolders, paths.contains(where: { SideTree.mayBeAttachment($0, attachmentFolders: true) }) {
      return nil
    }
    var sides = MergeSides(base: [:], ours: [:], theirs: [:])
    for path in paths {
      let original = ourChanges[path].map { $0.old } ?? theirChanges[path]?.old
      sides.base[path] = original
      sides.ours[path] = ourChanges[path].map { $0.new } ?? original
      sides.theirs[path] = theirChanges[path].map { $0.new } ?? original
    }
    // What lies around the changes on the base (and, unchanged, on every side).
    var listings: [String: (files: [String: StoredFile], directories: [String])] = [:]
    for directory in Set(paths.map(RepoPaths.directory(of:))) {
      let listing = try git.directoryListing(of: base, directory: directory)
      if attachmentFolders, listing.directories.contains(where: { RepoPaths.attachmentOwner(ofFolder: $0) != nil }) {
        return nil
      }
      listings[directory] = listing
    }
    for path in paths {
      let partner: String
      if path.hasSuffix(".md") {
        partner = RepoPaths.sidecars(of: path)[0]
      } else if path.hasSuffix(RepoPaths.inkSuffix) {
        partner = String(path.dropLast(RepoPaths.inkSuffix.count)) + ".md"
      } else {
        continue
      }
      guard !paths.contains(partner), let file = listings[RepoPaths.directory(of: partner)]?.files[partner] else {
        continue
      }
      (sides.base[partner], sides.ours[partner], sides.theirs[partner]) = (file, file, file)
    }
    sides.leftOut = listings.mapValues { listing in
      Set(listing.files.keys.filter { sides.base[$0] == nil && sides.ours[$0] == nil && sides.theirs[$0] == nil })
    }
    return sides
  }

  /// Whether `result`, decided on these sides, is what the whole trees decide. The paths left out are the same on
  /// every side and a note among them is carried over as it is: they can only change the outcome by being in the
  /// way of a path the result puts something at — a note's, its sidecar's, a conflict copy's, or a file's moved
  /// aside — which then lies beside a change and is looked for among them; a path in a directory not looked at is
  /// a no. A refusal (a merge that deletes too much) is a no too: it is confirmed on the whole trees.
  func decidesAlone(_ result: SyncMerge) -> Bool {
    guard let leftOut else { return true }
    guard case .merged(let tree, _) = result else { return false }
    for path in tree.keys where base[path] == nil && ours[path] == nil && theirs[path] == nil {
      guard let around = leftOut[RepoPaths.directory(of: path)], !around.contains(path) else { return false }
      if path.hasSuffix(".md"), around.contains(RepoPaths.sidecars(of: path)[0]) { return false }
    }
    return true
  }
}

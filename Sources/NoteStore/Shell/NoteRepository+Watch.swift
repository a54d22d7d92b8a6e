import Foundation

/// What a long-running process (`nb watch`, an app) needs beyond the commands: which paths git ignores, and whether
/// the remote moved, asked cheaply.
extension NoteRepository {
  /// Whether git ignores `path` (relative to the root): `.gitignore` files, `.git/info/exclude` and
  /// `core.excludesFile`, as `git check-ignore` answers.
  public func isIgnored(_ path: String) throws -> Bool {
    try git.isIgnored(path)
  }

  /// Whether the remote's branch has moved since the last fetch, asked with one ref listing (nothing is
  /// downloaded): a watcher calls it every interval and syncs only when it answers true. True, too, when the
  /// remote has a branch this repository has never fetched; false for a remote that has no branch yet.
  public func remoteHasNews(_ options: SyncOptions = SyncOptions()) throws -> Bool {
    guard try git.hasRemote(options.remote) else { throw NoteStoreError.noRemote(options.remote) }
    guard let branch = try git.currentBranch else { return false }
    let listing = try git.listRemote(options.remote, credentials: options.credentials)
    let target = try remoteBranch(for: branch, remote: options.remote, listing: listing)
    guard let advertised = listing.branches[target] else { return false }
    return try advertised != git.remoteTip(options.remote, branch: target)
  }
}

extension NoteRepository {
  /// The commit HEAD points at (nil in a repository without commits), read from the files under `.git` when
  /// possible (no libgit2 start-up: the index asks this before every query).
  public func headCommit() throws -> String? {
    if let head = NoteHistory.headIDFromFiles(gitDirectory: gitDirectory) { return head }
    return try git.headID()
  }
}

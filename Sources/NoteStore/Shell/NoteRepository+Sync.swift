import Foundation
import GitKit

/// How `sync` should run.
public struct SyncOptions: Sendable {
  /// The remote to sync with.
  public var remote: String
  /// Report what would happen; change nothing (not even remote-tracking refs).
  public var dryRun: Bool
  /// Go ahead with a merge that deletes more than 50 notes or a whole notebook.
  public var force: Bool
  /// Join a remote whose history is unrelated to the local one (merging both trees).
  public var allowUnrelated: Bool
  /// This device's name, used in conflict-copy file names.
  public var device: String
  /// How often to start over when the remote moved during a sync.
  public var maxAttempts: Int
  /// Where credentials come from (ssh-agent, key files, `git credential`, `NB_GIT_TOKEN`).
  public var credentials: Credentials

  /// Creates options; the device defaults to the host name.
  public init(
    remote: String = "origin", dryRun: Bool = false, force: Bool = false, allowUnrelated: Bool = false,
    device: String = ProcessInfo.processInfo.hostName, maxAttempts: Int = 3, credentials: Credentials = .standard()
  ) {
    self.remote = remote
    self.dryRun = dryRun
    self.force = force
    self.allowUnrelated = allowUnrelated
    self.device = device
    self.maxAttempts = maxAttempts
    self.credentials = credentials
  }
}

/// What a sync did (or, with `dryRun`, would do).
public struct SyncSummary: Equatable, Sendable {
  /// The shape of the exchange.
  public enum Outcome: String, Sendable {
    case upToDate = "up-to-date"
    case published
    case pushed
    case fastForwarded = "fast-forwarded"
    case merged
  }
  /// What happened.
  public var outcome: Outcome
  /// The remote and its branch (`origin/main`).
  public var remoteBranch: String
  /// Commits that came in.
  public var received: Int
  /// Commits that went out.
  public var sent: Int
  /// Notes edited outside nb that were committed first.
  public var saved: [String]
  /// Notes merged line by line without a conflict.
  public var merged: [String]
  /// Conflicts, each with its winner and where the losing version is kept.
  public var conflicts: [SyncConflict]
  /// Notes deleted on one side and edited on the other: kept.
  public var resurrected: [String]
  /// Anything else worth reading.
  public var warnings: [String]
  /// The backup ref of the local head written before a merge.
  public var backupRef: String?
  /// Whether this was a dry run.
  public var dryRun: Bool

  /// Nothing done yet: up to date until the exchange says otherwise.
  init(remoteBranch: String, dryRun: Bool) {
    self.outcome = .upToDate
    self.remoteBranch = remoteBranch
    self.received = 0
    self.sent = 0
    self.saved = []
    self.merged = []
    self.conflicts = []
    self.resurrected = []
    self.warnings = []
    self.backupRef = nil
    self.dryRun = dryRun
  }
}

extension NoteRepository {
  // MARK: - Clone

  /// Makes this device a copy of an existing note repository (`nb clone URL PATH`): a new git repository at
  /// `root` whose branch follows the remote's default branch. Refuses a non-empty directory, an empty remote and
  /// a remote without nb's settings — and then leaves nothing behind.
  @discardableResult
  public static func clone(
    url: String, to root: URL, remote: String = "origin", credentials: Credentials = .standard()
  ) throws -> NoteRepository {
    let root = root.standardizedFileURL
    let existing = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
    if !existing.isEmpty { throw NoteStoreError.alreadyExists(path: root.path, what: "a directory that is not empty") }
    let created = !FileSystem.exists(root.path)
    func cleanUp() {
      if created {
        try? FileManager.default.removeItem(at: root)
      } else {
        try? FileManager.default.removeItem(at: root.appendingPathComponent(".git"))
      }
    }
    do {
      try FileSystem.makeDirectory(root.path)
      var git = try Repository.create(at: root, initialBranch: "main")
      _ = try git.addRemote(name: remote, url: url)
      let listing = try remoteCall(remote) { try git.listRemote(remote, credentials: credentials) }
      guard !listing.isEmpty,
        let defaultBranch = listing.defaultBranch
          ?? listing.references.keys.first(where: {
            $0.hasPrefix("refs/heads/")
          })
      else {
        throw NoteStoreError.syncFailed(
          "\(url) is empty; make a repository with 'nb init', add this remote, and 'nb sync' to publish it")
      }
      let branch = String(defaultBranch.dropFirst("refs/heads/".count))
      if branch != "main" {
        // The local branch follows the remote's name (`master` on older servers).
        try FileManager.default.removeItem(at: root.appendingPathComponent(".git"))
        git = try Repository.create(at: root, initialBranch: branch)
        _ = try git.addRemote(name: remote, url: url)
      }
      _ = try remoteCall(remote) { try git.fetch(remote: remote, credentials: credentials) }
      guard let tip = try git.reference(named: "refs/remotes/\(remote)/\(branch)") else {
        throw NoteStoreError.syncFailed("\(url) did not send its branch \(branch)")
      }
      guard try git.treeEntries(ofCommit: tip)[".nb/config.yaml"] != nil else {
        throw NoteStoreError.syncFailed(
          "\(url) is a git repository but not an nb one (no .nb/config.yaml); clone it with git and run 'nb init' in it"
        )
      }
      _ = try git.checkoutSafely(tip, expected: nil, message: "nb: clone \(url)")
      try git.setUpstream(of: branch, remote: remote, remoteBranch: branch)
      return try NoteRepository.open(at: root)
    } catch let error as GitError {
      cleanUp()
      throw NoteStoreError.git(error)
    } catch {
      cleanUp()
      throw error
    }
  }

  /// Every remote operation's errors, mapped once: unreachable is `.offline` (its own exit status), the rest a
  /// failed sync with libgit2's reason.
  private static func remoteCall<T>(_ remote: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as RemoteError {
      if error.isNetwork { throw NoteStoreError.offline(remote: remote, detail: error.description) }
      throw NoteStoreError.syncFailed(error.description)
    }
  }

  // MARK: - Conflicts

  /// Conflict copies waiting for a decision: notes whose front matter names the note they lost to.
  public func conflictCopies() throws -> [Note] {
    try allNotes().filter { $0.conflictOf != nil }
  }

  /// Keeps the conflict copy's version: its text replaces the note it lost to (which stays in history), the copy
  /// is removed, in one commit.
  @discardableResult
  public func restoreConflict(_ copy: Note) throws -> Note {
    guard let originalID = copy.conflictOf else {
      throw NoteStoreError.invalidArgument("\(copy.path) is not a conflict copy (it has no conflict_of)")
    }
    guard let original = try note(id: originalID) else {
      throw NoteStoreError.invalidArgument(
        "the note \(copy.path) lost to (id \(originalID)) no longer exists; keep the copy by removing its conflict_of line"
      )
    }
    return try mutate { tx in
      var text = try readText(copy.path)
      text = try frontMatterCall(copy.path) {
        var t = try FrontMatter.setting("id", to: originalID, in: text)
        t = try FrontMatter.removing("conflict_of", in: t)
        return t
      }
      try tx.removeNote(copy.path)
      let restored = try stampAndWrite(original.path, text: text, in: &tx, subject: "restore \(copy.path)")
      tx.subject = "restore conflict copy \(copy.path) -> \(original.path)"
      return restored
    }
  }

  /// Drops a conflict copy (the losing version stays in git history), in one commit.
  public func dismissConflict(_ copy: Note) throws {
    guard copy.conflictOf != nil else {
      throw NoteStoreError.invalidArgument("\(copy.path) is not a conflict copy (it has no conflict_of)")
    }
    try mutate { tx in
      try tx.removeNote(copy.path)
      tx.note(copy.id)
      tx.subject = "dismiss conflict copy \(copy.path)"
    }
  }

  // MARK: - Remotes

  /// The remotes configured for the repository.
  public func remotes() throws -> [Remote] {
    try gitCall { try git.remotes() }
  }

  /// Adds a remote (`nb remote add origin URL`).
  public func addRemote(_ name: String, url: String) throws {
    guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0 == "/" }) else {
      throw NoteStoreError.invalidArgument("remote name '\(name)' must be one word without '/'")
    }
    if try gitCall({ try git.remote(named: name) }) != nil {
      throw NoteStoreError.alreadyExists(path: name, what: "a remote; change it with 'nb remote set-url'")
    }
    _ = try gitCall { try git.addRemote(name: name, url: url) }
  }

  /// Removes a remote.
  public func removeRemote(_ name: String) throws {
    guard try gitCall({ try git.remote(named: name) }) != nil else { throw NoteStoreError.noRemote(name) }
    try gitCall { try git.removeRemote(name: name) }
  }

  /// Changes a remote's URL.
  public func setRemoteURL(_ name: String, url: String) throws {
    guard try gitCall({ try git.remote(named: name) }) != nil else { throw NoteStoreError.noRemote(name) }
    try gitCall { try git.setRemoteURL(name: name, url: url) }
  }

  /// How far the current branch is ahead of and behind its upstream, from the last fetch; nil without one.
  public func aheadBehind() throws -> (ahead: Int, behind: Int, upstream: String)? {
    try gitCall {
      guard let branch = try git.currentBranch, let tracking = try git.upstreamTrackingReference(of: branch),
        let remoteTip = try git.reference(named: tracking), let local = try git.headCommitID()
      else { return nil }
      let counts = try git.aheadBehind(local: local, upstream: remoteTip)
      return (counts.ahead, counts.behind, tracking.replacingOccurrences(of: "refs/remotes/", with: ""))
    }
  }

  /// When the last sync finished on this device, if ever.
  public var lastSync: Date? {
    guard let data = try? FileSystem.read(syncStatePath), let text = String(data: data, encoding: .utf8),
      let seconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
    else { return nil }
    return Date(timeIntervalSince1970: seconds)
  }

  private var syncStatePath: String { gitDirectory.appendingPathComponent("nb/last-sync").path }

  // MARK: - Sync

  /// Saves pending edits, fetches, merges by the conflict policy, and pushes, as one locked operation. Never
  /// force-pushes; a push rejected because the remote moved starts over from the fetch (bounded). Conflict
  /// markers never reach a file: conflicting versions are kept whole as conflict copies.
  public func sync(_ options: SyncOptions = SyncOptions()) throws -> SyncSummary {
    try withLock {
      try checkCommittable()
      guard try gitCall({ try git.remote(named: options.remote) }) != nil else {
        throw NoteStoreError.noRemote(options.remote)
      }
      guard let branch = try git.currentBranch else {
        throw NoteStoreError.unsafeGitState("HEAD is detached; switch to a branch (git switch main), then retry")
      }
      if options.dryRun { return try dryRun(options, branch: branch) }
      let saved = try save().notes
      var attempt = 0
      while true {
        attempt += 1
        var summary = try exchange(options, branch: branch)
        summary.saved = saved
        if summary.outcome == .upToDate || summary.outcome == .fastForwarded { return finish(summary) }
        let pushed = try push(options, branch: branch, remoteBranch: summary.remoteBranch)
        if pushed { return finish(summary) }
        guard attempt < options.maxAttempts else {
          throw NoteStoreError.syncFailed(
            "the remote kept moving during \(attempt) attempts; nothing was lost, run 'nb sync' again")
        }
      }
    }
  }

  private func finish(_ summary: SyncSummary) -> SyncSummary {
    try? FileSystem.makeDirectory(gitDirectory.appendingPathComponent("nb").path)
    try? AtomicFile.write(
      Data("\(Date().timeIntervalSince1970)\n".utf8), to: URL(fileURLWithPath: syncStatePath), durable: false)
    return summary
  }

  /// The remote branch this branch syncs with: its upstream, else the remote's branch of the same name, else the
  /// remote's default branch (`master` on older servers), else the same name (publishing it).
  private func remoteBranch(for branch: String, remote: String, listing: RemoteListing) throws -> String {
    if let upstream = try git.upstream(of: branch), upstream.remote == remote {
      // Configured as a ref (`refs/heads/main`); pushes and tracking refs need the branch name.
      return upstream.branch.hasPrefix("refs/heads/")
        ? String(upstream.branch.dropFirst("refs/heads/".count)) : upstream.branch
    }
    if listing.references["refs/heads/\(branch)"] != nil { return branch }
    if let defaultBranch = listing.defaultBranch, defaultBranch.hasPrefix("refs/heads/") {
      return String(defaultBranch.dropFirst("refs/heads/".count))
    }
    return branch
  }

  private func fetch(_ options: SyncOptions) throws -> FetchResult {
    try Self.remoteCall(options.remote) { try git.fetch(remote: options.remote, credentials: options.credentials) }
  }

  /// Fetch, then up to date / fast-forward / merge. Pushing is the caller's.
  private func exchange(_ options: SyncOptions, branch: String) throws -> SyncSummary {
    let fetched = try fetch(options)
    let target = try remoteBranch(for: branch, remote: options.remote, listing: fetched.listing)
    let label = "\(options.remote)/\(target)"
    var summary = SyncSummary(remoteBranch: target, dryRun: false)
    let local = try git.headCommitID()
    guard let remoteTip = try git.reference(named: "refs/remotes/\(options.remote)/\(target)") else {
      // An empty remote (or one without this branch): publish.
      summary.outcome = .published
      summary.sent = try local.map { try git.log(from: $0).reduce(0) { count, _ in count + 1 } } ?? 0
      return summary
    }
    guard let local else {
      // A repository without commits joins the remote's history.
      _ = try checkout(remoteTip, expected: nil, label: label)
      summary.outcome = .fastForwarded
      summary.received = try git.log(from: remoteTip).reduce(0) { count, _ in count + 1 }
      return summary
    }
    if local == remoteTip { return summary }
    let counts = try git.aheadBehind(local: local, upstream: remoteTip)
    summary.received = counts.behind
    summary.sent = counts.ahead
    if counts.behind == 0 {
      summary.outcome = .pushed
      return summary
    }
    if counts.ahead == 0 {
      try checkout(remoteTip, expected: local, label: label)
      summary.outcome = .fastForwarded
      return summary
    }
    return try merge(local: local, remoteTip: remoteTip, label: label, options: options, summary: summary)
  }

  private func merge(
    local: ObjectID, remoteTip: ObjectID, label: String, options: SyncOptions, summary: SyncSummary
  ) throws -> SyncSummary {
    var summary = summary
    let base = try git.mergeBase(local, remoteTip)
    if base == nil && !options.allowUnrelated {
      throw NoteStoreError.syncFailed(
        "\(label) has a history unrelated to this repository's; if this device should join it, run "
          + "'nb sync --allow-unrelated' (both trees are merged, nothing is deleted)")
    }
    let baseEntries = try base.map { try git.treeEntries(ofCommit: $0) } ?? [:]
    let ourEntries = try git.treeEntries(ofCommit: local)
    let theirEntries = try git.treeEntries(ofCommit: remoteTip)
    let ourTimes = try lastChangeTimes(from: local, base: base, entries: ourEntries, baseEntries: baseEntries)
    let theirTimes = try lastChangeTimes(from: remoteTip, base: base, entries: theirEntries, baseEntries: baseEntries)
    let baseTime = try base.map { try git.commit($0).author.date } ?? Date(timeIntervalSince1970: 0)

    // Files identical on all three sides cannot be part of any conflict: the policy sees a stand-in, so a merge
    // in a 100 000-note repository reads only the blobs that changed.
    var unchanged: [String: TreeEntry] = [:]
    var placeholders: [String: Data] = [:]
    for (path, entry) in ourEntries where baseEntries[path] == entry && theirEntries[path] == entry {
      unchanged[path] = entry
      placeholders[path] = Data("nb-unchanged \(entry.id.hex)\n".utf8)
    }
    func versions(_ entries: [String: TreeEntry], times: [String: Date], fallback: Date) throws -> [String: FileVersion]
    {
      var result: [String: FileVersion] = [:]
      for (path, entry) in entries {
        let bytes = try placeholders[path] ?? git.blob(entry.id)
        result[path] = FileVersion(bytes: bytes, commitTime: times[path] ?? fallback)
      }
      return result
    }
    let resolution = SyncPolicy.resolve(
      base: try versions(baseEntries, times: [:], fallback: baseTime),
      ours: try versions(ourEntries, times: ourTimes, fallback: baseTime),
      theirs: try versions(theirEntries, times: theirTimes, fallback: baseTime),
      device: Slug.make(options.device), now: clock(), force: options.force)
    guard case .resolved(let tree, let report) = resolution else {
      if case .needsForce(let reason) = resolution {
        throw NoteStoreError.syncFailed("\(reason); nothing was changed — run 'nb sync --force' if this is intended")
      }
      throw NoteStoreError.syncFailed("the merge could not be resolved")
    }

    // The backup is written only once the merge is certain to go ahead, so a refused merge (`--force` needed)
    // leaves nothing behind; a retry within the same second (same name, same commit) reuses it.
    let utc = Timestamp(date: clock(), offsetSeconds: 0).rfc3339.prefix(19).filter { $0.isNumber }
    let stamp = "\(utc.prefix(8))T\(utc.dropFirst(8))Z"
    let backup = "refs/nb/backup/\(stamp)-\(local.short)"
    if try git.reference(named: backup) != local {
      try git.setReference(backup, to: local, message: "nb: backup before merging \(label)", expected: .some(nil))
    }
    summary.backupRef = backup

    var entries: [String: TreeEntry] = [:]
    for (path, bytes) in tree {
      if let entry = unchanged[path], bytes == placeholders[path] {
        entries[path] = entry
        continue
      }
      let mode = ourEntries[path]?.mode ?? theirEntries[path]?.mode ?? .blob
      entries[path] = TreeEntry(id: try git.writeBlob(bytes), mode: mode == .gitlink ? .blob : mode)
    }
    let treeID = try git.writeTree(entries, base: local)
    var ids: [String] = []
    for path in report.merged + report.conflicts.map(\.path) + report.resurrected {
      if let bytes = tree[path], let text = String(data: bytes, encoding: .utf8),
        let id = (try? FrontMatter.read(text))?.id
      {
        ids.append(id)
      }
    }
    let subject =
      "sync: merge \(label)"
      + (report.conflicts.isEmpty ? "" : " (\(CommitMessage.count(report.conflicts.count, "conflict")))")
    let signature = try git.defaultSignature(date: clock())
    let mergeCommit = try git.createCommit(
      tree: treeID, parents: [local, remoteTip], message: CommitMessage.make(subject, noteIDs: ids),
      author: signature, committer: signature)
    try checkout(mergeCommit, expected: local, label: label)
    summary.outcome = .merged
    summary.merged = report.merged.sorted()
    summary.conflicts = report.conflicts.sorted { $0.path < $1.path }
    summary.resurrected = report.resurrected.sorted()
    summary.warnings = report.warnings
    return summary
  }

  /// The author time of the newest commit on one side that changed each path since the merge base. Paths the side
  /// did not change are left out (the caller falls back to the base's time).
  private func lastChangeTimes(
    from tip: ObjectID, base: ObjectID?, entries: [String: TreeEntry], baseEntries: [String: TreeEntry]
  ) throws -> [String: Date] {
    var wanted = Set(entries.keys.filter { baseEntries[$0] != entries[$0] })
    var times: [String: Date] = [:]
    var walked = 0
    for commit in try git.log(from: tip) {
      if wanted.isEmpty || commit.id == base || walked > 5_000 { break }
      walked += 1
      for change in try git.changes(in: commit.id) {
        for path in [change.newPath, change.oldPath].compactMap({ $0 }) where wanted.contains(path) {
          times[path] = commit.author.date
          wanted.remove(path)
        }
      }
    }
    return times
  }

  @discardableResult
  private func checkout(_ target: ObjectID, expected: ObjectID?, label: String) throws -> Bool {
    switch try git.checkoutSafely(target, expected: expected, message: "nb: sync \(label)") {
    case .checkedOut:
      return true
    case .blocked(let conflicts):
      throw NoteStoreError.syncFailed(
        "files changed while syncing (\(conflicts.prefix(3).joined(separator: ", "))); nothing was overwritten, "
          + "run 'nb sync' again")
    }
  }

  /// Pushes; false when the remote moved meanwhile (the caller starts over), an error for any other refusal.
  private func push(_ options: SyncOptions, branch: String, remoteBranch: String) throws -> Bool {
    let result = try Self.remoteCall(options.remote) {
      try git.push(
        remote: options.remote, refspecs: ["refs/heads/\(branch):refs/heads/\(remoteBranch)"],
        credentials: options.credentials)
    }
    for reference in result.references {
      if case .rejectedByServer(let message) = reference.status {
        throw NoteStoreError.syncFailed(
          "\(options.remote) refused \(reference.destination): \(message); your commits are kept locally")
      }
    }
    if !result.succeeded { return false }
    if try git.upstream(of: branch) == nil {
      try git.setUpstream(of: branch, remote: options.remote, remoteBranch: remoteBranch)
    }
    return true
  }

  /// What a sync would do, from the remote's advertised refs alone: nothing is downloaded or changed.
  private func dryRun(_ options: SyncOptions, branch: String) throws -> SyncSummary {
    let listing = try Self.remoteCall(options.remote) {
      try git.listRemote(options.remote, credentials: options.credentials)
    }
    let target = try remoteBranch(for: branch, remote: options.remote, listing: listing)
    var summary = SyncSummary(remoteBranch: target, dryRun: true)
    summary.saved = try git.status().filter { RepoPaths.isNotePath($0.path) }.map(\.path)
    let local = try git.headCommitID()
    guard let remoteTip = listing.references["refs/heads/\(target)"] else {
      summary.outcome = .published
      return summary
    }
    guard let local else {
      summary.outcome = .fastForwarded
      return summary
    }
    if local == remoteTip && summary.saved.isEmpty { return summary }
    let known = (try? git.commit(remoteTip)) != nil
    if known, try git.isDescendant(local, of: remoteTip) || local == remoteTip {
      summary.outcome = .pushed
      summary.sent = try git.aheadBehind(local: local, upstream: remoteTip).ahead
    } else if known, try git.isDescendant(remoteTip, of: local) {
      summary.outcome = .fastForwarded
    } else {
      summary.outcome = .merged
      summary.warnings.append("the remote has commits this device has not fetched; a sync will merge them")
    }
    return summary
  }
}

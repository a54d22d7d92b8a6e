import Foundation
import TextFormat

/// Where a fetch or push gets credentials from.
public struct SyncCredentials: Sendable {
  enum Source: Sendable {
    case none
    /// One session for every fetch and push made with this value (a whole sync).
    case standard(CredentialSession)
  }
  let source: Source

  /// None: anonymous access only (local paths, `git://`, public HTTPS).
  public static let none = SyncCredentials(source: .none)

  /// ssh-agent, then `~/.ssh/id_ed25519` and `id_rsa` for ssh; `git credential fill` (the user's own helper, never
  /// prompting), then `NB_GIT_TOKEN` for HTTPS. `HOME`, `SSH_AUTH_SOCK` and `NB_GIT_TOKEN` are read from
  /// `environment`. What the helper answered is reported back to it (`git credential approve` / `reject`).
  public static func standard(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> SyncCredentials {
    SyncCredentials(source: .standard(CredentialSession(environment: environment)))
  }
}

/// A configured remote.
public struct SyncRemote: Equatable, Sendable {
  /// Its name (`origin`).
  public var name: String
  /// Where it is.
  public var url: String

  /// A remote value (the repository makes these).
  public init(name: String, url: String) {
    self.name = name
    self.url = url
  }
}

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
  /// This device's name: the `Nb-Device:` trailer of every commit the sync makes, and the name of a conflict copy
  /// whose version's device is not known.
  public var device: String
  /// How often to push at most: a push refused because the remote moved (another device pushed between this
  /// sync's fetch and its push) starts over from the fetch, until this many pushes were refused.
  public var maxAttempts: Int
  /// Where credentials come from (ssh-agent, key files, `git credential`, `NB_GIT_TOKEN`).
  public var credentials: SyncCredentials
  /// How the pending edits are saved before the exchange: `nb save`'s way by default; a watcher passes its own
  /// (unreadable notes and editor scratch files left out), or a sync would commit what its own saves leave out.
  public var save = SaveOptions()

  /// Creates options; the device defaults to `NB_DEVICE`, else the host name.
  public init(
    remote: String = "origin", dryRun: Bool = false, force: Bool = false, allowUnrelated: Bool = false,
    device: String = NoteRepository.defaultDevice(), maxAttempts: Int = 3,
    credentials: SyncCredentials = .standard()
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
  /// Links to a note one device renamed or moved, written on the other, that the merge rewrote to its new place.
  public var followedLinks: [FollowedLink] = []
  /// The paths this sync changed in the work tree (what came in, and conflict copies), sorted; empty when the
  /// work tree was not touched.
  public var changedPaths: [String] = []
  /// The backup ref of the local head written before a merge (before the first one when the sync merged again).
  public var backupRef: String?
  /// Whether this was a dry run.
  public var dryRun: Bool
  /// How many times the sync fetched (and pushed): 1, or more when the remote moved between a fetch and its push
  /// and the sync started over.
  public var attempts = 1

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

extension SyncSummary {
  /// Folds in what the earlier attempts of the same sync did, which this attempt's own exchange does not see: what
  /// they received and merged (committed on this device already), their conflicts and warnings, and the backup
  /// taken before the first merge — the state the sync started from. `sent` and the remote branch stay this
  /// attempt's: they describe the push that went through.
  mutating func absorb(_ earlier: SyncSummary) {
    if earlier.outcome == .merged { outcome = .merged }
    attempts = earlier.attempts
    received += earlier.received
    merged = Array(Set(earlier.merged + merged)).sorted()
    conflicts = (earlier.conflicts + conflicts).sorted { $0.path < $1.path }
    resurrected = Array(Set(earlier.resurrected + resurrected)).sorted()
    warnings = earlier.warnings + warnings.filter { !earlier.warnings.contains($0) }
    backupRef = earlier.backupRef ?? backupRef
    followedLinks = earlier.followedLinks + followedLinks
  }
}

extension NoteRepository {
  // MARK: - Clone

  /// Makes this device a copy of an existing note repository (`nb clone URL PATH`): a new git repository at
  /// `root` whose branch follows the remote's default branch. Refuses a non-empty directory, an empty remote and
  /// a remote without nb's settings — and then leaves nothing behind.
  @discardableResult
  public static func clone(
    url: String, to root: URL, remote: String = "origin", credentials: SyncCredentials = .standard()
  ) throws -> NoteRepository {
    let root = root.standardizedFileURL
    let existing = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
    if !existing.isEmpty { throw NoteStoreError.alreadyExists(path: root.path, what: "a directory that is not empty") }
    let created = !FileSystem.exists(root.path)
    do {
      try FileSystem.makeDirectory(root.path)
      var git = try NoteHistory.create(at: root, branch: "main")
      try git.addRemote(remote, url: url)
      let listing = try git.listRemote(remote, credentials: credentials)
      guard let branch = listing.defaultBranch ?? listing.branches.keys.first else {
        throw NoteStoreError.syncFailed(
          "\(url) is empty; make a repository with 'nb init', add this remote, and 'nb sync' to publish it")
      }
      if branch != "main" {
        // The local branch follows the remote's name (`master` on older servers).
        try FileManager.default.removeItem(at: root.appendingPathComponent(".git"))
        git = try NoteHistory.create(at: root, branch: branch)
        try git.addRemote(remote, url: url)
      }
      _ = try git.fetch(remote, credentials: credentials)
      guard let tip = try git.remoteTip(remote, branch: branch) else {
        throw NoteStoreError.syncFailed("\(url) did not send its branch \(branch)")
      }
      guard try git.snapshot(of: tip)[".nb/config.yaml"] != nil else {
        throw NoteStoreError.syncFailed(
          "\(url) is a git repository but not an nb one (no .nb/config.yaml); clone it with git and run 'nb init' in it"
        )
      }
      _ = try git.checkout(tip, expected: nil, message: "nb: clone \(url)")
      try git.setUpstream(of: branch, remote: remote, remoteBranch: branch)
      return try NoteRepository.open(at: root)
    } catch {
      if created {
        try? FileManager.default.removeItem(at: root)
      } else {
        try? FileManager.default.removeItem(at: root.appendingPathComponent(".git"))
      }
      throw error
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
  public func remotes() throws -> [SyncRemote] {
    try git.remotes()
  }

  /// Adds a remote (`nb remote add origin URL`).
  public func addRemote(_ name: String, url: String) throws {
    guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0 == "/" }) else {
      throw NoteStoreError.invalidArgument("remote name '\(name)' must be one word without '/'")
    }
    if try git.hasRemote(name) {
      throw NoteStoreError.alreadyExists(path: name, what: "a remote; change it with 'nb remote set-url'")
    }
    try git.addRemote(name, url: url)
  }

  /// Removes a remote.
  public func removeRemote(_ name: String) throws {
    guard try git.hasRemote(name) else { throw NoteStoreError.noRemote(name) }
    try git.removeRemote(name)
  }

  /// Changes a remote's URL.
  public func setRemoteURL(_ name: String, url: String) throws {
    guard try git.hasRemote(name) else { throw NoteStoreError.noRemote(name) }
    try git.setRemoteURL(name, url: url)
  }

  /// How far the current branch is ahead of and behind its upstream, from the last fetch; nil without one.
  public func aheadBehind() throws -> (ahead: Int, behind: Int, upstream: String)? {
    let answers = GitFileAnswers(root: root, gitDirectory: gitDirectory, open: { try self.git })
    defer { answers.saveFacts() }
    return try answers.upstreamCounts()
  }

  /// When the last sync finished on this device, if ever.
  public var lastSync: Date? {
    guard let data = try? FileSystem.read(syncStatePath), let text = String(data: data, encoding: .utf8),
      let seconds = Double(text.trimmingWhitespacesAndNewlines())
    else { return nil }
    return Date(timeIntervalSince1970: seconds)
  }

  private var syncStatePath: String { gitDirectory.appendingPathComponent("nb/last-sync").path }

  /// The padded width of `last-sync`'s one line: more than any time in seconds with its fraction prints as.
  private static let syncStateWidth = 32

  // MARK: - Sync

  /// Starts loading git's library on another thread, for a caller about to sync (or do anything else with git)
  /// that opens the repository first: the load (about 4 ms) overlaps that work instead of following it.
  public static func prepareGit() {
    NoteHistory.preload()
  }

  /// Waits until the load ``prepareGit()`` started is done; call it before the process exits (above all on an
  /// error that ends it early), which must not race that load.
  public static func finishPreparingGit() {
    NoteHistory.waitForPreload()
  }

  /// Saves pending edits, fetches, merges by the conflict policy, and pushes, as one locked operation. Never
  /// force-pushes; a push rejected because the remote moved starts over from the fetch (bounded). Conflict
  /// markers never reach a file: conflicting versions are kept whole as conflict copies.
  public func sync(_ options: SyncOptions = SyncOptions()) throws -> SyncSummary {
    try withLock {
      // The walk for unsaved edits reads git's own files (libgit2 only for what they cannot settle, through a
      // handle of its own), so it runs on another core while this one checks the repository and fetches: a fetch
      // changes neither the branch nor the work tree, so it may come before the save it used to follow. Nothing is
      // saved until both are done.
      let walk =
        options.dryRun || options.save.only != nil
        ? nil
        : Concurrently { [root] in self.hasNothingToSave(options.save, open: { try NoteHistory.open(at: root) }) }
      // Never left running: it may be writing what it learnt (GitFacts) when a check below ends the sync.
      defer { walk?.wait() }
      try git.assertCommittable()
      guard try git.hasRemote(options.remote) else { throw NoteStoreError.noRemote(options.remote) }
      guard let branch = try git.currentBranch else {
        throw NoteStoreError.unsafeGitState("HEAD is detached; switch to a branch (git switch main), then retry")
      }
      if options.dryRun { return try dryRun(options, branch: branch) }
      // The pending edits saved first are this device's too: their commit names the device the sync runs as.
      let previousDevice = device
      device = options.device
      defer { device = previousDevice }
      Phases.mark("sync: lock, checks")
      let fetched: RemoteBranches
      do {
        fetched = try git.fetch(options.remote, credentials: options.credentials)
      } catch {
        // Offline, or the remote refused: the edits are committed all the same, as when the save came first.
        _ = try save(options.save, knownClean: walk?.wait() ?? false)
        throw error
      }
      Phases.mark("sync: fetch")
      let saved = try save(options.save, knownClean: walk?.wait() ?? false)
      let before = try git.headID()
      Phases.mark("sync: save")
      // What the earlier attempts did (a merge, its conflict copies) is committed here already and must be
      // reported with the last attempt's, or a conflict found before a retry would go unmentioned.
      var earlier: SyncSummary?
      var prefetched: RemoteBranches? = fetched
      while true {
        var (summary, listing) = try exchange(options, branch: branch, fetched: prefetched)
        prefetched = nil
        if let earlier { summary.absorb(earlier) }
        summary.saved = saved.notes
        if summary.attempts == 1, !options.save.leaveUnstampable {
          summary.warnings += saved.unstamped.map { "\($0); it was committed unchanged" }
        }
        if summary.outcome == .upToDate || summary.outcome == .fastForwarded {
          return finish(summary, options: options, listing: listing, before: before)
        }
        let pushed = try git.push(
          options.remote, branch: branch, to: summary.remoteBranch, credentials: options.credentials)
        Phases.mark("sync: push")
        switch pushed {
        case .pushed:
          if try git.upstream(of: branch) == nil {
            try git.setUpstream(of: branch, remote: options.remote, remoteBranch: summary.remoteBranch)
          }
          return finish(summary, options: options, listing: listing, before: before)
        case .refused(let reference, let message):
          if let lock = NoteHistory.lockedFile(in: message) {
            throw NoteStoreError.syncFailed(
              "\(options.remote) refused \(reference): '\(lock)' is locked; your commits are kept locally"
                + Self.mergedSoFar(summary) + "; " + NoteHistory.lockAdvice)
          }
          throw NoteStoreError.syncFailed(
            "\(options.remote) refused \(reference): \(message); your commits are kept locally"
              + Self.mergedSoFar(summary))
        case .remoteMoved:
          guard summary.attempts < options.maxAttempts else {
            throw NoteStoreError.syncFailed(
              "\(options.remote)/\(summary.remoteBranch) kept moving: the push was refused "
                + "\(counted(summary.attempts, "time")) because another push got there first; nothing was lost, "
                + "your commits are kept locally\(Self.mergedSoFar(summary)); run 'nb sync' again")
          }
          summary.attempts += 1
          earlier = summary
        }
      }
    }
  }

  /// What a failed sync's earlier attempts merged, for its error: their commits stay on this device.
  private static func mergedSoFar(_ summary: SyncSummary) -> String {
    guard summary.outcome == .merged else { return "" }
    let copies =
      summary.conflicts.isEmpty ? "" : " (\(counted(summary.conflicts.count, "conflict")); 'nb conflicts' lists them)"
    return ", with the remote's commits merged into them\(copies)"
  }

  /// The end of a successful sync: the remote's HEAD looked after, old backups pruned, the time recorded. Nothing
  /// here can fail the sync — the exchange is done — so problems become warnings.
  private func finish(_ summary: SyncSummary, options: SyncOptions, listing: RemoteBranches, before: String?)
    -> SyncSummary
  {
    var summary = summary
    if summary.outcome == .fastForwarded || summary.outcome == .merged, let after = try? git.headID() {
      summary.changedPaths = ((try? git.changedPaths(from: before, to: after)) ?? []).sorted()
    }
    if let warning = remoteHeadWarning(options, branch: summary.remoteBranch, listing: listing, summary: summary) {
      summary.warnings.append(warning)
    }
    summary.warnings += pruneBackups()
    Phases.mark("sync: finish (changed paths, remote HEAD, backups)")
    try? FileSystem.makeDirectory(gitDirectory.appendingPathComponent("nb").path)
    try? FileSystem.overwriteInPlace(
      "\(Date().timeIntervalSince1970)", path: syncStatePath, width: Self.syncStateWidth)
    return summary
  }

  /// The remote branch this branch syncs with: its upstream, else the remote's branch of the same name, else the
  /// remote's default branch (`master` on older servers), else the same name (publishing it).
  func remoteBranch(for branch: String, remote: String, listing: RemoteBranches) throws -> String {
    if let upstream = try git.upstream(of: branch), upstream.remote == remote { return upstream.branch }
    if listing.branches[branch] != nil { return branch }
    return listing.defaultBranch ?? branch
  }

  /// A remote whose HEAD names a branch it does not have (`git init --bare` keeps `HEAD -> master` when only
  /// `main` arrives) makes a plain `git clone` of it check out nothing. On this machine (a path or `file://`) and
  /// bare, HEAD is pointed at the synced branch; elsewhere nb cannot change it, so it says how — when the remote
  /// advertised branches but no HEAD (git's servers leave out a HEAD that resolves to nothing).
  private func remoteHeadWarning(
    _ options: SyncOptions, branch: String, listing: RemoteBranches, summary: SyncSummary
  ) -> String? {
    if NoteHistory.localRepository(remoteURL(options.remote) ?? "") != nil {
      // A HEAD the remote advertised resolves, and a push cannot make it dangle: opening the remote again to look is
      // needed only when it advertised none (no branch yet, or HEAD naming one it does not have).
      if listing.defaultBranch == nil { _ = try? git.repairRemoteHead(options.remote, branch: branch) }
      return nil
    }
    guard listing.defaultBranch == nil else { return nil }
    var after = listing
    if summary.outcome == .published {
      // Before a publish the remote may have had no branch at all, and then its HEAD cannot be seen: look again.
      guard let listed = try? git.listRemote(options.remote, credentials: options.credentials) else { return nil }
      after = listed
    }
    guard after.defaultBranch == nil, !after.branches.isEmpty else { return nil }
    return "\(options.remote)'s HEAD names a branch it does not have, so 'git clone' of it checks out nothing; "
      + "fix it on the server with 'git symbolic-ref HEAD refs/heads/\(branch)' (or the host's default-branch setting)"
  }

  private func remoteURL(_ name: String) -> String? {
    try? git.remotes().first { $0.name == name }?.url
  }

  /// Deletes the backup references older than `backup_days` (read from their names); returns warnings.
  private func pruneBackups() -> [String] {
    if let invalid = config.invalidBackupDays {
      return [
        "backup_days '\(invalid)' in .nb/config.yaml is not a whole number of days (0 keeps all); no backup was pruned"
      ]
    }
    do {
      let git = try self.git
      for name in BackupRetention.expired(try git.backups(), now: clock(), days: config.backupDays) {
        try git.deleteBackup(name)
      }
      return []
    } catch {
      return ["old backups could not be pruned: \(error)"]
    }
  }

  /// Fetch, then up to date / fast-forward / merge. Pushing is the caller's. Returns what the remote advertised
  /// too.
  /// `fetched`: what a fetch made just before said (the first attempt's), else this fetches.
  private func exchange(
    _ options: SyncOptions, branch: String, fetched prefetched: RemoteBranches?
  ) throws -> (SyncSummary, RemoteBranches) {
    let fetched = try prefetched ?? git.fetch(options.remote, credentials: options.credentials)
    let target = try remoteBranch(for: branch, remote: options.remote, listing: fetched)
    let label = "\(options.remote)/\(target)"
    var summary = SyncSummary(remoteBranch: target, dryRun: false)
    let local = try git.headID()
    guard let remoteTip = try git.remoteTip(options.remote, branch: target) else {
      // An empty remote (or one without this branch): publish.
      summary.outcome = .published
      summary.sent = try local.map { try git.commitCount(from: $0) } ?? 0
      return (summary, fetched)
    }
    guard let local else {
      // A repository without commits joins the remote's history.
      try checkout(remoteTip, expected: nil, label: label)
      summary.outcome = .fastForwarded
      summary.received = try git.commitCount(from: remoteTip)
      return (summary, fetched)
    }
    if local == remoteTip { return (summary, fetched) }
    let counts = try git.aheadBehind(local: local, upstream: remoteTip)
    summary.received = counts.behind
    summary.sent = counts.ahead
    if counts.behind == 0 {
      summary.outcome = .pushed
      return (summary, fetched)
    }
    if counts.ahead == 0 {
      try checkout(remoteTip, expected: local, label: label)
      summary.outcome = .fastForwarded
      return (summary, fetched)
    }
    return (try merge(local: local, remoteTip: remoteTip, label: label, options: options, summary: summary), fetched)
  }

  private func merge(
    local: String, remoteTip: String, label: String, options: SyncOptions, summary: SyncSummary
  ) throws -> SyncSummary {
    var summary = summary
    let base = try git.mergeBase(local, remoteTip)
    if base == nil && !options.allowUnrelated {
      throw NoteStoreError.syncFailed(
        "\(label) has a history unrelated to this repository's; if this device should join it, run "
          + "'nb sync --allow-unrelated' (both trees are merged, nothing is deleted)")
    }
    let git = try self.git
    let baseTime = try base.map { try git.commitTime($0) } ?? Date(timeIntervalSince1970: 0)
    // Bytes are read only where the policy needs them: files the same on all three sides are never read, and a
    // stored file two sides share (one left it as the base had it) is read once, through one content.
    var contents: [String: FileContent] = [:]
    func content(_ file: StoredFile) -> FileContent {
      if let known = contents[file.id] { return known }
      let made = FileContent.stored(id: file.id) { try? git.read(file) }
      contents[file.id] = made
      return made
    }
    func policy(_ sides: MergeSides) throws -> SyncMerge {
      func versions(_ files: [String: StoredFile], tip: String?) throws -> [String: FileVersion] {
        let changed = Set(files.keys.filter { sides.base[$0] != files[$0] })
        let changes = try tip.map { try git.lastChanges(of: changed, from: $0, base: base) } ?? [:]
        return files.reduce(into: [:]) { result, entry in
          let (path, file) = entry
          result[path] = FileVersion(
            content: content(file), commitTime: changes[path]?.time ?? baseTime, author: changes[path]?.device)
        }
      }
      let (baseVersions, ourVersions, theirVersions) = (
        try versions(sides.base, tip: nil), try versions(sides.ours, tip: local),
        try versions(sides.theirs, tip: remoteTip)
      )
      return SyncPolicy.merge(
        base: baseVersions, ours: ourVersions, theirs: theirVersions, device: Slug.make(options.device),
        now: clock(), force: options.force, attachmentFolders: hasAttachmentFolders)
    }
    // The changed files first, so that a merge costs what changed; the whole trees only when those may not decide
    // as the whole trees would (MergeSides).
    var sides: MergeSides
    var merged: SyncMerge
    if let base,
      let changed = try MergeSides.changed(
        base: base, ours: local, theirs: remoteTip, in: git, attachmentFolders: hasAttachmentFolders),
      case let result = try policy(changed), changed.decidesAlone(result)
    {
      (sides, merged) = (changed, result)
    } else {
      sides = MergeSides(
        base: try base.map { try git.snapshot(of: $0) } ?? [:], ours: try git.snapshot(of: local),
        theirs: try git.snapshot(of: remoteTip))
      merged = try policy(sides)
    }
    let (ourFiles, theirFiles) = (sides.ours, sides.theirs)
    Phases.mark("sync: merge policy")
    guard case .merged(let tree, let report) = merged else {
      if case .needsForce(let reason) = merged {
        throw NoteStoreError.syncFailed("\(reason); nothing was changed — run 'nb sync --force' if this is intended")
      }
      throw NoteStoreError.syncFailed("the merge could not be resolved")
    }

    // The backup is written only once the merge is certain to go ahead, so a refused merge (`--force` needed)
    // leaves nothing behind; a retry within the same second (same name, same commit) reuses it.
    summary.backupRef = try git.keepBackup(
      of: local, stamp: SyncPolicy.compactUTC(clock()), reason: "backup before merging \(label)")

    var ids: [String] = []
    for path in report.merged + report.conflicts.map(\.path) + report.resurrected + report.followedLinks.map { $0.path }
    {
      if let bytes = tree[path]?.data, let text = String(data: bytes, encoding: .utf8),
        let id = (try? FrontMatter.read(text))?.id
      {
        ids.append(id)
      }
    }
    let subject =
      "sync: merge \(label)"
      + (report.conflicts.isEmpty ? "" : " (\(counted(report.conflicts.count, "conflict")))")
    let mergeCommit = try git.commitMerge(
      tree, ours: ourFiles, theirs: theirFiles, parents: [local, remoteTip],
      message: CommitMessage.make(subject, noteIDs: ids, device: options.device), date: clock())
    Phases.mark("sync: backup, merge commit")
    try checkout(mergeCommit, expected: local, label: label)
    Phases.mark("sync: checkout")
    summary.outcome = .merged
    summary.merged = report.merged.sorted()
    summary.conflicts = report.conflicts.sorted { $0.path < $1.path }
    summary.resurrected = report.resurrected.sorted()
    summary.warnings = report.warnings
    summary.followedLinks = report.followedLinks
    return summary
  }

  /// Moves the branch and the work tree to `target`, all or nothing across a crash (a `checkout` journal record,
  /// ``journaledCheckout(_:expected:message:)``).
  private func checkout(_ target: String, expected: String?, label: String) throws {
    let blocked = try journaledCheckout(target, expected: expected, message: "nb: sync \(label)")
    if !blocked.isEmpty {
      throw NoteStoreError.syncFailed(
        "files changed while syncing (\(blocked.prefix(3).joined(separator: ", "))); nothing was overwritten, "
          + "run 'nb sync' again")
    }
  }

  /// What a sync would do, from the remote's advertised refs alone: nothing is downloaded or changed.
  private func dryRun(_ options: SyncOptions, branch: String) throws -> SyncSummary {
    let listing = try git.listRemote(options.remote, credentials: options.credentials)
    let target = try remoteBranch(for: branch, remote: options.remote, listing: listing)
    var summary = SyncSummary(remoteBranch: target, dryRun: true)
    summary.saved = try git.changes().filter { RepoPaths.isNotePath($0.path) }.map(\.path)
    let local = try git.headID()
    guard let remoteTip = listing.branches[target] else {
      summary.outcome = .published
      return summary
    }
    guard let local else {
      summary.outcome = .fastForwarded
      return summary
    }
    if local == remoteTip && summary.saved.isEmpty { return summary }
    let known = try git.hasCommit(remoteTip)
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

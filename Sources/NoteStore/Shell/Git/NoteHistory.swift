import Foundation
// `internal`: the compiler then refuses any public or package declaration of NoteStore that names a GitKit type,
// so an app embedding NoteStore never needs GitKit (NoteStoreAPITests only checks what it happens to call).
internal import GitKit

/// The one place NoteStore talks to git: every commit nb makes and every commit that arrives passes through here.
///
/// Stated in note terms — paths, commits as opaque ids, snapshots of paths → stored files, NoteStore's own result
/// types — so nothing above it knows about reference names, object modes or libgit2's errors. Every GitKit error is
/// mapped to a ``NoteStoreError`` here and nowhere else. Later work (an index, a watcher) hooks in at this seam.
final class NoteHistory {
  /// The repository, for ``GitFileAnswers`` (below); nothing outside the seam uses it.
  fileprivate let git: Repository
  /// The `.git` directory (per worktree): device-local state lives in its `nb/` folder.
  let gitDirectory: URL

  private init(_ git: Repository) {
    self.git = git
    self.gitDirectory = git.gitDirectory
  }

  // MARK: - Opening

  /// Opens the git repository of a note repository's work tree.
  static func open(at root: URL) throws -> NoteHistory {
    do {
      return NoteHistory(try Repository.open(at: root))
    } catch let error as GitError {
      throw NoteStoreError.unsafeGitState(
        "\(root.path) has nb settings but is not a git work tree (\(error.message)); run 'git init' there or restore .git"
      )
    }
  }

  /// Lets GitKit keep the index file's SHA-1 states under `.git/nb/cache/` between processes, so that a process
  /// finding the index as the last nb process left it does not hash all of it again (``Repository/indexCheckpointsPath``).
  static func keepIndexCheckpoints() {
    Repository.indexCheckpointsPath = "nb/cache/index-checkpoints"
  }

  /// Starts loading libgit2 on another thread (``LibGit2/preload()``).
  static func preload() {
    LibGit2.preload()
  }

  /// Waits for ``preload()``'s load to finish (``LibGit2/waitForPreload()``).
  static func waitForPreload() {
    LibGit2.waitForPreload()
  }

  /// Starts loading what a commit without libgit2 needs (``PlainCommit/preload()``), for a save that will make one.
  static func preloadPlainCommit() {
    PlainCommit.preload()
  }

  /// Waits for ``preloadPlainCommit()``'s load to finish.
  static func waitForPlainCommitPreload() {
    PlainCommit.waitForPreload()
  }

  /// Opens the repository at `root` when there is one (adopting it), else makes one on branch `branch`.
  static func openOrCreate(at root: URL, branch: String) throws -> NoteHistory {
    try mapped {
      FileSystem.exists(root.appendingPathComponent(".git").path)
        ? NoteHistory(try Repository.open(at: root))
        : NoteHistory(try Repository.create(at: root, initialBranch: branch))
    }
  }

  /// A new, empty repository at `root` on branch `branch`.
  static func create(at root: URL, branch: String) throws -> NoteHistory {
    try mapped { NoteHistory(try Repository.create(at: root, initialBranch: branch)) }
  }

  // MARK: - Errors, mapped once

  /// Runs `body`, turning GitKit's errors into NoteStore's: an unreachable remote is `.offline` (its own exit
  /// status), another remote failure a failed sync with libgit2's reason, anything else `.git`.
  static func mapped<T>(remote: String? = nil, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as RemoteError {
      throw explained(error, remote: remote ?? error.remote)
    } catch let error as GitError {
      throw NoteStoreError.git(error.description)
    }
  }

  private func mapped<T>(remote: String? = nil, _ body: () throws -> T) throws -> T {
    try Self.mapped(remote: remote) {
      do {
        return try body()
      } catch let error as GitError where error.isLocked && FileSystem.exists(indexLockPath) {
        // libgit2 says "locked" of any lock file; the index lock is the one people meet and can act on.
        throw NoteStoreError.indexLocked(path: indexLockPath)
      }
    }
  }

  /// A remote failure in the user's words: what happened, at which URL, and what to try. libgit2's function names
  /// and codes are for GitKit's logs, not for people; its text is kept only where it carries the reason (the
  /// connection error, GitKit's own authentication and host-key messages).
  static func explained(_ error: RemoteError, remote: String) -> NoteStoreError {
    let url = error.url.isEmpty ? remote : error.url
    let reason = error.underlying.message
    let because = reason.isEmpty ? "" : " (\(reason))"
    switch error.kind {
    case .network:
      if isLocalPath(url) {
        return .offline(remote: remote, detail: "\(url) does not exist: is the disk that holds it mounted?")
      }
      return .offline(
        remote: remote, detail: "\(url) did not answer\(because); check the network connection and the host name")
    case .notFound:
      return .syncFailed(
        "\(remote): there is no repository at \(url) (the server answered \"not found\"); check the URL and fix it "
          + "with 'nb remote set-url \(remote) URL'")
    case .authentication:
      return .syncFailed(
        "\(remote): \(url) refused the credentials\(because); check that your ssh key is authorised on the server, "
          + "or that your HTTPS token (git credential, NB_GIT_TOKEN) is valid, then retry")
    case .hostKey:
      return .syncFailed("\(remote): \(reason)")
    case .certificate:
      return .syncFailed(
        "\(remote): the TLS certificate of \(url) did not verify\(because); check the URL, or install the "
          + "server's certificate authority on this machine (or name its file in git's http.sslCAInfo), then retry")
    case .invalidRefspec, .other:
      if let lock = lockedFile(in: reason) {
        return .syncFailed("\(remote): '\(lock)' is locked, so the sync could not update it; " + lockAdvice)
      }
      return .syncFailed("\(remote): talking to \(url) failed\(because)")
    }
  }

  /// The lock file a libgit2 message says it could not take (`failed to lock file '…' for writing`): a ref's, here
  /// or in a remote on this machine, held by a git command at work or left by one killed at work. nb removes the
  /// locks a killed nb left in its own repository (``removeLocksAKilledCommandLeft(since:)``), never a remote's.
  static func lockedFile(in message: String) -> String? {
    guard let start = message.range(of: "failed to lock file '") else { return nil }
    let rest = message[start.upperBound...]
    guard let end = rest.firstIndex(of: "'") else { return nil }
    return String(rest[..<end])
  }

  /// What to do about a lock ``lockedFile(in:)`` found.
  static let lockAdvice = "a git command may be writing it: if none is, delete the lock file, then run 'nb sync' again"

  /// A remote URL that names a directory on this machine: a path or `file://`, not `host:path` or `scheme://`.
  private static func isLocalPath(_ url: String) -> Bool {
    url.hasPrefix("file://") || url.hasPrefix("/") || url.hasPrefix(".") || url.hasPrefix("~")
  }

  // MARK: - Whether a commit is safe

  /// The git operation in progress, as people call it, and how to get out of it.
  private struct Operation {
    var name: String
    var advice: String
  }

  private var operation: Operation? {
    get throws { Self.operation(try mapped({ git.state })) }
  }

  private static func operation(_ state: RepositoryState) -> Operation? {
    switch state {
    case .none: nil
    case .merge: Operation(name: "merge", advice: "finish it (git commit) or abort it (git merge --abort)")
    case .rebase:
      Operation(name: "rebase", advice: "finish it (git rebase --continue) or abort it (git rebase --abort)")
    case .cherryPick:
      Operation(
        name: "cherry-pick", advice: "finish it (git cherry-pick --continue) or abort it (git cherry-pick --abort)")
    case .revert:
      Operation(name: "revert", advice: "finish it (git revert --continue) or abort it (git revert --abort)")
    case .bisect: Operation(name: "bisect", advice: "end it (git bisect reset)")
    case .applyMailbox: Operation(name: "am", advice: "finish it (git am --continue) or abort it (git am --abort)")
    case .other: Operation(name: "unknown", advice: "finish or abort it")
    }
  }

  /// `.git/index.lock`: git's "someone is writing the index". nb deletes only one its own killed process left.
  private var indexLockPath: String { gitDirectory.appendingPathComponent("index.lock").path }

  /// Whether git's own files show a repository safe to commit in (HEAD on a branch, no operation in progress, no
  /// conflict in the index, no index lock), read without libgit2: a save can then write its files while libgit2
  /// still loads on another thread (``preload()``), instead of waiting for it first. False when the files show
  /// anything else or cannot tell; ``assertCommittable()`` then decides, with its errors.
  static func isCommittableByFiles(gitDirectory: URL) -> Bool {
    let files = GitFiles(gitDirectory: gitDirectory)
    guard case .branch = files.head(), files.state == .none,
      Repository.indexHasConflicts(gitDirectory: gitDirectory) == false
    else { return false }
    return !FileSystem.exists(gitDirectory.appendingPathComponent("index.lock").path)
  }

  /// Refuses to commit when git is mid-operation, HEAD is not a branch, the index holds conflicts or another git
  /// holds the index lock: committing then would be a guess.
  func assertCommittable() throws {
    if let operation = try operation {
      throw NoteStoreError.unsafeGitState(
        "a git operation (\(operation.name)) is in progress; \(operation.advice), then retry")
    }
    if git.isHeadDetached {
      throw NoteStoreError.unsafeGitState(
        "HEAD is detached (not on a branch), so a commit could be lost; switch to a branch (git switch main), then retry"
      )
    }
    if try mapped({ try git.hasConflicts() }) {
      throw NoteStoreError.unsafeGitState(
        "the git index holds unresolved conflicts; resolve them (git status lists them), then retry")
    }
    if FileSystem.exists(indexLockPath) { throw NoteStoreError.indexLocked(path: indexLockPath) }
  }

  /// Removes the lock files that a killed nb process left while it wrote the index, moved the branch or fetched
  /// (`index.lock`, the branch's `.lock`, a remote-tracking ref's, `FETCH_HEAD.lock`, `packed-refs.lock`): git
  /// never removes a lock it did not take, so without this every later commit or sync would be refused. A lock
  /// counts as that process's only when it was made after `since` (when the killed process took the repository
  /// lock, or began its transaction) and no running process has it open, so a git command still at work keeps its
  /// lock. Returns the locks removed, as `.git/<path>` for a message.
  func removeLocksAKilledCommandLeft(since: Date) -> [String] {
    var candidates = [indexLockPath]
    if let branch = git.currentBranch {
      candidates.append(gitDirectory.appendingPathComponent("refs/heads/\(branch).lock").path)
    }
    for name in ["FETCH_HEAD.lock", "packed-refs.lock"] {
      candidates.append(gitDirectory.appendingPathComponent(name).path)
    }
    var directories = [gitDirectory.appendingPathComponent("refs/remotes").path]
    while let directory = directories.popLast() {
      for entry in FileSystem.entries(of: directory) {
        let full = directory + "/" + entry.name
        if entry.isDirectory {
          directories.append(full)
        } else if entry.name.hasSuffix(".lock") {
          candidates.append(full)
        }
      }
    }
    var removed: [String] = []
    for path in candidates {
      // A second of slack: some file systems keep whole seconds.
      guard let info = FileSystem.lstatInfo(path), info.isRegular,
        Double(info.modifiedNanoseconds) / 1e9 >= since.timeIntervalSince1970 - 1,
        FileSystem.isHeldOpen(path) != true
      else { continue }
      if (try? FileSystem.remove(path)) != nil {
        removed.append(".git/" + path.dropFirst(gitDirectory.path.count + 1))
      }
    }
    return removed
  }

  /// The state `nb status` shows: the operation in progress and the warnings that keep nb from committing.
  func state() throws -> (operation: String?, warnings: [String]) {
    Self.state(try mapped({ git.state }), detached: git.isHeadDetached, gitDirectory: gitDirectory)
  }

  /// ``state()`` from its parts, for a caller that read them from git's files.
  static func state(_ state: RepositoryState, detached: Bool, gitDirectory: URL) -> (
    operation: String?, warnings: [String]
  ) {
    var warnings: [String] = []
    let operation = Self.operation(state)?.name
    if let operation { warnings.append("git \(operation) in progress: nb will not commit until it is finished") }
    if detached {
      warnings.append("HEAD is detached: nb will not commit until a branch is checked out")
    }
    let indexLockPath = gitDirectory.appendingPathComponent("index.lock").path
    if FileSystem.exists(indexLockPath) { warnings.append(NoteStoreError.indexLocked(path: indexLockPath).description) }
    return (operation, warnings)
  }

  /// The branch HEAD points to; nil when detached.
  var currentBranch: String? {
    git.currentBranch
  }

  // MARK: - Committing

  /// One commit of exactly these work-tree paths on HEAD's branch (nothing when the tree would not change).
  /// Returns the new commit's id; nil when nothing was committed.
  @discardableResult
  func commit(paths: [String], message: String, date: Date) throws -> String? {
    let signature = git.defaultSignature(date: date)
    let commit: String?
    do {
      commit = try git.commit(paths: paths, message: message, author: signature)?.hex
    } catch let error as GitError {
      throw Self.commitError(error, gitDirectory: gitDirectory)
    }
    learnCommitSettings()
    return commit
  }

  /// ``commit(paths:message:date:)`` made from git's files without starting libgit2 (``PlainCommit``), with the
  /// settings an earlier commit learnt from this very config: `.some(id)`, `.some(nil)` when the tree would not
  /// change, nil when it declined (settings not yet learnt, something staged, a packed HEAD...), having written
  /// nothing: then ``commit(paths:message:date:)`` must commit.
  static func commitFromFiles(
    root: URL, gitDirectory: URL, paths: [String], message: String, date: Date, settings kept: KeptCommitSettings
  ) throws -> String?? {
    let settings = kept.settings
    let outcome: PlainCommit.Outcome
    do {
      // As through libgit2 (``commit(paths:message:date:)``): the author at `date`, the committer now.
      outcome = try PlainCommit.commit(
        workTree: root, gitDirectory: gitDirectory, paths: paths, message: message,
        author: settings.signature(date: date), committer: settings.signature(date: Date()), settings: settings)
    } catch let error as GitError {
      throw commitError(error, gitDirectory: gitDirectory)
    }
    switch outcome {
    case .committed(let id):
      plainCommits.add()
      return .some(id.hex)
    case .unchanged:
      plainCommits.add()
      return .some(nil)
    case .declined:
      return nil
    }
  }

  /// A commit's GitKit error in NoteStore's terms, whichever way the commit was made: git's index lock, which
  /// people meet and can act on, by its path; anything else with GitKit's description.
  private static func commitError(_ error: GitError, gitDirectory: URL) -> NoteStoreError {
    let indexLock = gitDirectory.appendingPathComponent("index.lock").path
    if error.isLocked && FileSystem.exists(indexLock) { return .indexLocked(path: indexLock) }
    return .git(error.description)
  }

  /// What an earlier commit through libgit2 learnt from the config as it is now, for
  /// ``commitFromFiles(root:gitDirectory:paths:message:date:settings:)``; nil when nothing is kept for this config,
  /// or it rules such a commit out.
  static func plainCommitSettings(gitDirectory: URL) -> KeptCommitSettings? {
    guard let digest = GitFiles(gitDirectory: gitDirectory).configDigest(),
      let facts = CommitSettingsFacts.load(from: commitSettingsPath(gitDirectory)), facts.digest == digest,
      facts.plain
    else { return nil }
    return KeptCommitSettings(
      settings: PlainCommitSettings(name: facts.name, email: facts.email, logsRefUpdates: facts.logsRefUpdates))
  }

  /// ``plainCommitSettings(gitDirectory:)``'s answer, opaque outside the seam.
  struct KeptCommitSettings {
    fileprivate let settings: PlainCommitSettings
  }

  /// How many commits ``commitFromFiles(root:gitDirectory:paths:message:date:settings:)`` made in this process
  /// (tests look).
  static let plainCommits = Counter()

  private static func commitSettingsPath(_ gitDirectory: URL) -> String {
    gitDirectory.appendingPathComponent("nb/cache/commit-settings").path
  }

  /// Keeps what ``commitFromFiles(root:gitDirectory:paths:message:date:settings:)`` needs from this config, unless
  /// it is kept already (a config that includes other files is never kept: its digest cannot see them change).
  private func learnCommitSettings() {
    guard let digest = GitFiles(gitDirectory: gitDirectory).configDigest() else { return }
    let path = Self.commitSettingsPath(gitDirectory)
    if CommitSettingsFacts.load(from: path)?.digest == digest { return }
    let settings = git.plainCommitSettings()
    CommitSettingsFacts(
      digest: digest, plain: settings != nil, name: settings?.name, email: settings?.email,
      logsRefUpdates: settings?.logsRefUpdates ?? true
    ).save(to: path)
  }

  /// Who commits: git's `user.name`, else nb's default.
  var authorName: String { git.defaultSignature().name }

  /// Puts the index entries of `paths` back to HEAD's: after an interrupted commit wrote the index but never moved
  /// the branch, so rolled-back files do not show as staged.
  func resetIndex(paths: [String]) throws {
    try mapped { try git.resetIndex(paths: paths) }
  }

  /// The last commit; nil in a repository without commits.
  func head() throws -> CommitSummary? {
    try mapped { try git.headCommitID().map { CommitSummary(try git.commit($0)) } }
  }

  /// HEAD's commit id read from the files under `.git` without libgit2 (whose start-up costs more than a listing):
  /// a detached HEAD, or a branch as a loose ref or in `packed-refs`, also through a worktree's `commondir`. Nil when
  /// it cannot tell (an unborn branch, an unusual layout): the caller then asks ``headID()``.
  static func headIDFromFiles(gitDirectory: URL) -> String? {
    // One reader of HEAD and the refs: GitFiles, which the status walk uses too.
    GitFiles(gitDirectory: gitDirectory).headCommit()??.hex
  }

  /// The id of the last commit; nil in a repository without commits.
  func headID() throws -> String? {
    try mapped { try git.headCommitID()?.hex }
  }

  // MARK: - The work tree

  /// Uncommitted changes, like `git status --untracked-files=all`, sorted by path.
  /// `exact`: `paths` are files taken literally, and only they are looked at (no walk of the whole tree).
  func changes(paths: [String] = [], exact: Bool = false) throws -> [WorkTreeChange] {
    try mapped {
      try git.status(paths: paths, exact: exact).map { entry in
        WorkTreeChange(path: entry.path, staged: entry.staged.map(Self.kind), unstaged: entry.unstaged.map(Self.kind))
      }
    }
  }

  /// The uncommitted changes, as ``changes(paths:exact:)`` reports them for the whole work tree, and the commit
  /// whose tree the index holds (HEAD), from one walk that trusts the index's stat data; `onDirectory` gets each
  /// directory's listing on the way. nil when that walk cannot answer (something staged, conflicts, unusual
  /// settings): then ``changesWithoutWalk()`` must.
  func scan(onDirectory: ((String, [String]) -> Void)? = nil) throws -> (changes: [WorkTreeChange], head: String)? {
    try mapped {
      guard let scan = try git.scanWorkTree(onDirectory: onDirectory), let head = try git.headCommitID() else {
        return nil
      }
      let changes = scan.entries.map { entry in
        WorkTreeChange(path: entry.path, staged: entry.staged.map(Self.kind), unstaged: entry.unstaged.map(Self.kind))
      }
      return (changes, head.hex)
    }
  }

  /// ``changes(paths:exact:)`` for the whole work tree as libgit2 answers it, for a caller whose ``scan(onDirectory:)``
  /// declined.
  func changesWithoutWalk() throws -> [WorkTreeChange] {
    try mapped {
      try git.libgit2Status().map { entry in
        WorkTreeChange(path: entry.path, staged: entry.staged.map(Self.kind), unstaged: entry.unstaged.map(Self.kind))
      }
    }
  }

  /// Whether `commit`'s tree has a directory at `path`.
  func hasDirectory(at path: String, in commit: String) throws -> Bool {
    let id = try objectID(commit)
    return try mapped { try git.hasDirectory(at: path, in: id) }
  }

  static func kind(_ change: StatusEntry.Change) -> FileChange.Kind {
    switch change {
    case .added: .added
    case .modified: .modified
    case .deleted: .deleted
    case .renamed: .renamed
    case .typeChange: .typeChange
    case .conflicted: .conflicted
    }
  }

  /// Whether git ignores `path` (its `.gitignore` rules, `info/exclude`, `core.excludesFile`).
  func isIgnored(_ path: String) throws -> Bool {
    try mapped { try git.isIgnored(path) }
  }

  /// Every path git tracks (the index).
  func trackedPaths() throws -> [String] {
    try mapped { try git.indexPaths() }
  }

  // MARK: - History

  /// Commits from `start` (HEAD by default) back, newest first.
  func commits(from start: String? = nil) throws -> AnySequence<HistoryCommit> {
    let id = try start.map(objectID)
    return AnySequence(try mapped { try git.log(from: id) }.lazy.map(HistoryCommit.init))
  }

  /// The stored file at `path` in `commit`; nil when the commit has no file there.
  func file(at path: String, in commit: String) throws -> StoredFile? {
    let id = try objectID(commit)
    return try mapped { try git.blobID(at: path, in: id).map { StoredFile(id: $0.hex, mode: .file) } }
  }

  /// The bytes of a stored file.
  func read(_ file: StoredFile) throws -> Data {
    let id = try objectID(file.id)
    return try mapped { try git.blob(id) }
  }

  /// What `commit` changed against its first parent, renames detected.
  func pathChanges(in commit: String) throws -> [PathChange] {
    let id = try objectID(commit)
    return try mapped {
      try git.changes(in: id).map { change in
        PathChange(
          kind: change.kind == .renamed ? .renamed : change.kind == .deleted ? .deleted : .other,
          oldPath: change.oldPath, newPath: change.newPath,
          oldFile: change.oldBlob.map { StoredFile(id: $0.hex, mode: .file) })
      }
    }
  }

  /// The newest commit on `tip`'s side (down to `base`) that changed each of `paths`: its author time, and who
  /// made it — the device its `Nb-Device:` trailer names (a commit nb made), else its author's name (a commit made
  /// with plain git). Paths no such commit changed are left out; the walk stops after 5 000 commits.
  func lastChanges(of paths: Set<String>, from tip: String, base: String?) throws -> [String: LastChange] {
    var wanted = paths
    var changes: [String: LastChange] = [:]
    var walked = 0
    for commit in try commits(from: tip) {
      if wanted.isEmpty || commit.id == base || walked > 5_000 { break }
      walked += 1
      // Read from the message once per commit, and only for a commit that changed a wanted path: one commit often
      // changes a thousand of them.
      var change: LastChange?
      for pathChange in try pathChanges(in: commit.id) {
        for path in [pathChange.newPath, pathChange.oldPath].compactMap({ $0 }) where wanted.contains(path) {
          if change == nil {
            change = LastChange(
              time: commit.summary.date.date,
              device: CommitMessage.device(in: commit.message) ?? commit.summary.author)
          }
          changes[path] = change
          wanted.remove(path)
        }
      }
    }
    return changes
  }

  /// The paths that differ between the trees of two commits (`from` nil: every path of `to`), both ends of a move
  /// included: what the note index re-reads when HEAD moved under it.
  func changedPaths(from old: String?, to new: String) throws -> Set<String> {
    let (oldID, newID) = (try old.map(objectID), try objectID(new))
    return try mapped { try git.changedPaths(from: oldID, to: newID) }
  }

  /// Every file of `commit`, by path.
  func snapshot(of commit: String) throws -> [String: StoredFile] {
    let id = try objectID(commit)
    return try mapped {
      try git.treeEntries(ofCommit: id).mapValues(StoredFile.init(entry:))
    }
  }

  /// The files that differ between two commits: path -> the stored file in each (nil where absent). Only the
  /// subtrees that differ are read.
  func fileChanges(from old: String, to new: String) throws -> [String: (old: StoredFile?, new: StoredFile?)] {
    let (oldID, newID) = (try objectID(old), try objectID(new))
    return try mapped {
      try git.treeChanges(from: oldID, to: newID).mapValues {
        ($0.old.map(StoredFile.init(entry:)), $0.new.map(StoredFile.init(entry:)))
      }
    }
  }

  /// The files directly in `directory` (`""`: the root) of `commit`, by path, and the paths of its subdirectories.
  func directoryListing(of commit: String, directory: String) throws
    -> (files: [String: StoredFile], directories: [String])
  {
    let id = try objectID(commit)
    return try mapped {
      let listing = try git.directoryListing(ofCommit: id, directory: directory)
      let files = listing.files.mapValues(StoredFile.init(entry:))
      return (files, listing.directories)
    }
  }

  /// The author time of a commit.
  func commitTime(_ commit: String) throws -> Date {
    let id = try objectID(commit)
    return try mapped { try git.commit(id).author.date }
  }

  /// Whether the object database has this commit.
  func hasCommit(_ commit: String) -> Bool {
    guard let id = ObjectID(hex: commit) else { return false }
    return (try? git.commit(id)) != nil
  }

  /// How many commits `start` has, itself included.
  func commitCount(from start: String) throws -> Int {
    try commits(from: start).reduce(0) { count, _ in count + 1 }
  }

  /// How far `local` is ahead of and behind `upstream`.
  func aheadBehind(local: String, upstream: String) throws -> (ahead: Int, behind: Int) {
    let (local, upstream) = (try objectID(local), try objectID(upstream))
    return try mapped { try git.aheadBehind(local: local, upstream: upstream) }
  }

  /// The best common ancestor; nil for unrelated histories.
  func mergeBase(_ one: String, _ two: String) throws -> String? {
    let (one, two) = (try objectID(one), try objectID(two))
    return try mapped { try git.mergeBase(one, two)?.hex }
  }

  /// Whether `commit` has `ancestor` in its history (and is not it).
  func isDescendant(_ commit: String, of ancestor: String) throws -> Bool {
    let (commit, ancestor) = (try objectID(commit), try objectID(ancestor))
    return try mapped { try git.isDescendant(commit, of: ancestor) }
  }

  private func objectID(_ hex: String) throws -> ObjectID {
    guard let id = ObjectID(hex: hex) else { throw NoteStoreError.git("'\(hex)' is not a git object id") }
    return id
  }

  // MARK: - Writing merges

  /// Keeps `commit` under `refs/nb/backup/<stamp>-<short id>` (reused when a retry within the same second already
  /// wrote it) and returns the reference's name.
  func keepBackup(of commit: String, stamp: String, reason: String) throws -> String {
    let id = try objectID(commit)
    let name = "refs/nb/backup/\(stamp)-\(id.short)"
    try mapped {
      if try git.reference(named: name) != id {
        try git.setReference(name, to: id, message: "nb: \(reason)", expected: .some(nil))
      }
    }
    return name
  }

  /// The names of every backup reference (`refs/nb/backup/*`), sorted.
  func backups() throws -> [String] {
    try mapped { try git.references(matching: BackupRetention.prefix + "*").keys.sorted() }
  }

  /// Deletes a backup reference (the commit stays until git's garbage collection finds nothing else keeps it).
  func deleteBackup(_ name: String) throws {
    guard name.hasPrefix(BackupRetention.prefix) else {
      throw NoteStoreError.git("'\(name)' is not a backup reference")
    }
    try mapped { try git.deleteReference(name) }
  }

  /// Writes `tree` (a merged snapshot: bytes to store, or files already stored on a side) and a merge commit of it
  /// with `parents`; returns the commit. A file kept as stored keeps its entry as `ours` or `theirs` has it at that
  /// path; otherwise a path's mode is the one `ours` or else `theirs` has (a submodule entry becomes a plain file,
  /// since its bytes are what was merged).
  func commitMerge(
    _ tree: [String: FileContent], ours: [String: StoredFile], theirs: [String: StoredFile], parents: [String],
    message: String, date: Date
  ) throws -> String {
    let parentIDs = try parents.map(objectID)
    return try mapped {
      // Only what differs from the first parent (`ours`, the local head) is written: its unchanged subtrees are
      // reused, and the new blobs and trees go into one pack.
      var changes: [String: NewTreeFile?] = [:]
      for (path, content) in tree {
        let side = ours[path] ?? theirs[path]
        if let stored = content.storedID {
          if let local = ours[path], local.id == stored { continue }
          let kept = [ours[path], theirs[path]].compactMap { $0 }.first { $0.id == stored }
          changes[path] = .stored(
            TreeEntry(id: try objectID(stored), mode: kept?.mode.exact ?? side?.mode.gitMode ?? .blob))
        } else {
          let bytes = content.data ?? Data()
          changes[path] = .bytes(bytes, mode: side?.mode.gitMode ?? .blob)
        }
      }
      for path in ours.keys where tree[path] == nil { changes[path] = .some(nil) }
      let treeID = try git.writeTree(updating: parentIDs.first, with: changes)
      let signature = git.defaultSignature(date: date)
      return try git.createCommit(
        tree: treeID, parents: parentIDs, message: message, author: signature, committer: signature
      ).hex
    }
  }

  /// Moves the current branch from `expected` to `target`, updating index and work tree without overwriting an
  /// edit. Returns the paths in the way when it could not (nothing was changed then), else an empty list.
  func checkout(
    _ target: String, expected: String?, message: String, onFileWritten: ((Int) -> Void)? = nil
  ) throws -> [String] {
    let target = try objectID(target)
    let expected = try expected.map(objectID)
    switch try mapped({
      try git.checkoutSafely(target, expected: expected, message: message, onFileWritten: onFileWritten)
    }) {
    case .checkedOut: return []
    case .blocked(let paths): return paths
    }
  }

  // MARK: - Remotes

  /// The configured remotes.
  func remotes() throws -> [SyncRemote] {
    try mapped { try git.remotes().map { SyncRemote(name: $0.name, url: $0.url) } }
  }

  /// Whether a remote of that name is configured.
  func hasRemote(_ name: String) throws -> Bool {
    try mapped { try git.remote(named: name) != nil }
  }

  func addRemote(_ name: String, url: String) throws {
    _ = try mapped { try git.addRemote(name: name, url: url) }
  }

  func removeRemote(_ name: String) throws {
    try mapped { try git.removeRemote(name: name) }
  }

  func setRemoteURL(_ name: String, url: String) throws {
    try mapped { try git.setRemoteURL(name: name, url: url) }
  }

  /// The branch `branch` is set to sync with, when it has one.
  func upstream(of branch: String) throws -> (remote: String, branch: String)? {
    guard let upstream = git.upstream(of: branch) else { return nil }
    // Configured as a ref (`refs/heads/main`); pushes and tracking refs need the branch name.
    return (upstream.remote, Self.branchName(upstream.branch) ?? upstream.branch)
  }

  func setUpstream(of branch: String, remote: String, remoteBranch: String) throws {
    try mapped { try git.setUpstream(of: branch, remote: remote, remoteBranch: remoteBranch) }
  }

  /// How far the current branch is ahead of and behind its upstream as of the last fetch, and the upstream's name
  /// (`origin/main`); nil without one.
  func upstreamCounts() throws -> (ahead: Int, behind: Int, upstream: String)? {
    try mapped {
      guard let branch = git.currentBranch, let tracking = try git.upstreamTrackingReference(of: branch),
        let remoteTip = try git.reference(named: tracking), let local = try git.headCommitID()
      else { return nil }
      let counts = try git.aheadBehind(local: local, upstream: remoteTip)
      return (counts.ahead, counts.behind, tracking.replacingOccurrences(of: "refs/remotes/", with: ""))
    }
  }

  /// The commit `remote`'s `branch` was at after the last fetch.
  func remoteTip(_ remote: String, branch: String) throws -> String? {
    try mapped { try git.reference(named: "refs/remotes/\(remote)/\(branch)")?.hex }
  }

  /// The branches a remote advertises, without downloading anything.
  func listRemote(_ remote: String, credentials: SyncCredentials) throws -> RemoteBranches {
    try mapped(remote: remote) { RemoteBranches(try git.listRemote(remote, credentials: credentials.gitKit)) }
  }

  /// Downloads what the remote has and moves its remote-tracking branches; returns what it advertised. Writes
  /// nothing into `FETCH_HEAD` (libgit2 leaves it empty): a sync merges the remote-tracking branch, and replacing
  /// that file would cost every sync, even one with nothing to do, a wait for the disk.
  func fetch(_ remote: String, credentials: SyncCredentials) throws -> RemoteBranches {
    try mapped(remote: remote) {
      RemoteBranches(try git.fetch(remote: remote, credentials: credentials.gitKit, updateFetchHead: false).listing)
    }
  }

  /// Pushes `branch` to the remote's `remoteBranch`, never forced.
  func push(_ remote: String, branch: String, to remoteBranch: String, credentials: SyncCredentials) throws
    -> PushOutcome
  {
    let result = try mapped(remote: remote) {
      try git.push(
        remote: remote, refspecs: ["refs/heads/\(branch):refs/heads/\(remoteBranch)"],
        credentials: credentials.gitKit)
    }
    for reference in result.references {
      if case .rejectedByServer(let message) = reference.status {
        return .refused(reference: reference.destination, message: message)
      }
    }
    return result.succeeded ? .pushed : .remoteMoved
  }

  /// When `remote` is a repository on this machine (a path or `file://` URL) and bare, and its HEAD names a branch
  /// it does not have, points HEAD at `branch` so that a plain `git clone` of it checks `branch` out. Returns the
  /// branch HEAD named before when it changed it; nil when it left HEAD alone or could not look (another
  /// transport, not a bare repository) — a clone then still works with `git clone -b`.
  func repairRemoteHead(_ remote: String, branch: String) throws -> String? {
    guard let configured = try mapped({ try git.remote(named: remote) }),
      let directory = Self.localRepository(configured.pushURL ?? configured.url)
    else { return nil }
    guard
      case .repointed(let previous) = try? Repository.repairDanglingHead(ofBareRepositoryAt: directory, branch: branch)
    else { return nil }
    return Self.branchName(previous) ?? previous
  }

  /// The directory a local remote URL names: a `file://` URL, or a path (git's rule: no `:` before the first `/`,
  /// so `host:notes.git` is ssh). Relative paths are taken from the current directory, as libgit2 does.
  static func localRepository(_ url: String) -> URL? {
    if url.hasPrefix("file://") {
      let path = String(url.dropFirst("file://".count))
      return URL(fileURLWithPath: path.removingPercentEncoding ?? path)
    }
    if url.contains("://") { return nil }
    if let colon = url.firstIndex(of: ":"), url.firstIndex(of: "/").map({ colon < $0 }) ?? true { return nil }
    return URL(fileURLWithPath: url)
  }

  /// `main` for `refs/heads/main`; nil for a name that is not a branch.
  fileprivate static func branchName(_ reference: String) -> String? {
    reference.hasPrefix("refs/heads/") ? String(reference.dropFirst("refs/heads/".count)) : nil
  }
}

// MARK: - The seam's values

/// A file as a commit stores it: an opaque content id (equal ids, equal bytes) and its kind.
struct StoredFile: Hashable, Sendable {
  /// The kinds of tree entry nb distinguishes.
  enum Mode: Hashable, Sendable {
    case file, executable, link, submodule

    init(_ mode: FileMode) {
      switch mode {
      case .blob: self = .file
      case .executable: self = .executable
      case .link: self = .link
      case .gitlink: self = .submodule
      }
    }

    /// The entry kind as stored.
    var exact: FileMode {
      switch self {
      case .file: .blob
      case .executable: .executable
      case .link: .link
      case .submodule: .gitlink
      }
    }

    /// What a merged file is written as: a submodule's merged bytes become a plain file.
    var gitMode: FileMode {
      switch self {
      case .file, .submodule: .blob
      case .executable: .executable
      case .link: .link
      }
    }
  }

  var id: String
  var mode: Mode
}

/// One commit of a history walk.
struct HistoryCommit {
  var id: String
  var parent: String?
  var summary: CommitSummary
  /// The full message (trailers included).
  var message: String

  init(_ commit: Commit) {
    id = commit.id.hex
    parent = commit.parents.first?.hex
    summary = CommitSummary(commit)
    message = commit.message
  }
}

/// The commit that last changed a path on one side of a sync.
struct LastChange {
  /// Its author time.
  var time: Date
  /// The device that made it (`Nb-Device:`), else its author's name.
  var device: String
}

/// What one commit did to one path.
struct PathChange {
  enum Kind { case renamed, deleted, other }
  var kind: Kind
  var oldPath: String?
  var newPath: String?
  var oldFile: StoredFile?
}

/// One path's uncommitted change in the two comparisons git status makes.
struct WorkTreeChange {
  var path: String
  /// Index against the last commit (changes made with `git add`).
  var staged: FileChange.Kind?
  /// Work tree against the index.
  var unstaged: FileChange.Kind?
}

/// The branches a remote advertises: name → commit, and its default branch.
struct RemoteBranches {
  var branches: [String: String]
  var defaultBranch: String?

  init(_ listing: RemoteListing) {
    var branches: [String: String] = [:]
    for (name, id) in listing.references {
      if let branch = NoteHistory.branchName(name) { branches[branch] = id.hex }
    }
    self.branches = branches
    defaultBranch = listing.defaultBranch.flatMap(NoteHistory.branchName)
  }
}

/// How a push ended.
enum PushOutcome: Equatable {
  case pushed
  /// The remote moved since the fetch: start over.
  case remoteMoved
  /// The server refused the update (a hook, a protected branch).
  case refused(reference: String, message: String)
}

extension CommitSummary {
  init(_ commit: Commit) {
    self.init(
      id: commit.id.hex, subject: commit.summary, author: commit.author.name, email: commit.author.email,
      date: Timestamp(date: commit.author.date, offsetSeconds: commit.author.timeZoneOffsetMinutes * 60))
  }
}

/// The standard credential chain, made once per `SyncCredentials` value so that a sync's fetch and push share it:
/// the user the helper named stays known to the push after the fetch had the helper erase its stale password.
final class CredentialSession: Sendable {
  fileprivate let credentials: Credentials

  init(environment: [String: String]) {
    credentials = .standard(environment: environment)
  }
}

extension SyncCredentials {
  /// The GitKit credential source this stands for.
  fileprivate var gitKit: Credentials {
    switch source {
    case .none: .none
    case .standard(let session): session.credentials
    }
  }
}

extension NoteHistory {
  /// The SHA-256 of `data` in lower-case hex, which keys the inbox command's cached answers: GitKit holds the one
  /// implementation (for known_hosts fingerprints), and this file is NoteStore's only way to GitKit.
  static func sha256Hex(_ data: Data) -> String {
    SHA256.hash([UInt8](data)).map { String(format: "%02x", $0) }.joined()
  }

  /// The SHA-256 digest of `bytes`: what ``PasswordHash``'s PBKDF2 is built on.
  static func sha256(_ bytes: [UInt8]) -> [UInt8] {
    SHA256.hash(bytes)
  }
}

extension StoredFile {
  /// The file a git tree entry names.
  fileprivate init(entry: TreeEntry) {
    self.init(id: entry.id.hex, mode: StoredFile.Mode(entry.mode))
  }
}

// MARK: - Answers from git's files

/// The part of the seam that answers from git's own files and from what an earlier process kept (``GitFacts``),
/// starting libgit2 only for what those cannot settle.
///
/// `nb status` on a clean tree needs the branch, HEAD's commit and tree, the operation in progress, the settings
/// of the work-tree walk and the upstream counts: all of them are in `.git` as plain files or were learnt by the
/// last process that asked libgit2. libgit2's start-up alone costs more than `git status` of a small repository,
/// so a status that never needs it is several times faster; one that does (an untracked file's ignore rules, a
/// packed commit not seen before, a changed config) opens it through `open` at that point, once.
final class GitFileAnswers {
  private let files: GitFiles
  private let root: URL
  private let gitDirectory: URL
  private let factsPath: String
  private var facts: GitFacts
  private let loadedFacts: GitFacts
  private let openHistory: () throws -> NoteHistory
  private var history: NoteHistory?
  /// The last walk, when it read files whose stat data had changed and found their bytes unchanged.
  private var staleStat: WorkTreeScan?

  init(root: URL, gitDirectory: URL, open: @escaping () throws -> NoteHistory) {
    self.root = root
    self.gitDirectory = gitDirectory
    files = GitFiles(gitDirectory: gitDirectory)
    factsPath = gitDirectory.appendingPathComponent("nb/cache/git-facts").path
    facts = GitFacts.load(from: factsPath)
    loadedFacts = facts
    openHistory = open
  }

  /// Keeps what libgit2 had to answer for the next process.
  func saveFacts() {
    if facts != loadedFacts { facts.save(to: factsPath) }
  }

  private func opened() throws -> NoteHistory {
    if let history { return history }
    let opened = try openHistory()
    history = opened
    return opened
  }

  private lazy var head: GitFiles.Head? = files.head()

  /// The branch HEAD is on; nil when detached.
  func currentBranch() throws -> String? {
    switch head {
    case .branch(let name): return name
    case .detached: return nil
    case nil: return try opened().currentBranch
    }
  }

  /// ``NoteHistory/state()``.
  func state() throws -> (operation: String?, warnings: [String]) {
    let detached: Bool
    switch head {
    case .branch: detached = false
    case .detached: detached = true
    case nil: return try opened().state()
    }
    return NoteHistory.state(files.state, detached: detached, gitDirectory: gitDirectory)
  }

  /// What the config says, from the facts while the config files are unchanged.
  private func config() throws -> GitFacts.Config {
    let branch = try currentBranch()
    let digest = files.configDigest()
    if let digest, let kept = facts.config, kept.digest == digest, kept.branch == branch { return kept }
    let git = try opened().git
    let settings = git.workTreeSettings()
    let upstream = try branch.flatMap { branch in
      try NoteHistory.mapped { try git.upstreamTrackingReference(of: branch) }
    }
    let config = GitFacts.Config(
      digest: digest ?? "", walk: settings != nil, trustCtime: settings?.trustCtime ?? true, branch: branch,
      upstream: upstream)
    if digest != nil { facts.config = config }
    return config
  }

  /// HEAD's commit id; nil on a branch without commits.
  private lazy var headID = KeptAnswer<ObjectID?> {
    if let known = files.headCommit() { return known }
    return try opened().headID().flatMap(ObjectID.init(hex:))
  }

  /// HEAD's commit and tree: a loose commit read from its file, a packed one from the facts, else from libgit2.
  func headCommit() throws -> (summary: CommitSummary, tree: String)? {
    try headCommitRead.get()
  }

  private lazy var headCommitRead = KeptAnswer<(summary: CommitSummary, tree: String)?> {
    try readHeadCommit()
  }

  private func readHeadCommit() throws -> (summary: CommitSummary, tree: String)? {
    guard let id = try headID.get() else { return nil }
    if let commit = files.looseCommit(id) { return (CommitSummary(commit), commit.tree.hex) }
    if let kept = facts.commit, kept.id == id.hex { return (kept.summary, kept.tree) }
    let git = try opened().git
    let commit = try NoteHistory.mapped { try git.commit(id) }
    let summary = CommitSummary(commit)
    facts.commit = GitFacts.CommitFacts(id: id.hex, tree: commit.tree.hex, summary: summary)
    return (summary, commit.tree.hex)
  }

  /// ``NoteHistory/scan(onDirectory:)``, with libgit2 started only if the walk meets something it must ask about.
  func scan(onDirectory: ((String, [String]) -> Void)? = nil) throws -> (changes: [WorkTreeChange], head: String)? {
    guard let head = try headCommit(), let tree = ObjectID(hex: head.tree) else { return nil }
    let config = try config()
    guard config.walk else { return nil }
    let scan = try NoteHistory.mapped {
      try Repository.scanWorkTree(
        workTree: root, gitDirectory: gitDirectory, settings: WorkTreeSettings(trustCtime: config.trustCtime),
        headTree: tree, repository: { try self.opened().git }, onDirectory: onDirectory)
    }
    guard let scan else { return nil }
    staleStat = scan.refreshable > 0 ? scan : nil
    let changes = scan.entries.map { entry in
      WorkTreeChange(
        path: entry.path, staged: entry.staged.map(NoteHistory.kind), unstaged: entry.unstaged.map(NoteHistory.kind))
    }
    return (changes, head.summary.id)
  }

  /// True when the last ``scan(onDirectory:)`` read files only because their stat data had changed.
  var hasStaleStat: Bool { staleStat != nil }

  /// Records the stat data of the files the last ``scan(onDirectory:)`` read and found unchanged in the index, as
  /// `git status` does, so that the next walk trusts them (``WorkTreeScan/writeRefreshedIndex()``). The caller
  /// holds the repository lock.
  func recordStaleStat() {
    staleStat?.writeRefreshedIndex()
    staleStat = nil
  }

  /// ``NoteHistory/changesWithoutWalk()``, for when ``scan(onDirectory:)`` declined.
  func changesWithoutWalk() throws -> [WorkTreeChange] {
    try opened().changesWithoutWalk()
  }

  /// ``NoteHistory/upstreamCounts()``: the tracking reference from the facts, the two tips from the refs, and the
  /// counts from the facts when they are of the same two commits (none to count when the tips are one commit).
  func upstreamCounts() throws -> (ahead: Int, behind: Int, upstream: String)? {
    guard case .branch = head else { return try opened().upstreamCounts() }
    guard let tracking = try config().upstream, let local = try headID.get() else { return nil }
    // A tracking reference never fetched, or one the files cannot resolve: libgit2's answer.
    guard let remote = files.resolve(tracking) else { return try opened().upstreamCounts() }
    let name = tracking.replacingOccurrences(of: "refs/remotes/", with: "")
    if local == remote { return (0, 0, name) }
    if let kept = facts.counts, kept.local == local.hex, kept.remote == remote.hex {
      return (kept.ahead, kept.behind, name)
    }
    let git = try opened().git
    let counts = try NoteHistory.mapped { try git.aheadBehind(local: local, upstream: remote) }
    facts.counts = GitFacts.Counts(local: local.hex, remote: remote.hex, ahead: counts.ahead, behind: counts.behind)
    return (counts.ahead, counts.behind, name)
  }
}

/// What bringing the notes' summary forward reads of two commits (``NoteRepository/noteSummary(at:dirty:)``).
protocol CommitReader {
  func hasCommit(_ commit: String) throws -> Bool
  func changedPaths(from old: String?, to new: String) throws -> Set<String>
  func file(at path: String, in commit: String) throws -> StoredFile?
  func hasDirectory(at path: String, in commit: String) throws -> Bool
  func read(_ file: StoredFile) throws -> Data
}

extension NoteHistory: CommitReader {}

/// ``CommitReader`` over loose objects only, read from their files: the commits nb makes are loose until git packs
/// them, so the first status after a save brings the summary forward without starting libgit2. Anything packed
/// throws ``NotLoose``, and the caller asks libgit2 (``NoteHistory``) instead.
struct LooseObjects: CommitReader {
  struct NotLoose: Error {}

  private let files: GitFiles

  init(gitDirectory: URL) {
    files = GitFiles(gitDirectory: gitDirectory)
  }

  private func tree(of commit: String) throws -> ObjectID {
    guard let id = ObjectID(hex: commit), let loaded = files.looseCommit(id) else { throw NotLoose() }
    return loaded.tree
  }

  private func entry(at path: String, in commit: String) throws -> GitFiles.TreeEntry? {
    guard let found = files.entry(at: path, inTree: try tree(of: commit)) else { throw NotLoose() }
    return found
  }

  func hasCommit(_ commit: String) throws -> Bool {
    _ = try tree(of: commit)
    return true
  }

  func changedPaths(from old: String?, to new: String) throws -> Set<String> {
    guard let paths = files.changedPaths(fromTree: try old.map(tree(of:)), toTree: try tree(of: new)) else {
      throw NotLoose()
    }
    return paths
  }

  func file(at path: String, in commit: String) throws -> StoredFile? {
    // As libgit2's answer: a blob (a file or a symlink), never a directory or a submodule.
    guard let found = try entry(at: path, in: commit), !found.isTree, found.mode != 0o160000 else { return nil }
    return StoredFile(id: found.id.hex, mode: .file)
  }

  func hasDirectory(at path: String, in commit: String) throws -> Bool {
    try entry(at: path, in: commit)?.isTree ?? false
  }

  func read(_ file: StoredFile) throws -> Data {
    guard let id = ObjectID(hex: file.id), let bytes = files.looseBlob(id) else { throw NotLoose() }
    return Data(bytes)
  }
}

/// A count several threads may add to.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  func add() {
    lock.lock()
    count += 1
    lock.unlock()
  }

  var value: Int {
    lock.lock()
    defer { lock.unlock() }
    return count
  }
}

/// An answer computed once, or the error computing it threw. Not `Result`: making `Result<_, any Error>` makes the
/// runtime check that the failure is an `Error`, by scanning every conformance record in the binary, in every
/// command that reads HEAD.
private enum KeptAnswer<Value> {
  case value(Value)
  case failure(any Error)

  init(_ body: () throws -> Value) {
    do { self = .value(try body()) } catch { self = .failure(error) }
  }

  func get() throws -> Value {
    switch self {
    case .value(let value): return value
    case .failure(let error): throw error
    }
  }
}

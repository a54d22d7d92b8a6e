import Foundation
internal import GitKit

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
  private lazy var headID: Result<ObjectID?, Error> = Result {
    if let known = files.headCommit() { return known }
    return try opened().headID().flatMap(ObjectID.init(hex:))
  }

  /// HEAD's commit and tree: a loose commit read from its file, a packed one from the facts, else from libgit2.
  func headCommit() throws -> (summary: CommitSummary, tree: String)? {
    try headCommitRead.get()
  }

  private lazy var headCommitRead: Result<(summary: CommitSummary, tree: String)?, Error> = Result {
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
  func scan(onDirectory: @escaping (String, [String]) -> Void) throws -> (changes: [WorkTreeChange], head: String)? {
    guard let head = try headCommit(), let tree = ObjectID(hex: head.tree) else { return nil }
    let config = try config()
    guard config.walk else { return nil }
    let scan = try NoteHistory.mapped {
      try Repository.scanWorkTree(
        workTree: root, gitDirectory: gitDirectory, settings: WorkTreeSettings(trustCtime: config.trustCtime),
        headTree: tree, repository: { try self.opened().git }, onDirectory: onDirectory)
    }
    guard let scan else { return nil }
    let changes = scan.entries.map { entry in
      WorkTreeChange(
        path: entry.path, staged: entry.staged.map(NoteHistory.kind), unstaged: entry.unstaged.map(NoteHistory.kind))
    }
    return (changes, head.summary.id)
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

import Foundation
import InboxKit
import TextFormat

/// A note repository: a git work tree of notebooks (directories) and notes (Markdown files with YAML front matter).
///
/// Every method that changes something takes the repository lock, writes files atomically and makes exactly one
/// git commit through libgit2 — or, when it fails, restores every file it touched and commits nothing. Reads never
/// take the lock. An instance is not thread-safe; use one per thread or serialise calls.
public final class NoteRepository {
  /// The file nb writes into notebooks it creates, so an empty notebook survives in git.
  public static let notebookSettingsFile = ".notebook.yaml"
  /// The repository's committed settings directory.
  public static let settingsDirectory = ".nb"
  /// Where a repository is looked for when nothing else says.
  public static let defaultLocation = "~/notes"

  /// The work tree root.
  public let root: URL
  /// The settings read from `.nb/config.yaml`.
  public internal(set) var config: RepositoryConfig {
    didSet { scanner.attachmentFolders = hasAttachmentFolders }
  }
  /// The clock; tests and apps may replace it.
  public var clock: () -> Date = { Date() }
  /// The zone timestamps are written in. Lazy, as is `device`: a command that only reads a note needs neither,
  /// and finding them (the zone file, the environment, the host name) costs a good part of such a command.
  public var timeZone: TimeZone {
    get {
      if let chosenTimeZone { return chosenTimeZone }
      let zone = TimeZone.current
      chosenTimeZone = zone
      return zone
    }
    set { chosenTimeZone = newValue }
  }
  /// nil until ``timeZone`` is set or read: until then ``now`` asks libc for the process's offset from UTC, which
  /// reads the same `TZ` and `/etc/localtime` as `TimeZone.current` without setting up Foundation's time zones
  /// (half a millisecond of every command that stamps a note).
  private var chosenTimeZone: TimeZone?
  /// This device's name, written into every commit nb makes as an `Nb-Device:` trailer (a sync names a losing
  /// version's conflict copy after it). `NB_DEVICE`, else the host name; a sync runs as its ``SyncOptions/device``.
  public lazy var device: String = NoteRepository.defaultDevice(variable: environmentVariable)
  /// Called while an operation works through many notes (a tag rename, a save): what it is doing, how many are
  /// done, of how many. A command line shows it as a progress line; nil reports nothing.
  public var progress: ((_ activity: String, _ done: Int, _ total: Int) -> Void)?
  /// Called with a sentence a person should read that is not an error: above all that an operation a crash
  /// interrupted was rolled back (or found committed) before this one ran. A command line prints it on standard
  /// error; nil drops it.
  public var notice: ((String) -> Void)?
  /// This device's own settings file, `$XDG_CONFIG_HOME/nb/config.yaml` (``DeviceConfig/location(environment:)``),
  /// read the first time it is needed. Only it may name a command for nb to run (the inbox command), never
  /// `.nb/config.yaml`, which arrives from other devices. nil, the default, reads none.
  public var deviceConfigFile: URL?
  /// The templates: the built-in ones, overridden by `.nb/templates/NAME.md`.
  public var templates: TemplateLibrary {
    TemplateLibrary(userDirectory: root.appendingPathComponent(".nb/templates"))
  }

  /// The `.git` directory: device-local state lives in its `nb/` folder.
  let gitDirectory: URL
  let scanner: NoteScanner
  let realRoot: String
  /// The search index, opened on first use.
  private(set) lazy var index = NoteIndex(repository: self)
  private var openedGit: NoteHistory?
  /// The inbox command's settings once read, and what asking it has cost this process.
  var inboxCommandRun = InboxCommandRun()
  private(set) var heldLock: RepositoryLock?

  /// The repository's git, through the one seam (``NoteHistory``), opened on first use: commands that only read
  /// notes (list, show, search) never need libgit2, whose initialisation alone (it parses the system's CA bundle)
  /// costs more than such a command.
  var git: NoteHistory {
    get throws {
      if let openedGit { return openedGit }
      let history = try NoteHistory.open(at: root)
      openedGit = history
      return history
    }
  }

  private init(root: URL, gitDirectory: URL, git: NoteHistory?, config: RepositoryConfig) {
    NoteHistory.keepIndexCheckpoints()
    self.root = root
    self.gitDirectory = gitDirectory
    self.openedGit = git
    self.config = config
    self.realRoot = FileSystem.realPath(root.path) ?? root.path
    self.scanner = NoteScanner(
      root: root, cacheDirectory: gitDirectory.appendingPathComponent("nb/cache"),
      attachmentFolders: config.format >= RepositoryFormat.attachments)
  }

  /// `.git` as a directory, or the directory a `.git` file (`gitdir: PATH`, as worktrees and submodules have)
  /// points to; nil when there is neither.
  static func gitDirectory(of root: URL) -> URL? {
    let dotGit = root.appendingPathComponent(".git")
    guard let info = FileSystem.statInfo(dotGit.path) else { return nil }
    if info.isDirectory { return dotGit }
    guard let data = try? FileSystem.read(dotGit.path, limit: 4096),
      let line = String(data: data, encoding: .utf8)?.split(whereSeparator: \.isNewline).first,
      line.hasPrefix("gitdir:")
    else { return nil }
    let target = line.dropFirst("gitdir:".count).trimmingWhitespaces()
    return URL(fileURLWithPath: target, relativeTo: root).standardizedFileURL
  }

  /// `NB_DEVICE` when set, else the host name.
  public static func defaultDevice(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    defaultDevice(variable: { environment[$0] })
  }

  /// ``defaultDevice(environment:)`` reading the variable with `variable`, and the host name with `gethostname`:
  /// every save names its device, and ProcessInfo's first use builds the whole environment into a dictionary.
  static func defaultDevice(variable: (String) -> String?) -> String {
    if let name = variable("NB_DEVICE")?.trimmingWhitespacesAndNewlines(), !name.isEmpty {
      return name
    }
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return ProcessInfo.processInfo.hostName }
    return String(cString: buffer)
  }

  // MARK: - Finding, opening, creating

  /// Where the repository is: `explicit` (`--dir`), else `NB_DIR`, else the nearest enclosing directory holding
  /// `.nb/`, else `~/notes`.
  public static func locate(
    explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
    currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
  ) -> URL {
    locate(explicit: explicit, variable: { environment[$0] }, currentDirectory: currentDirectory)
  }

  /// ``locate(explicit:environment:currentDirectory:)`` reading each environment variable with `variable` (a
  /// command line tool passes `getenv`: the first dictionary keyed by strings in a process makes the runtime scan
  /// every conformance record in the binary).
  public static func locate(explicit: String?, variable: (String) -> String?, currentDirectory: URL) -> URL {
    let home = variable("HOME") ?? NSHomeDirectory()
    func expand(_ path: String) -> URL {
      var path = path
      if path == "~" || path.hasPrefix("~/") { path = home + path.dropFirst() }
      return URL(fileURLWithPath: path, relativeTo: currentDirectory).standardizedFileURL
    }
    if let explicit, !explicit.isEmpty { return expand(explicit) }
    if let fromEnvironment = variable("NB_DIR"), !fromEnvironment.isEmpty { return expand(fromEnvironment) }
    // Up the path as a string: URL's standardizing makes the runtime look up a conformance, a scan of every
    // conformance record in the binary, in every command.
    var directory = standardizedPath(currentDirectory)
    while true {
      let candidate = directory == "/" ? "/" + settingsDirectory : directory + "/" + settingsDirectory
      if FileSystem.statInfo(candidate)?.isDirectory == true {
        return URL(fileURLWithPath: directory, isDirectory: true)
      }
      guard directory != "/", let slash = directory.lastIndex(of: "/") else { break }
      directory = slash == directory.startIndex ? "/" : String(directory[..<slash])
    }
    return expand(defaultLocation)
  }

  /// `url`'s path as `standardizedFileURL` gives it, without a trailing `/`; standardized by URL only when a
  /// component is `.` or `..` (a path nb made or `getcwd` gave has none, and standardizing costs a scan of the
  /// binary's conformance records).
  static func standardizedPath(_ url: URL) -> String {
    var path = url.path
    if path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) { path = url.standardizedFileURL.path }
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return path.isEmpty ? "/" : path
  }

  /// Opens the repository whose root is `root`.
  public static func open(at root: URL) throws -> NoteRepository {
    let root = URL(fileURLWithPath: standardizedPath(root), isDirectory: true)
    let configPath = root.appendingPathComponent(".nb/config.yaml").path
    guard FileSystem.exists(configPath) else { throw NoteStoreError.noRepository(path: root.path) }
    let config = try RepositoryConfig.read(at: configPath)
    guard let gitDirectory = gitDirectory(of: root) else {
      throw NoteStoreError.unsafeGitState(
        "\(root.path) has nb settings but no .git; run 'git init' there or restore .git")
    }
    Phases.mark("open")
    return NoteRepository(root: root, gitDirectory: gitDirectory, git: nil, config: config)
  }

  /// Makes a new repository at `root` (creating the directory), on branch `main`, with the settings, a
  /// `.gitattributes`, the default notebook, and a first commit. An existing git repository is adopted: its history
  /// and files stay, and nb's files are committed on top.
  @discardableResult
  public static func initialize(
    at root: URL, clock: @escaping () -> Date = { Date() }, timeZone: TimeZone = .current
  ) throws -> NoteRepository {
    let root = root.standardizedFileURL
    if FileSystem.exists(root.appendingPathComponent(".nb/config.yaml").path) {
      throw NoteStoreError.alreadyInitialized(path: root.path)
    }
    try FileSystem.makeDirectory(root.path)
    let git = try NoteHistory.openOrCreate(at: root, branch: "main")
    let config = RepositoryConfig.initial
    let repository = NoteRepository(root: root, gitDirectory: git.gitDirectory, git: git, config: config)
    repository.clock = clock
    repository.timeZone = timeZone
    try repository.mutate { tx in
      try tx.write(".nb/config.yaml", config.fileText)
      try tx.writeIfAbsent(".gitattributes", gitattributesText)
      try repository.addIgnoreBlock(in: &tx)
      try repository.makeNotebookDirectories(config.defaultNotebook, title: nil, in: &tx)
      tx.subject = "init"
    }
    return repository
  }

  static let gitattributesText = """
    # nb: ink sidecars merge stroke by stroke and diff as summaries (see 'nb merge-driver' / 'nb ink textconv').
    *.ink.jsonl merge=nb-ink diff=nb-ink text eol=lf
    # nb: notes merge front matter key by key and the body line by line (see 'nb merge-driver'); without the
    # merge.nb-note.driver setting git merges them as plain text.
    *.md merge=nb-note

    """

  /// The first line of the block of ignores nb owns in `.gitignore`: how nb knows the block is there.
  static let ignoreBlockMarker = "# nb: per-device state of editors and apps, never notes"

  /// Files that are one device's state, not anyone's notes: committed, they change on every device and conflict.
  static let ignoreBlock = """
    \(ignoreBlockMarker) (nb adds this block once; the rest of the file is yours).
    .obsidian/workspace*.json
    .trash/
    .DS_Store
    .*.swp
    .*.swo
    *~
    .#*
    \\#*#
    .history/
    # nb's own temporary files: left behind only when a process is killed mid-write.
    .*.nb-*.tmp

    """

  /// `existing` (a `.gitignore`'s text, nil when there is none) with nb's block added at the end; nil when the block
  /// is already there. Nothing a person wrote is changed or moved.
  static func gitignore(adding existing: String?) -> String? {
    guard let existing else { return ignoreBlock }
    if existing.split(separator: "\n").contains(where: { $0.hasPrefix(ignoreBlockMarker) }) { return nil }
    let separator = existing.isEmpty || existing.hasSuffix("\n\n") ? "" : existing.hasSuffix("\n") ? "\n" : "\n\n"
    return existing + separator + ignoreBlock
  }

  /// Adds nb's ignore block to `.gitignore` when it lacks it (a repository from an older nb, or an adopted one).
  func addIgnoreBlock(in tx: inout Transaction) throws {
    let path = absolute(".gitignore")
    let existing = FileSystem.exists(path) ? try readText(".gitignore") : nil
    if let text = Self.gitignore(adding: existing) { try tx.write(".gitignore", text) }
  }

  // MARK: - Reading

  /// The current time, truncated to whole seconds (timestamps are written with seconds precision).
  var now: Timestamp {
    let seconds = clock().timeIntervalSince1970.rounded(.down)
    let date = Date(timeIntervalSince1970: seconds)
    if let chosenTimeZone { return Timestamp(date: date, timeZone: chosenTimeZone) }
    return Timestamp(date: date, offsetSeconds: LocalOffset.seconds(at: seconds))
  }

  func absolute(_ relative: String) -> String { root.path + "/" + relative }

  /// Reads a file as UTF-8 text, with the errors the rules ask for.
  func readText(_ relative: String) throws -> String {
    let data = try FileSystem.read(absolute(relative))
    guard let text = Self.decodeUTF8(data) else { throw NoteStoreError.notUTF8(path: relative) }
    return text
  }

  /// Strict UTF-8 that keeps a leading BOM: Foundation's `String(data:encoding:)` drops it, and text nb writes back
  /// must keep every byte it does not own.
  static func decodeUTF8(_ data: Data) -> String? {
    String(validating: data, as: UTF8.self)
  }

  /// The whole text of a note, exactly as on disk.
  public func text(of note: Note) throws -> String { try readText(note.path) }

  /// The note's text after its front matter block (all of it when it has none).
  public func body(of note: Note) throws -> String { String(FrontMatter.body(of: try text(of: note))) }

  /// Where the body of a note's `text` (``text(of:)``) starts: just after the front matter's closing line, or at the
  /// start when there is none. Reading the text once and splitting it here keeps the body and byte offsets into
  /// the whole text (a `NoteLink`'s range from `LinkScanner`) in agreement, as two reads of a changing file might not.
  public static func bodyStart(in text: String) -> String.Index { FrontMatter.body(of: text).startIndex }

  /// The raw bytes of a note.
  public func data(of note: Note) throws -> Data { try FileSystem.read(absolute(note.path)) }

  /// Refuses paths that escape the root, including through a symlinked directory or file.
  func checkInside(_ relative: String) throws {
    var probe = absolute(relative)
    // The file may not exist yet: resolve its nearest existing ancestor.
    while !FileSystem.exists(probe), probe.count > root.path.count {
      probe = (probe as NSString).deletingLastPathComponent
    }
    guard let real = FileSystem.realPath(probe) else { return }
    if real != realRoot && !real.hasPrefix(realRoot + "/") {
      throw NoteStoreError.outsideRepository(path: relative)
    }
  }

  /// ``checkInside(_:)`` for many paths: each directory's real path is resolved once (a resolution reads every
  /// component's link, six system calls per file at a typical depth), and only a file that is itself a symbolic
  /// link is resolved on its own.
  func checkInside(all relatives: [String]) throws {
    var checked = Set<String>()
    for relative in relatives {
      let full = absolute(relative)
      if let info = FileSystem.lstatInfo(full), info.isSymlink {
        try checkInside(relative)
        continue
      }
      let directory = RepoPaths.directory(of: relative)
      if checked.insert(directory).inserted {
        // The directory stands for the file: a missing file resolves through its nearest existing ancestor.
        try checkInside(directory.isEmpty ? "." : directory)
      }
    }
  }

  // MARK: - Changing: one lock, one commit, all or nothing

  /// Runs `body` with every query in it answered from one refresh of the index: the first query brings the index
  /// up to date with HEAD and the work tree as always, the ones after it trust what it found. A view made of
  /// several queries (a page: the note, its links, its backlinks, its attachments) then costs one check for
  /// uncommitted edits instead of one per query, and shows one consistent state. A change this repository makes
  /// inside `body` (a save, a move) ends the snapshot, so the queries after it see that change; an edit another
  /// program makes while `body` runs is seen by the next call. Calls may nest.
  public func withConsistentIndex<T>(_ body: () throws -> T) rethrows -> T {
    index.snapshotDepth += 1
    defer {
      index.snapshotDepth -= 1
      if index.snapshotDepth == 0 { index.snapshotIsFresh = false }
    }
    return try body()
  }

  /// Runs `body` under the repository lock, then commits what it recorded in one commit. If anything fails, every
  /// file the transaction touched is put back as it was.
  @discardableResult
  func mutate<T>(_ body: (inout Transaction) throws -> T) throws -> T {
    try withLock {
      if !NoteHistory.isCommittableByFiles(gitDirectory: gitDirectory) { try git.assertCommittable() }
      // Without what an earlier commit kept of this config, libgit2 will commit: it loads on another core while the
      // files are written, and the load is over before this returns (a process must not exit during it).
      // With them, the plain commit's zlib loads there instead.
      let settings = NoteHistory.plainCommitSettings(gitDirectory: gitDirectory)
      if settings == nil { NoteHistory.preload() } else { NoteHistory.preloadPlainCommit() }
      defer { if settings == nil { NoteHistory.waitForPreload() } else { NoteHistory.waitForPlainCommitPreload() } }
      Phases.mark("committable")
      return try transaction(plainCommitSettings: settings, body)
    }
  }

  /// The repository lock's file (``RepositoryLock``).
  var lockPath: String { gitDirectory.appendingPathComponent("nb/lock").path }

  /// Runs `body` holding the repository lock. Re-entrant: an operation that holds it (sync) can call others that
  /// take it (save) — a second flock from the same process would wait for itself.
  ///
  /// Taking the lock first settles what a killed nb left half done (its journal, ``Journal``), so no command — above
  /// all `save` — ever sees or commits half of another.
  func withLock<T>(_ body: () throws -> T) throws -> T {
    // Whatever a write changes, the queries after it refresh again (see withConsistentIndex).
    defer { index.snapshotIsFresh = false }
    if heldLock != nil { return try body() }
    let lock = try RepositoryLock(path: lockPath)
    heldLock = lock
    defer { heldLock = nil }
    Phases.mark("lock")
    if let message = try recoverInterruptedTransaction() {
      notice?(message)
    } else if let started = lock.killedHolderStarted {
      // Killed outside a transaction (a sync's fetch or push): only git's lock files can be left.
      let removed = (try? git.removeLocksAKilledCommandLeft(since: started)) ?? []
      if !removed.isEmpty {
        notice?("nb: removed the git lock files a killed nb left (\(removed.joined(separator: ", ")))")
      }
    }
    Phases.mark("recovery check")
    return try body()
  }

  private func transaction<T>(
    plainCommitSettings: NoteHistory.KeptCommitSettings?, _ body: (inout Transaction) throws -> T
  )
    throws -> T
  {
    var tx = Transaction(repository: self)
    do {
      let result = try body(&tx)
      Phases.mark("body")
      if !tx.paths.isEmpty {
        // Past this record a crash is settled by looking at HEAD: moved means the commit landed.
        try tx.journal?.append([(JournalRecord(kind: .commit, subject: tx.subject, paths: tx.paths), nil)])
        // Only a repository with an index pays for keeping it current (one ref lookup, then its rows).
        let indexed = tx.earlyRecord != nil || index.isPresent
        let before = indexed ? try headCommit() : nil
        // Part of the same operation, so the next search sees this change without walking the work tree for it;
        // made on another core while libgit2 commits.
        let record: PendingCommitRecord?
        if let early = tx.earlyRecord {
          early.commitBegins(paths: tx.paths)
          record = early
        } else {
          record = indexed ? index.beginRecordingCommit(paths: tx.paths, from: before) : nil
        }
        let commit: String?
        do {
          let message = CommitMessage.make(tx.subject, noteIDs: tx.noteIDs, device: device)
          let date = clock()
          if let settings = plainCommitSettings,
            let plain = try NoteHistory.commitFromFiles(
              root: root, gitDirectory: gitDirectory, paths: tx.paths, message: message, date: date,
              settings: settings)
          {
            commit = plain
          } else {
            commit = try git.commit(paths: tx.paths, message: message, date: date)
          }
        } catch {
          record?.abandon()
          throw error
        }
        Phases.mark("git commit")
        record?.finish(at: commit ?? before)
        Phases.mark("index after commit")
      }
      // A recording started for a transaction that committed nothing (or was told already: then this does nothing).
      tx.earlyRecord?.abandon()
      tx.journal?.finish()
      tx.replaced.wait()
      Phases.mark("journal finish, replaced closed")
      return result
    } catch {
      tx.earlyRecord?.abandon()
      tx.rollback()
      tx.journal?.finish()
      tx.replaced.wait()
      throw error
    }
  }
}

/// What one mutating command has done so far: the paths to commit, the subject, the notes touched, and how to undo
/// each file change if a later step fails.
struct Transaction {
  unowned let repository: NoteRepository
  var subject = ""
  private(set) var paths: [String] = []
  private(set) var noteIDs: [String] = []
  /// One step per change made so far (a file written or removed, a directory made or removed, a move).
  private var undo: [() -> Void] = [] {
    didSet { TestFailpoints.transactionChanged?(undo.count) }
  }
  private var seen = Set<String>()
  /// The write-ahead journal, started by the first change: what a crash needs to undo this transaction.
  private(set) var journal: Journal?
  /// The files batch writes replaced, freed in the background while the transaction goes on.
  let replaced = ReplacedFiles()
  /// Set by an operation whose last change is ``write(all:)`` (a rename, a move, a tag or notebook rename): the
  /// index rows of the notes it writes are made from their new bytes while they are written
  /// (``NoteIndex/beginRecording(from:)``), instead of after the commit begins. Nothing may query the index between
  /// that write and the commit.
  var recordsIndexEarly = false
  /// That recording, once the first batch started it.
  private(set) var earlyRecord: PendingCommitRecord?

  init(repository: NoteRepository) { self.repository = repository }

  /// Records `entries` durably before the changes they describe are made (starting the journal on the first);
  /// where each entry's prior bytes are in the journal.
  @discardableResult
  private mutating func log(_ entries: [(JournalRecord, Data?)]) throws -> [Int?] {
    if let journal { return try journal.append(entries) }
    // HEAD from git's files (``headCommit()``), not libgit2: a load ``prepareGit()`` started goes on beside the
    // writes instead of being waited for here.
    let started = try Journal(
      directory: repository.journalDirectory, head: try repository.headCommit(), first: entries)
    journal = started
    return started.firstPriorOffsets
  }

  private static func writeRecord(_ path: String, old: Data?, new: Data) -> (JournalRecord, Data?) {
    (JournalRecord(kind: .write, path: path, prior: old?.count, newSize: new.count, newHash: Journal.hash(new)), old)
  }

  mutating func touch(_ path: String) {
    if seen.insert(path).inserted { paths.append(path) }
  }

  mutating func note(_ id: String?) {
    if let id, !noteIDs.contains(id) { noteIDs.append(id) }
  }

  /// Atomically writes `text`, creating parent directories, remembering the old content for rollback.
  mutating func write(_ path: String, _ text: String) throws {
    try write(path, Data(utf8Of: text))
  }

  mutating func write(_ path: String, _ data: Data) throws {
    earlyRecord?.taint()
    try repository.checkInside(path)
    let full = repository.absolute(path)
    let old = try? FileSystem.read(full)
    let parent = (full as NSString).deletingLastPathComponent
    if !FileSystem.exists(parent) { try makeDirectories(parent) }
    Phases.mark("write: read old")
    try log([Self.writeRecord(path, old: old, new: data)])
    Phases.mark("write: journal")
    try written(path, full: full, data, old: old)
    Phases.mark("write: file")
  }

  /// Writes many files, journaling them in batches of up to 4 096 files or 8 MiB of their old bytes (one flush per
  /// batch, not per file): a tag rename over thousands of notes pays for its journal about what a single write
  /// costs. Each batch's files are flushed to disk together (``AtomicFile/stage(_:)``: one flush of the file
  /// system) before any is renamed into place, so a rename of a thousand notes waits for the disk a constant number
  /// of times, and their old bytes are not kept
  /// in memory: an undo reads them back from the journal, which holds them anyway. `old` is a file's current
  /// bytes when the caller has just read them (nil: read here).
  mutating func write(all files: [(path: String, data: Data, old: Data?)]) throws {
    var start = 0
    while start < files.count {
      var batch: [(path: String, full: String, data: Data, old: Data?)] = []
      var bytes = 0
      let end = min(files.count, start + 4096)
      try repository.checkInside(all: files[start..<end].map(\.path))
      while start + batch.count < end, bytes < 8 << 20 {
        let file = files[start + batch.count]
        let full = repository.absolute(file.path)
        let old = file.old ?? (try? FileSystem.read(full))
        bytes += old?.count ?? 0
        batch.append((file.path, full, file.data, old))
      }
      Phases.mark("write: read olds")
      let priors = try log(batch.map { Self.writeRecord($0.path, old: $0.old, new: $0.data) })
      Phases.mark("write: journal")
      if recordsIndexEarly {
        if earlyRecord == nil { earlyRecord = repository.index.beginRecording(from: try repository.headCommit()) }
        earlyRecord?.feed(
          batch.filter { RepoPaths.isNotePath($0.path) && !NoteIndex.isHidden($0.path) }.map { ($0.path, $0.data) })
      }
      for file in batch {
        let parent = (file.full as NSString).deletingLastPathComponent
        if !FileSystem.exists(parent) { try makeDirectories(parent) }
      }
      let staged = try AtomicFile.stage(batch.map { ($0.data, $0.full) })
      Phases.mark("write: stage+flush")
      for (i, (file, prior)) in zip(batch, priors).enumerated() {
        do {
          try AtomicFile.install(staged[i], releasing: replaced)
        } catch {
          AtomicFile.discard(staged[(i + 1)...])
          throw error
        }
        let journal = journal
        let count = file.old?.count ?? 0
        let full = file.full
        undo.append {
          if let prior, let old = journal?.prior(at: prior, count: count) {
            try? AtomicFile.write(old, to: URL(fileURLWithPath: full))
          } else if prior == nil {
            try? FileSystem.remove(full)
          }
        }
        touch(file.path)
      }
      start += batch.count
      Phases.mark("write: install")
    }
  }

  mutating func write(all files: [(path: String, data: Data)]) throws {
    try write(all: files.map { ($0.path, $0.data, nil) })
  }

  /// Writes `data` over `full` (its record already journaled) and remembers how to undo it in process.
  private mutating func written(_ path: String, full: String, _ data: Data, old: Data?) throws {
    try AtomicFile.write(data, to: URL(fileURLWithPath: full))
    undo.append {
      if let old { try? AtomicFile.write(old, to: URL(fileURLWithPath: full)) } else { try? FileSystem.remove(full) }
    }
    touch(path)
  }

  mutating func writeIfAbsent(_ path: String, _ text: String) throws {
    if !FileSystem.exists(repository.absolute(path)) { try write(path, text) }
  }

  /// Removes a file, keeping its bytes in memory until the commit lands.
  mutating func remove(_ path: String) throws {
    earlyRecord?.taint()
    try repository.checkInside(path)
    let full = repository.absolute(path)
    guard let old = try? FileSystem.read(full) else { return }
    try log([(JournalRecord(kind: .remove, path: path, prior: old.count), old)])
    try FileSystem.remove(full)
    undo.append { try? AtomicFile.write(old, to: URL(fileURLWithPath: full)) }
    touch(path)
  }

  /// Removes a note together with its sidecars and its attachment folder (whose emptied directories go too: left
  /// behind, an empty `x.files/` would turn up as a notebook).
  mutating func removeNote(_ path: String) throws {
    for file in repository.noteFiles(path) { try remove(file) }
    let folder = RepoPaths.attachmentFolder(of: path)
    if repository.hasAttachmentFolders, FileSystem.lstatInfo(repository.absolute(folder))?.isDirectory == true {
      try removeEmptyDirectories(folder)
    }
  }

  /// Removes `directory` and the directories below it when no file is left in them (bottom up); one still holding
  /// something (a hidden file nb does not list) stays. Undone by making them again.
  mutating func removeEmptyDirectories(_ directory: String) throws {
    let full = repository.absolute(directory)
    for entry in FileSystem.entries(of: full) where entry.isDirectory {
      try removeEmptyDirectories(RepoPaths.join(directory, entry.name))
    }
    if rmdir(full) == 0 { undo.append { try? FileSystem.makeDirectory(full) } }
  }

  /// Renames a file or directory (same file system, so it is atomic), recording the reverse move.
  mutating func move(_ from: String, _ to: String) throws {
    earlyRecord?.taint()
    try repository.checkInside(from)
    try repository.checkInside(to)
    let source = repository.absolute(from)
    let target = repository.absolute(to)
    let parent = (target as NSString).deletingLastPathComponent
    if !FileSystem.exists(parent) { try makeDirectories(parent) }
    try log([(JournalRecord(kind: .move, path: from, to: to), nil)])
    try FileSystem.move(source, target)
    undo.append { try? FileSystem.move(target, source) }
  }

  /// Creates missing directories one by one so that rollback removes exactly the ones it made.
  private mutating func makeDirectories(_ full: String) throws {
    var missing: [String] = []
    var probe = full
    while !FileSystem.exists(probe) {
      missing.append(probe)
      probe = (probe as NSString).deletingLastPathComponent
    }
    for directory in missing.reversed() {
      let relative = String(directory.dropFirst(repository.root.path.count + 1))
      try log([(JournalRecord(kind: .directory, path: relative), nil)])
      try FileSystem.makeDirectory(directory)
      undo.append { _ = rmdir(directory) }
    }
  }

  func rollback() {
    for step in undo.reversed() { step() }
  }
}

/// The value of the environment variable `name`, read with getenv; nil when it is not set (an empty value is set).
/// What the `variable:` lookups take in a process that reads its own environment: ProcessInfo's environment copies
/// all of it into a dictionary, whose first use makes the runtime scan the binary's conformance records.
public func environmentVariable(_ name: String) -> String? {
  getenv(name).map { String(cString: $0) }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

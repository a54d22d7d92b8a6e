import Foundation
import TextFormat

/// What `save` committed.
public struct SaveResult: Equatable, Sendable {
  /// A new note that carried another note's `id` (a copied file) and was given its own.
  public struct Copy: Equatable, Sendable {
    /// The new note.
    public var path: String
    /// The note whose id it had (which keeps it).
    public var original: String
  }

  /// Every path in the commit (notes, sidecars, other files), sorted.
  public var paths: [String]
  /// The notes that were stamped (changed or added).
  public var notes: [String]
  /// Paths removed.
  public var removed: [String]
  /// Files nb could not stamp (not UTF-8, malformed front matter, an ink file it cannot read), each with the file,
  /// the line where known and the reason. They are committed unchanged: still the user's data.
  public var unstamped: [NoteStoreError] = []
  /// New notes that carried the `id` of another note already in the repository (a copied file) and were given an
  /// id of their own, each with the note whose id it had.
  public var newIDs: [Copy] = []
  /// Paths in the commit that git did not track before (new files), a subset of ``paths``.
  public var added: [String] = []
  /// Files moved by hand with their bytes unchanged, each as (from, to); both paths are in ``paths`` too.
  public var moved: [Move] = []
  /// A file moved with its bytes unchanged.
  public struct Move: Equatable, Sendable {
    /// Where it was.
    public var from: String
    /// Where it is now.
    public var to: String
  }
  /// Notes that changed again while they were being saved (an editor still writing): left as they are, for the next
  /// save, rather than stamped over the newer bytes.
  public var changedAgain: [String] = []
  /// Whether a commit was made.
  public var committed: Bool { !paths.isEmpty }
}

/// How ``NoteRepository/save(_:)`` treats what it finds.
public struct SaveOptions: Sendable {
  /// Leave files nb cannot stamp (malformed front matter, not UTF-8, unreadable ink) out of the commit instead of
  /// committing them unchanged. A watcher sets it: a note saved mid-edit with broken YAML is not history yet, and
  /// the person's next save will be. They are reported in ``SaveResult/unstamped`` either way.
  public var leaveUnstampable: Bool
  /// Paths (relative) to leave out of the commit although git sees them: a watcher's editor scratch files (vim's
  /// `4913` probe, JetBrains' `___jb_tmp___`) that exist for a moment and are no one's notes.
  public var leaveOut: (@Sendable (String) -> Bool)?

  /// Only these files (relative paths) are looked at, when the caller knows what changed (a watcher told by the
  /// kernel); nil looks at the whole work tree, as `git status` does. Saves a walk of every file at 10 000 notes.
  public var only: Set<String>?

  /// Creates options; the defaults are `nb save`'s.
  public init(
    leaveUnstampable: Bool = false, leaveOut: (@Sendable (String) -> Bool)? = nil, only: Set<String>? = nil
  ) {
    self.leaveUnstampable = leaveUnstampable
    self.leaveOut = leaveOut
    self.only = only
  }
}

/// One uncommitted change in the work tree, as `status` reports it.
public struct FileChange: Equatable, Sendable {
  /// The kinds of change.
  public enum Kind: String, Sendable { case added, modified, deleted, renamed, typeChange = "type-change", conflicted }
  /// Repository-relative path.
  public var path: String
  /// The change against the last commit.
  public var kind: Kind
  /// Whether it is staged in git's index (changes made with `git add`).
  public var staged: Bool
}

/// The repository's state for `nb status`.
public struct RepositoryStatus: Equatable, Sendable {
  /// The branch HEAD points to; nil when detached.
  public var branch: String?
  /// A git operation in progress (`merge`, `rebase`, ...), nil when none.
  public var operation: String?
  /// The last commit; nil in a repository without commits.
  public var head: CommitSummary?
  /// Uncommitted changes.
  public var changes: [FileChange]
  /// Problems worth a person's attention (malformed notes, ink without a note, a stale index.lock).
  public var warnings: [String]
}

extension NoteRepository {
  /// Commits every change made outside nb in one commit: notes that changed get `updated` stamped and an `id` if
  /// they lack one, nothing else; other files (attachments, sidecars, deletions) are committed as they are.
  /// A changed ink sidecar stamps its note too (note and ink are one unit). A note that is not UTF-8 or has
  /// malformed front matter, or an ink file that cannot be parsed, is committed unchanged and reported in
  /// ``SaveResult/unstamped``: one bad file never keeps the others out of history.
  ///
  /// A note that changes again between being read and being stamped (an editor still writing it) is not written
  /// over: it is left for the next save and listed in ``SaveResult/changedAgain``.
  @discardableResult
  public func save(_ options: SaveOptions = SaveOptions()) throws -> SaveResult {
    try save(options, knownClean: false)
  }

  /// ``save(_:)``; `knownClean`: the caller, holding the lock, has just found nothing to save
  /// (``hasNothingToSave(_:)``).
  func save(_ options: SaveOptions, knownClean: Bool) throws -> SaveResult {
    // Nothing to look at is nothing to save (an empty path list would mean the whole tree to git).
    if let only = options.only, only.isEmpty { return SaveResult(paths: [], notes: [], removed: []) }
    if knownClean || (options.only == nil && hasNothingToSave(options)) {
      return SaveResult(paths: [], notes: [], removed: [])
    }
    return try mutate { tx in
      // First, so that what it ignores is not committed by this save.
      try addIgnoreBlock(in: &tx)
      let changes =
        try options.only.map { try git.changes(paths: $0.sorted() + [".gitignore"], exact: true) }
        ?? git.changes()
      // git status already shows a new .gitignore; an existing one nb appended to is modified: listed either way.
      let paths = Array(
        Set(changes.map(\.path).filter { !AtomicFile.isTemporary($0) && options.leaveOut?($0) != true })
      ).sorted()
      let head = try git.headID()
      // Stamped notes wait here until a batch is full, then are written: the texts of a whole adopted folder are
      // never all in memory at once.
      var pending: [(path: String, text: String, id: String, read: FileSystem.Info?, old: Data)] = []
      var stamped: [String] = []
      var changedAgain: [String] = []
      // Right before writing: a note whose size, time or inode moved since it was read is being written by someone
      // else; stamping it would overwrite their newer bytes (the rename itself is atomic).
      func writePending() throws {
        let moving = pending.filter { FileSystem.lstatInfo(absolute($0.path)) != $0.read }.map(\.path)
        changedAgain += moving
        if !moving.isEmpty { pending.removeAll { moving.contains($0.path) } }
        try tx.write(all: pending.map { ($0.path, Data($0.text.utf8), $0.old) })
        for note in pending { tx.note(note.id) }
        stamped += pending.map(\.path)
        pending.removeAll()
      }
      // Moves are looked for only among the deletions, found once.
      let deletions = changes.filter { $0.unstaged == .deleted || $0.staged == .deleted }
      var removed: [String] = []
      var plain: [String] = []
      var inkOnly: [String] = []
      var unstamped: [NoteStoreError] = []
      var newIDs: [SaveResult.Copy] = []
      var moved: [SaveResult.Move] = []
      // Which note holds each id, read only if a new note arrives with an id (a copy shares its original's).
      var notesByID: [String: [String]]?
      func holders(of id: String) -> [String] {
        if notesByID == nil {
          notesByID = Dictionary(
            grouping: scanner.notes(in: "", recursive: true).compactMap { note in
              note.id.map { (id: $0.lowercased(), path: note.path) }
            }
          ) { $0.id }.mapValues { $0.map(\.path) }
        }
        return notesByID?[id.lowercased()] ?? []
      }
      for (done, path) in paths.enumerated() {
        progress?("Saving", done, paths.count)
        let isInk = path.hasSuffix(RepoPaths.inkSuffix)
        if isInk {
          // Note and ink are one unit for sync's later-edit rule: drawing (or removing the drawing) stamps the
          // note's `updated` too.
          let note = String(path.dropLast(RepoPaths.inkSuffix.count)) + ".md"
          if !paths.contains(note), FileSystem.exists(absolute(note)) { inkOnly.append(note) }
        }
        guard FileSystem.exists(absolute(path)) else {
          removed.append(path)
          continue
        }
        do {
          if isInk {
            // A drawing written by another tool that nb could not read back is reported, like broken front matter.
            _ = try Self.parseInk(try FileSystem.read(absolute(path)), path: path)
            plain.append(path)
            continue
          }
          // A `.md` file in an attachment folder is an attachment: committed as it is, never stamped.
          guard RepoPaths.isNotePath(path), !isHidden(path), !isAttachment(path) else {
            plain.append(path)
            continue
          }
          let read = FileSystem.lstatInfo(absolute(path))
          let text = try readText(path)
          // A file moved by hand (same bytes at a new path) is not a content change: commit it as it is.
          if let head, let source = try unchangedMoveSource(path: path, text: text, deleted: deletions, head: head) {
            moved.append(SaveResult.Move(from: source, to: path))
            plain.append(path)
            continue
          }
          // A new file with an id another note already has is a copy: it becomes a note of its own, with a new id,
          // so selectors, history and sync (which match notes by id) never confuse the two.
          var original: String?
          if try head.map({ try git.file(at: path, in: $0) == nil }) ?? true,
            let id = try frontMatterCall(path, { try FrontMatter.read(text) }).id
          {
            original = holders(of: id).filter { $0 != path }.sorted().first { other in
              (try? head.map { try git.file(at: other, in: $0) != nil }) == .some(true)
            }
          }
          let result = try stamp(path, text: text, newID: original != nil)
          if let original { newIDs.append(SaveResult.Copy(path: path, original: original)) }
          pending.append((path, result.text, result.id, read, Data(text.utf8)))
          if pending.count >= 256 { try writePending() }
        } catch let error as NoteStoreError where error.isUnreadableFile {
          if !options.leaveUnstampable { plain.append(path) }
          unstamped.append(error)
        }
      }
      progress?("Saving", paths.count, paths.count)
      for path in inkOnly {
        do {
          let read = FileSystem.lstatInfo(absolute(path))
          let text = try readText(path)
          let result = try stamp(path, text: text)
          pending.append((path, result.text, result.id, read, Data(text.utf8)))
        } catch let error as NoteStoreError where error.isUnreadableFile {
          // The drawing is committed; its note, which nb cannot stamp, stays as it is.
          unstamped.append(error)
        }
      }
      try writePending()
      for path in removed + plain { tx.touch(path) }
      let left = Set(changedAgain).union(options.leaveUnstampable ? unstamped.compactMap { $0.location?.path } : [])
      let committedPaths = paths.filter { !left.contains($0) }
      let total = stamped.count + removed.count + plain.count
      tx.subject =
        total == 1 && !committedPaths.isEmpty
        ? "save \(committedPaths[0])"
        : "save \(counted(stamped.count, "note"))"
          + (removed.count + plain.count > 0
            ? " and \(counted(removed.count + plain.count, "other change"))" : "")
      return SaveResult(
        paths: committedPaths, notes: stamped, removed: removed, unstamped: unstamped,
        newIDs: newIDs.filter { !left.contains($0.path) },
        added: Set(changes.filter { $0.unstaged == .added || $0.staged == .added }.map(\.path))
          .intersection(committedPaths).sorted(),
        moved: moved, changedAgain: changedAgain)
    }
  }

  /// True when a save would commit nothing and refuse nothing, told from git's files as a clean status tells it:
  /// no journal to settle, nb's block already in `.gitignore`, no git operation, a branch checked out, no index
  /// lock, and a walk that finds nothing to commit. Then neither the lock nor libgit2 is needed (a scheduler or an
  /// editor's hook runs `nb save` far more often than there is something to save); any doubt is `false`, and the
  /// save runs as always. libgit2 is asked only what the walk cannot settle (an untracked file's ignore rules).
  ///
  /// `open`: the git this may need, when the caller's (``git``) is in use on another thread meanwhile; the walk
  /// then leaves the index as it is (the lock is that caller's). Without it, stat data the walk found stale are
  /// recorded in the index if the lock is free (``recordStaleStat(_:)``).
  func hasNothingToSave(_ options: SaveOptions, open: (() throws -> NoteHistory)? = nil) -> Bool {
    guard Journal.read(directory: journalDirectory).isEmpty else { return false }
    let ignore = absolute(".gitignore")
    guard let existing = FileSystem.exists(ignore) ? try? readText(".gitignore") : nil,
      Self.gitignore(adding: existing) == nil
    else { return false }
    let answers = GitFileAnswers(root: root, gitDirectory: gitDirectory, open: open ?? { try self.git })
    defer { answers.saveFacts() }
    guard let state = try? answers.state(), state.operation == nil, state.warnings.isEmpty,
      let scan = try? answers.scan()
    else { return false }
    if open == nil { recordStaleStat(answers) }
    return scan.changes.allSatisfy { AtomicFile.isTemporary($0.path) || options.leaveOut?($0.path) == true }
  }

  /// Has `answers` record the stat data its walk found stale (``GitFileAnswers/recordStaleStat()``) when the
  /// repository lock is free this instant: a command that only reads never waits for it, and must not take git's
  /// `index.lock` from under an nb that holds it (its write would fail).
  func recordStaleStat(_ answers: GitFileAnswers) {
    guard answers.hasStaleStat else { return }
    if heldLock != nil {
      answers.recordStaleStat()
      return
    }
    guard let lock = try? RepositoryLock(path: lockPath, timeout: 0, announces: false) else { return }
    withExtendedLifetime(lock) { answers.recordStaleStat() }
  }

  private func isHidden(_ path: String) -> Bool {
    path.split(separator: "/").contains { $0.hasPrefix(".") }
  }

  /// The deleted note a new file is a byte-for-byte move of, if it is one.
  private func unchangedMoveSource(
    path: String, text: String, deleted: [WorkTreeChange], head: String
  ) throws -> String? {
    guard !deleted.isEmpty, try git.file(at: path, in: head) == nil else { return nil }
    let bytes = Data(text.utf8)
    for candidate in deleted where RepoPaths.isNotePath(candidate.path) {
      if let file = try git.file(at: candidate.path, in: head), try git.read(file) == bytes {
        return candidate.path
      }
    }
    return nil
  }

  /// The branch, last commit, uncommitted changes and warnings.
  ///
  /// One walk of the work tree that trusts the index's stat data, as `git status` does, gives the changes and the
  /// listings the stray files are found in; the notes' own warnings (broken front matter, shared ids) come from
  /// the summary of the committed notes (``NoteSummary``) and the notes the walk found changed. When that walk
  /// cannot answer (something staged, conflicts), libgit2's status and a listing walk answer instead.
  ///
  /// With `noteWarnings: false` the notes' own warnings and the stray files are left out (`warnings` holds only
  /// git's and an interrupted operation's): what a status line or a page header needs, without reading every note
  /// the first time (five seconds at 100 000 notes before the notes' summary is kept).
  public func status(noteWarnings includeNotes: Bool = true) throws -> RepositoryStatus {
    // git's files answer a clean tree's status; libgit2 starts only for what they cannot settle.
    let answers = GitFileAnswers(root: root, gitDirectory: gitDirectory, open: { try self.git })
    defer { answers.saveFacts() }
    var strays = StrayCollector(attachmentFolders: hasAttachmentFolders)
    let scan = try answers.scan(onDirectory: includeNotes ? { strays.list($0, $1) } : nil)
    recordStaleStat(answers)
    let workTree = try scan?.changes ?? answers.changesWithoutWalk()
    var changes: [FileChange] = []
    for entry in workTree {
      // Repositories made by `nb init` ignore these; others may still show them to git.
      if AtomicFile.isTemporary(entry.path) { continue }
      if let staged = entry.staged { changes.append(FileChange(path: entry.path, kind: staged, staged: true)) }
      if let unstaged = entry.unstaged { changes.append(FileChange(path: entry.path, kind: unstaged, staged: false)) }
    }
    let (operation, gitWarnings) = try answers.state()
    var warnings = gitWarnings
    guard includeNotes else {
      if let operation = interruptedOperation() { warnings.append(Self.interruptedWarning(operation)) }
      return RepositoryStatus(
        branch: try answers.currentBranch(), operation: operation, head: try answers.headCommit()?.summary,
        changes: changes, warnings: warnings)
    }
    let noteWarnings: (notes: [String], duplicates: [String])
    let found: NoteScanner.Strays
    if let scan, let fromSummary = try self.noteWarnings(head: scan.head, changes: scan.changes) {
      noteWarnings = fromSummary
      found = strays.found
    } else {
      let scanned = scanner.notesAndStrays(in: "", recursive: true)
      var notes: [String: NoteSummary.Facts] = [:]
      for note in scanned.notes { notes[note.path] = NoteSummary.Facts(id: note.id, warning: note.warning) }
      noteWarnings = NoteSummary.warnings(notes).texts
      found = scanned.strays
    }
    warnings += noteWarnings.notes
    // Notes sharing an id confuse selectors, history and sync; save fixes a new copy, these two it cannot decide.
    warnings += noteWarnings.duplicates
    for path in found.temporaryFiles {
      warnings.append("\(path) is a partial write left by an interrupted nb; nb never commits it, delete it")
    }
    for path in found.orphanedInk {
      let note = String(path.dropLast(RepoPaths.inkSuffix.count)) + ".md"
      warnings.append(
        "\(path) is ink without a note (no \(note)); restore the note, or move the ink beside its note with the same name"
      )
    }
    if let operation = interruptedOperation() { warnings.append(Self.interruptedWarning(operation)) }
    return RepositoryStatus(
      branch: try answers.currentBranch(), operation: operation, head: try answers.headCommit()?.summary,
      changes: changes, warnings: warnings)
  }

  private static func interruptedWarning(_ operation: String) -> String {
    "\(operation) was interrupted and left its changes half done; the next nb command that takes the lock (e.g. 'nb save') rolls them back first, then run it again"
  }
}

extension NoteRepository {
  /// The notes' warnings: the committed notes' from their summary, with the notes the work tree changed read from
  /// the disk instead. nil when a note appeared or vanished beside its attachment folder, which changes whether
  /// the `.md` files in it are notes: a listing's walk answers that exactly.
  fileprivate func noteWarnings(head: String, changes: [WorkTreeChange]) throws -> (
    notes: [String], duplicates: [String]
  )? {
    let folders = hasAttachmentFolders
    let store = NoteSummary.Store(cacheDirectory: gitDirectory.appendingPathComponent("nb/cache").path)
    let touched = changes.filter { $0.path.hasSuffix(".md") }
    if touched.isEmpty, let kept = store.warnings(for: head, attachmentFolders: folders) { return kept.texts }
    let kept = try noteSummary(at: head, dirty: Set(changes.map(\.path)))
    if touched.isEmpty { return kept.warnings.texts }
    if folders,
      touched.contains(where: { change in
        (change.unstaged == .added || change.unstaged == .deleted)
          && FileSystem.lstatInfo(absolute(RepoPaths.attachmentFolder(of: change.path)))?.isDirectory == true
      })
    {
      return nil
    }
    let isNoteOnDisk = { (path: String) -> Bool in FileSystem.lstatInfo(self.absolute(path))?.isRegular == true }
    var overlay: [NoteSummary.Change] = []
    for path in Set(touched.map(\.path)) {
      guard FileSystem.lstatInfo(absolute(path))?.isRegular == true,
        NoteSummary.isNote(path, attachmentFolders: folders, isNote: isNoteOnDisk)
      else {
        overlay.append(NoteSummary.Change(path: path, facts: nil))
        continue
      }
      let note = NoteScanner.readNote(root: root.path, path: path)
      overlay.append(NoteSummary.Change(path: path, facts: NoteSummary.Facts(id: note.id, warning: note.warning)))
    }
    return NoteSummary.warnings(kept.warnings, in: kept.file, changing: overlay).texts
  }
}

/// The stray files `status` reports, picked out of the listings of the status walk by the rules of a listing's
/// walk (``NoteScanner``): in directories that are notebooks (no hidden component, not an attachment folder),
/// temporary files of killed nb processes and ink sidecars without their note.
struct StrayCollector {
  let attachmentFolders: Bool
  private var temporaryFiles: [String] = []
  private var orphanedInk: [String] = []
  /// Directories that are not notebooks, so neither is anything below them; sorted (a sorted array, not a Set:
  /// the first set of strings in a process makes the runtime scan every conformance record in the binary, and
  /// `nb status` needs no other).
  private var skipped = SortedStrings()

  init(attachmentFolders: Bool) {
    self.attachmentFolders = attachmentFolders
  }

  var found: NoteScanner.Strays {
    NoteScanner.Strays(temporaryFiles: temporaryFiles.sorted(), orphanedInk: orphanedInk.sorted())
  }

  /// Takes one directory's listing; a directory is listed before the directories in it. Called for every
  /// directory of the work tree, so it looks at bytes, and builds the set of the listing's notes only when an ink
  /// file or a `.files` folder needs it.
  mutating func list(_ directory: String, _ names: [String]) {
    if !directory.isEmpty {
      let bytes = directory.utf8
      let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
      let nameStart = slash.map { bytes.index(after: $0) } ?? bytes.startIndex
      let parent = slash.map { String(directory.utf8[..<$0])! } ?? ""
      if bytes[nameStart] == UInt8(ascii: ".") || skipped.contains(parent) {
        skipped.insert(directory)
        return
      }
    }
    var notes: Set<String>?
    for name in names {
      let first = name.utf8.first
      if first == UInt8(ascii: ".") {
        if AtomicFile.isTemporary(name) { temporaryFiles.append(RepoPaths.join(directory, name)) }
        continue
      }
      let isInk = Self.endsWith(name, RepoPaths.inkSuffix)
      let isFolder = attachmentFolders && Self.endsWith(name, RepoPaths.attachmentSuffix)
      guard isInk || isFolder else { continue }
      if notes == nil { notes = Set(names.filter { $0.hasSuffix(".md") && !$0.hasPrefix(".") }) }
      if isInk, !notes!.contains(String(name.dropLast(RepoPaths.inkSuffix.count)) + ".md") {
        orphanedInk.append(RepoPaths.join(directory, name))
      }
      if isFolder, let owner = RepoPaths.attachmentOwner(ofFolder: name), notes!.contains(owner) {
        skipped.insert(RepoPaths.join(directory, name))
      }
    }
  }

  /// Strings in byte order, inserted and looked up by binary search.
  struct SortedStrings {
    private var items: [String] = []

    private func position(_ item: String) -> Int {
      var low = 0
      var high = items.count
      while low < high {
        let middle = (low + high) / 2
        if items[middle].utf8.lexicographicallyPrecedes(item.utf8) { low = middle + 1 } else { high = middle }
      }
      return low
    }

    func contains(_ item: String) -> Bool {
      let at = position(item)
      return at < items.count && items[at] == item
    }

    mutating func insert(_ item: String) {
      let at = position(item)
      if at == items.count || items[at] != item { items.insert(item, at: at) }
    }
  }

  /// `hasSuffix` by bytes: String's compares by Unicode canonical equivalence, too slow for every file's name.
  private static func endsWith(_ name: String, _ suffix: String) -> Bool {
    let bytes = name.utf8
    let tail = suffix.utf8
    return bytes.count >= tail.count && bytes.suffix(tail.count).elementsEqual(tail)
  }
}

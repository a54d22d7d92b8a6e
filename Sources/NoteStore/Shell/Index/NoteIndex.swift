import CSQLiteShim
import Foundation
import GRDB
import LinkKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The search index: an SQLite database (FTS5 through GRDB) of every note's metadata and text, derived from the
/// work tree and git, at `.git/nb/index/notes.sqlite` (device-local, never committed).
///
/// Nothing in it is needed for correctness: deleted, truncated or overwritten, it is rebuilt by the next command,
/// which says so through ``NoteRepository/notice``. It is kept fresh three ways:
/// - nb's own commits update the rows of the paths they commit, in the same operation (``recordCommit``);
/// - commits made by other tools (git, a sync, a reset, a branch switch) are found by diffing the tree of the commit
///   the index reflects against HEAD's, so only the notes that changed are read again;
/// - uncommitted edits are found by a walk of the work tree that compares each `.md` file's stat data (size,
///   mtime, ctime, inode) with what the index recorded. A file modified within two seconds of being read is
///   "racy" (a second write in the same clock tick would not move its mtime): its row keeps a hash of the bytes it
///   was made from, and while the stat data still match, the file is read and hashed again to tell (a row made
///   from bytes that were not hashed is indexed again instead). While a watcher (`nb watch`) keeps a
///   ``ChangeJournal``, only the paths it recorded are compared instead.
///
/// Readers never wait for a writer (WAL); refreshes are `BEGIN IMMEDIATE` transactions that make the rows of the
/// paths they touch match the disk at that moment, so two processes refreshing at once agree. A full build is one
/// transaction: killed, it leaves the previous state (or none) and the `complete` marker unset, and the next
/// command builds again. When the index cannot be written (a read-only repository, a full disk) queries are
/// answered from the existing index with the notice "the index may be stale: …"; when there is none to answer
/// from, from one built in memory.
final class NoteIndex {
  /// Bumped whenever the schema or what is stored changes: an index of another version is rebuilt.
  static let schemaVersion = 4
  static let fileName = "notes.sqlite"
  /// Stat data this close to the time of reading cannot be trusted to change on the next write.
  static let racyNanoseconds: Int64 = 2_000_000_000

  /// `.git/nb/index`.
  let directory: String
  /// The database file.
  var path: String { directory + "/" + Self.fileName }
  /// Whether this repository has an index file (commands that never searched have none to keep current).
  var isPresent: Bool { FileSystem.exists(path) }

  private unowned let repository: NoteRepository
  private var queue: DatabaseQueue?
  /// A connection another thread is opening (``openInBackground()``), for the next ``opened()`` to take.
  private var opening: Concurrently<DatabaseQueue?>?
  /// The last commit recording started (``beginRecording(from:)``): while its outcome is untold, its thread may hold
  /// the write transaction of `queue`, and a query would wait for it forever.
  private weak var recording: PendingCommitRecord?
  private var inMemory = false
  /// Whether a (re)build should tell the user: quiet the very first time, when there was never an index.
  private var announceBuild = true
  /// Inside ``NoteRepository/withConsistentIndex(_:)``: how deep, and whether a whole refresh (every notebook,
  /// uncommitted edits too) was made since it began, so the queries after it need none.
  var snapshotDepth = 0
  var snapshotIsFresh = false
  /// How far this process read the change journal past the stored cursor finding nothing but answers, and the
  /// stored state that was then: a long-running reader (nb serve) would otherwise read the same answers again on
  /// every query until the lag justifies a write.
  private var readAhead: (stored: WatchState?, reached: WatchState)?

  init(repository: NoteRepository) {
    self.repository = repository
    self.directory = repository.gitDirectory.appendingPathComponent("nb/index").path
  }

  private var root: String { repository.root.path }
  /// Whether attachment folders are left out of the walk (format 2 and later).
  private var attachments: Bool { repository.hasAttachmentFolders }
  /// What the rows were built for, kept in meta `layout`: a change (a migration, a sync bringing one) rebuilds.
  private var layout: String { attachments ? "2" : "1" }

  private func notice(_ message: String) { repository.notice?(message) }

  // MARK: - Reading

  /// Runs `body` on an index brought up to date with the work tree and HEAD.
  ///
  /// `scope`: the notebook every row `body` reads lies in; then only that part of the work tree is walked for
  /// uncommitted edits (commits are brought in everywhere as always).
  ///
  /// `walking: false` brings in commits (a diff of trees, proportional to what they changed) but not uncommitted
  /// edits, which only a walk of the work tree finds (its cost grows with the repository): for a question a
  /// command asks before a commit of its own, where an edit no command has seen yet may be missed.
  func read<T>(scope: String? = nil, walking: Bool = true, _ body: (Database) throws -> T) throws -> T {
    for attempt in 0..<2 {
      do {
        return try ready(scope: scope, walking: walking).read(body)
      } catch let error as DatabaseError where Self.isDamage(error) && attempt == 0 && !inMemory {
        notice("the note index \(path) is damaged (\(Self.describe(error))); rebuilding it")
        discard()
      }
    }
    return try useMemory(reason: "it stays damaged after a rebuild").read(body)
  }

  /// Runs `body` in a write transaction on an index brought up to date (derived rows only: the inbox counts);
  /// `scope` as for ``read(scope:_:)``.
  func write<T>(scope: String? = nil, _ body: (Database) throws -> T) throws -> T {
    try ready(scope: scope).writeWithoutTransaction { db in
      try db.execute(sql: "BEGIN IMMEDIATE")
      do {
        let value = try body(db)
        try db.execute(sql: "COMMIT")
        return value
      } catch {
        try? db.execute(sql: "ROLLBACK")
        throw error
      }
    }
  }

  /// Rebuilds the index from scratch and reports what it holds.
  func rebuild() throws -> IndexReport {
    let start = Date()
    do {
      let queue = try opened()
      try build(queue, reason: nil, force: true)
    } catch let error as DatabaseError where Self.isDamage(error) && !inMemory {
      discard()
      try build(try opened(), reason: nil, force: true)
    }
    let notes = try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note") ?? 0 }
    let bytes = ["", "-wal", "-shm"].reduce(Int64(0)) { $0 + (FileSystem.lstatInfo(path + $1)?.size ?? 0) }
    return IndexReport(notes: notes, bytes: inMemory ? 0 : bytes, seconds: Date().timeIntervalSince(start))
  }

  /// The open connection, built and refreshed.
  private func ready(scope: String? = nil, walking: Bool = true) throws -> DatabaseQueue {
    let queue = try opened()
    if snapshotDepth > 0, snapshotIsFresh { return queue }
    do {
      try update(queue, scope: scope, walking: walking)
      if snapshotDepth > 0, scope == nil, walking { snapshotIsFresh = true }
    } catch let error as DatabaseError where Self.isDamage(error) {
      throw error
    } catch {
      if inMemory { throw error }
      if (try? queue.read({ try Self.state($0, layout: layout) }).usable) == true {
        notice("the index may be stale: \(Self.describe(error))")
        return queue
      }
      return try useMemory(reason: Self.describe(error))
    }
    return queue
  }

  /// Opens the database file, creating it (and its directory) when missing; a read-only connection when it cannot
  /// be written, an in-memory index when it cannot be opened at all.
  private func opened() throws -> DatabaseQueue {
    assert(recording?.isOpen != true, "the index was used while a commit's recording held it")
    if let queue { return queue }
    if let queue = takeBackgroundOpening() { return queue }
    if !FileSystem.exists(directory) { announceBuild = false }
    if let problem = Self.headerDamage(path) {
      notice("the note index \(path) is damaged (\(problem)); rebuilding it")
      announceBuild = false
      removeFiles()
    }
    do {
      try FileSystem.makeDirectory(directory)
      let queue = try DatabaseQueue(path: path, configuration: Self.configuration(readonly: false))
      self.queue = queue
      return queue
    } catch let error as DatabaseError where Self.isDamage(error) {
      throw error
    } catch {
      if FileSystem.exists(path),
        let queue = try? DatabaseQueue(path: path, configuration: Self.configuration(readonly: true))
      {
        self.queue = queue
        return queue
      }
      return try useMemory(reason: Self.describe(error))
    }
  }

  /// Starts opening the index file's connection on another thread, its schema read, for a caller that queries the
  /// index only after work of its own (`nb add` writes and flushes the note first): the few milliseconds of the
  /// open then pass during that work instead of after it. Only the plain case, an index file that looks whole, is
  /// opened there; anything else is left to ``opened()``, with its notices. A caller that may not query at all
  /// ends with ``finishOpeningInBackground()``.
  func openInBackground() {
    guard queue == nil, opening == nil, !inMemory, isPresent, Self.headerDamage(path) == nil else { return }
    let (path, layout) = (self.path, self.layout)
    opening = Concurrently {
      guard let queue = try? DatabaseQueue(path: path, configuration: Self.configuration(readonly: false)),
        (try? queue.read({ try Self.state($0, layout: layout) })) != nil
      else { return nil }
      return queue
    }
  }

  /// Waits for an open ``openInBackground()`` started, keeping the connection: no thread is left inside SQLite
  /// when the process exits.
  func finishOpeningInBackground() {
    _ = takeBackgroundOpening()
  }

  /// The connection ``openInBackground()`` opened, now this index's; nil when none was started or it failed.
  private func takeBackgroundOpening() -> DatabaseQueue? {
    guard let opening else { return nil }
    self.opening = nil
    guard let opened = opening.wait() else { return nil }
    if queue == nil { queue = opened }
    return queue
  }

  /// Switches this process to an index built in memory: always right, slower to build.
  private func useMemory(reason: String) throws -> DatabaseQueue {
    notice("the note index cannot be used (\(reason)); reading every note instead")
    queue = nil
    inMemory = true
    let queue = try DatabaseQueue(configuration: Self.configuration(readonly: false))
    self.queue = queue
    try build(queue, reason: nil, force: true)
    return queue
  }

  /// Closes the connection and deletes the files (a damaged index).
  private func discard() {
    queue = nil
    announceBuild = false
    removeFiles()
  }

  private func removeFiles() {
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileSystem.remove(path + suffix) }
  }

  /// How long a writer waits for another process's write (a full build of a large repository).
  static let busyTimeoutSeconds: Double = 120

  static func configuration(readonly: Bool) -> Configuration {
    var configuration = Configuration()
    configuration.readonly = readonly
    // Long enough for another process's full build of a large repository; readers never wait (WAL).
    configuration.busyMode = .timeout(busyTimeoutSeconds)
    configuration.foreignKeysEnabled = false
    configuration.prepareDatabase { db in
      db.add(tokenizer: IndexTokenizer.self)
      // WAL with NORMAL survives a process kill; a power cut may lose the last commits, which the next refresh
      // finds again.
      if !readonly {
        // Every process that opens the index first reads the whole log left by the last (its connections skip
        // the checkpoint on close, below): a short log keeps that read short. Once a commit leaves 128 pages
        // (512 KiB) in it, they go into the database and the log is emptied (see the shim for why SQLite's own
        // automatic checkpoint, which never empties it here, is not used).
        try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 1048576")
        nb_sqlite_truncate_log_after(db.sqliteConnection, 128, Int32(busyTimeoutSeconds * 1000))
        // A command's exit would otherwise checkpoint (and fsync) the log: about a millisecond on every save.
        _ = nb_sqlite_skip_checkpoint_on_close(db.sqliteConnection)
      }
    }
    return configuration
  }

  /// A file that cannot hold the database its header describes (cut short), described; nil when it looks whole.
  /// SQLite would only notice when a query reaches a missing page, possibly after returning partial results.
  static func headerDamage(_ path: String) -> String? {
    guard let info = FileSystem.lstatInfo(path), info.size > 0 else { return nil }
    guard info.size >= 100, let header = try? FileSystem.read(path, limit: 100) else { return "it is cut short" }
    let bytes = [UInt8](header)
    guard bytes.starts(with: Array("SQLite format 3\0".utf8)) else { return "it is not an SQLite database" }
    func uint32(_ at: Int) -> Int64 { bytes[at..<(at + 4)].reduce(Int64(0)) { $0 << 8 | Int64($1) } }
    var pageSize = Int64(bytes[16]) << 8 | Int64(bytes[17])
    if pageSize == 1 { pageSize = 65536 }
    // The page count is valid when the change counter matches the version-valid-for number.
    guard uint32(24) == uint32(92) else { return nil }
    return info.size < uint32(28) * pageSize ? "it is cut short" : nil
  }

  static func isDamage(_ error: DatabaseError) -> Bool {
    error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
  }

  static func describe(_ error: Error) -> String {
    if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
    return "\(error)"
  }

  // MARK: - Schema

  /// Whether the index can answer (right version, a completed build) and the commit it reflects.
  static func state(_ db: Database, layout: String) throws -> (usable: Bool, head: String?, problem: String) {
    let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
    if tables == 0 { return (false, nil, "the index is missing") }
    let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
    // A query of sqlite_master, not GRDB's `tableExists`: that loads the schema through record types and sets, four
    // generic conformances the runtime finds by scanning every conformance record in the binary, in every command
    // that opens the index.
    guard version == schemaVersion,
      try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'") == 1
    else {
      return (false, nil, "the index was made by another version of nb")
    }
    guard try meta(db, "complete") == "1" else { return (false, nil, "the last build of the index did not finish") }
    // An index built before this key existed was built as format 1 reads the tree.
    guard (try meta(db, "layout") ?? "1") == layout else {
      return (false, nil, "the repository's format changed (attachment folders are not notebooks from format 2 on)")
    }
    let head = try meta(db, "head")
    return (true, head?.isEmpty == false ? head : nil, "")
  }

  static func meta(_ db: Database, _ key: String) throws -> String? {
    try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
  }

  static func setMeta(_ db: Database, _ key: String, _ value: String?) throws {
    try db.execute(
      sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [key, value ?? ""])
  }

  /// Drops whatever is there (an older schema, a half build) and creates the current schema, empty.
  ///
  /// - `note`: one row per note file: where it is, its stat data (for the walk), what `Note` holds, dates as
  ///   seconds since 1970 (sortable) plus the written UTC offset, folded copies for case-insensitive filters.
  ///   `racy` is 0 when the stat data settle whether the file changed, else 1 or the hash of the bytes the row was
  ///   made from (``StatRow``). A note keeps its rowid while it keeps its path.
  /// - `tag`: one row per (note, tag), for tag filters and counts.
  /// - `field`: one row per value of every other front matter key, typed (text, number, instant), for filters on
  ///   keys nb gives no meaning (`due`, `priority`, `status`).
  /// - `task`: one row per task (a task note at line 0, every other note's checklist lines at their line), typed for
  ///   the task views; `reminder`: one row per reminder of a task (see `NoteIndex+Tasks.swift`).
  /// - `fts`: FTS5 over title, tags and body (the first ``IndexedDocument/bodyLimit`` bytes), rowid = note rowid,
  ///   tokenized by ``IndexTokenizer``; it keeps its text for `snippet()`.
  /// - `inbox_*`: the inbox classifier's counts (see `NoteIndex+Inbox.swift`).
  /// - `link`: one row per link a note holds, as written and keyed by the name it can reach; `file`: every file of the
  ///   work tree that is not a note (attachments), by name key (see `NoteIndex+Links.swift`).
  /// - `meta`: `complete` (`1` once a build finished), `head` (the commit the rows reflect), `watch` (the change
  ///   journal session and offset the rows reflect, `<session> <offset>`) and `watch_unanswered` (a request to the
  ///   watcher still unanswered, see ``ChangeJournal``).
  static func createSchema(_ db: Database) throws {
    // Virtual tables first: dropping one drops its shadow tables, which must not go before it.
    let tables = try String.fetchAll(
      db,
      sql: """
        SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
        ORDER BY sql LIKE 'CREATE VIRTUAL%' DESC
        """)
    for table in tables {
      try db.execute(sql: "DROP TABLE IF EXISTS \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\"")
    }
    for view in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'view'") {
      try db.execute(sql: "DROP VIEW IF EXISTS \"\(view.replacingOccurrences(of: "\"", with: "\"\""))\"")
    }
    try db.execute(
      sql: """
        CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE note(
          rowid INTEGER PRIMARY KEY,
          path TEXT NOT NULL UNIQUE,
          dir TEXT NOT NULL,
          name TEXT NOT NULL,
          path_folded TEXT NOT NULL,
          note_id TEXT,
          note_id_folded TEXT,
          title TEXT NOT NULL,
          title_folded TEXT NOT NULL,
          created REAL,
          created_offset INTEGER,
          updated REAL,
          updated_offset INTEGER,
          tags TEXT NOT NULL,
          aliases TEXT NOT NULL,
          conflict_of TEXT,
          warning TEXT,
          has_ink INTEGER NOT NULL,
          link_name TEXT NOT NULL,
          size INTEGER NOT NULL,
          mtime INTEGER NOT NULL,
          ctime INTEGER NOT NULL,
          inode INTEGER NOT NULL,
          racy INTEGER NOT NULL
        );
        CREATE INDEX note_dir ON note(dir, name);
        CREATE INDEX note_id ON note(note_id_folded);
        CREATE INDEX note_created ON note(created);
        CREATE INDEX note_updated ON note(updated);
        CREATE INDEX note_link_name ON note(link_name);
        CREATE TABLE tag(
          note INTEGER NOT NULL,
          tag TEXT NOT NULL,
          folded TEXT NOT NULL,
          PRIMARY KEY(folded, note)
        ) WITHOUT ROWID;
        CREATE INDEX tag_note ON tag(note);
        CREATE TABLE field(
          note INTEGER NOT NULL,
          key TEXT NOT NULL,
          text TEXT NOT NULL,
          folded TEXT NOT NULL,
          number REAL,
          instant REAL
        );
        CREATE INDEX field_note ON field(note);
        CREATE INDEX field_text ON field(key, folded);
        CREATE INDEX field_number ON field(key, number);
        CREATE INDEX field_instant ON field(key, instant);
        CREATE TABLE task(
          note INTEGER NOT NULL,
          line INTEGER NOT NULL,
          title TEXT NOT NULL,
          title_folded TEXT NOT NULL,
          status TEXT NOT NULL,
          closed INTEGER NOT NULL,
          priority INTEGER NOT NULL,
          priority_text TEXT NOT NULL,
          due_text TEXT,
          due_kind INTEGER,
          due_day INTEGER,
          due_at REAL,
          scheduled_text TEXT,
          scheduled_day INTEGER,
          completed_text TEXT,
          completed_day INTEGER,
          recurrence TEXT,
          anchor TEXT NOT NULL,
          instances TEXT NOT NULL,
          reminders TEXT NOT NULL,
          contexts TEXT NOT NULL,
          projects TEXT NOT NULL,
          tags TEXT NOT NULL,
          keys TEXT NOT NULL,
          location TEXT,
          subtasks_done INTEGER NOT NULL,
          subtasks_total INTEGER NOT NULL,
          warnings TEXT NOT NULL,
          PRIMARY KEY(note, line)
        ) WITHOUT ROWID;
        CREATE INDEX task_due ON task(closed, due_day);
        CREATE INDEX task_priority ON task(closed, priority);
        CREATE INDEX task_completed ON task(completed_day);
        CREATE TABLE reminder(
          note INTEGER NOT NULL,
          line INTEGER NOT NULL,
          text TEXT NOT NULL
        );
        CREATE INDEX reminder_note ON reminder(note, line);
        CREATE VIRTUAL TABLE fts USING fts5(title, tags, body, tokenize = '\(IndexTokenizer.name)');
        """)
    try db.execute(sql: inboxSchema)
    try db.execute(sql: linkSchema)
    try db.execute(sql: "PRAGMA user_version = \(schemaVersion)")
  }

  // MARK: - Building and refreshing

  /// Builds the whole index in one transaction, unless another process finished one while this one waited.
  private func build(_ queue: DatabaseQueue, reason: String?, force: Bool) throws {
    if let reason, announceBuild { notice("rebuilding the note index: \(reason)") }
    announceBuild = true
    let head = try repository.headCommit()
    // Before the walk: whatever the watcher records from here on is read by the next command.
    let journal = ChangeJournal.look(gitDirectory: repository.gitDirectory, cursor: nil, unanswered: nil)
    // WAL is a property of the file: set once here, not on every open (which costs each command a round trip).
    if !inMemory { try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") } }
    try Self.writing(queue, cacheKiB: Self.buildCacheKiB) { db in
      if !force, try Self.state(db, layout: layout).usable { return .commit }
      try Self.createSchema(db)
      var paths: [String] = []
      var others: [String] = []
      Self.walk(root: root, attachments: attachments) { directory, files, _, otherFiles in
        for file in files { paths.append(RepoPaths.join(directory, file.name)) }
        for name in otherFiles { others.append(RepoPaths.join(directory, name)) }
      }
      try syncAll(db, paths)
      for path in others { try Self.insertFile(db, path) }
      try Self.setMeta(db, "layout", layout)
      try Self.setMeta(db, "head", head)
      if let cursor = journal.cursor { try Self.setWatch(db, WatchState(cursor: cursor, unanswered: nil)) }
      try Self.setMeta(db, "complete", "1")
      return .commit
    }
    // A build writes the whole index to the log; left there, every later command would read all of it when it
    // opens the index (tens of milliseconds at 10 000 notes). Copied into the database and cut to nothing here,
    // once.
    if !inMemory { _ = try? queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }
  }

  /// Makes the rows of `paths` match the disk, with a progress line when there are many.
  private func syncAll(_ db: Database, _ paths: [String]) throws {
    let now = Self.nowNanoseconds()
    let report = paths.count >= 200 ? repository.progress : nil
    try Self.sync(db, root: root, paths: paths, now: now, attachments: attachments) { done in
      report?("Indexing notes", done, paths.count)
    }
    report?("Indexing notes", paths.count, paths.count)
  }

  /// Builds the index when it cannot answer, else brings it up to date with HEAD and the work tree.
  private func update(_ queue: DatabaseQueue, scope: String? = nil, walking: Bool = true) throws {
    let (state, watched) = try queue.read { db in
      let state = try Self.state(db, layout: layout)
      return (state, state.usable ? try Self.watch(db) : nil)
    }
    guard state.usable else { return try build(queue, reason: state.problem, force: false) }
    let head = try repository.headCommit()
    var forced = Set<String>()
    if state.head != head, let head {
      let git = try repository.git
      if let recorded = state.head, !git.hasCommit(recorded) {
        announceBuild = true
        return try build(
          queue, reason: "the commit it reflects (\(recorded.prefix(12))) no longer exists", force: true)
      }
      forced = try git.changedPaths(from: state.head, to: head)
    }
    Phases.mark("index: head/state")
    // Past the stored cursor, this process may already have read records that changed nothing (answers to
    // requests): start after them while the stored cursor is the one they followed.
    let from = readAhead.flatMap { $0.stored == watched ? $0.reached : nil } ?? watched
    let journal = ChangeJournal.look(
      gitDirectory: repository.gitDirectory, cursor: from?.cursor, unanswered: from?.unanswered)
    let (stale, settled) = try queue.read { db in
      switch journal.changes {
      case .everything where !walking:
        return try Self.stalePaths(
          db, root: root, attachments: attachments, forced: forced, files: [], directories: [])
      case .everything:
        return try Self.stalePaths(db, root: root, attachments: attachments, forced: forced, scope: scope)
      case .paths(let files, let directories):
        return try Self.stalePaths(
          db, root: root, attachments: attachments, forced: forced, files: files, directories: directories)
      }
    }
    Phases.mark("index: walk (\(stale.count) stale, \(settled.count) settled)")
    // Without a live watcher there is nothing to store (a cursor of a session that ended is never used again).
    // When the journal held nothing but answers to requests, the cursor stays where it was: reading a few more
    // lines next time costs less than a write transaction on every query.
    var watch = journal.cursor.map { WatchState(cursor: $0, unanswered: journal.unanswered) }
    readAhead = nil
    if let cursor = journal.cursor, let stored = watched?.cursor, cursor.session == stored.session,
      journal.changes != .everything, stale.isEmpty, state.head == head, journal.unanswered == watched?.unanswered,
      cursor.offset - stored.offset < Self.unreadJournalLimit
    {
      readAhead = (watched, WatchState(cursor: cursor, unanswered: journal.unanswered))
      watch = nil
    }
    if watch == watched { watch = nil }
    // Settling rows is a write of each; confirming them again a read of each file per walk. A few thousand are read
    // again (a rename's thousand would otherwise cost it a write of a thousand rows it is about to rewrite anyway)
    // and settled with the next write; more (a build of files written just before it) are settled now.
    let settles = settled.count >= Self.settleAlone
    guard !stale.isEmpty || settles || state.head != head || watch != nil else { return }
    try Self.writing(queue) { db in
      try syncAll(db, stale)
      let settle = try db.cachedStatement(sql: "UPDATE note SET racy = 0 WHERE path = ?")
      for path in settled { try settle.execute(arguments: [path]) }
      try Self.setMeta(db, "head", head)
      if let watch { try Self.setWatch(db, watch) }
      return .commit
    }
    Phases.mark("index: sync \(stale.count)")
  }

  /// Runs `body` in an immediate write transaction with a page cache of up to `cacheKiB` (64 MiB), then gives the
  /// memory back. A refresh of a thousand notes (a rename's rewrites) touches thousands of pages: with SQLite's
  /// default 2 MiB they were written to the log mid-transaction and read back again and again (38 800 page writes
  /// where 2 700 do). Only writes get it: a query keeps the small cache, and its memory.
  static func writing(
    _ queue: DatabaseQueue, cacheKiB: Int = 65_536, _ body: (Database) throws -> Database.TransactionCompletion
  ) throws {
    try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA cache_size = -\(cacheKiB)") }
    defer { try? queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA cache_size = -2000") } }
    try queue.inTransaction(.immediate, body)
  }

  /// The page cache of a recording beside a commit (``beginRecording(from:)``), in KiB.
  static let recordingCacheKiB = 8_192

  /// The page cache of a full build, in KiB. At 100 000 notes (a million links) a build peaked at 106 MiB with
  /// 64 MiB of cache, 71 with 32 (in 51 s instead of 49) and 55 with 16 (61 s).
  static let buildCacheKiB = 32_768

  /// From this many racy rows confirmed by their bytes on, a refresh writes them settled even when it writes nothing
  /// else.
  static let settleAlone = 4_096

  /// How far the stored journal cursor may lag behind when nothing else is written (see ``update(_:)``).
  static let unreadJournalLimit = 65_536

  /// The change journal's state the rows reflect (meta `watch` and `watch_unanswered`).
  struct WatchState: Equatable {
    var cursor: ChangeJournal.Cursor?
    var unanswered: String?
  }

  static func watch(_ db: Database) throws -> WatchState {
    let unanswered = try meta(db, "watch_unanswered")
    return WatchState(
      cursor: try meta(db, "watch").flatMap(ChangeJournal.Cursor.init),
      unanswered: unanswered?.isEmpty == false ? unanswered : nil)
  }

  static func setWatch(_ db: Database, _ watch: WatchState) throws {
    try setMeta(db, "watch", watch.cursor?.text)
    try setMeta(db, "watch_unanswered", watch.unanswered)
  }

  /// Updates the rows of the note files a commit nb is making touches (ink sidecars update their note's row), on
  /// another thread while the caller makes the commit: the rows are written in a transaction that waits for the
  /// commit's outcome (``PendingCommitRecord/finish(at:)`` moves the recorded commit along when the index reflected
  /// the commit before it; ``PendingCommitRecord/abandon()`` rolls the rows back). libgit2's commit and the index
  /// update each took about a third of a rename of a thousand linking notes at 100 000 notes, one after the other.
  /// Quietly does nothing when the index is missing, unusable or busy: it is derived data, and the next read
  /// repairs it. The files of `paths` must already be written.
  func beginRecordingCommit(paths: [String], from old: String?) -> PendingCommitRecord? {
    let pending = beginRecording(from: old, keepingBeforeOutcome: false)
    pending?.commitBegins(paths: paths)
    return pending
  }

  /// Starts recording a commit before its files are written: the rows of the notes handed to
  /// ``PendingCommitRecord/feed(_:)`` are made from their new bytes in memory while the caller writes them, and
  /// once ``PendingCommitRecord/commitBegins(paths:)`` says every file is in place, those rows get the files' stat
  /// data and every other path is recorded from disk, as ``beginRecordingCommit(paths:from:)`` does. A rename's
  /// thousand linking notes had their rows written only after the files were, the longest step of it.
  ///
  /// The rows are kept as soon as the files are in place, without waiting for the commit (writing a thousand
  /// notes' pages into the database took as long as the commit): they describe the files on disk, as any refresh's
  /// rows do, and only the commit the index reflects (meta `head`) waits for the outcome. If the commit fails, the
  /// rollback writes the old bytes back and the next walk finds those rows stale by their stat data, or by their
  /// bytes (rows recorded this soon after a write are racy, ``isRacy(_:now:)``); a kill in between leaves `head`
  /// behind HEAD, and the next refresh records the commit's paths again.
  ///
  /// Until the commit begins, this thread holds the index's write transaction: the caller must not touch the
  /// index (a read may write, and would wait for itself). A change the transaction makes after a feed other than
  /// another batch of written files must ``PendingCommitRecord/taint()`` the record: every path is then recorded
  /// from disk.
  func beginRecording(from old: String?) -> PendingCommitRecord? {
    beginRecording(from: old, keepingBeforeOutcome: true)
  }

  private func beginRecording(from old: String?, keepingBeforeOutcome: Bool) -> PendingCommitRecord? {
    guard isPresent else { return nil }
    let pending = PendingCommitRecord()
    recording = pending
    let existing = queue
    let (path, layout, root, attachments) = (self.path, self.layout, self.root, self.attachments)
    DispatchQueue.global(qos: .userInitiated).async {
      defer { pending.done.signal() }
      do {
        let queue: DatabaseQueue
        if let existing {
          queue = existing
        } else {
          var configuration = Self.configuration(readonly: false)
          // Another process mid-build holds the write lock for long: skip rather than slow the command down.
          configuration.busyMode = .timeout(0.5)
          queue = try DatabaseQueue(path: path, configuration: configuration)
        }
        var kept = false
        // It runs beside libgit2's commit, whose peak (the git index, patched and written anew) adds to this
        // cache's: a rename of a note with 1 000 backlinks at 100 000 notes peaked at 92-100 MiB with 64 MiB
        // allowed here, 81-83 with 8, in the same time (a third more page writes: rows spill to the log early).
        try Self.writing(queue, cacheKiB: Self.recordingCacheKiB) { db in
          let state = try Self.state(db, layout: layout)
          guard state.usable else { return .rollback }
          // The stat data are unknown until the files are in place: these rows get theirs below.
          var early: [String: (document: IndexedDocument, size: Int)] = [:]
          let unknown = FileSystem.Info(
            size: -1, modifiedNanoseconds: 0, inode: 0, isDirectory: false, isRegular: true, isSymlink: false)
          while let batch = pending.nextFeed() {
            let documents = batch.concurrentMap { IndexedDocument.parse(path: $0.path, data: $0.data) }
            for (file, document) in zip(batch, documents) {
              try Self.sync(
                db, root: root, path: file.path, now: 0, attachments: attachments,
                prepared: PreparedNote(info: unknown, document: document))
              early[file.path] = (document, file.data.count)
            }
          }
          guard let (paths, tainted) = pending.committed() else { return .rollback }
          // Every other file too: an attachment added, moved or deleted changes what links reach.
          let notePaths = Set(paths.compactMap(Self.notePath(for:))).union(paths.filter(Self.isOtherFile))
          let now = Self.nowNanoseconds()
          var fromDisk = tainted ? notePaths : notePaths.subtracting(early.keys)
          if !tainted { fromDisk.formUnion(try Self.stamp(db, root: root, early, now: now)) }
          try Self.sync(db, root: root, paths: fromDisk.sorted(), now: now, attachments: attachments)
          if keepingBeforeOutcome {
            kept = true
            return .commit
          }
          // Nothing is kept unless the commit landed: rows of files a failed commit's rollback puts back would
          // claim the new bytes.
          pending.decided.wait()
          guard let outcome = pending.outcome else { return .rollback }
          if state.head == old { try Self.setMeta(db, "head", outcome) }
          return .commit
        }
        guard kept else { return }
        pending.decided.wait()
        guard let outcome = pending.outcome else { return }
        try queue.inTransaction(.immediate) { db in
          if try Self.meta(db, "head") == old { try Self.setMeta(db, "head", outcome) }
          return .commit
        }
      } catch {
        return
      }
    }
    return pending
  }

  /// Gives the rows made from bytes in memory the stat data of their files, now in place; returns the paths whose
  /// file is not the one expected (gone, not a regular file, another size), to be recorded from disk.
  private static func stamp(
    _ db: Database, root: String, _ early: [String: (document: IndexedDocument, size: Int)], now: Int64
  ) throws -> [String] {
    let update = try db.cachedStatement(
      sql: "UPDATE note SET size = ?, mtime = ?, ctime = ?, inode = ?, racy = ? WHERE path = ?")
    var again: [String] = []
    for (path, written) in early {
      guard let info = FileSystem.lstatInfo(root + "/" + path), info.isRegular, info.size == written.size else {
        again.append(path)
        continue
      }
      // Racy as any row of a file just written: the next walk confirms it by its bytes.
      let racy = isRacy(info, now: now) ? racyMarker(written.document.contentHash) : 0
      try update.execute(arguments: [
        info.size, info.modifiedNanoseconds, info.changedNanoseconds, Int64(bitPattern: info.inode), racy, path,
      ])
    }
    return again
  }

  /// The note a committed path belongs to: itself for a note, the note beside it for an ink sidecar; nil for
  /// anything else (settings, attachments, files in dot-directories).
  static func notePath(for path: String) -> String? {
    guard !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { return nil }
    if path.hasSuffix(".md") { return path }
    if path.hasSuffix(RepoPaths.inkSuffix) { return String(path.dropLast(RepoPaths.inkSuffix.count)) + ".md" }
    return nil
  }

  static func nowNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }

  /// Walks the work tree as ``NoteScanner`` does: `*.md` regular files in every directory but dot-directories,
  /// dot-files skipped; `visit` gets each directory's notes with their stat data, its ink sidecars' stems and the
  /// names of its other regular files (attachments: what links may reach besides notes).
  /// With `attachments` (format 2), attachment folders hold no notes: they are walked for their other files only
  /// (``NoteScanner/notebookChildren``), every file in them, `.md` too, being an attachment.
  static func walk(
    root: String, attachments: Bool,
    _ visit: (
      _ directory: String, _ files: [(name: String, info: FileSystem.Info)], _ ink: Set<String>, _ others: [String]
    ) throws -> Void
  ) rethrows {
    try walk(root: root, under: [""], attachments: attachments, visit)
  }

  /// The walk of the subtrees `under` (relative directories; `""` is the whole tree) alone; a subtree that is or
  /// lies in an attachment folder is walked for its other files only.
  static func walk(
    root: String, under: [String], attachments: Bool,
    _ visit: (
      _ directory: String, _ files: [(name: String, info: FileSystem.Info)], _ ink: Set<String>, _ others: [String]
    ) throws -> Void
  ) rethrows {
    let start = under.map { ($0, attachments && isAttachment(root: root, $0 + "/-")) }
    // Each directory is compared as soon as it is listed: listing (mostly the kernel's stat calls, on other
    // threads) and comparing with the index (on this one, which owns the database connection) each took about a
    // third of a query at 100 000 notes, one after the other.
    final class Listing: @unchecked Sendable {
      let condition = NSCondition()
      var ready: [ListedDirectory] = []
      var finished = false
      var cancelled = false
    }
    let listing = Listing()
    DispatchQueue.global(qos: .userInitiated).async {
      listDirectories(
        root: root, under: start, attachments: attachments,
        isCancelled: {
          listing.condition.lock()
          defer { listing.condition.unlock() }
          return listing.cancelled
        }
      ) { found in
        listing.condition.lock()
        listing.ready.append(found)
        listing.condition.signal()
        listing.condition.unlock()
      }
      listing.condition.lock()
      listing.finished = true
      listing.condition.broadcast()
      listing.condition.unlock()
    }
    // Also when a visit throws: nothing of the walk outlives it.
    defer {
      listing.condition.lock()
      listing.cancelled = true
      while !listing.finished { listing.condition.wait() }
      listing.condition.unlock()
    }
    while true {
      listing.condition.lock()
      while listing.ready.isEmpty && !listing.finished { listing.condition.wait() }
      let batch = listing.ready
      listing.ready = []
      listing.condition.unlock()
      if batch.isEmpty { break }
      for found in batch { try visit(found.directory, found.files, found.ink, found.others) }
    }
  }

  /// Whether `path` lies in an attachment folder, judged from the disk (the note beside the folder must exist).
  static func isAttachment(root: String, _ path: String) -> Bool {
    RepoPaths.isInsideAttachmentFolder(path) { FileSystem.lstatInfo(root + "/" + $0)?.isRegular == true }
  }

  /// Whether a repository path names a file the `file` table keeps: not a note (an attachment, an ink sidecar, a
  /// PDF), and in no dot-directory and no dot-file (`.obsidian/`, `.gitignore` are no vault files).
  static func isOtherFile(_ path: String) -> Bool {
    !RepoPaths.isNotePath(path) && !isHidden(path)
  }

  /// Whether any component of `path` starts with a dot: nothing every walk skips is indexed.
  static func isHidden(_ path: String) -> Bool {
    path.split(separator: "/").contains { $0.hasPrefix(".") }
  }

  /// One directory as the walk found it.
  private struct ListedDirectory {
    var directory: String
    var files: [(name: String, info: FileSystem.Info)]
    var ink: Set<String>
    /// The regular files that are not notes (in an attachment folder: every regular file).
    var others: [String]
  }

  /// Lists every directory of the tree on up to four threads (the walk is most of what a query costs at 100 000
  /// notes, and most of that is the kernel's, which runs in parallel), handing each to `deliver` (on the thread
  /// that listed it) as soon as it is listed. Only the listing is parallel; callers compare with the index on one
  /// thread. `under` pairs each start with whether it is (in) an attachment folder. Stops early once `isCancelled`.
  private static func listDirectories(
    root: String, under: [(String, Bool)], attachments: Bool, isCancelled: @escaping @Sendable () -> Bool,
    deliver: @escaping @Sendable (ListedDirectory) -> Void
  ) {
    final class Work: @unchecked Sendable {
      let lock = NSLock()
      var pending: [(directory: String, attachment: Bool)] = []
      var busy = 0
    }
    let work = Work()
    work.pending = under.map { (directory: $0.0, attachment: $0.1) }
    let workers = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      while true {
        work.lock.lock()
        if isCancelled() { work.pending = [] }
        guard let (directory, attachment) = work.pending.popLast() else {
          let done = work.busy == 0
          work.lock.unlock()
          // Another worker may still find subdirectories: wait for them, or for the tree to be done.
          if done { break }
          usleep(50)
          continue
        }
        work.busy += 1
        work.lock.unlock()
        let full = directory.isEmpty ? root : root + "/" + directory
        var files: [(name: String, info: FileSystem.Info)] = []
        var ink = Set<String>()
        var others: [String] = []
        var children: [String] = []
        let listed = FileSystem.entries(of: full) { !attachment && $0.isRegular && $0.name.hasSuffix(".md") }
        for (entry, info) in listed where !entry.name.hasPrefix(".") {
          if entry.isDirectory {
            children.append(RepoPaths.join(directory, entry.name))
          } else if entry.isRegular {
            if entry.name.hasSuffix(".md"), !attachment {
              if let info { files.append((entry.name, info)) }
              continue
            }
            if entry.name.hasSuffix(RepoPaths.inkSuffix), !attachment {
              ink.insert(String(entry.name.dropLast(RepoPaths.inkSuffix.count)))
            }
            others.append(entry.name)
          }
        }
        deliver(ListedDirectory(directory: directory, files: files, ink: ink, others: others))
        var next = children.map { (directory: $0, attachment: attachment) }
        if !attachment, attachments {
          let notebooks = Set(
            NoteScanner.notebookChildren(
              children.map { RepoPaths.lastComponent(of: $0) }, of: directory, noteNames: Set(files.map(\.name)),
              attachmentFolders: attachments
            ).map { RepoPaths.join(directory, $0) })
          next = children.map { (directory: $0, attachment: !notebooks.contains($0)) }
        }
        work.lock.lock()
        work.pending += next
        work.busy -= 1
        work.lock.unlock()
      }
    }
  }

  /// The paths whose rows may not match the disk: files whose stat data or ink differ from the row, racy rows
  /// whose file's bytes are not the ones the row was made from, `forced` paths (changed between two commits), new
  /// files, and rows whose file is gone; for other files (attachments), only whether they exist. `settled`: racy
  /// rows confirmed by their bytes whose stat data can be trusted from now on (``confirm(_:root:)``).
  ///
  /// With a `scope` (a notebook), only its subtree is walked: rows elsewhere are left as they are (the next
  /// unscoped query checks them), except `forced` paths, which are stale wherever they are.
  static func stalePaths(
    _ db: Database, root: String, attachments: Bool, forced: Set<String>, scope: String? = nil
  ) throws -> (stale: [String], settled: [String]) {
    var stale: [String] = []
    var confirming: [RacyRow] = []
    var indexedDirectories = Set(try String.fetchAll(db, sql: "SELECT DISTINCT dir FROM note"))
    var fileDirectories = Set(try String.fetchAll(db, sql: "SELECT DISTINCT dir FROM file"))
    func inScope(_ directory: String) -> Bool {
      guard let scope else { return true }
      return directory == scope || directory.hasPrefix(scope + "/")
    }
    if let scope {
      indexedDirectories = indexedDirectories.filter(inScope)
      fileDirectories = fileDirectories.filter(inScope)
      stale += forced.filter { !($0 == scope || $0.hasPrefix(scope + "/")) && RepoPaths.isNotePath($0) }
    }
    // An attachment a commit brought or took away, wherever it is (cheap: a lookup each).
    stale += forced.filter { isOtherFile($0) && !inScope(RepoPaths.directory(of: $0)) }
    let rowsOfDirectory = try db.cachedStatement(
      sql: "SELECT name, size, mtime, ctime, inode, racy, has_ink FROM note WHERE dir = ?")
    let filesOfDirectory = try db.cachedStatement(sql: "SELECT path FROM file WHERE dir = ?")
    try walk(root: root, under: [scope ?? ""], attachments: attachments) { directory, files, ink, others in
      var rows: [String: StatRow] = [:]
      if indexedDirectories.remove(directory) != nil {
        let cursor = try Row.fetchCursor(rowsOfDirectory, arguments: [directory])
        while let row = try cursor.next() {
          rows[row[0]] = StatRow(
            size: row[1], mtime: row[2], ctime: row[3], inode: row[4], racy: row[5], hasInk: row[6] != 0)
        }
      }
      for (name, info) in files {
        let path = RepoPaths.join(directory, name)
        if let row = rows.removeValue(forKey: name), !forced.contains(path),
          row.stands(for: info, hasInk: ink.contains(String(name.dropLast(3))), path: path, confirming: &confirming)
        {
          continue
        }
        stale.append(path)
      }
      for name in rows.keys { stale.append(RepoPaths.join(directory, name)) }
      var known = Set<String>()
      if fileDirectories.remove(directory) != nil {
        known = Set(try String.fetchAll(filesOfDirectory, arguments: [directory]))
      }
      for name in others {
        let path = RepoPaths.join(directory, name)
        if known.remove(path) == nil { stale.append(path) }
      }
      stale += known
    }
    for directory in indexedDirectories {
      stale += try String.fetchAll(db, sql: "SELECT path FROM note WHERE dir = ?", arguments: [directory])
    }
    for directory in fileDirectories { stale += try String.fetchAll(filesOfDirectory, arguments: [directory]) }
    let confirmed = confirm(confirming, root: root)
    return (stale + confirmed.stale, confirmed.settled)
  }

  /// The paths whose rows may not match the disk, judged from a change journal's records instead of a walk of the
  /// whole tree: each recorded note (an ink sidecar stands for its note) compared as the walk compares it, every
  /// note under a recorded directory (those subtrees are walked; their rows whose files are gone are stale too),
  /// and `forced` paths. A recorded path that is neither a note nor a sidecar is treated as a directory as well,
  /// in case the watcher could not tell (checking an attachment that way costs a failed open and one lookup).
  /// Racy rows elsewhere are not read again: a second write in the same clock tick is an event the watcher
  /// records like any other. Other files (attachments) recorded or under a recorded directory are stale when
  /// their existence differs from their row's.
  static func stalePaths(
    _ db: Database, root: String, attachments: Bool, forced: Set<String>, files: Set<String>,
    directories: Set<String>
  ) throws -> (stale: [String], settled: [String]) {
    var confirming: [RacyRow] = []
    var notes = Set<String>()
    var subtrees = Set<String>()
    var others = Set<String>()
    for path in files where !isHidden(path) {
      if let note = notePath(for: path) { notes.insert(note) } else { subtrees.insert(path) }
      if isOtherFile(path) { others.insert(path) }
    }
    for path in directories where !isHidden(path) {
      subtrees.insert(path)
      // A note replaced by a directory of the same name.
      if RepoPaths.isNotePath(path) { notes.insert(path) }
    }
    // A directory inside another recorded one is walked with it.
    func underAnother(_ path: String) -> Bool {
      var path = Substring(path)
      while let slash = path.lastIndex(of: "/") {
        path = path[..<slash]
        if subtrees.contains(String(path)) { return true }
      }
      return false
    }
    let tops = subtrees.filter { !underAnother($0) }.sorted()
    var stale = Set(forced.compactMap(notePath(for:))).union(forced.filter(isOtherFile))
    if !tops.isEmpty {
      var rows: [String: StatRow] = [:]
      var known = Set<String>()
      let rowsUnder = try db.cachedStatement(
        sql: """
          SELECT path, size, mtime, ctime, inode, racy, has_ink FROM note
          WHERE dir = ? OR (dir >= ? AND dir < ?)
          """)
      let filesUnder = try db.cachedStatement(sql: "SELECT path FROM file WHERE dir = ? OR (dir >= ? AND dir < ?)")
      for top in tops {
        // Directories below `top` sort between `top/` and `top0` ("0" follows "/").
        let cursor = try Row.fetchCursor(rowsUnder, arguments: [top, top + "/", top + "0"])
        while let row = try cursor.next() {
          rows[row[0]] = StatRow(
            size: row[1], mtime: row[2], ctime: row[3], inode: row[4], racy: row[5], hasInk: row[6] != 0)
        }
        known.formUnion(try String.fetchAll(filesUnder, arguments: [top, top + "/", top + "0"]))
      }
      walk(root: root, under: tops, attachments: attachments) { directory, files, ink, otherFiles in
        for (name, info) in files {
          let path = RepoPaths.join(directory, name)
          if let row = rows.removeValue(forKey: path),
            row.stands(for: info, hasInk: ink.contains(String(name.dropLast(3))), path: path, confirming: &confirming)
          {
            continue
          }
          stale.insert(path)
        }
        for name in otherFiles {
          let path = RepoPaths.join(directory, name)
          if known.remove(path) == nil { stale.insert(path) }
        }
      }
      stale.formUnion(rows.keys)
      stale.formUnion(known)
    }
    let fileRow = try db.cachedStatement(sql: "SELECT 1 FROM file WHERE path = ?")
    for path in others where !stale.contains(path) {
      let exists = FileSystem.lstatInfo(root + "/" + path)?.isRegular == true
      if exists != (try Bool.fetchOne(fileRow, arguments: [path]) ?? false) { stale.insert(path) }
    }
    let rowOfPath = try db.cachedStatement(
      sql: "SELECT size, mtime, ctime, inode, racy, has_ink FROM note WHERE path = ?")
    for path in notes where !stale.contains(path) {
      let info = FileSystem.lstatInfo(root + "/" + path)
      let row = try Row.fetchOne(rowOfPath, arguments: [path]).map { row in
        StatRow(size: row[0], mtime: row[1], ctime: row[2], inode: row[3], racy: row[4], hasInk: row[5] != 0)
      }
      if let info, info.isRegular {
        if let row {
          let ink = FileSystem.lstatInfo(root + "/" + String(path.dropLast(3)) + RepoPaths.inkSuffix)
          if row.stands(for: info, hasInk: ink?.isRegular == true, path: path, confirming: &confirming) { continue }
        }
      } else if row == nil {
        continue
      }
      stale.insert(path)
    }
    let confirmed = confirm(confirming, root: root)
    stale.formUnion(confirmed.stale)
    return (stale.sorted(), confirmed.settled)
  }

  /// What the walk compares: a row that is not racy and equals the file's is up to date.
  private struct StatRow {
    var size: Int64
    var mtime: Int64
    var ctime: Int64
    var inode: Int64
    /// The `racy` column: 0 when the stat data settle whether the file changed; else the row was recorded so soon
    /// after the file's last change that another write in the same clock tick could leave them equal — 1 when
    /// only reading the file again can tell, any other value the ``Journal/contentHash(_:)`` of the bytes the row
    /// was made from (``racyMarker(_:)``), which the file must still hash to.
    var racy: Int64
    var hasInk: Bool

    init(size: Int64, mtime: Int64, ctime: Int64, inode: Int64, racy: Int64, hasInk: Bool) {
      (self.size, self.mtime, self.ctime, self.inode, self.racy, self.hasInk) = (
        size, mtime, ctime, inode, racy, hasInk
      )
    }

    init(_ info: FileSystem.Info, hasInk: Bool) {
      self.init(
        size: info.size, mtime: info.modifiedNanoseconds, ctime: info.changedNanoseconds,
        inode: Int64(bitPattern: info.inode), racy: 0, hasInk: hasInk)
    }

    /// Whether this row can stand for the file at `path` whose stat data are `info`: when they settle it, or when
    /// they match but only the file's bytes can tell — then it is queued in `confirming`, and
    /// ``confirm(_:root:)`` has the last word.
    func stands(for info: FileSystem.Info, hasInk: Bool, path: String, confirming: inout [RacyRow]) -> Bool {
      let file = StatRow(info, hasInk: hasInk)
      guard size == file.size, mtime == file.mtime, ctime == file.ctime, inode == file.inode, self.hasInk == hasInk
      else { return false }
      switch racy {
      case 0: return true
      case 1: return false
      default:
        confirming.append(RacyRow(path: path, hash: UInt64(bitPattern: racy), info: info))
        return true
      }
    }
  }

  /// A racy row whose stat data matched its file's during a walk.
  private struct RacyRow {
    var path: String
    var hash: UInt64
    var info: FileSystem.Info
  }

  /// Whether a file with stat data `info` changed so recently (`now`) that another write in the same clock tick
  /// could leave them equal. Only a time close to now is racy: a file whose mtime is far in the future (clock skew,
  /// an unpacked archive) gets the then-current time on its next write, which differs, so it must not be re-read on
  /// every command.
  static func isRacy(_ info: FileSystem.Info, now: Int64) -> Bool {
    abs(info.modifiedNanoseconds - now) < racyNanoseconds || abs(info.changedNanoseconds - now) < racyNanoseconds
  }

  /// The `racy` column's value for a row made from bytes hashing to `hash` (nil: not read whole).
  static func racyMarker(_ hash: UInt64?) -> Int64 {
    guard let hash else { return 1 }
    let marker = Int64(bitPattern: hash)
    // 0 and 1 mean something else; such a hash is read again instead (one file in 2^63).
    return marker == 0 || marker == 1 ? 1 : marker
  }

  /// Reads the files of racy rows whose stat data matched and hashes their bytes: those that differ from what the
  /// row was made from are stale. Re-indexing them would cost far more: a command that rewrote a thousand notes
  /// left a thousand racy rows, and the next command (run within the same second or not) read them all again into
  /// the index. `settled` are the confirmed rows whose file last changed long enough ago that its next write must
  /// change its stat data: they can be trusted by stat data alone from now on.
  private static func confirm(_ rows: [RacyRow], root: String) -> (stale: [String], settled: [String]) {
    guard !rows.isEmpty else { return ([], []) }
    let now = nowNanoseconds()
    // The bytes IndexedDocument reads: a file as long as that limit was never hashed whole.
    let limit = IndexedDocument.bodyLimit + NoteScanner.headBytes
    var stale: [String] = []
    var settled: [String] = []
    for row in rows {
      guard let data = try? FileSystem.read(root + "/" + row.path, limit: limit), data.count < limit,
        Journal.contentHash(data) == row.hash
      else {
        stale.append(row.path)
        continue
      }
      if !isRacy(row.info, now: now) { settled.append(row.path) }
    }
    return (stale, settled)
  }

  /// The columns of `note` that ``sync(_:root:path:now:attachments:)`` writes, in the order it writes them.
  static let noteRowColumns = [
    "path", "dir", "name", "path_folded", "note_id", "note_id_folded", "title", "title_folded", "created",
    "created_offset", "updated", "updated_offset", "tags", "aliases", "conflict_of", "warning", "has_ink", "link_name",
    "size", "mtime", "ctime", "inode", "racy",
  ]

  /// Makes the rows of `path` match the file on disk now: made or brought up to date when it is a note, removed
  /// when it is gone; a file that is no note (an attachment, or anything in an attachment folder) gets its `file`
  /// row.
  ///
  /// A note that already has rows keeps its rowid, and only the values that differ are written: every index entry
  /// written costs a page of the database's log, and a note whose links were rewritten (a rename's thousand) changes
  /// one link and its text, not its ten links, its path or its dates. Deleting and inserting it again wrote each
  /// index entry of each of its rows, three times the pages for the same result.
  ///
  /// `prepared`: the file's stat data and document as ``prepare(root:paths:)`` read them just before, instead of
  /// reading them here.
  static func sync(
    _ db: Database, root: String, path: String, now: Int64, attachments: Bool, prepared: PreparedNote? = nil
  ) throws {
    let existing = try Int64.fetchOne(
      db.cachedStatement(sql: "SELECT rowid FROM note WHERE path = ?"), arguments: [path])
    try db.cachedStatement(sql: "DELETE FROM file WHERE path = ?").execute(arguments: [path])
    let info = prepared?.info ?? (isHidden(path) ? nil : FileSystem.lstatInfo(root + "/" + path))
    guard let info, info.isRegular, RepoPaths.isNotePath(path), !(attachments && isAttachment(root: root, path)) else {
      if let existing { try deleteNote(db, rowid: existing) }
      if let info, info.isRegular { try insertFile(db, path) }
      return
    }
    let document = prepared?.document ?? IndexedDocument.read(root: root, path: path)
    let note = document.note
    let hasInk = FileSystem.lstatInfo(root + "/" + String(path.dropLast(3)) + RepoPaths.inkSuffix)?.isRegular == true
    // Recorded with the bytes' hash, a racy row costs the next command a read of the file, not a re-index.
    let racy = isRacy(info, now: now) ? racyMarker(document.contentHash) : 0
    let dir = RepoPaths.directory(of: path)
    let values: [(any DatabaseValueConvertible)?] = [
      path, dir, RepoPaths.lastComponent(of: path), path.lowercased(), note.id,
      note.id?.lowercased(), note.title, fold(note.title), note.created?.date.timeIntervalSince1970,
      note.created?.offsetSeconds, note.updated?.date.timeIntervalSince1970, note.updated?.offsetSeconds,
      joined(note.tags), joined(note.aliases), note.conflictOf, note.warning, hasInk, LinkResolver.nameKey(path: path),
      info.size, info.modifiedNanoseconds, info.changedNanoseconds, Int64(bitPattern: info.inode), racy,
    ]
    let noteValues = values.map { $0?.databaseValue ?? .null }
    let text = [note.title, note.tags.joined(separator: " "), document.body].map(\.databaseValue)
    let countedText: () -> String = { inboxText(title: note.title, tags: note.tags, body: document.body) }
    guard let rowid = existing else {
      let columns = noteRowColumns.joined(separator: ", ")
      let marks = Array(repeating: "?", count: noteRowColumns.count).joined(separator: ", ")
      try db.cachedStatement(sql: "INSERT INTO note(\(columns)) VALUES (\(marks))")
        .execute(arguments: StatementArguments(noteValues))
      let rowid = db.lastInsertedRowID
      try db.cachedStatement(sql: "INSERT INTO fts(rowid, title, tags, body) VALUES (?, ?, ?, ?)").execute(
        arguments: StatementArguments([rowid.databaseValue] + text))
      try countForInbox(db, dir: dir, text: countedText())
      try insertTags(db, rowid: rowid, note.tags)
      try insertFields(db, rowid: rowid, document.fields)
      try insertTasks(db, rowid: rowid, document.tasks)
      try insertLinks(db, rowid: rowid, document.links)
      return
    }

    let oldNote = try Row.fetchOne(
      db.cachedStatement(sql: "SELECT \(noteRowColumns.joined(separator: ", ")) FROM note WHERE rowid = ?"),
      arguments: [rowid]
    ).map { Array($0.databaseValues) }
    let oldText = try Row.fetchOne(
      db.cachedStatement(sql: "SELECT title, tags, body FROM fts WHERE rowid = ?"), arguments: [rowid]
    ).map { Array($0.databaseValues) }
    let textChanged: Bool = oldText != text
    // The inbox counts follow the note's words and notebook; counted out before its rows change.
    let dirIndex = noteRowColumns.firstIndex(of: "dir")!
    let recount: Bool = textChanged || oldNote?[dirIndex] != noteValues[dirIndex]
    if recount { try uncountForInbox(db, rowid: rowid) }
    try updateChanged(
      db, table: "note", key: "rowid = ?", keyValues: [rowid.databaseValue], columns: noteRowColumns,
      old: oldNote, new: noteValues)
    if textChanged {
      if oldText == nil {
        try db.cachedStatement(sql: "INSERT INTO fts(rowid, title, tags, body) VALUES (?, ?, ?, ?)").execute(
          arguments: StatementArguments([rowid.databaseValue] + text))
      } else {
        try db.cachedStatement(sql: "UPDATE fts SET title = ?, tags = ?, body = ? WHERE rowid = ?").execute(
          arguments: StatementArguments(text + [rowid.databaseValue]))
      }
    }
    if recount { try countForInbox(db, dir: dir, text: countedText()) }
    // Tags follow from the `tags` column, which holds them all.
    let tagsIndex = noteRowColumns.firstIndex(of: "tags")!
    let tagsChanged: Bool = oldNote?[tagsIndex] != noteValues[tagsIndex]
    if tagsChanged {
      try db.cachedStatement(sql: "DELETE FROM tag WHERE note = ?").execute(arguments: [rowid])
      try insertTags(db, rowid: rowid, note.tags)
    }
    let oldFields = try Row.fetchAll(
      db.cachedStatement(sql: "SELECT key, text, folded, number, instant FROM field WHERE note = ? ORDER BY rowid"),
      arguments: [rowid]
    ).map { Array($0.databaseValues) }
    let fieldsChanged: Bool = oldFields != document.fields.map(fieldValues)
    if fieldsChanged {
      try db.cachedStatement(sql: "DELETE FROM field WHERE note = ?").execute(arguments: [rowid])
      try insertFields(db, rowid: rowid, document.fields)
    }
    // Tasks are few and seldom in a note: written again whole (no row: nothing written).
    try db.cachedStatement(sql: "DELETE FROM task WHERE note = ?").execute(arguments: [rowid])
    try db.cachedStatement(sql: "DELETE FROM reminder WHERE note = ?").execute(arguments: [rowid])
    try insertTasks(db, rowid: rowid, document.tasks)
    try updateLinks(db, rowid: rowid, document.links)
  }

  /// ``sync(_:root:path:now:attachments:prepared:)`` for each of `paths`, their files read and parsed ahead on every
  /// core, a slice at a time (a build's hundred thousand documents are never all held at once); `progress` gets the
  /// number done before each slice.
  static func sync(
    _ db: Database, root: String, paths: [String], now: Int64, attachments: Bool, progress: (Int) -> Void = { _ in }
  ) throws {
    for start in stride(from: 0, to: paths.count, by: 256) {
      progress(start)
      let slice = Array(paths[start..<min(paths.count, start + 256)])
      for (path, prepared) in zip(slice, prepare(root: root, paths: slice)) {
        try sync(db, root: root, path: path, now: now, attachments: attachments, prepared: prepared)
      }
    }
  }

  /// A note file's stat data and its document, read together (the stat data first, as ``sync`` reads them: a write
  /// in between leaves a row whose stat data are newer than its text, which the next walk finds stale or racy).
  struct PreparedNote {
    var info: FileSystem.Info
    var document: IndexedDocument
  }

  /// The notes among `paths` (regular `.md` files outside dot-directories) read and parsed on every core: parsing a
  /// rename's thousand rewritten notes was a fifth of its index update, done one after the other while the
  /// database waited. nil for every other path, which ``sync`` looks at itself.
  static func prepare(root: String, paths: [String]) -> [PreparedNote?] {
    paths.concurrentMap { path -> PreparedNote? in
      guard RepoPaths.isNotePath(path), !isHidden(path), let info = FileSystem.lstatInfo(root + "/" + path),
        info.isRegular
      else { return nil }
      return PreparedNote(info: info, document: IndexedDocument.read(root: root, path: path))
    }
  }

  /// Removes every row of the note `rowid`.
  static func deleteNote(_ db: Database, rowid: Int64) throws {
    try uncountForInbox(db, rowid: rowid)
    for table in [
      "fts WHERE rowid", "tag WHERE note", "field WHERE note", "task WHERE note", "reminder WHERE note",
      "link WHERE note", "note WHERE rowid",
    ] {
      try db.cachedStatement(sql: "DELETE FROM \(table) = ?").execute(arguments: [rowid])
    }
  }

  /// Sets the columns of one row whose value in `new` differs from `old` (nil: unknown, all are set), leaving the
  /// others and the index entries over them untouched: SQLite rewrites an index entry whenever its column is set,
  /// to the same value or not.
  static func updateChanged(
    _ db: Database, table: String, key: String, keyValues: [DatabaseValue], columns: [String], old: [DatabaseValue]?,
    new: [DatabaseValue]
  ) throws {
    var assignments: [String] = []
    var arguments: [DatabaseValue] = []
    for (index, column) in columns.enumerated() {
      let changed: Bool = old?[index] != new[index]
      guard changed else { continue }
      assignments.append("\(column) = ?")
      arguments.append(new[index])
    }
    guard !assignments.isEmpty else { return }
    try db.cachedStatement(sql: "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(key)").execute(
      arguments: StatementArguments(arguments + keyValues))
  }

  static func insertTags(_ db: Database, rowid: Int64, _ tags: [String]) throws {
    let insertTag = try db.cachedStatement(sql: "INSERT OR IGNORE INTO tag(note, tag, folded) VALUES (?, ?, ?)")
    for tag in tags { try insertTag.execute(arguments: [rowid, tag, NoteRepository.tagKey(tag)]) }
  }

  /// A field row's values after its note's rowid, as `field` stores them.
  static func fieldValues(_ field: FrontMatterField) -> [DatabaseValue] {
    [
      field.key.databaseValue, field.text.databaseValue, fold(field.text).databaseValue, field.number.databaseValue,
      field.instant?.timeIntervalSince1970.databaseValue ?? .null,
    ]
  }

  static func insertFields(_ db: Database, rowid: Int64, _ fields: [FrontMatterField]) throws {
    let insertField = try db.cachedStatement(
      sql: "INSERT INTO field(note, key, text, folded, number, instant) VALUES (?, ?, ?, ?, ?, ?)")
    for field in fields {
      try insertField.execute(arguments: StatementArguments([rowid.databaseValue] + fieldValues(field)))
    }
  }

  /// The case-insensitive form titles sort by and values compare by. The standard library's, not Foundation's
  /// `folding(options:locale:)`, whose first use loads locale data and costs a command milliseconds.
  static func fold(_ text: String) -> String {
    text.lowercased()
  }

  /// List items in one column, separated by U+001F (which no tag or alias holds).
  static func joined(_ items: [String]) -> String { items.joined(separator: "\u{1F}") }

  static func split(_ text: String) -> [String] {
    text.isEmpty ? [] : text.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
  }
}

/// An index update running beside the commit it records (``NoteIndex/beginRecordingCommit(paths:from:)``,
/// ``NoteIndex/beginRecording(from:)``): told the commit's outcome exactly once, by ``finish(at:)`` or
/// ``abandon()``, each of which waits for the update (a second call does nothing).
final class PendingCommitRecord: @unchecked Sendable {
  fileprivate let decided = DispatchSemaphore(value: 0)
  fileprivate let done = DispatchSemaphore(value: 0)
  /// Written before `decided` is signalled, read after it is waited for: the commit now at HEAD (nil: abandoned,
  /// or a commit into nothing), in its `.some` wrapper when the rows are to be kept.
  fileprivate var outcome: String??

  /// Guards the fields below, between the caller's thread and the recording one.
  private let condition = NSCondition()
  private var feeds: [[(path: String, data: Data)]] = []
  private var paths: [String]?
  private var tainted = false
  private var abandoned = false
  private var told = false

  /// Whether the outcome is still to be told: the recording thread may hold the index's write transaction.
  var isOpen: Bool {
    condition.lock()
    defer { condition.unlock() }
    return !told
  }

  /// Notes about to be written with these bytes (whole files, at paths that are notes): their rows are made from
  /// them now.
  func feed(_ files: [(path: String, data: Data)]) {
    guard !files.isEmpty else { return }
    condition.lock()
    feeds.append(files)
    condition.signal()
    condition.unlock()
  }

  /// Something changed after a feed other than by a later feed: the fed rows are made again from disk.
  func taint() {
    condition.lock()
    tainted = true
    condition.unlock()
  }

  /// Every file of the commit is in place: `paths` are the commit's.
  func commitBegins(paths: [String]) {
    condition.lock()
    self.paths = paths
    condition.signal()
    condition.unlock()
  }

  /// The next batch fed, waiting for one; nil once the commit began and every batch was taken (or it was
  /// abandoned).
  fileprivate func nextFeed() -> [(path: String, data: Data)]? {
    condition.lock()
    defer { condition.unlock() }
    while feeds.isEmpty && paths == nil { condition.wait() }
    if abandoned { return nil }
    return feeds.isEmpty ? nil : feeds.removeFirst()
  }

  /// The commit's paths and whether the feeds were tainted; nil when abandoned before the commit began.
  fileprivate func committed() -> (paths: [String], tainted: Bool)? {
    condition.lock()
    defer { condition.unlock() }
    return abandoned ? nil : paths.map { ($0, tainted) }
  }

  /// Marks the outcome told; false when it already was.
  private func tell() -> Bool {
    condition.lock()
    defer { condition.unlock() }
    guard !told else { return false }
    told = true
    return true
  }

  /// The commit landed (`head` is HEAD now, the one before it when nothing was committed): keeps the rows.
  func finish(at head: String?) {
    guard tell() else { return }
    outcome = .some(head)
    decided.signal()
    done.wait()
  }

  /// The commit failed or never happened: the rows are rolled back.
  func abandon() {
    guard tell() else { return }
    condition.lock()
    abandoned = true
    if paths == nil { paths = [] }
    condition.signal()
    condition.unlock()
    outcome = nil
    decided.signal()
    done.wait()
  }
}

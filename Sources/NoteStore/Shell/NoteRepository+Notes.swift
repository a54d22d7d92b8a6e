import Foundation
import TextFormat

/// What a new note is made from.
public struct NoteDraft: Sendable {
  /// The title; when nil, the first `# heading` of `content` is used.
  public var title: String?
  /// The notebook path (`work/projects`); nil means the repository's default notebook, `""` the root.
  public var notebook: String?
  /// Tags to set.
  public var tags: [String]
  /// Text for the template's `content` (the whole body with the default template).
  public var content: String
  /// Template name; nil means `note`.
  public var template: String?
  /// Extra template variables (`--var key=value`).
  public var variables: [String: String]

  /// Creates a draft.
  public init(
    title: String?, notebook: String? = nil, tags: [String] = [], content: String = "", template: String? = nil,
    variables: [String: String] = [:]
  ) {
    self.title = title
    self.notebook = notebook
    self.tags = tags
    self.content = content
    self.template = template
    self.variables = variables
  }
}

/// A change to an existing note; nil fields are left alone.
public struct NoteChange: Sendable {
  /// A new title (front matter `title` only; the file keeps its name — use ``NoteRepository/move(_:to:)``).
  public var title: String?
  /// The complete new tag list.
  public var tags: [String]?
  /// A new body (everything after the front matter).
  public var body: String?
  /// Text appended to the body.
  public var append: String?

  /// Creates a change.
  public init(title: String? = nil, tags: [String]? = nil, body: String? = nil, append: String? = nil) {
    self.title = title
    self.tags = tags
    self.body = body
    self.append = append
  }
}

extension NoteRepository {
  // MARK: - Queries

  /// Every note in the repository, in path order (from the index, brought up to date first).
  public func allNotes() throws -> [Note] {
    try index.notes(where: "1")
  }

  /// The notes of one notebook (`""` = the root); with `recursive`, of its children too.
  public func notes(inNotebook notebook: String, recursive: Bool = false) throws -> [Note] {
    let path = try existingNotebookPath(notebook)
    guard recursive else { return try index.notes(where: "n.dir = ?", [path]) }
    let notebook = CompiledQuery(.filter(.notebook(path)))
    return try index.notes(where: notebook.condition, notebook.arguments)
  }

  /// The notes of one notebook (`""` = the root; with `recursive`, of its children too) as a walk of the work tree
  /// finds them, in path order (by UTF-8 bytes, as the index sorts), each with whether an ink sidecar sits beside
  /// it: the hits ``forEachNote(matching:_:)`` gives for `notebook:` of it in path order, read through the
  /// per-directory listing cache without opening the index (at 1 000 notes, opening it and checking it is fresh
  /// cost more than the whole listing).
  public func listing(ofNotebook notebook: String, recursive: Bool = false) throws -> [NoteHit] {
    let path = try existingNotebookPath(notebook)
    let found = scanner.notesAndStrays(in: path, recursive: recursive)
    return found.notes.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }.map {
      NoteHit(note: $0, hasInk: found.strays.inked.contains($0.path))
    }
  }

  /// The note with this id, if any (the first in path order should two notes share it).
  public func note(id: String) throws -> Note? {
    try index.notes(where: "n.note_id_folded = ?", [id.lowercased()]).first
  }

  /// Resolves a NOTE argument: a path (with or without `.md`), an id or id prefix (≥ 4 characters), or a title or
  /// file stem matching exactly one note.
  public func resolve(_ selector: String) throws -> Note {
    let trimmed = selector.trimmingWhitespaces()
    var pathForm = trimmed
    if pathForm.hasPrefix("/") {
      // An absolute path (from shell completion or a file manager) is fine when it points inside the repository.
      let real = FileSystem.realPath(pathForm) ?? pathForm
      guard real.hasPrefix(realRoot + "/") else { throw NoteStoreError.outsideRepository(path: selector) }
      pathForm = String(real.dropFirst(realRoot.count + 1))
    }
    // Fast path: a path needs no scan of the whole repository.
    if pathForm.contains("/") || pathForm.hasSuffix(".md") {
      let relative: String
      do { relative = try Names.validateRelativePath(pathForm) } catch {
        throw NoteStoreError.outsideRepository(path: selector)
      }
      let file = relative.hasSuffix(".md") ? relative : relative + ".md"
      if FileSystem.lstatInfo(absolute(file)) != nil {
        try checkInside(file)
        guard FileSystem.lstatInfo(absolute(file))?.isRegular == true else {
          throw NoteStoreError.outsideRepository(path: selector)
        }
        return NoteScanner.readNote(root: root.path, path: file)
      }
    } else if FileSystem.lstatInfo(absolute(pathForm + ".md"))?.isRegular == true {
      return NoteScanner.readNote(root: root.path, path: pathForm + ".md")
    }
    switch NoteSelector.resolve(pathForm, in: try allNotes()) {
    case .found(let note): return note
    case .none: throw NoteStoreError.noteNotFound(selector: selector)
    case .ambiguous(let notes): throw NoteStoreError.ambiguousNote(selector: selector, candidates: notes.map(\.path))
    }
  }

  /// Notes whose title, tags or body contain the words of `text` (the query language: see ``NoteQuery``), matched
  /// case- and diacritic-insensitively by the index, in path order.
  public func search(_ text: String) throws -> [Note] {
    let expression = try parsed(text)
    return try index.hits(
      expression, sort: .path, reverse: false, limit: nil, offset: 0, snippets: false,
      linkTargets: try linkTargets(expression, query: text)
    ).map(\.note)
  }

  // MARK: - Changes

  /// Creates a note from a template and commits it. Returns the new note.
  @discardableResult
  public func createNote(_ draft: NoteDraft) throws -> Note {
    try addNote(draft).note
  }

  /// Creates a note as ``createNote(_:)`` does, and says which links elsewhere it rewrote in the same commit: bare
  /// links its name would have made ambiguous or taken over, written as the shortest path that still reaches the
  /// file they reached (``relinkPlan(moves:added:skip:)``).
  public func addNote(_ draft: NoteDraft) throws -> (note: Note, links: RelinkReport) {
    var report = RelinkReport()
    let note = try createNotes([draft], subject: nil, relinked: { report = $0 }) { _, text in text }[0]
    return (note, report)
  }

  /// Creates notes in one commit: each from its template, then `frontMatter` (given the draft's index and the
  /// rendered text) adds what the caller owns (a task's keys). `subject` nil: `add <path>` for a single note.
  func createNotes(
    _ drafts: [NoteDraft], subject: String?, relinked: ((RelinkReport) -> Void)? = nil,
    frontMatter: (Int, String) throws -> String
  ) throws -> [Note] {
    struct Prepared {
      var title: String
      var tags: [String]
      var template: String
      var source: String
    }
    let library = templates
    let prepared = try drafts.map { draft in
      let template = draft.template ?? "note"
      // Fail on a bad template before anything is written.
      return Prepared(
        title: try nameCall { try Self.titleFor(draft) }, tags: try Self.normalizedTags(draft.tags),
        template: template, source: try templateCall { try library.source(of: template) })
    }
    // Asked below whether the new names change what links reach, once the notes are written and flushed.
    index.openInBackground()
    defer { index.finishOpeningInBackground() }
    return try mutate { tx in
      var notes: [Note] = []
      var reserved = Set<String>()
      for (index, draft) in drafts.enumerated() {
        if index % 200 == 0, drafts.count >= 200 { progress?("Creating notes", index, drafts.count) }
        let title = prepared[index].title
        let tags = prepared[index].tags
        let (notebook, notebookTitle) = try notebookPathForWrite(draft.notebook ?? config.defaultNotebook)
        let slug = Slug.unique(Slug.make(title)) { candidate in
          reserved.contains(RepoPaths.join(notebook, candidate))
            || FileSystem.exists(self.absolute(RepoPaths.join(notebook, candidate + ".md")))
            || FileSystem.exists(self.absolute(RepoPaths.join(notebook, candidate)))
            // A new note must not turn a notebook named `<slug>.files/` into its attachment folder.
            || FileSystem.exists(self.absolute(RepoPaths.join(notebook, candidate + RepoPaths.attachmentSuffix)))
        }
        reserved.insert(RepoPaths.join(notebook, slug))
        let path = RepoPaths.join(notebook, slug + ".md")
        let id = NoteID.make()
        let stamp = now
        let content = Self.droppingFinalNewline(draft.content)
        var text: String
        if let plain = TemplateLibrary.contentOnlyRendering(source: prepared[index].source, content: content) {
          // Nor is the author asked for: git's identity is read through libgit2, which may still be starting.
          text = plain
        } else {
          let context = TemplateContext(
            title: title, id: id, notebook: notebook, slug: slug, tags: tags, author: try git.authorName,
            content: content, now: stamp.date, timeZone: timeZone, vars: draft.variables)
          text = try templateCall { try library.render(prepared[index].template, context: context) }
        }
        text = try frontMatterCall(path) {
          try frontMatter(
            index, try FrontMatter.settingNewNoteKeys(id: id, title: title, stamp: stamp, tags: tags, in: text))
        }
        try makeNotebookDirectories(notebook, title: notebookTitle, in: &tx)
        try tx.write(path, text)
        tx.note(id)
        notes.append(NoteScanner.note(path: path, text: text))
      }
      if drafts.count >= 200 { progress?("Creating notes", drafts.count, drafts.count) }
      // A new name can make bare links elsewhere ambiguous, or take them over (a root `Plan.md` is what `[[Plan]]`
      // reaches first): those links are written longer in the same commit so they keep reaching what they reached.
      let added = notes.map(\.path)
      Phases.mark("add: notes written")
      let plan =
        try addedNotesMayAffectLinks(added) ? try relinkPlan(moves: [:], added: added, skip: Set(added)) : RelinkPlan()
      try apply(plan, moves: [:], in: &tx)
      Phases.mark("add: links checked")
      if let relinked {
        relinked(plan.report)
      } else {
        for line in plan.report.disambiguationLines + plan.report.problemLines { notice?(line) }
      }
      tx.subject = subject ?? (notes.count == 1 ? "add \(notes[0].path)" : "add \(notes.count) notes")
      return notes
    }
  }

  /// Applies `change` to the note, stamps `updated`, and commits. Returns the note as it is afterwards; when the
  /// change leaves the file as it was, nothing is written or committed.
  @discardableResult
  public func update(_ note: Note, _ change: NoteChange) throws -> Note {
    try mutate { tx in
      let original = try readText(note.path)
      var text = original
      try frontMatterCall(note.path) {
        _ = try FrontMatter.read(original)
        if let title = change.title {
          text = try FrontMatter.setting("title", to: YAMLScalar.format(try Names.validateTitle(title)), in: text)
        }
        if let tags = change.tags { text = try FrontMatter.settingTags(try Self.normalizedTags(tags), in: text) }
        if let body = change.body {
          let head = text.utf8.count - FrontMatter.body(of: text).utf8.count
          text = String(decoding: Array(text.utf8.prefix(head)), as: UTF8.self) + body
        }
        if let append = change.append { text = Self.appending(append, to: text) }
      }
      guard text != original else { return note }
      return try stampAndWrite(note.path, text: text, in: &tx, subject: "edit \(note.path)")
    }
  }

  /// Commits an edit made to the file by someone else (an editor nb opened): stamps `updated`, adds `id` when
  /// missing. Returns nil when the file is byte-identical to `before`.
  public func commitEdit(of note: Note, before: Data) throws -> Note? {
    try mutate { tx in
      let data = try FileSystem.read(absolute(note.path))
      guard data != before else { return nil }
      guard let text = Self.decodeUTF8(data) else { throw NoteStoreError.notUTF8(path: note.path) }
      return try stampAndWrite(note.path, text: text, in: &tx, subject: "edit \(note.path)")
    }
  }

  /// An opaque name for the bytes of the note's file as they are now (their SHA-256): the same bytes, the same
  /// version. An app keeps it with the text it shows for editing, to save the edit only over that version
  /// (``save(text:to:over:)``).
  public func version(of note: Note) throws -> String {
    NoteHistory.sha256Hex(try data(of: note))
  }

  /// The note's whole text and its ``version(of:)``, from one read: what an editor shows and saves back over.
  /// - Throws: ``NoteStoreError/notUTF8(path:)`` for a file that is not UTF-8 text.
  public func versionedText(of note: Note) throws -> (text: String, version: String) {
    let data = try data(of: note)
    guard let text = Self.decodeUTF8(data) else { throw NoteStoreError.notUTF8(path: note.path) }
    return (text, NoteHistory.sha256Hex(data))
  }

  /// Replaces the note's whole text with `text` and commits it as `nb edit` commits an editor's save (`updated`
  /// stamped, a missing `id` added, one commit) — only while the file is still `version` (``version(of:)`` of the
  /// text the edit started from). The check and the write happen under the repository lock, so no other save
  /// (another editor's, a sync's) can land between them unseen.
  /// - Throws: ``NoteStoreError/malformedFrontMatter(path:line:detail:)`` when the new text's front matter does not
  ///   parse (nothing is written).
  public func save(text: String, to note: Note, over version: String) throws -> TextSave {
    try mutate { tx in
      let data = try FileSystem.read(absolute(note.path))
      let current = NoteHistory.sha256Hex(data)
      guard current == version else {
        return .changed(text: String(decoding: data, as: UTF8.self), version: current)
      }
      guard Data(text.utf8) != data else { return .unchanged(note) }
      return .saved(try stampAndWrite(note.path, text: text, in: &tx, subject: "edit \(note.path)"))
    }
  }

  /// Saves `text` as ``save(text:to:over:)`` does, but an edit that started from an older version is merged rather
  /// than refused: `base` is the text the edit started from (the text whose ``version(of:)`` is `version`), and the
  /// edit is combined with the file as it is now by the three-way merge ``sync(_:)`` uses for a note both devices
  /// changed (front matter key by key, the later `updated`, tags and aliases as sets, the body line by line). A clean
  /// merge is stamped and committed as one edit (``TextSave/merged(_:)``); when both changed the same lines or the
  /// same key, nothing is written (``TextSave/changed(text:version:)``, the file's text and version now).
  /// - Throws: ``NoteStoreError/invalidArgument(_:)`` when `base` is not the text of `version`;
  ///   ``NoteStoreError/malformedFrontMatter(path:line:detail:)`` as ``save(text:to:over:)`` does.
  public func save(text: String, to note: Note, over version: String, base: String) throws -> TextSave {
    guard NoteHistory.sha256Hex(Data(base.utf8)) == version else {
      throw NoteStoreError.invalidArgument(
        "the text the edit of \(note.path) started from is not version \(version.prefix(12)); reload it and edit again")
    }
    return try mutate { tx in
      let data = try FileSystem.read(absolute(note.path))
      let currentVersion = NoteHistory.sha256Hex(data)
      let refused = TextSave.changed(text: String(decoding: data, as: UTF8.self), version: currentVersion)
      if currentVersion == version {
        guard Data(text.utf8) != data else { return .unchanged(note) }
        return .saved(try stampAndWrite(note.path, text: text, in: &tx, subject: "edit \(note.path)"))
      }
      // Ours is the file: its bytes are kept wherever only the edit's side did not change them.
      guard let current = Self.decodeUTF8(data),
        case .clean(let merged) = NoteMerge.merge(base: base, ours: current, theirs: text)
      else { return refused }
      guard merged != current else { return .unchanged(note) }
      return .merged(try stampAndWrite(note.path, text: merged, in: &tx, subject: "edit \(note.path)"))
    }
  }

  /// Sets `updated` (monotonic) and a missing `id`, writes, and records the note in the transaction.
  @discardableResult
  func stampAndWrite(_ path: String, text: String, in tx: inout Transaction, subject: String) throws -> Note {
    let stamped = try stamp(path, text: text)
    try tx.write(path, stamped.text)
    tx.note(stamped.id)
    tx.subject = subject
    return NoteScanner.note(path: path, text: stamped.text)
  }

  /// The text with `updated` = max(now, previous + 1 s) and an `id` if it had none (a new one with `newID`).
  func stamp(_ path: String, text: String, newID: Bool = false) throws -> (text: String, id: String) {
    try frontMatterCall(path) {
      let metadata = try FrontMatter.read(text)
      var result = text
      let id = newID ? NoteID.make() : metadata.id ?? NoteID.make()
      if metadata.id == nil || newID { result = try FrontMatter.setting("id", to: id, in: result) }
      result = try FrontMatter.settingUpdated(Timestamp.nextUpdated(previous: metadata.updated, now: now), in: result)
      return (result, id)
    }
  }

  /// Deletes a note and its sidecars in one commit. A note with uncommitted edits is refused unless `force`, so an
  /// edit that was never committed is not lost without being asked.
  public func delete(_ note: Note, force: Bool = false) throws {
    try mutate { tx in
      let files = noteFiles(note.path)
      if !force {
        let dirty = try git.changes(paths: files).map(\.path)
        if !dirty.isEmpty {
          throw NoteStoreError.invalidArgument(
            "\(dirty.joined(separator: ", ")) has changes that were never committed; run 'nb save' first, or pass --force"
          )
        }
      }
      try tx.removeNote(note.path)
      tx.note(note.id)
      tx.subject = "delete \(note.path)"
    }
  }

  /// Moves a note (and its sidecars) into another notebook, created if missing, or to a new `.md` path. The id stays.
  /// Every link that would break is rewritten in the same commit (``moveNote(_:to:updateLinks:)``).
  @discardableResult
  public func move(_ note: Note, to destination: String) throws -> Note {
    try moveNote(note, to: destination).note
  }

  /// Moves a note as ``move(_:to:)`` does and, unless `updateLinks` is false, rewrites in the same commit every
  /// link that would break: links to the note (and to its attachments) in every other note, and the note's own
  /// relative links when its folder changes — exactly their path bytes, each in its own form (``LinkRewriter``);
  /// bare links elsewhere that its new name would make ambiguous are written as the shortest unambiguous path.
  @discardableResult
  public func moveNote(_ note: Note, to destination: String, updateLinks: Bool = true) throws -> NoteMove {
    try mutate { tx in
      // Its last change is the batch of the note and its linking notes: their index rows are made while they are
      // written.
      tx.recordsIndexEarly = true
      return try move(note, to: destination, in: &tx, updateLinks: updateLinks)
    }
  }

  /// `move` inside a transaction another operation owns (filing an inbox item moves it and edits it in one commit).
  func move(_ note: Note, to destination: String, in tx: inout Transaction) throws -> Note {
    try move(note, to: destination, in: &tx, updateLinks: true).note
  }

  /// The move itself. `edit` changes the moved note's text last (a rename's title), after its links were rewritten.
  func move(
    _ note: Note, to destination: String, in tx: inout Transaction, updateLinks: Bool,
    edit: ((String) throws -> String)? = nil
  ) throws -> NoteMove {
    do {
      let target: String
      if destination.hasSuffix(".md") {
        let relative = try Names.validateRelativePath(destination)
        let (notebook, title) = try notebookPathForWrite(RepoPaths.directory(of: relative))
        try makeNotebookDirectories(notebook, title: title, in: &tx)
        target = RepoPaths.join(notebook, RepoPaths.lastComponent(of: relative))
      } else {
        let (notebook, title) = try notebookPathForWrite(destination)
        try makeNotebookDirectories(notebook, title: title, in: &tx)
        target = RepoPaths.join(notebook, RepoPaths.lastComponent(of: note.path))
      }
      guard target != note.path else {
        // Nothing moves; a rename may still change the title.
        if let edit {
          let original = try readText(note.path)
          let text = try edit(original)
          if text != original {
            try tx.write(note.path, text)
            tx.note(note.id)
            tx.subject = "edit \(note.path)"
          }
        }
        return NoteMove(
          note: NoteScanner.readNote(root: root.path, path: note.path), from: note.path, links: RelinkReport())
      }
      let pairs =
        [(note.path, target)]
        + zip(RepoPaths.sidecars(of: note.path), RepoPaths.sidecars(of: target))
        .filter { FileSystem.exists(absolute($0.0)) }
      // The attachment folder travels as one directory rename; every file in it is committed at both paths.
      let folder = RepoPaths.attachmentFolder(of: note.path)
      let targetFolder = RepoPaths.attachmentFolder(of: target)
      let attachments = try attachments(of: note)
      let movesFolder = FileSystem.lstatInfo(absolute(folder))?.isDirectory == true && hasAttachmentFolders
      for (_, to) in pairs where FileSystem.exists(absolute(to)) {
        throw NoteStoreError.alreadyExists(path: to, what: "a file is already there")
      }
      if movesFolder, FileSystem.exists(absolute(targetFolder)) {
        throw NoteStoreError.alreadyExists(path: targetFolder, what: "the moved note's attachment folder goes there")
      }
      // Every file that moves, so links to any of them (the note, its ink, its attachments) are followed.
      var moves = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
      if movesFolder {
        for path in attachments { moves[path] = targetFolder + path.dropFirst(folder.count) }
      }
      // Planned before anything moves: every note is read as it is, and a failure leaves everything unchanged.
      Phases.mark("move: checks")
      let plan = updateLinks ? try relinkPlan(moves: moves) : RelinkPlan()
      let original = try readText(note.path)
      for (from, to) in pairs {
        try tx.move(from, to)
        tx.touch(from)
        tx.touch(to)
      }
      if movesFolder {
        try tx.move(folder, targetFolder)
        for path in attachments {
          tx.touch(path)
          tx.touch(targetFolder + path.dropFirst(folder.count))
        }
      }
      var text = plan.texts[note.path]?.text ?? original
      // A rename changes the folder's name: the body's links to it follow (a move keeps it, and the links). Links
      // the rewrite already followed no longer name the old folder, so nothing is changed twice.
      let oldName = RepoPaths.lastComponent(of: folder)
      let newName = RepoPaths.lastComponent(of: targetFolder)
      if movesFolder, oldName != newName { text = AttachmentLinks.retargeting(text, from: oldName, to: newName) }
      if let edit { text = try edit(text) }
      // In the same batch as the linking notes: one journal flush and one file flush for all of them.
      let own = text != original ? [(path: target, data: Data(text.utf8), old: Data?.none)] : []
      Phases.mark("move: moves")
      try apply(plan, moves: moves, except: [note.path], also: own, in: &tx)
      tx.note(note.id)
      let shownTarget = destination.hasSuffix(".md") ? target : RepoPaths.directory(of: target) + "/"
      tx.subject = "move \(note.path) -> \(shownTarget)"
      return NoteMove(note: NoteScanner.readNote(root: root.path, path: target), from: note.path, links: plan.report)
    }
  }

  // MARK: - Helpers

  /// A note's file, those of its sidecars that exist, and its attachments: what travels and goes with it.
  func noteFiles(_ path: String) -> [String] {
    [path] + RepoPaths.sidecars(of: path).filter { FileSystem.exists(absolute($0)) }
      + attachmentFiles(ofNotePath: path).map(\.path)
  }

  /// Templates end `{{ content }}` with their own newline; piped input brings one too, which would double it.
  static func droppingFinalNewline(_ text: String) -> String {
    // "\r\n" is one Character in Swift, so this drops either ending whole.
    text.last?.isNewline == true ? String(text.dropLast()) : text
  }

  /// `text` with `append` added as whole lines, in the file's own line ending.
  static func appending(_ append: String, to text: String) -> String {
    let ending = lineEnding(of: text)
    var text = text
    if !text.isEmpty && text.last?.isNewline != true { text += ending }
    text += append
    if append.last?.isNewline != true { text += ending }
    return text
  }

  /// The file's own line ending (its first line break), so appended text does not mix LF into a CRLF file.
  static func lineEnding(of text: String) -> String {
    guard let newline = text.utf8.firstIndex(of: 0x0A) else { return "\n" }
    return newline > text.utf8.startIndex && text.utf8[text.utf8.index(before: newline)] == 0x0D ? "\r\n" : "\n"
  }

  static func titleFor(_ draft: NoteDraft) throws -> String {
    if let title = draft.title { return try Names.validateTitle(title) }
    let heading = (try? FrontMatter.read(draft.content))?.firstHeading
    guard let heading, !heading.isEmpty else {
      throw NoteStoreError.invalidArgument(
        "a title is required: nb add \"Title\" (or start the content with '# Title')")
    }
    return try Names.validateTitle(heading)
  }

  /// Tags as stored: trimmed, `#` dropped, no empties, no duplicates, no separators inside a tag.
  static func normalizedTags(_ tags: [String]) throws -> [String] {
    var result: [String] = []
    for raw in tags {
      var tag = raw.trimmingWhitespaces()
      while tag.hasPrefix("#") { tag.removeFirst() }
      if tag.isEmpty { continue }
      if tag.contains(where: { $0 == "," || $0.isWhitespace || $0.isNewline || $0 == "[" || $0 == "]" }) {
        throw NoteStoreError.invalidArgument("tag '\(raw)' may not contain spaces, commas or brackets")
      }
      if !result.contains(tag) { result.append(tag) }
    }
    return result
  }

  func templateCall<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as TemplateError { throw NoteStoreError.template(error.description) }
  }

  func frontMatterCall<T>(_ path: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as FrontMatterError {
      throw NoteStoreError(frontMatter: error, path: path)
    } catch let error as NameError {
      throw NoteStoreError.invalidArgument(error.description)
    }
  }
}

/// What ``NoteRepository/save(text:to:over:)`` (or the merging ``NoteRepository/save(text:to:over:base:)``) came to.
public enum TextSave: Equatable, Sendable {
  /// Written, stamped and committed: the note as it is now.
  case saved(Note)
  /// The text is the file's already: nothing written, nothing committed.
  case unchanged(Note)
  /// The file had changed since the edit started and both were combined (``NoteRepository/save(text:to:over:base:)``):
  /// the merge written, stamped and committed as one edit; the note as it is now.
  case merged(Note)
  /// The file is no longer the version the edit started from (another editor, a sync, another browser): nothing
  /// written. Its text and version now, to show beside the edit or to save over knowingly.
  case changed(text: String, version: String)
}

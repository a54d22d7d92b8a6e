import Foundation
import TextFormat

extension NoteRepository {
  /// Every notebook (directory) in the repository, in path order.
  public func notebooks() throws -> [Notebook] {
    scanner.notebooks()
  }

  /// The paths of the notebooks directly inside `notebook`, or nil when `notebook`, spelled exactly as on disk, is
  /// not a notebook. Unlike ``notebooks()``, which walks every directory, it reads only the directories from the root
  /// down to `notebook`: what `nb list NOTEBOOK` needs to leave the child notebooks out.
  public func childNotebookPaths(of notebook: String) -> [String]? {
    scanner.childNotebookPaths(of: notebook)
  }

  /// Top-level notebooks.
  public func rootNotebooks() throws -> [Notebook] {
    try notebooks().filter { $0.parent.isEmpty }
  }

  /// Direct children of a notebook.
  public func children(of notebook: String) throws -> [Notebook] {
    let path = try existingNotebookPath(notebook)
    return try notebooks().filter { $0.parent == path }
  }

  /// Creates a notebook (and missing parents), each with a `.notebook.yaml`, in one commit.
  @discardableResult
  public func createNotebook(_ path: String) throws -> Notebook {
    try mutate { tx in
      let (resolved, title) = try notebookPathForWrite(path)
      if FileSystem.statInfo(absolute(resolved))?.isDirectory == true {
        throw NoteStoreError.alreadyExists(path: resolved, what: "a notebook")
      }
      try makeNotebookDirectories(resolved, title: title, in: &tx)
      tx.subject = "create notebook \(resolved)"
      return Notebook(
        path: resolved, title: title ?? RepoPaths.lastComponent(of: resolved), noteCount: 0, hasSettings: true)
    }
  }

  /// Renames or moves a notebook with everything in it, in one commit. Notes keep their ids. Unless `updateLinks`
  /// is false, the same commit rewrites every link that would break (``moveNote(_:to:updateLinks:)``'s rules): links
  /// into the notebook from anywhere, and relative links out of it from the notes inside.
  @discardableResult
  public func renameNotebook(_ from: String, to: String, updateLinks: Bool = true) throws -> RelinkReport {
    try mutate { tx in
      let source = try existingNotebookPath(from)
      guard !source.isEmpty else { throw NoteStoreError.invalidArgument("the repository root cannot be renamed") }
      let (target, _) = try notebookPathForWrite(to)
      if FileSystem.exists(absolute(target)) {
        throw NoteStoreError.alreadyExists(path: target, what: "a notebook or file")
      }
      if RepoPaths.isInside(target, directory: source) {
        throw NoteStoreError.invalidArgument("cannot move notebook '\(source)' into itself ('\(target)')")
      }
      let files = try trackedAndPresentFiles(under: source)
      var moves: [String: String] = [:]
      for file in files where FileSystem.exists(absolute(file)) { moves[file] = target + file.dropFirst(source.count) }
      // Planned before the directory moves, so a failure leaves everything as it was.
      let plan = updateLinks ? try relinkPlan(moves: moves) : RelinkPlan()
      try makeNotebookDirectories(RepoPaths.directory(of: target), title: nil, in: &tx)
      try tx.move(source, target)
      for file in files {
        tx.touch(file)
        tx.touch(target + file.dropFirst(source.count))
      }
      // The batch of rewritten links is its last change: their index rows are made while they are written.
      tx.recordsIndexEarly = true
      try apply(plan, moves: moves, in: &tx)
      for note in scanner.notes(in: target, recursive: true) { tx.note(note.id) }
      tx.subject = "rename notebook \(source) -> \(target)"
      return plan.report
    }
  }

  /// Deletes a notebook. One that holds anything besides its `.notebook.yaml` needs `recursive`; uncommitted
  /// edits inside it are refused unless `force`, so nothing is lost that git never saw.
  public func deleteNotebook(_ path: String, recursive: Bool, force: Bool = false) throws {
    try mutate { tx in
      let notebook = try existingNotebookPath(path)
      guard !notebook.isEmpty else { throw NoteStoreError.invalidArgument("the repository root cannot be deleted") }
      let files = try trackedAndPresentFiles(under: notebook)
      let content = files.filter { RepoPaths.lastComponent(of: $0) != Self.notebookSettingsFile }
      if !content.isEmpty && !recursive {
        throw NoteStoreError.notebookNotEmpty(path: notebook, entries: content.count)
      }
      if !force {
        let dirty = try git.changes(paths: [notebook]).map(\.path)
        if !dirty.isEmpty {
          throw NoteStoreError.invalidArgument(
            "notebook '\(notebook)' has changes that were never committed (\(dirty.prefix(3).joined(separator: ", "))); run 'nb save' first, or pass --force"
          )
        }
      }
      let notes = scanner.notes(in: notebook, recursive: true)
      for file in files { try tx.remove(file) }
      try? FileSystem.removeTree(absolute(notebook))
      for note in notes { tx.note(note.id) }
      tx.subject = "delete notebook \(notebook) (\(counted(notes.count, "note")))"
    }
  }

  // MARK: - Helpers

  /// An existing notebook's path, validated (`""` is the root).
  func existingNotebookPath(_ path: String) throws -> String {
    let trimmed = path.trimmingWhitespaces()
    if trimmed.isEmpty || trimmed == "." || trimmed == "/" { return "" }
    let validated = try nameCall { try Names.validateNotebookPath(trimmed) }
    try checkInside(validated)
    if FileSystem.statInfo(absolute(validated))?.isDirectory == true { return validated }
    // Accept the display name the directory was slugged from ("My Projects" for my-projects).
    let slugged = validated.split(separator: "/").map { Slug.make(String($0)) }.joined(separator: "/")
    if FileSystem.statInfo(absolute(slugged))?.isDirectory == true { return slugged }
    throw NoteStoreError.notebookNotFound(path: validated)
  }

  /// The directory path for a notebook name given by a person: each component that already exists is used as it
  /// is spelled on disk; a new one is slugged, and the leaf keeps the typed name as its display title.
  func notebookPathForWrite(_ path: String) throws -> (path: String, title: String?) {
    let trimmed = Names.trimmingWhitespace(path)
    if trimmed.isEmpty || trimmed == "/" || trimmed == "." { return ("", nil) }
    let validated = try nameCall { try Names.validateNotebookPath(trimmed) }
    var resolved = ""
    var title: String?
    for component in validated.split(separator: "/").map(String.init) {
      let exact = RepoPaths.join(resolved, component)
      let slug = Slug.make(component)
      let slugged = RepoPaths.join(resolved, slug)
      if FileSystem.statInfo(absolute(exact))?.isDirectory == true {
        resolved = exact
        title = nil
      } else {
        resolved = slugged
        title = slug == component ? nil : component
      }
      if FileSystem.lstatInfo(absolute(resolved + ".md"))?.isRegular == true {
        throw NoteStoreError.invalidArgument(
          "notebook '\(resolved)' would have the same name as the note \(resolved).md; choose another name")
      }
      if let info = FileSystem.lstatInfo(absolute(resolved)), !info.isDirectory {
        throw NoteStoreError.alreadyExists(path: resolved, what: "a file, not a notebook")
      }
    }
    try checkInside(resolved)
    return (resolved, title)
  }

  /// Creates the missing directories of `notebook`, each with its `.notebook.yaml`.
  func makeNotebookDirectories(_ notebook: String, title: String?, in tx: inout Transaction) throws {
    guard !notebook.isEmpty else { return }
    var prefix = ""
    let components = notebook.split(separator: "/").map(String.init)
    for (index, component) in components.enumerated() {
      prefix = RepoPaths.join(prefix, component)
      if FileSystem.statInfo(absolute(prefix))?.isDirectory == true { continue }
      let settings = NotebookSettings(created: now, title: index == components.count - 1 ? title : nil)
      try tx.write(RepoPaths.join(prefix, Self.notebookSettingsFile), settings.fileText)
    }
  }

  /// Files under a directory that git tracks or that are on disk (so a commit records both removals and additions).
  func trackedAndPresentFiles(under directory: String) throws -> [String] {
    var files = Set(try git.trackedPaths().filter { RepoPaths.isInside($0, directory: directory) })
    func walk(_ relative: String) {
      for entry in FileSystem.entries(of: absolute(relative)) {
        let path = RepoPaths.join(relative, entry.name)
        if entry.isDirectory { walk(path) } else { files.insert(path) }
      }
    }
    walk(directory)
    return files.sorted()
  }

  func nameCall<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as NameError { throw NoteStoreError.invalidArgument(error.description) }
  }
}

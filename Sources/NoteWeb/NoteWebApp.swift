import Foundation
import InkKit
import LinkKit
import NoteStore
import TaskKit

/// The web app of `nb serve`: a request in, a response out, over one repository through NoteStore's public API.
///
/// It knows no server library: ``NoteWebServer`` hands it requests. Every request passes ``WebSecurity/check(_:)``
/// first and every answer leaves through ``WebSecurity/finish(_:)``. Not thread-safe: NoteRepository is not, so the
/// server calls ``respond(to:)`` from one queue.
public final class NoteWebApp {
  /// The repository served.
  public let repository: NoteRepository
  /// The session's rules.
  public let security: WebSecurity
  /// Notes per page of a notebook or a search.
  public var pageSize = 50
  /// Notes on the home page's recent list.
  public var recentCount = 20
  /// The largest file `/file/` serves, in bytes; a larger one is refused with 413 (open it from the repository).
  public var fileLimit: Int64 = 1 << 30

  let pages = WebPages()
  /// Note pages kept while their files and the repository stay as they were (see ``PageCache``); nil: every page is
  /// made anew (no watcher tells this app of changes made by others).
  var pageCache: PageCache?

  /// An app serving `repository` under `security`'s rules.
  public init(repository: NoteRepository, security: WebSecurity) {
    self.repository = repository
    self.security = security
  }

  /// The answer to `request`, with the headers every answer carries. Never throws: a failure is an error page.
  public func respond(to request: WebRequest) -> WebResponse {
    switch security.check(request) {
    case .answer(let response):
      return security.finish(response)
    case .allow:
      var response: WebResponse
      let cached = cachedPage(request)
      if let page = cached?.page {
        response = page
      } else {
        do {
          // A page is several queries (the note, its links, backlinks, attachments): one look at what changed for
          // all.
          response = try repository.withConsistentIndex { try route(request) }
        } catch {
          response = errorPage(for: error)
        }
        if let cached, response.status == 200 {
          pageCache?.keep(
            response, for: request.target, files: cached.files, stamps: cached.stamps, generation: cached.generation)
        }
        // Whatever a form changed, the pages kept may show it: the watcher would say so too, a moment later.
        if request.method == "POST" { pageCache?.invalidate() }
      }
      if request.method == "HEAD" {
        response.body = Data()
        response.isEventStream = false
        response.file = nil
      }
      return security.finish(response)
    }
  }

  /// For a note page (`GET /note/PATH`): the page kept for this request, or else what keeping the one about to be
  /// made needs — the files it shows directly and their stat data, and the cache's generation, both taken before
  /// the page is read. nil for every other request.
  private func cachedPage(
    _ request: WebRequest
  ) -> (page: WebResponse?, files: [String], stamps: [PageCache.Stamp?], generation: UInt64)? {
    guard let pageCache, request.method == "GET" || request.method == "HEAD",
      let rest = request.path.dropPrefix("/note/"), let path = try? WebPath.repositoryPath(rest)
    else { return nil }
    if let page = pageCache.page(for: request.target) { return (page, [], [], 0) }
    let generation = pageCache.currentGeneration
    let root = repository.root.path
    let files = [root + "/" + path, root + "/" + NoteRepository.inkPath(ofNoteAt: path)]
    return (nil, files, files.map(PageCache.Stamp.of), generation)
  }

  // MARK: - Routes

  private func route(_ request: WebRequest) throws -> WebResponse {
    let path = request.path
    if path == "/login" { return try login(request) }
    if request.method == "POST" {
      if let rest = path.dropPrefix("/edit/") { return try saveEdit(try WebPath.repositoryPath(rest), request) }
      if let rest = path.dropPrefix("/restore/") { return try restore(try WebPath.repositoryPath(rest), request) }
      if path == "/tasks/done" { return try completeTask(request) }
      if path == "/tasks/subtask" { return try tickSubtask(request) }
      if path == "/capture" { return try capture(request) }
      if path == "/inbox/file" { return try fileItem(request) }
      if let rest = path.dropPrefix("/draw/") { return try saveDrawing(try WebPath.repositoryPath(rest), request) }
      if path == "/sync" { return try sync(request) }
      if path == "/pin" || path == "/unpin" { return try pin(request, path == "/pin") }
      throw WebError(status: 404, "No such form")
    }
    // Where a refused sync's page was shown: fetched again (a reload, the live refresh), it is home.
    if path == "/sync" { return .redirect("/") }
    if let rest = path.dropPrefix("/edit/") { return try edit(try WebPath.repositoryPath(rest)) }
    if path == "/" { return try home(request) }
    // Every page's script subscribes here (Server-Sent Events); the server streams the changes.
    if path == "/events" { return .eventStream() }
    if path == "/search" { return try search(request) }
    if path == "/tasks" { return try tasks(request) }
    if path == "/inbox" { return try inbox(request) }
    if path == "/shortcuts" { return .html(try pages.render("shortcuts.html", common(request))) }
    if let rest = path.dropPrefix("/assets/") { return try asset(rest) }
    if let rest = path.dropPrefix("/notebook/") { return try notebook(rest, request) }
    if let rest = path.dropPrefix("/note/") { return try note(try WebPath.repositoryPath(rest), request) }
    if let rest = path.dropPrefix("/file/") { return try file(try WebPath.repositoryPath(rest)) }
    if let rest = path.dropPrefix("/history/") { return try history(try WebPath.repositoryPath(rest), request) }
    if let rest = path.dropPrefix("/ink/") { return try ink(try WebPath.repositoryPath(rest), request) }
    if let rest = path.dropPrefix("/draw/") { return try drawPage(try WebPath.repositoryPath(rest), request) }
    throw WebError(status: 404, "No page at this address")
  }

  private func home(_ request: WebRequest, status: Int = 200, problem: String? = nil) throws -> WebResponse {
    let counts = try repository.notebookCounts()
    let recent = try repository.notes(matching: NoteQuery("", sort: .updated, limit: recentCount))
    var context = common(request)
    context["notebooks_html"] = Self.notebooksHTML(counts)
    context["notes_html"] = Self.notesHTML(recent)
    context["pins"] = repository.pinnedSearches.map { ["query": $0, "url": "/search?q=" + WebPath.queryValue($0)] }
    context["sync"] = try syncState()
    context["problem"] = problem
    if let report = syncReport { context["report"] = report }
    return .html(try pages.render("home.html", context), status: status)
  }

  /// What `nb status` and `nb conflicts` say about syncing: the branch, how far it is ahead of and behind its
  /// upstream (as of the last fetch), the last sync, uncommitted changes and conflict copies.
  private func syncState() throws -> [String: Any] {
    // Without the notes' warnings, which the page does not show: the first status reads every note for them.
    let status = try repository.status(noteWarnings: false)
    var state: [String: Any] = [
      "branch": status.branch ?? "(detached HEAD)", "changes": status.changes.count,
      "remote": try repository.remotes().contains { $0.name == syncRemote },
      "remote_name": syncRemote,
      // From the index (what `nb conflicts` lists: the notes with conflict_of): conflictCopies() reads every note,
      // a second of every home page at 100 000 notes.
      "conflicts": try repository.notes(matching: NoteQuery("is:conflict")).map(\.note).map {
        ["title": $0.title, "url": "/note/" + WebPath.encoded($0.path), "path": $0.path]
      },
    ]
    if let operation = status.operation { state["operation"] = operation }
    if let tracking = try repository.aheadBehind() {
      state["upstream"] = tracking.upstream
      state["ahead"] = tracking.ahead
      state["behind"] = tracking.behind
      state["in_step"] = tracking.ahead == 0 && tracking.behind == 0
    }
    if let last = repository.lastSync {
      state["last_sync"] = Timestamp(date: last, timeZone: repository.timeZone).rfc3339
    }
    return state
  }

  /// The remote the Sync button syncs with: `nb sync`'s default.
  private let syncRemote = "origin"

  /// What the last sync run from this server did, shown on the home page (this run of the server only).
  private var syncReport: [String]?

  /// The home page's Sync button: exactly `nb sync` (save pending edits, fetch, merge, push), then home with what
  /// it did; a sync that cannot run (no remote, offline) leaves everything as it was and says why.
  private func sync(_ request: WebRequest) throws -> WebResponse {
    let summary: SyncSummary
    do {
      summary = try repository.sync(SyncOptions(remote: syncRemote))
    } catch let error as NoteStoreError {
      switch error {
      case .noRemote, .unsafeGitState, .invalidArgument:
        return try home(request, status: 409, problem: "Not synced: \(error)")
      case .offline, .syncFailed, .git:
        return try home(request, status: 502, problem: "Not synced: \(error)")
      default:
        throw error
      }
    }
    syncReport = Self.report(
      summary, remote: syncRemote, at: Timestamp(date: repository.clock(), timeZone: repository.timeZone))
    return .redirect("/#sync")
  }

  /// A sync's summary in `nb sync`'s words.
  static func report(_ summary: SyncSummary, remote: String, at time: Timestamp) -> [String] {
    ["Synced with \(remote)/\(summary.remoteBranch) at \(time.rfc3339): \(summary.outcomeText)"]
      + summary.reportLines.map { $0.label.isEmpty ? $0.text : "\($0.label) \($0.text)" }
  }

  /// Pins a search on this device's home page (from the search page), or unpins one.
  private func pin(_ request: WebRequest, _ pinning: Bool) throws -> WebResponse {
    guard let query = request.formValue("q") else { throw WebError(status: 400, "The form has no query") }
    do {
      if pinning {
        try repository.pinSearch(query)
      } else {
        try repository.unpinSearch(query)
      }
    } catch NoteStoreError.invalidArgument(let message) {
      throw WebError(status: 400, "Not pinned: \(message)")
    }
    let fromSearch = pinning || request.formValue("from") == "search"
    return .redirect(fromSearch ? "/search?q=" + WebPath.queryValue(query) : "/")
  }

  /// The sign-in page of a server other devices reach (``WebSecurity/passwordLogin``), and its form.
  private func login(_ request: WebRequest) throws -> WebResponse {
    guard security.passwordLogin != nil else { throw WebError(status: 404, "No page at this address") }
    var context = common(nil)
    // Nothing of a session, nor the repository's folder name, for whoever is not signed in yet.
    context["csrf"] = ""
    context["root_name"] = "nb"
    // Whether to say that the password crosses the network in the clear.
    context["secure"] = security.secure
    guard request.method == "POST" else { return .html(try pages.render("login.html", context)) }
    let (response, _) = security.signIn(request)
    if let response { return response }
    context["problem"] = "Wrong password. Failed sign-ins are limited to a few a minute from one address."
    return .html(try pages.render("login.html", context), status: 401)
  }

  private func notebook(_ raw: Substring, _ request: WebRequest) throws -> WebResponse {
    let path = raw.isEmpty ? "" : try WebPath.repositoryPath(raw.hasSuffix("/") ? raw.dropLast() : raw)
    var isDirectory: ObjCBool = false
    guard let directory = try WebPath.file(path.isEmpty ? "." : path, in: repository.root),
      FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue,
      !path.hasPrefix(".")
    else { throw WebError(status: 404, "No notebook \(path)") }
    // Its own notes only: the notebook's subtree less each child's.
    let children =
      path.isEmpty
      ? try repository.rootNotebooks().map(\.path).sorted() : (repository.childNotebookPaths(of: path) ?? []).sorted()
    var text = path.isEmpty ? "" : "notebook:\(Self.quoted(path))"
    for child in children { text += " -notebook:\(Self.quoted(child))" }
    let sorts: [NoteQuery.Sort] = [.updated, .created, .title]
    let sort = sorts.first { $0.rawValue == request.queryValue("sort") } ?? .updated
    let (page, offset) = pageNumber(request)
    let total = try repository.count(matching: NoteQuery(text))
    let hits = try repository.notes(matching: NoteQuery(text, sort: sort, limit: pageSize, offset: offset))
    let base = "/notebook/" + WebPath.encoded(path)
    var context = common(request)
    context["title"] = path.isEmpty ? "Top level" : path
    context["crumbs"] = Self.crumbs(path)
    context["children"] = children.map {
      ["name": String($0.split(separator: "/").last ?? ""), "url": "/notebook/" + WebPath.encoded($0)]
    }
    context["sorts"] = sorts.map {
      ["name": $0.rawValue, "url": base + "?sort=" + $0.rawValue, "current": $0 == sort] as [String: Any]
    }
    context["notes_html"] = Self.notesHTML(hits)
    context["total"] = total
    context.merge(pager(page: page, total: total) { base + "?sort=\(sort.rawValue)&page=\($0)" }) { $1 }
    return .html(try pages.render("notebook.html", context))
  }

  private func note(_ path: String, _ request: WebRequest) throws -> WebResponse {
    let note = try existingNote(path)
    let text = try repository.text(of: note)
    let bodyStart = text.utf8.distance(from: text.startIndex, to: NoteRepository.bodyStart(in: text))
    let links = LinkScanner.links(in: text)
    var targets: [Int: NoteMarkdown.Target] = [:]
    for indexed in try repository.links(from: note)
    where indexed.ordinal < links.count && links[indexed.ordinal].kind == indexed.kind
      && links[indexed.ordinal].target == indexed.target
    {
      switch indexed.resolution {
      case .note(let target, _): targets[indexed.ordinal] = .init(path: target, isNote: true)
      case .attachment(let target, _): targets[indexed.ordinal] = .init(path: target, isNote: false)
      case .unresolved: break
      }
    }
    let body = NoteMarkdown.body(of: text, bodyStart: bodyStart, links: links, targets: targets)
    var context = common(nil)
    context["note"] =
      [
        "title": note.title, "path": note.path, "tags": note.tags.map(Self.tagItem),
        "edit_url": "/edit/" + WebPath.encoded(note.path),
        "history_url": "/history/" + WebPath.encoded(note.path),
        "draw_url": "/draw/" + WebPath.encoded(note.path),
      ] as [String: Any]
    context["crumbs"] = Self.crumbs(note.notebook)
    var fields: [[String: String]] = []
    if let created = note.created { fields.append(["key": "created", "value": created.rfc3339]) }
    if let updated = note.updated { fields.append(["key": "updated", "value": updated.rfc3339]) }
    for alias in note.aliases { fields.append(["key": "alias", "value": alias]) }
    if let conflictOf = note.conflictOf { fields.append(["key": "conflict of", "value": conflictOf]) }
    context["fields"] = fields
    context["warning"] = note.warning
    // After the edit form's redirect: says the save landed (and tells the script to drop the browser's draft).
    context["saved"] = ["1": "saved", "merged": "merged"][request.queryValue("saved") ?? ""]
    context["body_html"] = NoteMarkdown.addingHeadingIDs(to: try Markdown.html(body))
    context["backlinks"] = try repository.backlinks(to: note.path).filter { $0.source != note.path }.map {
      ["title": $0.sourceTitle, "url": "/note/" + WebPath.encoded($0.source), "line": $0.line, "text": $0.text]
        as [String: Any]
    }
    context["attachments"] = try repository.attachmentFiles(of: note).map {
      [
        "name": String($0.path.split(separator: "/").last ?? ""), "url": "/file/" + WebPath.encoded($0.path),
        "size": ByteCountFormatter.string(fromByteCount: $0.bytes, countStyle: .file),
      ]
    }
    do {
      if let drawing = try repository.ink(of: note) {
        // The sidecar's fingerprint in the address: a live refresh after a stroke elsewhere loads the new image.
        let version = inkVersion(of: note)
        context["ink_pages"] = InkSVG.pages(of: drawing).indices.map {
          [
            "url": "/ink/\(WebPath.encoded(note.path))?page=\($0)&v=\(version)", "alt": "Handwriting, page \($0 + 1)",
            "draw_url": "/draw/\(WebPath.encoded(note.path))?page=\($0)",
          ]
        }
      }
    } catch {
      // A broken sidecar must not hide the note, as in nb show.
      context["ink_problem"] = "\(error)"
    }
    return .html(try pages.render("note.html", context))
  }

  /// The raw file in a form that remembers the version it was loaded from.
  private func edit(_ path: String) throws -> WebResponse {
    guard !security.readOnly else { throw WebError(status: 403, "The server is read-only") }
    let note = try existingNote(path)
    // Text and version from one read: a version of other bytes would let a save overwrite what the form never showed.
    let (text, version) = try repository.versionedText(of: note)
    return try editPage(note, text: text, version: version, status: 200)
  }

  /// A save from the edit form: exactly `nb edit`'s commit when the file is still the version the form was loaded
  /// from; else the edit merged with the file as it is now (sync's three-way merge, the form's `base` being the
  /// text it was loaded with); on a true conflict the form again, the text typed kept, with the file now beside it.
  private func saveEdit(_ path: String, _ request: WebRequest) throws -> WebResponse {
    let note = try existingNote(path)
    guard var text = request.formValue("text"), let version = request.formValue("version") else {
      throw WebError(status: 400, "The form has no text or version")
    }
    // Base64 in the form: a hidden field's line breaks would come back as CRLF, and the base must be exact bytes.
    let base = request.formValue("base").flatMap { Data(base64Encoded: $0) }.flatMap {
      String(data: $0, encoding: .utf8)
    }
    // Browsers send a textarea's lines with CRLF; a file written with LF keeps LF.
    let original = try repository.text(of: note)
    if !original.contains("\r\n") { text = text.replacingOccurrences(of: "\r\n", with: "\n") }
    do {
      let outcome =
        try base.map { try repository.save(text: text, to: note, over: version, base: $0) }
        ?? repository.save(text: text, to: note, over: version)
      switch outcome {
      case .saved(let saved), .unchanged(let saved):
        return .redirect("/note/" + WebPath.encoded(saved.path) + "?saved=1")
      case .merged(let saved):
        return .redirect("/note/" + WebPath.encoded(saved.path) + "?saved=merged")
      case .changed(let current, let currentVersion):
        return try editPage(
          note, text: text, version: currentVersion, base: current, status: 409,
          problem: "Not saved: the file changed since you opened it (another editor or a sync)"
            + (base == nil ? "" : ", and both of you changed the same lines or the same front matter key")
            + ". Your text is below, the file as it is now under it; saving again replaces the file with your text.",
          current: current)
      }
    } catch let error as NoteStoreError {
      return try editPage(
        note, text: text, version: version, base: base ?? original, status: 422, problem: "Not saved: \(error)")
    }
  }

  private func editPage(
    _ note: Note, text: String, version: String, base: String? = nil, status: Int, problem: String? = nil,
    current: String? = nil
  ) throws -> WebResponse {
    var context = common(nil)
    context["note"] = ["title": note.title, "path": note.path, "url": "/note/" + WebPath.encoded(note.path)]
    context["crumbs"] = Self.crumbs(note.notebook)
    context["action"] = "/edit/" + WebPath.encoded(note.path)
    context["text"] = text
    context["version"] = version
    context["base"] = Data((base ?? text).utf8).base64EncodedString()
    context["problem"] = problem
    context["current"] = current
    return .html(try pages.render("edit.html", context), status: status)
  }

  /// A note's commits, newest first, following moves (as `nb history`); with `?commit=`, that version's diff
  /// against the one before it (`against=previous`, the default) or the file now (`against=current`).
  private func history(
    _ path: String, _ request: WebRequest, status: Int = 200, problem: String? = nil
  ) throws -> WebResponse {
    let note = try existingNote(path)
    let entries = try repository.history(of: note)
    let (current, version) = try repository.versionedText(of: note)
    let base = "/history/" + WebPath.encoded(note.path)
    var context = common(nil)
    context["note"] = ["title": note.title, "path": note.path, "url": "/note/" + WebPath.encoded(note.path)]
    context["crumbs"] = Self.crumbs(note.notebook)
    context["version"] = version
    context["problem"] = problem
    context["restore_action"] = "/restore/" + WebPath.encoded(note.path)
    let selected = request.queryValue("commit")
    context["entries"] = entries.map { entry -> [String: Any] in
      let id = entry.commit.id
      return [
        "commit": id, "short": String(id.prefix(8)), "subject": entry.commit.subject, "author": entry.commit.author,
        "email": entry.commit.email, "device": entry.device ?? "", "date": entry.commit.date.rfc3339,
        "change": entry.change.rawValue, "path": entry.path, "previous_path": entry.previousPath ?? "",
        "previous_url": base + "?commit=\(id)&against=previous", "current_url": base + "?commit=\(id)&against=current",
        "selected": id == selected,
      ]
    }
    if let selected {
      guard let index = entries.firstIndex(where: { $0.commit.id == selected }) else {
        throw WebError(status: 404, "No version \(selected) in the history of \(note.path)")
      }
      let entry = entries[index]
      let against = request.queryValue("against") ?? "previous"
      guard against == "previous" || against == "current" else {
        throw WebError(status: 400, "against= must be previous or current, not \(against)")
      }
      let text = try repository.text(at: entry.path, in: entry.commit.id) ?? ""
      let diff: LineDiff
      if against == "current" {
        diff = LineDiff(from: text, to: current)
        context["diff_title"] = "\(entry.commit.id.prefix(8)) → the file now"
      } else {
        let older = index + 1 < entries.count ? entries[index + 1] : nil
        let before = try older.map { try repository.text(at: $0.path, in: $0.commit.id) ?? "" } ?? ""
        diff = LineDiff(from: before, to: text)
        context["diff_title"] =
          older.map { "\($0.commit.id.prefix(8)) → \(entry.commit.id.prefix(8))" }
          ?? "\(entry.commit.id.prefix(8)) (the first version)"
      }
      context["diff"] = diff.lines.map { ["kind": $0.kind.rawValue, "text": $0.text] }
      context["diff_added"] = diff.added
      context["diff_removed"] = diff.removed
      context["diff_commit"] = entry.commit.id
    }
    return .html(try pages.render("history.html", context), status: status)
  }

  /// A version from the history page made the note's text again, as a new commit; refused when the file changed
  /// since the page was loaded.
  private func restore(_ path: String, _ request: WebRequest) throws -> WebResponse {
    let note = try existingNote(path)
    guard let commit = request.formValue("commit"), let version = request.formValue("version") else {
      throw WebError(status: 400, "The form has no commit or version")
    }
    guard let entry = try repository.history(of: note).first(where: { $0.commit.id == commit }) else {
      throw WebError(status: 404, "No version \(commit) in the history of \(note.path)")
    }
    switch try repository.restore(note, from: entry.commit.id, path: entry.path, over: version) {
    case .saved(let saved), .unchanged(let saved), .merged(let saved):
      return .redirect("/note/" + WebPath.encoded(saved.path))
    case .changed:
      return try history(
        path, WebRequest(method: "GET", target: "/"), status: 409,
        problem: "The file changed since this page was loaded (another editor or a sync); nothing was restored. "
          + "The history below is as it is now: restore again if that is still what you want.")
    }
  }

  /// Open tasks as the task views list them: Overdue, Today, Upcoming (7 days), No date, each grouped by project
  /// (the task's notebook); `?project=` keeps one project's (and those below it).
  private func tasks(_ request: WebRequest, status: Int = 200, problem: String? = nil) throws -> WebResponse {
    let project = request.queryValue("project").flatMap { $0.isEmpty ? nil : $0 }
    func list(_ view: TaskQuery.View) throws -> [TaskEntry] {
      try repository.tasks(TaskQuery(view: view, project: project))
    }
    let overdue = try list(.overdue)
    let late = Set(overdue.map(\.selector))
    let sections: [(String, String, [TaskEntry])] = [
      ("overdue", "Overdue", overdue),
      ("today", "Today", try list(.today).filter { !late.contains($0.selector) }),
      (
        "upcoming", "Upcoming",
        try list(.upcoming(days: 7)).filter { !late.contains($0.selector) && !$0.isDueToday(repository) }
      ),
      ("no-date", "No date", try list(.noDue)),
    ]
    var context = common(request)
    context["project"] = project ?? ""
    context["problem"] = problem
    context["sections"] = try sections.map { id, title, entries -> [String: Any] in
      var groups: [(String, [TaskEntry])] = []
      for entry in entries {
        let name = entry.note.notebook
        if let index = groups.firstIndex(where: { $0.0 == name }) {
          groups[index].1.append(entry)
        } else {
          groups.append((name, [entry]))
        }
      }
      return [
        // Not "count": Stencil reads a dictionary's `count` as its number of keys.
        "id": id, "title": title, "tally": entries.count,
        "groups": try groups.map { name, entries -> [String: Any] in
          [
            "name": name.isEmpty ? "(top level)" : name,
            "url": "/tasks?project=" + WebPath.queryValue(name), "tasks": try entries.map(taskItem),
          ]
        },
      ]
    }
    return .html(try pages.render("tasks.html", context), status: status)
  }

  private func taskItem(_ entry: TaskEntry) throws -> [String: Any] {
    var item: [String: Any] = [
      "selector": entry.selector, "title": entry.task.title, "url": "/note/" + WebPath.encoded(entry.note.path),
      "priority": entry.task.priority.text, "overdue": entry.isOverdue, "status": entry.task.status.text,
    ]
    if [.low, .high, .urgent].contains(entry.task.priority) { item["priority_label"] = entry.task.priority.text }
    if let due = entry.task.due { item["due"] = due.text }
    if let recurrence = entry.task.recurrence { item["recurrence"] = recurrence }
    if entry.subtasksTotal > 0 { item["subtasks"] = "\(entry.subtasksDone)/\(entry.subtasksTotal)" }
    if let line = entry.line { item["where"] = "\(entry.note.path):\(line)" }
    if entry.line == nil, entry.subtasksTotal > 0 { item["checklist"] = try subtasks(of: entry).map(subtaskItem) }
    return item
  }

  /// A task note's checklist lines as `nb task done --subtask N` numbers them (1 is the first, cancelled ones too).
  private func subtasks(of entry: TaskEntry) throws -> [(number: Int, item: ChecklistItem)] {
    let text = try repository.text(of: entry.note)
    let bodyStart = text.utf8.distance(from: text.startIndex, to: NoteRepository.bodyStart(in: text))
    return Checklist.items(in: text, bodyStart: bodyStart).enumerated().map { ($0.offset + 1, $0.element) }
  }

  private func subtaskItem(_ subtask: (number: Int, item: ChecklistItem)) -> [String: Any] {
    [
      "number": subtask.number, "text": subtask.item.text, "depth": min(subtask.item.depth, 6),
      "status": subtask.item.status.text, "open": !subtask.item.status.isClosed,
    ]
  }

  /// A subtask ticked on the tasks page: exactly `nb task done TASK --subtask N` (its checklist line's one
  /// character, one commit). The form names the task by selector and title and the subtask by number and text, so a
  /// list that moved underneath it ticks nothing.
  private func tickSubtask(_ request: WebRequest) throws -> WebResponse {
    guard let selector = request.formValue("task"), let title = request.formValue("title"),
      let number = request.formValue("subtask").flatMap({ Int($0) }), let text = request.formValue("text")
    else { throw WebError(status: 400, "The form has no task, title, subtask or text") }
    let entry: TaskEntry
    do {
      entry = try repository.resolveTask(selector)
    } catch let error as NoteStoreError {
      return try tasks(request, status: 409, problem: "Nothing was ticked: \(error)")
    }
    let subtask = entry.line == nil ? try subtasks(of: entry).first { $0.number == number } : nil
    guard entry.selector == selector, entry.task.title == title, let subtask, subtask.item.text == text else {
      return try tasks(
        request, status: 409,
        problem: "Nothing was ticked: \"\(text)\" is no longer subtask \(number) of \"\(title)\" (the file changed); "
          + "the list is as it is now.")
    }
    guard !subtask.item.status.isClosed else {
      return try tasks(
        request, status: 409, problem: "Nothing was ticked: \"\(text)\" is \(subtask.item.status.text) already.")
    }
    try repository.setSubtask(entry, .number(number), done: true)
    let back = request.formValue("project").flatMap { $0.isEmpty ? nil : $0 }
    return .redirect("/tasks" + (back.map { "?project=" + WebPath.queryValue($0) } ?? ""))
  }

  /// A task ticked on the tasks page: exactly `nb task done` (one commit; a repeating task moves to its next
  /// date). The form names the task by selector and title, so a list that moved underneath it ticks nothing.
  private func completeTask(_ request: WebRequest) throws -> WebResponse {
    guard let selector = request.formValue("task"), let title = request.formValue("title") else {
      throw WebError(status: 400, "The form has no task or title")
    }
    let entry: TaskEntry
    do {
      entry = try repository.resolveTask(selector)
    } catch let error as NoteStoreError {
      return try tasks(request, status: 409, problem: "Nothing was ticked: \(error)")
    }
    // The selector (a path, or path:line) must still be the task the page showed.
    guard entry.selector == selector, entry.task.title == title else {
      return try tasks(
        request, status: 409,
        problem:
          "Nothing was ticked: \(selector) is no longer \"\(title)\" (the file changed); the list is as it is now.")
    }
    guard !entry.task.status.isClosed else {
      return try tasks(
        request, status: 409, problem: "Nothing was ticked: \"\(title)\" is \(entry.task.status.text) already.")
    }
    try repository.completeTask(entry)
    let back = request.formValue("project").flatMap { $0.isEmpty ? nil : $0 }
    return .redirect("/tasks" + (back.map { "?project=" + WebPath.queryValue($0) } ?? ""))
  }

  /// The capture box every page carries: exactly `nb capture TEXT` (one commit), then the inbox.
  private func capture(_ request: WebRequest) throws -> WebResponse {
    guard let text = request.formValue("text") else { throw WebError(status: 400, "The form has no text") }
    guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
      throw WebError(status: 400, "Nothing to capture: the box is empty")
    }
    // Browsers send a textarea's lines with CRLF; a capture from a terminal has LF.
    let note = try repository.capture(text.replacingOccurrences(of: "\r\n", with: "\n"))
    return .redirect("/inbox#" + WebPath.queryValue(note.path))
  }

  /// Items waiting in the inbox, newest first, each with the suggested notebook and its confidence (as `nb inbox`
  /// lists them): one button files it there, a menu of notebooks corrects.
  private func inbox(_ request: WebRequest, status: Int = 200, problem: String? = nil) throws -> WebResponse {
    let items = try repository.inboxItems()
    let advice = try repository.advice(for: items)
    let inboxNotebook = repository.config.defaultNotebook
    let notebooks = try repository.notebooks().map(\.path).filter { $0 != inboxNotebook }.sorted()
    var context = common(request)
    context["problem"] = problem
    context["items"] = zip(items, advice).map { item, advice -> [String: Any] in
      var entry: [String: Any] = [
        "path": item.path, "title": item.title, "url": "/note/" + WebPath.encoded(item.path),
        "tags": item.tags.map(Self.tagItem), "captured": item.created?.rfc3339 ?? "",
        "candidates": advice.candidates.map {
          ["notebook": $0.notebook, "percent": Self.percent($0.confidence)]
        },
        "notebooks": notebooks.map { ["path": $0, "selected": $0 == advice.suggestion?.notebook] as [String: Any] },
      ]
      if let suggestion = advice.suggestion {
        entry["suggestion"] = suggestion.notebook
        entry["percent"] = Self.percent(suggestion.confidence)
        entry["by_command"] = advice.source == .command
      }
      return entry
    }
    return .html(try pages.render("inbox.html", context), status: status)
  }

  private static func percent(_ confidence: Double) -> String {
    "\(Int((confidence * 100).rounded()))%"
  }

  /// An item filed from the inbox page: exactly `nb inbox file ITEM NOTEBOOK` (the move, `status: filed`, the
  /// decision recorded with what was suggested; one commit).
  private func fileItem(_ request: WebRequest) throws -> WebResponse {
    guard let path = request.formValue("item"), let chosen = request.formValue("notebook") else {
      throw WebError(status: 400, "The form has no item or notebook")
    }
    let note = try existingNote(try WebPath.repositoryPath(Substring(path)))
    let advice = try repository.advice(for: note)
    let target = chosen.isEmpty ? advice.suggestion?.notebook : chosen
    guard let target else {
      return try inbox(
        request, status: 400,
        problem: "No notebook chosen for \(note.path), and no suggestion is sure enough: choose one.")
    }
    do {
      try repository.file(
        note, to: target, suggested: advice.suggestion?.notebook, confidence: advice.suggestion?.confidence)
    } catch NoteStoreError.invalidArgument(let message) {
      return try inbox(request, status: 400, problem: "Not filed: \(message)")
    }
    return .redirect("/inbox")
  }

  private func search(_ request: WebRequest) throws -> WebResponse {
    let query = request.queryValue("q") ?? ""
    var context = common(request)
    context["help"] = QueryLanguage.help
    var status = 200
    if !query.trimmingCharacters(in: .whitespaces).isEmpty {
      let (page, offset) = pageNumber(request)
      do {
        let total = try repository.count(matching: NoteQuery(query))
        let hits = try repository.notes(matching: NoteQuery(query, limit: pageSize, offset: offset))
        context["total"] = total
        context["notes_html"] = Self.notesHTML(hits)
        context["pinned"] = repository.pinnedSearches.contains(query.trimmingCharacters(in: .whitespaces))
        context.merge(pager(page: page, total: total) { "/search?q=\(WebPath.queryValue(query))&page=\($0)" }) { $1 }
      } catch let error as NoteStoreError {
        guard case .badQuery = error else { throw error }
        context["error"] = "\(error)"
        status = 400
      }
    }
    return .html(try pages.render("search.html", context), status: status)
  }

  private func file(_ path: String) throws -> WebResponse {
    var isDirectory: ObjCBool = false
    guard let url = try WebPath.file(path, in: repository.root),
      FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue
    else { throw WebError(status: 404, "No file \(path)") }
    let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64 ?? 0
    guard size <= fileLimit else {
      throw WebError(
        status: 413, "\(path) is \(size) bytes, more than this server sends (\(fileLimit)); open it from the repository"
      )
    }
    let name = String(path.split(separator: "/").last ?? "file")
    var headers: [(name: String, value: String)] = [("Content-Security-Policy", WebSecurity.filePolicy)]
    // Only raster images are shown as themselves; anything else (HTML, SVG, PDF, text) is a download, so no file
    // of a note's ever renders as a page of this server.
    if let type = NoteMarkdown.imageTypes[(path as NSString).pathExtension.lowercased()] {
      headers.append(("Content-Type", type))
    } else {
      headers.append(("Content-Type", "application/octet-stream"))
      let ascii = String(
        name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 ? Character($0) : "_" })
      headers.append(
        ("Content-Disposition", "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(WebPath.queryValue(name))"))
    }
    headers.append(("Content-Length", "\(size)"))
    var response = WebResponse(status: 200, headers: headers)
    response.file = url
    return response
  }

  private func ink(_ path: String, _ request: WebRequest) throws -> WebResponse {
    let note = try existingNote(path)
    guard let drawing = try repository.ink(of: note) else { throw WebError(status: 404, "\(path) has no ink") }
    let slots = InkSVG.pages(of: drawing)
    guard let index = Int(request.queryValue("page") ?? "0"), slots.indices.contains(index) else {
      throw WebError(status: 404, "No such ink page")
    }
    var shown = drawing
    if let hide = request.queryValue("hide"), !hide.isEmpty {
      // The Draw page's strokes erased there and not saved yet: the page shows them gone at once.
      let hidden = Set(hide.split(separator: ",").map(String.init))
      // Drawn as the eraser ink, which the renderer skips: the page keeps its place among the pages.
      for index in shown.strokes.indices where hidden.contains(shown.strokes[index].id) {
        shown.strokes[index].ink = .eraser
      }
    }
    let svg = try InkSVG.renderData(shown, page: slots[index].map { .page($0) } ?? .implicit)
    return WebResponse(
      status: 200,
      headers: [("Content-Type", "image/svg+xml"), ("Content-Security-Policy", WebSecurity.filePolicy)], body: svg)
  }

  private func asset(_ name: Substring) throws -> WebResponse {
    let types = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"]
    guard let text = WebTemplates.all[String(name)], let type = types[(String(name) as NSString).pathExtension] else {
      throw WebError(status: 404, "No such asset")
    }
    return WebResponse(status: 200, headers: [("Content-Type", type)], body: Data(text.utf8))
  }

  // MARK: - Pieces

  /// The note at exactly `path` (a `.md` file that exists inside the repository).
  func existingNote(_ path: String) throws -> Note {
    guard path.lowercased().hasSuffix(".md"), try WebPath.file(path, in: repository.root) != nil else {
      throw WebError(status: 404, "No note \(path)")
    }
    let note = try repository.resolve(path)
    guard note.path == path else { throw WebError(status: 404, "No note \(path)") }
    return note
  }

  /// What every page's frame shows.
  func common(_ request: WebRequest?) -> [String: Any] {
    [
      "root_name": repository.root.lastPathComponent, "read_only": security.readOnly,
      "query": request?.queryValue("q") ?? "", "csrf": security.csrfToken,
    ]
  }

  /// The home page's notebook tree as HTML, every value escaped (empty for none): made here rather than by the
  /// template for the reason ``notesHTML(_:)`` gives — a fifth of a home page's time with 1 000 notebooks.
  static func notebooksHTML(_ counts: [NotebookCount]) -> String {
    guard !counts.isEmpty else { return "" }
    var html = "<ul class=\"tree\">\n"
    for count in counts {
      let name = count.path.isEmpty ? "(top level)" : String(count.path.split(separator: "/").last ?? "")
      let depth = count.path.isEmpty ? 0 : count.path.split(separator: "/").count - 1
      html += "    <li class=\"depth-\(depth)\"><a href=\"/notebook/\(HTML.escape(WebPath.encoded(count.path)))\">"
      html += "\(HTML.escape(name))</a> <span class=\"count\" title=\"notes here / with the notebooks below\">"
      html +=
        "\(count.notes)\(count.notesWithChildren != count.notes ? " / \(count.notesWithChildren)" : "")</span></li>\n"
    }
    return html + "  </ul>"
  }

  /// A list of notes (a notebook's page, search hits, the recent notes) as HTML, every value escaped: made here
  /// rather than by a template because Stencil resolves each variable through a copy of its dictionary (bridged to
  /// an NSDictionary on Linux), which for 50 notes was most of a notebook page's time.
  static func notesHTML(_ hits: [NoteHit]) -> String {
    guard !hits.isEmpty else { return "<p class=\"empty\">No notes.</p>" }
    var html = "<ul class=\"notes\">\n"
    for hit in hits {
      let note = hit.note
      let encoded = WebPath.encoded(note.path)
      html += "  <li>\n"
      if hit.hasInk {
        // The first page of its handwriting, as the note page shows it (nb's own SVG; an <img> runs nothing).
        html += "    <img class=\"thumb\" src=\"/ink/\(HTML.escape(encoded))?page=0\" alt=\"\" loading=\"lazy\">\n"
      }
      html += "    <a class=\"title\" href=\"/note/\(HTML.escape(encoded))\">\(HTML.escape(note.title))</a>\n"
      html += "    <span class=\"meta\"><span class=\"path\">\(HTML.escape(note.path))</span>"
      if let updated = note.updated?.rfc3339 {
        html += " · <time datetime=\"\(HTML.escape(updated))\">\(HTML.escape(String(updated.prefix(10))))</time>"
      }
      if hit.hasInk { html += " · ink" }
      html += "</span>\n"
      if !note.tags.isEmpty {
        html += "    <span class=\"tags\">"
        for tag in note.tags {
          html += "<a class=\"chip tag\" href=\"\(HTML.escape(tagURL(tag)))\">#\(HTML.escape(tag))</a> "
        }
        html += "</span>\n"
      }
      if let snippet = hit.snippet { html += "    <p class=\"snippet\">\(snippetHTML(snippet))</p>\n" }
      html += "  </li>\n"
    }
    return html + "</ul>\n"
  }

  /// A snippet's text escaped, its highlights (code point ranges) in `<mark>`.
  static func snippetHTML(_ snippet: NoteSnippet) -> String {
    let scalars = Array(snippet.text.unicodeScalars)
    var html = ""
    var position = 0
    func text(_ range: Range<Int>) -> String {
      var part = String.UnicodeScalarView()
      part.append(contentsOf: scalars[range])
      return HTML.escape(String(part))
    }
    for highlight in snippet.highlights.sorted(by: { $0.lowerBound < $1.lowerBound }) {
      let lower = max(min(highlight.lowerBound, scalars.count), position)
      let upper = max(min(highlight.upperBound, scalars.count), lower)
      html += text(position..<lower) + "<mark>" + text(lower..<upper) + "</mark>"
      position = upper
    }
    return html + text(position..<scalars.count)
  }

  private static func tagItem(_ tag: String) -> [String: String] {
    ["name": tag, "url": tagURL(tag)]
  }

  /// The search for a tag's notes.
  private static func tagURL(_ tag: String) -> String {
    "/search?q=" + WebPath.queryValue("tag:" + quoted(tag))
  }

  /// A query value, in double quotes when it holds anything the query language would read otherwise (a quote
  /// inside doubled, as the language reads it).
  static func quoted(_ value: String) -> String {
    value.contains(where: { $0.isWhitespace || "\"()".contains($0) })
      ? "\"\(value.replacingOccurrences(of: "\"", with: "\"\""))\"" : value
  }

  static func crumbs(_ notebook: String) -> [[String: String]] {
    var path = ""
    return notebook.split(separator: "/").map { part in
      path += (path.isEmpty ? "" : "/") + part
      return ["name": String(part), "url": "/notebook/" + WebPath.encoded(path)]
    }
  }

  private func pageNumber(_ request: WebRequest) -> (page: Int, offset: Int) {
    let page = max(1, min(Int(request.queryValue("page") ?? "1") ?? 1, 1_000_000))
    return (page, (page - 1) * pageSize)
  }

  private func pager(page: Int, total: Int, url: (Int) -> String) -> [String: Any] {
    let pages = max(1, (total + pageSize - 1) / pageSize)
    var result: [String: Any] = ["page": page, "pages": pages]
    if page > 1 { result["previous_url"] = url(min(page - 1, pages)) }
    if page < pages { result["next_url"] = url(page + 1) }
    return result
  }

  private func errorPage(for error: Error) -> WebResponse {
    let (status, message) = Self.status(for: error)
    let heading =
      [
        400: "Bad request", 403: "Forbidden", 404: "Not found", 409: "Changed meanwhile", 413: "Too large",
        415: "Wrong kind of body", 422: "Cannot do that",
      ][status] ?? "Something went wrong"
    let context = common(nil).merging(["status": status, "heading": heading, "message": message]) { $1 }
    guard let page = try? pages.render("error.html", context) else { return .text(message, status: status) }
    return .html(page, status: status)
  }

  /// The status and one-line message an error is answered with.
  static func status(for error: Error) -> (status: Int, message: String) {
    let status: Int
    let message: String
    switch error {
    case let error as WebError:
      (status, message) = (error.status, error.message)
    case let error as WebPath.Refused:
      (status, message) = (403, "Forbidden: \(error.description)")
    case let error as InkEditError:
      (status, message) = (409, "\(error)")
    case let error as InkRenderError:
      (status, message) = (404, "\(error)")
    case let error as NoteStoreError:
      switch error {
      case .noteNotFound, .notebookNotFound: status = 404
      case .outsideRepository: status = 403
      case .badQuery, .invalidArgument: status = 400
      case .notUTF8, .malformedFrontMatter, .malformedInk: status = 422
      default: status = 500
      }
      message = "\(error)"
    default:
      (status, message) = (500, "\(error)")
    }
    return (status, message)
  }
}

/// A request the app answers with an error page.
struct WebError: Error {
  var status: Int
  var message: String

  init(status: Int, _ message: String) {
    self.status = status
    self.message = message
  }
}

extension TaskEntry {
  /// Due today (any time): listed under Today, not Upcoming.
  fileprivate func isDueToday(_ repository: NoteRepository) -> Bool {
    guard let due = task.due else { return false }
    return due.day == repository.today
  }
}

extension Substring {
  /// The rest after `prefix`, nil when it does not start with it.
  fileprivate func dropPrefix(_ prefix: String) -> Substring? {
    hasPrefix(prefix) ? dropFirst(prefix.count) : nil
  }
}

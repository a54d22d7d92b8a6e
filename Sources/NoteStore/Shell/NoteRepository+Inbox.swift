import Foundation
import InboxKit
import TaskKit
import TextFormat

/// The inbox: items captured in one command into the default notebook (`status: pending`, `captured:`), then filed
/// into the notebook they belong in (`status: filed`, `filed:`), each filing recorded in `.nb/inbox/decisions.jsonl`.
extension NoteRepository {
  /// The committed, append-only record of filing decisions (one JSON object a line, sorted by time).
  public static let inboxDecisionsFile = ".nb/inbox/decisions.jsonl"

  /// At most this many characters of a capture's first line become its title.
  static let captureTitleLimit = 80

  /// Captures `text` as a new inbox item (one commit) and returns it. The title is `title`, else the first line
  /// (cut at a word to ``captureTitleLimit`` characters); a capture that is only a URL is titled by its host and
  /// path (nothing is fetched). Empty text and text holding NUL bytes are refused.
  @discardableResult
  public func capture(_ text: String, title: String? = nil, tags: [String] = []) throws -> Note {
    let trimmed = text.trimmingWhitespacesAndNewlines()
    guard !trimmed.isEmpty else {
      throw NoteStoreError.invalidArgument("nothing to capture: give the text as an argument or on standard input")
    }
    guard !text.unicodeScalars.contains("\u{0}") else {
      throw NoteStoreError.invalidArgument("the capture holds NUL bytes (binary data?); nothing was written")
    }
    let heading = title ?? Self.captureTitle(trimmed)
    let stamp = now.rfc3339
    let draft = NoteDraft(title: heading, notebook: config.defaultNotebook, tags: tags, content: text)
    return try createNotes([draft], subject: nil) { _, rendered in
      var t = try FrontMatter.setting(TaskFrontMatter.statusKey, to: "pending", in: rendered)
      t = try FrontMatter.setting("captured", to: stamp, in: t)
      return t
    }[0]
  }

  /// The title a capture gets from its text: a URL's host and path, else the first line cut at a word.
  static func captureTitle(_ text: String) -> String {
    let first = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
    var line = first.trimmingWhitespaces()
    if !line.contains(" "), let url = URL(string: line), let host = url.host, url.scheme?.hasPrefix("http") == true {
      // A title holds no "/": the path's parts follow the host as words.
      line = ([host] + url.path.split(separator: "/").map(String.init)).joined(separator: " ")
    }
    guard line.count > captureTitleLimit else { return line }
    let cut = line.prefix(captureTitleLimit)
    let atWord = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
    return atWord.trimmingWhitespaces() + "…"
  }

  /// Items waiting to be filed (`status: pending`), newest capture first: those anywhere that a commit made, and
  /// those in the inbox that are not committed yet (the walk for uncommitted edits covers only the inbox, so that
  /// listing it does not cost a stat of every note).
  public func inboxItems() throws -> [Note] {
    try index.notes(
      where: "n.rowid IN (SELECT note FROM field WHERE key = 'status' AND folded = 'pending')",
      order: """
        (SELECT max(instant) FROM field f WHERE f.note = n.rowid AND f.key = 'captured') DESC, n.created DESC, n.path
        """, scope: config.defaultNotebook)
  }

  /// Files an inbox item into `notebook`, in one commit: moves the note (with its sidecars and attachments), sets
  /// `status: filed` and `filed:`, and appends the decision to ``inboxDecisionsFile``. `suggested`/`confidence`
  /// record what nb suggested (nil: nothing). A notebook that does not exist is refused with the closest ones named,
  /// unless `create`.
  @discardableResult
  public func file(
    _ item: Note, to notebook: String, create: Bool = false, suggested: String? = nil, confidence: Double? = nil
  ) throws -> Note {
    let text = try readText(item.path)
    let status = try frontMatterCall(item.path) { try FrontMatter.readIndexed(text).fields }
      .first { $0.key == TaskFrontMatter.statusKey }?.text.lowercased()
    guard status == "pending" else {
      throw NoteStoreError.invalidArgument(
        "\(item.path) is not in the inbox (its status is \(status.map { "'\($0)'" } ?? "not set"), not 'pending'); 'nb inbox' lists the items")
    }
    let target = notebook.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
    if !create {
      do {
        _ = try existingNotebookPath(target)
      } catch NoteStoreError.notebookNotFound(let path) {
        let closest = Self.closest(path, among: try notebooks().map(\.path))
        throw NoteStoreError.invalidArgument(
          "no notebook '\(path)'"
            + (closest.isEmpty ? "" : "; closest: \(closest.joined(separator: ", "))")
            + "; pass --create to make it")
      }
    }
    let decision = InboxDecision(
      time: clock(), item: item.id ?? item.path, suggested: suggested, chosen: target, confidence: confidence,
      device: device)
    return try mutate { tx in
      let moved = try move(item, to: target, in: &tx)
      var edited = try readText(moved.path)
      edited = try frontMatterCall(moved.path) {
        var t = try FrontMatter.setting(TaskFrontMatter.statusKey, to: "filed", in: edited)
        t = try FrontMatter.setting("filed", to: now.rfc3339, in: t)
        return t
      }
      let note = try stampAndWrite(moved.path, text: edited, in: &tx, subject: "file \(item.path) -> \(target)/")
      let log = FileSystem.exists(absolute(Self.inboxDecisionsFile)) ? try readText(Self.inboxDecisionsFile) : ""
      try tx.write(Self.inboxDecisionsFile, DecisionLog.appending(decision, to: log))
      return note
    }
  }

  /// The decisions recorded so far, and a warning for each line that could not be read.
  public func inboxDecisions() throws -> (decisions: [InboxDecision], warnings: [String]) {
    guard FileSystem.exists(absolute(Self.inboxDecisionsFile)) else { return ([], []) }
    let parsed = DecisionLog.parse(try readText(Self.inboxDecisionsFile))
    return (parsed.decisions, parsed.warnings.map { "\(Self.inboxDecisionsFile): \($0)" })
  }

  /// Up to three paths most like `name` (by edit distance of the last component, then of the whole path).
  static func closest(_ name: String, among paths: [String]) -> [String] {
    let wanted = name.lowercased()
    let scored = paths.map { path -> (String, Int) in
      let last = RepoPaths.lastComponent(of: path).lowercased()
      return (path, min(distance(wanted, last), distance(wanted, path.lowercased())))
    }
    let limit = max(2, wanted.count / 2)
    return scored.filter { $0.1 <= limit }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(3).map(\.0)
  }

  /// Levenshtein distance over characters.
  static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
      var current = [i] + Array(repeating: 0, count: b.count)
      for j in 1...b.count {
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      previous = current
    }
    return previous[b.count]
  }
}

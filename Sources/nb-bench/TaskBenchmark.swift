// `nb-bench --tasks`: the task views at the issue's scale (100 000 notes, 20 000 task notes, 50 000 inline tasks)
// against a scan with ripgrep and git grep, and `nb task done` against `nb edit --append`.
import Foundation
import NBTestSupport
import NoteStore

/// The fixed "now" every measured command runs at (Tuesday, 10:00 in Berlin), so "today" has the same tasks.
private let benchNow = "2026-11-24T10:00:00+01:00"

func taskBenchmark(options: Options) throws {
  for size in options.sizes {
    let root = "\(options.workDirectory)/tasks-\(size)"
    let taskNotes = size / 5
    let inlineTasks = size / 2
    let setup = try time { try buildTaskRepository(at: root, count: size, taskNotes: taskNotes, inline: inlineTasks) }
    FileHandle.standardError.write(
      Data("built \(size) notes (\(taskNotes) tasks, \(inlineTasks) inline) in \(String(format: "%.1f", setup)) s\n".utf8))
    let environment = ["NB_NOW": benchNow, "TZ": "Europe/Berlin"]
    let index = must(spawn([options.nbBinary, "--dir", root, "task", "list", "--today"], cwd: root, environment: environment), "first task list")
    var rows: [Row] = [Row(name: "first nb task list (builds the index)", p50: index.seconds, p95: index.seconds)]

    func measure(_ name: String, versus: Double? = nil, _ arguments: @escaping (Int) -> [String]) -> Double {
      var times: [Double] = []
      for i in 0..<options.samples {
        let run = spawn(arguments(i), cwd: root, environment: environment)
        // grep-like tools exit 1 when nothing matches; that is an answer, not a failure.
        if run.status != 0 && !(run.status == 1 && arguments(i).first != options.nbBinary) {
          fail("\(name) exited with status \(run.status)")
        }
        times.append(run.seconds)
      }
      let p50 = percentile(times, 0.5)
      let rss = arguments(0).first == options.nbBinary ? peakRSSKiB(arguments(0)) : nil
      rows.append(
        Row(name: name, p50: p50, p95: percentile(times, 0.95), rssKiB: rss, versus: versus.map { ratio($0, p50) } ?? ""))
      return p50
    }
    let nb = [options.nbBinary, "--dir", root]
    let rgToday = measure("rg -l 'due: 2026-11-24' (a scan: task notes due today)") { _ in
      ["rg", "-l", "--no-messages", "due: 2026-11-24", root]
    }
    _ = measure("git grep -l 'due: 2026-11-24'") { _ in ["git", "grep", "-l", "due: 2026-11-24"] }
    let gitStatus = measure("git status (stats every file: the floor of a walk)") { _ in ["git", "status", "--porcelain"] }
    let views: [(String, [String])] = [
      ("--today", ["task", "list", "--today"]), ("--overdue", ["task", "list", "--overdue"]),
      ("--project area-3 --sort priority", ["task", "list", "--project", "area-3", "--sort", "priority"]),
      ("--upcoming 7d --json", ["task", "list", "--upcoming", "7d", "--json"]),
    ]
    for (label, arguments) in views {
      _ = measure("nb task list \(label) (walks the tree for edits)", versus: gitStatus) { _ in nb + arguments }
    }
    // While a watcher runs: this process owns the change journal (as `nb watch` would), so a command checks only
    // the paths it recorded instead of walking the tree.
    if let repository = try? NoteRepository.open(at: URL(fileURLWithPath: root)),
      let journal = try ChangeJournal.open(repository: repository)
    {
      let answering = try NewFileWatcher(directory: journal.requestDirectory) { [journal] in
        journal.acknowledge(request: $0)
      }
      _ = spawn(nb + ["task", "list", "--today"], cwd: root, environment: environment)
      for (label, arguments) in views {
        _ = measure("nb task list \(label), watcher running", versus: rgToday) { _ in nb + arguments }
      }
      answering.stop()
      journal.close()
    }
    let edit = measure("nb edit --append (reference for done)") { i in
      nb + ["edit", "area-6/topic-5/note-\(56 + 100 * i).md", "--append", "line \(i)"]
    }
    _ = measure("nb task done <task note>", versus: edit) { i in nb + ["task", "done", "area-2/topic-1/task-\(12 + 100 * i).md"] }
    _ = measure("nb task done <path:line> (inline)", versus: edit) { i in
      nb + ["task", "done", "area-3/topic-7/note-\(73 + 100 * i).md:12"]
    }
    report(size: size, rows: rows)
    if !options.keep { try? FileManager.default.removeItem(atPath: root) }
  }
}

/// `count` notes in 100 notebooks: every fifth a task note, and `inline` checklist lines (two per note) with
/// Obsidian Tasks fields spread over the other notes. As in a repository used for years, most tasks are done (80 %);
/// of the open ones 10 % are overdue, 20 % have no due date and the rest are due within half a year; one in seven
/// task notes repeats weekly.
private func buildTaskRepository(at root: String, count: Int, taskNotes: Int, inline: Int) throws {
  try? FileManager.default.removeItem(atPath: root)
  _ = try NoteRepository.initialize(at: URL(fileURLWithPath: root))
  let stamp = "2026-11-01T10:15:03+01:00"
  let priorities = ["none", "low", "normal", "high", "urgent"]
  /// A deterministic spread over 0..<100 for item `n`.
  func percent(_ n: Int) -> Int { (n &* 2_654_435_761 >> 7) % 100 }
  /// The state and due date of task `n`: done (due and completed in the past), or open with a due date or none.
  func plan(_ n: Int) -> (done: Bool, due: String?, completed: String) {
    let p = percent(n)
    let spread = (n * 7919) % 180
    if p < 80 { return (true, isoDay(offsetFromBenchDay: -1 - spread * 4), isoDay(offsetFromBenchDay: -spread * 4)) }
    if p < 82 { return (false, isoDay(offsetFromBenchDay: -1 - spread % 30), "") }
    if p < 86 { return (false, nil, "") }
    return (false, isoDay(offsetFromBenchDay: spread), "")
  }
  var inlineLeft = inline
  for i in 0..<count {
    let directory = "\(root)/area-\(i % 10)/topic-\((i / 10) % 10)"
    if i < 100 { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
    if i % 5 == 2 {
      // The tasks `nb task done` is measured on are open (a done one would be a no-op).
      let task = i % 100 == 12 ? (false, isoDay(offsetFromBenchDay: 3), "") : plan(i)
      var keys = "status: \(task.done ? "done" : (percent(i + 1) < 25 ? "in-progress" : "open"))\n"
      keys += "priority: \(priorities[(i / 5) % priorities.count])\n"
      if let due = task.due { keys += "due: \(due)\n" }
      if task.done { keys += "completedDate: \(task.completed)\n" }
      if i % 35 == 2 { keys += "recurrence: FREQ=WEEKLY\nrecurrence_anchor: scheduled\n" }
      let text = """
        ---
        id: \(UUID().uuidString.lowercased())
        title: Task \(i)
        created: \(stamp)
        updated: \(stamp)
        \(keys)contexts: [office]
        ---
        - [ ] first step of \(i)
        - [x] second step

        """
      try text.write(toFile: "\(directory)/task-\(i).md", atomically: false, encoding: .utf8)
      continue
    }
    var body = "# Note \(i)\n\nSome text for note \(i), long enough to look like a real note.\n\n"
    if inlineLeft > 0 {
      for k in 0..<2 {
        let task = i % 100 == 73 && k == 0 ? (false, isoDay(offsetFromBenchDay: 3), "") : plan(i * 2 + k + 1_000_003)
        var line = task.done ? "- [x] " : "- [ ] "
        line += k == 0 ? "call about \(i)" : "follow up \(i)"
        if let due = task.due { line += " 📅 \(due)" }
        if k == 0 { line += " ⏫" }
        if task.done { line += " ✅ \(task.completed)" }
        body += line + "\n"
      }
      inlineLeft -= 2
    }
    let text = """
      ---
      id: \(UUID().uuidString.lowercased())
      title: Note \(i)
      created: \(stamp)
      updated: \(stamp)
      tags: [t\(i % 50)]
      ---

      """ + body
    try text.write(toFile: "\(directory)/note-\(i).md", atomically: false, encoding: .utf8)
  }
  _ = must(spawn(["git", "add", "-A"], cwd: root), "git add -A")
  _ = must(spawn(["git", "commit", "-q", "-m", "bench: \(count) notes with tasks"], cwd: root), "git commit")
}

/// 2026-11-24 moved by `offset` days, as `YYYY-MM-DD`.
private func isoDay(offsetFromBenchDay offset: Int) -> String {
  let base = Date(timeIntervalSince1970: 1_795_478_400)  // 2026-11-24T00:00:00Z
  let date = base.addingTimeInterval(TimeInterval(offset * 86_400))
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.timeZone = TimeZone(identifier: "UTC")
  formatter.dateFormat = "yyyy-MM-dd"
  return formatter.string(from: date)
}

// `nb-bench --tasks`: the task views at the issue's scale (100 000 notes, 20 000 task notes, 50 000 inline tasks)
// against a scan with ripgrep and git grep, and `nb task done` against `nb edit --append`.
import Foundation
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
        let argv = arguments(i)
        let run = must(spawn(argv, cwd: root, environment: environment), name)
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
    let gitGrep = measure("git grep -l 'due: 2026-11-24'") { _ in ["git", "grep", "-l", "due: 2026-11-24"] }
    _ = gitGrep
    _ = measure("nb task list --today", versus: rgToday) { _ in nb + ["task", "list", "--today"] }
    _ = measure("nb task list --overdue", versus: rgToday) { _ in nb + ["task", "list", "--overdue"] }
    _ = measure("nb task list --project area-3 --sort priority", versus: rgToday) { _ in
      nb + ["task", "list", "--project", "area-3", "--sort", "priority"]
    }
    _ = measure("nb task list --upcoming 7d --json", versus: rgToday) { _ in nb + ["task", "list", "--upcoming", "7d", "--json"] }
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

/// `count` notes in 100 notebooks: every fifth a task note (due dates spread over ±60 days, priorities, some
/// repeating), and `inline` checklist lines with Obsidian Tasks fields spread over the other notes (two per note).
private func buildTaskRepository(at root: String, count: Int, taskNotes: Int, inline: Int) throws {
  try? FileManager.default.removeItem(atPath: root)
  _ = try NoteRepository.initialize(at: URL(fileURLWithPath: root))
  let stamp = "2026-11-01T10:15:03+01:00"
  let priorities = ["none", "low", "normal", "high", "urgent"]
  let statuses = ["open", "open", "open", "in-progress", "done"]
  var inlineLeft = inline
  for i in 0..<count {
    let directory = "\(root)/area-\(i % 10)/topic-\((i / 10) % 10)"
    if i < 100 { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
    let day = (i * 7919) % 121 - 60
    let due = isoDay(offsetFromBenchDay: day)
    if i % 5 == 2 {
      let text = """
        ---
        id: \(UUID().uuidString.lowercased())
        title: Task \(i)
        created: \(stamp)
        updated: \(stamp)
        status: \(statuses[(i / 5) % statuses.count])
        priority: \(priorities[(i / 5) % priorities.count])
        due: \(due)
        \(i % 35 == 2 ? "recurrence: FREQ=WEEKLY\nrecurrence_anchor: scheduled\n" : "")contexts: [office]
        ---
        - [ ] first step of \(i)
        - [x] second step

        """
      try text.write(toFile: "\(directory)/task-\(i).md", atomically: false, encoding: .utf8)
      continue
    }
    var body = "# Note \(i)\n\nSome text for note \(i), long enough to look like a real note.\n\n"
    if inlineLeft > 0 {
      body += "- [ ] call about \(i) 📅 \(due) ⏫\n- [ ] follow up \(i) ⏳ \(isoDay(offsetFromBenchDay: day + 3))\n"
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

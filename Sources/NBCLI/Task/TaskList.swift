import ArgumentParser
import Foundation
import NoteStore
import TaskKit

struct TaskList: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List tasks: open ones by default, overdue first, then by due date and priority.",
    aliases: ["ls"])

  @Flag(help: "Due today.") var today = false
  @Flag(help: "Due before now and not done.") var overdue = false
  @Option(parsing: .unconditional, help: "Due within this many days from today (7d, 2w).") var upcoming: String?
  @Flag(name: .customLong("no-due"), help: "Without a due date.") var noDue = false
  @Flag(help: "Done tasks (with --since, completed since then).") var done = false
  @Flag(help: "Every task, whatever its state.") var all = false
  @Option(parsing: .unconditional, help: "With --done: completed on or after this date (-30d, 2026-11-01).") var since: String?

  @Option(name: [.short, .long], help: "A project: a notebook (and those below it) or a name in 'projects'.",
    completion: Completions.notebooks)
  var project: String?
  @Option(help: "none, low, normal, high or urgent.") var priority: String?
  @Option(help: "A tag.") var tag: String?
  @Option(help: "A context.") var context: String?
  @Option(help: "Words of the title (or anywhere in a task note).") var search: String?
  @Option(help: "smart, due, priority, title, created or updated.") var sort: String = "smart"
  @Flag(help: "Reverse the order.") var reverse = false
  @Option(help: "At most this many tasks.") var limit: Int?
  @Flag(help: "Include tasks in archived projects.") var archived = false
  @Flag(name: .customLong("no-inline"), help: "Only task notes, not checklist lines of other notes.")
  var noInline = false

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  func validate() throws {
    let views = [today, overdue, upcoming != nil, noDue, done, all].filter { $0 }.count
    if views > 1 { throw ValidationError("choose one of --today, --overdue, --upcoming, --no-due, --done, --all") }
    if since != nil && !done { throw ValidationError("--since goes with --done") }
    if TaskQuery.Sort(rawValue: sort) == nil {
      throw ValidationError("--sort '\(sort)': use smart, due, priority, title, created or updated")
    }
    if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
  }

  func run() throws {
    let notes = try repository.open()
    var query = TaskQuery()
    if today { query.view = .today }
    if overdue { query.view = .overdue }
    if let upcoming { query.view = .upcoming(days: try TaskDates.days(upcoming, option: "--upcoming")) }
    if noDue { query.view = .noDue }
    if done { query.view = .done(since: try since.map { try TaskDates.date($0, option: "--since", in: notes).day }) }
    if all { query.view = .all }
    query.project = project
    query.priority = try priority.map(TaskDates.priority)
    query.tag = tag
    query.context = context
    query.search = search
    query.sort = TaskQuery.Sort(rawValue: sort) ?? .smart
    query.reverse = reverse
    query.limit = limit
    query.includeArchived = archived
    query.includeInline = !noInline
    let entries = try notes.tasks(query)
    warnAbout(entries)
    if output.json {
      try printJSON(entries.map(TaskJSON.init))
      return
    }
    for entry in entries { print(taskLine(entry)) }
  }
}

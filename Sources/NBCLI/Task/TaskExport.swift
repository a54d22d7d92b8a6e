import ArgumentParser
import Foundation
import NoteStore
import TaskKit
import TextFormat

struct TaskExport: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Write tasks as iCalendar (VTODO, RFC 5545) or todo.txt, for calendar and reminder apps.",
    discussion: "nb task export --ics > tasks.ics; nb task export --todotxt > todo.txt")

  @Flag(help: "iCalendar (the default).") var ics = false
  @Flag(help: "todo.txt.") var todotxt = false
  @Option(name: [.short, .long], help: "Only this project.", completion: Completions.notebooks) var project: String?
  @Flag(help: "Also the checklist lines of ordinary notes.") var inline = false
  @Flag(help: "Include tasks in archived projects.") var archived = false
  @Option(name: [.short, .long], help: "Write to this file instead of standard output.") var output: String?
  @OptionGroup var repository: RepositoryOptions

  func validate() throws {
    if ics && todotxt { throw ValidationError("choose one of --ics and --todotxt") }
  }

  func run() throws {
    let notes = try repository.open()
    let entries = try notes.tasks(
      TaskQuery(view: .all, project: project, includeArchived: archived, includeInline: inline, sort: .title))
    var items: [TaskItem] = []
    items.reserveCapacity(entries.count)
    for entry in entries {
      var item = entry.task
      if entry.line == nil {
        // The details a calendar shows: the body without its checklist, which nb owns as subtasks.
        let body = (try? notes.body(of: entry.note)) ?? ""
        let details = body.split(separator: "\n", omittingEmptySubsequences: false)
          .filter { !$0.trimmingWhitespaces().hasPrefix("- [") }
          .joined(separator: "\n").trimmingWhitespacesAndNewlines()
        item.details = details.isEmpty ? nil : details
      }
      items.append(item)
    }
    let text = todotxt ? TodoTxt.export(items) : ICalendar.export(items, now: notes.clock())
    try writeOutput(Data(text.utf8), to: output)
  }
}

struct TaskImport: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Add the tasks of an iCalendar (.ics) or todo.txt file as task notes, in one commit.",
    discussion: """
      The format is read from the content (BEGIN:VCALENDAR is iCalendar, anything else todo.txt). A task whose \
      iCalendar UID is already a note's id is skipped, so importing an export again adds nothing.
      """)

  @Argument(help: "The file (- for standard input).") var file: String
  @Option(name: [.short, .long], help: "The project (notebook) the tasks go in.", completion: Completions.notebooks)
  var project: String?
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct Summary: Encodable {
    var added: [String]
    var skipped: Int
    var skippedComponents: [String: Int]
    var warnings: [String]
    enum CodingKeys: String, CodingKey {
      case added, skipped
      case skippedComponents = "skipped_components"
      case warnings
    }
  }

  func run() throws {
    let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try readInput(file)
    guard let text = String(data: data, encoding: .utf8) else {
      throw CommandError("\(file) is not UTF-8 text; convert it (iconv -t UTF-8) and retry")
    }
    let notes = try repository.open()
    var items: [TaskItem]
    var warnings: [String]
    var components: [String: Int] = [:]
    if text.range(of: "BEGIN:VCALENDAR", options: .caseInsensitive) != nil {
      do {
        let result = try ICalendar.parse(text)
        (items, warnings, components) = (result.tasks, result.warnings, result.skipped)
      } catch {
        throw CommandError("\(file): \(error)")
      }
    } else {
      let result = TodoTxt.parse(text)
      (items, warnings) = (result.tasks, result.warnings)
    }
    var skipped = 0
    var drafts: [TaskDraft] = []
    for item in items {
      if let id = item.id, !id.isEmpty, try notes.note(id: id) != nil {
        skipped += 1
        continue
      }
      drafts.append(draft(item))
    }
    let added = drafts.isEmpty ? [] : try notes.createTasks(drafts, subject: "import \(drafts.count) tasks")
    for warning in warnings { warn("\(file): \(warning)") }
    if output.json {
      try printJSON(
        Summary(added: added.map(\.path), skipped: skipped, skippedComponents: components, warnings: warnings))
      return
    }
    var line = "imported \(added.count) task\(added.count == 1 ? "" : "s")"
    if skipped > 0 { line += ", skipped \(skipped) already present" }
    let others = components.values.reduce(0, +)
    if others > 0 {
      line += "; skipped \(others) other component\(others == 1 ? "" : "s") ("
        + components.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")"
    }
    print(line)
  }

  private func draft(_ item: TaskItem) -> TaskDraft {
    var draft = TaskDraft(title: item.title, notebook: project)
    draft.status = item.status
    draft.priority = item.priority == .none ? nil : item.priority
    draft.due = item.due
    draft.scheduled = item.scheduled
    draft.completed = item.completed
    draft.reminders = item.reminders
    draft.recurrence = item.recurrence
    draft.recurrenceAnchor = item.recurrence == nil ? nil : item.recurrenceAnchor
    draft.completeInstances = item.completeInstances
    draft.contexts = item.contexts
    draft.projects = item.projects
    draft.tags = item.tags
    draft.location = item.location
    draft.details = item.details ?? ""
    return draft
  }
}

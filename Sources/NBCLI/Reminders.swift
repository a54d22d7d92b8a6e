import ArgumentParser
import Foundation
import NoteStore
import TaskKit

struct Reminders: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reminders",
    abstract: "List reminders that are due now, for a cron job or a notifier.",
    discussion: """
      A reminder is due when its time (a date-time, or an offset from the task's due date) has passed since --since \
      (default: the start of today) and the task is not done. A cron job every 5 minutes runs 'nb reminders \
      --since -5m'.
      """)

  @Option(parsing: .unconditional, help: "Only reminders after this time (a date, or -5m, -1h, -2d ago).") var since: String?
  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct ReminderJSON: Encodable {
    var at: String
    var reminder: String
    var task: TaskJSON
  }

  func run() throws {
    let notes = try repository.open()
    let now = notes.clock()
    let start: Date
    if let since {
      if let offset = TaskDates.shortOffset(since), let duration = ISODuration(text: offset) {
        start = now.addingTimeInterval(TimeInterval(duration.totalSeconds))
      } else {
        start = try TaskDates.date(since, option: "--since", in: notes).instant(in: notes.timeZone)
      }
    } else {
      start = notes.today.start(in: notes.timeZone)
    }
    let due = try notes.dueReminders(since: start.addingTimeInterval(-0.001), until: now)
    if output.json {
      try printJSON(
        due.map {
          ReminderJSON(
            at: Timestamp(date: $0.at, timeZone: notes.timeZone).rfc3339, reminder: $0.reminder.text,
            task: TaskJSON($0.entry))
        })
      return
    }
    for reminder in due {
      let time = Timestamp(date: reminder.at, timeZone: notes.timeZone).short
      print("\(Style.dim(time))  \(Style.bold(reminder.entry.task.title))  \(Style.blue(reminder.entry.selector))")
    }
  }
}

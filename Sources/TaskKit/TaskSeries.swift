import Foundation

/// Where a repeating task's dates go when one occurrence is completed.
public struct SeriesAdvance: Equatable, Sendable {
  /// The new due date (nil when the task had none and was not given one).
  public var due: TaskDate?
  /// The new scheduled date.
  public var scheduled: TaskDate?
  /// The reminders, absolute ones moved by `dayShift` days.
  public var reminders: [Reminder]
  /// How many days the dates moved (negative when a task completed early, counted from completion, moves back).
  public var dayShift: Int

  /// An advance with these values.
  public init(due: TaskDate?, scheduled: TaskDate?, reminders: [Reminder], dayShift: Int) {
    self.due = due
    self.scheduled = scheduled
    self.reminders = reminders
    self.dayShift = dayShift
  }
}

/// What completing a repeating task does to its dates.
public enum TaskSeries {
  /// The dates a repeating task moves to when completed on `completedOn`; nil when the series has ended
  /// (COUNT/UNTIL, or a rule that yields no further day).
  ///
  /// The primary date is `due`, else `scheduled`. With anchor `.scheduled` the next occurrence is
  /// `rule.next(after: primary.day, seriesStart: rule.start ?? primary.day)`: exactly one step per completion, even
  /// for a task completed late, so no occurrence is skipped silently (completing an overdue weekly task three weeks
  /// late leaves it due two weeks ago; each completion is one occurrence done). With `.completion` it is
  /// `rule.next(after: completedOn, seriesStart: completedOn)`: "every 3 days" lands 3 days after completion, and a
  /// rule whose BY* parts fix weekdays or month days lands on the first such day after completion. A task with
  /// neither date counts from `completedOn` under both anchors and gets the occurrence as its due day.
  ///
  /// The primary date moves to the occurrence; the other date and absolute reminders move by the same number of
  /// days, keeping their wall-clock time (`TaskDate.moved(to:in:)`, so offsets follow DST in `timeZone`); relative
  /// reminders are unchanged. Without a DTSTART in the rule, the series start is the current date, so COUNT counts
  /// from it (each completion restarts the count) and an implied month day is the current one (a monthly task from
  /// Jan 31 goes to Feb 28, then Mar 28): keep DTSTART in the rule where that matters.
  public static func advance(
    due: TaskDate?, scheduled: TaskDate?, reminders: [Reminder], rule: Recurrence, anchor: RecurrenceAnchor,
    completedOn: Day, timeZone: TimeZone
  ) -> SeriesAdvance? {
    guard let primary = due ?? scheduled else {
      guard let next = rule.next(after: completedOn, seriesStart: completedOn) else { return nil }
      let shift = days(from: completedOn, to: next)
      return SeriesAdvance(
        due: .day(next), scheduled: nil, reminders: moved(reminders, by: shift, in: timeZone), dayShift: shift)
    }
    let next: Day?
    switch anchor {
    case .scheduled: next = rule.next(after: primary.day, seriesStart: rule.start ?? primary.day)
    case .completion: next = rule.next(after: completedOn, seriesStart: completedOn)
    }
    guard let next else { return nil }
    let shift = days(from: primary.day, to: next)
    return SeriesAdvance(
      due: due.map { moved($0, by: shift, in: timeZone) },
      scheduled: scheduled.map { moved($0, by: shift, in: timeZone) },
      reminders: moved(reminders, by: shift, in: timeZone),
      dayShift: shift)
  }

  private static func days(from start: Day, to end: Day) -> Int {
    // Days between any two Days a rule yields fit in Int; clamp rather than trap should they not.
    Int(clamping: end.dayNumber - start.dayNumber)
  }

  private static func moved(_ date: TaskDate, by shift: Int, in timeZone: TimeZone) -> TaskDate {
    date.moved(to: date.day.adding(days: shift), in: timeZone)
  }

  private static func moved(_ reminders: [Reminder], by shift: Int, in timeZone: TimeZone) -> [Reminder] {
    reminders.map { reminder in
      switch reminder {
      case .absolute(let date): return .absolute(moved(date, by: shift, in: timeZone))
      case .relative: return reminder
      }
    }
  }
}

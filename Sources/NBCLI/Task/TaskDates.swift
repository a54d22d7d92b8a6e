import ArgumentParser
import Foundation
import NoteStore
import TaskKit
import TextFormat

/// Date, repeat, reminder and priority arguments as the task commands read them.
enum TaskDates {
  static let acceptedForms = DateArgument.acceptedForms

  /// A date argument; `option` names it in the error (`--due 'xyz': …`).
  static func date(_ text: String, option: String, in repository: NoteRepository) throws -> TaskDate {
    do {
      return try DateArgument.parse(text, now: repository.clock(), timeZone: repository.timeZone)
    } catch let error as DateArgumentError {
      throw ValidationError("\(option): \(error)")
    }
  }

  /// A repeat: an RRULE or the friendly forms; the rule as written to the file and the anchor the text named.
  static func recurrence(_ text: String) throws -> (rrule: String, anchor: RecurrenceAnchor?) {
    do {
      let text = text.trimmingWhitespaces()
      if text.uppercased().contains("FREQ=") { return ((try Recurrence(rrule: text)).rrule, nil) }
      let parsed = try Recurrence.parse(userText: text)
      return (parsed.rule.rrule, parsed.anchor)
    } catch {
      throw ValidationError("--repeat: \(error)")
    }
  }

  /// A reminder: an offset from the due date (`-PT1H`, or `-1h`, `-30m`, `-2d`, `-1w` before it), else a date
  /// argument (`thu 9:00`, `2026-12-01T08:00`).
  static func reminder(_ text: String, in repository: NoteRepository) throws -> Reminder {
    let trimmed = text.trimmingWhitespaces()
    if let duration = ISODuration(text: trimmed) { return .relative(text: duration.text, seconds: duration.totalSeconds) }
    if let short = shortOffset(trimmed), let duration = ISODuration(text: short) {
      return .relative(text: duration.text, seconds: duration.totalSeconds)
    }
    do {
      return .absolute(try DateArgument.parse(trimmed, now: repository.clock(), timeZone: repository.timeZone))
    } catch let error as DateArgumentError {
      throw ValidationError(
        "--remind '\(text)': not an offset before the due date (-PT1H, -1h, -30m, -2d) nor a date: \(error)")
    }
  }

  /// `-1h` → `-PT1H`; `-2d` → `-P2D`; nil for anything else.
  static func shortOffset(_ text: String) -> String? {
    guard text.hasPrefix("-"), let unit = text.last, let number = Int(text.dropFirst().dropLast()), number >= 0 else {
      return nil
    }
    switch unit {
    case "m": return "-PT\(number)M"
    case "h": return "-PT\(number)H"
    case "d": return "-P\(number)D"
    case "w": return "-P\(number)W"
    default: return nil
    }
  }

  static func priority(_ text: String) throws -> TaskPriority {
    let priority = TaskPriority(text: text)
    if case .other = priority {
      throw ValidationError("--priority '\(text)': use none, low, normal, high or urgent")
    }
    return priority
  }

  /// `7d`, `2w`, `7`: a number of days.
  static func days(_ text: String, option: String) throws -> Int {
    let trimmed = text.trimmingWhitespaces().lowercased()
    var number = trimmed
    var factor = 1
    if trimmed.hasSuffix("d") {
      number = String(trimmed.dropLast())
    } else if trimmed.hasSuffix("w") {
      number = String(trimmed.dropLast())
      factor = 7
    }
    guard let value = Int(number), value >= 0, value < 100_000 else {
      throw ValidationError("\(option) '\(text)': give a number of days (7, 7d) or weeks (2w)")
    }
    return value * factor
  }
}

import Foundation
import Stencil

/// Date formatting shared by the `today` variable and the `date` filter.
enum TemplateDates {
  /// RFC 3339 with a numeric offset ("+00:00", never "Z"), the form nb writes in front matter.
  static let rfc3339Pattern = "yyyy-MM-dd'T'HH:mm:ssxxxxx"

  /// Formats with a fixed POSIX locale so output never depends on the user's language settings.
  static func format(_ date: Date, pattern: String, timeZone: TimeZone) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.calendar = Calendar(identifier: .gregorian)
    formatter.timeZone = timeZone
    formatter.dateFormat = pattern
    return formatter.string(from: date)
  }

  /// Reads a date given as text (e.g. `--var due=2026-12-01`): RFC 3339, or a bare day taken as midnight in `timeZone`.
  static func parse(_ text: String, timeZone: TimeZone) -> Date? {
    let iso = ISO8601DateFormatter()
    iso.formatOptions = [.withInternetDateTime]
    if let date = iso.date(from: text) { return date }
    iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = iso.date(from: text) { return date }
    let day = DateFormatter()
    day.locale = Locale(identifier: "en_US_POSIX")
    day.calendar = Calendar(identifier: .gregorian)
    day.timeZone = timeZone
    day.dateFormat = "yyyy-MM-dd"
    return day.date(from: text)
  }
}

/// The filters nb adds to Stencil's defaults.
enum TemplateFilters {
  /// An extension holding the `date` filter, bound to the zone dates are shown in.
  ///
  /// `{{ now|date }}` gives RFC 3339 with offset; `{{ now|date:"yyyy-MM-dd HH:mm" }}` uses a `DateFormatter`
  /// pattern. The value may be a `Date` or text in RFC 3339 or `yyyy-MM-dd`; a missing value renders as "", the way
  /// Stencil renders any missing variable, so an optional `--var` does not break a template.
  static func makeExtension(timeZone: TimeZone) -> Extension {
    let ext = Extension()
    ext.registerFilter("date") { (value: Any?, arguments: [Any?]) throws -> Any? in
      guard arguments.count <= 1 else {
        throw TemplateSyntaxError("'date' takes at most one argument, the format, e.g. date:\"yyyy-MM-dd\"")
      }
      let pattern: String
      if let argument = arguments.first {
        guard let text = argument as? String else {
          throw TemplateSyntaxError("'date' format must be text, e.g. date:\"yyyy-MM-dd\"")
        }
        pattern = text
      } else {
        pattern = TemplateDates.rfc3339Pattern
      }
      let date: Date
      switch value {
      case nil:
        return ""
      case let value as Date:
        date = value
      case let text as String where text.isEmpty:
        return ""
      case let text as String:
        guard let parsed = TemplateDates.parse(text, timeZone: timeZone) else {
          throw TemplateSyntaxError("'date' cannot read \(Names.quote(text)) as a date; use yyyy-MM-dd or RFC 3339")
        }
        date = parsed
      case let other?:
        throw TemplateSyntaxError("'date' needs a date, got \(Names.quote(String(describing: other)))")
      }
      return TemplateDates.format(date, pattern: pattern, timeZone: timeZone)
    }
    return ext
  }
}

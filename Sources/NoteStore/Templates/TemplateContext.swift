import Foundation

/// The values a template can use when it renders a new note.
public struct TemplateContext: Sendable {
  /// The note title, already validated.
  public var title: String
  /// The note id (a lower-case UUID).
  public var id: String
  /// The notebook path, e.g. "work/projects"; "" for the root.
  public var notebook: String
  /// The file-name slug of the note.
  public var slug: String
  /// The note's tags.
  public var tags: [String]
  /// Who creates the note (the commit author name).
  public var author: String
  /// Text given on stdin or with `--content`; "" if none. Templates put it on a line of its own, so callers should
  /// pass it without its final line break.
  public var content: String
  /// The creation instant.
  public var now: Date
  /// The zone `now`, `today` and the `date` filter are shown in.
  public var timeZone: TimeZone
  /// Values from `--var key=value`.
  public var vars: [String: String]

  /// Creates a context; everything except the identity of the note and the instant has a neutral default.
  public init(
    title: String,
    id: String,
    notebook: String,
    slug: String,
    tags: [String] = [],
    author: String = "",
    content: String = "",
    now: Date,
    timeZone: TimeZone = .current,
    vars: [String: String] = [:]
  ) {
    self.title = title
    self.id = id
    self.notebook = notebook
    self.slug = slug
    self.tags = tags
    self.author = author
    self.content = content
    self.now = now
    self.timeZone = timeZone
    self.vars = vars
  }

  /// The names of the variables nb provides; a `--var` with one of these names is reachable only as `var.NAME`.
  public static let builtinNames: Set<String> = [
    "title", "id", "notebook", "slug", "tags", "author", "content", "now", "today", "var",
  ]

  /// The Stencil context dictionary.
  func dictionary() -> [String: Any] {
    var result: [String: Any] = [:]
    for (key, value) in vars where !Self.builtinNames.contains(key) {
      result[key] = value
    }
    result["title"] = title
    result["id"] = id
    result["notebook"] = notebook
    result["slug"] = slug
    result["tags"] = tags
    result["author"] = author
    result["content"] = content
    result["now"] = now
    // Timestamp's own calendar arithmetic: a DateFormatter would load ICU for every note, used or not.
    result["today"] = String(Timestamp(date: now, timeZone: timeZone).rfc3339.prefix(10))
    result["var"] = vars
    return result
  }
}

import Foundation
import NoteStore
import TextFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Terminal styling: colour only on a TTY and only when `NO_COLOR` is unset (https://no-color.org).
enum Style {
  static let enabled: Bool =
    isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    && ProcessInfo.processInfo.environment["TERM"] != "dumb"

  static func bold(_ s: String) -> String { wrap(s, "1") }
  static func dim(_ s: String) -> String { wrap(s, "2") }
  static func green(_ s: String) -> String { wrap(s, "32") }
  static func yellow(_ s: String) -> String { wrap(s, "33") }
  static func blue(_ s: String) -> String { wrap(s, "34") }
  static func cyan(_ s: String) -> String { wrap(s, "36") }

  private static func wrap(_ s: String, _ code: String) -> String {
    enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
  }
}

/// `text` without `scalar` at either end, as `trimmingCharacters(in:)` with that one character gives it (which goes
/// through NSString and its UTF-16 view, and looks up a conformance at run time: a scan of the binary).
func trimming(_ text: String, _ scalar: Unicode.Scalar) -> String {
  var scalars = Substring(text).unicodeScalars
  while scalars.first == scalar { scalars.removeFirst() }
  while scalars.last == scalar { scalars.removeLast() }
  return String(scalars)
}

/// Writes `text` to standard output unbuffered, as `FileHandle.standardOutput.write` does, without making a `Data`
/// of it (whose initialiser from a sequence looks up a conformance at run time: a scan of the binary).
func writeStandardOutput(_ text: String) {
  var text = text
  text.withUTF8 { bytes in
    var done = 0
    while done < bytes.count {
      let written = write(STDOUT_FILENO, bytes.baseAddress! + done, bytes.count - done)
      if written < 0 && errno == EINTR { continue }
      if written <= 0 { return }
      done += written
    }
  }
}

/// Writes to standard error (warnings never mix into output a script parses).
func warn(_ message: String) {
  FileHandle.standardError.write(Data(("warning: " + message + "\n").utf8))
}

/// An optional JSON value written as `null` when absent: the README promises every key of every `--json` document,
/// and synthesized `Encodable` leaves out nil optionals.
@propertyWrapper
struct NullWhenAbsent<Value: Encodable>: Encodable {
  var wrappedValue: Value?

  init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

  func encode(to encoder: Encoder) throws {
    var container = encoder.singleValueContainer()
    if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
  }
}

/// One JSON document on standard output: sorted keys, so output is stable for diffs and tests.
func printJSON<T: Encodable>(_ value: T) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
  let data = try encoder.encode(value)
  FileHandle.standardOutput.write(data)
  FileHandle.standardOutput.write(Data("\n".utf8))
}

/// A JSON array on standard output exactly as ``printJSON(_:)`` prints `[T]`, written as `produce` hands over its
/// elements, so that a listing of any size is never held whole, neither as values nor as text.
func printJSONArray<T: Encodable>(_ produce: (_ element: (T) throws -> Void) throws -> Void) throws {
  try writeJSONArray(produce) { FileHandle.standardOutput.write($0) }
}

/// ``printJSONArray(_:)`` to any `write`, in pieces of about 64 KiB: each element is encoded alone and its lines
/// indented one level (pretty printing indents by depth alone, and leaves the line inside an empty collection
/// empty), so the pieces join to `printJSON`'s bytes.
func writeJSONArray<T: Encodable>(
  _ produce: (_ element: (T) throws -> Void) throws -> Void, to write: @escaping (Data) -> Void
) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
  var pending = Data()
  var count = 0
  try produce { element in
    let text = String(decoding: try encoder.encode(element), as: UTF8.self)
    pending.append(contentsOf: Array((count == 0 ? "[\n" : ",\n").utf8))
    pending.append(
      contentsOf: Array(
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "  " + $0 }
          .joined(separator: "\n").utf8))
    count += 1
    if pending.count >= 64 * 1024 {
      write(pending)
      pending.removeAll(keepingCapacity: true)
    }
  }
  if count == 0 {
    // Nothing was written: the empty array as the encoder spells it.
    write(try encoder.encode([T]()) + Data("\n".utf8))
    return
  }
  pending.append(contentsOf: Array("\n]\n".utf8))
  write(pending)
}

/// The JSON shape of a note in every listing (documented in README.md).
struct NoteJSON: Encodable {
  var path: String
  var id: String?
  var title: String
  var notebook: String
  var tags: [String]
  var aliases: [String]
  var created: String?
  var updated: String?
  var conflictOf: String?
  var warning: String?
  var body: String?
  /// `nb show` only: the note's ink, when it has a sidecar.
  var ink: InkJSON?
  /// `nb show` only: the files in the note's attachment folder (empty when it has none).
  var attachments: [AttachmentJSON] = []

  /// The JSON shape of one attachment: `{path, bytes}`, as `nb attach --json` prints it.
  struct AttachmentJSON: Encodable {
    var path: String
    var bytes: Int64
  }

  /// The JSON shape of a note's ink in `nb show --json`.
  struct InkJSON: Encodable {
    var path: String
    var pages: Int
    var strokes: Int
    var points: Int
  }

  init(_ note: Note, body: String? = nil) {
    path = note.path
    id = note.id
    title = note.title
    notebook = note.notebook
    tags = note.tags
    aliases = note.aliases
    created = note.created?.rfc3339
    updated = note.updated?.rfc3339
    conflictOf = note.conflictOf
    warning = note.warning
    self.body = body
  }

  enum CodingKeys: String, CodingKey {
    case path, id, title, notebook, tags, aliases, created, updated, body, warning, ink, attachments
    case conflictOf = "conflict_of"
  }

  func encode(to encoder: Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(path, forKey: .path)
    // Keys are always present (null when unknown) so scripts need not test for them.
    try c.encode(id, forKey: .id)
    try c.encode(title, forKey: .title)
    try c.encode(notebook, forKey: .notebook)
    try c.encode(tags, forKey: .tags)
    try c.encode(aliases, forKey: .aliases)
    try c.encode(created, forKey: .created)
    try c.encode(updated, forKey: .updated)
    try c.encode(conflictOf, forKey: .conflictOf)
    try c.encode(warning, forKey: .warning)
    // `body` and `ink` belong to `show`'s shape only (the one caller passing a body): there `ink` is null for a
    // note without ink rather than missing.
    if let body {
      try c.encode(body, forKey: .body)
      try c.encode(ink, forKey: .ink)
      try c.encode(attachments, forKey: .attachments)
    }
  }
}

/// The JSON shape of a commit.
struct CommitJSON: Encodable {
  var commit: String
  var subject: String
  var author: String
  var email: String
  var date: String

  init(_ summary: CommitSummary) {
    commit = summary.id
    subject = summary.subject
    author = summary.author
    email = summary.email
    date = summary.date.rfc3339
  }
}

extension Timestamp {
  /// "2026-11-22 10:47" in the timestamp's own offset: what a person wants to read in a listing.
  var short: String {
    let text = rfc3339
    guard text.count >= 16 else { return text }
    return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
  }
}

/// A one-line description of a note for listings.
func noteLine(_ note: Note) -> String {
  var parts = [Style.dim(note.updated?.short ?? "                "), Style.bold(note.title), Style.blue(note.path)]
  if !note.tags.isEmpty { parts.append(Style.cyan(hashtags(note.tags))) }
  return joinedWithoutLookup(parts, separator: "  ")
}

/// Tags as a person writes them in text: "#planning #q3".
func hashtags(_ tags: [String]) -> String {
  joinedWithoutLookup(tags.map { "#" + $0 }, separator: " ")
}

/// A summary as `show` and `ink info` print it: one "key  value" row a line, the keys dimmed in one column.
func printRows(_ rows: [(String, String)]) {
  for (key, value) in rows { print(Style.dim(key.paddedWithSpaces(toLength: 8)) + " " + value) }
}

/// Reads standard input when it is not a terminal (piped content); nil on a terminal. Bytes that are not UTF-8 are
/// refused rather than replaced with U+FFFD, which would silently change what the person wrote.
func readPipedStandardInput() throws -> String? {
  guard isatty(STDIN_FILENO) == 0 else { return nil }
  let data = FileHandle.standardInput.readDataToEndOfFile()
  guard !data.isEmpty else { return nil }
  guard let text = String(data: data, encoding: .utf8) else {
    throw CommandError("standard input is not valid UTF-8; convert it (e.g. iconv -t UTF-8) and retry")
  }
  return text
}

/// The bytes of a file named on the command line, or a one-line error naming it (`what` says which file it is).
func readInput(_ path: String, what: String = "") throws -> Data {
  do {
    return try Data(contentsOf: URL(fileURLWithPath: path))
  } catch {
    throw CommandError("cannot read \(what)\(path): \(error.localizedDescription)")
  }
}

/// Writes `data` to `path` atomically (a half-written SVG or export never replaces a good one), or to standard
/// output for `-`.
func writeOutput(_ data: Data, to path: String?) throws {
  guard let path, path != "-" else {
    FileHandle.standardOutput.write(data)
    return
  }
  do {
    try data.write(to: URL(fileURLWithPath: path), options: .atomic)
  } catch {
    throw CommandError(
      "cannot write \(path): \(error.localizedDescription); check the directory exists and is writable")
  }
}

/// A failure found while a command runs (not a usage mistake), so ArgumentParser prints just the one-line message
/// instead of appending the usage text as it does for `ValidationError`.
struct CommandError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// A progress line on standard error, shown only on a terminal and only for work that lasts: it appears after
/// half a second, is redrawn at most ten times a second, and is erased when the work is done.
final class ProgressLine {
  private let started = Date()
  private var lastDrawn: Date?

  static func reporter() -> ((String, Int, Int) -> Void)? {
    guard isatty(STDERR_FILENO) == 1, ProcessInfo.processInfo.environment["TERM"] != "dumb" else { return nil }
    let line = ProgressLine()
    return { activity, done, total in line.update(activity, done, total) }
  }

  func update(_ activity: String, _ done: Int, _ total: Int) {
    let now = Date()
    if done >= total {
      if lastDrawn != nil { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
      lastDrawn = nil
      return
    }
    guard now.timeIntervalSince(started) > 0.5, lastDrawn.map({ now.timeIntervalSince($0) > 0.1 }) ?? true else {
      return
    }
    lastDrawn = now
    FileHandle.standardError.write(Data("\r\u{1B}[K\(activity) \(done)/\(total)".utf8))
  }
}

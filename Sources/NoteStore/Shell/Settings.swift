import Foundation
import TextFormat
import Yams

/// `.nb/config.yaml`: committed settings shared by every device.
public struct RepositoryConfig: Equatable, Sendable {
  /// The format version of the repository layout: this build reads ``RepositoryFormat/supported`` (1 and 2) and
  /// makes new repositories at ``RepositoryFormat/newest``; a file without the key is format 1.
  public var format: Int
  /// Where `nb add` puts a note when no notebook is given.
  public var defaultNotebook: String
  /// `backup_days`: a sync deletes the `refs/nb/backup/*` references older than this many days once it has
  /// succeeded; 0 keeps every backup.
  public var backupDays: Int
  /// The `backup_days` text when it is not a whole number of days ≥ 0: then nothing is pruned (a typo must not
  /// delete backups) and sync says why in its warnings.
  var invalidBackupDays: String?
  /// The `watch:` mapping's values as written (`debounce: 2s`, `sync: true`, `interval: 30s`), for `nb watch` to
  /// parse and check: NoteStore only carries them.
  public var watch: [String: String] = [:]
  /// The `inbox:` mapping's values as written (`threshold: 0.6`: below it an item shows no suggestion).
  public var inboxSettings: [String: String] = [:]

  /// How long backups are kept unless `backup_days` says otherwise.
  public static let defaultBackupDays = 30

  /// The settings a new repository starts with.
  public static let initial = RepositoryConfig(format: RepositoryFormat.newest, defaultNotebook: "inbox")

  /// Creates settings.
  public init(format: Int, defaultNotebook: String, backupDays: Int = RepositoryConfig.defaultBackupDays) {
    self.format = format
    self.defaultNotebook = defaultNotebook
    self.backupDays = backupDays
  }

  /// The file nb writes on `init`; a person may add keys and comments, nb only reads it afterwards.
  var fileText: String {
    """
    # nb repository settings, shared by every device that syncs this repository.
    format: \(format)
    default_notebook: \(defaultNotebook)

    """
  }

  static func read(at path: String) throws -> RepositoryConfig {
    let text: String
    do {
      guard let decoded = String(data: try FileSystem.read(path), encoding: .utf8) else {
        throw NoteStoreError.notUTF8(path: path)
      }
      text = decoded
    }
    if let plain = try plainKeys(text) { return try parse(plain, path: path) }
    return try parse(yaml: text, path: path)
  }

  /// The keys of a file in the shape nb writes it — comments, blank lines and `key: value` lines at the left
  /// margin, each key once, each value a plain word YAML reads as that word — taken without a YAML parser (whose
  /// first use costs a good part of a command as short as `nb status`); nil for anything else, which YAML reads.
  static func plainKeys(_ text: String) throws -> PlainKeys? {
    var keys = PlainKeys()
    for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
      var line = line[...]
      if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
      if line.allSatisfy({ $0 == 0x20 }) { continue }
      if line.first == UInt8(ascii: "#") { continue }
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return nil }
      let key = line[line.startIndex..<colon]
      var value = line[line.index(after: colon)...]
      guard key.allSatisfy({ isWordByte($0) && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "/") }),
        value.first == 0x20
      else { return nil }
      while value.first == 0x20 { value = value.dropFirst() }
      while value.last == 0x20 { value = value.dropLast() }
      // A word: no quotes, flow collections, anchors, tags, comments or escapes to interpret.
      guard let first = value.first, isWordByte(first), first != UInt8(ascii: "-"),
        value.allSatisfy(isWordByte)
      else { return nil }
      let name = String(decoding: key, as: UTF8.self)
      guard keys[name] == nil else { return nil }
      keys.pairs.append((name, String(decoding: value, as: UTF8.self)))
    }
    return keys
  }

  /// The keys of a plain settings file and their values, in order. Not a dictionary: a settings file has a few
  /// keys, and the first dictionary keyed by strings in a process makes the runtime scan every conformance record
  /// in the binary, in every command.
  struct PlainKeys {
    var pairs: [(key: String, value: String)] = []

    subscript(key: String) -> String? { pairs.first { $0.key == key }?.value }
  }

  private static func isWordByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "/"):
      return true
    default:
      return false
    }
  }

  /// The settings of plain `key: value` pairs; `watch:` and `inbox:` are mappings, so never among them.
  static func parse(_ keys: PlainKeys, path: String) throws -> RepositoryConfig {
    var config = RepositoryConfig.initial
    config.format = 1
    if let format = keys["format"] {
      guard let number = Int(format), RepositoryFormat.supported.contains(number) else {
        throw NoteStoreError.unsupportedFormat(path: path, found: format)
      }
      config.format = number
    }
    if let notebook = keys["default_notebook"] { config.defaultNotebook = notebook }
    if keys["watch"] != nil {
      throw NoteStoreError.invalidArgument(
        "\(path): 'watch' must be a mapping such as 'watch: {debounce: 2s, sync: true, interval: 30s}'")
    }
    if keys["inbox"] != nil {
      throw NoteStoreError.invalidArgument("\(path): 'inbox' must be a mapping such as 'inbox: {threshold: 0.6}'")
    }
    if let days = keys["backup_days"] {
      if let value = Int(days), value >= 0 {
        config.backupDays = value
      } else {
        config.backupDays = 0
        config.invalidBackupDays = days
      }
    }
    return config
  }

  static func parse(yaml text: String, path: String) throws -> RepositoryConfig {
    let node: Node?
    // Values are read as strings, so no type resolution is needed — and the default resolver compiles seven
    // regular expressions on first use, a measurable part of a short command.
    do { node = try Yams.compose(yaml: text, .basic) } catch let error as YamlError {
      throw NoteStoreError.invalidArgument("\(path): invalid YAML: \(error)")
    }
    var config = RepositoryConfig.initial
    // Written before `format:` existed, or by hand without it: the original layout.
    config.format = 1
    if let mapping = node?.mapping {
      if let format = mapping["format"]?.scalar?.string {
        guard let number = Int(format.trimmingWhitespaces()),
          RepositoryFormat.supported.contains(number)
        else { throw NoteStoreError.unsupportedFormat(path: path, found: format) }
        config.format = number
      }
      if let notebook = mapping["default_notebook"]?.scalar?.string, !notebook.isEmpty {
        config.defaultNotebook = notebook
      }
      if let watch = mapping["watch"] {
        guard let settings = watch.mapping else {
          throw NoteStoreError.invalidArgument(
            "\(path): 'watch' must be a mapping such as 'watch: {debounce: 2s, sync: true, interval: 30s}'")
        }
        for (key, value) in settings {
          guard let key = key.scalar?.string, let value = value.scalar?.string else {
            throw NoteStoreError.invalidArgument("\(path): each 'watch' setting must be 'name: value'")
          }
          config.watch[key] = value
        }
      }
      if let inbox = mapping["inbox"] {
        guard let settings = inbox.mapping else {
          throw NoteStoreError.invalidArgument("\(path): 'inbox' must be a mapping such as 'inbox: {threshold: 0.6}'")
        }
        for (key, value) in settings {
          if let key = key.scalar?.string, let value = value.scalar?.string { config.inboxSettings[key] = value }
        }
      }
      if let days = mapping["backup_days"]?.scalar?.string {
        if let value = Int(days.trimmingWhitespaces()), value >= 0 {
          config.backupDays = value
        } else {
          config.backupDays = 0
          config.invalidBackupDays = days
        }
      }
    }
    return config
  }
}

/// `.notebook.yaml`: what nb records about a notebook it created.
struct NotebookSettings: Equatable {
  var created: Timestamp?
  var title: String?
  /// A project's look and state, for task views: `color` (`#3b82f6`, a name), `icon` (an emoji or a word),
  /// `archived: true` (hidden from task views unless asked for).
  var color: String?
  var icon: String?
  var archived = false
  /// For the inbox's suggestions: words describing what belongs here (training text), and `inbox: false` for a
  /// notebook items are never filed into (an archive, a trash).
  var description: String?
  var inboxAllowed = true

  var fileText: String {
    var text = ""
    if let created { text += "created: \(created.rfc3339)\n" }
    if let title { text += "title: \(YAMLScalar.format(title))\n" }
    return text
  }

  static func read(at path: String) -> NotebookSettings? {
    guard let data = try? FileSystem.read(path, limit: 64 * 1024), let text = String(data: data, encoding: .utf8),
      let mapping = (try? Yams.compose(yaml: text, .basic))??.mapping
    else { return nil }
    let archived = mapping["archived"]?.scalar?.string.lowercased()
    return NotebookSettings(
      created: mapping["created"]?.scalar.flatMap { Timestamp(rfc3339: $0.string) },
      title: mapping["title"]?.scalar?.string, color: mapping["color"]?.scalar?.string,
      icon: mapping["icon"]?.scalar?.string, archived: ["true", "yes", "on", "1"].contains(archived ?? ""),
      description: mapping["description"]?.scalar?.string,
      inboxAllowed: !["false", "no", "off", "0"].contains(mapping["inbox"]?.scalar?.string.lowercased() ?? ""))
  }
}

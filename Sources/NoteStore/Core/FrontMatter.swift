import Foundation
import TextFormat
import Yams

/// Why a note's front matter cannot be read or edited.
enum FrontMatterError: Error, Equatable, Sendable, CustomStringConvertible {
  /// line: 1-based line number in the whole file; column optional. message: short, human.
  case malformed(line: Int, column: Int?, message: String)
  /// Front matter is YAML but not a key/value mapping.
  case notAMapping(line: Int)
  /// Opening '---' with no closing '---' / '...' (line = opening line).
  case unterminated(line: Int)
  /// The block is valid YAML but `key` cannot be changed by editing lines alone without touching other bytes or
  /// keys (for example a flow mapping `{title: x}` or keys that share a line); the file is left as it was.
  case cannotEdit(key: String, line: Int, message: String)

  /// A one-line explanation naming the file line.
  var description: String {
    switch self {
    case .malformed(let line, let column, let message):
      return "front matter line \(line)\(column.map { ", column \($0)" } ?? ""): \(message)"
    case .notAMapping(let line):
      return "front matter line \(line): expected `key: value` pairs"
    case .unterminated(let line):
      return "front matter line \(line): '---' is never closed by a '---' or '...' line"
    case .cannotEdit(let key, let line, let message):
      return "front matter line \(line): cannot change `\(key)` in place: \(message)"
    }
  }
}

/// Reads and edits the YAML front matter of a note without ever re-serialising it.
///
/// A file has front matter only when its first line (after an optional BOM) is `---` (trailing blanks and CRLF
/// allowed); the block ends at the next line that is `---` or `...` (again trailing blanks allowed). Values are
/// read as the scalar text written, never converted by YAML's type resolution (a timestamp's offset would be lost).
///
/// Duplicate keys anywhere in the block are an error (`.malformed` at the first occurrence of the key): YAML
/// forbids them and an edit could not know which copy the user means.
enum FrontMatter {
  /// Parses the metadata. `text` is the whole file as decoded UTF-8 (may start with U+FEFF).
  static func read(_ text: String) throws -> NoteMetadata {
    try readIndexed(text, withFields: false).metadata
  }

  /// Sets top-level `key` to the already-formatted YAML value text (see YAMLScalar), editing only that key's
  /// line(s): the key line plus its continuation lines (block list items `- x` at the same or deeper indentation,
  /// indented lines, multi-line scalars). If the key is absent, adds `key: value` as a new line at the end of the
  /// block (before the closing delimiter) — except `id`, which goes first. If the file has no front matter, a
  /// minimal block holding just this key is put at the start (after a BOM), using the body's line ending style
  /// (CRLF if the body's first line break is CRLF, else LF). Line endings of new lines follow the block's style.
  ///
  /// The key text before `:` (its quoting), the blanks after `:` and a `# comment` ending a one-line value are kept.
  /// `yamlValue` may span lines (`\n`-separated): the first goes after `key:`, the others follow as written.
  /// Throws `.cannotEdit` rather than write a result in which any other key would read back differently.
  static func setting(_ key: String, to yamlValue: String, in text: String) throws -> String {
    var valueLines = yamlValue.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
    }
    let inline = valueLines.removeFirst()
    return try FMEditor.edit(
      text, key: key, newValue: FMNewValue(inline: inline, continuation: valueLines),
      insertAt: key == "id" ? .first : .last)
  }

  /// The keys nb writes into a new note — `id`, `title`, `created`, `updated` and, when there are any, `tags` — set
  /// in `text` (a template's output) as setting them one after the other would: in one step, parsed once, when the
  /// template wrote no front matter (the built-in `note` template, nearly every note), else key by key.
  static func settingNewNoteKeys(id: String, title: String, stamp: Timestamp, tags: [String], in text: String) throws
    -> String
  {
    var entries: [(key: String, value: String, expected: FMExpected)] = [
      ("id", id, .string(id)), ("title", YAMLScalar.format(title), .string(title)),
      ("created", stamp.rfc3339, .string(stamp.rfc3339)), ("updated", stamp.rfc3339, .string(stamp.rfc3339)),
    ]
    if !tags.isEmpty { entries.append(("tags", YAMLScalar.flowList(tags), .strings(tags))) }
    if let result = try FMEditor.addingNewBlock(to: text, entries: entries) { return result }
    return try settingNewNoteKeysOneByOne(id: id, title: title, stamp: stamp, tags: tags, in: text)
  }

  /// ``settingNewNoteKeys(id:title:stamp:tags:in:)`` key by key, the way every edit is made.
  static func settingNewNoteKeysOneByOne(id: String, title: String, stamp: Timestamp, tags: [String], in text: String)
    throws -> String
  {
    var result = try setting("id", to: id, in: text)
    result = try setting("title", to: YAMLScalar.format(title), in: result)
    result = try setting("created", to: stamp.rfc3339, in: result)
    result = try settingUpdated(stamp, in: result)
    if !tags.isEmpty { result = try settingTags(tags, in: result) }
    return result
  }

  /// `setting` for `updated`: edits `updated` if present, else the first present alias (`modified`, `lastmod`,
  /// `last_modified_at`) in place — the user's tool owns that convention — else adds `updated`.
  ///
  /// A value the user quoted (`updated: "…"`) stays quoted the same way.
  static func settingUpdated(_ value: Timestamp, in text: String) throws -> String {
    // A simple block (the kind nb writes) names its keys without Yams; the quoting kept is the value's own.
    if case .block(let block) = FMLayout.scan(text), let simple = FMSimpleBlock.values(block.content),
      let key = NoteMetadata.updatedKeys.first(where: { key in simple.contains { $0.key == key } }),
      let line = FMSimpleBlock.line(of: key, in: block)
    {
      let valueStart = line.start - block.contentStart + key.utf8.count + 2
      let quote = valueStart < line.contentEnd - block.contentStart ? block.content[valueStart] : 0
      let mark = quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") ? String(UnicodeScalar(quote)) : ""
      return try FMEditor.edit(
        text, key: key, newValue: FMNewValue(inline: mark + value.rfc3339 + mark), insertAt: .last)
    }
    return try editingFirstPresent(NoteMetadata.updatedKeys, in: text) { entry in
      var formatted = value.rfc3339
      if case .scalar(let scalar)? = entry?.value {
        if scalar.style == .doubleQuoted { formatted = "\"\(formatted)\"" }
        if scalar.style == .singleQuoted { formatted = "'\(formatted)'" }
      }
      return FMNewValue(inline: formatted)
    }
  }

  /// Sets tags. When the existing value is a block list, writes a block list with the same indentation and
  /// dash style; otherwise a one-line flow list `[a, b]`. Edits `tags`, or the alias key the file uses.
  ///
  /// An empty list is written `[]` in either case (an empty block list would read back as null).
  static func settingTags(_ tags: [String], in text: String) throws -> String {
    try editingFirstPresent(NoteMetadata.tagKeys, in: text) { entry, parsed in
      if !tags.isEmpty, let entry, let parsed, let dash = blockListDash(of: entry, in: parsed) {
        return FMNewValue(inline: "", continuation: tags.map { dash + YAMLScalar.format($0) })
      }
      return FMNewValue(inline: YAMLScalar.flowList(tags))
    }
  }

  /// Removes a top-level key's lines (no-op when absent).
  static func removing(_ key: String, in text: String) throws -> String {
    try FMEditor.edit(text, key: key, newValue: nil)
  }

  /// The body: everything after the closing delimiter line (the whole text when there is no front matter, or when
  /// an opening `---` is never closed; a BOM then stays part of the body).
  static func body(of text: String) -> Substring {
    guard case .block(let block) = FMLayout.scan(text) else { return text[...] }
    return text[stringIndex(text, block.bodyStart)...]
  }

  // MARK: - Internals

  private static func editingFirstPresent(
    _ keys: [String], in text: String, value: (FMEntry?) -> FMNewValue
  ) throws -> String {
    try editingFirstPresent(keys, in: text) { entry, _ in value(entry) }
  }

  /// Edits the first of `keys` the block has, else adds `keys[0]`.
  private static func editingFirstPresent(
    _ keys: [String], in text: String, value: (FMEntry?, FMParsed?) -> FMNewValue
  ) throws -> String {
    switch FMLayout.scan(text) {
    case .unterminated:
      throw FrontMatterError.unterminated(line: 1)
    case .none:
      return try FMEditor.edit(text, key: keys[0], newValue: value(nil, nil))
    case .block(let block):
      let parsed = try FMParsed.parse(block, typingScalars: false)
      let entry = keys.lazy.compactMap { parsed.entry($0) }.first
      let key = entry?.key ?? keys[0]
      return try FMEditor.edit(text, parsed: parsed, key: key, newValue: value(entry, parsed), insertAt: .last)
    }
  }

  /// The indentation, dash and blanks before the first item of a block list value (`  - `), if it is one.
  private static func blockListDash(of entry: FMEntry, in parsed: FMParsed) -> String? {
    guard case .sequence(let sequence) = entry.value, sequence.style != .flow, let first = sequence.first,
      let mark = first.mark
    else { return nil }
    let block = parsed.block
    let itemOffset = parsed.contentOffset(of: mark)
    let lineIndex = parsed.lineIndex(containing: itemOffset)
    guard lineIndex < block.lines.count else { return nil }
    let lineStart = block.lines[lineIndex].start - block.contentStart
    let prefix = block.content[lineStart..<itemOffset]
    // Only a plain `<blanks>-<blanks>` prefix can be copied; anything else (an anchor, a nested list) is not a style.
    guard let dash = prefix.firstIndex(of: UInt8(ascii: "-")),
      prefix[..<dash].allSatisfy({ $0 == UInt8(ascii: " ") }),
      prefix[(dash + 1)...].allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }),
      itemOffset > dash + 1
    else { return nil }
    return String(decoding: prefix, as: UTF8.self)
  }

  /// A top-level value as the metadata reads it: a scalar's text (nil for null, a mapping or anything else that is
  /// not text), or a list's item texts (null items left out).
  enum MetadataValue {
    case scalar(String?)
    case list([String])
  }

  /// Maps the parsed block onto `NoteMetadata` (every field but `hasFrontMatter` and `firstHeading`).
  static func metadata(from parsed: FMParsed) -> NoteMetadata {
    let values = firstValues(parsed)
    return metadata { key in
      guard let node = values[key] else { return nil }
      if case .sequence(let sequence) = node { return .list(sequence.compactMap(scalarString)) }
      return .scalar(scalarString(node))
    }
  }

  /// ``metadata(from:)`` of a block ``FMSimpleBlock`` read.
  static func metadata(fromSimple values: [(key: String, value: FMSimpleBlock.Value)]) -> NoteMetadata {
    metadata { key in
      guard let value = values.first(where: { $0.key == key })?.value else { return nil }
      return value.items.map(MetadataValue.list) ?? .scalar(value.text)
    }
  }

  /// The metadata from each top-level key's value (nil: no such key).
  private static func metadata(_ value: (String) -> MetadataValue?) -> NoteMetadata {
    func text(_ key: String) -> String? {
      guard case .scalar(let string?) = value(key) else { return nil }
      let trimmed = string.trimmingWhitespacesAndNewlines()
      return trimmed.isEmpty ? nil : trimmed
    }
    func timestamp(_ keys: [String]) -> Timestamp? {
      for key in keys {
        if let time = text(key).flatMap(Timestamp.init(rfc3339:)) { return time }
      }
      return nil
    }
    func list(_ keys: [String], normalize: ([String], Bool) -> [String]) -> [String] {
      for key in keys {
        let items: [String]
        switch value(key) {
        case .list(let raw)?: items = normalize(raw, false)
        case .scalar(let string?)?: items = normalize([string], true)
        default: continue
        }
        if !items.isEmpty { return items }
      }
      return []
    }
    var metadata = NoteMetadata()
    metadata.id = text("id")
    metadata.title = text("title")
    metadata.conflictOf = text("conflict_of")
    metadata.created = timestamp(NoteMetadata.createdKeys)
    metadata.updated = timestamp(NoteMetadata.updatedKeys)
    metadata.tags = list(NoteMetadata.tagKeys) { NoteMetadata.normalizedTags($0, split: $1) }
    metadata.aliases = list(NoteMetadata.aliasKeys) { raw, _ in NoteMetadata.normalizedList(raw) }
    return metadata
  }

  /// What a sync matches and orders note versions by — `id` and `updated`, read exactly as ``read(_:)`` reads them —
  /// without the rest of the metadata (title, other dates, tags, the first heading), which a merge of thousands of
  /// versions would read for nothing.
  static func readIdentity(_ text: String) throws -> NoteIdentity {
    switch FMLayout.scan(text) {
    case .unterminated:
      throw FrontMatterError.unterminated(line: 1)
    case .none:
      return NoteIdentity()
    case .block(let block):
      if let simple = FMSimpleBlock.values(block.content) { return identity(simple) }
      return try identityThroughYAML(block)
    }
  }

  /// ``readIdentity(_:)`` of `block` through Yams, whatever the block holds.
  static func identityThroughYAML(_ block: FMBlock) throws -> NoteIdentity {
    let values = firstValues(try FMParsed.parse(block, typingScalars: false))
    return NoteIdentity(id: Self.text("id", in: values), updated: timestamp(NoteMetadata.updatedKeys, in: values))
  }

  /// ``readIdentity(_:)`` of a block ``FMSimpleBlock`` read: the same trimming, null and time rules.
  private static func identity(_ values: [(key: String, value: FMSimpleBlock.Value)]) -> NoteIdentity {
    func text(_ key: String) -> String? {
      guard let string = values.first(where: { $0.key == key })?.value.text else { return nil }
      let trimmed = string.trimmingWhitespacesAndNewlines()
      return trimmed.isEmpty ? nil : trimmed
    }
    let updated = NoteMetadata.updatedKeys.lazy.compactMap { text($0).flatMap(Timestamp.init(rfc3339:)) }.first
    return NoteIdentity(id: text("id"), updated: updated)
  }

  /// Each top-level key's value (the first, should a key repeat).
  private static func firstValues(_ parsed: FMParsed) -> [String: Node] {
    var values: [String: Node] = [:]
    for entry in parsed.entries {
      if let key = entry.key, values[key] == nil { values[key] = entry.value }
    }
    return values
  }

  /// A key's scalar text, trimmed; nil when absent, null, a collection or blank.
  private static func text(_ key: String, in values: [String: Node]) -> String? {
    guard let node = values[key], let string = scalarString(node) else { return nil }
    let trimmed = string.trimmingWhitespacesAndNewlines()
    return trimmed.isEmpty ? nil : trimmed
  }

  /// The time the first of `keys` holding an RFC 3339 time says.
  private static func timestamp(_ keys: [String], in values: [String: Node]) -> Timestamp? {
    keys.lazy.compactMap { text($0, in: values).flatMap(Timestamp.init(rfc3339:)) }.first
  }

  /// A scalar's written text; nil for null (`~`, `null`, nothing) and for collections.
  private static func scalarString(_ node: Node) -> String? {
    guard case .scalar(let scalar) = node else { return nil }
    if scalar.style == .plain || scalar.style == .any, scalar.isNull { return nil }
    return scalar.string
  }
}

extension Node.Scalar {
  /// Whether YAML's core schema reads this scalar as null, as Yams' default resolver would tag it but without that
  /// resolver (see ``FMParsed/parse(_:typingScalars:)``): untagged `~`, `null`, `Null`, `NULL` or nothing, or
  /// anything tagged `!!null`. The caller checks the style: a quoted `"null"` is text.
  var isNull: Bool {
    switch tag.rawValue {
    case Tag.Name.implicit.rawValue: return FMSimpleBlock.isNull(string)
    case Tag.Name.null.rawValue: return true
    default: return false
    }
  }
}

import Foundation
import Yams

/// The result of merging two versions of one note.
enum NoteMergeOutcome: Equatable, Sendable {
  /// Both versions' changes combined into one text, built from `ours` by line edits.
  case clean(String)
  /// The versions cannot be combined; `reason` names what both changed (a key, the body, or a front matter problem).
  case conflict(reason: String)
}

/// Three-way merge of one note: front matter key by key, body line by line.
///
/// Front matter rules: the `updated` instant is the later of the two, `created` the earlier; `tags` and `aliases`
/// are sets (additions from both sides, removals by either side honoured); any other key changed on one side only
/// takes that side's lines as written, and changed differently on both is a conflict. The body is merged by
/// ``TextMerge``. The result is `ours` with lines edited — nothing is re-serialised — and any conflict makes the
/// whole note conflict (the caller then keeps both versions).
enum NoteMerge {
  /// Merges two versions of a note; `base` is their common ancestor (nil when both sides added the note).
  static func merge(base: String?, ours: String, theirs: String) -> NoteMergeOutcome {
    if ours == theirs || theirs == base { return .clean(ours) }
    if ours == base { return .clean(theirs) }
    do {
      return try mergeParts(base: base ?? "", ours: ours, theirs: theirs)
    } catch let error as FrontMatterError {
      return .conflict(reason: error.description)
    } catch let error as NoteMergeConflict {
      return .conflict(reason: error.reason)
    } catch {
      return .conflict(reason: String(describing: error))
    }
  }

  private static func mergeParts(base: String, ours: String, theirs: String) throws -> NoteMergeOutcome {
    let baseMatter = try MatterKeys(base)
    let ourMatter = try MatterKeys(ours)
    let theirMatter = try MatterKeys(theirs)
    let baseMeta = try FrontMatter.read(base)
    let ourMeta = try FrontMatter.read(ours)
    let theirMeta = try FrontMatter.read(theirs)

    // The body first: its offsets in `ours` are known before the front matter edits move them.
    let merged: String
    switch TextMerge.merge(
      base: String(FrontMatter.body(of: base)), ours: String(FrontMatter.body(of: ours)),
      theirs: String(FrontMatter.body(of: theirs)))
    {
    case .conflict: return .conflict(reason: "body")
    case .clean(let body):
      let bodyStart = ours.utf8.count - FrontMatter.body(of: ours).utf8.count
      merged = FMEditor.splice(ours, bodyStart, ours.utf8.count, body)
    }
    var text = merged

    let special = Set(
      NoteMetadata.updatedKeys + NoteMetadata.createdKeys + NoteMetadata.tagKeys + NoteMetadata.aliasKeys)
    var keys: [String] = []
    for key in ourMatter.order + theirMatter.order + baseMatter.order where !keys.contains(key) {
      keys.append(key)
    }
    var expected: [String: String?] = [:]
    for key in keys where !special.contains(key) {
      let b = baseMatter.raw[key]
      let o = ourMatter.raw[key]
      let t = theirMatter.raw[key]
      if o == t || t == b { continue }
      if o != b { throw NoteMergeConflict(reason: "front matter key '\(key)'") }
      text = try MatterKeys.transplant(key, from: theirMatter, into: text)
      expected[key] = t
    }

    if let updated = later(ourMeta.updated, theirMeta.updated), updated.rfc3339 != ourMeta.updated?.rfc3339 {
      text = try MatterKeys.setTimestamp(
        NoteMetadata.updatedKeys, updated, preferring: theirMatter, in: text, sameInstant: theirMeta.updated)
    }
    if let created = earlier(ourMeta.created, theirMeta.created), created.rfc3339 != ourMeta.created?.rfc3339 {
      text = try MatterKeys.setTimestamp(
        NoteMetadata.createdKeys, created, preferring: theirMatter, in: text, sameInstant: theirMeta.created)
    }
    let tags = setMerge(base: baseMeta.tags, ours: ourMeta.tags, theirs: theirMeta.tags)
    if tags != ourMeta.tags {
      text = try FrontMatter.settingTags(tags, in: text)
    }
    let aliases = setMerge(base: baseMeta.aliases, ours: ourMeta.aliases, theirs: theirMeta.aliases)
    if aliases != ourMeta.aliases {
      let key = NoteMetadata.aliasKeys.first { ourMatter.raw[$0] != nil } ?? NoteMetadata.aliasKeys[0]
      text = try FrontMatter.setting(key, to: YAMLScalar.flowList(aliases), in: text)
    }

    // The transplanted lines must read back exactly as the other side wrote them.
    let result = try MatterKeys(text)
    for (key, value) in expected where result.raw[key] != value {
      throw NoteMergeConflict(reason: "front matter key '\(key)' cannot be edited in place")
    }
    return .clean(text)
  }

  private static func later(_ lhs: Timestamp?, _ rhs: Timestamp?) -> Timestamp? {
    guard let lhs else { return rhs }
    guard let rhs else { return lhs }
    return rhs > lhs ? rhs : lhs
  }

  private static func earlier(_ lhs: Timestamp?, _ rhs: Timestamp?) -> Timestamp? {
    guard let lhs else { return rhs }
    guard let rhs else { return lhs }
    return rhs < lhs ? rhs : lhs
  }

  /// Additions from both sides, minus what either side removed; ours' order, then theirs' new entries.
  static func setMerge(base: [String], ours: [String], theirs: [String]) -> [String] {
    let baseSet = Set(base)
    let ourSet = Set(ours)
    let theirSet = Set(theirs)
    var result = ours.filter { !baseSet.contains($0) || theirSet.contains($0) }
    for entry in theirs where !ourSet.contains(entry) && !baseSet.contains(entry) { result.append(entry) }
    return result
  }
}

/// Why a note merge stopped (internal: surfaces as `NoteMergeOutcome.conflict`).
struct NoteMergeConflict: Error {
  var reason: String
}

/// The top-level keys of a note's front matter and the exact lines each one owns.
struct MatterKeys {
  /// Keys in file order.
  var order: [String] = []
  /// Each key's lines, line breaks normalised to `\n` (so that a CRLF and an LF copy of a key compare equal).
  var raw: [String: String] = [:]

  init(_ text: String) throws {
    guard case .block(let block) = FMLayout.scan(text) else {
      if case .unterminated = FMLayout.scan(text) { throw FrontMatterError.unterminated(line: 1) }
      return
    }
    // A simple block (FMSimpleBlock) without blank lines is one line per key, read without Yams.
    if FMSimpleBlock.values(block.content) != nil, !block.lines.contains(where: { $0.start == $0.contentEnd }) {
      for line in block.lines {
        let bytes = block.content[(line.start - block.contentStart)..<(line.end - block.contentStart)]
        let key = String(decoding: bytes.prefix { $0 != UInt8(ascii: ":") }, as: UTF8.self)
        order.append(key)
        raw[key] = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
      }
      return
    }
    // Keys are compared as text here, so the parse need not type scalars (FMParsed.parse(_:typingScalars:)).
    let parsed = try FMParsed.parse(block, typingScalars: false)
    guard !parsed.entries.isEmpty else { return }
    let keyLines = try FMEditor.editableKeyLines(parsed, key: "")
    for index in parsed.entries.indices {
      guard let key = parsed.entries[index].key else {
        throw NoteMergeConflict(reason: "front matter has a key that is not text")
      }
      let extent = try FMEditor.extent(of: index, in: parsed, keyLines: keyLines)
      let start = block.lines[extent.firstLine].start - block.contentStart
      let end = block.lines[extent.lastLine].end - block.contentStart
      let bytes = block.content[start..<end]
      order.append(key)
      raw[key] = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    }
  }

  /// `text` with `key`'s lines replaced by (or set to, or stripped of) the lines `source` has for it.
  static func transplant(_ key: String, from source: MatterKeys, into text: String) throws -> String {
    guard let lines = source.raw[key] else { return try FrontMatter.removing(key, in: text) }
    switch FMLayout.scan(text) {
    case .unterminated:
      throw FrontMatterError.unterminated(line: 1)
    case .none(let bomLength):
      let ending = lineEnding(ofBodyIn: text, from: bomLength)
      let block = "---\n" + lines + (lines.hasSuffix("\n") ? "" : "\n") + "---\n"
      return FMEditor.splice(text, bomLength, bomLength, converted(block, to: ending))
    case .block(let block):
      let parsed = try FMParsed.parse(block)
      var replacement = lines.hasSuffix("\n") ? lines : lines + "\n"
      replacement = converted(replacement, to: block.lineEnding)
      guard let index = parsed.entries.firstIndex(where: { $0.key == key }) else {
        return FMEditor.splice(text, block.closeStart, block.closeStart, replacement)
      }
      let keyLines = try FMEditor.editableKeyLines(parsed, key: key)
      let extent = try FMEditor.extent(of: index, in: parsed, keyLines: keyLines)
      return FMEditor.splice(
        text, block.lines[extent.firstLine].start, block.lines[extent.lastLine].end, replacement)
    }
  }

  /// Sets a timestamp key family to `value`: the other side's own lines when it wrote that very instant under the
  /// key `text` uses (its offset and spelling kept), else the formatted instant.
  static func setTimestamp(
    _ keys: [String], _ value: Timestamp, preferring source: MatterKeys, in text: String, sameInstant: Timestamp?
  ) throws -> String {
    let current = try MatterKeys(text)
    let key = keys.first { current.raw[$0] != nil } ?? keys[0]
    if sameInstant.map({ $0.rfc3339 == value.rfc3339 }) == true, source.raw[key] != nil,
      keys.first(where: { source.raw[$0] != nil }) == key
    {
      return try transplant(key, from: source, into: text)
    }
    if keys == NoteMetadata.updatedKeys { return try FrontMatter.settingUpdated(value, in: text) }
    return try FrontMatter.setting(key, to: value.rfc3339, in: text)
  }

  private static func lineEnding(ofBodyIn text: String, from start: Int) -> String {
    let bytes = Array(text.utf8)
    guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else { return "\n" }
    return newline > start && bytes[newline - 1] == UInt8(ascii: "\r") ? "\r\n" : "\n"
  }

  private static func converted(_ lines: String, to ending: String) -> String {
    ending == "\n" ? lines : lines.replacingOccurrences(of: "\n", with: ending)
  }
}

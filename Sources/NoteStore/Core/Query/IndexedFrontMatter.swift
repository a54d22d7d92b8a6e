import Foundation
import TaskKit
import TextFormat
import Yams

/// One front matter value the index keeps beside the fields `Note` has: a key nb gives no meaning (`due`,
/// `priority`, `status`, ...), with the value read every way a later filter may compare it.
struct FrontMatterField: Equatable, Sendable {
  /// The key as written.
  var key: String
  /// The scalar's text (one field per item of a list).
  var text: String
  /// The value as a number, when it is one.
  var number: Double?
  /// The value as an instant, when it is an RFC 3339 date or date-time.
  var instant: Date?

  init(key: String, text: String) {
    self.key = key
    self.text = text
    self.number = Double(text.trimmingWhitespaces()).flatMap { $0.isFinite ? $0 : nil }
    self.instant = Timestamp(rfc3339: text.trimmingWhitespaces())?.date
  }
}

extension FrontMatter {
  /// The keys `NoteMetadata` already reads: the index stores them as columns, not as fields.
  static let knownKeys: Set<String> = Set(
    ["id", "title", "conflict_of"] + NoteMetadata.createdKeys + NoteMetadata.updatedKeys + NoteMetadata.tagKeys
      + NoteMetadata.aliasKeys)

  /// What ``read(_:)`` reads, plus every other top-level key's scalar values (list items one by one; nested
  /// mappings are skipped), parsing the block once.
  /// Without `withFields`, only the metadata (what listings and saves need), without the cost of the other keys.
  /// `taskFields` are the task keys (``TaskFrontMatter/allKeys``) with their values and lines, when the block has
  /// `status:` (the note is a task); nil otherwise.
  static func readIndexed(_ text: String, withFields: Bool = true) throws -> (
    metadata: NoteMetadata, fields: [FrontMatterField], taskFields: [String: (value: FieldValue, line: Int?)]?
  ) {
    var metadata = NoteMetadata()
    var fields: [FrontMatterField] = []
    var taskFields: [String: (value: FieldValue, line: Int?)]?
    let bodyStart: Int
    switch FMLayout.scan(text) {
    case .unterminated:
      throw FrontMatterError.unterminated(line: 1)
    case .none(let bomLength):
      bodyStart = bomLength
    case .block(let block):
      // The simple block nb writes is read without Yams, unless the note is a task (its fields carry lines).
      if let simple = FMSimpleBlock.values(block.content),
        !simple.contains(where: { $0.key == TaskFrontMatter.statusKey })
      {
        metadata = Self.metadata(fromSimple: simple)
        metadata.hasFrontMatter = true
        bodyStart = block.bodyStart
        for (key, value) in simple where withFields && !knownKeys.contains(key) {
          for text in value.items ?? value.text.map { [$0] } ?? [] {
            fields.append(FrontMatterField(key: key, text: text))
          }
        }
        break
      }
      let parsed = try FMParsed.parse(block, typingScalars: false)
      metadata = Self.metadata(from: parsed)
      metadata.hasFrontMatter = true
      bodyStart = block.bodyStart
      if withFields, let status = parsed.entries.first(where: { $0.key == TaskFrontMatter.statusKey }),
        TaskFrontMatter.isTask(status: fieldText(status.value))
      {
        var values: [String: (value: FieldValue, line: Int?)] = [:]
        for entry in parsed.entries {
          guard let key = entry.key, TaskFrontMatter.allKeys.contains(key), values[key] == nil else { continue }
          values[key] = (fieldValue(entry.value), parsed.fileLine(of: entry.keyNode.mark))
        }
        taskFields = values
      }
      var seen = Set<String>()
      for entry in parsed.entries where withFields {
        guard let key = entry.key, !knownKeys.contains(key), seen.insert(key).inserted else { continue }
        switch entry.value {
        case .scalar:
          if let value = fieldText(entry.value) { fields.append(FrontMatterField(key: key, text: value)) }
        case .sequence(let items):
          for item in items {
            if let value = fieldText(item) { fields.append(FrontMatterField(key: key, text: value)) }
          }
        default:
          continue
        }
      }
    }
    metadata.firstHeading = withContiguousUTF8(text) { MarkdownHeading.firstLevelOne(in: $0, from: bodyStart) }
    return (metadata, fields, taskFields)
  }

  /// A YAML node as the task reader takes it (scalars as written, never type-resolved).
  static func fieldValue(_ node: Node) -> FieldValue {
    switch node {
    case .scalar:
      return fieldText(node).map(FieldValue.text) ?? .null
    case .sequence(let items):
      return .list(items.map(fieldValue))
    case .mapping(let mapping):
      return .mapping(mapping.compactMap { pair in pair.key.scalar.map { ($0.string, fieldValue(pair.value)) } })
    default:
      return .null
    }
  }

  /// A scalar's text; nil for null and for collections.
  private static func fieldText(_ node: Node) -> String? {
    guard case .scalar(let scalar) = node else { return nil }
    if scalar.style == .plain || scalar.style == .any, scalar.isNull { return nil }
    return scalar.string
  }
}

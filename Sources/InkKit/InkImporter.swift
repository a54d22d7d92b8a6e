import Foundation

/// Reads a drawing from any file format nb imports, chosen by content first (a renamed file still imports), then by
/// extension.
public enum InkImporter {
  /// The formats nb reads.
  enum Format: String, Sendable {
    case nbInk = "nb ink (.ink.jsonl)"
    case inkML = "InkML"
    case remarkable = "reMarkable lines (.rm)"
  }

  /// The format of `data` (named `name`), or nil when it is none nb knows.
  static func format(of data: Data, name: String) -> Format? {
    let head = data.prefix(256)
    if head.starts(with: Data("reMarkable".utf8)) { return .remarkable }
    let text = String(decoding: head, as: UTF8.self).drop { $0 == "\u{FEFF}" || $0.isWhitespace }
    if text.hasPrefix("{") { return .nbInk }
    if text.hasPrefix("<") { return .inkML }
    let lowered = name.lowercased()
    if lowered.hasSuffix(".rm") { return .remarkable }
    if lowered.hasSuffix(".inkml") || lowered.hasSuffix(".xml") { return .inkML }
    if lowered.hasSuffix(".jsonl") { return .nbInk }
    return nil
  }

  /// Parses `data`; errors name `name` and where in it the problem is.
  public static func read(_ data: Data, name: String) throws -> InkDocument {
    guard let format = format(of: data, name: name) else {
      throw InkFormatError(
        file: name, line: 1,
        message: "not a drawing nb can import: expected InkML (.inkml), reMarkable v6 (.rm) or nb ink (.ink.jsonl)")
    }
    // Each reader's error says where in the file; the import error adds which file.
    do {
      switch format {
      case .nbInk: return try InkCodec.parse(data, file: name)
      case .inkML: return try InkML.read(data, created: Date())
      case .remarkable: return try RemarkableV6.read(data)
      }
    } catch let error as InkMLError {
      throw InkImportError(file: name, message: error.description)
    } catch let error as RemarkableV6Error {
      throw InkImportError(file: name, message: error.description)
    }
  }
}

/// A file being imported that cannot be read: which file, and what and where (byte offset, line) the problem is.
public struct InkImportError: Error, Equatable, CustomStringConvertible {
  /// The file as the user named it.
  public var file: String
  /// The reader's own message, which says where in the file.
  public var message: String

  /// An error.
  public init(file: String, message: String) {
    self.file = file
    self.message = message
  }

  /// "file: message; nothing was imported".
  public var description: String { "\(file): \(message); nothing was imported" }
}

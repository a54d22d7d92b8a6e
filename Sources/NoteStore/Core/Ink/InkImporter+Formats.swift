import Foundation

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

  public var description: String { "\(file): \(message); nothing was imported" }
}

extension InkImporter {
  static func readInkML(_ data: Data, name: String) throws -> InkDocument {
    do {
      return try InkML.read(data, created: Date())
    } catch let error as InkMLError {
      throw InkImportError(file: name, message: error.description)
    }
  }

  static func readRemarkable(_ data: Data, name: String) throws -> InkDocument {
    do {
      return try RemarkableV6.read(data)
    } catch let error as RemarkableV6Error {
      throw InkImportError(file: name, message: error.description)
    }
  }
}

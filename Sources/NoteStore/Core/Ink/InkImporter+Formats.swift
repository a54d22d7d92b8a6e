import Foundation

extension InkImporter {
  static func readInkML(_ data: Data, name: String) throws -> InkDocument {
    throw InkFormatError(file: name, line: 1, message: "InkML import is not available yet")
  }

  static func readRemarkable(_ data: Data, name: String) throws -> InkDocument {
    throw InkFormatError(file: name, line: 1, message: "reMarkable import is not available yet")
  }
}

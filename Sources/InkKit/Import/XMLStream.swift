import CLibXML2
import Foundation

/// An XML document as a stream of element starts, ends and text, read by libxml2's streaming reader (through
/// CLibXML2, which loads libxml2 on first use). Namespaces are processed: an element is its local name and namespace
/// URI; attributes keep their qualified names (`xml:id`); namespace declarations are not attributes.
enum XMLStream {
  enum Event {
    /// `line` is where the start tag is.
    case start(name: String, namespace: String, attributes: [String: String], line: Int)
    /// The element's end (also sent for `<empty/>`); `line` is where the element starts.
    case end(line: Int)
    /// Character data or CDATA, UTF-8; the bytes are valid only during the call.
    case text(UnsafeBufferPointer<UInt8>)

    var line: Int? {
      switch self {
      case .start(_, _, _, let line), .end(let line): return line
      case .text: return nil
      }
    }
  }

  /// Why the document could not be read to its end.
  struct Failure: Error {
    enum Kind {
      /// libxml2 is not installed or lacks a function nb calls.
      case unavailable
      /// The bytes are not well-formed XML (or end too soon).
      case malformed
    }
    var kind: Kind
    var line: Int?
    var message: String
  }

  /// Calls `visit` for each event of `data` in document order. Throws what `visit` throws (which stops the reading),
  /// or a ``Failure`` when libxml2 is missing or the XML is not well formed — after the events before the fault.
  static func read(_ data: Data, _ visit: (Event) throws -> Void) throws {
    guard data.count <= Int(Int32.max) else {
      throw Failure(kind: .malformed, line: nil, message: "the document is larger than 2 GiB")
    }
    try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
      // libxml2 wants a non-null pointer even for no bytes.
      let empty: [CChar] = [0]
      try empty.withUnsafeBufferPointer { fallback in
        let base = buffer.baseAddress?.assumingMemoryBound(to: CChar.self) ?? fallback.baseAddress!
        guard let reader = nb_xml_open(base, Int32(buffer.count)) else {
          let reason = String(cString: nb_xml_load_error())
          if !reason.isEmpty {
            throw Failure(
              kind: .unavailable, line: nil,
              message: "\(reason); install it (Debian/Ubuntu: apt-get install libxml2)")
          }
          throw Failure(kind: .malformed, line: nil, message: "libxml2 refused the document")
        }
        defer { nb_xml_close(reader) }
        try walk(reader, visit)
      }
    }
  }

  private static func walk(_ reader: OpaquePointer, _ visit: (Event) throws -> Void) throws {
    while true {
      let type = nb_xml_next(reader)
      switch type {
      case 0:
        return
      case Int32(NB_XML_ELEMENT):
        let line = Int(nb_xml_line(reader))
        let name = string(nb_xml_local_name(reader))
        let namespace = string(nb_xml_namespace(reader))
        let empty = nb_xml_is_empty_element(reader) != 0
        var attributes: [String: String] = [:]
        while nb_xml_next_attribute(reader) == 1 {
          attributes[string(nb_xml_attribute_name(reader))] = string(nb_xml_value(reader))
        }
        try visit(.start(name: name, namespace: namespace, attributes: attributes, line: line))
        if empty { try visit(.end(line: line)) }
      case Int32(NB_XML_END_ELEMENT):
        try visit(.end(line: Int(nb_xml_line(reader))))
      case Int32(NB_XML_TEXT), Int32(NB_XML_CDATA), Int32(NB_XML_WHITESPACE), Int32(NB_XML_SIGNIFICANT_WHITESPACE):
        guard let value = nb_xml_value(reader) else { continue }
        let count = strlen(value)
        try value.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
          try visit(.text(UnsafeBufferPointer(start: bytes, count: count)))
        }
      default:
        let message = String(cString: nb_xml_error(reader))
        let line = Int(nb_xml_error_line(reader))
        throw Failure(
          kind: .malformed, line: line > 0 ? line : nil,
          message: message.isEmpty ? "libxml2 stopped without saying why" : message)
      }
    }
  }

  private static func string(_ text: UnsafePointer<CChar>?) -> String {
    text.map { String(cString: $0) } ?? ""
  }
}

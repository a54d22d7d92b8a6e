import Foundation

/// An ink file that cannot be read: which file, which line, what is wrong.
public struct InkFormatError: Error, Equatable, CustomStringConvertible {
  /// The file, as the caller named it (nil when parsing bytes from nowhere in particular).
  public var file: String?
  /// 1-based line.
  public var line: Int
  /// What is wrong, and where in the line.
  public var message: String

  /// An error.
  public init(file: String?, line: Int, message: String) {
    self.file = file
    self.line = line
    self.message = message
  }

  /// The file, line and message, as a person reads them.
  public var description: String {
    "\(file ?? "ink"):\(line): \(message)"
  }
}

/// Reading and writing the canonical JSON Lines form of FORMAT.md.
public enum InkCodec {
  /// The most points one stroke may have: far beyond any real stroke (an hour of drawing at 240 Hz is 864 000),
  /// low enough that a corrupt or hostile file cannot exhaust memory.
  public static let maxPointsPerStroke = 1_000_000
  /// The most points one file may have.
  public static let maxPointsPerFile = 5_000_000

  /// Parses a whole file. `file` only names it in errors.
  public static func parse(_ data: Data, file: String? = nil) throws -> InkDocument {
    try data.withUnsafeBytes { raw -> InkDocument in
      guard let base = raw.bindMemory(to: UInt8.self).baseAddress, raw.count > 0 else {
        throw InkFormatError(
          file: file, line: 1, message: "the file is empty; line 1 must be the {\"nbink\":1,...} header")
      }
      var reader = Reader(base: base, count: raw.count, file: file)
      return try reader.document()
    }
  }

  /// The canonical bytes of `document`: header, pages in display order, strokes in drawing order, other records.
  public static func serialize(_ document: InkDocument) -> Data {
    var writer = Writer(scales: document.scales)
    writer.header(document)
    for page in document.orderedPages { writer.page(page) }
    for stroke in document.drawingOrder { writer.stroke(stroke) }
    for record in document.unknownRecords.sorted(by: { ($0.mergeKey, $0.line) < ($1.mergeKey, $1.line) }) {
      writer.append(record.line)
      writer.append("\n")
    }
    return Data(writer.bytes)
  }

  /// The canonical line of one stroke (without newline), as it would be written with `scales`.
  static func line(of stroke: InkStroke, scales: InkScales = .standard) -> String {
    var writer = Writer(scales: scales)
    writer.stroke(stroke)
    writer.bytes.removeLast()
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  /// The scale a stroke's `tf` is written with (its `tfq`): 1 — not written — for the integral transforms nearly
  /// every stroke has (the identity); a finer one only on the line of a stroke that is rotated or shifted by a
  /// fraction, so such a stroke changes no other line.
  static func transformScale(_ transform: InkTransform) -> Int {
    transform.entries.allSatisfy { $0.rounded() == $0 } ? 1 : 1_000_000
  }

  // MARK: - Reading

  private struct Reader {
    let base: UnsafePointer<UInt8>
    let count: Int
    let file: String?
    var lineNumber = 0
    var totalPoints = 0

    init(base: UnsafePointer<UInt8>, count: Int, file: String?) {
      self.base = base
      self.count = count
      self.file = file
    }

    func fail(_ message: String) -> InkFormatError {
      InkFormatError(file: file, line: lineNumber, message: message)
    }

    mutating func document() throws -> InkDocument {
      var document = InkDocument()
      // A byte-order mark some editors put first is not part of the JSON.
      var start = count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF ? 3 : 0
      var sawHeader = false
      var ids: [String: Int] = [:]
      var pageIDs: [String: Int] = [:]
      while start < count {
        lineNumber += 1
        var stop = start
        while stop < count && base[stop] != 0x0a { stop += 1 }
        var lineEnd = stop
        if lineEnd > start && base[lineEnd - 1] == 0x0d { lineEnd -= 1 }
        defer { start = stop + 1 }
        var scanner = InkJSONScanner(base: base, start: start, end: lineEnd)
        scanner.skipSpace()
        if scanner.atEnd {
          if !sawHeader { throw fail("line 1 must be the {\"nbink\":1,...} header, not an empty line") }
          continue
        }
        do {
          if !sawHeader {
            try header(&scanner, into: &document)
            sawHeader = true
          } else {
            try record(&scanner, lineStart: start, lineEnd: lineEnd, into: &document, ids: &ids, pageIDs: &pageIDs)
          }
          scanner.skipSpace()
          guard scanner.atEnd else { throw InkSyntaxError(message: "unexpected text after the closing '}'") }
        } catch let error as InkSyntaxError {
          throw fail(error.message)
        }
      }
      if !sawHeader { throw fail("the file has no header; line 1 must be {\"nbink\":1,...}") }
      return document
    }

    mutating func header(_ scanner: inout InkJSONScanner, into document: inout InkDocument) throws {
      var version: Int64?
      var scales = InkScales.standard
      try scanner.object { scanner, key in
        switch key {
        case "nbink": version = try scanner.integer(key)
        case "unit":
          let unit = try scanner.string()
          guard unit == "pt" else {
            throw InkSyntaxError(message: "unit \"\(unit)\" is not supported; ink coordinates are in points (\"pt\")")
          }
        case "q":
          try scanner.object { scanner, channel in
            let value = try scanner.integer(channel)
            guard value > 0, value <= 1_000_000_000 else {
              throw InkSyntaxError(message: "scale \"\(channel)\" must be a positive integer up to 10^9, not \(value)")
            }
            switch channel {
            case "xy": scales.xy = Int(value)
            case "t": scales.time = Int(value)
            case "wh": scales.size = Int(value)
            case "o": scales.opacity = Int(value)
            case "f": scales.force = Int(value)
            case "ang": scales.angle = Int(value)
            default: throw InkSyntaxError(message: "unknown scale \"\(channel)\" in the header's q")
            }
          }
        default: document.headerExtra.append(InkExtraField(key: key, json: try scanner.rawValue(key)))
        }
      }
      guard let version else {
        throw InkSyntaxError(message: "line 1 is not an ink header: it has no \"nbink\" version")
      }
      guard version == Int64(InkDocument.formatVersion) else {
        throw InkSyntaxError(
          message: "ink format version \(version) is not supported (this nb reads version \(InkDocument.formatVersion))"
            + (version > 1 ? "; update nb" : ""))
      }
      document.scales = scales
    }

    mutating func record(
      _ scanner: inout InkJSONScanner, lineStart: Int, lineEnd: Int, into document: inout InkDocument,
      ids: inout [String: Int], pageIDs: inout [String: Int]
    ) throws {
      // The kind comes first in canonical files; for others, look for it before interpreting keys.
      let kind = try peekKind(scanner)
      switch kind {
      case "s":
        let stroke = try strokeRecord(&scanner, scales: document.scales)
        if let previous = ids[stroke.id] {
          throw InkSyntaxError(message: "stroke id \"\(stroke.id)\" is already used on line \(previous)")
        }
        ids[stroke.id] = lineNumber
        document.strokes.append(stroke)
      case "page":
        let page = try pageRecord(&scanner)
        if let previous = pageIDs[page.id] {
          throw InkSyntaxError(message: "page id \"\(page.id)\" is already used on line \(previous)")
        }
        pageIDs[page.id] = lineNumber
        document.pages.append(page)
      default:
        var id: String?
        try scanner.object { scanner, key in
          if key == "id", scanner.peek() == UInt8(ascii: "\"") {
            id = try scanner.string()
          } else {
            _ = try scanner.rawValue(key)
          }
        }
        let text = String(
          decoding: UnsafeBufferPointer(start: base + lineStart, count: lineEnd - lineStart), as: UTF8.self)
        let record = InkUnknownRecord(line: text, kind: kind, id: id)
        if id != nil {
          // Merged by (kind, id) like strokes, so that key must be unique too.
          if let previous = ids[record.mergeKey] {
            throw InkSyntaxError(message: "\"\(kind)\" id \"\(id!)\" is already used on line \(previous)")
          }
          ids[record.mergeKey] = lineNumber
        }
        document.unknownRecords.append(record)
      }
    }

    func peekKind(_ scanner: InkJSONScanner) throws -> String {
      var probe = scanner
      guard let kind = try probe.firstString(forKey: "k") else {
        throw InkSyntaxError(message: "the record has no \"k\" (kind: \"s\" or \"page\")")
      }
      return kind
    }

    mutating func pageRecord(_ scanner: inout InkJSONScanner) throws -> InkPage {
      var page = InkPage(id: "", order: "", width: 0, height: 0)
      var sawID = false
      try scanner.object { scanner, key in
        switch key {
        case "k": _ = try scanner.string()
        case "id":
          page.id = try scanner.string()
          sawID = true
        case "ord": page.order = try scanner.string()
        case "w": page.width = try Reader.size(scanner.integer(key), key)
        case "h": page.height = try Reader.size(scanner.integer(key), key)
        case "bg": page.background = try scanner.string()
        default: page.extra.append(InkExtraField(key: key, json: try scanner.rawValue(key)))
        }
      }
      guard sawID, !page.id.isEmpty else { throw InkSyntaxError(message: "the page record has no \"id\"") }
      return page
    }

    static func size(_ value: Int64, _ key: String) throws -> Int {
      guard (0...1_000_000).contains(value) else {
        throw InkSyntaxError(message: "page \"\(key)\" must be between 0 and 1000000 points, not \(value)")
      }
      return Int(value)
    }

    mutating func strokeRecord(_ scanner: inout InkJSONScanner, scales: InkScales) throws -> InkStroke {
      var stroke = InkStroke(id: "", points: [])
      var sawID = false
      var channelValues: [(key: String, values: [Int64])] = []
      let remaining = InkCodec.maxPointsPerFile - totalPoints
      var transformValues: [Int64]?
      var transformScale: Int64 = 1
      try scanner.object { scanner, key in
        switch key {
        case "k": _ = try scanner.string()
        case "id":
          stroke.id = try scanner.string()
          sawID = true
        case "pg": stroke.page = try scanner.string()
        case "ord": stroke.order = try scanner.string()
        case "ink": stroke.ink = InkType(name: try scanner.string())
        case "rgba":
          let text = try scanner.string()
          guard text.utf8.count == 8, let color = InkColor(hex: text) else {
            throw InkSyntaxError(message: "\"rgba\" must be 8 hex digits rrggbbaa, not \"\(text)\"")
          }
          stroke.color = color
        case "t0":
          let text = try scanner.string()
          guard let created = InkInstant.parse(text) else {
            throw InkSyntaxError(message: "\"t0\" is not an RFC 3339 instant: \"\(text)\"")
          }
          stroke.created = created
        case "tf":
          let values = try scanner.integerArray(key)
          guard values.count == 6 else {
            throw InkSyntaxError(message: "\"tf\" must have 6 entries [a,b,c,d,tx,ty], not \(values.count)")
          }
          transformValues = values
        case "tfq":
          transformScale = try scanner.integer(key)
          guard (1...1_000_000_000).contains(transformScale) else {
            throw InkSyntaxError(message: "\"tfq\" must be a positive integer up to 10^9, not \(transformScale)")
          }
        case "seed": stroke.seed = Int(try scanner.integer(key))
        case "x", "y", "t", "w", "h", "o", "f", "az", "al":
          channelValues.append((key, try scanner.deltaArray(key, limit: InkCodec.maxPointsPerStroke)))
        case "mask": stroke.mask = try scanner.string()
        case "from": stroke.parent = try scanner.string()
        default: stroke.extra.append(InkExtraField(key: key, json: try scanner.rawValue(key)))
        }
      }
      guard sawID, !stroke.id.isEmpty else { throw InkSyntaxError(message: "the stroke record has no \"id\"") }
      if let values = transformValues {
        // Applied after the whole record is read: FORMAT.md's key order puts "tfq" after "tf".
        let entries = values.map { Double($0) / Double(transformScale) }
        stroke.transform = InkTransform(
          a: entries[0], b: entries[1], c: entries[2], d: entries[3], tx: entries[4], ty: entries[5])
      }
      let label = "stroke \"\(stroke.id)\""
      guard let xs = channelValues.first(where: { $0.key == "x" }) else {
        throw InkSyntaxError(message: "\(label) has no \"x\" array")
      }
      guard let ys = channelValues.first(where: { $0.key == "y" }) else {
        throw InkSyntaxError(message: "\(label) has no \"y\" array")
      }
      for channel in channelValues where channel.values.count != xs.values.count {
        throw InkSyntaxError(
          message: "\(label): \"\(channel.key)\" has \(channel.values.count) values but \"x\" has \(xs.values.count);"
            + " every channel needs one value per point")
      }
      if remaining < xs.values.count {
        throw InkSyntaxError(
          message: "the file has more than \(InkCodec.maxPointsPerFile) points, the most one file may have")
      }
      totalPoints += xs.values.count
      stroke.points = Reader.points(xs: xs.values, ys: ys.values, channels: channelValues, scales: scales)
      for channel in channelValues {
        switch channel.key {
        case "t": stroke.channels.insert(.time)
        case "w": stroke.channels.insert(.width)
        case "h": stroke.channels.insert(.height)
        case "o": stroke.channels.insert(.opacity)
        case "f": stroke.channels.insert(.force)
        case "az": stroke.channels.insert(.azimuth)
        case "al": stroke.channels.insert(.altitude)
        default: break
        }
      }
      return stroke
    }

    static func points(
      xs: [Int64], ys: [Int64], channels: [(key: String, values: [Int64])], scales: InkScales
    ) -> [InkPoint] {
      let count = xs.count
      var points = [InkPoint](repeating: InkPoint(x: 0, y: 0), count: count)
      let xyScale = 1 / Double(scales.xy)
      for index in 0..<count {
        points[index].x = Double(xs[index]) * xyScale
        points[index].y = Double(ys[index]) * xyScale
      }
      for channel in channels {
        let values = channel.values
        func fill(_ scale: Int, _ path: WritableKeyPath<InkPoint, Double>) {
          let factor = 1 / Double(scale)
          for index in 0..<count { points[index][keyPath: path] = Double(values[index]) * factor }
        }
        switch channel.key {
        case "t": fill(scales.time, \.time)
        case "w": fill(scales.size, \.width)
        case "h": fill(scales.size, \.height)
        case "o": fill(scales.opacity, \.opacity)
        case "f": fill(scales.force, \.force)
        case "az": fill(scales.angle, \.azimuth)
        case "al": fill(scales.angle, \.altitude)
        default: break
        }
      }
      return points
    }
  }

  // MARK: - Writing

  private struct Writer {
    let scales: InkScales
    var bytes: [UInt8] = []

    init(scales: InkScales) {
      self.scales = scales
      bytes.reserveCapacity(4096)
    }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func append(_ value: Int64) {
      if value == 0 {
        bytes.append(UInt8(ascii: "0"))
        return
      }
      var magnitude = value.magnitude
      if value < 0 { bytes.append(UInt8(ascii: "-")) }
      var digits:
        (
          UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
          UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
        ) =
          (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
      var count = 0
      withUnsafeMutableBytes(of: &digits) { buffer in
        while magnitude > 0 {
          buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
          magnitude /= 10
          count += 1
        }
        for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
      }
    }

    mutating func string(_ text: String) {
      bytes.append(UInt8(ascii: "\""))
      for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "\""): append("\\\"")
        case UInt8(ascii: "\\"): append("\\\\")
        case 0x0a: append("\\n")
        case 0x0d: append("\\r")
        case 0x09: append("\\t")
        case 0..<0x20:
          let hex = String(byte, radix: 16)
          append("\\u00" + (hex.count == 1 ? "0" : "") + hex)
        default: bytes.append(byte)
        }
      }
      bytes.append(UInt8(ascii: "\""))
    }

    mutating func key(_ name: String, first: Bool = false) {
      if !first { bytes.append(UInt8(ascii: ",")) }
      string(name)
      bytes.append(UInt8(ascii: ":"))
    }

    mutating func extras(_ fields: [InkExtraField]) {
      for field in fields {
        key(field.key)
        append(field.json)
      }
    }

    mutating func header(_ document: InkDocument) {
      append("{\"nbink\":\(InkDocument.formatVersion),\"unit\":\"pt\",\"q\":{")
      append("\"xy\":\(scales.xy),\"t\":\(scales.time),\"wh\":\(scales.size),\"o\":\(scales.opacity)")
      append(",\"f\":\(scales.force),\"ang\":\(scales.angle)")
      append("}")
      extras(document.headerExtra)
      append("}\n")
    }

    mutating func page(_ page: InkPage) {
      append("{\"k\":\"page\"")
      key("id")
      string(page.id)
      key("ord")
      string(page.order)
      append(",\"w\":\(page.width),\"h\":\(page.height)")
      if let background = page.background {
        key("bg")
        string(background)
      }
      extras(page.extra)
      append("}\n")
    }

    static func quantize(_ value: Double, _ scale: Int) -> Int64 {
      let scaled = (value * Double(scale)).rounded()
      guard scaled.isFinite else { return 0 }
      return Int64(max(min(scaled, 9.0e15), -9.0e15))
    }

    mutating func channel(_ name: String, _ points: [InkPoint], _ path: KeyPath<InkPoint, Double>, _ scale: Int) {
      key(name)
      bytes.append(UInt8(ascii: "["))
      var previous: Int64 = 0
      for (index, point) in points.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        let value = Writer.quantize(point[keyPath: path], scale)
        append(value - previous)
        previous = value
      }
      bytes.append(UInt8(ascii: "]"))
    }

    mutating func stroke(_ stroke: InkStroke) {
      append("{\"k\":\"s\"")
      key("id")
      string(stroke.id)
      if let page = stroke.page {
        key("pg")
        string(page)
      }
      key("ord")
      string(stroke.order)
      key("ink")
      string(stroke.ink.name)
      key("rgba")
      string(stroke.color.hex)
      if let created = stroke.created {
        key("t0")
        string(InkInstant.format(created))
      }
      key("tf")
      bytes.append(UInt8(ascii: "["))
      let transformScale = InkCodec.transformScale(stroke.transform)
      for (index, entry) in stroke.transform.entries.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        append(Writer.quantize(entry, transformScale))
      }
      bytes.append(UInt8(ascii: "]"))
      if transformScale != 1 {
        key("tfq")
        append(Int64(transformScale))
      }
      if let seed = stroke.seed {
        key("seed")
        append(Int64(seed))
      }
      let points = stroke.points
      channel("x", points, \.x, scales.xy)
      channel("y", points, \.y, scales.xy)
      let channels = stroke.channels
      if channels.contains(.time) { channel("t", points, \.time, scales.time) }
      if channels.contains(.width) { channel("w", points, \.width, scales.size) }
      if channels.contains(.height) { channel("h", points, \.height, scales.size) }
      if channels.contains(.opacity) { channel("o", points, \.opacity, scales.opacity) }
      if channels.contains(.force) { channel("f", points, \.force, scales.force) }
      if channels.contains(.azimuth) { channel("az", points, \.azimuth, scales.angle) }
      if channels.contains(.altitude) { channel("al", points, \.altitude, scales.angle) }
      if let mask = stroke.mask {
        key("mask")
        string(mask)
      }
      if let parent = stroke.parent {
        key("from")
        string(parent)
      }
      extras(stroke.extra)
      append("}\n")
    }
  }
}

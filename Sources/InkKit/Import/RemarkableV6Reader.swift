import Foundation

/// A `.rm` file that cannot be read: what is wrong and at which byte.
public struct RemarkableV6Error: Error, Equatable, CustomStringConvertible {
  /// The kind of problem, so a caller can react to it without parsing the message.
  public enum Kind: Equatable, Sendable {
    /// The bytes do not start with a reMarkable lines header.
    case notALinesFile
    /// A lines file of another version than 6 (the value is the version the header names).
    case unsupportedVersion(Int)
    /// The file ends inside a header, block or value.
    case truncated
    /// A block or value is not laid out as v6 requires (wrong tag, length beyond its block, ...).
    case malformed
  }

  /// The kind of problem.
  public var kind: Kind
  /// Byte offset from the start of the file where the problem was found.
  public var offset: Int
  /// What is wrong, for a person.
  public var message: String

  /// An error.
  public init(_ kind: Kind, at offset: Int, _ message: String) {
    self.kind = kind
    self.offset = offset
    self.message = message
  }

  /// "reMarkable .rm file, byte N: message".
  public var description: String { "reMarkable .rm file, byte \(offset): \(message)" }
}

/// The raw content of the line items of a reMarkable v6 file, in the file's own units, before any mapping to nb's
/// model: what the file holds, for `read` and for tests.
extension RemarkableV6 {
  /// One pen stroke as stored in a SceneLineItemBlock.
  struct Line: Equatable, Sendable {
    /// The pen (tool) id: 2/15 ballpoint, 4/17 fineliner, 3/16 marker, 5/18 highlighter, ...
    var tool: Int
    /// The palette colour id: 0 black, 1 grey, 2 white, 3 yellow, ..., 9 highlight (see `argb`).
    var colorID: Int
    /// The explicit colour newer firmware writes for highlighters and shaders, `0xAARRGGBB`.
    var argb: UInt32?
    /// The tool's size setting.
    var thicknessScale: Double
    /// Length of the stroke drawn before this piece (for textured tools).
    var startingLength: Double
    /// The samples, in drawing order.
    var points: [Point]
    /// Byte offset of the block in the file, for error messages and tests.
    var blockOffset: Int

    /// A line.
    init(
      tool: Int, colorID: Int, argb: UInt32? = nil, thicknessScale: Double, startingLength: Double,
      points: [Point], blockOffset: Int = 0
    ) {
      self.tool = tool
      self.colorID = colorID
      self.argb = argb
      self.thicknessScale = thicknessScale
      self.startingLength = startingLength
      self.points = points
      self.blockOffset = blockOffset
    }
  }

  /// One sample of a line, normalised so both point encodings (v1 floats, v2 packed integers) agree.
  struct Point: Equatable, Sendable {
    /// Screen pixels; x is centred on the page's vertical middle line, y grows down from the top.
    var x, y: Double
    /// Pen speed in the file's unit (v2 integer units; v1 floats are scaled by 4 to match).
    var speed: Double
    /// Nib width, screen pixels.
    var width: Double
    /// Tilt direction, radians.
    var direction: Double
    /// Pressure, 0–1.
    var pressure: Double

    /// A point.
    init(x: Double, y: Double, speed: Double, width: Double, direction: Double, pressure: Double) {
      self.x = x
      self.y = y
      self.speed = speed
      self.width = width
      self.direction = direction
      self.pressure = pressure
    }
  }

  /// The lines of a v6 file in file order; deleted items and every other kind of block are skipped.
  static func lines(_ data: Data) throws -> [Line] {
    let bytes = [UInt8](data)
    var parser = RemarkableV6Parser(bytes: bytes)
    return try parser.lines()
  }
}

/// The tag types of v6's tagged values: the low nibble of a tag's varuint.
private enum TagType: UInt8 {
  case byte1 = 0x1
  case byte4 = 0x4
  case byte8 = 0x8
  case length4 = 0xC
  case id = 0xF
}

/// Reads the block stream. Every read is checked against `limit`, the end of the innermost block or sub-block being
/// read, so a corrupt length can only make a read fail, never run past the data or loop.
private struct RemarkableV6Parser {
  static let headerPrefix = Array("reMarkable .lines file, version=".utf8)
  static let headerLength = 43
  static let lineBlockType: UInt8 = 0x05
  static let lineItemType: UInt8 = 0x03

  let bytes: [UInt8]
  var position = 0
  var limit: Int

  init(bytes: [UInt8]) {
    self.bytes = bytes
    self.limit = bytes.count
  }

  mutating func lines() throws -> [RemarkableV6.Line] {
    try header()
    var lines: [RemarkableV6.Line] = []
    while position < bytes.count {
      let blockStart = position
      guard bytes.count - position >= 8 else {
        throw RemarkableV6Error(
          .truncated, at: position,
          "the file ends inside a block header (\(bytes.count - position) of 8 bytes)")
      }
      let length = Int(u32(at: position))
      let minVersion = bytes[position + 5]
      let currentVersion = bytes[position + 6]
      let blockType = bytes[position + 7]
      let bodyStart = position + 8
      guard length <= bytes.count - bodyStart else {
        throw RemarkableV6Error(
          .truncated, at: blockStart,
          "block of type 0x\(String(blockType, radix: 16)) declares \(length) bytes but only "
            + "\(bytes.count - bodyStart) remain")
      }
      guard minVersion <= currentVersion else {
        throw RemarkableV6Error(
          .malformed, at: blockStart, "block header has min version \(minVersion) > current \(currentVersion)")
      }
      let bodyEnd = bodyStart + length
      if blockType == Self.lineBlockType {
        position = bodyStart
        limit = bodyEnd
        if let line = try lineItem(version: currentVersion, blockOffset: blockStart) {
          lines.append(line)
        }
        limit = bytes.count
      }
      // Whatever a block holds beyond what is read here (newer firmware adds fields) is skipped by its length.
      position = bodyEnd
    }
    return lines
  }

  mutating func header() throws {
    let prefix = Self.headerPrefix
    let available = min(bytes.count, prefix.count)
    guard bytes[0..<available].elementsEqual(prefix[0..<available]) else {
      throw RemarkableV6Error(.notALinesFile, at: 0, "not a reMarkable lines file (no 'reMarkable .lines file' header)")
    }
    guard bytes.count > prefix.count else {
      throw RemarkableV6Error(.truncated, at: bytes.count, "the file ends inside its header")
    }
    var index = prefix.count
    var version = 0
    while index < min(bytes.count, Self.headerLength), let digit = Self.digit(bytes[index]), version < 1000 {
      version = version * 10 + digit
      index += 1
    }
    guard index > prefix.count else {
      throw RemarkableV6Error(.notALinesFile, at: prefix.count, "the header names no version number")
    }
    guard version == 6 else {
      throw RemarkableV6Error(
        .unsupportedVersion(version), at: prefix.count,
        "reMarkable lines version \(version) is not supported; only version 6 files can be imported")
    }
    guard bytes.count >= Self.headerLength else {
      throw RemarkableV6Error(.truncated, at: bytes.count, "the file ends inside its 43-byte header")
    }
    for offset in index..<Self.headerLength where bytes[offset] != UInt8(ascii: " ") {
      throw RemarkableV6Error(.notALinesFile, at: offset, "the header is not padded with spaces to 43 bytes")
    }
    position = Self.headerLength
  }

  private static func digit(_ byte: UInt8) -> Int? {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
  }

  // MARK: Scene line item

  /// The line of a SceneLineItemBlock, or nil when the item is deleted (its value is absent).
  mutating func lineItem(version: UInt8, blockOffset: Int) throws -> RemarkableV6.Line? {
    try id(1)  // parent (layer)
    try id(2)  // item
    try id(3)  // left neighbour
    try id(4)  // right neighbour
    _ = try u32Value(5)  // deleted length
    guard position < limit, nextTagIs(6, .length4) else { return nil }
    let valueEnd = try subblock(6)
    let outer = limit
    limit = valueEnd
    defer { limit = outer }
    let itemType = try u8()
    guard itemType == Self.lineItemType else {
      throw RemarkableV6Error(
        .malformed, at: position - 1, "a line block holds an item of type \(itemType), expected \(Self.lineItemType)")
    }
    guard version == 1 || version == 2 else {
      throw RemarkableV6Error(
        .malformed, at: blockOffset, "line block version \(version) is not known (1 and 2 are)")
    }
    let tool = try u32Value(1)
    let color = try u32Value(2)
    let thickness = try doubleValue(3)
    let startingLength = try floatValue(4)
    let pointsEnd = try subblock(5)
    let pointSize = version == 1 ? 24 : 14
    let pointBytes = pointsEnd - position
    guard pointBytes % pointSize == 0 else {
      throw RemarkableV6Error(
        .malformed, at: position, "\(pointBytes) bytes of points is not a multiple of the \(pointSize)-byte point")
    }
    var points: [RemarkableV6.Point] = []
    points.reserveCapacity(pointBytes / pointSize)
    while position < pointsEnd {
      points.append(version == 1 ? pointV1(at: position) : pointV2(at: position))
      position += pointSize
    }
    try id(6)  // timestamp
    if limit - position >= 3, nextTagIs(7, .id) { try id(7) }  // move id
    var argb: UInt32?
    if nextTagIs(8, .byte4) { argb = try u32Value(8) }
    return RemarkableV6.Line(
      tool: Int(tool), colorID: Int(color), argb: argb, thicknessScale: thickness, startingLength: startingLength,
      points: points, blockOffset: blockOffset)
  }

  /// A v1 point: six little-endian floats; speed and width are scaled to v2's units so both agree.
  func pointV1(at offset: Int) -> RemarkableV6.Point {
    RemarkableV6.Point(
      x: f32(at: offset), y: f32(at: offset + 4), speed: f32(at: offset + 8) * 4, width: f32(at: offset + 16),
      direction: f32(at: offset + 12), pressure: f32(at: offset + 20))
  }

  /// A v2 point: x, y floats, then u16 speed, u16 width (quarter pixels), u8 direction (1/255 turn), u8 pressure.
  func pointV2(at offset: Int) -> RemarkableV6.Point {
    RemarkableV6.Point(
      x: f32(at: offset), y: f32(at: offset + 4), speed: Double(u16(at: offset + 8)),
      width: Double(u16(at: offset + 10)) / 4, direction: Double(bytes[offset + 12]) * 2 * .pi / 255,
      pressure: Double(bytes[offset + 13]) / 255)
  }

  // MARK: Tagged values

  /// Whether the next tag is `index` of `type`, without consuming it; false when no tag can be read before `limit`.
  func nextTagIs(_ index: Int, _ type: TagType) -> Bool {
    var copy = self
    guard let (found, foundType) = try? copy.tag() else { return false }
    return found == index && foundType == type
  }

  mutating func tag() throws -> (Int, TagType) {
    let start = position
    let value = try varuint()
    guard let type = TagType(rawValue: UInt8(value & 0xF)) else {
      throw RemarkableV6Error(.malformed, at: start, "unknown tag type 0x\(String(value & 0xF, radix: 16))")
    }
    return (Int(value >> 4), type)
  }

  mutating func expectTag(_ index: Int, _ type: TagType) throws {
    let start = position
    let (found, foundType) = try tag()
    guard found == index, foundType == type else {
      throw RemarkableV6Error(
        .malformed, at: start, "expected tag \(index) of type \(type), found tag \(found) of type \(foundType)")
    }
  }

  mutating func id(_ index: Int) throws {
    try expectTag(index, .id)
    _ = try u8()
    _ = try varuint()
  }

  mutating func u32Value(_ index: Int) throws -> UInt32 {
    try expectTag(index, .byte4)
    try need(4)
    defer { position += 4 }
    return u32(at: position)
  }

  mutating func floatValue(_ index: Int) throws -> Double {
    try expectTag(index, .byte4)
    try need(4)
    defer { position += 4 }
    return f32(at: position)
  }

  mutating func doubleValue(_ index: Int) throws -> Double {
    try expectTag(index, .byte8)
    try need(8)
    defer { position += 8 }
    return Double(bitPattern: UInt64(u32(at: position)) | UInt64(u32(at: position + 4)) << 32)
  }

  /// Reads a sub-block header; returns the sub-block's end, checked to lie inside the enclosing block.
  mutating func subblock(_ index: Int) throws -> Int {
    try expectTag(index, .length4)
    try need(4)
    let length = Int(u32(at: position))
    position += 4
    guard length <= limit - position else {
      throw RemarkableV6Error(
        .malformed, at: position - 4,
        "sub-block \(index) declares \(length) bytes but only \(limit - position) remain in its block")
    }
    return position + length
  }

  // MARK: Raw values

  mutating func need(_ count: Int) throws {
    // Blocks are checked against the file's end when their header is read, so running out here is a bad layout.
    guard limit - position >= count else {
      throw RemarkableV6Error(
        .malformed, at: position,
        "needs \(count) bytes but only \(limit - position) remain in the block")
    }
  }

  mutating func u8() throws -> UInt8 {
    try need(1)
    defer { position += 1 }
    return bytes[position]
  }

  mutating func varuint() throws -> UInt64 {
    let start = position
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let byte = try u8()
      guard shift < 64 else {
        throw RemarkableV6Error(.malformed, at: start, "a variable-length integer is longer than 64 bits")
      }
      result |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return result }
      shift += 7
    }
  }

  func u16(at offset: Int) -> UInt16 {
    UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
  }

  func u32(at offset: Int) -> UInt32 {
    UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
      | UInt32(bytes[offset + 3]) << 24
  }

  func f32(at offset: Int) -> Double {
    Double(Float(bitPattern: u32(at: offset)))
  }
}

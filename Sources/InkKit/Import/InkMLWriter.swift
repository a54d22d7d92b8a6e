import Foundation

/// Builds the text of `InkML.write`: definitions first (they must precede the traces that refer to them), then traces.
struct InkMLWriter {
  private struct ChannelSet: Hashable {
    var time, force, width, azimuth, altitude: Bool
  }

  private struct BrushKey: Hashable {
    var ink: String
    var color: InkColor
    /// The width every point has, already formatted; nil when widths vary (then W is a channel) or are absent.
    var width: String?
  }

  private let xyDecimals: Int
  private let sizeDecimals: Int
  private let forceDecimals: Int
  private let angleDecimals: Int
  private let millisecondDecimals: Int

  private var contexts: [ChannelSet: String] = [:]
  private var contextOrder: [ChannelSet] = []
  private var brushes: [BrushKey: String] = [:]
  private var brushOrder: [BrushKey] = []
  private var traces: [UInt8] = []

  init(scales: InkScales) {
    xyDecimals = InkMLWriter.decimals(Double(scales.xy))
    sizeDecimals = InkMLWriter.decimals(Double(scales.size))
    forceDecimals = InkMLWriter.decimals(Double(scales.force))
    angleDecimals = InkMLWriter.decimals(Double(scales.angle))
    millisecondDecimals = InkMLWriter.decimals(Double(scales.time) / 1000)
  }

  /// Digits after the point that keep a value stored at `perUnit` steps exactly.
  static func decimals(_ perUnit: Double) -> Int {
    var digits = 0
    var power = 1.0
    while power < perUnit && digits < 12 {
      power *= 10
      digits += 1
    }
    return digits
  }

  /// `value` rounded to `decimals` digits, without trailing zeros, never in exponent form.
  static func format(_ value: Double, decimals: Int) -> String {
    var bytes: [UInt8] = []
    append(value, decimals: decimals, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends `format(value, decimals:)` without making a String: the writer formats hundreds of thousands of values.
  static func append(_ value: Double, decimals: Int, to bytes: inout [UInt8]) {
    let power = powersOfTen[min(decimals, powersOfTen.count - 1)]
    let scaled = value.isFinite ? (value * power).rounded() : 0
    guard abs(scaled) < 9e15 else {
      bytes.append(contentsOf: String(format: "%.\(decimals)f", value).utf8)
      return
    }
    let integer = Int64(scaled)
    if integer < 0 { bytes.append(UInt8(ascii: "-")) }
    let magnitude = integer.magnitude
    let divisor = UInt64(power)
    appendDigits(magnitude / divisor, minimumCount: 1, to: &bytes)
    var fraction = magnitude % divisor
    guard fraction > 0 else { return }
    var count = decimals
    while fraction % 10 == 0 {
      fraction /= 10
      count -= 1
    }
    bytes.append(UInt8(ascii: "."))
    appendDigits(fraction, minimumCount: count, to: &bytes)
  }

  private static let powersOfTen: [Double] = (0...15).map { pow(10, Double($0)) }

  /// Decimal digits of `value`, left-padded with zeros to `minimumCount`.
  private static func appendDigits(_ value: UInt64, minimumCount: Int, to bytes: inout [UInt8]) {
    var divisor: UInt64 = 1
    var count = 1
    while divisor <= value / 10 {
      divisor *= 10
      count += 1
    }
    for _ in count..<max(count, minimumCount) { bytes.append(UInt8(ascii: "0")) }
    var rest = value
    while divisor > 0 {
      bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
      rest %= divisor
      divisor /= 10
    }
  }

  mutating func add(_ stroke: InkStroke) {
    guard !stroke.points.isEmpty else { return }
    let transform = stroke.transform
    let widthScale = transform.isIdentity ? 1 : transform.lengthScale
    let widths = stroke.channels.contains(.width) ? stroke.points.map { $0.width * widthScale } : nil
    // Widths equal at the written precision go to the brush instead of a channel.
    let sizeStep = InkMLWriter.powersOfTen[min(sizeDecimals, InkMLWriter.powersOfTen.count - 1)]
    let constantWidth = widths.flatMap { all -> String? in
      let first = (all[0] * sizeStep).rounded()
      return all.allSatisfy { ($0 * sizeStep).rounded() == first }
        ? InkMLWriter.format(all[0], decimals: sizeDecimals) : nil
    }
    let set = ChannelSet(
      time: stroke.channels.contains(.time), force: stroke.channels.contains(.force),
      width: widths != nil && constantWidth == nil, azimuth: stroke.channels.contains(.azimuth),
      altitude: stroke.channels.contains(.altitude))
    let contextID = context(for: set)
    let brushID = brush(for: BrushKey(ink: stroke.ink.name, color: stroke.color, width: constantWidth))

    let start =
      "<trace xml:id=\"\(InkMLWriter.traceID(stroke.id))\" contextRef=\"#\(contextID)\" brushRef=\"#\(brushID)\">"
    traces.append(contentsOf: start.utf8)
    let space = UInt8(ascii: " ")
    for (index, point) in stroke.points.enumerated() {
      if index > 0 { traces.append(contentsOf: [UInt8(ascii: ","), space]) }
      let (x, y) = transform.apply(x: point.x, y: point.y)
      InkMLWriter.append(x, decimals: xyDecimals, to: &traces)
      traces.append(space)
      InkMLWriter.append(y, decimals: xyDecimals, to: &traces)
      if set.time {
        traces.append(space)
        InkMLWriter.append(point.time * 1000, decimals: millisecondDecimals, to: &traces)
      }
      if set.force {
        traces.append(space)
        InkMLWriter.append(point.force, decimals: forceDecimals, to: &traces)
      }
      if set.width, let widths {
        traces.append(space)
        InkMLWriter.append(widths[index], decimals: sizeDecimals, to: &traces)
      }
      if set.azimuth {
        traces.append(space)
        InkMLWriter.append(point.azimuth, decimals: angleDecimals, to: &traces)
      }
      if set.altitude {
        traces.append(space)
        InkMLWriter.append(point.altitude, decimals: angleDecimals, to: &traces)
      }
    }
    traces.append(contentsOf: "</trace>\n".utf8)
  }

  private mutating func context(for set: ChannelSet) -> String {
    if let id = contexts[set] { return id }
    let id = "c\(contextOrder.count + 1)"
    contexts[set] = id
    contextOrder.append(set)
    return id
  }

  private mutating func brush(for key: BrushKey) -> String {
    if let id = brushes[key] { return id }
    let id = "b\(brushOrder.count + 1)"
    brushes[key] = id
    brushOrder.append(key)
    return id
  }

  func text() -> String {
    var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<ink xmlns=\"\(InkML.namespace)\">"]
    if !contextOrder.isEmpty {
      lines.append("<definitions>")
      for set in contextOrder {
        lines.append("<context xml:id=\"\(contexts[set]!)\">")
        lines.append("<traceFormat>")
        lines.append("<channel name=\"X\" type=\"decimal\" units=\"pt\"/>")
        lines.append("<channel name=\"Y\" type=\"decimal\" units=\"pt\"/>")
        if set.time { lines.append("<channel name=\"T\" type=\"decimal\" units=\"ms\"/>") }
        // nb's force is 1 for a normal press and may exceed it; declaring 0...1 keeps the reader's scaling a no-op.
        if set.force { lines.append("<channel name=\"F\" type=\"decimal\" min=\"0\" max=\"1\"/>") }
        if set.width { lines.append("<channel name=\"W\" type=\"decimal\" units=\"pt\"/>") }
        if set.azimuth { lines.append("<channel name=\"OA\" type=\"decimal\" units=\"rad\"/>") }
        if set.altitude { lines.append("<channel name=\"OE\" type=\"decimal\" units=\"rad\"/>") }
        lines.append("</traceFormat>")
        lines.append("</context>")
      }
      for key in brushOrder {
        lines.append("<brush xml:id=\"\(brushes[key]!)\">")
        lines.append("<brushProperty name=\"color\" value=\"\(key.color.cssRGB)\"/>")
        if let width = key.width {
          lines.append("<brushProperty name=\"width\" value=\"\(width)\" units=\"pt\"/>")
        }
        if key.color.alpha < 255 {
          // Four digits keep the alpha byte exact: 1/255 is 0.0039.
          let transparency = InkMLWriter.format(1 - Double(key.color.alpha) / 255, decimals: 4)
          lines.append("<brushProperty name=\"transparency\" value=\"\(transparency)\"/>")
        }
        if key.ink == InkType.highlighter.name {
          lines.append("<brushProperty name=\"rasterOp\" value=\"maskPen\"/>")
        }
        lines.append(
          "<brushProperty name=\"\(InkML.inkProperty)\" value=\"\(XMLText.escape(key.ink))\"/>")
        lines.append("</brush>")
      }
      lines.append("</definitions>")
    }
    var bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
    bytes.append(contentsOf: traces)
    bytes.append(contentsOf: "</ink>\n".utf8)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// A trace's `xml:id`: the stroke id made an XML name (`xml:id` must be one: no leading digit, as a UUID may have,
  /// and only name characters): `s-` before it, and any byte other than a letter, digit, `-`, `.` or `_` written as
  /// `_` and two hex digits (`_` itself too, so distinct ids stay distinct).
  static func traceID(_ id: String) -> String {
    var result = "s-"
    for byte in id.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
        result.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        result += "_" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
      }
    }
    return result
  }
}

import Foundation

/// The filled shape a stroke paints: a closed outline around its points whose width follows the nib's size and the
/// pressure, in the spirit of perfect-freehand (steveruizok/perfect-freehand): streamline the points, offset each one
/// to both sides by its radius, and close the two sides with round caps.
///
/// A stroke that turns by more than a right angle at one point is outlined as several overlapping pieces with round
/// ends, all wound the same way: under SVG's default non-zero fill rule they add up, so the turn never leaves a hole,
/// and the piece ends join as a round corner.
enum StrokeOutline {
  /// How the outline follows the points.
  struct Options: Hashable, Sendable {
    /// 0 up to 0.9: how far each point is pulled back towards the previous one before outlining, as a fraction
    /// of the step and at most a quarter of the radius; irons out jitter. The stroke still ends exactly where the
    /// pen lifted.
    var streamline: Double
    /// 0 to 1: a point nearer than `smoothing × radius ÷ 2` to the last one kept is dropped, which removes
    /// repeated points and keeps the path small.
    var smoothing: Double
    /// 0 to 1: how much force changes the nominal width of a stroke without a width channel: force 0 draws
    /// `1 − thinning` of it, force 1 all of it, force 3 or more `1 + 2 × thinning`.
    var thinning: Double

    /// Options with each field given; the defaults suit recorded (already smooth) pen input.
    init(streamline: Double = 0.25, smoothing: Double = 0.5, thinning: Double = 0.5) {
      self.streamline = streamline
      self.smoothing = smoothing
      self.thinning = thinning
    }

    /// The defaults.
    static let standard = Options()
  }

  /// The width (diameter, points) drawn for a stroke that has no width channel.
  static func nominalWidth(for ink: InkType) -> Double {
    switch ink {
    case .pen, .monoline, .other: 2
    case .pencil: 1.5
    case .fountainPen: 3
    case .crayon: 6
    case .marker, .watercolor: 10
    case .highlighter: 16
    case .eraser: 10
    }
  }

  /// The radius (points, after the stroke's transform) drawn at each of the stroke's points: half the `width`
  /// channel when the stroke has one (a recorded size already follows the pressure), else half the nominal width
  /// scaled by the force when there is a force channel.
  static func radii(of stroke: InkStroke, options: Options = .standard) -> [Double] {
    let nib = Nib(stroke: stroke, options: options)
    return stroke.points.map { nib.radius($0) }
  }

  /// The closed outline polygons of a stroke, in order: one for a straight or gently curving stroke, more where it
  /// turns sharply, a round dot for a stroke whose points all coincide; none without finite points. Each polygon runs
  /// along the stroke's left side, round the end cap, back along the right side and round the start cap.
  static func polygons(of stroke: InkStroke, options: Options = .standard) -> [[(x: Double, y: Double)]] {
    var builder = OutlineBuilder()
    builder.centreline(of: stroke, options: options)
    var result: [[(x: Double, y: Double)]] = []
    for run in 0..<builder.runCount {
      builder.polygon(run: run)
      result.append(zip(builder.outlineX, builder.outlineY).map { (x: $0, y: $1) })
    }
    return result
  }

  /// The outline as SVG path data: each polygon a sub-path of quadratic curves through the midpoints of its edges
  /// (so corners are rounded off), numbers to 1/100 pt. Empty when the stroke has no finite points.
  static func pathData(of stroke: InkStroke, options: Options = .standard) -> String {
    var builder = OutlineBuilder()
    let sink = ByteSink()
    builder.centreline(of: stroke, options: options)
    for run in 0..<builder.runCount {
      builder.polygon(run: run)
      builder.writePolygonPath(into: sink)
    }
    return String(decoding: sink.bytes, as: UTF8.self)
  }
}

/// The radius rule of one stroke.
struct Nib {
  let hasWidth: Bool
  let hasForce: Bool
  let nominal: Double
  let scale: Double
  let thinning: Double

  /// Below this a stroke would vanish when rasterised; a recorded width of 0 still draws a hairline.
  static let minimumRadius = 0.1
  /// Far beyond any nib; keeps a corrupt width from pushing coordinates past what the path writer can hold.
  static let maximumRadius = 1e6

  init(stroke: InkStroke, options: StrokeOutline.Options) {
    hasWidth = stroke.channels.contains(.width)
    hasForce = stroke.channels.contains(.force)
    nominal = StrokeOutline.nominalWidth(for: stroke.ink)
    let lengthScale = stroke.transform.lengthScale
    scale = lengthScale.isFinite ? lengthScale : 1
    thinning = min(max(options.thinning, 0), 1)
  }

  @inline(__always)
  func radius(_ point: InkPoint) -> Double {
    var diameter = hasWidth ? point.width : nominal
    if !hasWidth && hasForce {
      let force = min(max(point.force.isFinite ? point.force : 1, 0), 3)
      diameter *= 1 + thinning * (force - 1)
    }
    let radius = diameter * scale / 2
    return radius.isFinite ? min(max(radius, Nib.minimumRadius), Nib.maximumRadius) : Nib.minimumRadius
  }
}

/// Builds outlines into buffers it keeps between strokes, so rendering a page allocates per stroke at most once.
struct OutlineBuilder {
  // The kept centreline points and their radii.
  private(set) var pointX: [Double] = []
  private(set) var pointY: [Double] = []
  private(set) var pointR: [Double] = []
  /// The widest radius seen, for a stroke that collapses to a dot.
  private var widest = 0.0
  /// How many more points cutting long segments may add to the current stroke: a hostile stroke of long zig-zags
  /// must not turn a small file into gigabytes of outline.
  private var subdivisionBudget = 0
  /// Indices into the centreline where one outline piece ends and the next begins (first 0, last the last point).
  private var breaks: [Int] = []
  /// The current polygon.
  private(set) var outlineX: [Double] = []
  private(set) var outlineY: [Double] = []
  private var rightX: [Double] = []
  private var rightY: [Double] = []
  /// Extent of every polygon built since the last `resetBounds`, before the curves round the corners inward.
  var bounds = InkRect(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

  /// Far beyond any page, small enough that coordinates in 1/100 pt fit an Int.
  private static let coordinateLimit = 1e12

  /// How many outline pieces the current centreline makes.
  var runCount: Int {
    pointX.isEmpty ? 0 : max(1, breaks.count - 1)
  }

  mutating func resetBounds() {
    bounds = InkRect(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
  }

  /// Transforms, streamlines and thins out the stroke's points, then decides where the outline splits.
  mutating func centreline(of stroke: InkStroke, options: StrokeOutline.Options) {
    pointX.removeAll(keepingCapacity: true)
    pointY.removeAll(keepingCapacity: true)
    pointR.removeAll(keepingCapacity: true)
    breaks.removeAll(keepingCapacity: true)
    widest = 0
    subdivisionBudget = 4 * stroke.points.count + 1_000
    let nib = Nib(stroke: stroke, options: options)
    let transform = stroke.transform
    let follow = 1 - min(max(options.streamline.isFinite ? options.streamline : 0, 0), 0.9)
    let smoothing = min(max(options.smoothing.isFinite ? options.smoothing : 0, 0), 1)
    let limit = OutlineBuilder.coordinateLimit
    var rawX = 0.0
    var rawY = 0.0
    var rawR = 0.0
    var lastStep = 0.0
    for point in stroke.points {
      let x = transform.a * point.x + transform.c * point.y + transform.tx
      let y = transform.b * point.x + transform.d * point.y + transform.ty
      guard x.isFinite, y.isFinite, abs(x) < limit, abs(y) < limit else { continue }
      let r = nib.radius(point)
      widest = max(widest, r)
      rawX = x
      rawY = y
      rawR = r
      // Repeated and nearly repeated points would give the outline directions of zero length.
      let step = max(0.02, smoothing * r / 2)
      lastStep = step
      guard let lastX = pointX.last, let lastY = pointY.last else {
        append(x, y, r)
        continue
      }
      // The pull back is capped at a quarter of the radius: it irons out jitter finer than the nib without cutting
      // the corners of sparse input (an imported polyline of a few points).
      let rawDX = x - lastX
      let rawDY = y - lastY
      let rawLength = (rawDX * rawDX + rawDY * rawDY).squareRoot()
      let pull = min(rawLength * (1 - follow), r / 4)
      let keep = rawLength > 0 ? 1 - pull / rawLength : 1
      let dx = rawDX * keep
      let dy = rawDY * keep
      let sx = lastX + dx
      let sy = lastY + dy
      if dx * dx + dy * dy < step * step { continue }
      append(sx, sy, r)
    }
    guard let lastX = pointX.last, let lastY = pointY.last else { return }
    // Streamlining trails behind the pen: end exactly where it lifted.
    let gap = hypot(rawX - lastX, rawY - lastY)
    if pointX.count == 1 || gap >= lastStep {
      if gap > 1e-9 { append(rawX, rawY, rawR) }
    } else {
      pointX[pointX.count - 1] = rawX
      pointY[pointY.count - 1] = rawY
      pointR[pointR.count - 1] = rawR
      let count = pointX.count
      if hypot(rawX - pointX[count - 2], rawY - pointY[count - 2]) < 1e-9 {
        pointX.removeLast()
        pointY.removeLast()
        pointR.removeLast()
      }
    }
    findBreaks()
  }

  private mutating func append(_ x: Double, _ y: Double, _ r: Double) {
    // The path rounds every outline corner over half of its neighbouring edges, so a long straight segment of
    // sparse input (a box drawn with four points) would bulge into a curve: cut long segments into steps of about
    // the nib's diameter, so only the nib's own roundness shows at a corner. Recorded pen input is denser already.
    if let lastX = pointX.last, let lastY = pointY.last, let lastR = pointR.last {
      let length = hypot(x - lastX, y - lastY)
      let step = max(2 * max(r, lastR), 0.5)
      if length > step, subdivisionBudget > 0 {
        let pieces = min(Int((length / step).rounded(.up)), subdivisionBudget + 1)
        subdivisionBudget -= pieces - 1
        for index in 1..<pieces {
          let t = Double(index) / Double(pieces)
          pointX.append(lastX + (x - lastX) * t)
          pointY.append(lastY + (y - lastY) * t)
          pointR.append(lastR + (r - lastR) * t)
        }
      }
    }
    pointX.append(x)
    pointY.append(y)
    pointR.append(r)
  }

  /// The unit direction of the segment from point `index` to the next.
  @inline(__always)
  private func direction(_ index: Int) -> (x: Double, y: Double) {
    let dx = pointX[index + 1] - pointX[index]
    let dy = pointY[index + 1] - pointY[index]
    let length = (dx * dx + dy * dy).squareRoot()
    return length > 1e-12 ? (dx / length, dy / length) : (1, 0)
  }

  /// A piece ends where the stroke turns by more than a right angle at one point: there the two sides' offsets
  /// would cross far from the point (or, at a reversal, have no direction at all). Gentler bends keep one piece;
  /// where a tight curve folds the inner side over itself, the fold winds the same way as the rest and stays filled.
  private mutating func findBreaks() {
    let count = pointX.count
    breaks.append(0)
    guard count > 2 else {
      if count == 2 { breaks.append(1) }
      return
    }
    var incoming = direction(0)
    for index in 1..<(count - 1) {
      let outgoing = direction(index)
      if incoming.x * outgoing.x + incoming.y * outgoing.y < 0 { breaks.append(index) }
      incoming = outgoing
    }
    breaks.append(count - 1)
  }

  /// Builds the polygon of piece `run` into `outlineX`/`outlineY`.
  mutating func polygon(run: Int) {
    outlineX.removeAll(keepingCapacity: true)
    outlineY.removeAll(keepingCapacity: true)
    if pointX.count == 1 {
      dot()
    } else {
      piece(from: breaks[run], to: breaks[run + 1])
    }
    for index in outlineX.indices {
      bounds.minX = min(bounds.minX, outlineX[index])
      bounds.maxX = max(bounds.maxX, outlineX[index])
      bounds.minY = min(bounds.minY, outlineY[index])
      bounds.maxY = max(bounds.maxY, outlineY[index])
    }
  }

  /// Round caps get more vertices as they grow, so they stay round after the midpoint curves.
  @inline(__always)
  private static func capSegments(_ radius: Double) -> Int {
    min(16, max(4, Int(radius * 1.5) + 4))
  }

  /// cos and sin of k·π/n for k in 0...n, for each cap size n.
  private static let arcTables: [[(cos: Double, sin: Double)]] = (0...16).map { segments in
    guard segments > 0 else { return [] }
    return (0...segments).map { step in
      let angle = Double.pi * Double(step) / Double(segments)
      return (cos(angle), sin(angle))
    }
  }

  /// A circle: every point of the stroke is at one place.
  private mutating func dot() {
    let radius = widest
    let segments = 2 * OutlineBuilder.capSegments(radius)
    // Wound like a piece heading along +x (left side is +y), so overlapping pieces add up.
    for step in 0..<segments {
      let angle = 2 * Double.pi * Double(step) / Double(segments)
      outlineX.append(pointX[0] + radius * sin(angle))
      outlineY.append(pointY[0] + radius * cos(angle))
    }
  }

  private mutating func piece(from first: Int, to last: Int) {
    rightX.removeAll(keepingCapacity: true)
    rightY.removeAll(keepingCapacity: true)
    var startTangent = (x: 1.0, y: 0.0)
    var endTangent = (x: 1.0, y: 0.0)
    var incoming = direction(first)
    for index in first...last {
      var tangent: (x: Double, y: Double)
      var miter = 1.0
      if index == first {
        tangent = incoming
        startTangent = tangent
      } else if index == last {
        tangent = incoming
        endTangent = tangent
      } else {
        let outgoing = direction(index)
        let sumX = incoming.x + outgoing.x
        let sumY = incoming.y + outgoing.y
        let length = (sumX * sumX + sumY * sumY).squareRoot()
        tangent = length > 1e-9 ? (sumX / length, sumY / length) : incoming
        // Keeps the width across a bend; breaks keep bends to a right angle, so this stays at most √2.
        miter = 1 / max(tangent.x * incoming.x + tangent.y * incoming.y, 0.7)
        incoming = outgoing
      }
      let offset = pointR[index] * miter
      let normalX = -tangent.y * offset
      let normalY = tangent.x * offset
      outlineX.append(pointX[index] + normalX)
      outlineY.append(pointY[index] + normalY)
      rightX.append(pointX[index] - normalX)
      rightY.append(pointY[index] - normalY)
    }
    cap(at: last, tangent: endTangent, sign: 1)
    for index in rightX.indices.reversed() {
      outlineX.append(rightX[index])
      outlineY.append(rightY[index])
    }
    cap(at: first, tangent: startTangent, sign: -1)
  }

  /// The half circle between the two sides at an end (`sign` 1, ahead of the tangent) or a start (−1, behind it),
  /// without the two side points themselves.
  private mutating func cap(at index: Int, tangent: (x: Double, y: Double), sign: Double) {
    let radius = pointR[index]
    let segments = OutlineBuilder.capSegments(radius)
    let table = OutlineBuilder.arcTables[segments]
    let normalX = -tangent.y * radius * sign
    let normalY = tangent.x * radius * sign
    let aheadX = tangent.x * radius * sign
    let aheadY = tangent.y * radius * sign
    for step in 1..<segments {
      let (c, s) = table[step]
      outlineX.append(pointX[index] + c * normalX + s * aheadX)
      outlineY.append(pointY[index] + c * normalY + s * aheadY)
    }
  }

  /// Appends the current polygon as a closed sub-path of quadratic curves, each vertex the control point of the
  /// curve between the midpoints of its two edges: `M` at the first edge's midpoint, one relative `q`, then relative
  /// `t` (the next control point is the previous one mirrored through the midpoint, which is exactly the next
  /// vertex), so each vertex costs one pair of numbers. Vertices are rounded to 1/50 pt, so every midpoint is a whole
  /// 1/100 pt: the steps add up exactly and nothing drifts.
  func writePolygonPath(into sink: ByteSink) {
    let count = outlineX.count
    guard count >= 2 else { return }
    // Per vertex one pair of at most 2 × 18 characters and 2 separators; written without bounds checks.
    sink.reserve(count * 40 + 96)
    outlineX.withUnsafeBufferPointer { xs in
      outlineY.withUnsafeBufferPointer { ys in
        @inline(__always) func vertex(_ index: Int) -> (Int, Int) {
          let wrapped = index >= count ? index - count : index
          return (2 * SVGBytes.roundToInt(xs[wrapped] * 50), 2 * SVGBytes.roundToInt(ys[wrapped] * 50))
        }
        var cursor = sink.cursor
        let first = vertex(0)
        var control = vertex(1)
        var next = vertex(2)
        let start = ((first.0 + control.0) / 2, (first.1 + control.1) / 2)
        var end = ((control.0 + next.0) / 2, (control.1 + next.1) / 2)
        cursor.put(UInt8(ascii: "M"))
        SVGBytes.writePair(start.0, start.1, first: true, &cursor)
        cursor.put(UInt8(ascii: "q"))
        SVGBytes.writePair(control.0 - start.0, control.1 - start.1, first: true, &cursor)
        SVGBytes.writePair(end.0 - start.0, end.1 - start.1, first: false, &cursor)
        cursor.put(UInt8(ascii: "t"))
        var current = end
        for index in 2...count {
          control = next
          next = vertex(index + 1)
          end = ((control.0 + next.0) / 2, (control.1 + next.1) / 2)
          SVGBytes.writePair(end.0 - current.0, end.1 - current.1, first: index == 2, &cursor)
          current = end
        }
        cursor.put(UInt8(ascii: "Z"))
        sink.advance(to: cursor)
      }
    }
  }
}

/// A growable byte buffer. The hot loops write through a raw cursor after one `reserve`, which keeps bounds and
/// uniqueness checks out of the per-number work.
final class ByteSink {
  private(set) var base: UnsafeMutablePointer<UInt8>
  private(set) var count = 0
  private var capacity: Int

  init(capacity: Int = 4096) {
    self.capacity = max(capacity, 64)
    base = .allocate(capacity: self.capacity)
  }

  deinit { base.deallocate() }

  /// Makes room for `extra` more bytes.
  @inline(__always)
  func reserve(_ extra: Int) {
    if count + extra > capacity { grow(to: count + extra) }
  }

  private func grow(to needed: Int) {
    var size = capacity * 2
    while size < needed { size *= 2 }
    let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
    bigger.update(from: base, count: count)
    base.deallocate()
    base = bigger
    capacity = size
  }

  /// Where the next byte goes; valid for as many bytes as were reserved.
  var cursor: Cursor { Cursor(pointer: base + count) }

  /// Takes the bytes written through `cursor`.
  func advance(to cursor: Cursor) {
    count = cursor.pointer - base
  }

  func append(_ byte: UInt8) {
    reserve(1)
    base[count] = byte
    count += 1
  }

  func append(_ text: String) {
    var text = text
    text.withUTF8 { append(bytes: $0) }
  }

  func append(bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress, bytes.count > 0 else { return }
    reserve(bytes.count)
    (base + count).update(from: source, count: bytes.count)
    count += bytes.count
  }

  func append(_ other: ByteSink) {
    append(bytes: other.bytes)
  }

  /// The bytes written so far; valid until the next write.
  var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

  /// Runs `write` with a cursor good for `size` bytes.
  @inline(__always)
  func write(upTo size: Int, _ write: (inout Cursor) -> Void) {
    reserve(size)
    var cursor = self.cursor
    write(&cursor)
    advance(to: cursor)
  }

  /// A write position inside reserved space.
  struct Cursor {
    var pointer: UnsafeMutablePointer<UInt8>

    @inline(__always)
    mutating func put(_ byte: UInt8) {
      pointer.pointee = byte
      pointer += 1
    }
  }
}

/// Writing numbers and text straight into UTF-8 bytes: the renderer writes millions of numbers per page.
enum SVGBytes {
  /// Rounds half away from zero, like `rounded()`, without a call into the C library.
  @inline(__always)
  static func roundToInt(_ value: Double) -> Int {
    Int(value < 0 ? value - 0.5 : value + 0.5)
  }

  /// An x,y pair of hundredths; `first` when nothing separates it from the command letter before it.
  @inline(__always)
  static func writePair(_ x: Int, _ y: Int, first: Bool, _ cursor: inout ByteSink.Cursor) {
    // A minus sign separates numbers by itself.
    if !first && x >= 0 { cursor.put(UInt8(ascii: " ")) }
    writeHundredths(x, &cursor)
    if y >= 0 { cursor.put(UInt8(ascii: ",")) }
    writeHundredths(y, &cursor)
  }

  /// `value / 100` with at most two decimals and no trailing zeros: 150 → "1.5", −5 → "-.05", 0 → "0". At most
  /// 22 bytes.
  @inline(__always)
  static func writeHundredths(_ value: Int, _ cursor: inout ByteSink.Cursor) {
    var magnitude = value
    if value < 0 {
      cursor.put(UInt8(ascii: "-"))
      magnitude = 0 &- value
    }
    let whole = magnitude / 100
    let fraction = magnitude % 100
    if whole > 0 || fraction == 0 { writeInteger(whole, &cursor) }
    if fraction != 0 {
      cursor.put(UInt8(ascii: "."))
      cursor.put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / 10))
      if fraction % 10 != 0 { cursor.put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10)) }
    }
  }

  /// A non-negative integer in decimal; at most 19 bytes.
  @inline(__always)
  static func writeInteger(_ value: Int, _ cursor: inout ByteSink.Cursor) {
    if value < 10 {
      cursor.put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
      return
    }
    var power = 10
    while power <= value / 10 { power *= 10 }
    var rest = value
    while power > 0 {
      cursor.put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest / power))
      rest %= power
      power /= 10
    }
  }

  static func appendInteger(_ value: Int, into sink: ByteSink) {
    sink.write(upTo: 24) { writeInteger(value, &$0) }
  }

  /// A number with up to `decimals` decimals (at most 3), trailing zeros dropped; for sizes and opacities.
  static func appendDecimal(_ value: Double, decimals: Int, into sink: ByteSink) {
    let decimals = min(max(decimals, 0), 3)
    let scale = [1, 10, 100, 1000][decimals]
    let scaled = value.isFinite ? roundToInt(min(max(value, -1e12), 1e12) * Double(scale)) : 0
    sink.write(upTo: 32) { cursor in
      if scaled < 0 { cursor.put(UInt8(ascii: "-")) }
      let magnitude = abs(scaled)
      writeInteger(magnitude / scale, &cursor)
      var fraction = magnitude % scale
      guard fraction != 0 else { return }
      cursor.put(UInt8(ascii: "."))
      var divisor = scale / 10
      while fraction != 0 && divisor > 0 {
        cursor.put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / divisor))
        fraction %= divisor
        divisor /= 10
      }
    }
  }

  /// Text as an XML attribute value: markup characters escaped; characters XML 1.0 cannot carry at all (controls
  /// other than tab, newline and return; U+FFFE, U+FFFF) become U+FFFD.
  static func appendAttribute(_ text: String, into sink: ByteSink) {
    sink.append(XMLText.escape(text))
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  /// `#rrggbb`.
  static func appendColor(_ color: InkColor, into sink: ByteSink) {
    let digits = hexDigits
    sink.append(UInt8(ascii: "#"))
    for component in [color.red, color.green, color.blue] {
      sink.append(digits[Int(component >> 4)])
      sink.append(digits[Int(component & 15)])
    }
  }
}

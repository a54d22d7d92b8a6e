import Foundation
import TextFormat

/// A brush as InkML describes it; every property optional so a brush can inherit from another (`brushRef`).
struct InkMLBrush: Sendable {
  var color: InkColor?
  /// 0 opaque to 1 clear.
  var transparency: Double?
  /// The nib width and the units it was given in (nil: the trace's X units).
  var width: (value: Double, units: String?)?
  var ink: InkType?
  /// `rasterOp="maskPen"`: how Windows Ink marks a highlighter.
  var masks = false
}

/// A context: the trace format and brush traces drawn in it use.
struct InkMLContext: Sendable {
  var format: InkMLTraceFormat
  var brush: InkMLBrush?

  static let standard = InkMLContext(format: .standard, brush: nil)
}

/// The element side of `InkML.read`: builds strokes from the events of ``XMLStream``, in document order.
final class InkMLReader {
  private enum Frame {
    case ink
    case definitions
    case context(id: String?, context: InkMLContext, inDefinitions: Bool)
    case traceFormat(id: String?, regular: [InkMLChannel], intermittent: [InkMLChannel])
    case inkSource(id: String?, format: InkMLTraceFormat?)
    case brush(id: String?, brush: InkMLBrush)
    case traceGroup(context: InkMLContext?, brush: InkMLBrush?)
    case trace(TraceStart)
    /// An element nb has no use for, or a subtree it skips (annotations, canvases, foreign XML).
    /// `<intermittentChannels>` inside the `<traceFormat>` below it.
    case intermittent
    case skipped
    case leaf
  }

  struct TraceStart {
    var id: String?
    var line: Int
    var context: InkMLContext
    var brush: InkMLBrush?
    var skip: Bool
    var text: [UInt8] = []
  }

  struct Failure: Error {
    var line: Int?
    var message: String
  }

  private let makeID: () -> String
  private let created: Date?
  private var stack: [Frame] = []
  private var skipDepth = 0
  private var rootSeen = false
  private var rootClosed = false
  private var contexts: [String: InkMLContext] = [:]
  private var formats: [String: InkMLTraceFormat] = [:]
  private var brushes: [String: InkMLBrush] = [:]
  private var current = InkMLContext.standard
  private var totalPoints = 0

  /// Strokes made so far, in document order; `forceToNormalise` marks those whose force has no declared range.
  private(set) var strokes: [InkStroke] = []
  private var forceToNormalise: [Int] = []

  init(makeID: @escaping () -> String, created: Date?) {
    self.makeID = makeID
    self.created = created
  }

  /// Whether the document had an `<ink>` root that was closed.
  var isComplete: Bool { rootSeen && rootClosed }
  var sawRoot: Bool { rootSeen }

  /// The strokes with force of undeclared range scaled into 0...1 by the file's largest value, and order keys.
  func finishedStrokes() -> [InkStroke] {
    var result = strokes
    let largest = forceToNormalise.reduce(0.0) { partial, index in
      result[index].points.reduce(partial) { max($0, $1.force) }
    }
    // Values already within 0...1 are taken as fractions; larger ones are device units whose range only the file as a
    // whole reveals.
    if largest > 1 {
      for index in forceToNormalise {
        for point in result[index].points.indices { result[index].points[point].force /= largest }
      }
    }
    let keys = FractionalIndex.keys(count: result.count, between: nil, and: nil)
    for index in result.indices { result[index].order = keys[index] }
    return result
  }

  // MARK: Events

  /// Takes one event of the document; throws ``Failure`` at the first thing nb cannot read, which ends the reading.
  func take(_ event: XMLStream.Event) throws {
    do {
      switch event {
      case .start(let name, let namespace, let attributes, let line):
        try start(name, namespace: namespace, attributes: attributes, line: line)
      case .end(let line):
        try end(line: line)
      case .text(let bytes):
        guard skipDepth == 0, case .trace(var trace)? = stack.last, !trace.skip else { return }
        stack[stack.count - 1] = .leaf  // drop the reference so the append does not copy the buffer
        trace.text.append(contentsOf: bytes)
        stack[stack.count - 1] = .trace(trace)
      }
    } catch let error as Failure {
      throw error
    } catch {
      throw Failure(line: event.line, message: "\(error)")
    }
  }

  // MARK: Elements

  private func start(_ name: String, namespace: String, attributes: [String: String], line: Int) throws {
    if skipDepth > 0 {
      skipDepth += 1
      return
    }
    guard let parent = stack.last else {
      guard name == "ink", namespace.isEmpty || namespace == InkML.namespace else {
        let shown = namespace.isEmpty ? "<\(name)>" : "<\(name)> in namespace \(namespace)"
        throw Failure(line: line, message: "the root element is \(shown), not InkML's <ink>")
      }
      if let version = attributes["version"], !InkML.acceptedVersions.contains(version) {
        throw Failure(line: line, message: "unsupported InkML version '\(version)' (nb reads 1.0)")
      }
      rootSeen = true
      stack.append(.ink)
      return
    }
    // Elements of other vocabularies (inside annotationXML, or extensions) carry nothing nb draws.
    guard namespace.isEmpty || namespace == InkML.namespace else {
      skipDepth = 1
      return
    }
    let id = attributes["xml:id"] ?? attributes["id"]
    switch (name, parent) {
    case ("definitions", .ink):
      stack.append(.definitions)
    case ("context", .ink), ("context", .definitions):
      let inDefinitions = if case .definitions = parent { true } else { false }
      var context =
        try attributes["contextRef"].map { try lookup($0, in: contexts, kind: "context", line: line) }
        ?? (inDefinitions ? .standard : current)
      if let ref = attributes["traceFormatRef"] {
        context.format = try lookup(ref, in: formats, kind: "traceFormat", line: line)
      }
      if let ref = attributes["inkSourceRef"], let format = formats[InkML.reference(ref)] {
        // An inkSource is only useful here for its trace format (registered under the inkSource's id).
        context.format = format
      }
      if let ref = attributes["brushRef"] {
        context.brush = try lookup(ref, in: brushes, kind: "brush", line: line)
      }
      stack.append(.context(id: id, context: context, inDefinitions: inDefinitions))
    case ("inkSource", .context), ("inkSource", .definitions), ("inkSource", .ink):
      stack.append(.inkSource(id: id, format: nil))
    case ("traceFormat", .context), ("traceFormat", .definitions), ("traceFormat", .inkSource),
      ("traceFormat", .ink):
      stack.append(.traceFormat(id: id, regular: [], intermittent: []))
    case ("intermittentChannels", .traceFormat):
      stack.append(.intermittent)
    case ("channel", .traceFormat), ("channel", .intermittent):
      let channel = try makeChannel(attributes, line: line)
      let formatIndex = if case .intermittent = parent { stack.count - 2 } else { stack.count - 1 }
      guard case .traceFormat(let formatID, var regular, var intermittent) = stack[formatIndex] else { return }
      if formatIndex != stack.count - 1 {
        intermittent.append(channel)
      } else if intermittent.isEmpty {
        regular.append(channel)
      } else {
        throw Failure(line: line, message: "a regular <channel> follows <intermittentChannels>")
      }
      // Far more than any pen reports (X Y T F W OA OE and a few more); bounds what one trace may allocate.
      guard regular.count + intermittent.count <= 64 else {
        throw Failure(line: line, message: "a <traceFormat> has more than 64 channels")
      }
      stack[formatIndex] = .traceFormat(id: formatID, regular: regular, intermittent: intermittent)
      stack.append(.leaf)
    case ("brush", .context), ("brush", .definitions), ("brush", .ink):
      let base = try attributes["brushRef"].map { try lookup($0, in: brushes, kind: "brush", line: line) }
      stack.append(.brush(id: id, brush: base ?? InkMLBrush()))
    case ("brushProperty", .brush(let brushID, var brush)):
      try apply(attributes, to: &brush, line: line)
      stack[stack.count - 1] = .brush(id: brushID, brush: brush)
      stack.append(.leaf)
    case ("traceGroup", .ink), ("traceGroup", .traceGroup), ("traceGroup", .definitions):
      var inherited: (context: InkMLContext?, brush: InkMLBrush?) = (nil, nil)
      if case .traceGroup(let context, let brush) = parent { inherited = (context, brush) }
      if case .definitions = parent {
        // Groups in <definitions> are there to be referenced by traceViews, which nb does not draw.
        skipDepth = 1
        return
      }
      let (context, brush) = try resolve(attributes, inherited: inherited, line: line)
      stack.append(.traceGroup(context: context, brush: brush))
    case ("trace", .ink), ("trace", .traceGroup), ("trace", .definitions):
      var inherited: (context: InkMLContext?, brush: InkMLBrush?) = (nil, nil)
      if case .traceGroup(let context, let brush) = parent { inherited = (context, brush) }
      let inDefinitions = if case .definitions = parent { true } else { false }
      // Pen-up traces record hovering, not ink; traces in <definitions> are only drawn through traceViews.
      let skip = inDefinitions || attributes["type"] == "penUp"
      let (context, brush) = try resolve(attributes, inherited: inherited, line: line)
      stack.append(
        .trace(TraceStart(id: id, line: line, context: context ?? current, brush: brush, skip: skip)))
    default:
      skipDepth = 1
    }
  }

  private func end(line: Int) throws {
    if skipDepth > 0 {
      skipDepth -= 1
      return
    }
    guard let frame = stack.popLast() else { return }
    switch frame {
    case .ink:
      rootClosed = true
    case .context(let id, let context, let inDefinitions):
      if let id { contexts[id] = context }
      if !inDefinitions { current = context }
    case .traceFormat(let id, let regular, let intermittent):
      let format = InkMLTraceFormat(regular: regular, intermittent: intermittent)
      guard !regular.isEmpty || !intermittent.isEmpty else {
        throw Failure(line: line, message: "a <traceFormat> has no channels")
      }
      if let id { formats[id] = format }
      deliver(format)
    case .inkSource(let id, let format):
      if let id, let format { formats[id] = format }
    case .brush(let id, let brush):
      if let id { brushes[id] = brush }
      if case .context(let contextID, var context, let inDefinitions)? = stack.last {
        context.brush = brush
        stack[stack.count - 1] = .context(id: contextID, context: context, inDefinitions: inDefinitions)
      }
    case .trace(let trace):
      if !trace.skip { try finish(trace) }
    case .definitions, .traceGroup, .intermittent, .skipped, .leaf:
      break
    }
  }

  /// Hands a finished trace format to the context or ink source it was written in; one written directly in `<ink>`
  /// (which many files do, though the schema puts it in a context) changes the current context's format.
  private func deliver(_ format: InkMLTraceFormat) {
    switch stack.last {
    case .ink?:
      current.format = format
    case .context(let id, var context, let inDefinitions)?:
      context.format = format
      stack[stack.count - 1] = .context(id: id, context: context, inDefinitions: inDefinitions)
    case .inkSource(let id, _)?:
      stack[stack.count - 1] = .inkSource(id: id, format: format)
      if case .context(let contextID, var context, let inDefinitions)? = stack.dropLast().last {
        context.format = format
        stack[stack.count - 2] = .context(id: contextID, context: context, inDefinitions: inDefinitions)
      }
    default:
      break
    }
  }

  /// The context and brush a trace or group uses: its own references first, then what its group passed down.
  private func resolve(
    _ attributes: [String: String], inherited: (context: InkMLContext?, brush: InkMLBrush?), line: Int
  ) throws -> (InkMLContext?, InkMLBrush?) {
    let context = try attributes["contextRef"].map { try lookup($0, in: contexts, kind: "context", line: line) }
    let brush = try attributes["brushRef"].map { try lookup($0, in: brushes, kind: "brush", line: line) }
    return (context ?? inherited.context, brush ?? context?.brush ?? inherited.brush)
  }

  private func lookup<Value>(_ reference: String, in table: [String: Value], kind: String, line: Int) throws -> Value {
    guard let value = table[InkML.reference(reference)] else {
      throw Failure(line: line, message: "\(kind)Ref '\(reference)' names no \(kind) defined before it")
    }
    return value
  }

  private func number(_ text: String?, _ what: String, line: Int) throws -> Double? {
    guard let text else { return nil }
    guard let value = Double(text.trimmingWhitespaces()), value.isFinite else {
      throw Failure(line: line, message: "\(what) '\(text)' is not a number")
    }
    return value
  }

  private func makeChannel(_ attributes: [String: String], line: Int) throws -> InkMLChannel {
    guard let name = attributes["name"], !name.isEmpty else {
      throw Failure(line: line, message: "a <channel> has no name")
    }
    let minimum = try number(attributes["min"], "channel \(name)'s min", line: line)
    let maximum = try number(attributes["max"], "channel \(name)'s max", line: line)
    var defaultValue: Double?
    switch attributes["default"] {
    case "T"?: defaultValue = 1
    case "F"?: defaultValue = 0
    case let text?: defaultValue = try number(text, "channel \(name)'s default", line: line)
    case nil: break
    }
    do {
      return try InkMLChannel(
        name: name, units: attributes["units"], orientation: attributes["orientation"], minimum: minimum,
        maximum: maximum, defaultValue: defaultValue)
    } catch {
      throw Failure(line: line, message: error.message)
    }
  }

  private func apply(_ attributes: [String: String], to brush: inout InkMLBrush, line: Int) throws {
    guard let name = attributes["name"], let value = attributes["value"] else {
      throw Failure(line: line, message: "a <brushProperty> needs a name and a value")
    }
    switch name {
    case "color":
      guard let color = InkML.color(value) else {
        throw Failure(line: line, message: "brush colour '\(value)' is not #rrggbb or a colour name nb knows")
      }
      brush.color = color
    case "width":
      guard let width = try number(value, "brush width", line: line), width >= 0 else {
        throw Failure(line: line, message: "brush width '\(value)' is negative")
      }
      if InkMLUnits.points(per: attributes["units"]) == nil {
        throw Failure(line: line, message: "brush width has units '\(attributes["units"] ?? "")', not a length")
      }
      brush.width = (width, attributes["units"])
    case "transparency":
      guard let raw = try number(value, "brush transparency", line: line), raw >= 0, raw <= 255 else {
        throw Failure(line: line, message: "brush transparency '\(value)' is outside 0...1 and 0...255")
      }
      // Files write either a fraction or Windows Ink's 0...255 byte; a value above 1 can only be the latter.
      brush.transparency = raw > 1 ? raw / 255 : raw
    case InkML.inkProperty:
      brush.ink = InkType(name: value)
    case "rasterOp":
      brush.masks = value == "maskPen"
    default:
      break
    }
  }

  // MARK: Traces

  private func finish(_ trace: TraceStart) throws {
    let format = trace.context.format
    let channels = format.all
    let remaining = InkCodec.maxPointsPerFile - totalPoints
    let columns: [[Double]]
    do {
      columns = try InkMLTraceDecoder.decode(
        trace.text, channelCount: channels.count, regularCount: format.regular.count,
        defaults: channels.map(\.defaultValue), limit: min(InkCodec.maxPointsPerStroke, max(remaining, 0)))
    } catch {
      let name = trace.id.map { "trace '\($0)'" } ?? "a trace"
      throw Failure(line: trace.line, message: "\(name): \(error.message)")
    }
    let count = columns.first?.count ?? 0
    guard count > 0 else { return }
    totalPoints += count

    func column(_ role: InkMLChannel.Role) -> (values: [Double], channel: InkMLChannel)? {
      guard let index = channels.firstIndex(where: { $0.role == role }) else { return nil }
      return (columns[index], channels[index])
    }
    func converted(_ role: InkMLChannel.Role) -> [Double]? {
      guard let (values, channel) = column(role) else { return nil }
      let scale = channel.negated ? -channel.scale : channel.scale
      return scale == 1 ? values : values.map { $0 * scale }
    }
    guard let xs = converted(.x), let ys = converted(.y) else {
      throw Failure(line: trace.line, message: "the trace format has no X and Y channels")
    }
    var points = (0..<count).map { InkPoint(x: xs[$0], y: ys[$0]) }
    var kinds: InkChannels = []
    if let times = converted(.time) {
      let start = times[0]
      for index in points.indices { points[index].time = abs(times[index] - start) }
      kinds.insert(.time)
    }
    var normaliseForce = false
    if let (values, channel) = column(.force) {
      kinds.insert(.force)
      if let maximum = channel.maximum, maximum > (channel.minimum ?? 0) {
        let minimum = channel.minimum ?? 0
        for index in points.indices { points[index].force = (values[index] - minimum) / (maximum - minimum) }
      } else {
        for index in points.indices { points[index].force = values[index] }
        normaliseForce = true
      }
    }
    let xScale = column(.x)?.channel.scale ?? 1
    if let widths = converted(.width) {
      kinds.insert(.width)
      for index in points.indices { points[index].width = abs(widths[index]) }
    } else if let width = trace.brush?.width {
      let scale = width.units.flatMap { InkMLUnits.points(per: $0) } ?? xScale
      kinds.insert(.width)
      for index in points.indices { points[index].width = width.value * scale }
    }
    if let angles = converted(.azimuth) {
      kinds.insert(.azimuth)
      for index in points.indices { points[index].azimuth = angles[index] }
    }
    if let angles = converted(.altitude) {
      kinds.insert(.altitude)
      for index in points.indices { points[index].altitude = angles[index] }
    }
    var color = trace.brush?.color ?? .black
    if let transparency = trace.brush?.transparency {
      color.alpha = UInt8((255 * (1 - transparency)).rounded())
    }
    let ink = trace.brush?.ink ?? (trace.brush?.masks == true ? .highlighter : .pen)
    if normaliseForce { forceToNormalise.append(strokes.count) }
    strokes.append(
      InkStroke(id: makeID(), ink: ink, color: color, created: created, channels: kinds, points: points))
  }
}

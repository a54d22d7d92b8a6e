import Foundation
import InkKit
import NBTestSupport
import NoteStore

/// Parse + render of one dense page of ink: 2 000 strokes of 200 points with every PencilKit channel, serialized
/// canonically, then `InkCodec.parse` and `InkSVG.render` timed in this process.
func inkBenchmark(options: Options) throws {
  if let path = ProcessInfo.processInfo.environment[inkChildVariable] {
    try inkChild(path: path)
    return
  }
  let strokes = options.quick ? 100 : 2_000
  let pointsPerStroke = options.quick ? 50 : 200
  let document = syntheticInkPage(strokes: strokes, pointsPerStroke: pointsPerStroke)
  let data = InkCodec.serialize(document)
  let points = document.pointCount
  let rssBefore = selfMaxRSSKiB()
  var parse: [Double] = []
  var render: [Double] = []
  var both: [Double] = []
  var svgBytes = 0
  for _ in 0..<max(1, options.samples) {
    var parsed = InkDocument()
    let parseTime = try time { parsed = try InkCodec.parse(data) }
    var svg = ""
    let renderTime = try time { svg = try InkSVG.render(parsed) }
    svgBytes = svg.utf8.count
    parse.append(parseTime)
    render.append(renderTime)
    both.append(parseTime + renderTime)
  }
  let rssAfter = selfMaxRSSKiB()
  // This process's high-water mark includes building the synthetic page; a fresh process shows what parse + render
  // of the file costs by itself (and, as a baseline, what reading the file costs).
  let file = FileManager.default.temporaryDirectory.appendingPathComponent("nb-bench-ink-\(getpid()).ink.jsonl")
  try data.write(to: file)
  defer { try? FileManager.default.removeItem(at: file) }
  let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
  setenv(inkChildVariable, file.path + "|read", 1)
  let readOnly = peakRSSKiB([executable, "--ink"])
  setenv(inkChildVariable, file.path, 1)
  let parseRender = peakRSSKiB([executable, "--ink"])
  unsetenv(inkChildVariable)
  func mib(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }
  print("\n### ink: one page, \(strokes) strokes × \(pointsPerStroke) points = \(points) points\n")
  print("| step | p50 ms | p95 ms |")
  print("|---|---:|---:|")
  print("| InkCodec.parse | \(ms(percentile(parse, 0.5))) | \(ms(percentile(parse, 0.95))) |")
  print("| InkSVG.render | \(ms(percentile(render, 0.5))) | \(ms(percentile(render, 0.95))) |")
  print("| parse + render | \(ms(percentile(both, 0.5))) | \(ms(percentile(both, 0.95))) |")
  print("\n| measure | value |")
  print("|---|---:|")
  print("| sidecar size | \(String(format: "%.2f", Double(data.count) / 1_048_576)) MiB |")
  print("| sidecar bytes per 1000 points | \(data.count * 1000 / max(points, 1)) |")
  print("| SVG size | \(String(format: "%.2f", Double(svgBytes) / 1_048_576)) MiB |")
  print("| peak RSS of this process before / after the samples | \(mib(rssBefore)) / \(mib(rssAfter)) MiB |")
  print(
    "| peak RSS of a fresh process: read the file / read + parse + render once | "
      + "\(readOnly.map(mib) ?? "?") / \(parseRender.map(mib) ?? "?") MiB |")
  try inkSizes(synthetic: document)
  fflush(stdout)
}

/// Bytes per 1000 points of the same strokes as a sidecar, as InkML (what `nb ink export` writes) and, for real
/// reMarkable pages, as the .rm file they came from.
private func inkSizes(synthetic: InkDocument) throws {
  print("\n### ink file size: bytes per 1000 points of the same strokes\n")
  print("| strokes | points | .rm | nb .ink.jsonl | InkML |")
  print("|---|---:|---:|---:|---:|")
  func perThousand(_ bytes: Int, _ points: Int) -> String { points == 0 ? "-" : "\(bytes * 1000 / points)" }
  func row(_ name: String, _ document: InkDocument, rm: Int?) {
    let points = document.pointCount
    let sidecar = InkCodec.serialize(document).count
    let inkml = InkML.write(document).utf8.count
    print(
      "| \(name) | \(points) | \(rm.map { perThousand($0, points) } ?? "-") | \(perThousand(sidecar, points)) | "
        + "\(perThousand(inkml, points)) |")
  }
  for name in [
    "Color_and_tool_v3.14.4.rm", "More_color_highlight_shader_v3.15.4.2.rm", "Lines_v2.rm",
  ] {
    let data = try Data(contentsOf: TestData.url("remarkable/" + name))
    row(name, try RemarkableV6.read(data), rm: data.count)
  }
  row("synthetic page (all PencilKit channels)", synthetic, rm: nil)
}

/// Set (to a sidecar's path) in the child process that measures memory; `|read` after the path: only read the file.
private let inkChildVariable = "NB_BENCH_INK_FILE"

/// The measured child: reads the file and, unless told to only read it, parses and renders it once.
private func inkChild(path: String) throws {
  let readOnly = path.hasSuffix("|read")
  let data = try Data(contentsOf: URL(fileURLWithPath: readOnly ? String(path.dropLast(5)) : path))
  guard !readOnly else { return }
  let svg = try InkSVG.render(try InkCodec.parse(data))
  // Keeps the work from being optimised away.
  if svg.isEmpty { exit(1) }
}

/// A deterministic page of handwriting-like strokes: each wanders with a slowly turning direction at 240 Hz, its
/// width, force and pencil angles drifting smoothly, as PencilKit records them.
func syntheticInkPage(strokes: Int, pointsPerStroke: Int) -> InkDocument {
  var random = SplitMix64(seed: 0x6e62_696e_6b21)
  var document = InkDocument()
  document.pages = [InkPage(id: "p1", order: "a0", width: 768, height: 1024, background: "dots")]
  let orders = FractionalIndex.keys(count: strokes, between: nil, and: nil)
  let inks: [InkType] = [.pen, .pen, .pen, .pencil, .monoline, .fountainPen, .marker, .highlighter]
  let start = Date(timeIntervalSince1970: 1_795_000_000)
  for index in 0..<strokes {
    var x = Double.random(in: 40...728, using: &random)
    var y = Double.random(in: 40...984, using: &random)
    var heading = Double.random(in: 0..<(2 * .pi), using: &random)
    var turn = 0.0
    var width = Double.random(in: 1.5...4, using: &random)
    var force = Double.random(in: 0.3...1.2, using: &random)
    var points: [InkPoint] = []
    points.reserveCapacity(pointsPerStroke)
    for step in 0..<pointsPerStroke {
      points.append(
        InkPoint(
          x: x, y: y, time: Double(step) / 240, width: width, height: width, opacity: 1, force: force,
          azimuth: 0.8 + 0.1 * sin(Double(step) / 30), altitude: 1.1 + 0.05 * cos(Double(step) / 40)))
      turn = max(-0.35, min(0.35, turn + Double.random(in: -0.08...0.08, using: &random)))
      heading += turn
      let speed = Double.random(in: 0.8...2.2, using: &random)
      x += cos(heading) * speed
      y += sin(heading) * speed
      width = max(0.8, min(6, width + Double.random(in: -0.1...0.1, using: &random)))
      force = max(0.05, min(2.5, force + Double.random(in: -0.05...0.05, using: &random)))
    }
    let ink = inks[index % inks.count]
    let color = InkColor(
      red: UInt8.random(in: 0...80, using: &random), green: UInt8.random(in: 0...80, using: &random),
      blue: UInt8.random(in: 0...160, using: &random))
    document.strokes.append(
      InkStroke(
        id: InkID.make(date: start.addingTimeInterval(Double(index)), using: &random), page: "p1",
        order: orders[index], ink: ink, color: color, created: start.addingTimeInterval(Double(index)),
        channels: .pencilKit, points: points))
  }
  return document
}

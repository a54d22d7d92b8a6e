import ArgumentParser
import Foundation
import InkKit
import NoteStore
import TextFormat

/// `nb ink info NOTE`: what is drawn, in numbers.
struct InkInfo: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "info", abstract: "Pages, strokes, points, ink types and bounding box of a note's ink.")

  @OptionGroup var note: NoteArgument<NoteHelp.Selector>

  @OptionGroup var repository: RepositoryOptions
  @OptionGroup var output: JSONOption

  struct InfoJSON: Encodable {
    struct Page: Encodable {
      var id: String
      var width: Int
      var height: Int
      @NullWhenAbsent var background: String?
      var strokes: Int
    }
    struct Bounds: Encodable {
      var minX, minY, maxX, maxY: Double
      enum CodingKeys: String, CodingKey {
        case minX = "min_x", minY = "min_y", maxX = "max_x", maxY = "max_y"
      }
    }
    var note: String
    var path: String
    var pages: [Page]
    var strokes: Int
    var points: Int
    var inks: [String: Int]
    @NullWhenAbsent var bounds: Bounds?
    var bytes: Int
  }

  /// Hundredths of a point, the file's own precision, without binary noise (103.35, not 103.35000000000001).
  func round2(_ value: Double) -> Double { (value * 100).rounded() / 100 }

  func run() throws {
    let target = try InkTarget(note.resolve(in: repository))
    let document = try target.requireInk()
    let summary = InkSummary(document)
    let path = target.repository.inkPath(of: target.note)
    // The file's own size (it was just read), not a re-serialisation of what was parsed from it.
    let bytes = target.repository.inkFileSize(of: target.note) ?? 0
    if output.json {
      let pages = document.orderedPages.map { page in
        InfoJSON.Page(
          id: page.id, width: page.width, height: page.height, background: page.background,
          strokes: document.strokes.filter { $0.page == page.id }.count)
      }
      return try printJSON(
        InfoJSON(
          note: target.note.path, path: path, pages: pages, strokes: summary.strokes, points: summary.points,
          inks: Dictionary(summary.inkTypes.map { ($0.name, $0.strokes) }, uniquingKeysWith: +),
          bounds: summary.bounds.map {
            InfoJSON.Bounds(minX: round2($0.minX), minY: round2($0.minY), maxX: round2($0.maxX), maxY: round2($0.maxY))
          },
          bytes: bytes))
    }
    print(Style.bold(path))
    var rows: [(String, String)] = [("strokes", "\(summary.strokes)"), ("points", "\(summary.points)")]
    // Numbered as `nb ink render --page N` takes them.
    let shown = InkSVG.pages(of: document)
    rows.append(("pages", "\(shown.count)"))
    for (number, id) in shown.enumerated() {
      let count = document.strokes.filter { $0.page == id }.count
      let described: String
      if let record = document.pages.first(where: { $0.id == id }) {
        let background = record.background.map { ", \($0)" } ?? ""
        described =
          "\(record.width)×\(record.height) pt\(background), \(counted(count, "stroke")) (id \(record.id))"
      } else {
        described =
          "\(counted(count, "stroke")) " + (id.map { "(id \($0), no page record)" } ?? "(no page)")
      }
      rows.append(("  \(number + 1)", described))
    }
    if !summary.inkTypes.isEmpty {
      rows.append(("inks", summary.inkTypes.map { "\($0.name) \($0.strokes)" }.joined(separator: ", ")))
    }
    if let bounds = summary.bounds {
      rows.append(
        (
          "bounds",
          "(\(InkKit.InkTextConv.format(bounds.minX)), \(InkKit.InkTextConv.format(bounds.minY)))–"
            + "(\(InkKit.InkTextConv.format(bounds.maxX)), \(InkKit.InkTextConv.format(bounds.maxY))) pt"
        ))
    }
    rows.append(("size", "\(bytes) bytes"))
    printRows(rows)
  }
}

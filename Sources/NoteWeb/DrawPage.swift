import Foundation
import InkKit
import NoteStore

/// The Draw page: one ink page of a note as `nb ink render` draws it, with a canvas over it for the page's script
/// (`templates/web/draw.js`) to draw on, and the route its strokes are saved through.
///
/// The browser holds a burst of strokes until the pen has rested for 2 s, then posts them in one request, which is
/// one ``NoteRepository/editInk(of:subject:_:)`` call and so one commit; nothing is held on the server, so a
/// crash loses nothing the browser has not been told is saved. Stroke ids are minted by the browser, so a request
/// sent again after a lost answer adds nothing twice.
extension NoteWebApp {
  /// The size (points) of the page a note's first stroke creates, and of a page added to a drawing whose pages
  /// have no size: an iPad's portrait page, as the handwriting app makes them.
  static let newPageSize = (width: 768, height: 1024)

  /// Most strokes one request may add or erase.
  static let drawStrokeLimit = 5_000
  /// Most points one stroke may have (a minute of a 240 Hz pen is 14 400).
  static let drawPointLimit = 100_000
  /// Most points one request may add.
  static let drawRequestPointLimit = 1_000_000

  // MARK: - GET

  /// `GET /draw/PATH.md?page=N` (N from 0, as `/ink/`): the page, or with `format=json` its frame and strokes for
  /// the script (hit-testing the eraser, undoing an erase).
  func drawPage(_ path: String, _ request: WebRequest) throws -> WebResponse {
    guard !security.readOnly else { throw WebError(status: 403, "The server is read-only: drawing is off") }
    let note = try existingNote(path)
    let document: InkDocument
    do {
      document = try repository.ink(of: note) ?? InkDocument()
    } catch let error as NoteStoreError {
      guard case .malformedInk = error else { throw error }
      // Drawing over a file nb cannot read would replace what it could not read: refused until it is fixed.
      var context = drawContext(note)
      context["problem"] = "Drawing is off for this note: \(error). Fix the file or restore it from its history."
      return .html(try pages.render("draw.html", context), status: 422)
    }
    let slots = InkSVG.pages(of: document)
    let raw = request.queryValue("page") ?? "0"
    guard let index = Int(raw), slots.indices.contains(index) else {
      throw WebError(status: 404, "\(note.path) has no ink page \(raw); it has \(slots.count) (from 0)")
    }
    let slot = slots[index]
    let blank = Self.isBlank(document, slot)
    let frame =
      blank
      ? InkRect(minX: 0, minY: 0, maxX: Double(Self.newPageSize.width), maxY: Double(Self.newPageSize.height))
      : try InkSVG.frame(of: document, page: slot.map { .page($0) } ?? .implicit)
    let version = inkVersion(of: note)
    let base = "/draw/" + WebPath.encoded(note.path)
    if request.queryValue("format") == "json" {
      let strokes = document.strokes(onPage: slot).filter { $0.ink != .eraser }.map(Self.wire)
      return .json([
        "page": slot.map { $0 as Any } ?? NSNull(), "index": index, "blank": blank, "version": version,
        "frame": [frame.minX, frame.minY, frame.width, frame.height], "strokes": strokes,
      ])
    }
    var context = drawContext(note)
    context["drawing"] = true
    context["index"] = index
    context["number"] = index + 1
    context["page_id"] = slot ?? ""
    context["blank"] = blank
    context["version"] = version
    context["frame"] = [frame.minX, frame.minY, frame.width, frame.height].map(Self.number).joined(separator: " ")
    context["frame_width"] = Self.number(frame.width)
    context["frame_height"] = Self.number(frame.height)
    context["ink_path"] = repository.inkPath(of: note)
    context["action"] = base
    context["json_url"] = base + "?page=\(index)&format=json"
    context["svg_url"] = "/ink/" + WebPath.encoded(note.path) + "?page=\(index)"
    context["pages"] = slots.indices.map {
      ["number": $0 + 1, "url": base + "?page=\($0)", "current": $0 == index] as [String: Any]
    }
    context["inks"] = InkPalette.inks.map {
      ["name": $0.name, "label": Self.inkLabels[$0.name] ?? $0.name, "current": $0 == .pen] as [String: Any]
    }
    context["colors"] = InkPalette.colors.enumerated().map {
      ["name": $0.element.name, "hex": $0.element.color.hex, "current": $0.offset == 0] as [String: Any]
    }
    context["widths"] = InkPalette.widths.map { ["value": Self.number($0), "current": $0 == 2] as [String: Any] }
    context["nominal"] = InkPalette.inks.map { "\($0.name)=\(Self.number(InkPalette.nominalWidth(for: $0)))" }
      .joined(separator: " ")
    return .html(try pages.render("draw.html", context))
  }

  private func drawContext(_ note: Note) -> [String: Any] {
    var context = common(nil)
    context["note"] =
      ["title": note.title, "path": note.path, "url": "/note/" + WebPath.encoded(note.path)] as [String: Any]
    context["crumbs"] = Self.crumbs(note.notebook)
    return context
  }

  private static let inkLabels = [
    "pen": "Pen", "pencil": "Pencil", "fountainPen": "Fountain pen", "marker": "Marker", "highlighter": "Highlighter",
  ]

  /// The implicit page of a drawing with nothing on it: shown as an empty page of the new page size, which the
  /// first stroke creates.
  static func isBlank(_ document: InkDocument, _ slot: String?) -> Bool {
    slot == nil && document.strokes.isEmpty && document.pages.isEmpty
  }

  /// A short fingerprint of the sidecar's bytes ("none" without one): it changes with every change to the file,
  /// so an image address carrying it is never an old image from a cache.
  func inkVersion(of note: Note) -> String {
    let url = repository.root.appendingPathComponent(repository.inkPath(of: note))
    guard let data = try? Data(contentsOf: url) else { return "none" }
    // FNV-1a, 64 bits: not a security measure, only a change detector.
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    let text = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - text.count) + text
  }

  /// A number as a page shows it: no trailing ".0", at most 2 decimals (the renderer's precision).
  static func number(_ value: Double) -> String {
    let rounded = (value * 100).rounded() / 100
    if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
    return String(rounded)
  }

  /// A stroke as the script gets it, in the form a request adds one in (so undoing an erase adds it back as it
  /// was, under a new id), with `r`: the widest radius it is drawn with, for hit-testing.
  static func wire(_ stroke: InkStroke) -> [String: Any] {
    let channels: [(InkChannels, String, KeyPath<InkPoint, Double>)] = [
      (.time, "t", \.time), (.width, "w", \.width), (.height, "h", \.height), (.opacity, "o", \.opacity),
      (.force, "f", \.force), (.azimuth, "az", \.azimuth), (.altitude, "al", \.altitude),
    ]
    let present = channels.filter { stroke.channels.contains($0.0) }
    let points: [[String: Double]] = stroke.points.map { point in
      var object = ["x": point.x, "y": point.y]
      for (_, key, path) in present { object[key] = point[keyPath: path] }
      return object
    }
    let t = stroke.transform
    let scale = abs(t.a * t.d - t.b * t.c).squareRoot()
    let nominal = InkPalette.nominalWidth(for: stroke.ink)
    let widest = stroke.points.reduce(0.0) { widest, point in
      let diameter =
        stroke.channels.contains(.width)
        ? point.width
        : stroke.channels.contains(.force) ? InkPalette.diameter(nib: nominal, force: point.force) : nominal
      return max(widest, diameter.isFinite ? diameter : 0)
    }
    var object: [String: Any] = [
      "id": stroke.id, "ink": stroke.ink.name, "color": stroke.color.hex, "points": points,
      "r": (widest * (scale.isFinite ? scale : 1) / 2),
    ]
    if !t.isIdentity { object["transform"] = t.entries }
    if let created = stroke.created { object["created"] = (created.timeIntervalSince1970 * 1000).rounded() }
    if let seed = stroke.seed { object["seed"] = seed }
    if let mask = stroke.mask { object["mask"] = mask }
    return object
  }

  // MARK: - POST

  /// `POST /draw/PATH.md`: a JSON body `{"page": ID or null, "strokes": [...], "erase": [IDS]}` adds and erases
  /// strokes in one commit (one burst of drawing); a form with `action=add-page` adds a page after the last and
  /// shows it. A JSON request is answered in JSON, `{"error": "..."}` when refused.
  func saveDrawing(_ path: String, _ request: WebRequest) throws -> WebResponse {
    if request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
      return try addPage(path, request)
    }
    do {
      return try saveStrokes(path, request)
    } catch {
      let (status, message) = Self.status(for: error)
      return .json(["error": message], status: status)
    }
  }

  private func addPage(_ path: String, _ request: WebRequest) throws -> WebResponse {
    guard request.formValue("action") == "add-page" else { throw WebError(status: 400, "The form has no action") }
    let note = try existingNote(path)
    var index = 0
    try repository.editInk(of: note, subject: "draw \(note.path): add a page") { document in
      // The new page takes the size and background of the last page that has a size.
      let last = document.orderedPages.last { $0.width > 0 && $0.height > 0 }
      try document.addPage(
        id: InkID.make(), width: last?.width ?? Self.newPageSize.width,
        height: last?.height ?? Self.newPageSize.height, background: last?.background)
      index = InkSVG.pages(of: document).count - 1
    }
    return .redirect("/draw/" + WebPath.encoded(note.path) + "?page=\(index)")
  }

  private func saveStrokes(_ path: String, _ request: WebRequest) throws -> WebResponse {
    let note = try existingNote(path)
    guard request.header("Content-Type")?.lowercased().hasPrefix("application/json") == true else {
      throw WebError(status: 415, "Send the strokes as application/json")
    }
    let body: [String: Any]
    do {
      guard let object = try JSONSerialization.jsonObject(with: request.body) as? [String: Any] else {
        throw WebError(status: 400, "The body must be a JSON object")
      }
      body = object
    } catch let error as WebError {
      throw error
    } catch {
      throw WebError(status: 400, "The body is not JSON")
    }
    let unknown = Set(body.keys).subtracting(["page", "strokes", "erase"])
    guard unknown.isEmpty else {
      throw WebError(status: 400, "Unknown field \(unknown.sorted().joined(separator: ", ")) in the body")
    }
    var page: String?
    if let raw = body["page"], !(raw is NSNull) {
      guard let id = raw as? String, !id.isEmpty else { throw WebError(status: 400, "page must be a page id or null") }
      page = id
    }
    guard body["strokes"] == nil || body["strokes"] is [Any], body["erase"] == nil || body["erase"] is [Any] else {
      throw WebError(status: 400, "strokes and erase must be arrays")
    }
    let rawStrokes = body["strokes"] as? [Any] ?? []
    let rawErase = body["erase"] as? [Any] ?? []
    guard !rawStrokes.isEmpty || !rawErase.isEmpty else {
      throw WebError(status: 400, "Nothing to save: no strokes and nothing to erase")
    }
    guard rawStrokes.count <= Self.drawStrokeLimit, rawErase.count <= Self.drawStrokeLimit else {
      throw WebError(status: 413, "At most \(Self.drawStrokeLimit) strokes to add and to erase in one request")
    }
    var strokes: [InkStroke] = []
    var points = 0
    for (index, raw) in rawStrokes.enumerated() {
      let stroke = try Self.stroke(from: raw, at: index)
      points += stroke.points.count
      guard points <= Self.drawRequestPointLimit else {
        throw WebError(status: 413, "More than \(Self.drawRequestPointLimit) points in one request")
      }
      strokes.append(stroke)
    }
    guard Set(strokes.map(\.id)).count == strokes.count else {
      throw WebError(status: 400, "Two strokes of the request have the same id")
    }
    let erase = try rawErase.enumerated().map { index, raw -> String in
      guard let id = raw as? String, Self.isID(id) else {
        throw WebError(status: 400, "erase[\(index)] is no stroke id")
      }
      return id
    }
    // The commit's subject says what the request changes, as the drawing is now (a request sent again adds
    // nothing; an erase of a stroke already gone erases nothing). Nothing to change means no commit at all.
    let now = try repository.ink(of: note) ?? InkDocument()
    let adding = strokes.filter { now.stroke(id: $0.id) == nil }.count
    let erasing = Set(erase).filter { now.stroke(id: $0) != nil }.count
    var parts: [String] = []
    if adding > 0 { parts.append("\(adding) stroke\(adding == 1 ? "" : "s")") }
    if erasing > 0 { parts.append("\(erasing) erased") }
    let subject = "draw \(note.path): " + (parts.isEmpty ? "nothing" : parts.joined(separator: ", "))

    var target = page
    var added: [String] = []
    var present: [String] = []
    var erased: [String] = []
    var missing: [String] = []
    try repository.editInk(of: note, subject: subject) { document in
      if !strokes.isEmpty {
        let slots = InkSVG.pages(of: document)
        if let page {
          guard slots.contains(page) else { throw WebError(status: 404, "The drawing has no page \(page)") }
        } else if Self.isBlank(document, nil) {
          // The first stroke of a note: its drawing starts with a page, as the handwriting app's does.
          target = try document.addPage(
            id: InkID.make(), width: Self.newPageSize.width, height: Self.newPageSize.height
          ).id
        } else if !slots.contains(nil) {
          throw WebError(status: 404, "The drawing has no page without an id any more; reload the page")
        }
      }
      for var stroke in strokes {
        if let existing = document.stroke(id: stroke.id) {
          // Sent again after an answer that never arrived: it is there already.
          guard existing.page == target else {
            throw WebError(status: 409, "Stroke id \(stroke.id) is taken on another page")
          }
          present.append(stroke.id)
          continue
        }
        stroke.page = target
        try document.add(stroke)
        added.append(stroke.id)
      }
      for id in erase {
        if document.erase(id: id) != nil { erased.append(id) } else { missing.append(id) }
      }
    }
    return .json([
      "page": target.map { $0 as Any } ?? NSNull(), "added": added, "present": present, "erased": erased,
      "missing": missing,
      "version": inkVersion(of: note),
    ])
  }

  /// Whether `id` may name a stroke: what nb and the apps mint (UUIDs), and a little more, nothing a file or a
  /// page would read otherwise.
  static func isID(_ id: String) -> Bool {
    (1...64).contains(id.utf8.count)
      && id.utf8.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
          || byte == 0x2d || byte == 0x2e || byte == 0x5f
      }
  }

  /// The stroke `raw` (the request's `strokes[index]`) describes; a one-line 400 for anything wrong with it.
  static func stroke(from raw: Any, at index: Int) throws -> InkStroke {
    let name = "strokes[\(index)]"
    func bad(_ message: String) -> WebError { WebError(status: 400, "\(name): \(message)") }
    guard let object = raw as? [String: Any] else { throw bad("not an object") }
    let known: Set<String> = ["id", "ink", "color", "nib", "transform", "created", "seed", "mask", "points", "r"]
    if let field = object.keys.sorted().first(where: { !known.contains($0) }) { throw bad("unknown field \(field)") }
    guard let id = object["id"] as? String, isID(id) else {
      throw bad("id must be 1 to 64 letters, digits, '-', '_' or '.'")
    }
    let inkName = object["ink"] as? String ?? "pen"
    guard (1...32).contains(inkName.count), inkName.allSatisfy({ $0.isASCII && $0.isLetter }) else {
      throw bad("ink must be a tool name such as pen")
    }
    let ink = InkType(name: inkName)
    guard let color = InkColor(hex: object["color"] as? String ?? "000000ff") else {
      throw bad("color must be 8 hex digits rrggbbaa")
    }
    func number(_ value: Any?, _ field: String, _ range: ClosedRange<Double>) throws -> Double {
      // JSON's true and false arrive as NSNumber too, typed "c" (the only numbers of that type JSON gives).
      guard let value = value as? NSNumber, String(cString: value.objCType) != "c", value.doubleValue.isFinite else {
        throw bad("\(field) must be a number")
      }
      guard range.contains(value.doubleValue) else {
        throw bad("\(field) is \(value.doubleValue), outside \(range.lowerBound)…\(range.upperBound)")
      }
      return value.doubleValue
    }
    var transform = InkTransform.identity
    if let raw = object["transform"] {
      guard let entries = raw as? [Any], entries.count == 6 else { throw bad("transform must be 6 numbers") }
      let values = try entries.enumerated().map { try number($0.element, "transform[\($0.offset)]", -1e6...1e6) }
      transform = InkTransform(a: values[0], b: values[1], c: values[2], d: values[3], tx: values[4], ty: values[5])
    }
    var created = Date()
    if let raw = object["created"] {
      created = Date(timeIntervalSince1970: try number(raw, "created", 0...1e14) / 1000)
    }
    let seed = try object["seed"].map { Int(try number($0, "seed", -1e15...1e15)) }
    var mask: String?
    if let raw = object["mask"] {
      guard let text = raw as? String, text.utf8.count <= 1 << 20 else { throw bad("mask must be SVG path data") }
      mask = text
    }
    let nib = try object["nib"].map { try number($0, "nib", 0.1...1000) }
    guard let rawPoints = object["points"] as? [Any], !rawPoints.isEmpty else { throw bad("points must be a list") }
    guard rawPoints.count <= drawPointLimit else { throw bad("more than \(drawPointLimit) points") }
    // Every point carries the same channels: the first point says which.
    let channelKeys: [(String, InkChannels, ClosedRange<Double>)] = [
      ("t", .time, 0...1e6), ("w", .width, 0...1e4), ("h", .height, 0...1e4), ("o", .opacity, 0...1),
      ("f", .force, 0...1e3), ("az", .azimuth, -100...100), ("al", .altitude, -100...100),
    ]
    guard let first = rawPoints[0] as? [String: Any] else { throw bad("points[0] is not an object") }
    let keys = Set(first.keys)
    var channels: InkChannels = []
    for (key, channel, _) in channelKeys where keys.contains(key) { channels.insert(channel) }
    if let key = keys.subtracting(["x", "y"] + channelKeys.map(\.0)).sorted().first {
      throw bad("points[0] has an unknown channel \(key)")
    }
    if nib != nil, channels.contains(.width) || channels.contains(.height) {
      throw bad("give a nib or points with w and h, not both")
    }
    var points: [InkPoint] = []
    points.reserveCapacity(rawPoints.count)
    for (offset, raw) in rawPoints.enumerated() {
      guard let point = raw as? [String: Any], Set(point.keys) == keys else {
        throw bad("points[\(offset)] must have the channels points[0] has: \(keys.sorted().joined(separator: ", "))")
      }
      var value = InkPoint(
        x: try number(point["x"], "points[\(offset)].x", -1e6...1e6),
        y: try number(point["y"], "points[\(offset)].y", -1e6...1e6))
      for (key, _, range) in channelKeys where keys.contains(key) {
        let field = try number(point[key], "points[\(offset)].\(key)", range)
        switch key {
        case "t": value.time = field
        case "w": value.width = field
        case "h": value.height = field
        case "o": value.opacity = field
        case "f": value.force = field
        case "az": value.azimuth = field
        default: value.altitude = field
        }
      }
      if let nib {
        // The palette's width, thinned and thickened by the pressure exactly as the renderer would.
        value.width = InkPalette.diameter(nib: nib, force: channels.contains(.force) ? value.force : 1)
        value.height = value.width
      }
      points.append(value)
    }
    if nib != nil { channels.formUnion([.width, .height]) }
    return InkStroke(
      id: id, ink: ink, color: color, created: created, transform: transform, seed: seed, channels: channels,
      points: points, mask: mask)
  }
}

extension WebResponse {
  /// A JSON answer (keys sorted, so it reads the same every time).
  static func json(_ object: [String: Any], status: Int = 200) -> WebResponse {
    let data =
      (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
      ?? Data(#"{"error":"the answer could not be written as JSON"}"#.utf8)
    return WebResponse(status: status, headers: [("Content-Type", "application/json")], body: data)
  }
}

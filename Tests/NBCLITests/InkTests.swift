import Foundation
import NBTestSupport
import XCTest

/// `nb ink` against the built binary, with git as the oracle for what was committed.
final class InkTests: NBCLITestCase {
  static let header = #"{"nbink":1,"unit":"pt","q":{"xy":100,"t":1000,"wh":100,"o":1000,"f":1000,"ang":1000}}"#

  /// A stroke from (x0, y) to (x0 + 10, y) pt in three points, FORMAT.md's key order.
  static func stroke(_ id: String, x0: Int = 100, y: Int = 300, ink: String = "pen", order: String = "a1") -> String {
    #"{"k":"s","id":""# + id + #"","ord":""# + order + #"","ink":""# + ink
      + #"","rgba":"1a1a1aff","tf":[1,0,0,1,0,0],"x":[\#(x0 * 100),500,500],"y":[\#(y * 100),0,0]}"#
  }

  static func file(_ lines: String...) -> String { ([header] + lines).joined(separator: "\n") + "\n" }

  override func setUpWithError() throws {
    try super.setUpWithError()
    try makeRepository()
    try addNote("Roadmap", content: "Plans\n")
  }

  func committedFiles(_ revision: String = "HEAD") throws -> [String] {
    try git.run(arguments: ["show", "--name-only", "--format=", revision]).split(separator: "\n").map(String.init)
      .sorted()
  }

  func testImportAddsStrokesWithNewIdsInOneCommitWithTheNote() throws {
    try write("../drawing.ink.jsonl", Self.file(Self.stroke("s1"), Self.stroke("s2", ink: "marker", order: "a2")))
    let drawing = root.deletingLastPathComponent().appendingPathComponent("drawing.ink.jsonl").path
    let before = try commitCount()
    let output = try nbSucceeds("ink", "import", "roadmap", drawing).stdout
    XCTAssertTrue(output.contains("added 2 strokes"), output)
    XCTAssertEqual(try commitCount(), before + 1)
    XCTAssertEqual(try committedFiles(), ["inbox/roadmap.ink.jsonl", "inbox/roadmap.md"])
    XCTAssertEqual(try git.statusPorcelain(), "")
    let sidecar = try text("inbox/roadmap.ink.jsonl")
    XCTAssertTrue(sidecar.hasPrefix(Self.header + "\n"), sidecar)
    XCTAssertFalse(sidecar.contains(#""id":"s1""#), "imported strokes get new ids")
    XCTAssertEqual(sidecar.split(separator: "\n").count, 3)

    // A second import adds on top; --replace replaces.
    try nbSucceeds("ink", "import", "roadmap", drawing)
    XCTAssertEqual(try jsonObject("ink", "info", "roadmap", "--json")["strokes"] as? Int, 4)
    try nbSucceeds("ink", "import", "roadmap", drawing, "--replace")
    let info = try jsonObject("ink", "info", "roadmap", "--json")
    XCTAssertEqual(info["strokes"] as? Int, 2)
    XCTAssertEqual(info["points"] as? Int, 6)
    XCTAssertEqual(info["inks"] as? [String: Int], ["pen": 1, "marker": 1])
    // Both strokes run from x 100 to 110 at y 300 (worked out from the records above).
    XCTAssertEqual(
      info["bounds"] as? [String: Double], ["min_x": 100, "max_x": 110, "min_y": 300, "max_y": 300])
    XCTAssertEqual(try commitCount(), before + 3)
  }

  func testShowMentionsTheInkAndHowToRenderIt() throws {
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("s1"), Self.stroke("s2")))
    try gitCommitAll()
    let shown = try nbSucceeds("show", "roadmap").stdout
    XCTAssertTrue(shown.contains("2 strokes (6 points) in inbox/roadmap.ink.jsonl"), shown)
    XCTAssertTrue(shown.contains("nb ink render inbox/roadmap.md -o roadmap.svg"), shown)
    let json = try noteJSON("roadmap")
    let ink = try XCTUnwrap(json["ink"] as? [String: Any])
    XCTAssertEqual(ink["strokes"] as? Int, 2)
    XCTAssertEqual(ink["path"] as? String, "inbox/roadmap.ink.jsonl")
    try addNote("Plain", content: "text only\n")
    XCTAssertFalse(try nbSucceeds("show", "plain").stdout.contains("ink"))
  }

  func testEraseRemovesStrokesInOneCommit() throws {
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("s1"), Self.stroke("s2"), Self.stroke("s3")))
    try gitCommitAll()
    try nbSucceeds("ink", "erase", "roadmap", "s1", "s3")
    XCTAssertEqual(try text("inbox/roadmap.ink.jsonl"), Self.file(Self.stroke("s2")))
    XCTAssertEqual(try committedFiles(), ["inbox/roadmap.ink.jsonl", "inbox/roadmap.md"])
    XCTAssertTrue(try git.run(arguments: ["log", "-1", "--format=%s"]).contains("ink erase 2 strokes"))
    try assertRefused(["ink", "erase", "roadmap", "s2", "nope"], mentioning: ["'nope'", "nothing was erased"])
  }

  func testMalformedInkIsNamedByFileAndLineAndNothingChanges() throws {
    try write(
      "inbox/roadmap.ink.jsonl",
      Self.file(Self.stroke("s1"), #"{"k":"s","id":"bad","x":[1,2,3],"y":[1,2]}"#))
    try gitCommitAll()
    try assertRefused(["ink", "info", "roadmap"], mentioning: ["inbox/roadmap.ink.jsonl:3", "\"y\" has 2 values"])
    try assertRefused(["ink", "erase", "roadmap", "s1"], mentioning: ["inbox/roadmap.ink.jsonl:3"])
    try write("../import.ink.jsonl", Self.file(#"{"k":"s","id":"n","x":[NaN],"y":[0]}"#))
    let importing = root.deletingLastPathComponent().appendingPathComponent("import.ink.jsonl").path
    try assertRefused(["ink", "import", "roadmap", importing], mentioning: ["import.ink.jsonl:2", "not a number"])
    try write("../notes.txt", "just text\n")
    try assertRefused(
      ["ink", "import", "roadmap", root.deletingLastPathComponent().appendingPathComponent("notes.txt").path],
      mentioning: ["notes.txt", "InkML"])
    // show still shows the note, with the problem as a warning.
    let shown = try nb("show", "roadmap")
    XCTAssertEqual(shown.status, 0, shown.stderr)
    XCTAssertTrue(shown.stderr.contains("inbox/roadmap.ink.jsonl:3"), shown.stderr)
  }

  func testSaveCommitsInkWrittenByAnotherToolWithItsNote() throws {
    let noteBefore = try text("inbox/roadmap.md")
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("s1")))
    try nbSucceeds("save")
    XCTAssertEqual(try committedFiles(), ["inbox/roadmap.ink.jsonl", "inbox/roadmap.md"])
    let noteAfter = try text("inbox/roadmap.md")
    XCTAssertNotEqual(noteAfter, noteBefore, "the note's updated is stamped: note and ink are one unit")
    let changed = zip(noteBefore.split(separator: "\n"), noteAfter.split(separator: "\n")).filter { $0 != $1 }
    XCTAssertEqual(changed.map { $0.1.hasPrefix("updated: ") }, [true], "only the updated line changes")
    // Removing the drawing by hand stamps the note too.
    try nbSucceeds("save")
    try FileManager.default.removeItem(at: url("inbox/roadmap.ink.jsonl"))
    try nbSucceeds("save")
    XCTAssertEqual(try committedFiles(), ["inbox/roadmap.ink.jsonl", "inbox/roadmap.md"])
    XCTAssertFalse(FileManager.default.fileExists(atPath: url("inbox/roadmap.ink.jsonl").path))
    // A drawing nb cannot read back is reported like broken front matter, and committed as it is (the user's data).
    let unreadable = Self.file(Self.stroke("s1"), #"{"k":"s","id":"s2","x":[1],"y":[0.5]}"#)
    try write("inbox/roadmap.ink.jsonl", unreadable)
    let saved = try nb("save")
    XCTAssertEqual(saved.status, 1, saved.stderr)
    XCTAssert(saved.stderr.contains("inbox/roadmap.ink.jsonl:3") && saved.stderr.contains("0.5"), saved.stderr)
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertEqual(try read("inbox/roadmap.ink.jsonl"), Data(unreadable.utf8))
  }

  func testStatusReportsInkWithoutANote() throws {
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("s1")))
    try write("work/lost.ink.jsonl", Self.file(Self.stroke("s2")))
    // Hidden files are not notes, so a hidden drawing beside a hidden note is nobody's business.
    try write("work/.draft.md", "draft\n")
    try write("work/.draft.ink.jsonl", Self.file(Self.stroke("s3")))
    try gitCommitAll()
    let status = try nbSucceeds("status")
    XCTAssertTrue(status.stdout.contains("work/lost.ink.jsonl") || status.stderr.contains("work/lost.ink.jsonl"))
    let json = try jsonObject("status", "--json")
    let warnings = try XCTUnwrap(json["warnings"] as? [String])
    XCTAssertEqual(warnings.filter { $0.contains(".ink.jsonl") }.count, 1, "\(warnings)")
    XCTAssertTrue(warnings.contains { $0.contains("work/lost.ink.jsonl is ink without a note") }, "\(warnings)")
    // Renaming the note by hand leaves its ink behind: reported, and still on disk.
    try git.run(arguments: ["mv", "inbox/roadmap.md", "inbox/plans.md"])
    let after = try XCTUnwrap(try jsonObject("status", "--json")["warnings"] as? [String])
    XCTAssertTrue(after.contains { $0.contains("inbox/roadmap.ink.jsonl is ink without a note") }, "\(after)")
    XCTAssertTrue(FileManager.default.fileExists(atPath: url("inbox/roadmap.ink.jsonl").path))
  }

  func testRenderWritesAnSVGThatARealRendererDraws() throws {
    // A 200×100 pt page with one pen stroke from (20, 50) to (30, 50) pt and one far away on another page.
    let page = #"{"k":"page","id":"p1","ord":"a","w":200,"h":100}"#
    let other = #"{"k":"page","id":"p2","ord":"b","w":200,"h":100}"#
    let elsewhere = Self.stroke("s2", x0: 150, y: 20).replacingOccurrences(of: #""ord""#, with: #""pg":"p2","ord""#)
    let onPage = Self.stroke("s1", x0: 20, y: 50).replacingOccurrences(of: #""ord""#, with: #""pg":"p1","ord""#)
    try write("inbox/roadmap.ink.jsonl", Self.file(page, other, onPage, elsewhere))
    try gitCommitAll()
    let svgPath = root.deletingLastPathComponent().appendingPathComponent("roadmap.svg").path
    let output = try assertNoCommit { try nbSucceeds("ink", "render", "roadmap", "-o", svgPath).stdout }
    XCTAssertTrue(output.contains("wrote \(svgPath)"), output)
    let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
    XCTAssertTrue(svg.contains(#"viewBox="0 0 200 100""#), svg)
    // One pixel per point: rsvg-convert draws the page at 200×100.
    let image = try Raster.render(svg: svg, width: 200, height: 100)
    XCTAssertLessThan(image.pixel(25, 50).brightness, 100, "the stroke's middle is inked")
    XCTAssertGreaterThan(image.pixel(25, 60).brightness, 250, "10 pt below it is blank")
    XCTAssertGreaterThan(image.pixel(155, 20).brightness, 250, "page 2's stroke is not on page 1")
    // Page 2 by number draws the other stroke; stdout without -o.
    let second = try nbSucceeds("ink", "render", "roadmap", "--page", "2").stdout
    let image2 = try Raster.render(svg: second, width: 200, height: 100)
    XCTAssertLessThan(image2.pixel(155, 20).brightness, 100)
    XCTAssertGreaterThan(image2.pixel(25, 50).brightness, 250)
    try assertRefused(["ink", "render", "roadmap", "--page", "3"], mentioning: ["--page 3", "2 pages"])
    try assertRefused(["ink", "render", "plain-missing"], mentioning: ["plain-missing"])
    try addNote("Plain", content: "text only\n")
    try assertRefused(["ink", "render", "plain"], mentioning: ["has no ink", "nb ink import"])
  }

  func testAKilledImportLeavesTheInkAbsentOrCompleteAndTheRepositoryUsable() throws {
    // About 6 MB of strokes, so that an import takes long enough to be interrupted at several points.
    let deltas = Array(repeating: "7", count: 1999).joined(separator: ",")
    var lines: [String] = []
    for index in 0..<300 {
      lines.append(
        #"{"k":"s","id":"big\#(index)","ord":"a","ink":"pen","rgba":"000000ff","tf":[1,0,0,1,0,0],"x":[0,"#
          + deltas + #"],"y":[\#(index * 10),"# + deltas + "]}")
    }
    let big = root.deletingLastPathComponent().appendingPathComponent("big.ink.jsonl")
    try Data((([Self.header] + lines).joined(separator: "\n") + "\n").utf8).write(to: big)
    let start = Date()
    try nbSucceeds("ink", "import", "roadmap", big.path, "--replace")
    let duration = Date().timeIntervalSince(start)
    var absent = 0
    for (index, fraction) in [0.2, 0.5, 0.7, 0.85, 0.95].enumerated() {
      try addNote("Target \(index)", content: "x\n")
      let note = "inbox/target-\(index)"
      let process = try launchNB(["ink", "import", note, big.path])
      Thread.sleep(forTimeInterval: duration * fraction)
      process.terminate(SIGKILL)
      _ = try process.wait(timeout: 120)
      let sidecar = note + ".ink.jsonl"
      let indexLock = root.appendingPathComponent(".git/index.lock")
      if FileManager.default.fileExists(atPath: indexLock.path) { try FileManager.default.removeItem(at: indexLock) }
      // Either no sidecar, or all 300 strokes; a committed one is the one on disk.
      if !FileManager.default.fileExists(atPath: url(sidecar).path) {
        absent += 1
      } else {
        XCTAssertEqual(try jsonObject("ink", "info", note, "--json")["strokes"] as? Int, 300, "kill \(index)")
        if let committed = try? git.run(arguments: ["rev-parse", "HEAD:\(sidecar)"]) {
          XCTAssertEqual(committed, try git.run(arguments: ["hash-object", sidecar]), "kill \(index)")
        }
      }
      XCTAssertFalse(try git.run(arguments: ["ls-files"]).contains(".tmp"))
      try nbSucceeds("ink", "import", note, big.path, "--replace")
      try git.fsck()
    }
    XCTAssertGreaterThan(absent, 0, "no kill landed before the write; the test proved little")
  }

  // MARK: - Other tools' files

  func testImportsRealReMarkableFilesWithTheirStrokeAndPointCounts() throws {
    // Counts as rmscene (an independent reader) sees them: Tests/Fixtures/remarkable/README.md.
    let expected = [
      ("Color_and_tool_v3.14.4.rm", 25, 1370), ("More_color_highlight_shader_v3.15.4.2.rm", 23, 753),
      ("Lines_v2.rm", 10, 469), ("Normal_A_stroke_2_layers.rm", 2, 14),
    ]
    var strokes = 0
    var points = 0
    for (name, fileStrokes, filePoints) in expected {
      try addNote(name, content: "page\n")
      let note = try XCTUnwrap(
        try jsonArray("list", "--json").first { $0["title"] as? String == name }?["path"] as? String)
      let commits = try commitCount()
      let output = try nbSucceeds("ink", "import", note, TestData.url("remarkable/" + name).path).stdout
      XCTAssertTrue(output.contains("added \(fileStrokes) strokes on 1 new page"), output)
      XCTAssertEqual(try commitCount(), commits + 1)
      let info = try jsonObject("ink", "info", note, "--json")
      XCTAssertEqual(info["strokes"] as? Int, fileStrokes, name)
      XCTAssertEqual(info["points"] as? Int, filePoints, name)
      // A reMarkable page is 1404×1872 px at 226 dpi: 447×596 pt.
      let pages = try XCTUnwrap(info["pages"] as? [[String: Any]])
      XCTAssertEqual(pages.map { [$0["width"] as? Int, $0["height"] as? Int] }, [[447, 596]], name)
      strokes += fileStrokes
      points += filePoints
    }
    XCTAssertEqual([strokes, points], [60, 2606])
  }

  func testTruncatedOrWrongVersionReMarkableFilesAreRefused() throws {
    let real = try Data(contentsOf: TestData.url("remarkable/Lines_v2.rm"))
    let outside = root.deletingLastPathComponent()
    try real.prefix(300).write(to: outside.appendingPathComponent("cut.rm"))
    try assertRefused(
      ["ink", "import", "roadmap", outside.appendingPathComponent("cut.rm").path],
      mentioning: ["cut.rm", "byte", "nothing was imported"])
    var older = real
    older.replaceSubrange(0..<33, with: Data("reMarkable .lines file, version=5".utf8))
    try older.write(to: outside.appendingPathComponent("old.rm"))
    try assertRefused(
      ["ink", "import", "roadmap", outside.appendingPathComponent("old.rm").path],
      mentioning: ["old.rm", "version 5 is not supported"])
  }

  func testInkMLImportExportRoundTrip() throws {
    // Two traces in centimetres: 1 cm = 72 / 2.54 pt, so x 1..2 cm is 28.35..56.69 pt (worked out by hand).
    let inkml = """
      <ink xmlns="http://www.w3.org/2003/InkML">
        <definitions>
          <context xml:id="ctx"><traceFormat>
            <channel name="X" type="decimal" units="cm"/><channel name="Y" type="decimal" units="cm"/>
          </traceFormat></context>
          <brush xml:id="red"><brushProperty name="color" value="#FF0000"/></brush>
        </definitions>
        <trace contextRef="#ctx" brushRef="#red">1 1, 2 1, 2 2</trace>
        <trace contextRef="#ctx">1 3, 1.5 3</trace>
      </ink>
      """
    let outside = root.deletingLastPathComponent()
    try Data(inkml.utf8).write(to: outside.appendingPathComponent("page.inkml"))
    try nbSucceeds("ink", "import", "roadmap", outside.appendingPathComponent("page.inkml").path)
    let info = try jsonObject("ink", "info", "roadmap", "--json")
    XCTAssertEqual(info["strokes"] as? Int, 2)
    XCTAssertEqual(info["points"] as? Int, 5)
    XCTAssertEqual(
      info["bounds"] as? [String: Double], ["min_x": 28.35, "max_x": 56.69, "min_y": 28.35, "max_y": 85.04])
    XCTAssertTrue(try text("inbox/roadmap.ink.jsonl").contains(#""rgba":"ff0000ff""#))

    // Export, import into another note: the same strokes.
    let exported = try nbSucceeds("ink", "export", "roadmap", "--inkml").stdout
    XCTAssertTrue(exported.hasPrefix("<?xml"), exported)
    try Data(exported.utf8).write(to: outside.appendingPathComponent("out.inkml"))
    try addNote("Copy", content: "copy\n")
    try nbSucceeds("ink", "import", "copy", outside.appendingPathComponent("out.inkml").path)
    var copied = try jsonObject("ink", "info", "copy", "--json")
    var original = info
    for key in ["note", "path", "bytes"] {
      copied[key] = nil
      original[key] = nil
    }
    XCTAssertEqual(NSDictionary(dictionary: copied), NSDictionary(dictionary: original))
    try assertRefused(["ink", "export", "roadmap"], mentioning: ["--inkml"])
  }

  func testTruncatedOrWrongVersionInkMLIsRefused() throws {
    let outside = root.deletingLastPathComponent()
    try Data(#"<ink xmlns="http://www.w3.org/2003/InkML"><trace>1 2, 3 4</tr"#.utf8)
      .write(to: outside.appendingPathComponent("cut.inkml"))
    try assertRefused(
      ["ink", "import", "roadmap", outside.appendingPathComponent("cut.inkml").path],
      mentioning: ["cut.inkml", "nothing was imported"])
    try Data(#"<ink xmlns="http://www.w3.org/2003/InkML" version="2.0"><trace>1 2</trace></ink>"#.utf8)
      .write(to: outside.appendingPathComponent("v2.inkml"))
    try assertRefused(
      ["ink", "import", "roadmap", outside.appendingPathComponent("v2.inkml").path],
      mentioning: ["v2.inkml", "2.0"])
  }

  // MARK: - Plain git: textconv and the merge driver

  func configureGitForInk() throws {
    try git.run(arguments: ["config", "diff.nb-ink.textconv", runner.binary.path + " ink textconv"])
    try git.run(arguments: ["config", "merge.nb-ink.driver", runner.binary.path + " merge-driver ink %O %A %B"])
  }

  func testGitDiffShowsStrokesThroughTextconv() throws {
    try configureGitForInk()
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("s1")))
    try gitCommitAll()
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("s1"), Self.stroke("s2", x0: 200, ink: "pencil")))
    let diff = try git.run(arguments: ["diff", "inbox/roadmap.ink.jsonl"])
    XCTAssertTrue(diff.contains("+stroke s2 pencil #1a1a1aff 3 pts at (200,300)-(210,300)"), diff)
    XCTAssertTrue(diff.contains("-ink: 1 stroke (3 points)"), diff)
    XCTAssertTrue(diff.contains("+ink: 2 strokes (6 points)"), diff)
    XCTAssertFalse(diff.contains("\"x\":["), "no number arrays in the readable diff: \(diff)")
  }

  func testGitMergeUsesTheDriverStrokeByStroke() throws {
    try configureGitForInk()
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("base"), Self.stroke("gone", order: "a2")))
    try gitCommitAll("base")
    try git.run(arguments: ["checkout", "-q", "-b", "other"])
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("base"), Self.stroke("theirs", order: "a3")))
    try gitCommitAll("theirs: erase gone, add theirs")
    try git.run(arguments: ["checkout", "-q", "main"])
    try write(
      "inbox/roadmap.ink.jsonl",
      Self.file(Self.stroke("base"), Self.stroke("gone", order: "a2"), Self.stroke("ours", order: "a4")))
    try gitCommitAll("ours: add ours")
    // Without the driver, both sides changed the same region: git's own text merge conflicts.
    try write("../o.ink", Self.file(Self.stroke("base"), Self.stroke("gone", order: "a2")))
    try write("../a.ink", try text("inbox/roadmap.ink.jsonl"))
    try write("../b.ink", Self.file(Self.stroke("base"), Self.stroke("theirs", order: "a3")))
    let outside = root.deletingLastPathComponent()
    let textMerge = try git.result(
      ["merge-file", "-p"] + ["a.ink", "o.ink", "b.ink"].map { outside.appendingPathComponent($0).path })
    XCTAssertNotEqual(textMerge.status, 0, "the scenario must be one that a line merge cannot do")
    let merge = try git.result(["merge", "--no-edit", "other"])
    XCTAssertEqual(merge.status, 0, merge.stderr + merge.stdout)
    XCTAssertEqual(
      try text("inbox/roadmap.ink.jsonl"),
      Self.file(Self.stroke("base"), Self.stroke("theirs", order: "a3"), Self.stroke("ours", order: "a4")))
    XCTAssertEqual(try git.statusPorcelain(), "")
  }

  func testTheDriverLeavesUnreadableVersionsToGit() throws {
    try configureGitForInk()
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("base")))
    try gitCommitAll("base")
    try git.run(arguments: ["checkout", "-q", "-b", "other"])
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("base"), "not json"))
    try gitCommitAll("theirs: broken")
    try git.run(arguments: ["checkout", "-q", "main"])
    try write("inbox/roadmap.ink.jsonl", Self.file(Self.stroke("base"), Self.stroke("ours")))
    try gitCommitAll("ours")
    let merge = try git.result(["merge", "--no-edit", "other"])
    XCTAssertNotEqual(merge.status, 0, "an unreadable version must be a conflict, not a guess")
    let status = try git.statusPorcelain()
    XCTAssertTrue(status.contains("UU inbox/roadmap.ink.jsonl"), status)
  }
}

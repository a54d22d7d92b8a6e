import Foundation
import NoteStore
import XCTest

final class TemplatesTests: XCTestCase {
  private var temporary: URL!
  private var userDirectory: URL!

  override func setUpWithError() throws {
    temporary = FileManager.default.temporaryDirectory.appendingPathComponent("nb-templates-\(UUID().uuidString)")
    userDirectory = temporary.appendingPathComponent("repo/.nb/templates")
    try FileManager.default.createDirectory(at: userDirectory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: temporary)
  }

  /// 2026-11-22T09:07:01Z, a Sunday (checked with `date -u -d @1795338421`).
  private let instant = Date(timeIntervalSince1970: 1_795_338_421)
  private let berlin = TimeZone(identifier: "Europe/Berlin")!

  private func context(content: String = "", vars: [String: String] = [:], zone: TimeZone? = nil) -> TemplateContext {
    TemplateContext(
      title: "Roadmap Review", id: "0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b", notebook: "work/projects",
      slug: "roadmap-review", tags: ["plan", "q4"], author: "Ada Lovelace", content: content, now: instant,
      timeZone: zone ?? berlin, vars: vars)
  }

  private func write(_ text: String, to name: String) throws {
    try Data(text.utf8).write(to: userDirectory.appendingPathComponent(name))
  }

  private func render(_ template: String, _ context: TemplateContext? = nil) throws -> String {
    try write(template, to: "probe.md")
    return try TemplateLibrary(userDirectory: userDirectory).render("probe", context: context ?? self.context())
  }

  /// The keys of a leading front matter block, or [] when there is none.
  private func frontMatterKeys(_ text: String) -> [String] {
    let lines = text.components(separatedBy: "\n")
    guard lines.first == "---", let end = lines.dropFirst().firstIndex(where: { $0 == "---" || $0 == "..." }) else {
      return []
    }
    return lines[1..<end].compactMap { line in
      guard let colon = line.firstIndex(of: ":"), !line.hasPrefix(" "), !line.hasPrefix("#") else { return nil }
      return String(line[..<colon])
    }
  }

  private func templatesFolder() -> URL {
    // Tests/NoteStoreTests/TemplatesTests.swift → package root.
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("templates")
  }

  // MARK: Built-in templates

  func testEmbeddedTemplatesMatchTheFiles() throws {
    let folder = templatesFolder()
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }
    let library = TemplateLibrary(userDirectory: nil)
    XCTAssertEqual(library.names(), files.map { String($0.dropLast(3)) }.sorted(), "run .ci/gen-templates")
    for file in files {
      let onDisk = try Data(contentsOf: folder.appendingPathComponent(file))
      let embedded = try library.source(of: String(file.dropLast(3)))
      XCTAssertEqual(Data(embedded.utf8), onDisk, "\(file) differs from BuiltinTemplates.swift: run .ci/gen-templates")
    }
  }

  func testRequiredDefaultsExist() {
    let names = TemplateLibrary(userDirectory: nil).names()
    for name in ["note", "daily", "meeting", "readme"] {
      XCTAssertTrue(names.contains(name), name)
    }
  }

  func testDefaultsNeverWriteTheKeysNbOwns() throws {
    let library = TemplateLibrary(userDirectory: nil)
    for name in library.names() {
      for content in ["", "some text"] {
        let text = try library.render(name, context: context(content: content))
        let owned = Set(frontMatterKeys(text)).intersection(["id", "title", "created", "updated", "tags"])
        XCTAssertEqual(owned, [], "\(name) writes \(owned)")
        XCTAssertFalse(text.contains("{{") || text.contains("{%"), "\(name) left a tag unrendered:\n\(text)")
        XCTAssertTrue(text.hasSuffix("\n"), name)
        if !content.isEmpty {
          XCTAssertTrue(text.hasPrefix("\(content)\n") || text.contains("\n\(content)\n"), "\(name) drops the content")
        }
      }
    }
  }

  func testNoteDefault() throws {
    let text = try TemplateLibrary(userDirectory: nil).render("note", context: context(content: "First line."))
    // The plain note is the content alone: the title lives in front matter, not in a heading that could go stale.
    XCTAssertEqual(text, "First line.\n")
  }

  func testMeetingDefault() throws {
    let ctx = context(content: "1. Budget", vars: ["with": "Grace"])
    let text = try TemplateLibrary(userDirectory: nil).render("meeting", context: ctx)
    XCTAssertTrue(text.hasPrefix("---\ntype: meeting\n---\n"), text)
    XCTAssertTrue(text.contains("# Roadmap Review\n"), text)
    // 09:07 UTC is 10:07 in Berlin in November (CET, +01:00).
    XCTAssertTrue(text.contains("2026-11-22 10:07"), text)
    XCTAssertTrue(text.contains("Ada Lovelace, Grace"), text)
    XCTAssertTrue(text.contains("1. Budget"), text)
  }

  func testDailyDefault() throws {
    let text = try TemplateLibrary(userDirectory: nil).render("daily", context: context())
    XCTAssertTrue(text.hasPrefix("---\ntype: daily\n---\n"), text)
    XCTAssertTrue(text.contains("Sunday 22 November 2026"), text)
  }

  func testReadmeDefault() throws {
    let library = TemplateLibrary(userDirectory: nil)
    let text = try library.render("readme", context: context(content: "Client work."))
    XCTAssertTrue(text.hasPrefix("# Roadmap Review\n"), text)
    XCTAssertTrue(text.contains("Client work."), text)
    let placeholder = try library.render("readme", context: context())
    XCTAssertFalse(placeholder.contains("Client work."))
    XCTAssertGreaterThan(placeholder.count, "# Roadmap Review\n".count, "an empty README should get a hint")
  }

  // MARK: Variables and the date filter

  func testContextVariables() throws {
    let text = try render(
      "{{ title }}|{{ id }}|{{ notebook }}|{{ slug }}|{{ tags|join:\",\" }}|{{ author }}|{{ content }}|{{ today }}",
      context(content: "body"))
    let expected = [
      "Roadmap Review", "0193f6a2-8c01-7e55-b1c0-7a0e1f2d3c4b", "work/projects", "roadmap-review", "plan,q4",
      "Ada Lovelace", "body", "2026-11-22",
    ]
    XCTAssertEqual(text, expected.joined(separator: "|"))
  }

  func testVarsAtTopLevelUnlessTheyClash() throws {
    let ctx = context(vars: ["project": "Apollo", "title": "Hijacked", "today": "never"])
    let text = try render("{{ var.project }} {{ project }} {{ title }} {{ var.title }} {{ today }}", ctx)
    XCTAssertEqual(text, "Apollo Apollo Roadmap Review Hijacked 2026-11-22")
  }

  func testDateFilterWithPattern() throws {
    XCTAssertEqual(try render("{{ now|date:\"yyyy-MM-dd HH:mm\" }}"), "2026-11-22 10:07")
    XCTAssertEqual(try render("{{ now|date:\"EEEE, d MMM yyyy\" }}"), "Sunday, 22 Nov 2026")
  }

  func testDateFilterDefaultIsRFC3339WithOffset() throws {
    XCTAssertEqual(try render("{{ now|date }}"), "2026-11-22T10:07:01+01:00")
    let utc = context(zone: TimeZone(identifier: "UTC")!)
    XCTAssertEqual(try render("{{ now|date }}", utc), "2026-11-22T09:07:01+00:00")
  }

  func testTimeZoneDecidesTheDay() throws {
    // 23:30 UTC on the 22nd is 08:30 on Monday the 23rd in Tokyo (+09:00, no DST).
    var ctx = context(zone: TimeZone(identifier: "Asia/Tokyo")!)
    ctx.now = Date(timeIntervalSince1970: 1_795_390_200)
    XCTAssertEqual(try render("{{ today }} {{ now|date:\"EEE HH:mm\" }}", ctx), "2026-11-23 Mon 08:30")
  }

  func testDateFilterReadsTextDates() throws {
    let ctx = context(vars: ["due": "2026-12-24", "at": "2026-11-22T09:07:01Z"])
    XCTAssertEqual(try render("{{ var.due|date:\"EEEE\" }}", ctx), "Thursday")
    XCTAssertEqual(try render("{{ var.at|date:\"HH:mm\" }}", ctx), "10:07")
    XCTAssertEqual(try render("[{{ var.missing|date }}]", ctx), "[]")
  }

  func testDateFilterRejectsNonDates() {
    let ctx = context(vars: ["due": "next week"])
    XCTAssertThrowsError(try render("a\n{{ var.due|date }}", ctx)) { error in
      guard case .invalid(let name, let line, let message)? = error as? TemplateError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(name, "probe")
      XCTAssertEqual(line, 2)
      XCTAssertTrue(message.contains("next week"), message)
    }
  }

  // MARK: User templates

  func testUserTemplateOverridesBuiltin() throws {
    try write("Custom {{ title }}\n", to: "note.md")
    let library = TemplateLibrary(userDirectory: userDirectory)
    XCTAssertEqual(try library.source(of: "note"), "Custom {{ title }}\n")
    XCTAssertEqual(try library.render("note", context: context()), "Custom Roadmap Review\n")
    XCTAssertEqual(try library.render("note.md", context: context()), "Custom Roadmap Review\n")
  }

  func testNamesMergeUserAndBuiltin() throws {
    try write("x", to: "book.md")
    try write("x", to: "note.md")
    try write("x", to: ".hidden.md")
    try write("x", to: "notes.txt")
    try FileManager.default.createDirectory(
      at: userDirectory.appendingPathComponent("folder.md"), withIntermediateDirectories: true)
    let names = TemplateLibrary(userDirectory: userDirectory).names()
    let builtins = TemplateLibrary(userDirectory: nil).names()
    XCTAssertEqual(names, (builtins + ["book"]).sorted())
  }

  func testMissingUserDirectoryIsFine() throws {
    let library = TemplateLibrary(userDirectory: temporary.appendingPathComponent("nowhere"))
    XCTAssertEqual(library.names(), TemplateLibrary(userDirectory: nil).names())
    XCTAssertTrue(try library.render("meeting", context: context()).contains("Roadmap Review"))
  }

  func testUserTemplateWithExtraFrontMatter() throws {
    try write("---\ntype: book\nauthor: \"{{ var.by }}\"\nrating: 0\n---\n# {{ title }}\n", to: "book.md")
    let text = try TemplateLibrary(userDirectory: userDirectory).render(
      "book", context: context(vars: ["by": "Le Guin"]))
    XCTAssertEqual(text, "---\ntype: book\nauthor: \"Le Guin\"\nrating: 0\n---\n# Roadmap Review\n")
  }

  func testIncludeOfAnotherTemplate() throws {
    try write("Header for {{ title }}", to: "header.md")
    XCTAssertEqual(try render("{% include \"header\" %}!"), "Header for Roadmap Review!")
    XCTAssertEqual(try render("{% include \"header.md\" %}!"), "Header for Roadmap Review!")
  }

  func testTextAroundTagsKeptExactly() throws {
    // An inline tag at the end of a line must not swallow the line break after it.
    XCTAssertEqual(
      try render("- {{ author }}{% if tags %}, x{% endif %}\n\n## Next\n"), "- Ada Lovelace, x\n\n## Next\n")
    // Trimming is the template's choice, with "-".
    XCTAssertEqual(try render("a\n{% if tags -%}\nb\n{%- endif %}\nc\n"), "a\nb\nc\n")
  }

  // MARK: Refusals and errors

  private func assertInvalid(
    _ template: String,
    name expectedName: String = "probe",
    line expectedLine: Int?,
    containing fragment: String,
    file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertThrowsError(try render(template), file: file, line: line) { error in
      guard case .invalid(let name, let errorLine, let message)? = error as? TemplateError else {
        return XCTFail("expected .invalid, got \(error)", file: file, line: line)
      }
      XCTAssertEqual(name, expectedName, file: file, line: line)
      XCTAssertEqual(errorLine, expectedLine, file: file, line: line)
      XCTAssertTrue(message.contains(fragment), message, file: file, line: line)
      XCTAssertFalse("\(error)".contains("\n"), "one line: \(error)", file: file, line: line)
    }
  }

  func testIncludeTraversalRefused() throws {
    // A file the traversal would reach if the loader joined paths: the repository's parent holds "secret.md".
    try write("stolen", to: "../../../secret.md")
    assertInvalid("x\n{% include \"../../../secret.md\" %}", line: 2, containing: "refused")
    assertInvalid("{% include \"../../etc/passwd\" %}", line: 1, containing: "../../etc/passwd")
    assertInvalid("{% include \"/etc/passwd\" %}", line: 1, containing: "refused")
    assertInvalid("{% extends \"../../../secret.md\" %}", line: 1, containing: "refused")
    assertInvalid("{% include \".hidden\" %}", line: 1, containing: "refused")
  }

  func testSymlinkOutOfTheUserDirectoryRefused() throws {
    let secret = temporary.appendingPathComponent("secret.md")
    try Data("stolen {{ title }}".utf8).write(to: secret)
    try FileManager.default.createSymbolicLink(
      at: userDirectory.appendingPathComponent("evil.md"), withDestinationURL: secret)
    let library = TemplateLibrary(userDirectory: userDirectory)
    XCTAssertThrowsError(try library.source(of: "evil")) { error in
      guard case .invalid(let name, _, let message)? = error as? TemplateError else { return XCTFail("\(error)") }
      XCTAssertEqual(name, "evil")
      XCTAssertTrue(message.contains("symbolic link"), message)
    }
    assertInvalid("{% include \"evil\" %}", line: 1, containing: "symbolic link")
  }

  func testSymlinkedUserDirectoryIgnored() throws {
    let elsewhere = temporary.appendingPathComponent("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    try Data("stolen".utf8).write(to: elsewhere.appendingPathComponent("note.md"))
    try Data("stolen".utf8).write(to: elsewhere.appendingPathComponent("secret.md"))
    let linked = temporary.appendingPathComponent("linked")
    try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: elsewhere)
    let library = TemplateLibrary(userDirectory: linked)
    XCTAssertEqual(library.names(), TemplateLibrary(userDirectory: nil).names())
    XCTAssertNotEqual(try library.source(of: "note"), "stolen")
  }

  func testSelfIncludeStopsInsteadOfOverflowing() {
    assertInvalid("{% include \"probe\" %}", line: 1, containing: "include itself")
  }

  func testErrorInIncludedTemplateNamesIt() throws {
    try write("ok\n{{ title|shout }}", to: "header.md")
    XCTAssertThrowsError(try render("line one\n{% include \"header\" %}")) { error in
      guard case .invalid(let name, let line, let message)? = error as? TemplateError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(name, "header")
      XCTAssertEqual(line, 2)
      XCTAssertTrue(message.contains("shout"), message)
      XCTAssertTrue(message.contains("\"probe\" line 2"), message)
    }
  }

  func testUnknownName() {
    let library = TemplateLibrary(userDirectory: userDirectory)
    XCTAssertThrowsError(try library.render("nope", context: context())) { error in
      XCTAssertEqual(error as? TemplateError, .notFound(name: "nope", available: library.names()))
      XCTAssertTrue("\(error)".contains("meeting"), "\(error)")
    }
    assertInvalid("{% include \"nope\" %}", line: 1, containing: "no template named \"nope\"")
  }

  func testPathAsTemplateNameRefused() {
    XCTAssertThrowsError(try TemplateLibrary(userDirectory: userDirectory).source(of: "../note")) { error in
      guard case .invalid(let name, nil, _)? = error as? TemplateError else { return XCTFail("\(error)") }
      XCTAssertEqual(name, "../note")
    }
  }

  func testSyntaxErrors() {
    assertInvalid("one\ntwo\n{{ title|shout }}\n", line: 3, containing: "shout")
    assertInvalid("one\n{% frobnicate %}\n", line: 2, containing: "frobnicate")
    assertInvalid("one\n{% if title %}\nnever closed\n", line: 2, containing: "endif")
  }

  func testErrorDescriptionNamesTemplateAndLine() {
    let error = TemplateError.invalid(name: "meeting", line: 3, message: "Unknown filter 'shout'")
    XCTAssertEqual(error.description, "template \"meeting\" line 3: Unknown filter 'shout'")
  }
}

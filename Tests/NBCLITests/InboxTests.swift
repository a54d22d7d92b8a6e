import Foundation
import NBTestSupport
import XCTest

/// `nb capture` and `nb inbox`: items are notes in the default notebook with `status: pending`; filing one is one
/// commit that moves it, marks it filed and records the decision.
final class InboxTests: NBCLITestCase {
  private let clock = ["NB_NOW": "2026-11-24T10:00:00+01:00", "TZ": "Europe/Berlin"]

  @discardableResult
  private func run(_ args: String..., stdin: String? = nil, file: StaticString = #filePath, line: UInt = #line)
    throws -> ProcessResult
  {
    let result = try nb(arguments: args, stdin: stdin.map { Data($0.utf8) }, env: clock)
    XCTAssertEqual(result.status, 0, "nb \(args) failed: \(result.stderr)", file: file, line: line)
    return result
  }

  func testCaptureWritesAPendingItemInOneCommit() throws {
    try makeRepository()
    let before = try commitCount()
    let path = try run("capture", "call the dentist about the bridge").stdout
    XCTAssertEqual(path, "inbox/call-the-dentist-about-the-bridge.md\n")
    let relative = path.trimmingCharacters(in: .newlines)
    let id = try XCTUnwrap(try noteJSON(relative)["id"] as? String)
    try assertOneCommit(
      since: before, subject: "nb: add \(relative)", noteIDs: [id], files: ["A\t\(relative)"])
    XCTAssertEqual(
      try text(relative),
      """
      ---
      id: \(id)
      title: call the dentist about the bridge
      created: 2026-11-24T10:00:00+01:00
      updated: 2026-11-24T10:00:00+01:00
      status: pending
      captured: 2026-11-24T10:00:00+01:00
      ---
      call the dentist about the bridge

      """)
    // An inbox item is not a task.
    XCTAssertEqual(try run("task", "list", "--all", "--json").stdout, "[\n\n]\n")
  }

  func testCaptureFromStandardInputAndURLs() throws {
    try makeRepository()
    XCTAssertEqual(
      try run("capture", stdin: "https://example.com/articles/swift-tips\n").stdout, "inbox/example-com-articles-swift-tips.md\n")
    XCTAssertTrue(try text("inbox/example-com-articles-swift-tips.md").contains("\nhttps://example.com/articles/swift-tips\n"))
    let long = String(repeating: "word ", count: 40) + "\nsecond line"
    let out = try run("capture", "--tags", "idea", stdin: long).stdout.trimmingCharacters(in: .newlines)
    let title = try XCTUnwrap(try noteJSON(out)["title"] as? String)
    XCTAssertLessThanOrEqual(title.count, 81)
    XCTAssertTrue(title.hasSuffix("…"), title)
    XCTAssertEqual(try noteJSON(out)["tags"] as? [String], ["idea"])
  }

  func testBadCapturesChangeNothing() throws {
    try makeRepository()
    try assertNothingChanged {
      let empty = try nb(arguments: ["capture", "   "], env: clock)
      XCTAssertNotEqual(empty.status, 0)
      XCTAssertTrue(empty.stderr.contains("nothing to capture"), empty.stderr)
      let binary = try nb(arguments: ["capture"], stdin: Data([0x00, 0xFF, 0xFE, 0x41]), env: clock)
      XCTAssertNotEqual(binary.status, 0)
      XCTAssertTrue(binary.stderr.contains("UTF-8"), binary.stderr)
    }
  }

  func testAHugeCaptureIsKeptWhole() throws {
    try makeRepository()
    let big = "first line of a big paste\n" + String(repeating: "0123456789abcdef\n", count: 600_000)
    let path = try run("capture", stdin: big).stdout.trimmingCharacters(in: .newlines)
    XCTAssertEqual(path, "inbox/first-line-of-a-big-paste.md")
    XCTAssertTrue(try text(path).hasSuffix(big.hasSuffix("\n") ? big : big + "\n"))
  }

  func testInboxListsPendingItemsNewestFirstAndFilingMovesAndRecords() throws {
    try makeRepository()
    try nbSucceeds("notebook", "create", "health")
    try nb(arguments: ["capture", "older thought"], env: ["NB_NOW": "2026-11-23T10:00:00+01:00"])
    try run("capture", "call the dentist")
    let listed = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: try run("inbox", "--json").stdoutData) as? [[String: Any]])
    XCTAssertEqual(listed.map { $0["title"] as? String }, ["call the dentist", "older thought"])

    let id = try XCTUnwrap(listed[0]["id"] as? String)
    let before = try commitCount()
    XCTAssertEqual(
      try run("inbox", "file", "inbox/call-the-dentist.md", "health").stdout,
      "inbox/call-the-dentist.md -> health/call-the-dentist.md\n")
    try assertOneCommit(
      since: before, subject: "nb: file inbox/call-the-dentist.md -> health/", noteIDs: [id],
      files: ["D\tinbox/call-the-dentist.md", "A\thealth/call-the-dentist.md", "A\t.nb/inbox/decisions.jsonl"])
    let filed = try text("health/call-the-dentist.md")
    XCTAssertTrue(filed.contains("\nstatus: filed\n"), filed)
    XCTAssertTrue(filed.contains("\nfiled: 2026-11-24T10:00:00+01:00\n"), filed)
    XCTAssertEqual(
      try text(".nb/inbox/decisions.jsonl"),
      "{\"time\":\"2026-11-24T09:00:00Z\",\"item\":\"\(id)\",\"suggested\":null,\"chosen\":\"health\",\"confidence\":null,\"device\":\"\(try deviceName())\"}\n")
    XCTAssertEqual(
      try XCTUnwrap(try JSONSerialization.jsonObject(with: try run("inbox", "--json").stdoutData) as? [[String: Any]])
        .count, 1)

    let stats = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: try run("inbox", "stats", "--json").stdoutData) as? [[String: Any]])
    XCTAssertEqual(stats.map { $0["days"] as? Int }, [30, 90])
    let rows = try XCTUnwrap(stats[0]["notebooks"] as? [[String: Any]])
    XCTAssertEqual(rows.map { $0["notebook"] as? String }, ["health"])
    XCTAssertEqual(rows.map { $0["no_suggestion"] as? Int }, [1])
  }

  /// The device name nb writes: NB_DEVICE is not set here, so the host name.
  private func deviceName() throws -> String { ProcessInfo.processInfo.hostName }

  func testFilingMistakesAreRefused() throws {
    try makeRepository()
    try nbSucceeds("notebook", "create", "health")
    try nbSucceeds("notebook", "create", "work/projects")
    try run("capture", "call the dentist")
    try addNote("Plain note", content: "x")
    try assertNothingChanged {
      let missing = try nb(arguments: ["inbox", "file", "inbox/call-the-dentist.md", "helth"], env: clock)
      XCTAssertNotEqual(missing.status, 0)
      XCTAssertTrue(missing.stderr.contains("no notebook 'helth'; closest: health"), missing.stderr)
      XCTAssertTrue(missing.stderr.contains("--create"), missing.stderr)
      let notItem = try nb(arguments: ["inbox", "file", "inbox/plain-note.md", "health"], env: clock)
      XCTAssertNotEqual(notItem.status, 0)
      XCTAssertTrue(notItem.stderr.contains("is not in the inbox"), notItem.stderr)
    }
    try run("inbox", "file", "inbox/call-the-dentist.md", "errands", "--create")
    XCTAssertTrue(FileManager.default.fileExists(atPath: url("errands/call-the-dentist.md").path))
    try assertNothingChanged {
      let again = try nb(arguments: ["inbox", "file", "errands/call-the-dentist.md", "health"], env: clock)
      XCTAssertNotEqual(again.status, 0)
      XCTAssertTrue(again.stderr.contains("is not in the inbox (its status is 'filed'"), again.stderr)
    }
  }

  func testACorruptDecisionLineIsSkippedWithAWarningAndKept() throws {
    try makeRepository()
    try nbSucceeds("notebook", "create", "health")
    try write(".nb/inbox/decisions.jsonl", "not json at all\n")
    try gitCommitAll()
    let stats = try run("inbox", "stats")
    XCTAssertTrue(stats.stderr.contains(".nb/inbox/decisions.jsonl: line 1"), stats.stderr)
    try run("capture", "call the dentist")
    try run("inbox", "file", "inbox/call-the-dentist.md", "health")
    XCTAssertTrue(try text(".nb/inbox/decisions.jsonl").contains("not json at all\n"))
  }

  /// Two notebooks with notes of their own: the classifier suggests by their words, explains itself, and filing
  /// without a notebook takes the suggestion.
  private func makeBins() throws {
    try makeRepository()
    let health = [
      ("Dentist appointment", "The dentist checks the bridge and the crown; teeth cleaning every six months."),
      ("Doctor visit", "Blood pressure check with the doctor; prescription for the allergy."),
      ("Teeth", "Ask the dentist about the sore tooth and the bridge."),
    ]
    let work = [
      ("Quarterly report", "Write the quarterly report for the board; numbers from finance by Friday."),
      ("Team meeting", "Agenda for the team meeting: roadmap, hiring, the release deadline."),
      ("Release plan", "The release deadline moves; tell the team and update the roadmap report."),
    ]
    for (title, body) in health { try addNote(title, notebook: "health", content: body) }
    for (title, body) in work { try addNote(title, notebook: "work", content: body) }
  }

  func testSuggestionsExplanationsAndFilingBySuggestion() throws {
    try makeBins()
    try run("capture", "call the dentist about the bridge")
    try run("capture", "finish the quarterly report for the team")
    let listed = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: try run("inbox", "--json").stdoutData) as? [[String: Any]])
    XCTAssertEqual(listed.count, 2)
    let byTitle = Dictionary(uniqueKeysWithValues: listed.map { ($0["title"] as? String ?? "", $0) })
    let dentist = try XCTUnwrap(byTitle["call the dentist about the bridge"])
    let suggestion = try XCTUnwrap(dentist["suggestion"] as? [String: Any])
    XCTAssertEqual(suggestion["notebook"] as? String, "health")
    let confidence = try XCTUnwrap(suggestion["confidence"] as? Double)
    XCTAssertGreaterThanOrEqual(confidence, 0.5)
    XCTAssertLessThanOrEqual(confidence, 1)
    XCTAssertEqual((dentist["candidates"] as? [[String: Any]])?.map { $0["notebook"] as? String }, ["health", "work"])
    let report = try XCTUnwrap(byTitle["finish the quarterly report for the team"])
    XCTAssertEqual((report["suggestion"] as? [String: Any])?["notebook"] as? String, "work")

    let why = try run("inbox", "why", "inbox/call-the-dentist-about-the-bridge.md").stdout
    XCTAssertTrue(why.hasPrefix("health"), why)
    XCTAssertTrue(why.contains("dentist"), why)

    XCTAssertEqual(
      try run("inbox", "file", "inbox/call-the-dentist-about-the-bridge.md").stdout,
      "inbox/call-the-dentist-about-the-bridge.md -> health/call-the-dentist-about-the-bridge.md\n")
    let decision = try text(".nb/inbox/decisions.jsonl")
    XCTAssertTrue(decision.contains("\"suggested\":\"health\",\"chosen\":\"health\",\"confidence\":"), decision)

    XCTAssertEqual(
      try run("inbox", "file", "--all", "--min-confidence", "0.5").stdout,
      "inbox/finish-the-quarterly-report-for-the-team.md -> work/finish-the-quarterly-report-for-the-team.md\n")
    XCTAssertEqual(try run("inbox", "--json").stdout, "[\n\n]\n")
  }

  func testNotebooksMarkedInboxFalseAreNeverSuggested() throws {
    try makeBins()
    try write("health/.notebook.yaml", try text("health/.notebook.yaml") + "inbox: false\n")
    try gitCommitAll()
    try run("capture", "call the dentist about the bridge")
    let listed = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: try run("inbox", "--json").stdoutData) as? [[String: Any]])
    XCTAssertEqual((listed[0]["candidates"] as? [[String: Any]])?.map { $0["notebook"] as? String }, ["work"])
  }

  func testACorrectionTeachesTheClassifier() throws {
    try makeBins()
    try nbSucceeds("notebook", "create", "errands")
    // "pharmacy" appears nowhere yet: after one item about it is filed into errands, the next goes there too.
    try run("capture", "pharmacy pickup vitamins")
    try run("inbox", "file", "inbox/pharmacy-pickup-vitamins.md", "errands")
    try run("capture", "pharmacy pickup allergy pills")
    let listed = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: try run("inbox", "--json").stdoutData) as? [[String: Any]])
    XCTAssertEqual((listed[0]["candidates"] as? [[String: Any]])?.first?["notebook"] as? String, "errands")
  }
}

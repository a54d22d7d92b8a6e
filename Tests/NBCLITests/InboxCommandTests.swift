import Foundation
import NBTestSupport
import XCTest

/// The device's own inbox command (`inbox: {command: ...}` in `$XDG_CONFIG_HOME/nb/config.yaml`): its answer is the
/// suggestion, its failures fall back to the classifier with one warning, its answers are kept, and a command named
/// in the repository's settings is never run.
final class InboxCommandTests: NBCLITestCase {
  /// The dentist item the classifier files under health, and a report it files under work.
  private let dentist = "inbox/call-the-dentist-about-the-bridge.md"
  private let report = "inbox/finish-the-quarterly-report-for-the-team.md"

  override func setUpWithError() throws {
    try super.setUpWithError()
    try makeRepository()
    for (title, body) in [
      ("Dentist appointment", "The dentist checks the bridge and the crown; teeth cleaning every six months."),
      ("Teeth", "Ask the dentist about the sore tooth and the bridge."),
    ] {
      try addNote(title, notebook: "health", content: body)
    }
    for (title, body) in [
      ("Quarterly report", "Write the quarterly report for the board; numbers from finance by Friday."),
      ("Release plan", "The release deadline moves; tell the team and update the roadmap report."),
    ] {
      try addNote(title, notebook: "work", content: body)
    }
    try write("work/.notebook.yaml", try text("work/.notebook.yaml") + "description: reports and meetings\n")
    try gitCommitAll()
    try nbSucceeds("capture", "call the dentist about the bridge", env: ["NB_NOW": "2026-11-24T10:00:00+01:00"])
    try nbSucceeds("capture", "finish the quarterly report for the team", env: ["NB_NOW": "2026-11-24T11:00:00+01:00"])
  }

  // MARK: - Helpers

  /// Writes an executable shell script into the test's temp directory.
  private func script(_ name: String, _ body: String) throws -> URL {
    let url = try temp.write(name, "#!/bin/sh\n" + body)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    return url
  }

  /// The device settings file nb reads: `$XDG_CONFIG_HOME/nb/config.yaml` of the isolated HOME.
  private var deviceConfigFile: URL { home.appendingPathComponent(".config/nb/config.yaml") }

  private func deviceConfig(_ yaml: String) throws {
    try FileManager.default.createDirectory(
      at: deviceConfigFile.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(yaml.utf8).write(to: deviceConfigFile)
  }

  /// `nb inbox --json` (which must succeed): the items by path, and what it printed on standard error.
  private func inbox(env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> (
    items: [String: [String: Any]], stderr: String
  ) {
    let result = try nb(arguments: ["inbox", "--json"], env: env)
    XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
    let items = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]], file: file, line: line)
    for item in items {
      XCTAssertEqual(
        Set(item.keys), ["path", "id", "title", "captured", "tags", "suggestion", "source", "candidates"],
        "every key, always", file: file, line: line)
    }
    return (Dictionary(uniqueKeysWithValues: items.map { ($0["path"] as? String ?? "", $0) }), result.stderr)
  }

  private func suggestion(_ item: [String: Any]?) -> String? {
    (item?["suggestion"] as? [String: Any])?["notebook"] as? String
  }

  private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

  private func count(_ url: URL) -> Int {
    lines((try? String(contentsOf: url, encoding: .utf8)) ?? "").count
  }

  // MARK: - Tests

  func testTheCommandsAnswerIsTheSuggestionAndFilingTakesIt() throws {
    let requests = try temp.directory("requests")
    let command = try script(
      "file-it.sh",
      """
      n=$(ls '\(requests.path)' | wc -l)
      cat > '\(requests.path)/'$n.json
      printf '\\n  work\\t0.8  \\nignored\\n'
      """)
    try deviceConfig(
      "# this device only\ninbox:\n  command: [\"\(command.path)\", \"--model\", \"tiny\"]\n  timeout: 10\n")

    // Without it the classifier sends the dentist to health.
    let (items, stderr) = try inbox()
    XCTAssertEqual(stderr, "")
    let item = try XCTUnwrap(items[dentist])
    XCTAssertEqual(suggestion(item), "work")
    XCTAssertEqual((item["suggestion"] as? [String: Any])?["confidence"] as? Double, 0.8)
    XCTAssertEqual(item["source"] as? String, "command")
    XCTAssertEqual(
      (item["candidates"] as? [[String: Any]])?.first?["notebook"] as? String, "health",
      "candidates stay the classifier's")

    // What the command was given: one JSON object per item.
    let files = try FileManager.default.contentsOfDirectory(atPath: requests.path)
    XCTAssertEqual(files.count, 2)
    var byPath: [String: [String: Any]] = [:]
    for name in files {
      let data = try Data(contentsOf: requests.appendingPathComponent(name))
      XCTAssertEqual(data.last, 0x0A)
      let request = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      XCTAssertEqual(Set(request.keys), ["item", "candidates", "notebooks"])
      let item = try XCTUnwrap(request["item"] as? [String: Any])
      XCTAssertEqual(Set(item.keys), ["path", "id", "title", "tags", "text"])
      byPath[item["path"] as? String ?? ""] = request
    }
    let request = try XCTUnwrap(byPath[dentist])
    let sent = try XCTUnwrap(request["item"] as? [String: Any])
    XCTAssertEqual(sent["id"] as? String, try string(try noteJSON(dentist), "id"))
    XCTAssertEqual(sent["title"] as? String, "call the dentist about the bridge")
    XCTAssertEqual(sent["tags"] as? [String], [])
    XCTAssertEqual(sent["text"] as? String, "call the dentist about the bridge\n", "the body, without front matter")
    XCTAssertEqual(request["notebooks"] as? [String], ["health", "work"], "every notebook but the inbox")
    let candidates = try XCTUnwrap(request["candidates"] as? [[String: Any]])
    XCTAssertEqual(candidates.map { $0["notebook"] as? String }, ["health", "work"], "all of them, best first")
    for candidate in candidates { XCTAssertEqual(Set(candidate.keys), ["notebook", "confidence", "description"]) }
    XCTAssertGreaterThan(candidates[0]["confidence"] as? Double ?? 0, candidates[1]["confidence"] as? Double ?? 1)
    XCTAssertTrue(candidates[0]["description"] is NSNull)
    XCTAssertEqual(candidates[1]["description"] as? String, "reports and meetings")

    // Filing without a notebook takes the command's answer, and the decision records it as the suggestion.
    XCTAssertEqual(
      try nbSucceeds("inbox", "file", dentist).stdout,
      "\(dentist) -> work/call-the-dentist-about-the-bridge.md\n")
    let decision = try text(".nb/inbox/decisions.jsonl")
    XCTAssertTrue(decision.contains("\"suggested\":\"work\",\"chosen\":\"work\",\"confidence\":0.8,"), decision)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: requests.path).count, 2, "answers are kept")

    // The text listing says who suggested; an empty XDG_CONFIG_HOME means ~/.config, the same file here.
    let listed = try nbSucceeds("inbox", env: ["XDG_CONFIG_HOME": ""]).stdout
    XCTAssertTrue(listed.contains("→ work 80% (your command)"), listed)
  }

  func testWithoutACommandTheSourceIsTheClassifierOrNull() throws {
    try nbSucceeds("capture", "zzz qqq")
    let (items, _) = try inbox()
    XCTAssertEqual(items[dentist]?["source"] as? String, "classifier")
    XCTAssertEqual(suggestion(items[dentist]), "health")
    XCTAssertTrue(items["inbox/zzz-qqq.md"]?["suggestion"] is NSNull)
    XCTAssertTrue(items["inbox/zzz-qqq.md"]?["source"] is NSNull, "no suggestion, no source")
  }

  func testAnAnswerThatIsNoNotebookFallsBackWithOneWarning() throws {
    let command = try script("wrong.sh", "cat >/dev/null\necho inbox\n")
    try deviceConfig("inbox:\n  command: \(command.path)\n")
    let (items, stderr) = try inbox()
    XCTAssertEqual(suggestion(items[dentist]), "health")
    XCTAssertEqual(items[dentist]?["source"] as? String, "classifier")
    XCTAssertEqual(suggestion(items[report]), "work")
    XCTAssertEqual(lines(stderr).count, 1, "one warning for the run, not one per item:\n\(stderr)")
    XCTAssertTrue(stderr.contains("inbox command '\(command.path)'"), stderr)
    XCTAssertTrue(stderr.contains("answered 'inbox', not a notebook items may go to"), stderr)
    XCTAssertTrue(stderr.contains("(2 items failed)"), stderr)
  }

  func testACommandThatDoesNotAnswerInTimeIsKilledAndTheClassifierSuggests() throws {
    let command = try script("slow.sh", "sleep 30\necho work\n")
    try deviceConfig("inbox:\n  command: [\"\(command.path)\"]\n  timeout: 1\n")
    let started = Date()
    let (items, stderr) = try inbox()
    // Two items, 1 s each at most: the run's budget (twice the timeout) is then spent.
    XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    XCTAssertEqual(suggestion(items[dentist]), "health")
    XCTAssertEqual(items[dentist]?["source"] as? String, "classifier")
    XCTAssertEqual(suggestion(items[report]), "work")
    XCTAssertEqual(lines(stderr).count, 1, stderr)
    XCTAssertTrue(stderr.contains("inbox command '\(command.path)' timed out after 1 s"), stderr)
  }

  func testTheBudgetStopsAskingForTheRest() throws {
    let counter = temp.file("asked")
    let command = try script("slow.sh", "echo x >> '\(counter.path)'\nsleep 1\necho work\n")
    try deviceConfig("inbox:\n  command: [\"\(command.path)\"]\n  timeout: 5\n  budget: 0.5\n")
    let (items, stderr) = try inbox()
    XCTAssertEqual(count(counter), 1, "asked once, then over budget")
    XCTAssertEqual(Set(items.values.compactMap { $0["source"] as? String }), ["command", "classifier"])
    XCTAssertTrue(stderr.contains("1 item not asked"), stderr)
    // The next run asks for the one left: answers already given are kept.
    let (again, _) = try inbox()
    XCTAssertEqual(count(counter), 2)
    XCTAssertEqual(again.values.map { $0["source"] as? String }, ["command", "command"])
  }

  func testAFailingCommandFallsBackAndIsAskedAgainNextTime() throws {
    let counter = temp.file("asked")
    let command = try script("broken.sh", "echo x >> '\(counter.path)'\necho 'model not loaded' >&2\nexit 3\n")
    try deviceConfig("inbox:\n  command: \(command.path)\n")
    let (items, stderr) = try inbox()
    XCTAssertEqual(suggestion(items[dentist]), "health")
    XCTAssertEqual(items[dentist]?["source"] as? String, "classifier")
    XCTAssertEqual(lines(stderr).count, 1, stderr)
    XCTAssertTrue(stderr.contains("exited with status 3: model not loaded"), stderr)
    XCTAssertEqual(count(counter), 2)
    // A failure is not an answer: it is not kept.
    _ = try inbox()
    XCTAssertEqual(count(counter), 4)
  }

  func testAnItemIsAskedOnceWhileItsTextAndTheNotebooksStayTheSame() throws {
    let counter = temp.file("asked")
    let command = try script("count.sh", "cat >/dev/null\necho x >> '\(counter.path)'\necho health\n")
    try deviceConfig("inbox:\n  command: [\"\(command.path)\"]\n")
    let (first, _) = try inbox()
    XCTAssertEqual(count(counter), 2)
    XCTAssertEqual(suggestion(first[report]), "health")
    XCTAssertEqual((first[report]?["suggestion"] as? [String: Any])?["confidence"] as? Double, 1, "1 when not given")
    let answers = root.appendingPathComponent(".git/nb/inbox/command-answers")
    XCTAssertEqual(lines(try String(contentsOf: answers, encoding: .utf8)).first, "nb-inbox-command-answers 1")

    let (second, stderr) = try inbox()
    XCTAssertEqual(count(counter), 2, "the second listing asks nothing")
    XCTAssertEqual(stderr, "")
    XCTAssertEqual(second[report]?["source"] as? String, "command")
    try nbSucceeds("inbox", "file", report)
    XCTAssertEqual(count(counter), 2, "filing asks nothing either")
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: url("health/finish-the-quarterly-report-for-the-team.md").path))

    // A changed item, another set of notebooks or a deleted answers file: asked again.
    try nbSucceeds("edit", dentist, "--append", "and the crown")
    _ = try inbox()
    XCTAssertEqual(count(counter), 3)
    try nbSucceeds("notebook", "create", "errands")
    _ = try inbox()
    XCTAssertEqual(count(counter), 4)
    try FileManager.default.removeItem(at: answers)
    _ = try inbox()
    XCTAssertEqual(count(counter), 5)
    _ = try inbox()
    XCTAssertEqual(count(counter), 5)
  }

  func testACommandNamedInTheRepositorysSettingsIsNeverRun() throws {
    let marker = temp.file("ran")
    let settings = try text(".nb/config.yaml")
    for command in ["[\"/bin/sh\", \"-c\", \"touch '\(marker.path)'\"]", "\"touch '\(marker.path)'\""] {
      // It arrives by sync from other devices: running it would let any of them run code here.
      try write(".nb/config.yaml", settings + "inbox:\n  command: \(command)\n  timeout: 5\n")
      try gitCommitAll("settings from another device")
      let (items, _) = try inbox()
      XCTAssertEqual(items[dentist]?["source"] as? String, "classifier")
      try nbSucceeds("inbox", "why", dentist)
      XCTAssertFalse(FileManager.default.fileExists(atPath: marker.path), "ran the repository's \(command)")
    }
    try nbSucceeds("inbox", "file", dentist)
    XCTAssertFalse(FileManager.default.fileExists(atPath: marker.path))
    // The same command in this device's settings does run: the test would notice if it could not.
    try deviceConfig("inbox:\n  command: \"touch '\(marker.path)'; echo work\"\n")
    XCTAssertEqual(suggestion(try inbox().items[report]), "work")
    XCTAssertTrue(FileManager.default.fileExists(atPath: marker.path))
  }

  func testDeviceSettingsThatDoNotParseWarnAndTheInboxStillLists() throws {
    let counter = temp.file("asked")
    let command = try script("count.sh", "echo x >> '\(counter.path)'\necho work\n")
    try deviceConfig("inbox:\n  command: [\"\(command.path)\"\n  timeout: 1\n")
    let (items, stderr) = try inbox()
    XCTAssertEqual(items.count, 2)
    XCTAssertEqual(suggestion(items[dentist]), "health")
    XCTAssertEqual(items[dentist]?["source"] as? String, "classifier")
    XCTAssertEqual(lines(stderr).count, 1, stderr)
    XCTAssertTrue(stderr.hasPrefix(deviceConfigFile.path + ":"), stderr)
    XCTAssertTrue(stderr.contains("not valid YAML"), stderr)
    XCTAssertEqual(count(counter), 0)
    // Commands that do not suggest never read the settings.
    XCTAssertEqual(try nbSucceeds("list").stderr, "")
  }
}

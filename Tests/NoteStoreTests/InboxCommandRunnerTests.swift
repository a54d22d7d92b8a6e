import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// The device settings that name the inbox command, and running it: input, output, exit, the deadline.
final class InboxCommandRunnerTests: XCTestCase {
  var temp: TemporaryDirectory!

  override func setUpWithError() throws {
    try super.setUpWithError()
    temp = try TemporaryDirectory(prefix: "nb-inbox-command")
  }

  override func tearDownWithError() throws {
    temp = nil
    try super.tearDownWithError()
  }

  // MARK: - Device settings

  func testTheLocationFollowsXDG() {
    XCTAssertEqual(
      DeviceConfig.location(environment: ["XDG_CONFIG_HOME": "/x/conf", "HOME": "/h"]).path, "/x/conf/nb/config.yaml")
    XCTAssertEqual(
      DeviceConfig.location(environment: ["XDG_CONFIG_HOME": "", "HOME": "/h"]).path, "/h/.config/nb/config.yaml")
    XCTAssertEqual(DeviceConfig.location(environment: ["HOME": "/h"]).path, "/h/.config/nb/config.yaml")
    XCTAssertEqual(
      DeviceConfig.location(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]).path,
      "/h/.config/nb/config.yaml",
      "a relative XDG_CONFIG_HOME is ignored, as the specification says")
  }

  func testCommandsAsArgumentsOrAShellString() {
    let list = DeviceConfig.parse(
      "other: 1\ninbox:\n  command: [\"/usr/local/bin/llm-file\", \"--model\", \"x y\"]\n  timeout: 2.5\n", file: "f")
    XCTAssertEqual(list.problems, [])
    XCTAssertEqual(list.config.inboxCommand?.arguments, ["/usr/local/bin/llm-file", "--model", "x y"])
    XCTAssertEqual(list.config.inboxCommand?.display, "/usr/local/bin/llm-file --model 'x y'")
    XCTAssertEqual(list.config.inboxCommand?.timeout, 2.5)
    XCTAssertEqual(list.config.inboxCommand?.budget, 5)

    let string = DeviceConfig.parse("inbox:\n  command: llm-file --model x | head -1\n  budget: 500ms\n", file: "f")
    XCTAssertEqual(string.problems, [])
    XCTAssertEqual(string.config.inboxCommand?.arguments, ["/bin/sh", "-c", "llm-file --model x | head -1"])
    XCTAssertEqual(string.config.inboxCommand?.display, "llm-file --model x | head -1")
    XCTAssertEqual(string.config.inboxCommand?.timeout, 5)
    XCTAssertEqual(string.config.inboxCommand?.budget, 0.5)

    for empty in ["", "# nothing\n", "inbox:\n  timeout: 3\n", "editor: vim\n"] {
      let parsed = DeviceConfig.parse(empty, file: "f")
      XCTAssertNil(parsed.config.inboxCommand, empty)
      XCTAssertEqual(parsed.problems, [], empty)
    }
  }

  func testSettingsThatDoNotReadAreOneLineEachWithTheFileAndLine() {
    func problems(_ text: String) -> [String] {
      let parsed = DeviceConfig.parse(text, file: "/home/me/.config/nb/config.yaml")
      for problem in parsed.problems { XCTAssertFalse(problem.contains("\n"), problem) }
      return parsed.problems
    }
    let broken = problems("inbox:\n  command: [\"a\", \"b\"\n  timeout: 1\n")
    XCTAssertEqual(broken.count, 1)
    XCTAssertTrue(broken[0].hasPrefix("/home/me/.config/nb/config.yaml:"), broken[0])
    XCTAssertTrue(broken[0].contains("not valid YAML"), broken[0])
    XCTAssertTrue(broken[0].contains("built-in classifier"), broken[0])
    XCTAssertNil(DeviceConfig.parse("inbox:\n  command: [\"a\", \"b\"\n", file: "f").config.inboxCommand)

    XCTAssertEqual(
      problems("inbox:\n  command: [\"a\", [\"b\"]]\n").first?.hasPrefix(
        "/home/me/.config/nb/config.yaml:2: 'inbox.command' must be"),
      true)
    XCTAssertEqual(
      problems("inbox: [1]\n").first?.hasPrefix("/home/me/.config/nb/config.yaml:1: 'inbox' must hold"), true)
    XCTAssertEqual(problems("- a\n").first?.contains("expected settings"), true)
    XCTAssertEqual(problems("inbox:\n  command: \"  \"\n").first?.contains("'inbox.command' is empty"), true)
    XCTAssertEqual(problems("inbox:\n  command: []\n").first?.contains("must be a program and its arguments"), true)
    XCTAssertEqual(problems("inbox:\n  command: {a: b}\n").first?.contains("a list of arguments or a string"), true)
    XCTAssertEqual(problems("inbox:\n  command: x\n  command: y\n").first?.contains("duplicate key"), true)

    let typo = DeviceConfig.parse("inbox:\n  comand: x\n  command: y\n  timeout: soon\n", file: "f")
    XCTAssertEqual(typo.config.inboxCommand?.arguments, ["/bin/sh", "-c", "y"], "the command still runs")
    XCTAssertEqual(typo.config.inboxCommand?.timeout, 5)
    XCTAssertEqual(typo.problems.count, 2)
    XCTAssertTrue(typo.problems[0].hasPrefix("f:2: unknown setting 'inbox.comand'"), typo.problems[0])
    XCTAssertTrue(typo.problems[1].hasPrefix("f:4: 'inbox.timeout' must be a number of seconds"), typo.problems[1])
    for bad in ["0", "-1", "inf", "5 minutes"] { XCTAssertNil(DeviceConfig.seconds(bad), bad) }
  }

  func testAFileThatIsNotThereIsNoSettingsAndNoWarning() throws {
    let missing = DeviceConfig.read(at: temp.file("nowhere/config.yaml"))
    XCTAssertNil(missing.config.inboxCommand)
    XCTAssertEqual(missing.problems, [])
    let binary = temp.file("binary.yaml")
    try Data([0xFF, 0xFE, 0x00]).write(to: binary)
    XCTAssertEqual(DeviceConfig.read(at: binary).problems.first?.contains("not UTF-8"), true)
  }

  // MARK: - Running

  private func run(_ script: String, input: String = "{}\n", timeout: TimeInterval = 5) -> InboxCommandRunner.Outcome {
    InboxCommandRunner.run(
      ["/bin/sh", "-c", script], input: Data(input.utf8), timeout: timeout, directory: temp.url,
      environment: ProcessInfo.processInfo.environment)
  }

  func testInputOutputAndExit() {
    XCTAssertEqual(
      run("cat; echo done >&2", input: "hello\n"),
      .exited(status: 0, output: Data("hello\n".utf8), errors: Data("done\n".utf8)))
    XCTAssertEqual(run("echo oops >&2; exit 3"), .exited(status: 3, output: Data(), errors: Data("oops\n".utf8)))
    XCTAssertEqual(run("kill -9 $$"), .killed(signal: 9, errors: Data()))
    XCTAssertEqual(run("pwd"), .exited(status: 0, output: Data((temp.url.path + "\n").utf8), errors: Data()))
  }

  func testABigInputTheCommandDoesNotReadNeitherBlocksNorKillsNB() {
    let big = String(repeating: "x", count: 4 << 20)
    XCTAssertEqual(run("echo health", input: big), .exited(status: 0, output: Data("health\n".utf8), errors: Data()))
    XCTAssertEqual(run("head -c 10 >/dev/null; exit 0", input: big), .exited(status: 0, output: Data(), errors: Data()))
    // Read whole while it writes as much back: neither side waits for the other.
    guard case .exited(0, let output, _) = run("cat", input: big) else { return XCTFail("cat failed") }
    XCTAssertEqual(output.count, InboxCommandRunner.outputLimit, "output is kept up to the limit")
  }

  func testTheDeadlineKillsTheWholeGroupEvenWhenAChildHoldsTheOutput() throws {
    let marker = temp.file("survived")
    let started = Date()
    XCTAssertEqual(run("(sleep 3; touch '\(marker.path)') & sleep 30", timeout: 0.5), .timedOut)
    XCTAssertLessThan(Date().timeIntervalSince(started), 2.5)
    XCTAssertEqual(run("exec >&- 2>&-; sleep 30", timeout: 0.5), .timedOut)
    Thread.sleep(forTimeInterval: 3.5)
    XCTAssertFalse(FileManager.default.fileExists(atPath: marker.path), "the command's child outlived the deadline")
  }

  func testACommandThatExitsLeavingAChildHoldingItsOutputIsDoneAtOnce() {
    let started = Date()
    XCTAssertEqual(
      run("(sleep 30; echo late) & echo health", timeout: 10),
      .exited(status: 0, output: Data("health\n".utf8), errors: Data()))
    XCTAssertLessThan(Date().timeIntervalSince(started), 3)
  }

  func testACommandThatCannotStart() {
    let environment = ["PATH": temp.url.path]
    guard
      case .couldNotStart(let missing) = InboxCommandRunner.run(
        ["no-such-program"], input: Data(), timeout: 1, directory: temp.url, environment: environment)
    else { return XCTFail("started") }
    XCTAssertEqual(missing, "cannot be started: no 'no-such-program' on PATH")
    guard
      case .couldNotStart(let notExecutable) = InboxCommandRunner.run(
        [temp.url.path], input: Data(), timeout: 1, directory: temp.url, environment: environment)
    else { return XCTFail("started a directory") }
    XCTAssertTrue(notExecutable.contains("is not an executable file"), notExecutable)
  }
}

import Foundation
import NBTestSupport
import XCTest

/// The test-support runner lives in NBTestSupport, which has no test target of its own; it is exercised here.
final class ProcessRunnerTests: XCTestCase {
  func testLargeOutputOnBothPipesDoesNotDeadlock() throws {
    // 4 MiB on stdout and 1 MiB on stderr: far beyond a pipe buffer on either.
    let result = try ProcessRunner.run(
      "sh", arguments: ["-c", "head -c 4194304 /dev/zero; head -c 1048576 /dev/zero >&2; exit 3"], timeout: 60)
    XCTAssertEqual(result.status, 3)
    XCTAssertEqual(result.stdoutData.count, 4_194_304)
    XCTAssertEqual(result.stderrData.count, 1_048_576)
  }

  func testStdinEnvironmentAndDirectory() throws {
    let temp = try TemporaryDirectory()
    let input = String(repeating: "line\n", count: 100_000)
    let echoed = try ProcessRunner.run("cat", stdin: Data(input.utf8))
    XCTAssertEqual(echoed.stdout, input)
    let env = try ProcessRunner.run(
      "sh", arguments: ["-c", "echo \"$NB_X\"; pwd"], environment: ["NB_X": "value", "PATH": "/usr/bin:/bin"],
      currentDirectory: temp.url)
    XCTAssertEqual(env.stdout, "value\n\(temp.path)\n")
  }

  func testTimeoutAndTerminate() throws {
    XCTAssertThrowsError(try ProcessRunner.run("sleep", arguments: ["30"], timeout: 0.5)) { error in
      guard case ProcessRunnerError.timedOut = error else { return XCTFail("\(error)") }
    }
    let handle = try ProcessRunner.launch("sleep", arguments: ["30"])
    XCTAssertGreaterThan(handle.pid, 0)
    handle.terminate(SIGKILL)
    XCTAssertEqual(try handle.wait().status, 128 + SIGKILL)
    XCTAssertThrowsError(try ProcessRunner.run("nb-no-such-executable-anywhere"))
  }

  func testTemporaryDirectoryIsRemoved() throws {
    var temp: TemporaryDirectory? = try TemporaryDirectory()
    let path = temp!.path
    try temp!.write("a/b.txt", "x")
    XCTAssertEqual(try String(contentsOf: temp!.file("a/b.txt"), encoding: .utf8), "x")
    XCTAssertEqual(URL(fileURLWithPath: path).resolvingSymlinksInPath().path, path)
    temp = nil
    XCTAssertFalse(FileManager.default.fileExists(atPath: path))
  }
}

final class NBRunnerTests: XCTestCase {
  func testRunnerIsolatesTheEnvironment() throws {
    let home = try TemporaryDirectory()
    // /usr/bin/env stands in for nb: it prints the environment it was given.
    let runner = try NBRunner(home: home.url, binary: URL(fileURLWithPath: "/usr/bin/env"))
    let plain = Set(lines(try runner.run([]).stdout))
    XCTAssertTrue(plain.contains("HOME=\(home.path)"))
    XCTAssertTrue(plain.contains("NO_COLOR=1"))
    XCTAssertFalse(plain.contains { $0.hasPrefix("NB_DIR=") || $0.hasPrefix("EDITOR=") || $0.hasPrefix("VISUAL=") })
    let withEditor = Set(lines(try runner.run([], env: ["EDITOR": "true", "NB_DIR": "/x"]).stdout))
    XCTAssertTrue(withEditor.isSuperset(of: ["EDITOR=true", "NB_DIR=/x"]))
    let config = try String(contentsOf: home.file(".gitconfig"), encoding: .utf8)
    XCTAssertTrue(config.contains("email = \(GitCLI.userEmail)"))
    XCTAssertEqual(try runner.run(["sh", "-c", "cat"], stdin: "piped").stdout, "piped")
  }

  func testBinaryLookupFindsTheBuiltProductOrTheOverride() throws {
    setenv("NB_BINARY", "/bin/true", 1)
    defer { unsetenv("NB_BINARY") }
    XCTAssertEqual(try NBBinary.url().path, "/bin/true")
    unsetenv("NB_BINARY")
    // `swift test` builds every product, so the nb executable sits next to the test bundle.
    let url = try NBBinary.url()
    XCTAssertEqual(url.lastPathComponent, "nb")
    XCTAssertTrue(FileManager.default.isExecutableFile(atPath: url.path))
  }

  private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }
}

import XCTest

@testable import NBCLI

final class ArgumentTests: XCTestCase {
  func testLeadingDirMovesAfterTheSubcommand() {
    XCTAssertEqual(NB.hoistingGlobalOptions(["--dir", "/n", "list", "work"]), ["list", "work", "--dir", "/n"])
    XCTAssertEqual(NB.hoistingGlobalOptions(["--dir=/n", "tag", "list"]), ["tag", "list", "--dir=/n"])
  }

  func testOptionsStayBeforeATerminator() {
    XCTAssertEqual(
      NB.hoistingGlobalOptions(["--dir", "/n", "add", "--", "-title"]), ["add", "--dir", "/n", "--", "-title"])
  }

  func testOtherArgumentsAreUntouched() {
    XCTAssertEqual(NB.hoistingGlobalOptions(["list", "--dir", "/n"]), ["list", "--dir", "/n"])
    XCTAssertEqual(NB.hoistingGlobalOptions(["--dir"]), ["--dir"])
  }

  /// Every line `Add.PlainLine` takes, ArgumentParser (the oracle) parses to the same values; lines it leaves alone
  /// include every form it does not model.
  func testThePlainAddLineReadsAsArgumentParserReadsIt() throws {
    let vocabulary = [
      "--notebook", "-n", "--tags", "-t", "--content", "-c", "--json", "Title", "work/x", "a,b", "-x", "--",
      "--notebook=w", "--template", "note", "-", "", "two words", "--var", "k=v", "-nwork", "--dir",
    ]
    let taken = compareWithParser(
      words: { randomWords(vocabulary, upTo: 6) }, plain: Add.PlainLine.init, parse: { try Add.parse($0) }
    ) { line, parsed, words in
      XCTAssertEqual(
        line, Add.PlainLine(fields: parsed.title, parsed.notebook, parsed.tags, parsed.content, parsed.output.json),
        words)
      XCTAssertNil(parsed.template, words)
      XCTAssertEqual(parsed.variables, [], words)
      XCTAssertNil(parsed.repository.directory, words)
    }
    XCTAssertGreaterThan(taken, 200)
    for refused in [["--notebook=w"], ["-nwork"], ["--", "Title"], ["-n", "-x"], ["Title", "Other"], ["-n", "a", "-n", "b"], ["-c", "--", "Title"]] {
      XCTAssertNil(Add.PlainLine(refused[...]), "\(refused)")
    }
  }
}

extension ArgumentTests {
  /// Every line `Edit.PlainLine` takes, ArgumentParser parses to the same note and options; what it leaves alone
  /// includes every form it does not model.
  func testThePlainEditLineReadsAsArgumentParserReadsIt() throws {
    let vocabulary = [
      "--content", "--append", "--title", "--tags", "roadmap", "work/x.md", "a,b", "two words", "", "-x", "--",
      "--append=x", "-", "--dir", "--json", "--help", "line\nbreak",
    ]
    var generator = SystemRandomNumberGenerator()
    let options = ["--content", "--append", "--title", "--tags"]
    var round = 0
    func words() -> [String] {
      round += 1
      if round % 2 == 0 { return randomWords(vocabulary, upTo: 7) }
      // A line shaped like a real one (a NOTE among option-value pairs), sometimes with a stray word put in.
      let values = ["roadmap", "work/x.md", "a,b", "two words", "", "line\nbreak", "-", "-x", "--"]
      var groups = [[values.randomElement(using: &generator)!]]
      for option in options.shuffled(using: &generator).prefix(Int.random(in: 1...4, using: &generator)) {
        groups.append([option, values.randomElement(using: &generator)!])
      }
      var words = groups.shuffled(using: &generator).flatMap { $0 }
      if Int.random(in: 0..<4, using: &generator) == 0 {
        let stray = vocabulary.randomElement(using: &generator)!
        words.insert(stray, at: Int.random(in: 0...words.count, using: &generator))
      }
      return words
    }
    let taken = compareWithParser(words: words, plain: Edit.PlainLine.init, parse: { try Edit.parse($0) }) {
      line, parsed, words in
      XCTAssertEqual(
        line,
        Edit.PlainLine(
          fields: parsed.note.note, content: parsed.content, append: parsed.append, title: parsed.title,
          tags: parsed.tags),
        words)
      XCTAssertNil(parsed.repository.directory, words)
    }
    XCTAssertGreaterThan(taken, 200)
    for refused in [
      ["roadmap"], ["--append", "x"], ["roadmap", "--append=x"], ["roadmap", "--append", "-x"], ["a", "b", "--append", "x"],
      ["roadmap", "--append", "x", "--append", "y"], ["--", "roadmap", "--append", "x"], ["roadmap", "--append", "--"],
    ] {
      XCTAssertNil(Edit.PlainLine(refused[...]), "\(refused)")
    }
  }
}

extension Add.PlainLine {
  init(fields title: String?, _ notebook: String?, _ tags: String?, _ content: String?, _ json: Bool) {
    self.init([])!
    self.title = title
    self.notebook = notebook
    self.tags = tags
    self.content = content
    self.json = json
  }
}

extension ArgumentTests {
  /// Every line `Sync.PlainLine` takes, ArgumentParser parses to the same options; what it leaves alone includes
  /// every form it does not model.
  func testThePlainSyncLineReadsAsArgumentParserReadsIt() throws {
    let vocabulary = [
      "--remote", "--device", "--dir", "--dry-run", "--force", "--allow-unrelated", "--json", "origin", "laptop",
      "/n", "", "-x", "--", "--remote=up", "--device=", "--dir=/m", "--json=1", "--help", "two words", "-h",
    ]
    let taken = compareWithParser(
      words: { randomWords(vocabulary, upTo: 7) }, plain: Sync.PlainLine.init, parse: { try Sync.parse($0) }
    ) { line, parsed, words in
      var expected = Sync.PlainLine([])!
      expected.remote = parsed.remote
      expected.device = parsed.device
      expected.directory = parsed.repository.directory
      expected.dryRun = parsed.dryRun
      expected.force = parsed.force
      expected.allowUnrelated = parsed.allowUnrelated
      expected.json = parsed.output.json
      XCTAssertEqual(line, expected, words)
    }
    XCTAssertGreaterThan(taken, 200)
    for refused in [
      ["--force", "--force"], ["--remote", "a", "--remote=b"], ["--device", "-x"], ["--device"], ["--json=1"],
      ["extra"], ["--", "--force"], ["--remote", ""], ["--help"],
    ] {
      XCTAssertNil(Sync.PlainLine(refused[...]), "\(refused)")
    }
  }
}

extension ArgumentTests {
  /// Up to `count` words drawn from `vocabulary`.
  func randomWords(_ vocabulary: [String], upTo count: Int) -> [String] {
    (0..<Int.random(in: 0...count)).map { _ in vocabulary.randomElement()! }
  }

  /// 4 000 lines from `words`: each one the plain reader takes, ArgumentParser (the oracle, `parse`) must take too,
  /// and `check` compares the two readings (its last argument names the line). Returns how many were taken.
  func compareWithParser<Line, Command>(
    words: () -> [String], plain: (ArraySlice<String>) -> Line?, parse: ([String]) throws -> Command,
    check: (Line, Command, String) -> Void
  ) -> Int {
    var taken = 0
    for _ in 0..<4_000 {
      let line = words()
      guard let read = plain(line[...]) else { continue }
      taken += 1
      do {
        check(read, try parse(line), "\(line)")
      } catch {
        XCTFail("ArgumentParser refused \(line) that the plain line took: \(error)")
      }
    }
    return taken
  }
}

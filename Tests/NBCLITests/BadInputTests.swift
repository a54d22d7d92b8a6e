import Foundation
import NBTestSupport
import XCTest

/// Bad input to the built `nb`: every case must end in a non-zero exit, one line on stderr naming the file, line or
/// argument at fault, and a repository whose HEAD, `git status` and bytes are exactly as before.
final class BadInputTests: NBCLITestCase {
  override func setUpWithError() throws {
    try super.setUpWithError()
    try makeRepository()
  }

  // MARK: - Malformed front matter

  func testMalformedFrontMatterNamesFileAndLineAndNothingIsWritten() throws {
    // Line 3 of each file (counting the opening `---` as line 1) is the one a YAML parser cannot accept: a second
    // `:` in a plain value, and an indented key under a scalar. The CRLF copy must count lines the same way.
    try write("inbox/broken.md", "---\ntitle: Broken\nkey: : x\n---\nbody\n")
    try write("inbox/indent.md", "---\r\ntitle: Indent\r\n  bad: indent\r\n---\r\nbody\r\n")
    try write("inbox/good.md", "---\ntitle: Good\n---\nfine\n")
    try gitCommitAll()

    try assertRefused(["edit", "inbox/broken", "--append", "more"], mentioning: ["inbox/broken.md:3"])
    try assertRefused(["edit", "inbox/broken.md", "--title", "Renamed"], mentioning: ["inbox/broken.md:3"])
    try assertRefused(["edit", "inbox/indent", "--append", "more"], mentioning: ["inbox/indent.md:3"])
    try assertRefused(["tag", "add", "inbox/broken", "urgent"], mentioning: ["inbox/broken.md:3"])

    // Read-only commands still show the note, with the problem as a warning.
    let list = try assertNothingChanged("nb list") { try nb("list") }
    XCTAssertEqual(list.status, 0, list.stderr)
    XCTAssert(list.stdout.contains("inbox/broken.md"), list.stdout)
    XCTAssert(list.stdout.contains("inbox/good.md"), list.stdout)
    XCTAssert(list.stderr.contains("inbox/broken.md:3"), list.stderr)
    XCTAssert(list.stderr.contains("inbox/indent.md:3"), list.stderr)

    // An edit made outside nb that leaves the YAML broken is still the user's data: `save` commits it unchanged,
    // names the file and line, and exits non-zero.
    let broken = "---\ntitle: Broken\nkey: : x\n---\nbody edited by hand\n"
    try write("inbox/broken.md", broken)
    let saved = try nb("save")
    XCTAssertEqual(saved.status, 1, saved.stderr)
    XCTAssert(saved.stderr.contains("inbox/broken.md:3"), saved.stderr)
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertEqual(try git.show("HEAD", path: "inbox/broken.md"), broken)
  }

  // MARK: - Titles and notebook names

  func testTitlesThatCannotBeFileNamesAreRefused() throws {
    // The needle is the text as typed, or for a control character its code point (the raw byte is not printable).
    let cases: [(title: String, needle: String)] = [
      ("a/b", "a/b"),
      ("back\\slash", "back"),
      ("../escape", "../escape"),
      ("..", "\"..\""),
      ("...", "\"...\""),
      ("line\nbreak", "U+000A"),
      ("tab\there", "U+0009"),
      ("bell\u{7}", "U+0007"),
      ("delete\u{7F}", "U+007F"),
      ("", "title"),
      ("   ", "title"),
    ]
    for (title, needle) in cases {
      try assertRefused(["add", title, "--content", "text"], mentioning: [needle])
    }
    let path = try addNote("Fine", content: "text")
    for (title, needle) in cases {
      try assertRefused(["edit", path, "--title", title], mentioning: [needle])
    }
  }

  func testNotebookNamesThatLeaveOrHideAreRefused() throws {
    let cases: [(notebook: String, needle: String)] = [
      ("../outside", "../outside"),
      ("work/../../outside", "work/../../outside"),
      ("...", "..."),
      ("work/..../x", "...."),
      ("ctl\u{1}", "U+0001"),
      ("new\nline", "U+000A"),
      (temp.file("abs").path, temp.file("abs").path),
      (".git", ".git"),
      ("work/.nb", ".nb"),
      (".hidden", ".hidden"),
    ]
    for (notebook, needle) in cases {
      try assertRefused(["add", "Title", "--notebook", notebook, "--content", "x"], mentioning: [needle])
      try assertRefused(["notebook", "create", notebook], mentioning: [needle])
    }
    let path = try addNote("Mover", content: "x")
    for (notebook, needle) in cases {
      try assertRefused(["move", path, notebook], mentioning: [needle])
    }
    // Nothing was created beside the repository either.
    XCTAssertFalse(FileManager.default.fileExists(atPath: temp.file("outside").path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: temp.file("abs").path))
  }

  func testNotebookNameEqualToAnExistingNoteIsRefused() throws {
    let path = try addNote("Ideas", content: "x")
    XCTAssertEqual(path, "inbox/ideas.md")
    try assertRefused(["add", "Other", "--notebook", "inbox/ideas", "--content", "y"], mentioning: ["inbox/ideas"])
    try assertRefused(["notebook", "create", "inbox/ideas"], mentioning: ["inbox/ideas"])
    let other = try addNote("Other", notebook: "work", content: "y")
    try assertRefused(["move", other, "inbox/ideas"], mentioning: ["inbox/ideas"])
  }

  // MARK: - NOTE arguments

  func testNoteArgumentMatchingNothingNamesTheArgument() throws {
    try addNote("Present", content: "x")
    for arguments in [
      ["edit", "absent", "--append", "x"], ["show", "absent"], ["delete", "absent"], ["move", "absent", "work"],
      ["tag", "add", "absent", "t"], ["edit", "work/absent", "--append", "x"],
    ] {
      try assertRefused(arguments, mentioning: ["absent"])
    }
  }

  func testNoteArgumentMatchingSeveralListsTheCandidates() throws {
    try addNote("Meeting", content: "one")
    try addNote("Meeting", notebook: "work", content: "two")
    for arguments in [
      ["edit", "Meeting", "--append", "x"], ["show", "Meeting"], ["delete", "Meeting"], ["move", "meeting", "archive"],
    ] {
      try assertRefused(arguments, mentioning: ["inbox/meeting.md", "work/meeting.md"])
    }
  }

  // MARK: - Paths outside the repository

  func testPathsOutsideTheRepositoryAreRefused() throws {
    let outside = temp.file("outside.md")
    let bytes = Data("---\ntitle: Outside\n---\nnot yours\n".utf8)
    try bytes.write(to: outside)
    try addNote("Inside", content: "x")
    for selector in ["../outside.md", "../outside", outside.path, "inbox/../../outside.md"] {
      try assertRefused(["edit", selector, "--append", "x"], mentioning: [selector])
      try assertRefused(["show", selector], mentioning: [selector])
      try assertRefused(["delete", selector], mentioning: [selector])
    }
    XCTAssertEqual(try Data(contentsOf: outside), bytes)
  }

  // MARK: - Encoding

  func testNoteThatIsNotUTF8IsRefusedAndUntouched() throws {
    // "café" in Latin-1: 0xE9 alone is not UTF-8.
    var latin1 = Data("---\ntitle: Latin\n---\ncaf".utf8)
    latin1.append(contentsOf: [0xE9, 0x0A])
    try write("inbox/latin.md", latin1)
    try gitCommitAll()

    try assertRefused(["edit", "inbox/latin", "--append", "x"], mentioning: ["inbox/latin.md"])
    try assertRefused(["edit", "inbox/latin", "--title", "New"], mentioning: ["inbox/latin.md"])
    let list = try assertNothingChanged("nb list") { try nb("list") }
    XCTAssertEqual(list.status, 0, list.stderr)
    XCTAssert(list.stdout.contains("inbox/latin.md"), list.stdout)
    XCTAssert(list.stderr.contains("inbox/latin.md"), list.stderr)

    // A UTF-8 note edited outside nb into something that is not UTF-8 is committed by `save` as it is, and reported.
    let path = try addNote("Clean", content: "x")
    var edited = try read(path)
    edited.append(contentsOf: [0xFF, 0xFE, 0x0A])
    try write(path, edited)
    let saved = try nb("save")
    XCTAssertEqual(saved.status, 1, saved.stderr)
    XCTAssert(saved.stderr.contains(path) && saved.stderr.contains("UTF-8"), saved.stderr)
    XCTAssertEqual(try git.statusPorcelain(), "")
    XCTAssertEqual(try read(path), edited)

    // Piped content that is not UTF-8 is refused, not silently replaced with U+FFFD.
    try assertRefused(["add", "Piped"], stdin: latin1, mentioning: ["UTF-8"])
  }
}

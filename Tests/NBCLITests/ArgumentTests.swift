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
}

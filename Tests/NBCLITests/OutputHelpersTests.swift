import Foundation
import NoteStore
import XCTest

@testable import NBCLI

/// The output helpers that stand in for Foundation's and the library's generic ones on every command's path: they
/// must give what those give.
final class OutputHelpersTests: XCTestCase {
  func testTrimmingIsTrimmingCharactersOfThatOneCharacter() {
    for text in ["", "/", "//", "/a/b/", "a", "//a//b//", "/é/", "/\u{301}a/", "a/\u{301}", "##tag#", " /a/ "] {
      for scalar: Unicode.Scalar in ["/", "#"] {
        XCTAssertEqual(
          trimming(text, scalar), text.trimmingCharacters(in: CharacterSet(charactersIn: String(scalar))),
          "\(text.debugDescription) without \(scalar)")
      }
    }
  }

  func testJoinedWithoutLookupIsJoined() {
    for parts in [[], [""], ["a"], ["a", "b"], ["", "x", ""], ["é", "日本", "#tag"]] {
      for separator in ["", " ", "  ", "/"] {
        XCTAssertEqual(joinedWithoutLookup(parts, separator: separator), parts.joined(separator: separator))
      }
    }
  }
}

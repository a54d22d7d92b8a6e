import Foundation
import InboxKit
import XCTest

@testable import NoteStore

/// The inbox model's cache file reads back exactly what was written, and nothing else.
final class InboxModelFileTests: XCTestCase {
  func testRoundTripAndRefusals() throws {
    var classifier = InboxClassifier()
    classifier.train("call the dentist about the bridge", notebook: "health")
    classifier.train("quarterly report deadline", notebook: "work/q4 plans", weight: 2.5)
    classifier.train("dentist invoice", notebook: "money\tstuff", weight: 0.1)
    let data = InboxModelFile.encode(signature: "sig|1", classifier)
    let decoded = try XCTUnwrap(InboxModelFile.decode(data, signature: "sig|1"))
    XCTAssertEqual(decoded, classifier)
    XCTAssertEqual(decoded.suggest("dentist"), classifier.suggest("dentist"))
    XCTAssertNil(InboxModelFile.decode(data, signature: "sig|2"), "another signature is stale")
    XCTAssertNil(InboxModelFile.decode(Data("nb-inbox-model 1\nsig|1\n3\tword\n".utf8), signature: "sig|1"))
    XCTAssertNil(InboxModelFile.decode(Data([0xFF, 0x00, 0x0A]), signature: "sig|1"))
    XCTAssertEqual(
      InboxModelFile.decode(Data("nb-inbox-model 1\nsig|1\n".utf8), signature: "sig|1"), InboxClassifier())
  }
}

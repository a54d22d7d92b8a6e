import Foundation
import XCTest

@testable import NoteStore

/// What nb writes to the inbox command, how it reads the answer, and the answers file: pure functions.
final class InboxCommandExchangeTests: XCTestCase {
  typealias Exchange = InboxCommandExchange

  let item = Exchange.Item(
    path: "inbox/call-the-dentist.md", id: nil, title: "call the dentist", tags: ["health/teeth", "todo"],
    text: "about the bridge\nhttps://example.com/a/b\n")

  func testTheRequestIsOneSortedJSONLineWithEveryKey() throws {
    let data = Exchange.request(
      item: item,
      candidates: [
        .init(notebook: "health", confidence: 0.91234, description: "teeth, doctors"),
        .init(notebook: "work", confidence: 0.08766, description: nil),
      ],
      notebooks: ["health", "work"])
    let text = String(decoding: data, as: UTF8.self)
    XCTAssertEqual(
      text,
      #"{"candidates":[{"confidence":0.912,"description":"teeth, doctors","notebook":"health"},"#
        + #"{"confidence":0.088,"description":null,"notebook":"work"}],"#
        + #""item":{"id":null,"path":"inbox/call-the-dentist.md","tags":["health/teeth","todo"],"#
        + #""text":"about the bridge\nhttps://example.com/a/b\n","title":"call the dentist"},"#
        + #""notebooks":["health","work"]}"# + "\n")
    XCTAssertEqual(text.filter { $0 == "\n" }.count, 1, "one line")
    let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    XCTAssertEqual(Set(object.keys), ["item", "candidates", "notebooks"])
  }

  func testTheAnswerIsTheFirstNonEmptyLine() {
    XCTAssertEqual(Exchange.reading(Data("health\n".utf8)), .answer(.init(notebook: "health", confidence: nil)))
    XCTAssertEqual(
      Exchange.reading(Data("\n  \n  work/projects  \nignored\n".utf8)),
      .answer(.init(notebook: "work/projects", confidence: nil)))
    XCTAssertEqual(Exchange.reading(Data("health\t0.75".utf8)), .answer(.init(notebook: "health", confidence: 0.75)))
    XCTAssertEqual(Exchange.reading(Data("health \t 1\r\n".utf8)), .answer(.init(notebook: "health", confidence: 1)))
    XCTAssertEqual(Exchange.reading(Data("a\tb\t0\n".utf8)), .answer(.init(notebook: "a\tb", confidence: 0)))
    XCTAssertEqual(
      Exchange.reading(Data("Notes Of Mine\n".utf8)), .answer(.init(notebook: "Notes Of Mine", confidence: nil)))
    XCTAssertEqual(Exchange.reading(Data()), .unreadable("printed no notebook"))
    XCTAssertEqual(Exchange.reading(Data(" \n\t\n".utf8)), .unreadable("printed no notebook"))
    XCTAssertEqual(Exchange.reading(Data("health\t \n".utf8)), .answer(.init(notebook: "health", confidence: nil)))
    for bad in ["health\t1.5", "health\t-0.1", "health\tsure", "health\tnan", "health\t0.5 sure"] {
      guard case .unreadable(let why) = Exchange.reading(Data(bad.utf8)) else {
        XCTFail("\(bad) read as an answer")
        continue
      }
      XCTAssertTrue(why.contains("is not a confidence from 0 to 1"), why)
    }
    XCTAssertEqual(Exchange.reading(Data("\t0.5".utf8)), .unreadable("printed a confidence but no notebook"))
  }

  func testAnAnswerNamesAnAllowedNotebookOrNone() {
    let bins: Set = ["health", "work/projects", "Work", "work"]
    func pick(_ name: String) -> String? { Exchange.notebook(.init(notebook: name, confidence: nil), among: bins) }
    XCTAssertEqual(pick("health"), "health")
    XCTAssertEqual(pick("/health/"), "health")
    XCTAssertEqual(pick("HEALTH"), "health", "one notebook differs in case alone")
    XCTAssertEqual(pick("work"), "work")
    XCTAssertNil(pick("WORK"), "two notebooks differ from it in case alone")
    XCTAssertEqual(pick("work/Projects"), "work/projects")
    XCTAssertNil(pick("inbox"))
    XCTAssertNil(pick("projects"))
  }

  func testTheKeyChangesWithWhatTheAnswerDependsOnAlone() {
    let bins: [Exchange.Candidate] = [
      .init(notebook: "work", confidence: 0.2, description: nil),
      .init(notebook: "health", confidence: 0.8, description: "teeth"),
    ]
    let key = Exchange.keyMaterial(arguments: ["llm", "--model", "x"], item: item, notebooks: bins)
    // The ranking's order and numbers, the item's path and id do not count.
    var moved = item
    moved.path = "inbox/elsewhere.md"
    moved.id = "3f2a0000-0000-4000-8000-000000000000"
    let reranked = bins.reversed().map {
      Exchange.Candidate(notebook: $0.notebook, confidence: 0.5, description: $0.description)
    }
    XCTAssertEqual(Exchange.keyMaterial(arguments: ["llm", "--model", "x"], item: moved, notebooks: reranked), key)
    // Everything else does.
    var others: [Data] = []
    others.append(Exchange.keyMaterial(arguments: ["llm", "--model x"], item: item, notebooks: bins))
    others.append(Exchange.keyMaterial(arguments: ["llm", "--model", "y"], item: item, notebooks: bins))
    for change in [\Exchange.Item.title, \.text] {
      var edited = item
      edited[keyPath: change] += "!"
      others.append(Exchange.keyMaterial(arguments: ["llm", "--model", "x"], item: edited, notebooks: bins))
    }
    var retagged = item
    retagged.tags = ["health/teeth"]
    others.append(Exchange.keyMaterial(arguments: ["llm", "--model", "x"], item: retagged, notebooks: bins))
    others.append(
      Exchange.keyMaterial(arguments: ["llm", "--model", "x"], item: item, notebooks: Array(bins.prefix(1))))
    var described = bins
    described[0].description = "reports"
    others.append(Exchange.keyMaterial(arguments: ["llm", "--model", "x"], item: item, notebooks: described))
    XCTAssertEqual(Set(others + [key]).count, others.count + 1, "each change makes another key")
  }

  func testTheAnswersFileReadsBackAndSkipsWhatDoesNotRead() throws {
    let a = String(repeating: "a", count: 64)
    let b = String(repeating: "b", count: 64)
    let c = String(repeating: "c", count: 64)
    XCTAssertEqual(Exchange.cacheLine(key: a, .init(notebook: "work", confidence: nil)), "\(a)\t-\twork\n")
    XCTAssertEqual(Exchange.cacheLine(key: b, .init(notebook: "x\ty", confidence: 0.25)), "\(b)\t0.25\tx\ty\n")
    let file =
      Exchange.cacheHeader + "\n" + Exchange.cacheLine(key: a, .init(notebook: "work", confidence: nil))
      + Exchange.cacheLine(key: b, .init(notebook: "x\ty", confidence: 0.25))
      + "short\t-\twork\n" + "\(c)\t2\twork\n" + "\(c)\t-\t\n" + "\(c)\tx\n"
      + Exchange.cacheLine(key: a, .init(notebook: "health", confidence: 1)) + "\(c)\t0.5\tcut sho"
    let entries = try XCTUnwrap(Exchange.cacheEntries(Data(file.utf8)))
    XCTAssertEqual(entries.map(\.key), [a, b, a, c])
    XCTAssertEqual(
      entries.map(\.answer),
      [
        .init(notebook: "work", confidence: nil), .init(notebook: "x\ty", confidence: 0.25),
        .init(notebook: "health", confidence: 1), .init(notebook: "cut sho", confidence: 0.5),
      ])
    XCTAssertNil(Exchange.cacheEntries(Data("nb-inbox-command-answers 2\n".utf8)), "another version")
    XCTAssertNil(Exchange.cacheEntries(Data()))
    XCTAssertEqual(Exchange.cacheEntries(Data((Exchange.cacheHeader + "\n").utf8))?.count, 0)

    // Rewritten: the newest answer per key, the newest keys first kept, oldest first.
    let whole = String(decoding: Exchange.cacheFile(entries, limit: 2), as: UTF8.self)
    XCTAssertEqual(whole, Exchange.cacheHeader + "\n" + "\(a)\t1.0\thealth\n" + "\(c)\t0.5\tcut sho\n")
    XCTAssertEqual(Exchange.cacheEntries(Data(whole.utf8))?.map(\.key), [a, c])
  }

  func testTheTextIsCutBetweenScalars() {
    XCTAssertEqual(Exchange.capped("héllo", limit: 10), "héllo")
    XCTAssertEqual(Exchange.capped("héllo", limit: 2), "h", "é is two bytes: not cut in half")
    XCTAssertEqual(Exchange.capped("héllo", limit: 3), "hé")
    XCTAssertEqual(Exchange.capped("a😀b", limit: 4), "a")
    XCTAssertEqual(
      Exchange.capped(String(repeating: "x", count: Exchange.textLimit + 5)).utf8.count, Exchange.textLimit)
  }
}

import XCTest

@testable import InboxKit

final class CentroidClassifierTests: XCTestCase {
  func testTermsAreWordsThenCharacterGrams() {
    XCTAssertEqual(
      InboxCentroidClassifier.terms("Tax"),
      ["tax", "#<ta", "#tax", "#ax>", "#<tax", "#tax>"])
    XCTAssertEqual(InboxCentroidClassifier.terms(""), [])
  }

  func testAddThenRemoveGivesBackTheExactCounts() {
    var classifier = InboxCentroidClassifier()
    classifier.train("quarterly budget review", notebook: "work")
    classifier.train("kitchen sink", notebook: "home")
    let before = classifier
    classifier.train("budget invoices", notebook: "work", weight: 0.37)
    classifier.train("new notebook", notebook: "new", weight: 3)
    classifier.train("new notebook", notebook: "new", weight: -3)
    classifier.train("budget invoices", notebook: "work", weight: -0.37)
    XCTAssertEqual(classifier, before)
  }

  func testSuggestsByWordFormsToo() {
    var classifier = InboxCentroidClassifier()
    classifier.train("send the invoices to the accountant", notebook: "work")
    classifier.train("kitchen renovation quotes", notebook: "home")
    let candidates = classifier.suggest("invoice for accounting")
    XCTAssertEqual(candidates.first?.notebook, "work")
    XCTAssertEqual(candidates.map(\.probability).reduce(0, +), 1, accuracy: 1e-12)
    XCTAssertEqual(classifier.suggest("", among: ["home", "work", "other"]).map(\.probability), [1 / 3, 1 / 3, 1 / 3])
    XCTAssertEqual(InboxCentroidClassifier().suggest("x"), [])
  }

  func testComparedWithNaiveBayesOnTheSyntheticCorpus() {
    let corpus = SyntheticCorpus.make(count: 500, seed: 7)
    let bayes = Evaluation.run(corpus, seed: 42, model: InboxClassifier.self)
    let centroid = Evaluation.run(corpus, seed: 42, model: InboxCentroidClassifier.self)
    print("naive Bayes:", bayes)
    print("centroid:", centroid)
    XCTAssertEqual(bayes, Evaluation.run(corpus, seed: 42))
    XCTAssertGreaterThan(centroid.top1, 0.5)
  }

  func testCalibrationOnASyntheticCorpus() {
    let corpus = SyntheticCorpus.make(count: 1000, seed: 99)
    var classifier = InboxCentroidClassifier()
    for item in corpus[..<500] { classifier.train(item.text, notebook: item.notebook) }
    var bins = Array(repeating: (right: 0, all: 0), count: 5)
    for item in corpus[500...] {
      guard let top = classifier.suggest(item.text).first else { return XCTFail("no suggestion") }
      let bin = min(Int(top.probability * 5), 4)
      bins[bin].all += 1
      bins[bin].right += top.notebook == item.notebook ? 1 : 0
    }
    print("centroid calibration bins (top probability in fifths: right/all):", bins)
    XCTAssertGreaterThan(bins[4].all, 50)
    XCTAssertGreaterThanOrEqual(Double(bins[4].right) / Double(bins[4].all), 0.8)
  }
}

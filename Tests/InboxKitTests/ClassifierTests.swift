import XCTest

@testable import InboxKit

final class ClassifierTests: XCTestCase {
  static func handMade() -> InboxClassifier {
    var classifier = InboxClassifier()
    classifier.train("Quarterly budget review meeting", notebook: "work")
    classifier.train("Project deadline: meeting with the client", notebook: "work")
    classifier.train("Send the invoice to the client", notebook: "work")
    classifier.train("Fix the kitchen sink", notebook: "home")
    classifier.train("Buy groceries: milk, eggs, bread", notebook: "home")
    classifier.train("Call the plumber about the sink", notebook: "home")
    classifier.train("Dentist appointment for the bridge", notebook: "health")
    classifier.train("Doctor checkup and blood test", notebook: "health")
    return classifier
  }

  /// A store of counts hands the classifier only the rows of the features it asks about: the answer must be the
  /// whole model's, for suggestions (among all or some notebooks) and explanations alike.
  func testASliceAnswersAsTheWholeModel() {
    let whole = Self.handMade()
    for text in ["budget meeting with the plumber", "blood test", "sink", "zebra", ""] {
      let features = Set(InboxText.features(text))
      let sliced = whole.notebooks.mapValues { counts in
        NotebookCounts(
          terms: counts.terms.filter { features.contains($0.key) }, total: counts.total, documents: counts.documents)
      }
      let slice = InboxClassifier(slice: sliced, vocabularySize: whole.vocabulary.count)
      XCTAssertEqual(slice.vocabularySize, whole.vocabularySize, text)
      XCTAssertEqual(slice.suggest(text), whole.suggest(text), text)
      XCTAssertEqual(slice.suggest(text, among: ["home", "health"]), whole.suggest(text, among: ["home", "health"]))
      for notebook in ["work", "home", "health"] {
        XCTAssertEqual(
          slice.explain(text, notebook: notebook).map(\.feature), whole.explain(text, notebook: notebook).map(\.feature))
        XCTAssertEqual(
          slice.explain(text, notebook: notebook).map(\.weight), whole.explain(text, notebook: notebook).map(\.weight))
      }
    }
    XCTAssertEqual(InboxClassifier(slice: [:], vocabularySize: 7).vocabularySize, 7)
  }

  func testTrainingCounts() {
    var classifier = InboxClassifier()
    classifier.train("apple banana apple", notebook: "a")
    classifier.train("cherry", notebook: "b", weight: 2)
    XCTAssertEqual(
      classifier.notebooks["a"],
      NotebookCounts(
        terms: ["apple": 2, "banana": 1, "apple banana": 1, "banana apple": 1], total: 5, documents: 1))
    XCTAssertEqual(classifier.notebooks["b"], NotebookCounts(terms: ["cherry": 2], total: 2, documents: 2))
  }

  func testAddThenRemoveGivesBackTheExactCounts() throws {
    var classifier = Self.handMade()
    let before = classifier
    let weight = InboxClassifier.decisionWeight(base: InboxClassifier.correctionWeight, age: 97 * 86_400)
    classifier.train("Dentist bill for the bridge", notebook: "health", weight: InboxClassifier.acceptedWeight)
    classifier.train("kitchen sink leak again", notebook: "work", weight: weight)
    classifier.train("a brand new notebook", notebook: "new", weight: 0.1)
    XCTAssertNotEqual(classifier, before)
    classifier.train("a brand new notebook", notebook: "new", weight: -0.1)
    classifier.train("Dentist bill for the bridge", notebook: "health", weight: -InboxClassifier.acceptedWeight)
    classifier.train("kitchen sink leak again", notebook: "work", weight: -weight)
    XCTAssertEqual(classifier, before)
    XCTAssertNil(classifier.notebooks["new"])
    // Round trip through JSON (the caller may cache the model) keeps it equal too.
    let data = try JSONEncoder().encode(classifier)
    XCTAssertEqual(try JSONDecoder().decode(InboxClassifier.self, from: data), before)
  }

  func testRemovingMoreThanWasAddedStopsAtZero() {
    var classifier = InboxClassifier()
    classifier.train("apple", notebook: "a")
    classifier.train("apple banana", notebook: "a", weight: -5)
    XCTAssertNil(classifier.notebooks["a"])
    classifier.train("apple", notebook: "a", weight: .nan)
    classifier.train("apple", notebook: "a", weight: .infinity)
    classifier.train("apple", notebook: "a", weight: 0.0001)
    XCTAssertEqual(classifier, InboxClassifier())
  }

  func testProbabilityWorkedOutByHand() throws {
    var classifier = InboxClassifier()
    classifier.train("apple banana", notebook: "a")
    classifier.train("cherry", notebook: "b")
    // Vocabulary {apple, banana, apple banana, cherry}: V = 4; equal priors. P(apple|a) = 2/7, P(apple|b) = 1/5;
    // one feature, so p(a) = 1 / (1 + ((1/5) / (2/7))^12) = 1 / (1 + 0.7^12) = 1 / 1.013841287201.
    let candidates = classifier.suggest("apple")
    XCTAssertEqual(candidates.map(\.notebook), ["a", "b"])
    XCTAssertEqual(candidates[0].probability, 1 / 1.013841287201, accuracy: 1e-12)
    XCTAssertEqual(candidates[1].probability, 0.013841287201 / 1.013841287201, accuracy: 1e-12)
    // Unknown words are ignored: the priors alone, equal here, ties by name.
    XCTAssertEqual(
      classifier.suggest("zebra"),
      [.init(notebook: "a", probability: 0.5), .init(notebook: "b", probability: 0.5)])
  }

  func testSuggestionsOnAHandMadeCorpus() {
    let classifier = Self.handMade()
    XCTAssertEqual(classifier.suggest("budget meeting on Monday").first?.notebook, "work")
    XCTAssertEqual(classifier.suggest("the sink is leaking").first?.notebook, "home")
    XCTAssertEqual(classifier.suggest("blood test results from the doctor").first?.notebook, "health")
    XCTAssertEqual(classifier.suggest("invoice the client").first?.notebook, "work")
    let restricted = classifier.suggest("budget meeting", among: ["home", "health"])
    XCTAssertEqual(Set(restricted.map(\.notebook)), ["home", "health"])
    let withNew = classifier.suggest("budget meeting", among: ["work", "brand-new"])
    XCTAssertEqual(withNew.map(\.notebook), ["work", "brand-new"])
    for text in ["", "budget", "sink dentist client"] {
      let probabilities = classifier.suggest(text).map(\.probability)
      XCTAssertEqual(probabilities.reduce(0, +), 1, accuracy: 1e-12)
      XCTAssertTrue(probabilities.allSatisfy { $0 >= 0 && $0 <= 1 })
      XCTAssertEqual(probabilities, probabilities.sorted(by: >))
    }
  }

  func testACorrectionOutweighsAnOrdinaryNote() {
    var classifier = InboxClassifier()
    classifier.train("schedule call with the client", notebook: "work")
    classifier.train("schedule call about the contract", notebook: "work")
    classifier.train("client contract renewal call", notebook: "work")
    classifier.train("schedule call with the team", notebook: "work")
    classifier.train("schedule call for the release", notebook: "work")
    classifier.train("plumber quote for the bathroom", notebook: "home")
    classifier.train("bathroom tiles", notebook: "home")
    classifier.train("trim the garden hedge and paint the fence", notebook: "home")
    classifier.train("replace the boiler filter, vacuum the stairs", notebook: "home")
    let item = "schedule call with plumber"
    XCTAssertEqual(classifier.suggest(item).first?.notebook, "work")
    var asNote = classifier
    asNote.train(item, notebook: "home", weight: InboxClassifier.noteWeight)
    XCTAssertEqual(asNote.suggest("schedule call with plumber tomorrow").first?.notebook, "work")
    var corrected = classifier
    corrected.train(item, notebook: "home", weight: InboxClassifier.correctionWeight)
    XCTAssertEqual(corrected.suggest("schedule call with plumber tomorrow").first?.notebook, "home")
  }

  func testDecisionWeightHalvesEveryHalfLife() {
    let halfLife = InboxClassifier.decisionHalfLife
    XCTAssertEqual(halfLife, 180 * 86_400)
    XCTAssertEqual(InboxClassifier.decisionWeight(base: 3, age: 0), 3)
    XCTAssertEqual(InboxClassifier.decisionWeight(base: 3, age: halfLife), 1.5, accuracy: 1e-12)
    XCTAssertEqual(InboxClassifier.decisionWeight(base: 3, age: 2 * halfLife), 0.75, accuracy: 1e-12)
    XCTAssertEqual(InboxClassifier.decisionWeight(base: 3, age: -86_400), 3)
    XCTAssertEqual(InboxClassifier.decisionWeight(base: 3, age: .infinity), 0)
    XCTAssertEqual(InboxClassifier.decisionWeight(base: 3, age: .nan), 3)
    XCTAssertEqual(InboxClassifier.decisionWeight(base: .nan, age: 1), 0)
  }

  func testExplainNamesTheExpectedWords() {
    let classifier = Self.handMade()
    let reasons = classifier.explain("dentist appointment next week", notebook: "health")
    XCTAssertEqual(Set(reasons.prefix(3).map(\.feature)), ["dentist", "appointment", "dentist appointment"])
    XCTAssertTrue(reasons.allSatisfy { $0.weight > 0 })
    XCTAssertEqual(reasons.map(\.weight), reasons.map(\.weight).sorted(by: >))
    XCTAssertEqual(classifier.explain("dentist appointment", notebook: "work").map(\.feature), [])
    XCTAssertEqual(classifier.explain("dentist appointment", notebook: "health", top: 1).count, 1)
    XCTAssertEqual(classifier.explain("dentist appointment", notebook: "health", top: -1).count, 0)
  }

  func testGarbageNeverTrapsOrMakesNaN() {
    XCTAssertEqual(InboxClassifier().suggest("anything"), [])
    XCTAssertEqual(InboxClassifier().suggest("anything", among: []), [])
    var classifier = InboxClassifier()
    classifier.train("", notebook: "empty")
    classifier.train("!!! ??? 123", notebook: "numbers")
    let candidates = classifier.suggest("some words")
    XCTAssertEqual(candidates.map(\.notebook), ["empty", "numbers"])
    XCTAssertTrue(candidates.allSatisfy { $0.probability == 0.5 })
    classifier = ClassifierTests.handMade()
    let huge = String(repeating: "budget meeting \u{0}\u{7} ÿ ", count: 500_000)
    let suggestion = classifier.suggest(huge)
    XCTAssertEqual(suggestion.first?.notebook, "work")
    XCTAssertTrue(suggestion.allSatisfy { $0.probability.isFinite })
    XCTAssertTrue(classifier.explain(huge, notebook: "work").allSatisfy { $0.weight.isFinite })
  }

  func testSuggestOnALargerModel() {
    // Measured, not asserted (a debug build on a shared machine): the cost is one pass over the vocabulary.
    let corpus = SyntheticCorpus.make(count: 5000, seed: 5)
    var classifier = InboxClassifier()
    var start = Date()
    for item in corpus { classifier.train(item.text, notebook: item.notebook) }
    let training = Date().timeIntervalSince(start)
    start = Date()
    for item in corpus.prefix(100) { XCTAssertEqual(classifier.suggest(item.text).count, 5) }
    let perSuggestion = Date().timeIntervalSince(start) / 100
    let vocabulary = Set(classifier.notebooks.values.flatMap(\.terms.keys)).count
    print("5000 items trained in \(training) s; vocabulary \(vocabulary); one suggestion \(perSuggestion * 1000) ms")
  }

  func testCalibrationOnASyntheticCorpus() {
    let corpus = SyntheticCorpus.make(count: 1000, seed: 99)
    var classifier = InboxClassifier()
    for item in corpus[..<500] { classifier.train(item.text, notebook: item.notebook) }
    var bins = Array(repeating: (right: 0, all: 0), count: 5)
    var confident = (right: 0, all: 0)
    for item in corpus[500...] {
      guard let top = classifier.suggest(item.text).first else { return XCTFail("no suggestion") }
      let right = top.notebook == item.notebook
      let bin = min(Int(top.probability * 5), 4)
      bins[bin].all += 1
      bins[bin].right += right ? 1 : 0
      if top.probability >= 0.8 {
        confident.all += 1
        confident.right += right ? 1 : 0
      }
    }
    print("calibration bins (top probability in fifths: right/all):", bins)
    XCTAssertGreaterThan(confident.all, 50)
    XCTAssertGreaterThanOrEqual(Double(confident.right) / Double(confident.all), 0.8)
  }
}

// `nb-bench --inbox [--corpus DIR]`: the inbox classifier's accuracy on a labelled corpus (each top-level folder a
// notebook), beside scikit-learn's MultinomialNB on the same split and features in the same run; then the speed of
// `nb capture`, `nb inbox` and one suggestion at 10 000 notes in 100 notebooks.
import Foundation
import InboxKit
import NoteStore

func inboxBenchmark(options: Options) throws {
  let corpus: [(notebook: String, text: String)]
  let label: String
  if let directory = options.corpus {
    corpus = try labelledCorpus(directory)
    label = "\(directory) (\(corpus.count) notes, \(Set(corpus.map(\.notebook)).count) folders)"
  } else {
    corpus = generatedInboxCorpus(notebooks: 20, perNotebook: 50, seed: options.seed)
    label = "generated (\(corpus.count) notes, 20 notebooks)"
  }
  print("\n### Accuracy: \(label), seed \(options.seed), train on 80 %, then file the rest one at a time\n")
  print("| classifier | top-1 | top-3 | first quarter top-1 | last quarter top-1 |")
  print("|---|---:|---:|---:|---:|")
  func row(_ name: String, _ result: EvaluationResult) {
    print(
      String(
        format: "| %@ | %.3f | %.3f | %.3f | %.3f |", name, result.top1, result.top3, result.firstQuarterTop1,
        result.lastQuarterTop1))
  }
  row("nb: naive Bayes, words + word pairs (the default)", Evaluation.run(corpus, seed: options.seed))
  row(
    "nb: TF-IDF nearest centroid, words + character 3–4-grams",
    Evaluation.run(corpus, seed: options.seed, model: InboxCentroidClassifier.self))
  if options.quick {
    print("| scikit-learn MultinomialNB | not run (--quick) | | | |")
  } else if let baseline = try scikitBaseline(corpus, seed: options.seed) {
    row("scikit-learn MultinomialNB, same split, features and weights", baseline)
  } else {
    print("| scikit-learn MultinomialNB | n/a (python3-sklearn not installed) | | | |")
  }
  fflush(stdout)
  try inboxSpeed(options: options)
}

/// Every `.md` file below `directory`, labelled by its top-level folder (files at the top are left out).
private func labelledCorpus(_ directory: String) throws -> [(notebook: String, text: String)] {
  var result: [(notebook: String, text: String)] = []
  let root = URL(fileURLWithPath: directory).standardizedFileURL
  guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
  for case let url as URL in enumerator where url.pathExtension == "md" {
    let relative = url.standardizedFileURL.path.dropFirst(root.path.count + 1)
    let parts = relative.split(separator: "/")
    guard parts.count >= 2, let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
    result.append((String(parts[0]), url.deletingPathExtension().lastPathComponent + "\n" + text))
  }
  return result.sorted { ($0.notebook, $0.text) < ($1.notebook, $1.text) }
}

/// Notes of `notebooks` topics: each topic has words of its own, every note also words shared by all.
private func generatedInboxCorpus(notebooks: Int, perNotebook: Int, seed: UInt64) -> [(notebook: String, text: String)] {
  var generator = SplitMix64(seed: seed)
  func word(_ topic: Int, _ n: UInt64) -> String { "t\(topic)w\(n % 40)" }
  let shared = (0..<200).map { "common\($0)" }
  var corpus: [(notebook: String, text: String)] = []
  for topic in 0..<notebooks {
    for _ in 0..<perNotebook {
      var words: [String] = []
      for _ in 0..<12 {
        let roll = generator.next() % 10
        if roll < 4 {
          words.append(word(topic, generator.next()))
        } else if roll < 5 {
          words.append(word(Int(generator.next() % UInt64(notebooks)), generator.next()))
        } else {
          words.append(shared[Int(generator.next() % UInt64(shared.count))])
        }
      }
      corpus.append(("notebook-\(topic)", words.joined(separator: " ")))
    }
  }
  return corpus
}

/// The same replay with scikit-learn (hashed counts of the same features, MultinomialNB, `partial_fit` with the
/// same weights), when python3 has it; nil otherwise.
private func scikitBaseline(_ corpus: [(notebook: String, text: String)], seed: UInt64) throws -> EvaluationResult? {
  var items = corpus
  var generator = SplitMix64(seed: seed)
  Evaluation.shuffle(&items, using: &generator)
  let trainCount = Int((Double(items.count) * 0.8).rounded(.down))
  let rows = items.map { ["label": $0.notebook, "features": InboxText.features($0.text).joined(separator: "\u{1F}")] }
  let file = FileManager.default.temporaryDirectory.appendingPathComponent("nb-bench-inbox-\(getpid()).json")
  defer { try? FileManager.default.removeItem(at: file) }
  try JSONSerialization.data(withJSONObject: ["train": trainCount, "items": rows]).write(to: file)
  let accepted = InboxClassifier.noteWeight + InboxClassifier.acceptedWeight
  let corrected = InboxClassifier.noteWeight + InboxClassifier.correctionWeight
  let script = """
    import json, sys
    import numpy as np
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.naive_bayes import MultinomialNB
    data = json.load(open(sys.argv[1]))
    items, n = data['items'], data['train']
    vec = HashingVectorizer(analyzer=lambda s: [f for f in s.split('\\x1f') if f], alternate_sign=False,
                            norm=None, n_features=2**20)
    X = vec.transform([i['features'] for i in items])
    y = np.array([i['label'] for i in items])
    classes = np.array(sorted(set(y)))
    model = MultinomialNB(alpha=1.0)
    model.partial_fit(X[:n], y[:n], classes=classes)
    hits1, hits3 = [], []
    for k in range(n, len(items)):
        probs = model.predict_proba(X[k])[0]
        ranked = [model.classes_[j] for j in np.argsort(-probs, kind='stable')[:3]]
        hits1.append(ranked[0] == y[k]); hits3.append(y[k] in ranked)
        model.partial_fit(X[k], [y[k]], sample_weight=[\(accepted) if ranked[0] == y[k] else \(corrected)])
    q = max(1, len(hits1) // 4)
    rate = lambda h: sum(h) / len(h) if h else 0
    print(json.dumps([len(hits1), rate(hits1), rate(hits3), rate(hits1[-q:]), rate(hits1[:q])]))
    """
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
  process.arguments = ["-c", script, file.path]
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = FileHandle.nullDevice
  guard (try? process.run()) != nil else { return nil }
  let output = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0,
    let values = try JSONSerialization.jsonObject(with: output) as? [Double], values.count == 5
  else { return nil }
  return EvaluationResult(
    items: Int(values[0]), top1: values[1], top3: values[2], lastQuarterTop1: values[3], firstQuarterTop1: values[4])
}

/// `nb capture`, `nb inbox` with 200 items, and one suggestion in the library, at 10 000 notes in 100 notebooks.
private func inboxSpeed(options: Options) throws {
  // --quick: 10 notebooks of 10 (notebook-7 and 20 items still exist for the commands below).
  let (notebooks, perNotebook) = options.quick ? (10, 10) : (100, 100)
  let root = "\(options.workDirectory)/inbox-\(notebooks * perNotebook)"
  try? FileManager.default.removeItem(atPath: root)
  _ = try NoteRepository.initialize(at: URL(fileURLWithPath: root))
  let corpus = generatedInboxCorpus(notebooks: notebooks, perNotebook: perNotebook, seed: options.seed)
  for (index, note) in corpus.enumerated() {
    let directory = "\(root)/\(note.notebook)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try """
      ---
      id: \(UUID().uuidString.lowercased())
      title: Note \(index)
      created: 2026-11-01T10:00:00+01:00
      updated: 2026-11-01T10:00:00+01:00
      ---
      \(note.text)

      """.write(toFile: "\(directory)/note-\(index).md", atomically: false, encoding: .utf8)
  }
  try FileManager.default.createDirectory(atPath: "\(root)/inbox", withIntermediateDirectories: true)
  let items = generatedInboxCorpus(notebooks: notebooks, perNotebook: 2, seed: options.seed + 1)
  for (index, item) in items.enumerated() {
    try """
      ---
      id: \(UUID().uuidString.lowercased())
      title: Item \(index)
      created: 2026-11-20T10:00:00+01:00
      updated: 2026-11-20T10:00:00+01:00
      status: pending
      captured: 2026-11-20T10:00:00+01:00
      ---
      \(item.text)

      """.write(toFile: "\(root)/inbox/item-\(index).md", atomically: false, encoding: .utf8)
  }
  _ = must(spawn(["git", "add", "-A"], cwd: root), "git add -A")
  _ = must(spawn(["git", "commit", "-q", "-m", "bench: inbox"], cwd: root), "git commit")
  let nb = [options.nbBinary, "--dir", root]
  let first = must(spawn(nb + ["inbox", "--json"], cwd: root), "first nb inbox")
  var rows: [Row] = [Row(name: "first nb inbox (builds the index and the counts)", p50: first.seconds, p95: first.seconds)]
  func measure(_ name: String, _ arguments: (Int) -> [String]) {
    var times: [Double] = []
    for i in 0..<options.samples { times.append(must(spawn(arguments(i), cwd: root), name).seconds) }
    rows.append(Row(name: name, p50: percentile(times, 0.5), p95: percentile(times, 0.95), rssKiB: peakRSSKiB(arguments(0))))
  }
  measure("nb inbox --json (200 pending items)") { _ in nb + ["inbox", "--json"] }
  measure("nb inbox why (one item)") { _ in nb + ["inbox", "why", "inbox/item-7.md"] }
  let notes = try NoteRepository.open(at: URL(fileURLWithPath: root))
  let item = try notes.resolve("inbox/item-3.md")
  _ = try notes.advice(for: item)
  var library: [Double] = []
  for _ in 0..<options.samples { library.append(try time { _ = try notes.advice(for: item) }) }
  rows.append(Row(name: "library: advice(for:) one item", p50: percentile(library, 0.5), p95: percentile(library, 0.95)))
  // Captures and adds change the notes (each counted in as the index follows it): measured last.
  measure("nb capture (process)") { i in nb + ["capture", "a thought to file number \(i)"] }
  measure("nb add to a notebook (process; its counts kept)") { i in
    nb + ["add", "Added \(i)", "--notebook", "notebook-7", "--content", "t7w3 t7w9 extra words \(i)"]
  }
  let after = must(spawn(nb + ["inbox", "--json"], cwd: root), "nb inbox after captures")
  rows.append(Row(name: "nb inbox after the captures and adds", p50: after.seconds, p95: after.seconds))
  report(size: corpus.count, rows: rows)
  if !options.keep { try? FileManager.default.removeItem(atPath: root) }
}

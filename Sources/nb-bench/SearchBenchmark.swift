import Foundation
import NBTestSupport
import NoteStore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `nb search`, listing and counting against `rg -l -i` and `git grep -l -i` on the same tree, on a generated vault
/// of each size (or on a copy of `--corpus DIR`): p50 and p95 process wall times, peak memory, result counts, how
/// fast nb sees an edit made outside it, and the index's size next to the notes' text.
func searchBenchmark(options: Options) throws {
  if let corpus = options.corpus {
    try searchBenchmark(label: "corpus \(corpus)", directory: "search-corpus", options: options) { root in
      try CopiedCorpus.copy(from: corpus, to: root)
    }
    return
  }
  for size in options.sizes {
    let label = "\(size) notes, generated (seed \(options.seed))"
    try searchBenchmark(label: label, directory: "search-\(size)", options: options) { root in
      try SyntheticCorpus.write(at: root, count: size, seed: options.seed)
    }
  }
}

/// One line of a search table; `missing` says why a row has no figures (a command or flag this nb lacks).
private struct SearchRow {
  var name: String
  var p50: Double = .nan
  var p95: Double = .nan
  var rssKiB: Int?
  var results: String = ""
  var rg: Double?
  var gitGrep: Double?
  var missing: String?
}

private func searchBenchmark(
  label: String, directory: String, options: Options, make: (String) throws -> SearchCorpus
) throws {
  let root = "\(options.workDirectory)/\(directory)"
  let nb = options.nbBinary
  try? FileManager.default.removeItem(atPath: root)
  try FileManager.default.createDirectory(atPath: options.workDirectory, withIntermediateDirectories: true)
  _ = must(spawn([nb, "init", root], cwd: options.workDirectory), "nb init")
  var corpus: SearchCorpus!
  let generate = try time { corpus = try make(root) }
  let commit = time {
    _ = must(spawn(["git", "add", "-A"], cwd: root), "git add -A")
    _ = must(spawn(["git", "commit", "-q", "-m", "bench: search corpus"], cwd: root), "git commit")
  }
  let terms = corpus.terms
  let count = corpus.paths.count
  FileHandle.standardError.write(
    Data(
      ("wrote \(count) notes (\(mib(corpus.textBytes)) MiB) in \(String(format: "%.1f", generate)) s, "
        + "git add -A && git commit in \(String(format: "%.1f", commit)) s\n").utf8))
  if options.corpusOnly {
    let phrase = terms.phrase.joined(separator: " ")
    print(
      "\(root): rare \(terms.rare), common \(terms.common), phrase \"\(phrase)\", prefix \(terms.prefix)*, "
        + "tag \(terms.tag ?? "n/a")")
    return
  }
  let samples = max(1, options.samples)
  let output = "\(options.workDirectory)/search-output.txt"
  let errors = "\(options.workDirectory)/search-errors.txt"
  var rows: [SearchRow] = []

  /// What a finished run printed: the number it printed when that is all it printed (a count), else its lines.
  func results() -> String {
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    // nb search prints a snippet under each note, indented: only unindented lines are results.
    let lines = text.split(separator: "\n", omittingEmptySubsequences: true).filter { !$0.hasPrefix(" ") }
    if lines.count == 1, let number = Int(lines[0].trimmingCharacters(in: .whitespaces)) { return "\(number)" }
    return "\(lines.count)"
  }
  /// Runs `arguments` `samples` times (exit 0, or 1 for "nothing found"); a row with `missing` when the first run
  /// fails otherwise, as a command or flag this nb does not have yet does.
  func measure(_ name: String, _ arguments: [String], runs: Int? = nil) -> SearchRow {
    let first = spawn(arguments, cwd: root, output: output, errors: errors)
    guard first.status == 0 || first.status == 1 else {
      var message = ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").split(separator: "\n").first
        .map(String.init)
      // Every nb command takes --dir, so the parser blaming it means the command itself is unknown.
      if message?.contains("'--dir'") == true { message = "no such command" }
      let reason = message.map { ": " + $0.replacingOccurrences(of: "|", with: "\\|") } ?? ""
      return SearchRow(name: name, missing: "n/a (exit \(first.status)\(reason))")
    }
    let found = results()
    var times: [Double] = []
    for _ in 0..<(runs ?? samples) { times.append(spawn(arguments, cwd: root).seconds) }
    let rssArguments = arguments[0] == "git" ? ["git", "-C", root] + arguments.dropFirst() : arguments
    return SearchRow(
      name: name, p50: percentile(times, 0.5), p95: percentile(times, 0.95), rssKiB: peakRSSKiB(rssArguments),
      results: found)
  }
  // `--dir` last: before an unknown subcommand, the parser would blame `--dir` rather than the subcommand.
  func nbArguments(_ arguments: [String]) -> [String] { [nb] + arguments + ["--dir", root] }

  // The very first command after the repository was made: whatever nb builds on first use, it builds here.
  let cold = spawn(nbArguments(["search", terms.rare]), cwd: root, output: output)
  rows.append(
    SearchRow(
      name: "first nb search after creation (cold: nothing in .git/nb yet)", p50: cold.seconds, p95: cold.seconds,
      results: cold.status == 0 ? results() : "exit \(cold.status)"))
  // A full rebuild, when this nb has the command.
  rows.append(measure("nb reindex (full rebuild)", nbArguments(["reindex"]), runs: min(samples, 3)))
  let limited = spawn(nbArguments(["search", "--limit", "20", terms.rare]), cwd: root, errors: errors).status == 0
  let limit = limited ? ["--limit", "20"] : []
  let limitLabel = limited ? " --limit 20" : ""

  // The queries, each by nb, rg and git grep.
  struct Query {
    var label: String
    var nb: String
    var rg: [String]
    var gitGrep: [String]
  }
  let phrase = terms.phrase.joined(separator: " ")
  var queries = [
    Query(label: "rare word", nb: terms.rare, rg: [terms.rare], gitGrep: [terms.rare]),
    Query(label: "common word", nb: terms.common, rg: [terms.common], gitGrep: [terms.common]),
    Query(label: "phrase", nb: "\"\(phrase)\"", rg: ["-F", phrase], gitGrep: ["-F", phrase]),
    Query(
      label: "prefix", nb: terms.prefix + "*", rg: ["-w", terms.prefix + "\\w*"],
      gitGrep: ["-w", "-E", terms.prefix + "[[:alnum:]_]*"]),
  ]
  if let tag = terms.tag {
    queries.append(
      Query(
        label: "tag filter", nb: "tag:\(tag)", rg: ["-w", "^tags:.*\(tag)"], gitGrep: ["-w", "-E", "^tags:.*\(tag)"]))
  }
  for query in queries {
    var nbRow = measure(
      "nb search\(limitLabel) '\(query.nb)' (\(query.label))", nbArguments(["search"] + limit + [query.nb]))
    let rg = measure("rg -l -i \(query.rg.joined(separator: " "))", ["rg", "-l", "-i"] + query.rg + [root])
    let gitGrep = measure(
      "git grep -l -i \(query.gitGrep.joined(separator: " "))", ["git", "grep", "-l", "-i"] + query.gitGrep)
    if nbRow.missing == nil {
      nbRow.rg = rg.missing == nil ? rg.p50 : nil
      nbRow.gitGrep = gitGrep.missing == nil ? gitGrep.p50 : nil
    }
    rows += [nbRow, rg, gitGrep]
  }
  rows.append(measure("git status --porcelain (a stat walk of the tree)", ["git", "status", "--porcelain"]))

  // Listing and counting.
  rows.append(
    measure("nb list --sort updated --limit 20", nbArguments(["list", "--sort", "updated", "--limit", "20"])))
  rows.append(measure("nb search --count '\(terms.common)'", nbArguments(["search", "--count", terms.common])))
  rows.append(measure("nb tag list", nbArguments(["tag", "list"])))
  rows.append(measure("nb tag list --counts", nbArguments(["tag", "list", "--counts"])))
  let shown = corpus.paths[count / 2]
  rows.append(measure("nb show (one note)", nbArguments(["show", shown])))

  // An edit made outside nb, then the first search for a word only that edit brought in.
  var external: [Double] = []
  var externalFound = 0
  // Words no corpus holds yet (not even a copy of an earlier run's tree).
  let unique = letters(Int(Date().timeIntervalSince1970) % 308_915_776)
  for sample in 0..<samples {
    let word = "qxedit" + unique + letters(sample)
    let path = "\(root)/\(corpus.paths[(sample * 7_919 + 13) % count])"
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("\nFollow-up: the \(word) showed up.\n".utf8))
    try handle.close()
    let run = spawn(nbArguments(["search"] + limit + [word]), cwd: root, output: output)
    external.append(run.seconds)
    if run.status == 0, results() == "1" { externalFound += 1 }
  }
  rows.append(
    SearchRow(
      name: "nb search NEWWORD, first run after an edit outside nb", p50: percentile(external, 0.5),
      p95: percentile(external, 0.95), results: "found \(externalFound)/\(samples)"))

  // The same while a watcher runs: this process owns the change journal (as `nb watch` would) and answers the
  // requests of each nb search, which then checks only the recorded paths instead of walking the tree.
  if let repository = try? NoteRepository.open(at: URL(fileURLWithPath: root)),
    let journal = try ChangeJournal.open(repository: repository)
  {
    let answering = try NewFileWatcher(directory: journal.requestDirectory) { [journal] in
      journal.acknowledge(request: $0)
    }
    // The first command of a session walks once.
    _ = spawn(nbArguments(["search"] + limit + [terms.rare]), cwd: root)
    rows.append(
      measure(
        "nb search\(limitLabel) '\(terms.rare)' while a watcher keeps a change journal (no walk)",
        nbArguments(["search"] + limit + [terms.rare])))
    var watched: [Double] = []
    var watchedFound = 0
    for sample in 0..<samples {
      let word = "qxwatched" + unique + letters(sample)
      let relative = corpus.paths[(sample * 7_919 + 29) % count]
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(root)/\(relative)"))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data("\nFollow-up: the \(word) showed up.\n".utf8))
      try handle.close()
      journal.record([(path: relative, isDirectory: false)])
      let run = spawn(nbArguments(["search"] + limit + [word]), cwd: root, output: output)
      watched.append(run.seconds)
      if run.status == 0, results() == "1" { watchedFound += 1 }
    }
    rows.append(
      SearchRow(
        name: "nb search NEWWORD, first run after an edit the watcher recorded", p50: percentile(watched, 0.5),
        p95: percentile(watched, 0.95), results: "found \(watchedFound)/\(samples)"))
    answering.stop()
    journal.close()
  } else {
    rows.append(SearchRow(name: "nb search with a watcher's change journal", missing: "n/a (no change journal)"))
  }

  // nb add, then the first search for a word only the new note holds.
  var adds: [Double] = []
  var afterAdd: [Double] = []
  var addFound = 0
  for sample in 0..<samples {
    let word = "qxadded" + unique + letters(sample)
    let add = spawn(
      nbArguments(["add", "Added \(sample)", "--notebook", "inbox", "--content", "A note about \(word).\n"]), cwd: root)
    guard add.status == 0 else { break }
    adds.append(add.seconds)
    let run = spawn(nbArguments(["search"] + limit + [word]), cwd: root, output: output)
    afterAdd.append(run.seconds)
    if run.status == 0, results() == "1" { addFound += 1 }
  }
  rows.append(
    adds.isEmpty
      ? SearchRow(name: "nb add TITLE --content …", missing: "n/a (nb add failed)")
      : SearchRow(name: "nb add TITLE --content …", p50: percentile(adds, 0.5), p95: percentile(adds, 0.95)))
  rows.append(
    SearchRow(
      name: "nb search NEWWORD, first run after nb add", p50: percentile(afterAdd, 0.5),
      p95: percentile(afterAdd, 0.95), results: "found \(addFound)/\(adds.count)"))

  // Report.
  print("\n### search: \(label)\n")
  print("| corpus | value | notes containing it |")
  print("|---|---|---:|")
  func known(_ value: Int?) -> String { value.map(String.init) ?? "" }
  print("| notes / notebooks / text | \(count) / \(corpus.notebooks) / \(mib(corpus.textBytes)) MiB | |")
  print("| rare word | `\(terms.rare)` | \(known(terms.rareNotes)) |")
  print("| common word | `\(terms.common)` | \(known(terms.commonNotes)) |")
  print("| phrase | `\"\(phrase)\"` | \(known(terms.phraseNotes)) |")
  print("| prefix | `\(terms.prefix)*` | |")
  print("| tag | `\(terms.tag ?? "n/a")` | \(known(terms.tagNotes)) |")
  let gitDirectory = "\(root)/.git"
  let index = "\(gitDirectory)/nb/index"
  print(
    "| .git/nb/index | \(FileManager.default.fileExists(atPath: index) ? "\(mib(diskUsage(index))) MiB" : "n/a") | |")
  print("| .git/nb (all device-local state) | \(mib(diskUsage("\(gitDirectory)/nb"))) MiB | |")
  print("| .git/objects | \(mib(diskUsage("\(gitDirectory)/objects"))) MiB | |")
  print("")
  print(
    "| operation | p50 ms | p95 ms | peak RSS MiB | results | rg ÷ nb (p50) | git grep ÷ nb (p50) |")
  print("|---|---:|---:|---:|---:|---:|---:|")
  for row in rows {
    if let missing = row.missing {
      print("| \(row.name) | \(missing) | | | | | |")
      continue
    }
    let rss = row.rssKiB.map { String(format: "%.1f", Double($0) / 1024) } ?? ""
    let rg = row.rg.map { String(format: "%.2f", $0 / row.p50) } ?? ""
    let gitGrep = row.gitGrep.map { String(format: "%.2f", $0 / row.p50) } ?? ""
    print("| \(row.name) | \(ms(row.p50)) | \(ms(row.p95)) | \(rss) | \(row.results) | \(rg) | \(gitGrep) |")
  }
  fflush(stdout)
  try? FileManager.default.removeItem(atPath: output)
  try? FileManager.default.removeItem(atPath: errors)
  if !options.keep { try? FileManager.default.removeItem(atPath: root) }
}

/// `n` in base 26, as lower-case letters (a word tokenizers keep whole).
private func letters(_ n: Int) -> String {
  var n = n
  var result = ""
  repeat {
    result.append(Character(UnicodeScalar(UInt8(97 + n % 26))))
    n /= 26
  } while n > 0
  return result
}

private func mib(_ bytes: Int64) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }

/// Bytes allocated on disk under `path` (a file or a directory), as `du` counts them.
private func diskUsage(_ path: String) -> Int64 {
  var info = stat()
  guard lstat(path, &info) == 0 else { return 0 }
  var total = Int64(info.st_blocks) * 512
  guard (info.st_mode & S_IFMT) == S_IFDIR else { return total }
  for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
    total += diskUsage(path + "/" + name)
  }
  return total
}

// `nb-bench --save [--corpus DIR]`: adopting a folder of notes and images with `nb save` against `git add -A &&
// git commit` on an identical copy, then `nb status` and a no-op `nb save` against `git status` on the adopted
// repository: every row nb's time, git's time in the same run, the ratio, and both peak RSS.
import Foundation
import NBTestSupport
import NoteStore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

func saveBenchmark(options: Options) throws {
  try FileManager.default.createDirectory(atPath: options.workDirectory, withIntermediateDirectories: true)
  if let corpus = options.corpus {
    let source = "\(options.workDirectory)/save-source-corpus"
    try? FileManager.default.removeItem(atPath: source)
    _ = must(spawn(["cp", "-a", corpus, source], cwd: options.workDirectory), "cp -a corpus")
    // A copy of a git repository is adopted as a folder: its history is not what is measured.
    try? FileManager.default.removeItem(atPath: source + "/.git")
    try adoption(source: source, label: "corpus \(corpus)", options: options)
    if !options.keep { try? FileManager.default.removeItem(atPath: source) }
    return
  }
  for size in options.sizes {
    let source = "\(options.workDirectory)/save-source-\(size)"
    try? FileManager.default.removeItem(atPath: source)
    try writeVault(at: source, files: size, seed: options.seed)
    try adoption(source: source, label: "\(size) files, generated (seed \(options.seed))", options: options)
    if !options.keep { try? FileManager.default.removeItem(atPath: source) }
  }
}

/// One command's wall time and peak RSS from a single run (GNU time, when installed, launches it: an adoption is
/// too slow to run twice for its memory).
private func timed(_ arguments: [String], cwd: String, what: String) -> (seconds: Double, rssKiB: Int?) {
  var arguments = arguments
  if arguments[0] == "git" { arguments.insert(contentsOf: ["-C", cwd], at: 1) }
  guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
    return (must(spawn(arguments, cwd: cwd), what).seconds, nil)
  }
  let report = FileManager.default.temporaryDirectory.appendingPathComponent("nb-bench-timed-\(getpid())").path
  defer { try? FileManager.default.removeItem(atPath: report) }
  let run = must(spawn(["/usr/bin/time", "-o", report, "-f", "%M"] + arguments, cwd: cwd), what)
  let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
  return (run.seconds, text.split(separator: "\n").last.flatMap { Int($0) })
}

private func adoption(source: String, label: String, options: Options) throws {
  let files = countFiles(source)
  let samples = max(1, min(options.samples, 5))
  var rows: [Row] = []
  var nbTimes: [Double] = []
  var gitTimes: [Double] = []
  var nbRSS: [Int] = []
  var gitRSS: [Int] = []
  var adopted = ""
  for sample in 0..<samples {
    let nbCopy = "\(options.workDirectory)/save-nb-\(sample)"
    let gitCopy = "\(options.workDirectory)/save-git-\(sample)"
    for copy in [nbCopy, gitCopy] {
      try? FileManager.default.removeItem(atPath: copy)
      _ = must(spawn(["cp", "-a", source, copy], cwd: options.workDirectory), "cp -a")
    }
    // Both start from a repository with one commit and no notes committed: `nb init` on one, `git init` and an
    // empty commit on the other.
    _ = must(spawn([options.nbBinary, "init", nbCopy], cwd: options.workDirectory), "nb init")
    _ = must(spawn(["git", "init", "-q", "-b", "main"], cwd: gitCopy), "git init")
    _ = must(spawn(["git", "commit", "-q", "--allow-empty", "-m", "init"], cwd: gitCopy), "git commit --allow-empty")
    // Alternate which goes first, so neither always finds the other's pages in the cache.
    func measureNB() {
      let run = timed([options.nbBinary, "--dir", nbCopy, "save"], cwd: nbCopy, what: "nb save (adopting)")
      nbTimes.append(run.seconds)
      if let rss = run.rssKiB { nbRSS.append(rss) }
    }
    func measureGit() {
      let add = timed(["git", "add", "-A"], cwd: gitCopy, what: "git add -A")
      let commit = timed(["git", "commit", "-q", "-m", "adopt"], cwd: gitCopy, what: "git commit")
      gitTimes.append(add.seconds + commit.seconds)
      if let rss = [add.rssKiB, commit.rssKiB].compactMap({ $0 }).max() { gitRSS.append(rss) }
    }
    if sample % 2 == 0 {
      measureNB()
      measureGit()
    } else {
      measureGit()
      measureNB()
    }
    if sample < samples - 1 && !options.keep {
      try? FileManager.default.removeItem(atPath: nbCopy)
      try? FileManager.default.removeItem(atPath: gitCopy)
    }
    if sample == samples - 1 { adopted = nbCopy }
  }
  rows.append(
    Row(
      name: "adopt \(files) files: nb save vs git add -A && git commit", p50: percentile(nbTimes, 0.5),
      p95: percentile(nbTimes, 0.95), rssKiB: nbRSS.max(), git: percentile(gitTimes, 0.5), gitRSSKiB: gitRSS.max()))

  // On the repository nb adopted: nb and git look at the very same files and index, turn about.
  let statusSamples = max(options.samples, 2)
  func compare(_ name: String, nb arguments: [String], git gitArguments: [String]) {
    var nb: [Double] = []
    var git: [Double] = []
    for _ in 0..<statusSamples {
      nb.append(must(spawn([options.nbBinary, "--dir", adopted] + arguments, cwd: adopted), name).seconds)
      git.append(must(spawn(["git"] + gitArguments, cwd: adopted), "git \(gitArguments[0])").seconds)
    }
    rows.append(
      Row(
        name: name, p50: percentile(nb, 0.5), p95: percentile(nb, 0.95),
        rssKiB: peakRSSKiB([options.nbBinary, "--dir", adopted] + arguments), git: percentile(git, 0.5),
        gitRSSKiB: peakRSSKiB(["git", "-C", adopted] + gitArguments)))
  }
  // The first of each after the adoption settles what is left to settle (git refreshes its index, nb its summary).
  _ = must(spawn([options.nbBinary, "--dir", adopted, "status"], cwd: adopted), "nb status")
  _ = must(spawn(["git", "status", "--porcelain"], cwd: adopted), "git status")
  compare("nb status, nothing changed vs git status", nb: ["status"], git: ["status", "--porcelain"])
  compare("nb save, nothing changed vs git status", nb: ["save"], git: ["status", "--porcelain"])
  // One note edited (appended to, so its size changes): found by its stat data alone.
  if let note = firstNote(in: adopted) {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: adopted + "/" + note))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("\nedited\n".utf8))
    try handle.close()
    compare("nb status, one note edited vs git status", nb: ["status"], git: ["status", "--porcelain"])
  }
  report(size: files, rows: rows, title: "adopting \(label): \(files) files, \(samples) adoptions")
  if !options.keep { try? FileManager.default.removeItem(atPath: adopted) }
  if !options.keep {
    for sample in 0..<samples { try? FileManager.default.removeItem(atPath: "\(options.workDirectory)/save-git-\(sample)") }
  }
}

private func countFiles(_ root: String) -> Int {
  var count = 0
  let enumerator = FileManager.default.enumerator(atPath: root)
  while let path = enumerator?.nextObject() as? String {
    if path == ".git" || path.hasPrefix(".git/") {
      enumerator?.skipDescendants()
      continue
    }
    var info = stat()
    if lstat(root + "/" + path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR { count += 1 }
  }
  return count
}

/// The first tracked Markdown file at least one directory down, in path order.
private func firstNote(in root: String) -> String? {
  let listing = spawn(["git", "ls-files", "*/*.md"], cwd: root, output: root + "/.git/nb-bench-ls")
  defer { try? FileManager.default.removeItem(atPath: root + "/.git/nb-bench-ls") }
  guard listing.status == 0, let text = try? String(contentsOfFile: root + "/.git/nb-bench-ls", encoding: .utf8) else {
    return nil
  }
  return text.split(separator: "\n").first.map(String.init)
}

/// A vault like a real one (the Obsidian help vault has 3 600 notes and 2 700 images and drawings in 450 folders):
/// `files` files in nested folders, about 58 % Markdown (200 B – 8 KB, some with front matter), 30 % images
/// (5 – 150 KB of incompressible bytes, as PNG and JPEG are) and 12 % SVG (text, 1 – 20 KB). Deterministic from
/// `seed`.
func writeVault(at root: String, files: Int, seed: UInt64) throws {
  var rng = SplitMix64(seed: seed)
  func next(_ bound: Int) -> Int { Int(rng.next() % UInt64(max(bound, 1))) }
  let words = (0..<400).map { "word\($0)" } + ["note", "vault", "link", "plugin", "graph", "canvas", "sync"]
  let fm = FileManager.default
  try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
  // Folders: 12 at the top, 5 below each, 4 below those: about one folder per 14 files at the help vault's scale.
  var folders: [String] = []
  for a in 0..<12 {
    folders.append("Area \(a)")
    for b in 0..<5 {
      folders.append("Area \(a)/Topic \(b)")
      for c in 0..<4 { folders.append("Area \(a)/Topic \(b)/Part \(c)") }
    }
  }
  folders = Array(folders.prefix(max(1, files / 14)))
  for folder in folders { try fm.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true) }
  for i in 0..<files {
    let folder = folders[next(folders.count)]
    let roll = next(100)
    if roll < 58 {
      var text = ""
      if next(3) == 0 { text += "---\naliases: [Note \(i)]\ntags: [\(words[next(words.count)])]\n---\n" }
      text += "# Note \(i)\n\n"
      let target = 200 + next(8_000)
      while text.utf8.count < target {
        text += (0..<12).map { _ in words[next(words.count)] }.joined(separator: " ")
        text += next(5) == 0 ? " [[Note \(next(files))]]\n\n" : ".\n"
      }
      try text.write(toFile: "\(root)/\(folder)/Note \(i).md", atomically: false, encoding: .utf8)
    } else if roll < 88 {
      let size = 5_000 + next(145_000)
      var bytes = [UInt8](repeating: 0, count: size)
      for j in stride(from: 0, to: size, by: 8) {
        let value = rng.next()
        for k in 0..<min(8, size - j) { bytes[j + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(k))) }
      }
      try Data(bytes).write(to: URL(fileURLWithPath: "\(root)/\(folder)/image-\(i).\(next(2) == 0 ? "png" : "jpg")"))
    } else {
      var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 100 100\">\n"
      let target = 1_000 + next(19_000)
      while svg.utf8.count < target {
        svg += "  <path d=\"M\(next(100)) \(next(100)) L\(next(100)) \(next(100))\" stroke=\"#\(next(999_999))\"/>\n"
      }
      svg += "</svg>\n"
      try svg.write(toFile: "\(root)/\(folder)/drawing-\(i).svg", atomically: false, encoding: .utf8)
    }
  }
}

// MARK: - --quick

/// Every family at a tiny size and 2 samples, one after the other: a smoke test that each still runs (CI runs it
/// after the tests). Times are printed but never compared; a command that fails ends the run with its name and a
/// non-zero status (`must`), and a family that throws does too.
func quickRun(options base: Options) throws {
  var options = base
  options.sizes = [50]
  options.samples = 2
  options.quick = true
  nbPath = options.nbBinary
  guard FileManager.default.isExecutableFile(atPath: options.nbBinary) else {
    fail("no nb binary at \(options.nbBinary); build it or pass --nb")
  }
  setenv("NB_BENCH_IDLE_SECONDS", "1", 1)
  print("# nb benchmark --quick: every family at about \(options.sizes[0]) notes, \(options.samples) samples (nothing compared)")
  // The default family edits note 65 by name, the task family the inline tasks of notes 73 and 173: their
  // repositories must hold them.
  let families: [(String, (Options) throws -> Void)] = [
    ("default", { options in try benchmark(size: 100, options: options) }),
    ("--save", saveBenchmark),
    ("--sync", syncBenchmark),
    ("--watch", watchBenchmark),
    ("--ink", inkBenchmark),
    ("--search", searchBenchmark),
    ("--tasks", { options in
      var options = options
      options.sizes = [600]
      try taskBenchmark(options: options)
    }),
    ("--inbox", inboxBenchmark),
    ("--links", linkBenchmark),
    ("--serve", serveBenchmark),
  ]
  var failed: [String] = []
  for (name, family) in families {
    let start = Date()
    FileHandle.standardError.write(Data("nb-bench --quick: \(name)\n".utf8))
    do {
      try family(options)
    } catch {
      FileHandle.standardError.write(Data("nb-bench --quick: \(name) failed: \(error)\n".utf8))
      failed.append(name)
    }
    FileHandle.standardError.write(
      Data("nb-bench --quick: \(name) took \(String(format: "%.1f", Date().timeIntervalSince(start))) s\n".utf8))
  }
  fflush(stdout)
  if !failed.isEmpty { fail("--quick: \(failed.joined(separator: ", ")) failed") }
  print("\nnb-bench --quick: every family ran")
}

// nb-bench: save / list / show latency of nb against the git CLI, in one run, on repositories of 1k–100k notes.
// Run in release mode: swift run -c release nb-bench [--sizes 1000,10000] [--samples 25]
import Foundation
import NoteStore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct Options {
  var sizes = [1_000, 10_000, 100_000]
  var samples = 25
  var nbBinary: String
  var workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("nb-bench").path
  var keep = false
  /// xwmx/nb, the bash tool (not part of this repository): pass its script's path to measure it alongside.
  var xwmx: String?
  /// Measure `nb sync` against `git pull --no-rebase && git push` instead of saves.
  var sync = false
  /// Another `nb` binary (an earlier build) measured in the same run as `nbBinary`, on pairs of its own (`--sync`).
  var baseline: String?
  /// Measure `nb watch`: propagation between two syncing watchers, write-to-commit latency, idle cost.
  var watch = false
  /// Measure ink parse + render of one dense page instead (in process; needs no nb binary).
  var ink = false
  /// Measure search, listing and counting over a generated vault (or `corpus`) against rg and git grep instead.
  var search = false
  /// A directory of Markdown files (a real vault) for `--search`, copied into a fresh repository.
  var corpus: String?
  /// Seed of the generated `--search` vault.
  var seed: UInt64 = 1
  /// `--search` only makes its repositories (kept, under `--work`) and names their planted words; measures nothing.
  var corpusOnly = false
  /// Measure the task views and `nb task done` on a repository of task notes and inline tasks.
  var tasks = false
  /// Measure the inbox: the classifier's accuracy (on `corpus`, else a generated one) and its commands' speed.
  var inbox = false
  /// Measure adopting a folder (`nb save` against `git add -A && git commit` on identical copies), then `nb status`
  /// and a no-op `nb save` against `git status`, on a generated vault per size or on a copy of `corpus`.
  var save = false
  /// Every family at a tiny size, 2 samples: checks that each runs (a smoke test for CI), compares no times.
  var quick = false
  var serve = false
  /// Measure backlinks, link checks and link filters on notes with ten links each, against rg.
  var links = false

  init(arguments: [String]) {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    nbBinary = executable.deletingLastPathComponent().appendingPathComponent("nb").path
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--sizes": sizes = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }
      case "--samples": samples = Int(iterator.next() ?? "") ?? samples
      case "--nb": nbBinary = iterator.next() ?? nbBinary
      case "--work": workDirectory = iterator.next() ?? workDirectory
      case "--keep": keep = true
      case "--xwmx": xwmx = iterator.next()
      case "--sync": sync = true
      case "--baseline": baseline = iterator.next()
      case "--ink": ink = true
      case "--watch": watch = true
      case "--search": search = true
      case "--corpus": corpus = iterator.next()
      case "--seed": seed = UInt64(iterator.next() ?? "") ?? seed
      case "--corpus-only": corpusOnly = true
      case "--tasks": tasks = true
      case "--inbox": inbox = true
      case "--save": save = true
      case "--quick": quick = true
      case "--links": links = true
      case "--serve": serve = true
      default:
        FileHandle.standardError.write(
          Data(
            ("usage: nb-bench [--sizes 1000,10000,100000] [--samples N] [--nb PATH] [--work DIR] [--keep] [--xwmx PATH]"
              + " [--sync [--baseline NB]] [--watch] [--ink] [--tasks] [--links] [--serve] [--inbox [--corpus DIR]]"
              + " [--save [--corpus DIR]] [--search [--corpus DIR] [--seed N] [--corpus-only]] [--quick]\n").utf8))
        exit(2)
      }
    }
  }
}

/// One child process's wall time and exit status.
struct Run {
  var seconds: Double
  var status: Int32
}

/// Runs a process. The baseline commands get the working directory as `-C`: spawn has no portable chdir action.
/// Standard output goes to `output` when given, else to /dev/null; standard error to `errors` when given.
func spawn(
  _ arguments: [String], cwd: String, environment: [String: String] = [:], output: String? = nil,
  errors: String? = nil
) -> Run {
  var arguments = arguments
  if arguments[0] == "git" { arguments.insert(contentsOf: ["-C", cwd], at: 1) }
  var env = ProcessInfo.processInfo.environment
  for (key, value) in environment { env[key] = value }
  env["NO_COLOR"] = "1"
  let argv = arguments.map { strdup($0) } + [nil]
  let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
  defer {
    argv.forEach { free($0) }
    envp.forEach { free($0) }
  }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  if let errors { posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
  var pid = pid_t()
  let start = DispatchTime.now().uptimeNanoseconds
  let rc = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
  guard rc == 0 else {
    fail("cannot run \(arguments[0]): \(String(cString: strerror(rc)))")
  }
  var status: Int32 = 0
  var usage = rusage()
  wait4(pid, &status, 0, &usage)
  let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  return Run(seconds: elapsed, status: (status >> 8) & 0xff)
}

/// Peak resident memory of one run of `arguments`, in KiB. wait4's figure for a child of this process would be
/// wrong: Linux carries the parent's high-water mark into a vfork'ed child through exec, and this process holds a
/// whole repository's index. The same holds for any launcher: a fork'ed child starts from its parent's resident
/// size, so the figure is at least the launcher's own. GNU time (/usr/bin/time, about 1 MiB) launches the command
/// when it is installed, else a small python3 parent (about 10 MiB: rg's or git's figure is then python's). nil when
/// neither is there or the command fails (exit 1, "nothing found" for grep-like commands, counts as success).
func peakRSSKiB(_ arguments: [String]) -> Int? {
  if FileManager.default.isExecutableFile(atPath: "/usr/bin/time") {
    let report = FileManager.default.temporaryDirectory.appendingPathComponent("nb-bench-rss-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: report) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
    process.arguments = ["-o", report, "-f", "%M"] + arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    process.waitUntilExit()
    // time exits with the command's status; its report's last line is the figure.
    guard process.terminationStatus == 0 || process.terminationStatus == 1,
      let text = try? String(contentsOfFile: report, encoding: .utf8),
      let last = text.split(separator: "\n").last, let value = Int(last), value > 0
    else { return nil }
    return value
  }
  let launcher = """
    import os, sys
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_RDWR)
        os.dup2(fd, 0); os.dup2(fd, 1)
        os.execvp(sys.argv[1], sys.argv[1:])
    _, status, usage = os.wait4(pid, 0)
    print(usage.ru_maxrss if os.WIFEXITED(status) and os.WEXITSTATUS(status) in (0, 1) else -1)
    """
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["python3", "-c", launcher] + arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  guard (try? process.run()) != nil else { return nil }
  let output = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0,
    let value = Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
    value > 0
  else { return nil }
  return value
}

/// `run`, or the end of the benchmark with a message naming the command when it failed (exit 1).
func must(_ run: Run, _ what: String) -> Run {
  if run.status != 0 { fail("\(what) exited with status \(run.status)") }
  return run
}

/// Ends the benchmark: a command it measures failed, so its figures would mean nothing.
func fail(_ message: String) -> Never {
  fflush(stdout)
  FileHandle.standardError.write(Data("nb-bench: \(message)\n".utf8))
  exit(1)
}

func time(_ body: () throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func percentile(_ values: [Double], _ p: Double) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return .nan }
  let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))
  return sorted[index]
}

/// "2.9× faster" or "2.5× slower": how `measured` compares with the `baseline` (the git CLI's time).
func ratio(_ baseline: Double, _ measured: Double) -> String {
  baseline >= measured
    ? String(format: "%.1f× faster", baseline / measured) : String(format: "%.1f× slower", measured / baseline)
}

func ms(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1000) }

func selfMaxRSSKiB() -> Int {
  var usage = rusage()
  getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
  return Int(usage.ru_maxrss)
}

/// Lays out `count` notes in nested notebooks (10 top-level, 10 children each), as nb would write them, then
/// commits them with the git CLI (setup only; nothing here is measured).
func buildRepository(at root: String, count: Int) throws {
  try? FileManager.default.removeItem(atPath: root)
  let notes = try NoteRepository.initialize(at: URL(fileURLWithPath: root))
  let stamp = "2026-11-22T10:15:03+01:00"
  for i in 0..<count {
    let directory = "\(root)/area-\(i % 10)/topic-\((i / 10) % 10)"
    if i < 100 { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
    let text = """
      ---
      id: \(UUID().uuidString.lowercased())
      title: Note \(i)
      created: \(stamp)
      updated: \(stamp)
      tags: [t\(i % 50), bench]
      ---
      # Note \(i)

      Some text for note \(i), long enough to look like a real note with a couple of sentences in it.

      """
    try text.write(toFile: "\(directory)/note-\(i).md", atomically: false, encoding: .utf8)
  }
  _ = notes
  _ = must(spawn(["git", "add", "-A"], cwd: root), "git add -A")
  _ = must(spawn(["git", "commit", "-q", "-m", "bench: \(count) notes"], cwd: root), "git commit")
  // A first list fills nb's device-local cache, as any earlier command on a real machine would have.
  _ = must(spawn([nbPath, "list", "--dir", root], cwd: root), "nb list")
}

var nbPath = ""

/// `nb add` of xwmx/nb in a notebook of its own holding `count` notes like ours, with an isolated HOME.
func xwmxAdd(_ script: String, root: String, count: Int, samples: Int, gitP50: Double) throws -> Row {
  let home = root + "-xwmx-home"
  try? FileManager.default.removeItem(atPath: home)
  try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
  try "[user]\n\tname = bench\n\temail = bench@example.invalid\n".write(
    toFile: home + "/.gitconfig", atomically: false, encoding: .utf8)
  let environment = ["HOME": home, "NB_DIR": home + "/.nb", "NBRC_PATH": home + "/.nbrc", "EDITOR": "true"]
  _ = must(spawn([script, "init"], cwd: home, environment: environment), "xwmx nb init")
  let notebook = home + "/.nb/home"
  for i in 0..<count {
    try "# Note \(i)\n\nSome text for note \(i).\n".write(
      toFile: "\(notebook)/note-\(i).md", atomically: false, encoding: .utf8)
  }
  _ = must(spawn(["git", "add", "-A"], cwd: notebook), "git add -A (xwmx)")
  _ = must(spawn(["git", "commit", "-q", "-m", "seed"], cwd: notebook), "git commit (xwmx)")
  _ = must(spawn([script, "index", "rebuild"], cwd: home, environment: environment), "xwmx nb index rebuild")
  var times: [Double] = []
  for i in 0..<samples {
    let run = must(
      spawn([script, "add", "--title", "Xwmx \(i)", "--content", "body"], cwd: home, environment: environment),
      "xwmx nb add")
    times.append(run.seconds)
  }
  try? FileManager.default.removeItem(atPath: home)
  let p50 = percentile(times, 0.5)
  return Row(
    name: "xwmx/nb add (bash, its own notebook of the same size)", p50: p50, p95: percentile(times, 0.95),
    versus: ratio(gitP50, p50))
}

struct Row {
  var name: String
  /// nb's (or the measured tool's) median and 95th percentile, in seconds.
  var p50: Double
  var p95: Double
  /// nb's peak resident memory, KiB.
  var rssKiB: Int?
  /// The comparison when it is not with the git CLI (another tool, another nb command).
  var versus: String = ""
  /// The git CLI's median for the same operation, measured in the same run; its peak resident memory, KiB.
  var git: Double?
  var gitRSSKiB: Int?
}

func mib(_ kib: Int?) -> String { kib.map { String(format: "%.1f", Double($0) / 1024) } ?? "" }

/// One table: every row with nb's p50 and p95, the git CLI's p50 in the same run and how the two compare (or
/// what else the row is compared with), and both peak RSS.
func report(size: Int, rows: [Row], title: String? = nil) {
  print("\n### \(title ?? "\(size) notes")\n")
  print("| operation | nb p50 ms | nb p95 ms | git p50 ms | nb vs git (p50) | nb peak RSS MiB | git peak RSS MiB |")
  print("|---|---:|---:|---:|---|---:|---:|")
  for row in rows {
    let git = row.git.map(ms) ?? ""
    let versus = row.git.map { ratio($0, row.p50) } ?? row.versus
    print(
      "| \(row.name) | \(ms(row.p50)) | \(ms(row.p95)) | \(git) | \(versus) | \(mib(row.rssKiB)) | \(mib(row.gitRSSKiB)) |")
  }
  fflush(stdout)
}

func benchmark(size: Int, options: Options) throws {
  let root = "\(options.workDirectory)/repo-\(size)"
  let setup = try time { try buildRepository(at: root, count: size) }
  FileHandle.standardError.write(Data("built \(size) notes in \(String(format: "%.1f", setup)) s\n".utf8))
  // Written out before anything is timed: otherwise the disk writes back the new files under the first rows (for
  // seconds at 100 000 notes), and git's rows, timed first, pay for them.
  sync()
  let samples = options.samples
  var rows: [Row] = []

  // git CLI: the same save (a new file, then git add <file> && git commit), timing both processes.
  var gitAdd: [Double] = []
  for i in 0..<samples {
    let relative = "area-\(i % 10)/git-\(i).md"
    try "---\ntitle: Git \(i)\n---\nbody\n".write(toFile: "\(root)/\(relative)", atomically: false, encoding: .utf8)
    let add = must(spawn(["git", "add", relative], cwd: root), "git add")
    let commit = must(spawn(["git", "commit", "-q", "-m", "git \(i)"], cwd: root), "git commit")
    gitAdd.append(add.seconds + commit.seconds)
  }
  let gitP50 = percentile(gitAdd, 0.5)
  // Its memory: the larger of the two processes, on one more save.
  try "---\ntitle: Git RSS\n---\nbody\n".write(toFile: "\(root)/area-0/git-rss.md", atomically: false, encoding: .utf8)
  let gitAddRSS = [
    peakRSSKiB(["git", "-C", root, "add", "area-0/git-rss.md"]),
    peakRSSKiB(["git", "-C", root, "commit", "-q", "-m", "git rss"]),
  ].compactMap { $0 }.max()
  var gitEdit: [Double] = []
  for i in 0..<samples {
    let relative = "area-1/topic-1/note-\(11 + 100 * (i % max(1, size / 100))).md"
    let handle = FileHandle(forWritingAtPath: "\(root)/\(relative)")!
    handle.seekToEndOfFile()
    handle.write(Data("git edit \(i)\n".utf8))
    handle.closeFile()
    let add = must(spawn(["git", "add", relative], cwd: root), "git add")
    let commit = must(spawn(["git", "commit", "-q", "-m", "git edit \(i)"], cwd: root), "git commit")
    gitEdit.append(add.seconds + commit.seconds)
  }
  let gitEditP50 = percentile(gitEdit, 0.5)

  // In-process library calls (an app embedding NoteStore).
  let notes = try NoteRepository.open(at: URL(fileURLWithPath: root))
  var libraryAdd: [Double] = []
  for i in 0..<samples {
    libraryAdd.append(
      try time {
        _ = try notes.createNote(NoteDraft(title: "Library \(i)", notebook: "area-2/topic-3", content: "body \(i)\n"))
      })
  }
  rows.append(
    Row(
      name: "library: createNote vs git add FILE && git commit", p50: percentile(libraryAdd, 0.5),
      p95: percentile(libraryAdd, 0.95), git: gitP50, gitRSSKiB: gitAddRSS))
  let target = try notes.resolve("area-3/topic-4/note-43.md")
  var libraryEdit: [Double] = []
  for i in 0..<samples {
    libraryEdit.append(try time { _ = try notes.update(target, NoteChange(append: "line \(i)\n")) })
  }
  rows.append(
    Row(
      name: "library: update (append) vs edit, git add FILE && git commit", p50: percentile(libraryEdit, 0.5),
      p95: percentile(libraryEdit, 0.95), git: gitEditP50, gitRSSKiB: gitAddRSS))

  // Whole nb processes; `git` is the git CLI's median for the same operation in this run.
  func nbRuns(_ name: String, git: Double? = nil, gitRSS: Int? = nil, _ arguments: (Int) -> [String]) {
    var times: [Double] = []
    for i in 0..<samples {
      let run = must(spawn([options.nbBinary, "--dir", root] + arguments(i), cwd: root), name)
      times.append(run.seconds)
    }
    let rss = peakRSSKiB([options.nbBinary, "--dir", root] + arguments(samples))
    rows.append(
      Row(name: name, p50: percentile(times, 0.5), p95: percentile(times, 0.95), rssKiB: rss, git: git, gitRSSKiB: gitRSS))
  }
  nbRuns("nb add vs git add FILE && git commit", git: gitP50, gitRSS: gitAddRSS) {
    ["add", "CLI \($0)", "--notebook", "area-4", "--content", "body"]
  }
  nbRuns("nb edit --append vs edit, git add FILE && git commit", git: gitEditP50, gitRSS: gitAddRSS) {
    ["edit", "area-5/topic-6/note-65.md", "--append", "line \($0)"]
  }
  // Nothing changed: the walk that compares every file's stat data with the index, against git's own.
  let gitStatus = gitRuns(["status", "--porcelain"], root: root, samples: samples)
  nbRuns("nb status, nothing changed vs git status", git: gitStatus.p50, gitRSS: gitStatus.rss) { _ in ["status"] }
  nbRuns("nb save, nothing changed vs git status", git: gitStatus.p50, gitRSS: gitStatus.rss) { _ in ["save"] }
  nbRuns("nb list area-7/topic-8 (one notebook)") { _ in ["list", "area-7/topic-8"] }
  nbRuns("nb list (every note)") { _ in ["list"] }
  nbRuns("nb show area-9/topic-0/note-9.md") { _ in ["show", "area-9/topic-0/note-9.md"] }
  nbRuns("nb --version") { _ in ["--version"] }
  rows += floorRows(root: root, samples: samples)
  if let xwmx = options.xwmx {
    rows.append(try xwmxAdd(xwmx, root: root, count: size, samples: samples, gitP50: gitP50))
  }
  rows.append(Row(name: "this benchmark process (library calls)", p50: .nan, p95: .nan, rssKiB: selfMaxRSSKiB()))
  report(size: size, rows: rows)
  if !options.keep { try? FileManager.default.removeItem(atPath: root) }
}

/// `git <arguments>` run `samples` times in `root`: median, p95 and peak RSS of one more run.
func gitRuns(_ arguments: [String], root: String, samples: Int) -> (p50: Double, p95: Double, rss: Int?) {
  var times: [Double] = []
  for _ in 0..<samples { times.append(must(spawn(["git"] + arguments, cwd: root), "git \(arguments[0])").seconds) }
  return (percentile(times, 0.5), percentile(times, 0.95), peakRSSKiB(["git", "-C", root] + arguments))
}

/// The floors no nb command goes below on this machine, measured the way the rows above are: a process that does
/// nothing (`/bin/true`: fork, exec, exit through this benchmark's spawn), and — for the commands that touch git —
/// loading and initialising libgit2 (`dlopen` of it and its dozen libraries, then `git_libgit2_init`), timed inside
/// a process of this benchmark that does nothing else. This benchmark is linked like nb, so the CA bundle parse
/// nb defers (Sources/CLibGit2/DeferredCertificates.c) is deferred here too.
func floorRows(root: String, samples: Int) -> [Row] {
  var spawnTimes: [Double] = []
  for _ in 0..<samples { spawnTimes.append(must(spawn(["/bin/true"], cwd: root), "/bin/true").seconds) }
  // This very executable, however it was started (a bare name found on PATH included).
  let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
  var libgit2Times: [Double] = []
  for _ in 0..<samples {
    let output = root + "/.git/nb-bench-probe"
    _ = must(spawn([executable, "--probe-libgit2"], cwd: root, output: output), "nb-bench --probe-libgit2")
    if let text = try? String(contentsOfFile: output, encoding: .utf8),
      let seconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
    {
      libgit2Times.append(seconds)
    }
    try? FileManager.default.removeItem(atPath: output)
  }
  if libgit2Times.count != samples { fail("nb-bench --probe-libgit2 printed no time") }
  let walkTimes = (0..<samples).map { _ in walkFloorSeconds(root: root) }
  let durableTimes = (0..<samples).map { _ in durableWritesFloorSeconds(directory: root + "/.git") }
  return [
    Row(
      name: "floor: a process that does nothing (/bin/true)", p50: percentile(spawnTimes, 0.5),
      p95: percentile(spawnTimes, 0.95)),
    Row(
      name: "floor: libgit2 start-up in process (dlopen + git_libgit2_init)", p50: percentile(libgit2Times, 0.5),
      p95: percentile(libgit2Times, 0.95)),
    Row(
      name: "floor: readdir every directory + lstat every file, in process (any status)",
      p50: percentile(walkTimes, 0.5), p95: percentile(walkTimes, 0.95)),
    Row(
      name: "floor: an add's durable writes, in process (3 file + 1 directory flushes; git makes none)",
      p50: percentile(durableTimes, 0.5), p95: percentile(durableTimes, 0.95)),
  ]
}

// A child of floorRows: how long libgit2 takes to load and initialise, and nothing else.
if CommandLine.arguments.dropFirst().first == "--probe-libgit2" {
  print(String(format: "%.9f", libGit2StartSeconds()))
  exit(0)
}

let options = Options(arguments: Array(CommandLine.arguments.dropFirst()))
if options.quick {
  try quickRun(options: options)
  exit(0)
}
if options.ink {
  try inkBenchmark(options: options)
  exit(0)
}
nbPath = options.nbBinary
guard FileManager.default.isExecutableFile(atPath: options.nbBinary) else {
  FileHandle.standardError.write(Data("nb-bench: no nb binary at \(options.nbBinary); build it or pass --nb\n".utf8))
  exit(2)
}
print(
  "# nb benchmark: \(options.samples) samples per row, medians (p50) and p95; machine: "
    + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
if options.sync {
  try syncBenchmark(options: options)
} else if options.watch {
  try watchBenchmark(options: options)
} else if options.search {
  try searchBenchmark(options: options)
} else if options.tasks {
  try taskBenchmark(options: options)
} else if options.inbox {
  try inboxBenchmark(options: options)
} else if options.save {
  try saveBenchmark(options: options)
} else if options.links {
  try linkBenchmark(options: options)
} else if options.serve {
  try serveBenchmark(options: options)
} else {
  for size in options.sizes {
    try benchmark(size: size, options: options)
  }
}

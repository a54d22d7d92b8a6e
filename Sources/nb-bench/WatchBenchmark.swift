import Foundation
import NBTestSupport
import NoteStore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `nb watch`: how long an edit on one device takes to reach another device's work tree (two watchers syncing
/// through one bare remote, over file:// and ssh on 127.0.0.1), how long after the debounce a commit lands in a
/// 10 000-note repository, and what a watcher costs while nothing happens.
func watchBenchmark(options: Options) throws {
  let work = options.workDirectory + "/watch"
  let environment = try freshWorkDirectory(work)
  let home = environment["HOME"]!
  let edits = options.quick ? options.samples : max(5, min(options.samples, 20))

  print("## nb watch: propagation between two devices (\(edits) edits; p50 / p95 in seconds)\n")
  print("| transport | debounce / interval | one side edits | both sides at once | all arrived |")
  print("|---|---|---:|---:|---|")
  var ssh: SSHServer?
  if SSHServer.isAvailable {
    ssh = try SSHServer(directory: URL(fileURLWithPath: work + "/sshd"))
    try ssh?.installClient(home: URL(fileURLWithPath: home))
  }
  defer { ssh?.stop() }
  // NB_BENCH_PROPAGATION=0 measures the single-repository rows alone.
  let pairs: [(String?, String?)] =
    ProcessInfo.processInfo.environment["NB_BENCH_PROPAGATION"] == "0"
    ? [] : options.quick ? [("200ms", "1s")] : [("200ms", "1s"), (nil, nil)]
  for (debounce, interval) in pairs {
    for transport in options.quick ? ["file"] : ["file", "ssh"] {
      if transport == "ssh" && ssh == nil { continue }
      let directory = "\(work)/propagation-\(transport)-\(debounce ?? "default")"
      let bare = directory + "/remote.git"
      let url = transport == "file" ? "file://" + bare : ssh!.url(bare)
      let result = try propagation(
        options: options, directory: directory, url: url, bare: bare, environment: environment, edits: edits,
        debounce: debounce, interval: interval)
      print(
        "| \(transport == "file" ? "file://" : "ssh (127.0.0.1)") | "
          + "\(debounce ?? "defaults (2s)") / \(interval ?? "defaults (3s)") | "
          + "\(seconds(result.single)) | \(seconds(result.both)) | \(result.complete ? "yes" : "NO: \(result.missing)") |")
    }
  }

  let size = options.sizes.contains(10_000) ? 10_000 : (options.sizes.max() ?? 10_000)
  let root = "\(work)/repo-\(size)"
  try buildNotebooks(at: root, notes: size, notebooks: max(1, size / 10), environment: environment)
  print("\n## nb watch on \(size) notes in \(max(1, size / 10)) notebooks\n")
  let latency = try saveLatency(root: root, environment: environment, samples: edits)
  print("| measure | value |")
  print("|---|---:|")
  print("| setup (every watch added), from the started event | \(ms(latency.setup)) ms |")
  print("| write → commit, minus the 200 ms debounce: p50 / p95 | \(ms(latency.p50)) / \(ms(latency.p95)) ms |")
  let idleSeconds = Double(ProcessInfo.processInfo.environment["NB_BENCH_IDLE_SECONDS"] ?? "") ?? 60
  for sync in [false, true] {
    let idle = try idleCost(root: root, environment: environment, seconds: idleSeconds, sync: sync, work: work)
    let label = sync ? "with --sync (file://, remote asked every 3 s)" : "without sync"
    print(
      "| idle \(Int(idleSeconds)) s \(label): CPU of one core / resident | "
        + String(format: "%.2f %%", idle.cpuPercent) + " / \(idle.residentMiB) MiB |")
  }
  if !options.keep { try? FileManager.default.removeItem(atPath: work) }
}

private func seconds(_ values: (p50: Double, p95: Double)) -> String {
  String(format: "%.2f / %.2f", values.p50, values.p95)
}

/// A running `nb watch --json`: its stdout lines with the time each arrived.
private final class Watcher: @unchecked Sendable {
  let process = Process()
  private let lock = NSLock()
  private var lines: [(time: Double, text: String)] = []

  init(_ arguments: [String], environment: [String: String]) throws {
    process.executableURL = URL(fileURLWithPath: nbPath)
    process.arguments = ["watch", "--json"] + arguments
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let handle = pipe.fileHandleForReading
    Thread.detachNewThread { [self] in
      var buffer = Data()
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        buffer.append(chunk)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
          let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
          buffer.removeSubrange(buffer.startIndex...newline)
          let now = monotonic()
          lock.withLock { lines.append((now, line)) }
        }
      }
    }
  }

  /// Waits for a line containing `text` that arrived after `after`; returns its arrival time.
  func wait(for text: String, after: Double = 0, timeout: Double = 120) -> Double? {
    let deadline = monotonic() + timeout
    while monotonic() < deadline {
      if let found = lock.withLock({ lines.first { $0.time >= after && $0.text.contains(text) } }) { return found.time }
      usleep(2_000)
    }
    return nil
  }

  func line(containing text: String) -> String? { lock.withLock { lines.first { $0.text.contains(text) }?.text } }

  func stop() {
    guard process.isRunning else { return }
    process.interrupt()
    process.waitUntilExit()
  }
}

private func monotonic() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Waits until `path` holds `token`; the time it did.
private func arrival(of token: String, at path: String, timeout: Double = 120) -> Double? {
  let deadline = monotonic() + timeout
  while monotonic() < deadline {
    if let data = FileManager.default.contents(atPath: path), String(decoding: data, as: UTF8.self).contains(token) {
      return monotonic()
    }
    usleep(5_000)
  }
  return nil
}

private func propagation(
  options: Options, directory: String, url: String, bare: String, environment: [String: String], edits: Int,
  debounce: String?, interval: String?
) throws -> (single: (p50: Double, p95: Double), both: (p50: Double, p95: Double), complete: Bool, missing: String) {
  try? FileManager.default.removeItem(atPath: directory)
  try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  _ = must(spawn(["git", "init", "-q", "--bare", "-b", "main", bare], cwd: directory), "git init --bare")
  let a = directory + "/a"
  let b = directory + "/b"
  _ = must(spawn([nbPath, "init", a], cwd: directory, environment: environment), "nb init")
  _ = must(spawn([nbPath, "--dir", a, "remote", "add", "origin", url], cwd: a, environment: environment), "remote add")
  _ = must(spawn([nbPath, "--dir", a, "sync"], cwd: a, environment: environment), "nb sync (publish)")
  _ = must(spawn([nbPath, "clone", url, b], cwd: directory, environment: environment), "nb clone")
  var arguments = ["--sync"]
  if let debounce { arguments += ["--debounce", debounce] }
  if let interval { arguments += ["--interval", interval] }
  let watchA = try Watcher(arguments + ["--dir", a, "--device", "a"], environment: environment)
  let watchB = try Watcher(arguments + ["--dir", b, "--device", "b"], environment: environment)
  defer {
    watchA.stop()
    watchB.stop()
  }
  guard watchA.wait(for: "\"started\"") != nil, watchB.wait(for: "\"started\"") != nil else {
    fail("nb watch did not start in \(directory)")
  }
  try FileManager.default.createDirectory(atPath: a + "/one", withIntermediateDirectories: true)
  try FileManager.default.createDirectory(atPath: a + "/both", withIntermediateDirectories: true)
  try FileManager.default.createDirectory(atPath: b + "/both", withIntermediateDirectories: true)
  var single: [Double] = []
  for i in 0..<edits {
    let token = "token-\(i)-\(UUID().uuidString)"
    let start = monotonic()
    try "---\ntitle: Edit \(i)\n---\n\(token)\n".write(toFile: "\(a)/one/edit-\(i).md", atomically: false, encoding: .utf8)
    guard let arrived = arrival(of: token, at: "\(b)/one/edit-\(i).md") else { fail("edit \(i) never arrived") }
    single.append(arrived - start)
  }
  var both: [Double] = []
  var missing: [String] = []
  for i in 0..<edits {
    let tokenA = "a-\(i)-\(UUID().uuidString)"
    let tokenB = "b-\(i)-\(UUID().uuidString)"
    let start = monotonic()
    try "---\ntitle: A \(i)\n---\n\(tokenA)\n".write(toFile: "\(a)/both/a-\(i).md", atomically: false, encoding: .utf8)
    try "---\ntitle: B \(i)\n---\n\(tokenB)\n".write(toFile: "\(b)/both/b-\(i).md", atomically: false, encoding: .utf8)
    if let arrived = arrival(of: tokenA, at: "\(b)/both/a-\(i).md", timeout: 60) {
      both.append(arrived - start)
    } else {
      missing.append("a-\(i)")
    }
    if let arrived = arrival(of: tokenB, at: "\(a)/both/b-\(i).md", timeout: 60) {
      both.append(arrived - start)
    } else {
      missing.append("b-\(i)")
    }
  }
  return (
    (percentile(single, 0.5), percentile(single, 0.95)), (percentile(both, 0.5), percentile(both, 0.95)),
    missing.isEmpty, missing.joined(separator: ", ")
  )
}

/// `notes` notes spread over `notebooks` notebooks, committed by the git CLI (setup, not measured).
/// Empties `work` and makes it a home of its own (git's identity set) for the family's processes: their environment.
func freshWorkDirectory(_ work: String) throws -> [String: String] {
  try? FileManager.default.removeItem(atPath: work)
  let home = work + "/home"
  try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
  try GitCLI.writeConfig(home: URL(fileURLWithPath: home))
  return ["HOME": home, "NB_DEVICE": "bench"]
}

func buildNotebooks(at root: String, notes: Int, notebooks: Int, environment: [String: String]) throws {
  try? FileManager.default.removeItem(atPath: root)
  _ = must(spawn([nbPath, "init", root], cwd: "/", environment: environment), "nb init")
  for i in 0..<notes {
    let directory = "\(root)/area-\(i % notebooks / 100)/notebook-\(i % notebooks)"
    if i < notebooks { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
    try "---\nid: \(UUID().uuidString.lowercased())\ntitle: Note \(i)\n---\nSome text for note \(i).\n".write(
      toFile: "\(directory)/note-\(i).md", atomically: false, encoding: .utf8)
  }
  _ = must(spawn(["git", "add", "-A"], cwd: root, environment: environment), "git add -A")
  _ = must(spawn(["git", "commit", "-q", "-m", "bench"], cwd: root, environment: environment), "git commit")
}

private func saveLatency(root: String, environment: [String: String], samples: Int) throws
  -> (setup: Double, p50: Double, p95: Double)
{
  let watcher = try Watcher(["--debounce", "200ms", "--dir", root], environment: environment)
  defer { watcher.stop() }
  guard watcher.wait(for: "\"started\"") != nil, let started = watcher.line(containing: "\"started\"") else {
    fail("nb watch did not start")
  }
  let setup = Double(started.split(separator: "\"setup_ms\":").last?.prefix { $0.isNumber } ?? "") ?? .nan
  var overheads: [Double] = []
  for i in 0..<samples {
    usleep(300_000)
    let start = monotonic()
    try "---\ntitle: Latency \(i)\n---\nbody \(i)\n".write(
      toFile: "\(root)/area-0/notebook-0/latency-\(i).md", atomically: false, encoding: .utf8)
    guard let saved = watcher.wait(for: "latency-\(i).md", after: start) else { fail("no commit for \(i)") }
    overheads.append(saved - start - 0.2)
  }
  return (setup / 1000, percentile(overheads, 0.5), percentile(overheads, 0.95))
}

private func idleCost(root: String, environment: [String: String], seconds: Double, sync: Bool, work: String) throws
  -> (cpuPercent: Double, residentMiB: Int)
{
  var arguments = ["--dir", root]
  if sync {
    let bare = work + "/idle-remote.git"
    if !FileManager.default.fileExists(atPath: bare) {
      _ = must(spawn(["git", "init", "-q", "--bare", "-b", "main", bare], cwd: work), "git init --bare")
      _ = must(
        spawn([nbPath, "--dir", root, "remote", "add", "origin", "file://" + bare], cwd: root, environment: environment),
        "remote add")
      _ = must(spawn([nbPath, "--dir", root, "sync"], cwd: root, environment: environment), "nb sync")
    }
    arguments += ["--sync", "--interval", "3s"]
  }
  let watcher = try Watcher(arguments, environment: environment)
  defer { watcher.stop() }
  guard watcher.wait(for: "\"started\"") != nil else { fail("nb watch did not start") }
  usleep(2_000_000)  // its first save and sync are start-up, not idling
  let pid = watcher.process.processIdentifier
  let before = cpuSeconds(pid)
  let start = monotonic()
  usleep(UInt32(seconds * 1_000_000))
  let used = cpuSeconds(pid) - before
  let elapsed = monotonic() - start
  return (used / elapsed * 100, residentKiB(pid) / 1024)
}

/// User + system CPU time of `pid` so far, from /proc.
func cpuSeconds(_ pid: Int32) -> Double {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = text.lastIndex(of: ")")
  else { return .nan }
  let fields = text[text.index(after: close)...].split(separator: " ")
  // After the command name: state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
  guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
  return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

func residentKiB(_ pid: Int32) -> Int {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
  for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
  }
  return 0
}

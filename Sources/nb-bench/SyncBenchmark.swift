import Foundation
import NBTestSupport
import NoteStore

/// `nb sync` against the git CLI's `git pull --no-rebase && git push`, on identical pairs of devices sharing one
/// bare remote: N notes changed on each side, a tenth of them the same notes (those conflict for both tools). Where
/// git stops at a conflict, its time up to the conflict is what counts. Also a no-op sync of 10 000 notes (or the
/// largest size) next to the transport's own round trip.
func syncBenchmark(options: Options) throws {
  let base = options.sizes.min() ?? 1_000
  var rows: [Row] = []
  for changed in options.quick ? [5] : [10, 1_000] {
    // Each side changes its own notes, overlapping on a tenth: the repository must hold both sets.
    let notes = max(base, 2 * changed)
    var nbTimes: [Double] = []
    var baselineTimes: [Double] = []
    var gitTimes: [Double] = []
    var conflicts = 0
    // Each sample is a new pair of repositories: at 10 changes a pair costs a second or two, and git's own time
    // for the same pull swings by half between runs, so that row takes every sample asked for; the large row
    // keeps five.
    for sample in 0..<max(1, changed <= 10 ? options.samples : min(options.samples, 5)) {
      let work = "\(options.workDirectory)/sync-\(changed)-\(sample)"
      let pair = try makePair(at: work, notes: notes)
      // The baseline binary gets a pair of its own, made and edited the same way by itself.
      let baselinePair = try options.baseline.map { try makePair(at: work + "/baseline", notes: notes, nb: $0) }
      // The same edits on the nb pairs and on the git pair; git's devices are plain clones of the same remote.
      try edit(pair.a, changed: changed, side: "a", offset: 0)
      try edit(pair.gitA, changed: changed, side: "a", offset: 0)
      try edit(pair.b, changed: changed, side: "b", offset: changed - changed / 10)
      try edit(pair.gitB, changed: changed, side: "b", offset: changed - changed / 10)
      for (nb, devices) in [(options.nbBinary, pair)] + (baselinePair.map { [(options.baseline!, $0)] } ?? []) {
        if nb != options.nbBinary {
          try edit(devices.a, changed: changed, side: "a", offset: 0)
          try edit(devices.b, changed: changed, side: "b", offset: changed - changed / 10)
        }
        _ = must(spawn([nb, "--dir", devices.a, "sync", "--device", "a"], cwd: devices.a), "nb sync (a)")
        _ = must(spawn([nb, "--dir", devices.b, "save"], cwd: devices.b), "nb save (b)")
      }
      for device in [pair.gitA, pair.gitB] {
        _ = must(spawn(["git", "add", "-A"], cwd: device), "git add")
        _ = must(spawn(["git", "commit", "-q", "-m", "edits"], cwd: device), "git commit")
      }
      _ = must(spawn(["git", "push", "-q", "origin", "main"], cwd: pair.gitA), "git push (a)")

      if options.keep { try keepBeforeSync(work) }
      // The three measured runs back to back, in turn first, so the machine's load falls on them alike.
      var runs: [() -> Void] = [
        {
          nbTimes.append(
            must(spawn([options.nbBinary, "--dir", pair.b, "sync", "--device", "b"], cwd: pair.b), "nb sync (b)")
              .seconds)
        },
        {
          let pull = spawn(["git", "pull", "-q", "--no-rebase", "origin", "main"], cwd: pair.gitB)
          var gitTime = pull.seconds
          if pull.status == 0 {
            gitTime += must(spawn(["git", "push", "-q", "origin", "main"], cwd: pair.gitB), "git push (b)").seconds
          } else {
            conflicts += 1
          }
          gitTimes.append(gitTime)
        },
      ]
      if let baseline = options.baseline, let devices = baselinePair {
        runs.append {
          baselineTimes.append(
            must(spawn([baseline, "--dir", devices.b, "sync", "--device", "b"], cwd: devices.b), "baseline sync (b)")
              .seconds)
        }
      }
      for index in runs.indices { runs[(index + sample) % runs.count]() }
      if !options.keep { try? FileManager.default.removeItem(atPath: work) }
    }
    let gitP50 = percentile(gitTimes, 0.5)
    let suffix = conflicts > 0 ? " (nb resolves the conflicts; git stops at them)" : ""
    if !baselineTimes.isEmpty {
      rows.append(
        Row(
          name: "baseline nb sync vs the git pair, \(changed) of \(notes) notes changed on each side" + suffix,
          p50: percentile(baselineTimes, 0.5), p95: percentile(baselineTimes, 0.95), git: gitP50))
    }
    rows.append(
      Row(
        name: "nb sync vs git pull --no-rebase && git push, \(changed) of \(notes) notes changed on each side" + suffix,
        p50: percentile(nbTimes, 0.5), p95: percentile(nbTimes, 0.95), git: gitP50))
  }

  // A sync with nothing to do, on a large repository over file://, next to what the transport alone costs: a
  // libgit2 fetch that brings nothing (in this process, so without a process start) and the git CLI's own
  // `git ls-remote`, `git fetch` and `git pull --no-rebase && git push` on the same remote.
  // --quick keeps its small size: it only checks that the rows still run.
  let large = options.quick ? (options.sizes.max() ?? 50) : max(options.sizes.max() ?? 10_000, 10_000)
  let work = "\(options.workDirectory)/sync-noop"
  let pair = try makePair(at: work, notes: large)
  var noop: [Double] = []
  var start: [Double] = []
  var fetch: [Double] = []
  var lsRemote: [Double] = []
  var gitFetch: [Double] = []
  var gitPair: [Double] = []
  var baselineNoop: [Double] = []
  for _ in 0..<options.samples {
    noop.append(must(spawn([options.nbBinary, "--dir", pair.b, "sync"], cwd: pair.b), "nb sync (no-op)").seconds)
    if let baseline = options.baseline {
      baselineNoop.append(must(spawn([baseline, "--dir", pair.b, "sync"], cwd: pair.b), "baseline sync (no-op)").seconds)
    }
    start.append(must(spawn([options.nbBinary, "--version"], cwd: pair.b), "nb --version").seconds)
    fetch.append(try timeLibGit2Fetch(workTree: pair.b))
    lsRemote.append(must(spawn(["git", "ls-remote", "origin"], cwd: pair.gitB), "git ls-remote").seconds)
    gitFetch.append(must(spawn(["git", "fetch", "-q", "origin"], cwd: pair.gitB), "git fetch").seconds)
    let pull = must(spawn(["git", "pull", "-q", "--no-rebase", "origin", "main"], cwd: pair.gitB), "git pull")
    let push = must(spawn(["git", "push", "-q", "origin", "main"], cwd: pair.gitB), "git push")
    gitPair.append(pull.seconds + push.seconds)
  }
  let noopP50 = percentile(noop, 0.5)
  let fetchP50 = percentile(fetch, 0.5)
  let startP50 = percentile(start, 0.5)
  let gitPairP50 = percentile(gitPair, 0.5)
  if !baselineNoop.isEmpty {
    rows.append(
      Row(
        name: "baseline nb sync vs the git pair with nothing to do, \(large) notes, file://",
        p50: percentile(baselineNoop, 0.5), p95: percentile(baselineNoop, 0.95), git: gitPairP50))
  }
  rows.append(
    Row(
      name: "nb sync vs git pull --no-rebase && git push with nothing to do, \(large) notes, file://", p50: noopP50,
      p95: percentile(noop, 0.95), git: gitPairP50))
  rows.append(
    Row(
      name: "  transport round trip: libgit2 fetch bringing nothing (in process)", p50: fetchP50,
      p95: percentile(fetch, 0.95)))
  rows.append(Row(name: "  nb process start (nb --version)", p50: startP50, p95: percentile(start, 0.95)))
  rows.append(
    Row(
      name: "  nb sync beyond the round trip and the process start", p50: noopP50 - fetchP50 - startP50,
      p95: .nan))
  rows.append(
    Row(
      name: "  git ls-remote (process + upload-pack)", p50: percentile(lsRemote, 0.5),
      p95: percentile(lsRemote, 0.95)))
  rows.append(
    Row(name: "  git fetch bringing nothing", p50: percentile(gitFetch, 0.5), p95: percentile(gitFetch, 0.95)))
  if !options.keep { try? FileManager.default.removeItem(atPath: work) }
  report(size: base, rows: rows)
}

private struct Pair {
  var a: String
  var b: String
  var gitA: String
  var gitB: String
}

/// A bare remote holding `notes` notes, two nb devices (made with `nb`) and two plain git clones of it.
private func makePair(at work: String, notes: Int, nb: String = nbPath) throws -> Pair {
  try? FileManager.default.removeItem(atPath: work)
  try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
  let a = work + "/a"
  try buildRepository(at: a, count: notes)
  let remote = "file://\(work)/remote.git"
  _ = must(
    spawn(["git", "init", "-q", "--bare", "--initial-branch=main", "\(work)/remote.git"], cwd: work), "git init --bare")
  _ = must(spawn([nb, "--dir", a, "remote", "add", "origin", remote], cwd: a), "nb remote add")
  _ = must(spawn([nb, "--dir", a, "sync", "--device", "a"], cwd: a), "nb sync (publish)")
  _ = must(spawn([nb, "clone", remote, work + "/b"], cwd: work), "nb clone")
  // The git pair gets its own copy of the same remote, so the two pairs never see each other's pushes.
  let gitRemote = "\(work)/remote-git.git"
  _ = must(spawn(["git", "clone", "-q", "--bare", "\(work)/remote.git", gitRemote], cwd: work), "git clone --bare")
  for name in ["git-a", "git-b"] {
    _ = must(spawn(["git", "clone", "-q", "file://" + gitRemote, "\(work)/\(name)"], cwd: work), "git clone")
  }
  return Pair(a: a, b: work + "/b", gitA: work + "/git-a", gitB: work + "/git-b")
}

/// With `--keep`, both devices b and their remotes as they are just before the measured sync, in
/// `<work>/before-sync/` (each remote URL pointed at the copy): `nb --dir <work>/before-sync/b sync --device b`, or
/// `git pull --no-rebase origin main && git push origin main` in `git-b`, repeats the sync by hand, under a profiler,
/// as often as the directory is copied again (the copy's files are new inodes: `git status` there first refreshes
/// the index, as the benchmark's own run did not need).
private func keepBeforeSync(_ work: String) throws {
  let copy = work + "/before-sync"
  try? FileManager.default.removeItem(atPath: copy)
  try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
  _ = must(
    spawn(["cp", "-a", work + "/b", work + "/remote.git", work + "/git-b", work + "/remote-git.git", copy], cwd: work),
    "cp -a")
  _ = must(
    spawn(["git", "remote", "set-url", "origin", "file://\(copy)/remote.git"], cwd: copy + "/b"), "git remote set-url")
  _ = must(
    spawn(["git", "remote", "set-url", "origin", "file://\(copy)/remote-git.git"], cwd: copy + "/git-b"),
    "git remote set-url")
}

/// Appends a line to `changed` notes starting at `offset`, so the two sides overlap on a tenth of them.
private func edit(_ device: String, changed: Int, side: String, offset: Int) throws {
  for i in offset..<(offset + changed) {
    let path = "\(device)/area-\(i % 10)/topic-\((i / 10) % 10)/note-\(i).md"
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("edited on \(side)\n".utf8))
    try handle.close()
  }
}

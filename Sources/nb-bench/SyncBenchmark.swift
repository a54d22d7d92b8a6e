import Foundation
import NoteStore

/// `nb sync` against the git CLI's `git pull --no-rebase && git push`, on identical pairs of devices sharing one
/// bare remote: N notes changed on each side, a tenth of them the same notes (those conflict for both tools). Where
/// git stops at a conflict, its time up to the conflict is what counts. Also a no-op sync of a large repository.
func syncBenchmark(options: Options) throws {
  let base = options.sizes.min() ?? 1_000
  var rows: [Row] = []
  for changed in options.quick ? [5] : [10, 1_000] {
    // Each side changes its own notes, overlapping on a tenth: the repository must hold both sets.
    let notes = max(base, 2 * changed)
    var nbTimes: [Double] = []
    var gitTimes: [Double] = []
    var conflicts = 0
    for sample in 0..<max(1, min(options.samples, 5)) {
      let work = "\(options.workDirectory)/sync-\(changed)-\(sample)"
      let pair = try makePair(at: work, notes: notes)
      // The same edits on the nb pair and on the git pair; git's devices are plain clones of the same remote.
      try edit(pair.a, changed: changed, side: "a", offset: 0)
      try edit(pair.gitA, changed: changed, side: "a", offset: 0)
      try edit(pair.b, changed: changed, side: "b", offset: changed - changed / 10)
      try edit(pair.gitB, changed: changed, side: "b", offset: changed - changed / 10)
      _ = must(spawn([options.nbBinary, "--dir", pair.a, "sync", "--device", "a"], cwd: pair.a), "nb sync (a)")
      _ = must(spawn([options.nbBinary, "--dir", pair.b, "save"], cwd: pair.b), "nb save (b)")
      for device in [pair.gitA, pair.gitB] {
        _ = must(spawn(["git", "add", "-A"], cwd: device), "git add")
        _ = must(spawn(["git", "commit", "-q", "-m", "edits"], cwd: device), "git commit")
      }
      _ = must(spawn(["git", "push", "-q", "origin", "main"], cwd: pair.gitA), "git push (a)")

      let nb = must(spawn([options.nbBinary, "--dir", pair.b, "sync", "--device", "b"], cwd: pair.b), "nb sync (b)")
      nbTimes.append(nb.seconds)
      let pull = spawn(["git", "pull", "-q", "--no-rebase", "origin", "main"], cwd: pair.gitB)
      var gitTime = pull.seconds
      if pull.status == 0 {
        gitTime += must(spawn(["git", "push", "-q", "origin", "main"], cwd: pair.gitB), "git push (b)").seconds
      } else {
        conflicts += 1
      }
      gitTimes.append(gitTime)
      if !options.keep { try? FileManager.default.removeItem(atPath: work) }
    }
    rows.append(
      Row(
        name: "nb sync vs git pull --no-rebase && git push, \(changed) of \(notes) notes changed on each side"
          + (conflicts > 0 ? " (nb resolves the conflicts; git stops at them)" : ""), p50: percentile(nbTimes, 0.5),
        p95: percentile(nbTimes, 0.95), git: percentile(gitTimes, 0.5)))
  }

  // A sync with nothing to do, on a large repository over file://.
  let large = options.sizes.max() ?? 10_000
  let work = "\(options.workDirectory)/sync-noop"
  let pair = try makePair(at: work, notes: large)
  var noop: [Double] = []
  for _ in 0..<options.samples {
    noop.append(must(spawn([options.nbBinary, "--dir", pair.b, "sync"], cwd: pair.b), "nb sync (no-op)").seconds)
  }
  rows.append(
    Row(
      name: "nb sync with nothing to do, \(large) notes, file://", p50: percentile(noop, 0.5),
      p95: percentile(noop, 0.95)))
  if !options.keep { try? FileManager.default.removeItem(atPath: work) }
  report(size: base, rows: rows)
}

private struct Pair {
  var a: String
  var b: String
  var gitA: String
  var gitB: String
}

/// A bare remote holding `notes` notes, two nb devices and two plain git clones of it.
private func makePair(at work: String, notes: Int) throws -> Pair {
  try? FileManager.default.removeItem(atPath: work)
  try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
  let a = work + "/a"
  try buildRepository(at: a, count: notes)
  let remote = "file://\(work)/remote.git"
  _ = must(
    spawn(["git", "init", "-q", "--bare", "--initial-branch=main", "\(work)/remote.git"], cwd: work), "git init --bare")
  _ = must(spawn([nbPath, "--dir", a, "remote", "add", "origin", remote], cwd: a), "nb remote add")
  _ = must(spawn([nbPath, "--dir", a, "sync", "--device", "a"], cwd: a), "nb sync (publish)")
  _ = must(spawn([nbPath, "clone", remote, work + "/b"], cwd: work), "nb clone")
  // The git pair gets its own copy of the same remote, so the two pairs never see each other's pushes.
  let gitRemote = "\(work)/remote-git.git"
  _ = must(spawn(["git", "clone", "-q", "--bare", "\(work)/remote.git", gitRemote], cwd: work), "git clone --bare")
  for name in ["git-a", "git-b"] {
    _ = must(spawn(["git", "clone", "-q", "file://" + gitRemote, "\(work)/\(name)"], cwd: work), "git clone")
  }
  return Pair(a: a, b: work + "/b", gitA: work + "/git-a", gitB: work + "/git-b")
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

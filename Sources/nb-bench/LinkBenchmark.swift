// `nb-bench --links`: links at the issue's scale (100 000 notes, about 1 000 000 links) — `nb backlinks` against
// `rg -l` for the note's name over the same tree, `nb check links`, `nb links`, the link filters; with and without a
// watcher's change journal; `nb rename` of a note with 1 000 backlinks (one commit rewriting them all); the index's
// size.
import Foundation
import NBTestSupport
import NoteStore

/// Links per note: 100 000 notes make a million.
private let linksPerNote = 10

/// How many notes link to the hub note (`hubs/Hub note.md`, named as Obsidian names notes) that `nb rename` renames:
/// the first ones, one link each, in the forms people write.
private let hubBacklinks = 1_000

func linkBenchmark(options: Options) throws {
  for size in options.sizes {
    let root = "\(options.workDirectory)/links-\(size)"
    let setup = try time { try buildLinkRepository(at: root, count: size) }
    FileHandle.standardError.write(
      Data("built \(size) notes, \(size * linksPerNote) links in \(String(format: "%.1f", setup)) s\n".utf8))
    let nb = [options.nbBinary, "--dir", root]
    let index = must(spawn(nb + ["backlinks", "note-0", "--count"], cwd: root), "first backlinks")
    var rows: [Row] = [Row(name: "first nb backlinks (builds the index)", p50: index.seconds, p95: index.seconds)]

    func measure(_ name: String, versus: Double? = nil, _ arguments: [String]) -> Double {
      var times: [Double] = []
      for _ in 0..<options.samples {
        let run = spawn(arguments, cwd: root)
        // grep-like tools exit 1 when nothing matches; `nb check links` exits 1 when it found problems.
        if run.status != 0 && run.status != 1 { fatalError("\(name) exited with status \(run.status)") }
        times.append(run.seconds)
      }
      let p50 = percentile(times, 0.5)
      let rss = arguments.first == options.nbBinary ? peakRSSKiB(arguments) : nil
      rows.append(
        Row(name: name, p50: p50, p95: percentile(times, 0.95), rssKiB: rss, versus: versus.map { ratio($0, p50) } ?? ""))
      return p50
    }
    // A note of typical popularity (a handful of backlinks) and the most linked one (thousands).
    let typical = size * 42 / 100 + 7
    let typicalPath = notePath(typical)
    let popularPath = notePath(0)
    let count = spawn(nb + ["backlinks", typicalPath, "--count"], cwd: root, output: "\(root)/../typical-count")
    _ = must(count, "count")
    let typicalLinks = (try? String(contentsOfFile: "\(root)/../typical-count", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    _ = must(spawn(nb + ["backlinks", popularPath, "--count"], cwd: root, output: "\(root)/../popular-count"), "count")
    let popularLinks = (try? String(contentsOfFile: "\(root)/../popular-count", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    let rg = measure("rg -l note-\(typical) (a scan for the name)", ["rg", "-l", "--no-messages", "note-\(typical)", root])
    _ = measure("git grep -l note-\(typical)", ["git", "grep", "-l", "note-\(typical)"])
    let gitStatus = measure("git status (stats every file: the floor of a walk)", ["git", "status", "--porcelain"])
    _ = measure(
      "nb backlinks <note of \(typicalLinks) linking notes> (walks the tree for edits)", versus: rg,
      nb + ["backlinks", typicalPath])
    _ = measure("nb backlinks <note of \(popularLinks) linking notes> (walks)", versus: gitStatus, nb + ["backlinks", popularPath])
    _ = measure("nb links <note> (walks)", nb + ["links", typicalPath])
    _ = measure("nb check links (walks)", nb + ["check", "links"])
    // While a watcher runs: this process owns the change journal (as `nb watch` would), so a command checks only
    // the paths it recorded instead of walking the tree.
    if let repository = try? NoteRepository.open(at: URL(fileURLWithPath: root)),
      let journal = try ChangeJournal.open(repository: repository)
    {
      let answering = try NewFileWatcher(directory: journal.requestDirectory) { [journal] in
        journal.acknowledge(request: $0)
      }
      _ = spawn(nb + ["backlinks", typicalPath, "--count"], cwd: root)
      _ = measure("nb list --limit 1 (any command's floor), watcher running", nb + ["list", "--limit", "1"])
      _ = measure("nb backlinks <note>, watcher running", versus: rg, nb + ["backlinks", typicalPath])
      _ = measure("nb backlinks <note> --json, watcher running", versus: rg, nb + ["backlinks", typicalPath, "--json"])
      _ = measure(
        "nb backlinks <most linked note> --count, watcher running", versus: rg,
        nb + ["backlinks", popularPath, "--count"])
      _ = measure("nb links <note>, watcher running", nb + ["links", typicalPath])
      _ = measure("nb check links, watcher running", nb + ["check", "links"])
      _ = measure("nb search --count links-to:<note>, watcher running", nb + ["search", "--count", "links-to:" + typicalPath])
      _ = measure("nb search --count is:orphan, watcher running", nb + ["search", "--count", "is:orphan"])
      answering.stop()
      journal.close()
    }
    // A rename rewrites every link to the note in one commit; it alternates between two titles, so each sample is a
    // real rename of a note with that many backlinks (and the walk for edits every command does).
    let linking = min(size, hubBacklinks)
    var titles = ["Hub note", "Hub renamed"]
    func measureRenames(_ label: String) {
      var renames: [Double] = []
      let commitsBefore = commitCount(root)
      for _ in 0..<options.samples {
        // Its summary line on standard error would cut the table; the exit status says whether it worked.
        let run = must(
          spawn(nb + ["rename", "hubs/\(titles[0]).md", titles[1]], cwd: root, errors: "/dev/null"), "nb rename")
        renames.append(run.seconds)
        titles.reverse()
      }
      let commits = commitCount(root) - commitsBefore
      let rss = peakRSSKiB(nb + ["rename", "hubs/\(titles[0]).md", titles[1]])
      titles.reverse()
      let each = commits == options.samples ? "one commit each" : "\(commits) commits for \(options.samples)"
      rows.append(
        Row(
          name: "nb rename of a note with \(linking) backlinks (\(each))\(label), vs git status",
          p50: percentile(renames, 0.5), p95: percentile(renames, 0.95), rssKiB: rss,
          versus: ratio(gitStatus, percentile(renames, 0.5))))
    }
    measureRenames("")
    // The same while a watcher keeps the change journal: the rename checks only the paths it recorded for edits.
    if let repository = try? NoteRepository.open(at: URL(fileURLWithPath: root)),
      let journal = try ChangeJournal.open(repository: repository)
    {
      let answering = try NewFileWatcher(directory: journal.requestDirectory) { [journal] in
        journal.acknowledge(request: $0)
      }
      _ = spawn(nb + ["backlinks", typicalPath, "--count"], cwd: root)
      measureRenames(", watcher running")
      answering.stop()
      journal.close()
    }
    report(size: size, rows: rows)
    let indexBytes = ["", "-wal", "-shm"].reduce(Int64(0)) { total, suffix in
      let path = "\(root)/.git/nb/index/notes.sqlite" + suffix
      return total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0)
    }
    print(
      "\nindex: \(String(format: "%.1f", Double(indexBytes) / 1_048_576)) MiB for \(size) notes and "
        + "\(size * linksPerNote) links")
    if !options.keep { try? FileManager.default.removeItem(atPath: root) }
  }
}

private func notePath(_ i: Int) -> String { "area-\(i % 10)/topic-\((i / 10) % 10)/note-\(i).md" }

/// The number of commits on HEAD, from git.
private func commitCount(_ root: String) -> Int {
  let file = "\(root)/../commit-count"
  _ = must(spawn(["git", "rev-list", "--count", "HEAD"], cwd: root, output: file), "git rev-list")
  return Int((try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
    ?? 0
}

/// `count` notes in 100 notebooks, each with `linksPerNote` links: bare wiki links (most), with a heading, vault
/// paths, relative Markdown links, embeds of 1 000 images in `assets/`, and a few to notes that do not exist.
/// Targets are skewed as real vaults are (a few hubs linked thousands of times, most notes a few times).
private func buildLinkRepository(at root: String, count: Int) throws {
  try? FileManager.default.removeItem(atPath: root)
  _ = try NoteRepository.initialize(at: URL(fileURLWithPath: root))
  let stamp = "2026-11-01T10:15:03+01:00"
  var random = SplitMix64(seed: 42)
  let images = max(10, count / 100)
  try FileManager.default.createDirectory(atPath: "\(root)/assets", withIntermediateDirectories: true)
  for k in 0..<images { try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: "\(root)/assets/img-\(k).png")) }
  func target() -> Int {
    let u = Double(random.next() >> 11) / Double(1 << 53)
    return min(count - 1, Int(u * u * u * Double(count)))
  }
  for i in 0..<count {
    let directory = "\(root)/area-\(i % 10)/topic-\((i / 10) % 10)"
    if i < 100 { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
    var body = "# Note \(i)\n\nSome text for note \(i), long enough to look like a real note.\n\n## Section 2\n\n"
    for n in 0..<linksPerNote {
      let j = target()
      let link: String
      switch random.next() % 20 {
      case 0, 1: link = "[[note-\(j)#Section 2]]"
      case 2: link = "[[\(notePath(j).dropLast(3))|note \(j)]]"
      case 3, 4:
        let from = "area-\(i % 10)/topic-\((i / 10) % 10)"
        let to = notePath(j)
        link = "[see](" + (from == String(to.split(separator: "/").prefix(2).joined(separator: "/"))
          ? "./" + to.split(separator: "/").last! : "../../" + to) + ")"
      case 5, 6: link = "![[img-\(Int(random.next() % UInt64(images))).png]]"
      case 7: link = "[[missing-\(j)]]"
      default: link = "[[note-\(j)]]"
      }
      body += (n % 3 == 0 ? "Related: " : "and ") + link + (n % 3 == 2 ? ".\n" : " ")
    }
    if i < hubBacklinks {
      switch i % 5 {
      case 0, 1, 2: body += "\nThe hub: [[Hub note]].\n"
      case 3: body += "\nThe hub's part: [[Hub note#Part|its part]].\n"
      default: body += "\nThe hub: [hub](../../hubs/Hub%20note.md).\n"
      }
    }
    let text = """
      ---
      id: \(UUID().uuidString.lowercased())
      title: Note \(i)
      created: \(stamp)
      updated: \(stamp)
      tags: [t\(i % 50)]
      ---

      """ + body + "\n"
    try text.write(toFile: "\(directory)/note-\(i).md", atomically: false, encoding: .utf8)
  }
  try FileManager.default.createDirectory(atPath: "\(root)/hubs", withIntermediateDirectories: true)
  try "The most linked note.\n\n## Part\n".write(toFile: "\(root)/hubs/Hub note.md", atomically: false, encoding: .utf8)
  _ = must(spawn(["git", "add", "-A"], cwd: root), "git add -A")
  _ = must(spawn(["git", "commit", "-q", "-m", "bench: \(count) notes with links"], cwd: root), "git commit")
}

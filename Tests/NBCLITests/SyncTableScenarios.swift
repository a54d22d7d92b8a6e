import Foundation
import NBTestSupport
import XCTest

/// Every row of the sync conflict table (issue 3), as two real devices editing and syncing through one bare remote.
/// The scenarios are written once here and run over each transport by the subclasses below. Each one syncs B, A, B
/// (so A merges: A is "ours", B's pushed commits are "theirs") and then checks convergence with the git CLI.
class SyncTableScenarios: TwoDeviceTestCase {
  /// The body every scenario note starts with.
  static let fiveLines = "line one\nline two\nline three\nline four\nline five\n"

  /// The committed text of a file at a commit, read with the git CLI (the oracle for "that side's version").
  func committed(_ device: Device, _ commit: String, _ path: String) throws -> String {
    try device.git.show(commit, path: path)
  }

  // MARK: - Rows

  /// Changed on one side only → that side's version, byte for byte; a deletion on one side is a deletion.
  func scenarioChangedOnOneSideOnly() throws {
    let notes = try share([
      Seed(title: "Alpha", content: Self.fiveLines), Seed(title: "Beta", content: Self.fiveLines),
      Seed(title: "Gamma", content: Self.fiveLines),
    ])
    let (alpha, beta, gamma) = (notes[0], notes[1], notes[2])
    try a.replaceLine(alpha.path, "line two", with: "line two, edited on the laptop")
    try a.ok("save")
    try a.ok("delete", gamma.path)
    try b.replaceLine(beta.path, "line four", with: "line four, edited on the desktop")
    try b.ok("save")
    let delta = try b.add("Delta", content: "new on the desktop\n")
    let tips = [try a.head(), try b.head()]

    let summaries = try syncAll([b, a, b])
    XCTAssertEqual(summaries.map(\.outcome), ["pushed", "merged", "fast-forwarded"])
    XCTAssertEqual(summaries[1].merged, [], "nothing needed a line merge")
    XCTAssertEqual(summaries[1].conflicts.count, 0)
    XCTAssertEqual(summaries[1].resurrected, [])
    for device in [a!, b!] {
      XCTAssertEqual(try device.read(alpha.path), try committed(a, tips[0], alpha.path), "[\(device.name)] alpha")
      XCTAssertEqual(try device.read(beta.path), try committed(b, tips[1], beta.path), "[\(device.name)] beta")
      XCTAssertEqual(try device.read(delta.path), try committed(b, tips[1], delta.path), "[\(device.name)] delta")
      XCTAssertFalse(
        FileManager.default.fileExists(atPath: device.root.appendingPathComponent(gamma.path).path),
        "[\(device.name)] the note deleted on the laptop came back")
    }
    try assertConverged(tips: tips, exempt: [gamma.id])
  }

  /// Both changed different parts → one note with both edits (body lines from both, tags as a set, the later
  /// `updated`), reported as merged, no conflict copy.
  func scenarioBothChangedDifferentParts() throws {
    let note = try share([Seed(title: "Plan", content: Self.fiveLines, tags: "shared")])[0]
    try a.ok("edit", note.path, "--tags", "shared,laptop")
    try a.replaceLine(note.path, "line one", with: "line one, from the laptop")
    try a.ok("save")
    try b.ok("edit", note.path, "--tags", "shared,desktop")
    try b.replaceLine(note.path, "line five", with: "line five, from the desktop")
    try b.ok("save")
    let tips = [try a.head(), try b.head()]

    let summaries = try syncAll([b, a, b])
    XCTAssertEqual(summaries[1].outcome, "merged")
    XCTAssertEqual(summaries[1].merged, [note.path])
    XCTAssertEqual(summaries[1].conflicts.count, 0, "different parts must not conflict")
    let text = try a.read(note.path)
    XCTAssertEqual(
      Self.split(text).body, "line one, from the laptop\nline two\nline three\nline four\nline five, from the desktop\n"
    )
    XCTAssertEqual(Self.split(text).id, note.id)
    let tags = Self.frontMatterValue("tags", in: text).map {
      Set($0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).components(separatedBy: ", "))
    }
    XCTAssertEqual(tags, ["shared", "laptop", "desktop"], "tags: additions from both sides")
    let updates = try tips.map { Self.frontMatterValue("updated", in: try committed(a, $0, note.path)) ?? "" }
    let later = updates.max { (Self.compactUTC($0) ?? "") < (Self.compactUTC($1) ?? "") }
    XCTAssertEqual(Self.frontMatterValue("updated", in: text), later, "updated: the later of both sides")
    XCTAssertEqual(try a.conflicts().count, 0)
    try assertConverged(tips: tips, exempt: [note.id])
  }

  /// Both changed the same lines → the later `updated` keeps the path, the other version is a conflict copy
  /// `<stem>.conflict-<UTC of the loser's updated>-<merging device>.md` with a new id and `conflict_of`; a tie goes
  /// to the remote, and so does an `updated` more than a day in the future. `nb conflicts` lists the copies on both
  /// devices.
  func scenarioBothChangedSameLines() throws {
    let notes = try share([
      Seed(title: "Laptop Later", content: Self.fiveLines), Seed(title: "Desktop Later", content: Self.fiveLines),
      Seed(title: "Tied", content: Self.fiveLines), Seed(title: "Too Far Ahead", content: Self.fiveLines),
    ])
    // The last note: the laptop's `updated` is more than a day ahead, so it is not trusted and the remote wins.
    let times: [(laptop: Double, desktop: Double)] = [(2, 1), (1, 2), (3, 3), (30, 1)]
    let now = Self.hoursFromNow(0)
    for (note, time) in zip(notes, times) {
      try a.replaceLine(note.path, "line two", with: "line two, laptop")
      try a.setUpdated(note.path, now.addingTimeInterval(time.laptop * 3600))
      try b.replaceLine(note.path, "line two", with: "line two, desktop")
      try b.setUpdated(note.path, now.addingTimeInterval(time.desktop * 3600))
    }
    try a.ok("save")
    try b.ok("save")
    // Both saves turn a hand-set `updated` into that + 1 s; the tie must really be a tie.
    XCTAssertEqual(
      Self.frontMatterValue("updated", in: try a.read(notes[2].path)),
      Self.frontMatterValue("updated", in: try b.read(notes[2].path)))
    let tips = [try a.head(), try b.head()]

    let summaries = try syncAll([b, a, b])
    let merge = summaries[1]
    XCTAssertEqual(merge.outcome, "merged")
    XCTAssertEqual(merge.conflicts.count, 4, "\(merge.conflicts)")
    let expectedWinners = ["ours", "theirs", "theirs", "theirs"]
    for (index, note) in notes.enumerated() {
      let winnerTip = expectedWinners[index] == "ours" ? tips[0] : tips[1]
      let loserTip = expectedWinners[index] == "ours" ? tips[1] : tips[0]
      let winnerText = try committed(a, winnerTip, note.path)
      let loserText = try committed(a, loserTip, note.path)
      let stem = String(note.path.dropLast(3))
      let loserUpdated = try XCTUnwrap(Self.frontMatterValue("updated", in: loserText))
      // The copy is named after the losing version's device (its save commit's Nb-Device), not the merging one.
      let loserDevice = expectedWinners[index] == "ours" ? "desktop" : "laptop"
      let copyPath = "\(stem).conflict-\(try XCTUnwrap(Self.compactUTC(loserUpdated)))-\(loserDevice).md"
      let conflict = merge.conflicts.first { $0.path == note.path }
      XCTAssertEqual(conflict?.winner, expectedWinners[index], "winner of \(note.path)")
      XCTAssertEqual(conflict?.kept_at, copyPath)
      for device in [a!, b!] {
        XCTAssertEqual(try device.read(note.path), winnerText, "[\(device.name)] the winner keeps \(note.path)")
        let copy = try device.read(copyPath)
        let copyID = try XCTUnwrap(Self.split(copy).id)
        XCTAssertNotEqual(copyID, note.id, "a conflict copy gets a new id")
        XCTAssertEqual(copyID.count, 36)
        XCTAssertEqual(Self.frontMatterValue("conflict_of", in: copy), note.id)
        let withoutIDs = { (text: String) in
          text.components(separatedBy: "\n").filter { !$0.hasPrefix("id: ") && !$0.hasPrefix("conflict_of: ") }
        }
        XCTAssertEqual(withoutIDs(copy), withoutIDs(loserText), "[\(device.name)] the copy is the losing version")
      }
    }
    for device in [a!, b!] {
      let listed = try device.conflicts()
      XCTAssertEqual(Set(listed.map(\.path)), Set(merge.conflicts.map(\.kept_at)), "[\(device.name)] nb conflicts")
      XCTAssertEqual(Set(listed.compactMap(\.conflictOf)), Set(notes.map(\.id)))
    }
    try assertConverged(tips: tips)
  }

  /// Edited on one side, deleted on the other → the edit wins, in both directions, reported as resurrected.
  func scenarioEditedOnOneSideDeletedOnTheOther() throws {
    let notes = try share([
      Seed(title: "Deleted Here", content: Self.fiveLines), Seed(title: "Deleted There", content: Self.fiveLines),
      Seed(title: "Bystander", content: Self.fiveLines),
    ])
    try a.ok("delete", notes[0].path)
    try a.replaceLine(notes[1].path, "line three", with: "line three, laptop")
    try a.ok("save")
    try b.replaceLine(notes[0].path, "line three", with: "line three, desktop")
    try b.ok("save")
    try b.ok("delete", notes[1].path)
    let tips = [try a.head(), try b.head()]

    let summaries = try syncAll([b, a, b])
    XCTAssertEqual(summaries[1].outcome, "merged")
    XCTAssertEqual(summaries[1].resurrected.sorted(), [notes[0].path, notes[1].path].sorted())
    XCTAssertEqual(summaries[1].conflicts.count, 0)
    for device in [a!, b!] {
      XCTAssertEqual(try device.read(notes[0].path), try committed(b, tips[1], notes[0].path), "[\(device.name)]")
      XCTAssertEqual(try device.read(notes[1].path), try committed(a, tips[0], notes[1].path), "[\(device.name)]")
    }
    try assertConverged(tips: tips)
  }

  /// Renamed or moved on one side, edited on the other → the edit lands at the new path (both directions).
  func scenarioRenamedOnOneSideEditedOnTheOther() throws {
    let notes = try share([
      Seed(title: "Moved Here", content: Self.fiveLines), Seed(title: "Moved There", content: Self.fiveLines),
    ])
    let movedByA = try a.ok("move", notes[0].path, "work").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    try a.replaceLine(notes[1].path, "line four", with: "line four, laptop")
    try a.ok("save")
    try b.replaceLine(notes[0].path, "line four", with: "line four, desktop")
    try b.ok("save")
    let movedByB = try b.ok("move", notes[1].path, "archive/renamed.md").stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    XCTAssertEqual(movedByA, "work/moved-here.md")
    XCTAssertEqual(movedByB, "archive/renamed.md")
    let tips = [try a.head(), try b.head()]

    let summaries = try syncAll([b, a, b])
    XCTAssertEqual(summaries[1].conflicts.count, 0, "\(summaries[1].conflicts)")
    for device in [a!, b!] {
      let files = try Self.workTreeFiles(device.root)
      XCTAssertNil(files[notes[0].path], "[\(device.name)] old path of the moved note")
      XCTAssertNil(files[notes[1].path], "[\(device.name)] old path of the renamed note")
      let first = Self.split(try device.read(movedByA))
      XCTAssertEqual(first.id, notes[0].id)
      XCTAssertEqual(first.body, "line one\nline two\nline three\nline four, desktop\nline five\n")
      let second = Self.split(try device.read(movedByB))
      XCTAssertEqual(second.id, notes[1].id)
      XCTAssertEqual(second.body, "line one\nline two\nline three\nline four, laptop\nline five\n")
      XCTAssertEqual(try noteCount(device, id: notes[0].id), 1, "[\(device.name)] one file per note")
      XCTAssertEqual(try noteCount(device, id: notes[1].id), 1, "[\(device.name)] one file per note")
    }
    try assertConverged(tips: tips)
  }

  /// Renamed to different places on both sides → the later `updated` picks the path; one file per note.
  func scenarioRenamedToDifferentPlacesOnBoth() throws {
    let notes = try share([
      Seed(title: "Laptop Path", content: Self.fiveLines), Seed(title: "Desktop Path", content: Self.fiveLines),
    ])
    let times: [(laptop: Double, desktop: Double)] = [(2, 1), (1, 2)]
    var paths: [(laptop: String, desktop: String)] = []
    for (note, time) in zip(notes, times) {
      let onA = try a.ok("move", note.path, "alpha-book").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
      try a.setUpdated(onA, Self.hoursFromNow(time.laptop))
      let onB = try b.ok("move", note.path, "beta-book").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
      try b.setUpdated(onB, Self.hoursFromNow(time.desktop))
      paths.append((onA, onB))
    }
    try a.ok("save")
    try b.ok("save")
    let tips = [try a.head(), try b.head()]

    let summaries = try syncAll([b, a, b])
    XCTAssertEqual(summaries[1].outcome, "merged")
    XCTAssertEqual(summaries[1].conflicts.count, 0, "\(summaries[1].conflicts)")
    for device in [a!, b!] {
      let files = try Self.workTreeFiles(device.root)
      XCTAssertNotNil(files[paths[0].laptop], "[\(device.name)] the laptop's later move wins")
      XCTAssertNil(files[paths[0].desktop], "[\(device.name)]")
      XCTAssertNotNil(files[paths[1].desktop], "[\(device.name)] the desktop's later move wins")
      XCTAssertNil(files[paths[1].laptop], "[\(device.name)]")
      XCTAssertEqual(try noteCount(device, id: notes[0].id), 1)
      XCTAssertEqual(try noteCount(device, id: notes[1].id), 1)
    }
    try assertConverged(tips: tips)
  }

  /// Both sides added different notes at the same path → both kept, the incoming one with a `-2` suffix.
  func scenarioBothAddedAtTheSamePath() throws {
    try share([Seed(title: "Existing", content: "x\n")])
    let mine = try a.add("Groceries", content: "milk\n")
    let theirs = try b.add("Groceries", content: "bread\n")
    XCTAssertEqual(mine.path, "inbox/groceries.md")
    XCTAssertEqual(theirs.path, mine.path)
    let tips = [try a.head(), try b.head()]

    let summaries = try syncAll([b, a, b])
    XCTAssertEqual(summaries[1].outcome, "merged")
    XCTAssertEqual(summaries[1].conflicts.count, 0)
    for device in [a!, b!] {
      XCTAssertEqual(try device.read("inbox/groceries.md"), try committed(a, tips[0], mine.path), "[\(device.name)]")
      XCTAssertEqual(
        try device.read("inbox/groceries-2.md"), try committed(b, tips[1], theirs.path), "[\(device.name)]")
    }
    try assertConverged(tips: tips)
  }

  /// The ink file header from FORMAT.md.
  static let inkHeader = #"{"nbink":1,"unit":"pt","q":{"xy":100,"t":1000,"wh":100,"o":1000,"f":1000,"ang":1000}}"#
  /// A stroke record (FORMAT.md's example, trimmed) with the given id.
  static func stroke(_ id: String) -> String {
    #"{"k":"s","id":""# + id + #"","ord":"a1","ink":"pen","rgba":"1a1a1aff","t0":"2026-11-22T09:07:01.250Z","#
      + #""tf":[1,0,0,1,0,0],"x":[10234,52,49],"y":[30011,-3,-4]}"#
  }

  /// Ink sidecars: one moving with its note while the other side draws in it (the strokes follow the note), and
  /// one drawn in on both sides (merged stroke by stroke: both devices' strokes are kept, no conflict copy).
  func scenarioInkSidecars() throws {
    let notes = try share([
      Seed(title: "Roadmap", content: Self.fiveLines), Seed(title: "Sketch", content: Self.fiveLines),
    ])
    let roadmapInk = "inbox/roadmap.ink.jsonl"
    let sketchInk = "inbox/sketch.ink.jsonl"
    try a.write(roadmapInk, Self.inkHeader + "\n" + Self.stroke("s-base-1") + "\n")
    try a.write(sketchInk, Self.inkHeader + "\n" + Self.stroke("s-base-2") + "\n")
    try a.ok("save")
    try settle()

    let moved = try a.ok("move", notes[0].path, "work").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    XCTAssertEqual(moved, "work/roadmap.md")
    try b.write(roadmapInk, try b.read(roadmapInk) + Self.stroke("s-desktop-1") + "\n")
    try a.write(sketchInk, try a.read(sketchInk) + Self.stroke("s-laptop-2") + "\n")
    try a.setUpdated(notes[1].path, Self.hoursFromNow(1))
    try b.write(sketchInk, try b.read(sketchInk) + Self.stroke("s-desktop-2") + "\n")
    try b.setUpdated(notes[1].path, Self.hoursFromNow(2))
    try a.ok("save")
    try b.ok("save")
    let tips = [try a.head(), try b.head()]
    XCTAssertNoThrow(try committed(b, tips[1], roadmapInk), "nb save should commit the sidecar")

    let summaries = try syncAll([b, a, b])
    let merge = summaries[1]
    XCTAssertEqual(merge.outcome, "merged")
    XCTAssertEqual(merge.conflicts.map(\.kept_at), [], "strokes merge one by one: no conflict copy")
    // Every stroke either device drew, once, in drawing order (all share one order key, so by id).
    let bothDrawings =
      [Self.inkHeader, Self.stroke("s-base-2"), Self.stroke("s-desktop-2"), Self.stroke("s-laptop-2")]
      .joined(separator: "\n") + "\n"
    for device in [a!, b!] {
      let files = try Self.workTreeFiles(device.root)
      XCTAssertNil(files[roadmapInk], "[\(device.name)] the sidecar must move with its note")
      XCTAssertEqual(
        try device.read("work/roadmap.ink.jsonl"), try committed(b, tips[1], roadmapInk),
        "[\(device.name)] the desktop's strokes land next to the moved note")
      XCTAssertEqual(try device.read(sketchInk), bothDrawings, "[\(device.name)] both devices' strokes are kept")
      XCTAssertEqual(
        files.keys.filter { $0.contains("conflict") }, [], "[\(device.name)] no conflict copies")
    }
    try assertConverged(tips: tips)
  }

  /// A merge that would delete more than 50 notes is refused without `--force` (nothing changed, no backup ref),
  /// then `--force` applies it.
  func scenarioMassDeletionNeedsForce() throws {
    let keep = try share([Seed(title: "Keep", content: Self.fiveLines)])[0]
    for index in 1...52 {
      try a.write("bulk/note-\(index).md", "# Bulk \(index)\n\nbody \(index)\n")
    }
    try a.ok("save")
    try settle()
    var deletedIDs: Set<String> = []
    for index in 1...51 {
      deletedIDs.insert(try XCTUnwrap(Self.split(try b.read("bulk/note-\(index).md")).id))
      try b.remove("bulk/note-\(index).md")
    }
    try b.ok("save")
    try a.replaceLine(keep.path, "line one", with: "line one, laptop")
    try a.ok("save")
    let tips = [try a.head(), try b.head()]
    try b.sync()

    let before = try a.fullSnapshot()
    let refused = try a.nb(["sync", "--device", a.name])
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertNotEqual(refused.status, 3)
    XCTAssert(refused.stderr.contains("--force"), refused.stderr)
    XCTAssert(refused.stderr.contains("51"), refused.stderr)
    let ignoringFetch = { (text: String) in
      text.components(separatedBy: "\n").filter { !$0.hasPrefix("refs/remotes/") }
    }
    XCTAssertEqual(ignoringFetch(try a.fullSnapshot()), ignoringFetch(before), "a refused merge changed the repository")

    let forced = try a.sync("--force")
    XCTAssertEqual(forced.outcome, "merged")
    try b.sync()
    for device in [a!, b!] {
      let bulk = try Self.workTreeFiles(device.root).keys.filter { $0.hasPrefix("bulk/") && $0.hasSuffix(".md") }
      XCTAssertEqual(bulk, ["bulk/note-52.md"], "[\(device.name)]")
      XCTAssert(try device.read(keep.path).contains("line one, laptop"))
    }
    try assertConverged(tips: tips, exempt: deletedIDs)
  }

  /// A push the server refuses (a pre-receive hook) is an error that says so; the local commit stays, the remote
  /// does not move; once the hook is gone the next sync sends it.
  func scenarioServerRejectsPush() throws {
    let note = try share([Seed(title: "Guarded", content: Self.fiveLines)])[0]
    let hook = bare.appendingPathComponent("hooks/pre-receive")
    try Data("#!/bin/sh\necho 'policy: no pushes today' >&2\nexit 1\n".utf8).write(to: hook)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook.path)
    try a.replaceLine(note.path, "line one", with: "line one, laptop")
    try a.ok("save")
    let local = try a.head()
    let remoteBefore = try bareGit.revParse("refs/heads/main")

    let rejected = try a.nb(["sync", "--device", a.name])
    XCTAssertNotEqual(rejected.status, 0, "a rejected push must not look like success")
    XCTAssertNotEqual(rejected.status, 3, "a server refusal is not 'offline'")
    XCTAssert(rejected.stderr.contains("refused"), rejected.stderr)
    XCTAssert(rejected.stderr.contains("refs/heads/main"), rejected.stderr)
    XCTAssert(
      rejected.stderr.contains("policy: no pushes today"), "the hook's reason must reach the user: \(rejected.stderr)")
    XCTAssertEqual(try bareGit.revParse("refs/heads/main"), remoteBefore, "the remote moved")
    XCTAssertEqual(try a.head(), local, "the local commit must be kept")
    XCTAssertEqual(try a.git.statusPorcelain(), "")

    try FileManager.default.removeItem(at: hook)
    XCTAssertEqual(try a.sync().outcome, "pushed")
    try b.sync()
    try assertConverged(tips: [local])
  }

  /// How many notes in the device's work tree carry `id`.
  func noteCount(_ device: Device, id: String) throws -> Int {
    try Self.workTreeFiles(device.root).filter { path, data in
      path.hasSuffix(".md") && Self.split(String(decoding: data, as: UTF8.self)).id == id
    }.count
  }
}
